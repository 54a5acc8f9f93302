"""The loader on small made-up datasets: sources in order, checks, cache, errors, derived operations."""

from __future__ import annotations

import gzip
import hashlib
import json
import struct
import warnings

import numpy as np
import pandas as pd
import pytest
from test_data_helpers import (  # noqa: F401
    TOY_CHECKSUM,
    isolated_env,
    repo_settings,
    toy_card,
    toy_settings,
    write_card,
    write_toy_mirror,
)

from treebench.data import load
from treebench.data.build import Table
from treebench.data.cache import Cache
from treebench.data.settings import Settings
from treebench.errors import TreebenchError


@pytest.fixture()
def toy(tmp_path):
    """Cards folder with the toy card and one mirror folder holding toy.csv.gz."""
    write_card(tmp_path / "cards", toy_card())
    mirror = tmp_path / "mirror"
    write_toy_mirror(mirror)
    return toy_settings(tmp_path, mirrors=[mirror])


def test_loads_typed_dataset(toy):
    ds = load("toy", settings=toy)
    assert ds.X.shape == (12, 3)
    assert ds.X["f1"].dtype == np.float64
    assert isinstance(ds.X["f2"].dtype, pd.CategoricalDtype) and not ds.X["f2"].cat.ordered
    assert ds.X["f3"].cat.ordered and list(ds.X["f3"].cat.categories) == ["lo", "mid", "hi"]
    assert ds.y.dtype == np.int64 and ds.classes == ["x", "y", "z"]
    assert ds.class_counts() == {"x": 4, "y": 3, "z": 5}
    assert ds.feature_kinds == {"f1": "numeric", "f2": "nominal", "f3": "ordinal"}
    # missing values stay missing, in numeric and categorical columns alike
    assert ds.X["f1"].isna().sum() == 1 and ds.X["f3"].isna().sum() == 1
    assert ds.source.startswith("mirror ") and len(ds.checksum) == 64
    assert ds.card.name == "toy" and ds.extra.shape == (12, 0)


def test_checksum_is_stable_and_content_sensitive(tmp_path, toy):
    first = load("toy", settings=toy).checksum
    assert first == TOY_CHECKSUM and load("toy", settings=toy).checksum == first
    other = tmp_path / "other"
    write_toy_mirror(other, suffix=".csv")
    text = (other / "toy.csv").read_text().replace("11.5", "11.25")
    (other / "toy.csv").write_text(text)
    changed_settings = Settings(**{**toy.__dict__, "mirrors": (other,)})
    write_card(tmp_path / "cards", toy_card(checksum=None))  # unpinned: the copy loads, its content differs
    changed = load("toy", settings=changed_settings)
    assert changed.checksum != first


def test_changed_cell_is_refused_naming_file_and_both_checksums(tmp_path, toy):
    other = tmp_path / "other"
    path = write_toy_mirror(other, suffix=".csv")
    path.write_text(path.read_text().replace("11.5", "11.25"))  # same counts, one cell differs
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an error, not a warning and a fallback
        with pytest.raises(TreebenchError) as info:
            load("toy", settings=toy_settings(tmp_path, mirrors=[other, toy.mirrors[0]]))
    message = str(info.value)
    assert "\n" not in message
    found = content_checksum_of_mirror(tmp_path, other)
    assert message.startswith(f"dataset 'toy': mirror copy {path}: canonical checksum {found}, ")
    assert f"toy.yaml expects {TOY_CHECKSUM}" in message and "replace or remove that file" in message


def content_checksum_of_mirror(tmp_path, mirror) -> str:
    """The checksum of a mirror's toy table, read through an unpinned card."""
    cards = tmp_path / "unpinned-cards"
    write_card(cards, toy_card(checksum=None))
    return load("toy", settings=toy_settings(tmp_path / "u", cards_dir=cards, mirrors=[mirror])).checksum


