"""The results store: read-only reading, one experiment per store, pinned data, one lock per file.

* Reading (``compare``, ``plot``, ``results show/export``, ``reproduce --no-run``)
  leaves every file of the store's folder byte-identical and creates none
  (no ``-wal``/``-shm``), for a store written by today's runner, an older
  store (``legacy-0.1.1.sqlite``: no ``measures`` column) and one a killed
  run left with a WAL; alongside a live writer it sees committed trials.
* ``run`` refuses a store of another experiment (name or fingerprint) and a
  dataset label whose content changed (``--force`` or not), before writing;
  additions (dataset, algorithm, grid) are accepted; an old store is adopted.
* A symlink or ``x/../store.sqlite`` and the file share one lock.
* A dataset with a single class is refused before the store is created.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from treebench.cli import main
from treebench.errors import TreebenchError
from treebench.experiment import store as store_module
from treebench.experiment.runner import experiment_identity, run_experiment
from treebench.experiment.store import FINGERPRINT_KEY, IDENTITY_KEY, PINS_KEY, ResultsStore

FIXTURES = Path(__file__).parent / "fixtures"
LEGACY = FIXTURES / "stores" / "legacy-0.1.1.sqlite"

BASE = {
    "experiment": "ident",
    "seed": 0,
    "datasets": ["iris"],
    "protocol": {"type": "cv", "folds": 2, "repeats": 1},
    "algorithms": [{"name": "entropy", "criterion": "entropy", "params": {"max_depth": 2}}],
}


def write_config(folder: Path, name: str = "c.yaml", **changes) -> Path:
    data = json.loads(json.dumps(BASE))  # deep copy
    data.update(changes)
    path = folder / name
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def run(config: Path, store: Path, **kwargs):
    return run_experiment(config, store_path=store, quiet=True, echo=lambda line: None, jobs=1, **kwargs)


def folder_state(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` -> its SHA-256 (a new ``-wal`` or ``-shm`` shows as a new name)."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def cli(*args: str) -> int:
    try:
        main(list(args))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    return 0


# --------------------------------------------------------------------------- stores built once
@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    """A store written by the runner (WAL mode), and one with a killed run's WAL left next to it."""
    folder = tmp_path_factory.mktemp("built")
    config = write_config(
        folder,
        algorithms=[
            {"name": "entropy", "criterion": "entropy", "params": {"max_depth": 2}},
            {"name": "gini", "criterion": "gini", "params": {"max_depth": 2}},
        ],
    )
    good = folder / "good.sqlite"
    summary = run(config, good)
    assert (summary.done, summary.failed) == (4, 0)
    killed = folder / "killed.sqlite"
    shutil.copyfile(good, killed)
    # A writer that commits one more trial and dies without closing: its trial lives in the WAL only.
    script = (
        "import os, sqlite3, sys\n"
        "conn = sqlite3.connect(sys.argv[1])\n"
        "conn.execute('PRAGMA journal_mode=WAL')\n"
        "conn.execute(\"INSERT INTO trials SELECT 'k-wal' || trial_key, experiment, dataset, algorithm, protocol, "
        "repeat + 1, fold, seed, status, accuracy, error, train_accuracy, n_leaves, n_nodes, depth, fit_seconds, "
        "predict_seconds, tree_quality, params, error_text, finished_at, chosen, tune_seconds, n_train, n_test, "
        "dataset_checksum, measures, predictions_sha256 FROM trials LIMIT 1\")\n"
        "conn.commit()\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", script, str(killed)], check=True)
    assert Path(f"{killed}-wal").stat().st_size > 0 and Path(f"{killed}-shm").exists()
    return {"config": config, "good": good, "killed": killed}


@pytest.fixture
def stores(built, tmp_path) -> Path:
    """A fresh folder with copies: good.sqlite, legacy.sqlite, killed.sqlite (+ its -wal, -shm)."""
    folder = tmp_path / "stores"
    folder.mkdir()
    shutil.copyfile(built["good"], folder / "good.sqlite")
    shutil.copyfile(LEGACY, folder / "legacy.sqlite")
    for suffix in ("", "-wal", "-shm"):
        shutil.copyfile(f"{built['killed']}{suffix}", folder / f"killed.sqlite{suffix}")
    return folder


# --------------------------------------------------------------------------- reading changes nothing
READERS = [
    ("compare", ["compare", "{store}", "--test", "ttest"]),
    ("compare-latex", ["compare", "{store}", "--format", "latex", "--out", "{out}/t.tex"]),
    ("plot-leaves", ["plot", "leaves", "{store}", "--out", "{out}/leaves"]),
    ("results-show", ["results", "show", "{store}"]),
    ("results-export", ["results", "export", "{store}", "--out", "-"]),
    ("results-export-file", ["results", "export", "{store}", "--out", "{out}/x.csv"]),
]


