"""Bad data inputs, one case a line: corrupt or altered copies, bad cards, bad names, degenerate counts.

Every case runs ``treebench ARGS`` in a fresh folder through ``tests/badinput.py``
with ``TREEBENCH_DATA`` = ``<case>/mirror``, ``TREEBENCH_CACHE`` = ``<case>/cache``,
offline, and ``TREEBENCH_CARDS`` = ``<case>/cards`` when the case brings cards.
Bad copies are copies of the real mirror's files, changed in the case folder
(the real mirror is only read).  Each edit checks that it changed something,
so no case can pass because its input was accidentally fine.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections import OrderedDict
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from badinput import GOOD_CONFIG, ApiCase, CliCase, run_api_case, run_cli_case
from test_data_helpers import CARDS, MIRROR

from treebench.data.settings import ENV_CACHE, ENV_CARDS, ENV_DATA, ENV_OFFLINE

Edit = Callable[[str], str]
Writer = Callable[[Path], None]

#: iris's pinned checksum, as its card says (a prefix is enough for the messages).
IRIS = "ca1b2204f448"


# ---------------------------------------------------------------- building bad copies
@cache
def real_text(name: str) -> str:
    """The real mirror file's CSV text (read, never written)."""
    return gzip.decompress((MIRROR / f"{name}.csv.gz").read_bytes()).decode("utf-8")


def sub(old: str, new: str) -> Edit:
    """Replace the first ``old``; fails when ``old`` is absent (the case would test nothing)."""

    def edit(text: str) -> str:
        assert old in text, f"edit does not apply: {old!r}"
        return text.replace(old, new, 1)

    return edit


def cell(row: int, column: int, value: str) -> Edit:
    """Set one cell (data row, 0-based; column index) of a simple CSV text."""

    def edit(text: str) -> str:
        lines = text.split("\n")
        fields = lines[row + 1].split(",")
        assert fields[column] != value, "edit does not change the cell"
        fields[column] = value
        lines[row + 1] = ",".join(fields)
        return "\n".join(lines)

    return edit


def keep_rows(n: int) -> Edit:
    return lambda text: "\n".join(text.split("\n")[: n + 1]) + "\n"


def swap_rows(a: int, b: int) -> Edit:
    def edit(text: str) -> str:
        lines = text.split("\n")
        assert lines[a + 1] != lines[b + 1]
        lines[a + 1], lines[b + 1] = lines[b + 1], lines[a + 1]
        return "\n".join(lines)

    return edit


def each_line(change: Callable[[int, str], str]) -> Edit:
    """Apply ``change(i, line)`` to every non-empty line (``i`` = 0 for the header)."""
    return lambda text: "\n".join(change(i, line) if line else line for i, line in enumerate(text.split("\n")))


def copy(name: str, edit: Edit | None = None, *, suffix: str = ".csv.gz", data: bytes | None = None) -> dict[str, Writer]:
    """A mirror file ``mirror/<name><suffix>``: the real file edited, or the given bytes."""
    target = f"mirror/{name}{suffix}"

    def write(folder: Path) -> None:
        content = data
        if content is None:
            text = edit(real_text(name)) if edit else real_text(name)
            content = gzip.compress(text.encode("utf-8")) if suffix == ".csv.gz" else text.encode("utf-8")
        (folder / target).write_bytes(content)

    return {target: write}


def raw_copy(name: str, change: Callable[[bytes], bytes]) -> dict[str, Writer]:
    """A mirror file made from the real file's compressed bytes."""
    target = f"mirror/{name}.csv.gz"
    return {target: lambda folder: (folder / target).write_bytes(change((MIRROR / f"{name}.csv.gz").read_bytes()))}