def test_toy_checksum_follows_the_documented_recipe():
    """docs/datasets.md describes what is hashed; rebuild the toy's checksum from that text alone."""
    nan = float("nan")
    f1 = [0.5, 1.5, 2.5, 3.5, nan, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5]
    f2 = [0, 1, 2] * 4  # levels a, b, c (natural order of the data)
    f3 = [0, 1, 2, 0, 1, 2, 0, 1, 2, -1, 0, 1]  # declared levels lo < mid < hi; -1 = missing
    y = [0] * 4 + [1] * 3 + [2] * 5
    h = hashlib.sha256(b"treebench-dataset-v1")
    h.update(b"\x1e12")
    h.update(b"\x1ef:f1:numeric" + struct.pack("<12d", *f1))
    h.update(b"\x1ef:f2:nominal" + b"a\x1fb\x1fc" + struct.pack("<12i", *f2))
    h.update(b"\x1ef:f3:ordinal" + b"lo\x1fmid\x1fhi" + struct.pack("<12i", *f3))
    h.update(b"\x1ey:x\x1fy\x1fz" + struct.pack("<12q", *y))
    assert h.hexdigest() == TOY_CHECKSUM


def test_checksum_ignores_compression_and_number_formatting(tmp_path, toy):
    path = write_toy_mirror(tmp_path / "plain", suffix=".csv")
    text = path.read_text()
    # other spellings of the same numbers, CRLF line ends, spaces after commas
    respelled = text.replace("0.5,", "0.50,").replace("2.5,", "2.5e0,").replace("\n", "\r\n").replace(",", ", ")
    folder = tmp_path / "respelled"
    folder.mkdir()
    (folder / "toy.csv.gz").write_bytes(gzip.compress(respelled.encode(), compresslevel=1, mtime=12345))
    ds = load("toy", settings=toy_settings(tmp_path, mirrors=[folder]))
    assert ds.checksum == TOY_CHECKSUM


def test_plain_csv_and_arff_mirrors(tmp_path, toy):
    plain = tmp_path / "plain"
    write_toy_mirror(plain, suffix=".csv")
    assert load("toy", settings=toy_settings(tmp_path, mirrors=[plain])).checksum == load("toy", settings=toy).checksum
    arff_dir = tmp_path / "arff"
    arff_dir.mkdir()
    frame = pd.read_csv(plain / "toy.csv", dtype=str, keep_default_na=False)
    lines = [
        "@relation toy",
        "@attribute f1 numeric",
        "@attribute f2 {a,b,c}",
        "@attribute f3 {lo,mid,hi}",
        "@attribute class {x,y,z}",
        "@data",
    ] + [",".join(v if v else "?" for v in row) for row in frame.itertuples(index=False)]
    (arff_dir / "toy.arff").write_text("\n".join(lines) + "\n")
    ds = load("toy", settings=toy_settings(tmp_path, mirrors=[arff_dir]))
    assert ds.checksum == load("toy", settings=toy).checksum
    assert ds.source.endswith("toy.arff")


