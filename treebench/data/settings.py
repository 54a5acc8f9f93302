"""Where the data layer looks, read from environment variables.

``TREEBENCH_DATA``
    Mirror folders, separated like ``PATH`` (``:`` on POSIX).  Each may hold
    ``<name>.csv.gz``, ``<name>.csv`` or ``<name>.arff``.
``TREEBENCH_CACHE``
    The download cache (default ``$XDG_CACHE_HOME/treebench/datasets``, else
    ``~/.cache/treebench/datasets``).
``TREEBENCH_CARDS``
    The folder of dataset cards (default: ``datasets/`` of this checkout).
``TREEBENCH_OFFLINE``
    ``1``/``true``/``yes`` skips OpenML and UCI downloads.
``TREEBENCH_TIMEOUT``
    Seconds before a download attempt gives up (default 20).
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

def _default_cards_dir() -> Path:
    """``<repo>/datasets`` in a checkout (editable install); in an installed
    wheel the cards are data files under ``<prefix>/share/treebench/datasets``."""
    checkout = Path(__file__).resolve().parents[2] / "datasets"
    installed = Path(sys.prefix) / "share" / "treebench" / "datasets"
    return checkout if checkout.is_dir() or not installed.is_dir() else installed


DEFAULT_CARDS_DIR = _default_cards_dir()

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"", "0", "false", "no", "off"}


@dataclass(frozen=True)
class Settings:
    """Resolved locations and network policy for one load.

    Attributes
    ----------
    cards_dir
        Folder with one ``<name>.yaml`` card per dataset.
    mirrors
        Folders searched for data files, in order.
    cache_dir
        Where downloads are kept, each with a checksum.
    offline
        Never touch the network when true.
    timeout
        Seconds allowed for each network connection.
    """

    cards_dir: Path
    mirrors: tuple[Path, ...]
    cache_dir: Path
    offline: bool = False
    timeout: float = 20.0

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """Build settings from the environment; keyword arguments win."""
        env = os.environ
        settings = cls(
            cards_dir=_path(env.get(ENV_CARDS)) or DEFAULT_CARDS_DIR,
            mirrors=parse_path_list(env.get(ENV_DATA, "")),
            cache_dir=_path(env.get(ENV_CACHE)) or default_cache_dir(),
            offline=_flag(ENV_OFFLINE, env.get(ENV_OFFLINE, "")),
            timeout=_seconds(env.get(ENV_TIMEOUT, "")),
        )
        given = {k: v for k, v in overrides.items() if v is not None}
        if "mirrors" in given:
            given["mirrors"] = tuple(Path(p) for p in given["mirrors"])  # type: ignore[union-attr]
        for key in ("cards_dir", "cache_dir"):
            if key in given:
                given[key] = Path(given[key])  # type: ignore[arg-type]
        return replace(settings, **given)  # type: ignore[arg-type]

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