@pytest.mark.parametrize("name", ["good", "legacy", "killed"])
@pytest.mark.parametrize("command", [args for _, args in READERS], ids=[i for i, _ in READERS])
def test_reading_commands_leave_the_store_folder_byte_identical(stores, tmp_path, name, command, capsys):
    before = folder_state(stores)
    args = [a.format(store=stores / f"{name}.sqlite", out=tmp_path / "out") for a in command]
    assert cli(*args) == 0, capsys.readouterr().err
    assert folder_state(stores) == before
    assert not Path(f"{stores / name}.sqlite.lock").exists()  # a reader takes no lock either


def test_reproduce_without_running_leaves_the_store_alone(tmp_path, monkeypatch, capsys):
    """``reproduce KEY --no-run`` reads the config's store (results/KEY.sqlite) and writes only its report."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "configs").mkdir()
    config = write_config(tmp_path / "configs", "certainty.yaml", experiment="certainty")
    run(config, tmp_path / "results" / "certainty.sqlite")
    before = folder_state(tmp_path / "results")
    assert cli("reproduce", "certainty", "--no-run", "--out-dir", str(tmp_path / "report")) == 0, capsys.readouterr()
    assert (tmp_path / "report" / "report.md").exists()
    assert folder_state(tmp_path / "results") == before


def test_a_read_only_store_file_is_read(stores, capsys):
    path = stores / "good.sqlite"
    path.chmod(0o444)
    before = folder_state(stores)
    assert cli("results", "show", str(path)) == 0
    assert "4 trials: 4 ok" in capsys.readouterr().out
    assert folder_state(stores) == before


def test_the_legacy_store_reads_as_after_its_upgrade(stores):
    """Read-only, the missing ``measures`` column reads as NULL: the frame equals the upgraded store's."""
    path = stores / "legacy.sqlite"
    with ResultsStore(path) as store:
        read_only = store.to_frame(all_columns=True)
        assert "measures" not in {row[1] for row in store.conn.execute("PRAGMA table_info(trials)")}
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:  # the file itself was not altered
        assert "measures" not in {row[1] for row in conn.execute("PRAGMA table_info(trials)")}
    with ResultsStore(path, create=True) as writer:  # a run's writer adds the column (ALTER TABLE)
        upgraded = writer.to_frame(all_columns=True)
        assert "measures" in {row[1] for row in writer.conn.execute("PRAGMA table_info(trials)")}
    pd.testing.assert_frame_equal(read_only, upgraded)
    assert read_only["pignistic_error"].notna().sum() == 2


def test_a_killed_runs_wal_is_read_and_left_alone(stores, built):
    with ResultsStore(built["good"]) as good:
        expected = good.count() + 1
    before = folder_state(stores)
    with ResultsStore(stores / "killed.sqlite") as store:
        frame = store.to_frame()
    assert len(frame) == expected and frame["trial_key"].str.startswith("k-wal").sum() == 1
    assert folder_state(stores) == before


def test_reading_alongside_a_live_writer_sees_its_committed_trials(stores):
    path = stores / "good.sqlite"
    with ResultsStore(path, create=True) as writer:
        row = writer.to_frame(all_columns=True).iloc[0].to_dict()
        writer.record({**row, "trial_key": "live-1", "repeat": 5})
        with ResultsStore(path) as reader:
            assert "live-1" in set(reader.to_frame()["trial_key"])
            with pytest.raises(io.UnsupportedOperation, match="open read-only"):
                reader.record(row)


def test_a_store_that_keeps_changing_is_read_through_sqlite(stores, monkeypatch):
    """If the file changes under the snapshot every time, reading falls back to SQLite's read-only mode."""
    ticks = iter(range(1_000_000))
    monkeypatch.setattr(store_module, "_file_state", lambda *paths: ((next(ticks), 0, 0), None))
    with ResultsStore(stores / "legacy.sqlite") as store:
        assert len(store.to_frame()) == 6


# --------------------------------------------------------------------------- one experiment per store
@pytest.fixture
def owned(built, tmp_path) -> Path:
    """A copy of the built store (experiment 'ident', seed 0, iris, entropy and gini)."""
    path = tmp_path / "owned.sqlite"
    shutil.copyfile(built["good"], path)
    return path


