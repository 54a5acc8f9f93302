"""Where the data layer looks, read from environment variables.

``TREEBENCH_DATA``
    Mirror folders, separated like ``PATH`` (``:`` on POSIX).  Each may hold
    ``<name>.csv.gz``, ``<name>.csv`` or ``<name>.arff``.
``TREEBENCH_CACHE``
    The download cache (default ``$XDG_CACHE_HOME/treebench/datasets``, else
    ``~/.cache/treebench/datasets``).
``TREEBENCH_CARDS``
    User card folders, separated like ``PATH``, searched before the built-in
    cards (``datasets/`` of this checkout); a user card with a built-in's name
    overrides it.  Default: ``$XDG_DATA_HOME/treebench/cards``, else
    ``~/.local/share/treebench/cards``.  ``treebench datasets add`` writes into
    the first folder.
``TREEBENCH_OFFLINE``
    ``1``/``true``/``yes`` skips OpenML and UCI downloads.
``TREEBENCH_TIMEOUT``
    Seconds before a download attempt gives up (default 20).
``TREEBENCH_OPENML_SERVER``
    The OpenML API server (default: openml-python's configured server,
    normally ``https://www.openml.org/api/v1/xml``).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from treebench.errors import TreebenchError

ENV_DATA = "TREEBENCH_DATA"
ENV_CACHE = "TREEBENCH_CACHE"
ENV_CARDS = "TREEBENCH_CARDS"
ENV_OFFLINE = "TREEBENCH_OFFLINE"
ENV_TIMEOUT = "TREEBENCH_TIMEOUT"
ENV_OPENML_SERVER = "TREEBENCH_OPENML_SERVER"

def _default_cards_dir() -> Path:
    """``<repo>/datasets`` in a checkout (editable install); in an installed
    wheel the cards are data files under ``<prefix>/share/treebench/datasets``."""
    checkout = Path(__file__).resolve().parents[2] / "datasets"
    installed = Path(sys.prefix) / "share" / "treebench" / "datasets"
    return checkout if checkout.is_dir() or not installed.is_dir() else installed


DEFAULT_CARDS_DIR = _default_cards_dir()


def default_user_cards_dir() -> Path:
    """``$XDG_DATA_HOME/treebench/cards`` or ``~/.local/share/treebench/cards``."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base).expanduser() / "treebench" / "cards"

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"", "0", "false", "no", "off"}


@dataclass(frozen=True)
class Settings:
    """Resolved locations and network policy for one load.

    Attributes
    ----------
    cards_dir
        The built-in cards: a folder with one ``<name>.yaml`` card per dataset.
    mirrors
        Folders searched for data files, in order.
    cache_dir
        Where downloads are kept, each with a checksum.
    offline
        Never touch the network when true.
    timeout
        Seconds allowed for each network connection.
    user_cards
        User card folders, searched in order before ``cards_dir``.
    openml_server
        OpenML API server; ``None`` keeps openml-python's configured one.
    """

    cards_dir: Path
    mirrors: tuple[Path, ...]
    cache_dir: Path
    offline: bool = False
    timeout: float = 20.0
    user_cards: tuple[Path, ...] = ()
    openml_server: str | None = None

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """Build settings from the environment; keyword arguments win."""
        env = os.environ
        settings = cls(
            cards_dir=DEFAULT_CARDS_DIR,
            mirrors=parse_path_list(env.get(ENV_DATA, "")),
            cache_dir=_path(env.get(ENV_CACHE)) or default_cache_dir(),
            offline=_flag(ENV_OFFLINE, env.get(ENV_OFFLINE, "")),
            timeout=_seconds(env.get(ENV_TIMEOUT, "")),
            user_cards=parse_path_list(env.get(ENV_CARDS, "")) or (default_user_cards_dir(),),
            openml_server=_server(env.get(ENV_OPENML_SERVER, "")),
        )
        given = {k: v for k, v in overrides.items() if v is not None}
        for key in ("mirrors", "user_cards"):
            if key in given:
                given[key] = tuple(Path(p) for p in given[key])  # type: ignore[union-attr]
        for key in ("cards_dir", "cache_dir"):
            if key in given:
                given[key] = Path(given[key])  # type: ignore[arg-type]
        return replace(settings, **given)  # type: ignore[arg-type]

    @property
    def card_folders(self) -> tuple[Path, ...]:
        """Every card folder in search order: the user folders, then the built-in one."""
        return (*(p for p in self.user_cards if p != self.cards_dir), self.cards_dir)

    @property
    def user_cards_dir(self) -> Path:
        """Where ``treebench datasets add`` writes: the first user card folder."""
        return self.user_cards[0] if self.user_cards else default_user_cards_dir()

    def describe_mirrors(self) -> str:
        """Human text for error messages: the mirror folders or why none."""
        if not self.mirrors:
            return f"{ENV_DATA} is not set"
        return ", ".join(str(p) + ("" if p.is_dir() else " (no such folder)") for p in self.mirrors)


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/treebench/datasets`` or ``~/.cache/treebench/datasets``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "treebench" / "datasets"


def parse_path_list(text: str) -> tuple[Path, ...]:
    """Split a ``PATH``-like list into folders, dropping empty entries."""
    return tuple(Path(part).expanduser() for part in text.split(os.pathsep) if part.strip())


def _server(text: str) -> str | None:
    value = text.strip()
    if not value:
        return None
    if not value.startswith(("http://", "https://")):
        raise TreebenchError(
            f"{ENV_OPENML_SERVER}={text!r} is not a URL; accepted: an http(s) URL of an OpenML API, "
            "e.g. https://www.openml.org/api/v1/xml"
        )
    return value.rstrip("/")


def _path(text: str | None) -> Path | None:
    return Path(text).expanduser() if text else None


def _flag(name: str, text: str) -> bool:
    value = text.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise TreebenchError(f"{name}={text!r} is not a yes/no value; accepted: 1, 0, true, false, yes, no")


def _seconds(text: str) -> float:
    if not text.strip():
        return 20.0
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if value <= 0:
        raise TreebenchError(f"{ENV_TIMEOUT}={text!r} is not a positive number of seconds")
    return value
