"""Bad inputs around results stores, one line each (the harness is ``tests/badinput.py``).

Every case runs ``treebench ARGS`` in a fresh folder and checks exit 2, one
stderr line matching the message, no traceback, and that the files it names
are byte-identical afterwards; a ``-wal``/``-shm`` listed as unchanged must
still be missing (or unchanged) after the command.  Stores are built once per
module and copied into each case's folder.

The harness has no environment per case: :class:`StoreCase` adds one
(``{tmp}`` is the case folder, ``{built}`` the module's folder of built
stores), and a case with an environment also starts with an empty per-process
dataset cache, as a new ``treebench`` process would.
"""

from __future__ import annotations

import fcntl
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from badinput import GOOD_CONFIG, CliCase, run_cli_case

from treebench.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
#: Filled by the module fixture: name -> built file or folder.
BUILT: dict[str, Path] = {}
#: Lock handles a case holds while it runs (a run "in progress" on a store).
HELD: list = []

DUO_CARD = (
    "name: duo\ntitle: Duo\ndescription: Six made-up rows.\npapers: []\ntarget: class\n"
    "features: [f1, f2]\nexpected: {rows: 6, features: 2, classes: 2}\n"
)
DUO_ROWS = "f1,f2,class\n1,2,a\n2,3,b\n3,1,a\n4,4,b\n5,0,a\n6,2,b\n"
DUO_CHANGED = DUO_ROWS.replace("6,2,b", "6,9,b")
DUO_CONFIG = GOOD_CONFIG.replace("datasets: [iris]", "datasets: [duo]")
RUN = ("--jobs", "1", "--quiet")


@dataclass(frozen=True)
class StoreCase:
    """A :class:`CliCase` with environment variables of its own."""

    case: CliCase
    env: dict[str, str] = field(default_factory=dict)


def case(case_id: str, args: tuple[str, ...], message: str, files: dict, unchanged=None, env=None) -> StoreCase:
    return StoreCase(CliCase(case_id, args, message, files=files, unchanged=unchanged), env or {})


# --------------------------------------------------------------------------- files
def copy(name: str, as_name: str | None = None) -> Callable[[Path], None]:
    """Copy the built store ``name`` (and its -wal/-shm, if any) into the case folder, as NAME.sqlite."""

    def write(folder: Path) -> None:
        target = folder / (as_name or f"{name}.sqlite")
        target.parent.mkdir(parents=True, exist_ok=True)
        for suffix in ("", "-wal", "-shm"):
            source = Path(f"{BUILT[name]}{suffix}")
            if source.exists():
                shutil.copyfile(source, f"{target}{suffix}")

    return write


def symlink(target: str, source: str) -> Callable[[Path], None]:
    def write(folder: Path) -> None:
        copy(source, target)(folder)
        (folder / "link.sqlite").symlink_to(folder / target)

    return write


def folder_(folder: Path) -> None:
    (folder / "folder.sqlite").mkdir()


def sqlite_with(name: str, sql: str) -> Callable[[Path], None]:
    """A SQLite file written by something else than treebench."""

    def write(folder: Path) -> None:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(folder / name)
        with conn:
            conn.executescript(sql)
        conn.close()

    return write


def held(name: str) -> Callable[[Path], None]:
    """A copy of a built store whose lock some run holds (this process, through another handle)."""

    def write(folder: Path) -> None:
        copy(name)(folder)
        handle = open(f"{(folder / f'{name}.sqlite').resolve()}.lock", "a+")  # noqa: SIM115 - released after the case
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        HELD.append(handle)

    return write


NOT_SQLITE = b"dataset,algorithm,accuracy\niris,entropy,0.9\n" * 20
PEOPLE = "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO people VALUES (1, 'ada');"
UNRELATED = sqlite_with("unrelated.sqlite", PEOPLE)
OTHER_SHAPE = sqlite_with(
    "othershape.sqlite", "CREATE TABLE trials (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO trials VALUES (1, 'x');"
)
SEED_1 = GOOD_CONFIG.replace("seed: 0", "seed: 1")
FOLDS_3 = GOOD_CONFIG.replace("folds: 2", "folds: 3")
WAL = ("-wal", "-shm")