def test_the_run_records_the_identity_and_the_dataset_pins(owned, built):
    from treebench.experiment.config import load_config

    with ResultsStore(owned) as store:
        meta = store.meta()
        assert store.identity() == json.loads(meta[IDENTITY_KEY])
        identity = store.identity()
        pins = store.dataset_pins()
    config = load_config(built["config"])
    assert identity == experiment_identity(config)
    assert identity["experiment"] == "ident" and identity["seed"] == 0
    assert identity["protocol"] == {"type": "cv", "folds": 2, "repeats": 1, "stratified": True}
    assert meta[FINGERPRINT_KEY] == store_module.fingerprint(identity)
    assert list(pins) == ["iris"] and pins == json.loads(meta[PINS_KEY])


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"experiment": "other"}, r"holds experiment 'ident', not 'other'"),
        ({"seed": 1}, r"holds experiment 'ident' with seed 0, this config has seed 1 \(fingerprint \w{12} vs \w{12}\)"),
        ({"protocol": {"type": "cv", "folds": 3}}, r"with protocol \{type: cv, folds: 2, repeats: 1, stratified: true\}"),
        ({"tuning": {"folds": 3}}, r"with tuning \{folds: 5, metric: accuracy\}, this config has tuning \{folds: 3"),
        ({"nominal": "codes"}, r"with nominal categories, this config has nominal codes"),
        (
            {"label_uncertainty": {"uncertain_class": 1, "share": 0.5}},
            r"with label_uncertainty none, this config has label_uncertainty \{uncertain_class: 1",
        ),
    ],
    ids=["name", "seed", "protocol", "tuning", "nominal", "label-uncertainty"],
)
def test_another_experiment_is_refused_before_anything_is_written(owned, tmp_path, changes, message):
    config = write_config(tmp_path, **changes)
    before = folder_state(owned.parent)
    with pytest.raises(TreebenchError, match=message) as info:
        run(config, owned, force=True)
    assert "use --store" in str(info.value) and "\n" not in str(info.value)
    assert folder_state(owned.parent) == before


def test_trials_are_added_for_a_new_dataset_algorithm_or_grid(owned, tmp_path):
    grown = write_config(
        tmp_path,
        datasets=["iris", "wine"],
        algorithms=[
            {"name": "entropy", "criterion": "entropy", "params": {"max_depth": 2}, "grid": {"min_samples_leaf": [1, 5]}},
            {"name": "gini", "criterion": "gini", "params": {"max_depth": 2}},
            {"name": "ratio", "criterion": "gain_ratio", "params": {"max_depth": 2}},
        ],
        metrics=["accuracy"],
        description="more of the same experiment",
    )
    summary = run(grown, owned)
    # iris/gini is unchanged (2 skipped); iris/entropy has a grid now, wine and ratio are new
    assert (summary.planned, summary.skipped, summary.done, summary.failed) == (12, 2, 10, 0)
    with ResultsStore(owned) as store:
        assert store.count() == 14 and set(store.dataset_pins()) == {"iris", "wine"}


def test_an_older_store_is_adopted_and_then_owned(tmp_path, monkeypatch):
    import treebench

    path = tmp_path / "legacy.sqlite"
    shutil.copyfile(LEGACY, path)
    monkeypatch.setattr(treebench, "__version__", "0.1.1")  # the writer's release: its trial keys match
    config = FIXTURES / "stores" / "legacy.yaml"
    with ResultsStore(path) as store:
        assert store.identity() is None
        pinned = store.dataset_pins()  # from its trials' dataset_checksum
    assert list(pinned) == ["wdbc"]
    summary = run(config, path)
    assert (summary.planned, summary.skipped, summary.done) == (6, 6, 0)
    with ResultsStore(path) as store:
        assert store.identity()["experiment"] == "legacy-store" and store.dataset_pins() == pinned
    text = config.read_text().replace("seed: 3", "seed: 4")
    (tmp_path / "legacy.yaml").write_text(text)
    with pytest.raises(TreebenchError, match="with seed 3, this config has seed 4"):
        run(tmp_path / "legacy.yaml", path)


def test_an_older_store_of_another_experiment_is_refused(tmp_path):
    path = tmp_path / "legacy.sqlite"
    shutil.copyfile(LEGACY, path)
    with pytest.raises(TreebenchError, match="holds experiment 'legacy-store', not 'ident'"):
        run(write_config(tmp_path), path)


def test_an_identity_field_the_store_lacks_is_adopted(owned, tmp_path):
    """A later treebench may add identity fields: a store without one takes it instead of refusing."""
    with sqlite3.connect(owned) as conn:
        identity = json.loads(conn.execute("SELECT value FROM meta WHERE key = ?", (IDENTITY_KEY,)).fetchone()[0])
        del identity["tuning"]
        conn.execute("UPDATE meta SET value = ? WHERE key = ?", (json.dumps(identity), IDENTITY_KEY))
    run(write_config(tmp_path), owned)
    with ResultsStore(owned) as store:
        assert store.identity()["tuning"] == {"folds": 5, "metric": "accuracy"}


