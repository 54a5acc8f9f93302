"""Downloads: the UCI path against a local HTTP server, the OpenML path with a fake ``openml``."""

from __future__ import annotations

import sys
import time
import types
import warnings

import pandas as pd
import pytest
import test_data_helpers as helpers
from test_data_helpers import (  # noqa: F401
    HTTP_FILES,
    TOY_CHECKSUM,
    TOY_COLUMNS,
    closed_port,
    isolated_env,
    toy_card,
    toy_settings,
    write_card,
    write_toy_mirror,
)

from treebench.data import DataWarning, load
from treebench.data.cache import Cache
from treebench.errors import TreebenchError

http_server = helpers.http_server  # fixture (assigned, not imported, so pytest finds it)


def uci_card(base: str, *files: str, **changes) -> dict:
    recipe = [{"url": f"{base}/{f}", "format": "csv", "columns": TOY_COLUMNS} for f in files]
    return toy_card(uci={"id": 999, "files": recipe, "drop": ["id"]}, **changes)


def test_uci_download_is_checked_cached_and_reused(tmp_path, http_server):
    base, _, requests = http_server
    write_card(tmp_path / "cards", uci_card(base, "toy.data.gz"))
    settings = toy_settings(tmp_path, offline=False)
    seen = []
    ds = load("toy", settings=settings, progress=lambda done, total, what: seen.append((done, total, what)))
    assert ds.source == f"uci {base}/toy.data.gz" and ds.n_samples == 12
    assert seen and seen[-1][0] == seen[-1][1] == 112 and seen[-1][2] == "toy.data.gz"
    cache = Cache(settings.cache_dir)
    assert cache.has("toy") and cache.record_path("toy").is_file()
    again = load("toy", settings=settings)
    assert again.source.startswith("cache ") and again.checksum == ds.checksum
    assert requests == ["/toy.data.gz"]  # the second load did not download
    # the cached file is in mirror layout: it works as a mirror file too
    mirror = tmp_path / "as-mirror"
    mirror.mkdir()
    (mirror / "toy.csv.gz").write_bytes(cache.data_path("toy").read_bytes())
    as_mirror = load("toy", settings=toy_settings(tmp_path / "x", cards_dir=tmp_path / "cards", mirrors=[mirror]))
    assert as_mirror.source.startswith("mirror ") and as_mirror.checksum == ds.checksum


def test_download_equals_mirror_copy(tmp_path, http_server):
    base, _, _ = http_server
    write_card(tmp_path / "cards", uci_card(base, "toy.data"))
    mirror = tmp_path / "mirror"
    write_toy_mirror(mirror)
    from_mirror = load("toy", settings=toy_settings(tmp_path, mirrors=[mirror]))
    downloaded = load("toy", settings=toy_settings(tmp_path / "other", cards_dir=tmp_path / "cards", offline=False))
    assert downloaded.checksum == from_mirror.checksum


def test_split_files_become_a_split_column(tmp_path, http_server):
    base, _, _ = http_server
    card = toy_card(non_features=["split"], checksum=None)  # another table than the toy's
    card["uci"] = {
        "files": [
            {"url": f"{base}/toy-train.data", "columns": TOY_COLUMNS, "split": "train"},
            {"url": f"{base}/toy-test.data", "columns": TOY_COLUMNS[1:], "split": "test"},
        ],
        "drop": ["id"],
    }
    write_card(tmp_path / "cards", card)
    ds = load("toy", settings=toy_settings(tmp_path, offline=False))
    assert list(ds.extra["split"]) == ["train"] * 8 + ["test"] * 4


def test_corrupt_download_is_reported_and_not_cached(tmp_path, http_server):
    base, _, _ = http_server
    write_card(tmp_path / "cards", uci_card(base, "corrupt.data.gz"))
    settings = toy_settings(tmp_path, offline=False)
    with pytest.warns(DataWarning, match=r"corrupt.data.gz: corrupt gzip data"):
        with pytest.raises(TreebenchError) as info:
            load("toy", settings=settings)
    assert f"uci: {base}/corrupt.data.gz: corrupt gzip data" in str(info.value)
    assert not Cache(settings.cache_dir).has("toy")


def test_download_not_matching_card(tmp_path, http_server):
    base, _, _ = http_server
    write_card(tmp_path / "cards", uci_card(base, "toy-short.data"))
    with pytest.warns(DataWarning, match=r"toy-short.data does not match .*toy.yaml: 10 rows, card says 12"):
        with pytest.raises(TreebenchError):
            load("toy", settings=toy_settings(tmp_path, offline=False))


def test_http_error_and_refused_connection_fail_fast(tmp_path, http_server):
    base, _, _ = http_server
    write_card(tmp_path / "cards", uci_card(base, "missing.data"))
    with pytest.warns(DataWarning, match="HTTP 404"):
        with pytest.raises(TreebenchError, match=r"missing.data: HTTP 404"):
            load("toy", settings=toy_settings(tmp_path, offline=False))
    write_card(tmp_path / "cards", uci_card(f"http://127.0.0.1:{closed_port()}", "toy.data"))
    start = time.monotonic()
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)  # a refused connection read nothing: no warning, one error
        with pytest.raises(TreebenchError) as info:
            load("toy", settings=toy_settings(tmp_path, offline=False))
    assert time.monotonic() - start < 5
    message = str(info.value)
    assert "\n" not in message and "dataset 'toy' is not available" in message
    assert "could not reach http://127.0.0.1:" in message and "(connection refused)" in message