def watched(*names: str) -> tuple[str, ...]:
    """The files and their (absent or kept) -wal/-shm companions."""
    return tuple(n + s for n in names for s in ("", *WAL))


DUO_ENV = {
    "TREEBENCH_CARDS": "{built}/cards",
    "TREEBENCH_DATA": "{tmp}/mirror",
    "TREEBENCH_CACHE": "{tmp}/cache",
    "TREEBENCH_OFFLINE": "1",
}

CASES = [
    # ---- reading commands on files that are not results stores
    case("compare-not-sqlite", ("compare", "notsqlite.sqlite"),
         r"^error: 'notsqlite.sqlite' is not a treebench results store: not a SQLite file$",
         {"notsqlite.sqlite": NOT_SQLITE}),
    case("show-not-sqlite", ("results", "show", "notsqlite.sqlite"), r"not a SQLite file$",
         {"notsqlite.sqlite": NOT_SQLITE}),
    case("export-not-sqlite", ("results", "export", "notsqlite.sqlite", "--out", "-"), r"not a SQLite file$",
         {"notsqlite.sqlite": NOT_SQLITE}),
    case("plot-not-sqlite", ("plot", "leaves", "notsqlite.sqlite", "--out", "{tmp}/p"), r"not a SQLite file$",
         {"notsqlite.sqlite": NOT_SQLITE}),
    case("compare-empty-file", ("compare", "empty.sqlite"),
         r"'empty.sqlite' is an empty file, not a treebench results store$", {"empty.sqlite": b""}),
    case("show-empty-file", ("results", "show", "empty.sqlite"), r"is an empty file", {"empty.sqlite": b""}),
    case("compare-unrelated-sqlite", ("compare", "unrelated.sqlite"),
         r"'unrelated.sqlite' is a SQLite file but not a treebench results store \(no 'trials' table; "
         r"its tables are people\)$", {"unrelated.sqlite": UNRELATED}),
    case("show-unrelated-sqlite", ("results", "show", "unrelated.sqlite"), r"no 'trials' table",
         {"unrelated.sqlite": UNRELATED}),
    case("export-unrelated-sqlite", ("results", "export", "unrelated.sqlite"), r"no 'trials' table",
         {"unrelated.sqlite": UNRELATED}, unchanged=("unrelated.sqlite", "unrelated.csv")),
    case("compare-trials-of-another-shape", ("compare", "othershape.sqlite"),
         r"'othershape.sqlite' is not a treebench results store: its 'trials' table lacks the columns "
         r"experiment, dataset, algorithm, protocol and \d+ more$", {"othershape.sqlite": OTHER_SHAPE}),
    case("show-trials-of-another-shape", ("results", "show", "othershape.sqlite"), r"lacks the columns",
         {"othershape.sqlite": OTHER_SHAPE}),
    case("compare-corrupt", ("compare", "corrupt.sqlite"),
         r"^error: cannot read results store 'corrupt.sqlite': database disk image is malformed$",
         {"corrupt.sqlite": copy("corrupt")}),
    case("compare-folder", ("compare", "folder.sqlite"), r"'folder.sqlite' is a folder",
         {"folder.sqlite": folder_}),
    case("show-folder", ("results", "show", "folder.sqlite"), r"is a folder", {"folder.sqlite": folder_}),
    case("compare-config-whose-store-is-not-sqlite", ("compare", "c.yaml"), r"not a SQLite file$",
         {"c.yaml": GOOD_CONFIG + "store: notsqlite.sqlite\n", "notsqlite.sqlite": NOT_SQLITE}),
    case("reproduce-no-run-not-sqlite", ("reproduce", "certainty", "--no-run", "--out-dir", "{tmp}/out"),
         r"'results/certainty.sqlite' is not a treebench results store: not a SQLite file$",
         {"configs/certainty.yaml": GOOD_CONFIG.replace("bad-input", "certainty"),
          "results/certainty.sqlite": NOT_SQLITE}),
    case("reproduce-no-run-unrelated", ("reproduce", "certainty", "--no-run", "--out-dir", "{tmp}/out"),
         r"no 'trials' table",
         {"configs/certainty.yaml": GOOD_CONFIG.replace("bad-input", "certainty"),
          "results/certainty.sqlite": sqlite_with("results/certainty.sqlite", PEOPLE)}),
    # ---- reading commands on good stores that fail for another reason: the store stays as it was
    case("compare-good-unknown-metric", ("compare", "good.sqlite", "--metric", "nope"), r"unknown metric 'nope'",
         {"good.sqlite": copy("good")}, unchanged=watched("good.sqlite")),
    case("show-good-unknown-metric", ("results", "show", "good.sqlite", "--metric", "nope"),
         r"unknown metric 'nope'", {"good.sqlite": copy("good")}, unchanged=watched("good.sqlite")),
    case("plot-cd-good-unknown-metric", ("plot", "cd", "good.sqlite", "--metric", "nope", "--out", "{tmp}/p"),
         r"unknown metric 'nope'", {"good.sqlite": copy("good")}, unchanged=watched("good.sqlite")),
    case("compare-legacy-unknown-metric", ("compare", "legacy.sqlite", "--metric", "nope"),
         r"unknown metric 'nope'.*pignistic_error", {"legacy.sqlite": copy("legacy")},
         unchanged=watched("legacy.sqlite")),
    case("show-legacy-unknown-metric", ("results", "show", "legacy.sqlite", "--metric", "nope"),
         r"unknown metric 'nope'", {"legacy.sqlite": copy("legacy")}, unchanged=watched("legacy.sqlite")),
    case("compare-killed-run-unknown-metric", ("compare", "killed.sqlite", "--metric", "nope"),
         r"unknown metric 'nope'", {"killed.sqlite": copy("killed")}, unchanged=watched("killed.sqlite")),
    case("compare-symlink-unknown-metric", ("compare", "link.sqlite", "--metric", "nope"), r"unknown metric",
         {"link.sqlite": symlink("good.sqlite", "good")}, unchanged=(*watched("good.sqlite"), "link.sqlite")),
    # ---- run: a store of another experiment
    case("run-another-experiments-store", ("run", "c.yaml", "--store", "legacy.sqlite", *RUN),
         r"^error: results store 'legacy.sqlite' holds experiment 'legacy-store', not 'bad-input': a store belongs "
         r"to one experiment; use --store \(or the config's store:\) to choose another file$",
         {"c.yaml": GOOD_CONFIG, "legacy.sqlite": copy("legacy")}, unchanged=watched("legacy.sqlite")),
    case("run-changed-seed", ("run", "c.yaml", "--store", "good.sqlite", *RUN),
         r"holds experiment 'bad-input' with seed 0, this config has seed 1 \(fingerprint [0-9a-f]{12} vs "
         r"[0-9a-f]{12}\): that is another experiment; use --store",
         {"c.yaml": SEED_1, "good.sqlite": copy("good")}, unchanged=watched("good.sqlite")),
    case("run-changed-seed-force", ("run", "c.yaml", "--store", "good.sqlite", "--force", *RUN),
         r"with seed 0, this config has seed 1", {"c.yaml": SEED_1, "good.sqlite": copy("good")},
         unchanged=watched("good.sqlite")),
    case("run-changed-protocol", ("run", "c.yaml", "--store", "good.sqlite", *RUN),
         r"with protocol \{type: cv, folds: 2, repeats: 1, stratified: true\}, this config has protocol "
         r"\{type: cv, folds: 3,", {"c.yaml": FOLDS_3, "good.sqlite": copy("good")},
         unchanged=watched("good.sqlite")),
    case("dry-run-changed-seed", ("run", "c.yaml", "--store", "good.sqlite", "--dry-run"),
         r"with seed 0, this config has seed 1", {"c.yaml": SEED_1, "good.sqlite": copy("good")},
         unchanged=watched("good.sqlite")),
    case("run-killed-store-changed-seed", ("run", "c.yaml", "--store", "killed.sqlite", *RUN),
         r"with seed 0, this config has seed 1", {"c.yaml": SEED_1, "killed.sqlite": copy("killed")},
         unchanged=watched("killed.sqlite")),
    case("run-symlink-to-another-experiments-store", ("run", "c.yaml", "--store", "link.sqlite", *RUN),
         r"results store 'link.sqlite' holds experiment 'legacy-store', not 'bad-input'",
         {"c.yaml": GOOD_CONFIG, "link.sqlite": symlink("target.sqlite", "legacy")},
         unchanged=(*watched("target.sqlite"), "link.sqlite")),
    case("run-dotdot-path-to-another-experiments-store",
         ("run", "c.yaml", "--store", "sub/../legacy.sqlite", *RUN), r"holds experiment 'legacy-store'",
         {"c.yaml": GOOD_CONFIG, "legacy.sqlite": copy("legacy"), "sub/keep": b""},
         unchanged=watched("legacy.sqlite")),
    # ---- run: one writer per file, however it is spelled
    case("run-store-being-written", ("run", "c.yaml", "--store", "good.sqlite", *RUN),
         r"^error: results store 'good.sqlite' is being written by another treebench run; wait for it or use "
         r"--store to write elsewhere$", {"c.yaml": GOOD_CONFIG, "good.sqlite": held("good")},
         unchanged=watched("good.sqlite")),
    case("run-symlink-to-a-store-being-written", ("run", "c.yaml", "--store", "link.sqlite", *RUN),
         r"results store 'link.sqlite' is being written by another treebench run",
         {"c.yaml": GOOD_CONFIG, "good.sqlite": held("good"),
          "link.sqlite": lambda folder: (folder / "link.sqlite").symlink_to(folder / "good.sqlite")},
         unchanged=(*watched("good.sqlite"), "link.sqlite")),
    # ---- run: files and places that cannot be a store
    case("run-not-sqlite", ("run", "c.yaml", "--store", "notsqlite.sqlite", *RUN), r"not a SQLite file$",
         {"c.yaml": GOOD_CONFIG, "notsqlite.sqlite": NOT_SQLITE}, unchanged=watched("notsqlite.sqlite")),
    case("run-unrelated-sqlite", ("run", "c.yaml", "--store", "unrelated.sqlite", *RUN), r"no 'trials' table",
         {"c.yaml": GOOD_CONFIG, "unrelated.sqlite": UNRELATED}, unchanged=watched("unrelated.sqlite")),
    case("run-trials-of-another-shape", ("run", "c.yaml", "--store", "othershape.sqlite", *RUN),
         r"lacks the columns", {"c.yaml": GOOD_CONFIG, "othershape.sqlite": OTHER_SHAPE},
         unchanged=watched("othershape.sqlite")),
    case("run-corrupt", ("run", "c.yaml", "--store", "corrupt.sqlite", *RUN), r"database disk image is malformed",
         {"c.yaml": GOOD_CONFIG, "corrupt.sqlite": copy("corrupt")}, unchanged=watched("corrupt.sqlite")),
    case("run-folder", ("run", "c.yaml", "--store", "folder.sqlite", *RUN), r"'folder.sqlite' is a folder",
         {"c.yaml": GOOD_CONFIG, "folder.sqlite": folder_}),
    case("run-under-proc", ("run", "c.yaml", "--store", "/proc/treebench-bad-input.sqlite", *RUN),
         # refused by the up-front check, before the kernels compile (it compiled for a minute, then refused)
         r"cannot create results store '/proc/treebench-bad-input.sqlite' in '/proc' "
         r"\(the file system there takes no new files or folders: a virtual one, such as /proc or /sys\); use --store",
         {"c.yaml": GOOD_CONFIG}),
    case("run-parent-is-a-file", ("run", "c.yaml", "--store", "afile/x.sqlite", *RUN),
         r"cannot create results store 'afile/x.sqlite': '.*afile' is a file, not a folder; use --store",
         {"c.yaml": GOOD_CONFIG, "afile": b"not a folder"}),
    # ---- run: the data of a dataset label changed since the store's trials
    case("run-changed-data", ("run", "c.yaml", "--store", "duo.sqlite", *RUN),
         r"^error: dataset 'duo' now has other content than the trials in results store 'duo.sqlite' "
         r"\(sha256 [0-9a-f]{12}, stored [0-9a-f]{12}; check TREEBENCH_DATA\): --force does not mix two versions "
         r"of a dataset in one store; use --store",
         {"c.yaml": DUO_CONFIG, "duo.sqlite": copy("duo"), "mirror/duo.csv": DUO_CHANGED},
         unchanged=watched("duo.sqlite"), env=DUO_ENV),
    case("run-changed-data-force", ("run", "c.yaml", "--store", "duo.sqlite", "--force", *RUN),
         r"dataset 'duo' now has other content",
         {"c.yaml": DUO_CONFIG, "duo.sqlite": copy("duo"), "mirror/duo.csv": DUO_CHANGED},
         unchanged=watched("duo.sqlite"), env=DUO_ENV),
    case("run-single-class-dataset", ("run", "c.yaml", "--store", "new.sqlite", *RUN),
         r"c.yaml: dataset 'duo' has a single class in its 6 rows; every dataset needs two classes or more",
         {"c.yaml": DUO_CONFIG, "mirror/duo.csv": DUO_ROWS.replace(",b\n", ",a\n")},
         unchanged=(*watched("new.sqlite"), "new.sqlite.lock"), env={**DUO_ENV, "TREEBENCH_CARDS": "{built}/cards1"}),
]