# --------------------------------------------------------------------------- pinned data
@pytest.fixture
def duo(tmp_path, monkeypatch) -> Path:
    """Cards with iris and 'duo' (6 rows, 2 classes) read from a mirror folder; returns the mirror."""
    from treebench.experiment import trial

    cards, mirror = tmp_path / "cards", tmp_path / "mirror"
    cards.mkdir()
    mirror.mkdir()
    shutil.copyfile(Path(__file__).parents[1] / "datasets" / "iris.yaml", cards / "iris.yaml")
    (cards / "duo.yaml").write_text(
        "name: duo\ntitle: Duo\ndescription: Six made-up rows.\npapers: []\ntarget: class\n"
        "features: [f1, f2]\nexpected: {rows: 6, features: 2, classes: 2}\n"
    )
    (mirror / "duo.csv").write_text("f1,f2,class\n1,2,a\n2,3,b\n3,1,a\n4,4,b\n5,0,a\n6,2,b\n")
    monkeypatch.setenv("TREEBENCH_CARDS", str(cards))
    monkeypatch.setenv("TREEBENCH_DATA", str(mirror))
    monkeypatch.setenv("TREEBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TREEBENCH_OFFLINE", "1")
    monkeypatch.setattr(trial, "_DATA", type(trial._DATA)())  # the driver's per-process data cache
    return mirror


def change_duo(mirror: Path) -> None:
    from treebench.experiment import trial

    (mirror / "duo.csv").write_text("f1,f2,class\n1,2,a\n2,3,b\n3,1,a\n4,4,b\n5,0,a\n6,9,b\n")
    trial._DATA.clear()


@pytest.mark.parametrize("force", [False, True])
def test_changed_data_for_a_dataset_label_stops_the_run_even_with_force(duo, tmp_path, force):
    config = write_config(tmp_path, datasets=["duo", "iris"])
    store = tmp_path / "duo.sqlite"
    run(config, store)
    change_duo(duo)
    before = {n: h for n, h in folder_state(tmp_path).items() if n.startswith("duo.sqlite")}
    with pytest.raises(TreebenchError, match=r"dataset 'duo' now has other content than the trials in "
                                             r"results store .*duo.sqlite.* \(sha256 \w{12}, stored \w{12};") as info:
        run(config, store, force=force)
    assert "--force does not" in str(info.value) and "use --store" in str(info.value)
    assert {n: h for n, h in folder_state(tmp_path).items() if n.startswith("duo.sqlite")} == before
    summary = run(config, tmp_path / "other.sqlite")  # another store takes the new data
    assert summary.done == 4


def test_a_store_without_pins_is_pinned_by_its_trials(duo, tmp_path):
    config = write_config(tmp_path, datasets=["duo"])
    store = tmp_path / "duo.sqlite"
    run(config, store)
    with sqlite3.connect(store) as conn:  # as written before pinning existed
        conn.execute("DELETE FROM meta WHERE key IN (?, ?, ?)", (PINS_KEY, IDENTITY_KEY, FINGERPRINT_KEY))
    change_duo(duo)
    with pytest.raises(TreebenchError, match="dataset 'duo' now has other content"):
        run(config, store)


# --------------------------------------------------------------------------- one lock per file
@pytest.mark.parametrize("spelling", ["symlink", "dotdot"])
def test_two_spellings_of_one_store_share_its_lock(owned, tmp_path, spelling):
    if spelling == "symlink":
        other = tmp_path / "link.sqlite"
        other.symlink_to(owned)
    else:
        (tmp_path / "sub").mkdir()
        other = tmp_path / "sub" / ".." / owned.name
    with ResultsStore(owned, create=True):
        with pytest.raises(TreebenchError, match="is being written by another treebench run"):
            ResultsStore(other, create=True)
        with pytest.raises(TreebenchError, match="is being written by another treebench run"):
            run(write_config(tmp_path), other)
    with ResultsStore(other, create=True) as writer:  # released: either spelling may write now
        assert writer.real == owned.resolve()
    assert not (tmp_path / "link.sqlite.lock").exists()


# --------------------------------------------------------------------------- planning
def test_a_single_class_dataset_is_refused_before_the_store_exists(duo, tmp_path):
    (duo / "duo.csv").write_text("f1,f2,class\n1,2,a\n2,3,a\n3,1,a\n4,4,a\n5,0,a\n6,2,a\n")
    cards = Path(os.environ["TREEBENCH_CARDS"])
    (cards / "duo.yaml").write_text((cards / "duo.yaml").read_text().replace("classes: 2", "classes: 1"))
    store = tmp_path / "results" / "one.sqlite"
    config = write_config(tmp_path, datasets=["iris", "duo"])
    with pytest.raises(TreebenchError, match=r"c.yaml: dataset 'duo' has a single class in its 6 rows; every "
                                             r"dataset needs two classes or more: remove it from datasets"):
        run(config, store)
    assert not store.parent.exists()