def cached(name: str, edit: Edit | None = None, record: str | None = None, flip: bool = False) -> dict[str, Writer]:
    """``cache/<name>.csv.gz`` + ``cache/<name>.json``: a valid record of the (edited) bytes unless
    ``record`` gives the record's text; ``flip`` changes the bytes after the record was made."""
    data_name, record_name = f"cache/{name}.csv.gz", f"cache/{name}.json"

    def write(folder: Path) -> None:
        text = edit(real_text(name)) if edit else real_text(name)
        data = gzip.compress(text.encode("utf-8"), mtime=0)
        digest = hashlib.sha256(data).hexdigest()
        if flip:
            data = data[:-12] + bytes([data[-12] ^ 0xFF]) + data[-11:]
        (folder / data_name).parent.mkdir(parents=True, exist_ok=True)
        (folder / data_name).write_bytes(data)
        (folder / record_name).write_text(record if record is not None else json.dumps({"sha256": digest}))

    return {data_name: write, record_name: lambda folder: None}  # written with the data


def card(name: str, edit: Edit | None = None) -> dict[str, str]:
    """``cards/<name>.yaml``: the repository's card, edited."""
    text = (CARDS / f"{name}.yaml").read_text(encoding="utf-8")
    return {f"cards/{name}.yaml": edit(text) if edit else text}


def pinned_to(name: str, checksum: str) -> dict[str, str]:
    text = (CARDS / f"{name}.yaml").read_text(encoding="utf-8")
    old = next(line for line in text.splitlines() if line.startswith("checksum: "))
    return card(name, sub(old, f"checksum: {checksum}"))


def info(name: str) -> tuple[str, ...]:
    return ("datasets", "info", name)


def counts(*args: str) -> tuple[str, ...]:
    return ("criteria", "eval", "gini", *args)


MIRROR_COPY = r"^error: dataset 'iris': mirror copy \S+/mirror/iris\.csv(\.gz)?:? "
NO_FALLBACK = r"\(a bad local copy is never replaced by another source\)$"