def test_offline_skips_the_network(tmp_path, http_server):
    base, _, requests = http_server
    write_card(tmp_path / "cards", uci_card(base, "toy.data"))
    with pytest.raises(TreebenchError, match=r"UCI: skipped \(offline\)"):
        load("toy", settings=toy_settings(tmp_path, offline=True))
    assert requests == []


def test_corrupt_cache_is_an_error_until_refreshed(tmp_path, http_server):
    base, _, requests = http_server
    write_card(tmp_path / "cards", uci_card(base, "toy.data"))
    settings = toy_settings(tmp_path, offline=False)
    first = load("toy", settings=settings)
    path = Cache(settings.cache_dir).data_path("toy")
    truncated = path.read_bytes()[:-5]
    path.write_bytes(truncated)
    with pytest.raises(TreebenchError, match=rf"^dataset 'toy': cache copy {path}: corrupt cache file .*--refresh"):
        load("toy", settings=settings)
    assert requests == ["/toy.data"] and path.read_bytes() == truncated  # no silent re-download
    again = load("toy", settings=settings, refresh=True)  # what `datasets fetch toy --refresh` does
    assert again.source.startswith("uci ") and again.checksum == first.checksum == TOY_CHECKSUM
    assert requests == ["/toy.data", "/toy.data"]
    assert load("toy", settings=settings).source.startswith("cache ")


def test_download_with_another_table_is_not_cached(tmp_path, http_server):
    base, folder, _ = http_server
    (folder / "toy-changed.data").write_text((folder / "toy.data").read_text().replace(",11.5,", ",11.25,"))
    write_card(tmp_path / "cards", uci_card(base, "toy-changed.data"))
    settings = toy_settings(tmp_path, offline=False)
    with pytest.warns(DataWarning, match=rf"toy-changed.data: canonical checksum [0-9a-f]{{64}}, .* expects {TOY_CHECKSUM}"):
        with pytest.raises(TreebenchError, match=r"uci: .*toy-changed.data: canonical checksum"):
            load("toy", settings=settings)
    assert not Cache(settings.cache_dir).has("toy")


def test_refresh_downloads_even_with_a_local_copy(tmp_path, http_server):
    base, _, requests = http_server
    write_card(tmp_path / "cards", uci_card(base, "toy.data"))
    mirror = tmp_path / "mirror"
    write_toy_mirror(mirror)
    settings = toy_settings(tmp_path, mirrors=[mirror], offline=False)
    assert load("toy", settings=settings).source.startswith("mirror")
    assert load("toy", settings=settings, refresh=True).source.startswith("uci")
    assert requests == ["/toy.data"]


# ---------------------------------------------------------------- OpenML (faked)
class _FakeDataset:
    def __init__(self, frame: pd.DataFrame, version: int = 1, target: str = "Class") -> None:
        self.frame = frame
        self.version = version
        self.default_target_attribute = target

    def get_data(self, dataset_format="dataframe"):
        return self.frame, None, [], list(self.frame.columns)


@pytest.fixture()
def fake_openml(monkeypatch):
    """Replace the ``openml`` package; returns the list of requested ids and a setter for the behaviour."""
    calls: list[int] = []
    state: dict = {}
    module = types.ModuleType("openml")
    module.config = types.SimpleNamespace(connection_n_retries=5)

    def get_dataset(dataset_id, **kwargs):
        calls.append(dataset_id)
        assert kwargs["download_data"] is True
        assert module.config.connection_n_retries == 1  # fail fast while we ask
        if "error" in state:
            raise state["error"]
        return state["dataset"]

    module.datasets = types.SimpleNamespace(get_dataset=get_dataset)
    monkeypatch.setitem(sys.modules, "openml", module)
    return calls, state, module


def _openml_frame() -> pd.DataFrame:
    frame = pd.read_csv(HTTP_FILES / "toy.data", header=None, names=TOY_COLUMNS, na_values=["?"]).drop(columns="id")
    frame["f2"] = frame["f2"].astype("category")
    return frame.rename(columns={"class": "Class"})


# Reading a card's OpenML source is tested on recorded OpenML responses in tests/test_openml.py.


def test_openml_disabled_by_card(tmp_path, fake_openml):
    calls, state, _ = fake_openml
    write_card(tmp_path / "cards", toy_card(openml={"id": 4242, "version": 1, "fetch": False}))
    with pytest.raises(TreebenchError, match=r"OpenML: dataset 4242 is not used \(the card says OpenML's copy differs\)"):
        load("toy", settings=toy_settings(tmp_path, offline=False))
    assert calls == []


@pytest.mark.parametrize("blocker", ["file-parent", "cache-is-a-file"])
def test_a_cache_that_cannot_be_written_is_one_line_naming_it(tmp_path, http_server, blocker):
    """Issue 43: the cache is written through treebench.outpaths: a parent that is a file (or the cache
    folder itself a file) is one line naming the cache and how to move it, and leaves nothing behind."""
    base, _, _ = http_server
    write_card(tmp_path / "cards", uci_card(base, "toy.data.gz"))
    (tmp_path / "f").write_text("not a folder")
    cache = tmp_path / "f" / "cache" if blocker == "file-parent" else tmp_path / "f"
    settings = toy_settings(tmp_path, offline=False, cache_dir=cache)
    with pytest.raises(TreebenchError) as info:
        load("toy", settings=settings)
    text = str(info.value)
    assert "\n" not in text
    assert f"dataset cache '{cache}' (set TREEBENCH_CACHE to move it)" in text, text
    assert "is a file, not a folder" in text, text
    assert (tmp_path / "f").read_text() == "not a folder"
