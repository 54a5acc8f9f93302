"""Shared fixtures for the data-layer tests (imported by the ``test_data_*`` modules).

Nothing here is a test.  Every test gets its own cache folder and runs offline
unless it says otherwise, so no test reads a developer's cache or the internet.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from treebench.data.settings import ENV_CACHE, ENV_CARDS, ENV_DATA, ENV_OFFLINE, Settings

REPO = Path(__file__).resolve().parents[1]
CARDS = REPO / "datasets"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "data"
HTTP_FILES = FIXTURES / "http"


def shared_mirror() -> Path:
    """The real mirror: ``TREEBENCH_DATA``'s first folder, else ``<repo>/../shared/datasets``."""
    listed = [p for p in os.environ.get(ENV_DATA, "").split(os.pathsep) if p.strip()]
    return Path(listed[0]) if listed else REPO.parent / "shared" / "datasets"


MIRROR = shared_mirror()
needs_mirror = pytest.mark.skipif(not MIRROR.is_dir(), reason=f"no dataset mirror at {MIRROR}")


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory, monkeypatch):
    """Own cache, offline, and no mirror unless a test sets one."""
    monkeypatch.setenv(ENV_CACHE, str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv(ENV_OFFLINE, "1")
    monkeypatch.delenv(ENV_DATA, raising=False)
    monkeypatch.delenv(ENV_CARDS, raising=False)


def repo_settings(tmp_path: Path, mirror: bool = True, **changes) -> Settings:
    """Settings for the repository's cards, the real mirror (or none) and a private cache."""
    values = dict(
        cards_dir=CARDS,
        mirrors=(MIRROR,) if mirror else (),
        cache_dir=tmp_path / "cache",
        offline=True,
        timeout=5.0,
    )
    values.update(changes)
    return Settings(**values)


#: The canonical checksum of the toy table (pinned: any change to the hash is a format change).
TOY_CHECKSUM = "63101d84b8752a884aaa57b26ec6242ad605ec1bb6f1e9420c77ad319eacd1d7"

TOY_CARD = {
    "name": "toy",
    "title": "Toy",
    "description": "Twelve rows made up for the tests.",
    "papers": [],
    "target": "class",
    "features": ["f1", "f2", "f3"],
    "nominal": ["f2"],
    "ordinal": {"f3": ["lo", "mid", "hi"]},
    "expected": {
        "rows": 12,
        "features": 3,
        "classes": 3,
        "class_counts": {"x": 4, "y": 3, "z": 5},
        "missing": 2,
    },
    "checksum": TOY_CHECKSUM,
}

TOY_COLUMNS = ["id", "f1", "f2", "f3", "class"]


def write_card(folder: Path, card: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{card['name']}.yaml"
    path.write_text(yaml.safe_dump(card, sort_keys=False))
    return path


def toy_card(**changes) -> dict:
    card = yaml.safe_load(yaml.safe_dump(TOY_CARD))  # deep copy
    card.update(changes)
    return card


def write_toy_mirror(folder: Path, name: str = "toy", rows: int = 12, suffix: str = ".csv.gz") -> Path:
    """The toy data in mirror layout (header, no id column)."""
    import pandas as pd

    frame = pd.read_csv(HTTP_FILES / "toy.data", header=None, names=TOY_COLUMNS, dtype=str, keep_default_na=False)
    frame = frame.drop(columns="id").head(rows)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}{suffix}"
    text = frame.to_csv(index=False).replace("?", "")
    if suffix == ".csv.gz":
        import gzip

        path.write_bytes(gzip.compress(text.encode(), mtime=0))
    elif suffix == ".csv":
        path.write_text(text)
    else:
        raise ValueError(suffix)
    return path


def toy_settings(tmp_path: Path, *, mirrors=(), offline=True, **changes) -> Settings:
    values = dict(
        cards_dir=tmp_path / "cards",
        mirrors=tuple(mirrors),
        cache_dir=tmp_path / "cache",
        offline=offline,
        timeout=5.0,
    )
    values.update(changes)
    return Settings(**values)


class _QuietHandler(SimpleHTTPRequestHandler):
    requests: list[str] = []

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass

    def do_GET(self):  # noqa: N802 - the base class's name
        type(self).requests.append(self.path)
        super().do_GET()


@pytest.fixture()
def http_server(tmp_path):
    """Serve a copy of tests/fixtures/data/http on 127.0.0.1; yields (base_url, folder, request_log)."""
    folder = tmp_path / "www"
    shutil.copytree(HTTP_FILES, folder)
    handler = type("Handler", (_QuietHandler,), {"requests": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", folder, handler.requests
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def closed_port() -> int:
    """A local port with nothing listening (connections are refused at once)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