def test_mirror_folders_in_order_missing_moves_on_corrupt_stops(tmp_path, toy):
    empty, bad = tmp_path / "empty", tmp_path / "bad"
    empty.mkdir()
    ds = load("toy", settings=toy_settings(tmp_path, mirrors=[empty, toy.mirrors[0]]))
    assert ds.source == f"mirror {toy.mirrors[0] / 'toy.csv.gz'}"  # a missing copy: the next folder
    bad.mkdir()
    data = (toy.mirrors[0] / "toy.csv.gz").read_bytes()
    (bad / "toy.csv.gz").write_bytes(data[: len(data) // 2])
    with pytest.raises(TreebenchError, match=r"^dataset 'toy': mirror copy .*bad/toy.csv.gz: corrupt gzip data"):
        load("toy", settings=toy_settings(tmp_path, mirrors=[bad, toy.mirrors[0]]))
    assert (bad / "toy.csv.gz").read_bytes() == data[: len(data) // 2]  # left for the user to see


def test_corrupt_mirror_never_falls_back_to_the_embedded_copy(tmp_path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    real = repo_settings(tmp_path, mirror=False, offline=True)
    assert load("iris", settings=real).source.startswith("embedded ")  # no mirror copy: embedded
    (mirror / "iris.csv.gz").write_bytes(b"\x1f\x8b\x08\x00 not really gzip")
    with pytest.raises(TreebenchError, match=r"^dataset 'iris': mirror copy .*iris.csv.gz: corrupt gzip data"):
        load("iris", settings=repo_settings(tmp_path, mirror=False, offline=True, mirrors=(mirror,)))


def test_mismatching_copy_is_reported_and_never_used(tmp_path):
    write_card(tmp_path / "cards", toy_card())
    short = tmp_path / "short"
    write_toy_mirror(short, rows=10)
    settings = toy_settings(tmp_path, mirrors=[short])
    with pytest.raises(TreebenchError) as info:
        load("toy", settings=settings)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"dataset 'toy': mirror copy {short / 'toy.csv.gz'} does not match ")
    assert "toy.yaml: 10 rows, card says 12; class counts differ (got/card): z 3/5" in message


def test_not_found_offline_names_places_and_fix(tmp_path):
    write_card(tmp_path / "cards", toy_card())
    settings = toy_settings(tmp_path, mirrors=[tmp_path / "empty"])
    with pytest.raises(TreebenchError) as info:
        load("toy", settings=settings)
    message = str(info.value)
    for part in (
        "dataset 'toy' is not available",
        f"cache: no toy.csv.gz in {tmp_path / 'cache'}",
        f"mirror: no toy.csv.gz/toy.csv/toy.arff in {tmp_path / 'empty'} (no such folder)",
        "OpenML: no id in the card",
        "UCI: no download recipe in the card",
        "put toy.csv.gz / toy.csv / toy.arff in a folder listed in TREEBENCH_DATA",
        "`treebench datasets fetch toy`",
    ):
        assert part in message
    with pytest.raises(TreebenchError, match="mirror: TREEBENCH_DATA is not set"):
        load("toy", settings=toy_settings(tmp_path))


def test_bad_cells_are_errors_naming_column_and_row(tmp_path):
    write_card(tmp_path / "cards", toy_card())
    mirror = tmp_path / "mirror"
    path = write_toy_mirror(mirror, suffix=".csv")
    path.write_text(path.read_text().replace("6.5,", "6.5x,"))
    with pytest.raises(TreebenchError, match=r"numeric column 'f1' holds '6.5x' in data row 6 \(1 non-numeric cell\)"):
        load("toy", settings=toy_settings(tmp_path, mirrors=[mirror]))
    path.write_text(path.read_text().replace("6.5x,", "6.5,").replace(",mid,", ",medium,"))
    with pytest.raises(TreebenchError, match=r"column 'f3' holds 'medium', not among the card's levels \(lo, mid, hi\)"):
        load("toy", settings=toy_settings(tmp_path, mirrors=[mirror]))
    path.write_text(path.read_text().replace("f2,", "g2,"))
    with pytest.raises(TreebenchError, match=r"column\(s\) f2 missing"):
        load("toy", settings=toy_settings(tmp_path, mirrors=[mirror]))


@pytest.mark.parametrize(
    ("cell", "shown", "suffix"),
    [("inf", "inf", ".csv"), ("-inf", "-inf", ".csv"), ("1e999", "inf", ".csv"), ("-1E400", "-inf", ".csv.gz")],
)
def test_infinite_and_overflowing_numbers_are_refused(tmp_path, cell, shown, suffix):
    write_card(tmp_path / "cards", toy_card())
    mirror = tmp_path / "mirror"
    path = write_toy_mirror(mirror, suffix=".csv")
    text = path.read_text().replace("\n8.5,", f"\n{cell},")
    path.unlink()
    path = mirror / f"toy{suffix}"
    path.write_bytes(gzip.compress(text.encode()) if suffix == ".csv.gz" else text.encode())
    with pytest.raises(TreebenchError) as info:
        load("toy", settings=toy_settings(tmp_path, mirrors=[mirror]))
    assert str(info.value).startswith(
        f"dataset 'toy': mirror copy {path}: numeric column 'f1' holds '{shown}' in data row 8 "
        "(1 infinite or overflowing cell; accepted: finite numbers)"
    )


def test_infinite_text_cell_is_shown_as_written(tmp_path):
    """A column pandas cannot parse as numbers keeps the cell's text in the message."""
    write_card(tmp_path / "cards", toy_card(missing_values=["", "-"]))
    mirror = tmp_path / "mirror"
    path = write_toy_mirror(mirror, suffix=".csv")
    path.write_text(path.read_text().replace("\n8.5,", "\n1e999,").replace("\n,", "\n-,"))
    from treebench.data.build import normalize
    from treebench.data.cards import parse_card
    from treebench.data.formats import SourceError

    card = parse_card(tmp_path / "cards" / "toy.yaml")
    raw = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=["", "-"])
    with pytest.raises(SourceError, match=r"numeric column 'f1' holds '1e999' in data row 8 \(1 infinite"):
        normalize(card, raw, str(path))


def test_corrections_fix_only_the_documented_cell(tmp_path):
    card = toy_card(corrections=[{"row": 0, "column": "f1", "was": "0.5\t0", "value": "0.5", "reason": "tab"}])
    write_card(tmp_path / "cards", card)
    mirror = tmp_path / "mirror"
    path = write_toy_mirror(mirror, suffix=".csv")
    path.write_text(path.read_text().replace("\n0.5,", '\n"0.5\t0",', 1))
    ds = load("toy", settings=toy_settings(tmp_path, mirrors=[mirror]))
    assert ds.X["f1"].iloc[0] == 0.5
    path.write_text(path.read_text().replace("1.5,", '"1.5\t0",', 1))  # an undocumented defect
    with pytest.raises(TreebenchError, match=r"'f1' holds '1.5\\t0' in data row 1"):
        load("toy", settings=toy_settings(tmp_path, mirrors=[mirror]))


def test_cache_round_trip_and_corruption(tmp_path, toy):
    ds = load("toy", settings=toy)
    cache = Cache(toy.cache_dir)
    path = cache.store("toy", Table.from_dataset(ds), "test")
    record = json.loads(cache.record_path("toy").read_text())
    assert record["rows"] == 12 and len(record["sha256"]) == 64
    cached = load("toy", settings=toy)
    assert cached.source == f"cache {path}" and cached.checksum == ds.checksum
    # flip bytes inside the gzip stream: the checksum record catches it
    data = bytearray(path.read_bytes())
    data[-12] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(TreebenchError) as info:
        load("toy", settings=toy)  # the mirror copy is fine, but the cache's copy came first
    message = str(info.value)
    assert message.startswith(f"dataset 'toy': cache copy {path}: corrupt cache file (sha256 ")
    assert "run `treebench datasets fetch toy --refresh`" in message
    assert path.read_bytes() == bytes(data) and cache.record_path("toy").exists()  # nothing deleted


def test_cache_without_record_is_not_trusted(tmp_path, toy):
    cache_file = toy.cache_dir / "toy.csv.gz"
    cache_file.parent.mkdir(parents=True)
    cache_file.write_bytes(gzip.compress(b"f1,f2,f3,class\n1,a,lo,x\n"))
    with pytest.raises(TreebenchError, match=r"cache copy .*toy.csv.gz: no valid checksum record \(toy.json\)"):
        load("toy", settings=toy)


def test_cache_copy_with_another_table_is_refused(tmp_path, toy):
    """The cache record vouches for the bytes only; the card's checksum for the table."""
    ds = load("toy", settings=toy)
    table = Table.from_dataset(ds)
    table.frame.loc[3, "f1"] = 3.25
    path = Cache(toy.cache_dir).store("toy", table, "test")
    with pytest.raises(TreebenchError, match=rf"cache copy {path}: canonical checksum [0-9a-f]{{64}}, .* expects {TOY_CHECKSUM}"):
        load("toy", settings=toy)


@pytest.mark.parametrize("name", ["iris", "wine", "breast-cancer", "digits"])
def test_embedded_datasets_need_no_mirror_and_no_network(tmp_path, name):
    settings = repo_settings(tmp_path, mirror=False, offline=True)
    ds = load(name, settings=settings)
    assert ds.source.startswith("embedded sklearn.datasets.load_")
    assert ds.n_samples == ds.card.expected.rows and ds.n_classes == ds.card.expected.classes
    assert ds.X.dtypes.eq(np.float64).all()


def test_other_datasets_fail_cleanly_without_mirror(tmp_path):
    with pytest.raises(TreebenchError) as info:
        load("ecoli", settings=repo_settings(tmp_path, mirror=False))
    message = str(info.value)
    assert "dataset 'ecoli' is not available" in message and "UCI: skipped (offline)" in message
    with pytest.raises(TreebenchError, match=r"dataset 'ecoli' is not available"):
        load("ecoli4", settings=repo_settings(tmp_path, mirror=False))


# ---------------------------------------------------------------- derived datasets
def _derived(tmp_path, toy, operations, expected, **extra):
    card = {"name": "toy-d", "description": "derived", "derived_from": "toy", "operations": operations,
            "expected": expected, **extra}
    write_card(tmp_path / "cards", card)
    return load("toy-d", settings=toy)


def test_drop_merge_and_select(tmp_path, toy):
    ds = _derived(tmp_path, toy, [{"drop_classes": ["y"]}, {"merge_classes": {"x+z": ["x", "z"]}}],
                  {"rows": 9, "features": 3, "classes": 1, "class_counts": {"x+z": 9}})
    assert ds.classes == ["x+z"] and ds.source.startswith("derived from toy (mirror")
    ds = _derived(tmp_path, toy, [{"select_rows": {"column": "f2", "equals": "a"}}],
                  {"rows": 4, "features": 3, "classes": 3})
    # the class list is kept so that parts of one dataset share their codes
    assert ds.classes == ["x", "y", "z"] and ds.class_counts() == {"x": 2, "y": 1, "z": 1}
    assert list(ds.X["f2"].cat.categories) == ["a", "b", "c"]


def test_target_swap_and_drop_columns(tmp_path, toy):
    ds = _derived(tmp_path, toy, [{"drop_columns": ["f1"]}],
                  {"rows": 12, "features": 2, "classes": 3})
    assert list(ds.X.columns) == ["f2", "f3"]
    card = toy_card(features=["f1", "f3"], nominal=[], non_features=["f2"], checksum=None)
    card["expected"]["features"] = 2
    write_card(tmp_path / "cards", card)
    ds = _derived(tmp_path, toy, [{"target_column": "f2"}], {"rows": 12, "features": 2, "classes": 3})
    assert ds.classes == ["a", "b", "c"] and ds.target_name == "f2"
    assert list(ds.extra.columns) == ["class"] and "class" not in ds.X.columns


def test_derived_expectations_are_checked(tmp_path, toy):
    with pytest.raises(TreebenchError, match=r"derived from 'toy' does not match .*toy-d.yaml: 8 rows, card says 9"):
        _derived(tmp_path, toy, [{"drop_classes": ["x"]}], {"rows": 9, "features": 3, "classes": 2})


@pytest.mark.parametrize(
    ("operation", "message"),
    [
        ({"drop_classes": ["w"]}, r"operations\[0\] drop_classes: no class 'w'; classes: x, y, z"),
        ({"merge_classes": {"y": ["x", "z"]}}, r"merged class 'y' already exists"),
        ({"select_rows": {"column": "f2", "equals": "q"}}, r"no row has f2 in q; values present: a, b, c"),
        ({"select_rows": {"column": "nope", "equals": "q"}}, r"no column 'nope'"),
        ({"target_column": "f1"}, r"'f1' is not a non-feature column"),
        ({"drop_columns": ["class"]}, r"cannot drop the target column"),
    ],
)
def test_operation_errors(tmp_path, toy, operation, message):
    with pytest.raises(TreebenchError, match=message):
        _derived(tmp_path, toy, [operation], {"rows": 1, "features": 1, "classes": 1})


def test_environment_settings(monkeypatch, tmp_path):
    monkeypatch.setenv("TREEBENCH_DATA", f"{tmp_path / 'a'}:{tmp_path / 'b'}:")
    monkeypatch.setenv("TREEBENCH_OFFLINE", "no")
    monkeypatch.setenv("TREEBENCH_TIMEOUT", "3")
    settings = Settings.from_env()
    assert settings.mirrors == (tmp_path / "a", tmp_path / "b") and not settings.offline and settings.timeout == 3
    monkeypatch.setenv("TREEBENCH_OFFLINE", "maybe")
    with pytest.raises(TreebenchError, match="TREEBENCH_OFFLINE='maybe' is not a yes/no value"):
        Settings.from_env()
    monkeypatch.setenv("TREEBENCH_OFFLINE", "1")
    monkeypatch.setenv("TREEBENCH_TIMEOUT", "-1")
    with pytest.raises(TreebenchError, match="TREEBENCH_TIMEOUT='-1' is not a positive number"):
        Settings.from_env()


def test_no_warning_when_everything_is_fine(toy):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load("toy", settings=toy)


def test_ragged_rows_are_rejected_not_truncated(tmp_path):
    write_card(tmp_path / "cards", toy_card())
    mirror = tmp_path / "mirror"
    path = write_toy_mirror(mirror, suffix=".csv")
    path.write_text(path.read_text().replace("6.5,a,lo,y", "6.5,a,lo,y,extra"))
    with pytest.raises(TreebenchError, match=r"toy.csv: not a readable CSV table \(Error tokenizing data"):
        load("toy", settings=toy_settings(tmp_path, mirrors=[mirror]))