# ---------------------------------------------------------------- the cases
CASES = [
    # corrupt files
    CliCase("truncated-gzip", info("iris"), MIRROR_COPY + r"corrupt gzip data \(.*\); replace or remove that file " + NO_FALLBACK, files=raw_copy("iris", lambda b: b[: len(b) // 2])),
    CliCase("gzip-magic-then-junk", info("iris"), MIRROR_COPY + r"corrupt gzip data", files=copy("iris", data=b"\x1f\x8b\x08\x00 not gzip at all")),
    CliCase("binary-not-utf8", info("iris"), MIRROR_COPY + r"not UTF-8 text \(binary or corrupt file\?\)", files=copy("iris", data=gzip.compress(b"\xff\xfe" * 500))),
    CliCase("empty-file", info("iris"), MIRROR_COPY + r"not a readable CSV table", files=copy("iris", data=gzip.compress(b""))),
    CliCase("header-only", info("iris"), MIRROR_COPY + r"the table has no rows", files=copy("iris", keep_rows(0))),
    CliCase("truncated-rows", info("iris"), MIRROR_COPY + r"does not match \S+iris\.yaml: 140 rows, card says 150; class counts differ \(got/card\): Iris-virginica 40/50", files=copy("iris", keep_rows(140))),
    CliCase("truncated-mid-row", info("iris"), MIRROR_COPY + r"target column 'class' has 1 rows without a label", files=copy("iris", lambda t: t.rstrip("\n").rsplit(",", 1)[0])),
    # a valid file with another table: same counts, so only the checksum can tell
    CliCase("changed-cell-in-valid-gzip", info("iris"), MIRROR_COPY + rf"canonical checksum [0-9a-f]{{64}}, \S+iris\.yaml expects {IRIS}[0-9a-f]{{52}}; replace", files=copy("iris", cell(0, 0, "5.2"))),
    CliCase("changed-cell-plain-csv", info("iris"), MIRROR_COPY + rf"canonical checksum [0-9a-f]{{64}}, \S+iris\.yaml expects {IRIS}", files=copy("iris", cell(149, 3, "1.9"), suffix=".csv")),
    CliCase("labels-swapped", info("iris"), MIRROR_COPY + rf"canonical checksum [0-9a-f]{{64}}, \S+iris\.yaml expects {IRIS}", files=copy("iris", lambda t: sub("1.4,0.2,Iris-setosa", "1.4,0.2,Iris-versicolor")(sub("4.7,1.4,Iris-versicolor", "4.7,1.4,Iris-setosa")(t)))),
    CliCase("rows-reordered", info("iris"), MIRROR_COPY + rf"canonical checksum [0-9a-f]{{64}}, \S+iris\.yaml expects {IRIS}", files=copy("iris", swap_rows(0, 1))),
    CliCase("uncorrected-value-elsewhere", info("iris"), MIRROR_COPY + rf"canonical checksum .* expects {IRIS}", files=copy("iris", cell(34, 3, "0.3"))),
    # infinite and overflowing numbers
    CliCase("inf-cell", info("iris"), MIRROR_COPY + r"numeric column 'sepallength' holds 'inf' in data row 0 \(1 infinite or overflowing cell; accepted: finite numbers\)", files=copy("iris", cell(0, 0, "inf"))),
    CliCase("minus-inf-cell", info("iris"), MIRROR_COPY + r"numeric column 'petalwidth' holds '-inf' in data row 7 \(1 infinite", files=copy("iris", cell(7, 3, "-inf"))),
    CliCase("overflowing-1e999", info("iris"), MIRROR_COPY + r"numeric column 'petallength' holds 'inf' in data row 99 \(1 infinite or overflowing cell", files=copy("iris", cell(99, 2, "1e999"))),
    CliCase("overflowing-two-cells-wine", info("wine"), r"^error: dataset 'wine': mirror copy \S+wine\.csv\.gz: numeric column 'Proline' holds '-inf' in data row 3 \(2 infinite or overflowing cells", files=copy("wine", lambda t: cell(3, 12, "-1e400")(cell(5, 12, "Infinity")(t)))),
    # wrong layout
    CliCase("extra-field-in-a-row", info("iris"), MIRROR_COPY + r"not a readable CSV table \(Error tokenizing data", files=copy("iris", sub("4.9,3.0,1.4,0.2,Iris-setosa", "4.9,3.0,1.4,0.2,Iris-setosa,0.5"))),
    CliCase("missing-class-column", info("iris"), MIRROR_COPY + r"column\(s\) class missing \(found: sepallength, sepalwidth, petallength, petalwidth\)", files=copy("iris", each_line(lambda i, line: line.rsplit(",", 1)[0]))),
    CliCase("renamed-class-column", info("iris"), MIRROR_COPY + r"column\(s\) class missing \(found: .*label\)", files=copy("iris", sub(",class\n", ",label\n"))),
    CliCase("extra-column", info("iris"), MIRROR_COPY + r"unexpected column\(s\) id; the card lists 5", files=copy("iris", each_line(lambda i, line: ("id" if i == 0 else str(i)) + "," + line))),
    CliCase("text-in-numeric-column", info("iris"), MIRROR_COPY + r"numeric column 'sepalwidth' holds '3\.5cm' in data row 0 \(1 non-numeric cell\)", files=copy("iris", cell(0, 1, "3.5cm"))),
    CliCase("nan-text-is-not-missing", info("iris"), MIRROR_COPY + r"numeric column 'sepallength' holds 'nan' in data row 3", files=copy("iris", cell(3, 0, "nan"))),
    CliCase("unknown-class-label", info("iris"), MIRROR_COPY + r"does not match .*: 4 classes, card says 3", files=copy("iris", sub("Iris-virginica\n", "Iris-virginca\n"))),
    # the cache
    CliCase("cache-record-not-json", info("iris"), r"^error: dataset 'iris': cache copy \S+/cache/iris\.csv\.gz: no valid checksum record \(iris\.json\); delete it and its \.json record, or run `treebench datasets fetch iris --refresh`", files=cached("iris", record="{not json")),
    CliCase("cache-record-without-sha", info("iris"), r"cache copy \S+iris\.csv\.gz: no valid checksum record \(iris\.json\)", files=cached("iris", record='{"rows": 150}')),
    CliCase("cache-bytes-changed", info("iris"), r"cache copy \S+iris\.csv\.gz: corrupt cache file \(sha256 [0-9a-f]{12}, recorded [0-9a-f]{12}\)", files=cached("iris", flip=True)),
    CliCase("cache-another-table", info("iris"), rf"cache copy \S+iris\.csv\.gz: canonical checksum [0-9a-f]{{64}}, \S+iris\.yaml expects {IRIS}", files=cached("iris", cell(10, 1, "3.9"))),
    # cards
    CliCase("card-checksum-not-hex", info("iris"), r"^error: \S*cards/iris\.yaml:\d+: field 'checksum' must be 64 lowercase hex digits .*got 'abc' \(str\)$", files=pinned_to("iris", "abc")),
    CliCase("card-checksum-too-short", info("iris"), r"cards/iris\.yaml:\d+: field 'checksum' must be 64 lowercase hex digits", files=pinned_to("iris", IRIS)),
    CliCase("card-checksum-wrong", info("iris"), rf"mirror copy \S+iris\.csv\.gz: canonical checksum {IRIS}[0-9a-f]{{52}}, \S*cards/iris\.yaml expects {'0' * 63}1", files={**pinned_to("iris", "'" + "0" * 63 + "1'"), **copy("iris")}),
    CliCase("card-checksum-wrong-embedded", info("iris"), rf"^error: dataset 'iris': embedded copy sklearn\.datasets\.load_iris: canonical checksum {IRIS}.* expects {'f' * 64}; check the scikit-learn installation", files=pinned_to("iris", "f" * 64)),
    CliCase("derived-checksum-wrong", info("ecoli4"), rf"^error: dataset 'ecoli4' derived from 'ecoli-327': canonical checksum [0-9a-f]{{64}}, \S+ecoli4\.yaml expects {'a' * 64}$", files={**card("ecoli"), **card("ecoli-327"), **pinned_to("ecoli4", "a" * 64), **copy("ecoli")}),
    CliCase("derived-base-changed", info("ecoli4"), r"^error: dataset 'ecoli': mirror copy \S+ecoli\.csv\.gz: canonical checksum", files=copy("ecoli", cell(0, 0, "0.50"))),
    CliCase("write-checksums-copies-disagree", ("datasets", "verify", "iris", "--write-checksums"), r"^error: dataset 'iris': local copies give different tables \(mirror \S+ gives [0-9a-f]{64}; embedded sklearn\.datasets\.load_iris gives ca1b2204f448", files={**card("iris"), **copy("iris", cell(20, 0, "5.5"))}),
    # names
    CliCase("unknown-dataset", info("eccoli"), r"^error: unknown dataset 'eccoli'; did you mean: ecoli"),
    CliCase("unknown-dataset-verify", ("datasets", "verify", "iris", "nosuch-data"), r"^error: unknown dataset 'nosuch-data'; accepted: abalone, "),
    # verify reports and fails (exit 1)
    CliCase("verify-changed-cell", ("datasets", "verify", "iris"), r"^error: 1 of 2 copies failed verification: iris \(mirror \S+iris\.csv\.gz\): \S+: canonical checksum [0-9a-f]{64}, \S+iris\.yaml expects " + IRIS, files=copy("iris", cell(5, 2, "1.8")), code=1),
    CliCase("verify-inf", ("datasets", "verify", "iris"), r"^error: 1 of 2 copies failed verification: iris .*numeric column 'sepalwidth' holds 'inf' in data row 12", files=copy("iris", cell(12, 1, "inf")), code=1),
    CliCase("verify-corrupt-gzip", ("datasets", "verify", "wine"), r"^error: 1 of 2 copies failed verification: wine \(mirror \S+\): \S+wine\.csv\.gz: corrupt gzip data", files=raw_copy("wine", lambda b: b[:-20]), code=1),
    # a corrupt copy stops a run before anything is written
    CliCase("run-with-corrupt-mirror", ("run", "c.yaml"), MIRROR_COPY + r"corrupt gzip data", files={"c.yaml": GOOD_CONFIG, **raw_copy("iris", lambda b: b[:100])}),
    CliCase("fetch-with-corrupt-mirror", ("datasets", "fetch", "iris"), MIRROR_COPY + r"corrupt gzip data", files=raw_copy("iris", lambda b: b[:100])),
    # criteria eval: counts are whole numbers of rows, a node holds at least one
    CliCase("counts-all-zero", counts("--counts", "0,0,0"), r"^error: --counts '0,0,0' counts no row \(a node holds at least one\); accepted: whole numbers >= 0"),
    CliCase("counts-single-zero", counts("--counts", "0"), r"--counts '0' counts no row"),
    CliCase("counts-empty", counts("--counts", ""), r"^error: --counts is empty; accepted: whole numbers >= 0 separated by commas"),
    CliCase("counts-empty-item", counts("--counts", "3,,2"), r"--counts '3,,2' has an empty count; accepted:"),
    CliCase("counts-negative", counts("--counts", "4,-1"), r"--counts '4,-1' holds '-1', not a count; accepted: whole numbers >= 0"),
    CliCase("counts-fraction", counts("--counts", "2.5,1"), r"--counts '2.5,1' holds '2.5', not a count"),
    CliCase("counts-nan", counts("--counts", "nan,1"), r"--counts 'nan,1' holds 'nan', not a count"),
    CliCase("counts-overflow", counts("--counts", "1e999,1"), r"--counts '1e999,1' holds '1e999', not a count"),
    CliCase("counts-not-numbers", counts("--counts", "a,b"), r"--counts 'a,b' is not a comma-separated list of numbers; accepted:"),
    CliCase("children-fraction", counts("--counts", "2,2", "--children", "1.5,0;0.5,2"), r"^error: children branch '1\.5,0' holds '1\.5', not a count"),
    CliCase("children-negative", counts("--counts", "2,2", "--children", "3,-1;-1,3"), r"children branch '3,-1' holds '-1', not a count"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_data_input(case, tmp_path, monkeypatch, capsys):
    if any(callable(v) for v in case.files.values()) and not MIRROR.is_dir():
        pytest.skip(f"no dataset mirror at {MIRROR}")  # the bad copies are made from the real files
    (tmp_path / "mirror").mkdir()
    monkeypatch.setenv(ENV_DATA, str(tmp_path / "mirror"))
    monkeypatch.setenv(ENV_CACHE, str(tmp_path / "cache"))
    monkeypatch.setenv(ENV_OFFLINE, "1")
    if any(name.startswith("cards/") for name in case.files):
        monkeypatch.setenv(ENV_CARDS, str(tmp_path / "cards"))
    else:
        monkeypatch.delenv(ENV_CARDS, raising=False)
    if case.args[0] == "run":
        # the runner keeps loaded datasets per process, by name only: an earlier in-process
        # run (another test) must not hand this case its copy of iris
        from treebench.experiment import trial

        monkeypatch.setattr(trial, "_DATA", OrderedDict())
    run_cli_case(case, tmp_path, capsys)


def test_cases_are_many_and_distinct():
    assert len(CASES) >= 25 and len({c.id for c in CASES}) == len(CASES)


def _load_with_corrupt_mirror(folder: Path) -> None:
    from treebench.data import load
    from treebench.data.settings import Settings

    (folder / "iris.csv.gz").write_bytes(b"\x1f\x8b\x08")
    load("iris", settings=Settings.from_env(mirrors=[folder], cache_dir=folder / "cache", offline=True))


def _write_bad_checksum(folder: Path) -> None:
    from treebench.data.cards import parse_card, write_checksum

    path = folder / "iris.yaml"
    path.write_text((CARDS / "iris.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    write_checksum(parse_card(path), "ABC")


#: (id, call(folder), message): library calls that must raise one line.
API_CASES = [
    ("api-load-corrupt-mirror", _load_with_corrupt_mirror, r"^dataset 'iris': mirror copy \S+iris\.csv\.gz: corrupt gzip data"),
    ("api-write-checksum-not-hex", _write_bad_checksum, r"^checksum 'ABC' is not 64 lowercase hex digits"),
]


@pytest.mark.parametrize(("name", "call", "message"), API_CASES, ids=[c[0] for c in API_CASES])
def test_bad_data_api_input(name, call, message, tmp_path):
    run_api_case(ApiCase(name, lambda: call(tmp_path), message))