# --------------------------------------------------------------------------- building the stores once
def _run(config_text: str, folder: Path, store: Path) -> None:
    (folder / f"{store.stem}.yaml").write_text(config_text)
    try:
        main(["run", str(folder / f"{store.stem}.yaml"), "--store", str(store), *RUN])
    except SystemExit as exc:
        assert exc.code in (0, None), exc.code


@pytest.fixture(scope="module", autouse=True)
def built(tmp_path_factory):
    from treebench.experiment import trial

    folder = tmp_path_factory.mktemp("stores")
    BUILT["built"] = folder
    _run(GOOD_CONFIG, folder, folder / "good.sqlite")
    BUILT["good"] = folder / "good.sqlite"
    BUILT["legacy"] = FIXTURES / "stores" / "legacy-0.1.1.sqlite"
    corrupt = folder / "corrupt.sqlite"
    corrupt.write_bytes(BUILT["legacy"].read_bytes()[:2000] + bytes(range(256)) * 12)
    BUILT["corrupt"] = corrupt
    killed = folder / "killed.sqlite"
    shutil.copyfile(BUILT["good"], killed)
    script = (  # a writer that commits and dies without closing: its last trial lives in the WAL
        "import os, sqlite3, sys\nconn = sqlite3.connect(sys.argv[1])\n"
        "conn.execute(\"UPDATE trials SET finished_at = 'later' WHERE rowid = 1\")\nconn.commit()\nos._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", script, str(killed)], check=True)
    BUILT["killed"] = killed
    for name, classes in (("cards", 2), ("cards1", 1)):
        cards = folder / name
        cards.mkdir()
        (cards / "duo.yaml").write_text(DUO_CARD.replace("classes: 2", f"classes: {classes}"))
    (folder / "mirror").mkdir()
    (folder / "mirror" / "duo.csv").write_text(DUO_ROWS)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TREEBENCH_CARDS", str(folder / "cards"))
        patch.setenv("TREEBENCH_DATA", str(folder / "mirror"))
        patch.setenv("TREEBENCH_CACHE", str(folder / "cache"))
        patch.setenv("TREEBENCH_OFFLINE", "1")
        patch.setattr(trial, "_DATA", type(trial._DATA)())
        _run(DUO_CONFIG, folder, folder / "duo.sqlite")
    BUILT["duo"] = folder / "duo.sqlite"
    yield
    BUILT.clear()


@pytest.mark.parametrize("store_case", CASES, ids=[c.case.id for c in CASES])
def test_bad_store_input(store_case: StoreCase, tmp_path, capsys, monkeypatch):
    from treebench.experiment import trial

    if store_case.env:
        for key, value in store_case.env.items():
            monkeypatch.setenv(key, value.replace("{tmp}", str(tmp_path)).replace("{built}", str(BUILT["built"])))
        monkeypatch.setattr(trial, "_DATA", type(trial._DATA)())  # as in a new process
    try:
        run_cli_case(store_case.case, tmp_path, capsys)
    finally:
        while HELD:
            HELD.pop().close()


def test_there_are_enough_cases():
    assert len(CASES) >= 25 and len({c.case.id for c in CASES}) == len(CASES)
