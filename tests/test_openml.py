"""OpenML: cards from metadata, task entries, suites, user cards next to the built-in ones.

Everything runs offline on the recorded OpenML responses of
``tests/fixtures/openml`` (see its README), copied into a temporary
treebench cache whose ``openml`` folder is openml-python's cache root.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from badinput import exit_code as cli

from treebench.data.cards import CardRegistry, parse_card
from treebench.data.settings import ENV_CACHE, ENV_CARDS, ENV_OFFLINE, ENV_OPENML_SERVER, Settings

FIXTURES = Path(__file__).parent / "fixtures" / "openml"
TEST_SERVER = "https://test.openml.org/api/v1/xml"


def openml_env(folder: Path, monkeypatch: pytest.MonkeyPatch, server: str | None = None, offline: bool = True) -> Path:
    """A treebench cache holding the recorded responses, user cards in ``folder/cards``; returns the cards folder."""
    shutil.copytree(FIXTURES, folder / "cache" / "openml", ignore=shutil.ignore_patterns("README.md"))
    monkeypatch.setenv(ENV_CACHE, str(folder / "cache"))
    monkeypatch.setenv(ENV_CARDS, str(folder / "cards"))
    monkeypatch.setenv(ENV_OFFLINE, "1" if offline else "0")
    if server is None:
        monkeypatch.delenv(ENV_OPENML_SERVER, raising=False)
    else:
        monkeypatch.setenv(ENV_OPENML_SERVER, server)
    return folder / "cards"


# --------------------------------------------------------------------------- datasets add
def test_add_writes_a_card_from_openml_metadata(tmp_path, monkeypatch, capsys):
    cards = openml_env(tmp_path, monkeypatch)
    assert cli(["datasets", "add", "openml:61", "--name", "iris-oml"]) == 0
    out = capsys.readouterr().out
    card = parse_card(cards / "iris-oml.yaml")
    assert card.openml is not None and (card.openml.id, card.openml.version) == (61, 1)
    assert card.target == "class"
    assert card.features == ("sepallength", "sepalwidth", "petallength", "petalwidth")
    assert set(card.feature_kinds.values()) == {"numeric"}
    e = card.expected
    assert (e.rows, e.features, e.classes, e.missing) == (150, 4, 3, 0)
    assert e.class_counts == {"Iris-setosa": 50, "Iris-versicolor": 50, "Iris-virginica": 50}
    assert card.citation == "https://archive.ics.uci.edu/ml/citation_policy.html"
    assert "https://www.openml.org/d/61" in card.urls
    assert card.checksum is not None and card.checksum in out

    # the card pins the canonical table: loading it (from the cache `add` filled) gives that checksum
    from treebench.data import load

    ds = load("iris-oml")
    assert ds.checksum == card.checksum and ds.source.startswith("cache")
    assert ds.X.shape == (150, 4) and ds.classes == ["Iris-setosa", "Iris-versicolor", "Iris-virginica"]


def test_add_reads_the_data_the_way_openml_python_parses_it(tmp_path, monkeypatch):
    import openml

    from treebench.data import load
    from treebench.data.dataset import content_checksum

    openml_env(tmp_path, monkeypatch)
    assert cli(["datasets", "add", "openml:61", "--name", "iris-oml"]) == 0
    ds = load("iris-oml")
    # openml-python's own parse of the recorded ARFF, outside treebench
    arff = FIXTURES / "org/openml/www/datasets/61/dataset.arff"
    import arff as liac

    parsed = liac.loads(arff.read_text(encoding="utf-8"))
    frame = pd.DataFrame(parsed["data"], columns=[a for a, _ in parsed["attributes"]])
    assert np.array_equal(ds.X.to_numpy(dtype=float), frame.iloc[:, :4].to_numpy(dtype=float))
    assert list(ds.labels) == list(frame["class"])
    assert ds.checksum == content_checksum(ds.X, ds.y, ds.classes, ds.feature_kinds, ds.extra)
    assert openml.config.get_config_as_dict()["cachedir"] != tmp_path / "cache" / "openml"  # restored


def test_add_refuses_a_name_taken_by_a_built_in_card_unless_asked(tmp_path, monkeypatch, capsys):
    cards = openml_env(tmp_path, monkeypatch)
    assert cli(["datasets", "add", "openml:61"]) == 2  # 'iris' is a built-in card
    assert "a card named 'iris' exists" in capsys.readouterr().err
    assert not (cards / "iris.yaml").exists()
    assert cli(["datasets", "add", "openml:61", "--name", "iris"]) == 0
    assert "note: it overrides" in capsys.readouterr().out
    registry = CardRegistry(Settings.from_env().card_folders)
    assert registry.get("iris").path == cards / "iris.yaml"


# --------------------------------------------------------------------------- user cards
def test_user_cards_add_to_the_built_in_ones(tmp_path, monkeypatch, capsys):
    cards = openml_env(tmp_path, monkeypatch)
    assert cli(["datasets", "add", "openml:61", "--name", "flowers"]) == 0
    settings = Settings.from_env()
    assert settings.card_folders == (cards, settings.cards_dir)
    registry = CardRegistry(settings.card_folders)
    builtin = CardRegistry(settings.cards_dir).names()
    assert len(builtin) >= 56
    assert set(registry.names()) == {*builtin, "flowers"}
    assert registry.overrides() == {}
    capsys.readouterr()
    assert cli(["datasets", "list"]) == 0
    out = capsys.readouterr().out
    assert f"{len(builtin) + 1} datasets" in out and "flowers" in out and "note:" not in out


def test_a_user_card_with_a_built_in_name_overrides_it_with_a_note(tmp_path, monkeypatch, capsys):
    cards = openml_env(tmp_path, monkeypatch)
    assert cli(["datasets", "add", "openml:61", "--name", "iris"]) == 0
    settings = Settings.from_env()
    registry = CardRegistry(settings.card_folders)
    assert registry.overrides() == {"iris": [settings.cards_dir / "iris.yaml"]}
    capsys.readouterr()
    assert cli(["datasets", "list"]) == 0
    out = capsys.readouterr().out
    assert "note:" in out and "iris.yaml overrides" in out
    assert len(registry.names()) == len(CardRegistry(settings.cards_dir).names())
    assert cards.is_dir()


def test_cards_path_list_is_searched_in_order(tmp_path, monkeypatch):
    first, second = tmp_path / "a", tmp_path / "b"
    for folder, title in ((first, "first"), (second, "second")):
        folder.mkdir()
        text = (Settings.from_env().cards_dir / "zoo.yaml").read_text(encoding="utf-8")
        text = re.sub(r"(?m)^title:.*$", f"title: {title}", text, count=1)
        (folder / "zoo.yaml").write_text(text, encoding="utf-8")
    monkeypatch.setenv(ENV_CARDS, f"{first}:{tmp_path / 'missing'}:{second}")
    settings = Settings.from_env()
    registry = CardRegistry(settings.card_folders)
    assert registry.get("zoo").title == "first"
    assert registry.overrides()["zoo"] == [second / "zoo.yaml", settings.cards_dir / "zoo.yaml"]


# --------------------------------------------------------------------------- tasks and suites
CONFIG = """experiment: oml
datasets: [{entry}]
algorithms:
  - {{name: entropy, criterion: entropy, params: {{max_depth: 2}}}}
"""


def test_a_task_entry_runs_on_the_tasks_own_protocol(tmp_path, monkeypatch):
    from treebench.experiment.config import parse_config, planned_trials

    openml_env(tmp_path, monkeypatch, server=TEST_SERVER)
    config = parse_config(CONFIG.format(entry="openml-task:1"))
    (spec,) = config.datasets
    assert spec.label == "openml-task:1" and spec.openml_task == 1
    assert spec.protocol.kind == "openml" and (spec.protocol.folds, spec.protocol.repeats) == (10, 1)
    assert spec.protocol.fields() == {"type": "openml", "task": 1, "folds": 10, "repeats": 1}
    assert spec.protocol.label == "openml:10x1"
    assert planned_trials(config) == 10


def test_task_info_comes_from_the_recorded_task(tmp_path, monkeypatch):
    from treebench.data.openml import task_info

    openml_env(tmp_path, monkeypatch, server=TEST_SERVER)
    info = task_info(1, Settings.from_env())
    assert (info.dataset_id, info.dataset_name, info.target) == (1, "anneal", "class")
    assert (info.procedure, info.folds, info.repeats) == ("crossvalidation", 10, 1)


def recorded_test_folds(task_id: int) -> dict[int, list[int]]:
    """Each fold's test rows, read straight from the recorded ``datasplits.arff`` (one repeat)."""
    path = FIXTURES / "org" / "openml" / "test" / "tasks" / str(task_id) / "datasplits.arff"
    folds: dict[int, list[int]] = {}
    data = path.read_text().split("@data", 1)[1]
    for line in data.split():
        kind, row, repeat, fold = line.split(",")
        assert repeat == "0"
        if kind == "TEST":
            folds.setdefault(int(fold), []).append(int(row))
    return folds


def test_a_task_runs_end_to_end_on_openmls_recorded_splits(tmp_path, monkeypatch, capsys):
    """``openml-task:1`` (anneal, 10-fold CV on the test server) from the recorded task, data and splits."""
    import sqlite3

    from treebench.data.openml import load_task

    openml_env(tmp_path, monkeypatch, server=TEST_SERVER)
    expected = recorded_test_folds(1)
    task = load_task(1, Settings.from_env())
    (codes,) = task.test_folds
    assert task.dataset.n_samples == 898 == len(codes)
    for fold, rows in expected.items():
        assert sorted(rows) == np.flatnonzero(codes == fold).tolist()

    config = tmp_path / "task.yaml"
    config.write_text(
        "experiment: oml\nseed: 0\ndatasets: [openml-task:1]\nalgorithms:\n"
        "  - {name: entropy, criterion: entropy}\n  - {name: cart, baseline: sklearn-cart}\n"
    )
    store = tmp_path / "oml.sqlite"
    assert cli(["run", str(config), "--store", str(store), "--quiet"]) == 0
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT algorithm, fold, status, n_train, n_test, accuracy FROM trials").fetchall()
    assert len(rows) == 20 and {r[2] for r in rows} == {"ok"}
    for _, fold, _, n_train, n_test, accuracy in rows:
        assert n_test == len(expected[fold]) and n_train == 898 - n_test
        assert 0.8 <= accuracy <= 1.0  # anneal is easy for trees (OpenML's runs: about 98-99 %)
    # a second run resumes: nothing left to do
    capsys.readouterr()
    assert cli(["run", str(config), "--store", str(store)]) == 0
    assert "0 done, 20 skipped" in capsys.readouterr().out
    assert cli(["compare", str(store)]) == 0
    assert "openml-task:1" in capsys.readouterr().out


def test_the_openml_protocol_uses_the_tasks_folds():
    from treebench.experiment.protocols import OPENML_FOLD_COLUMN, n_folds, outer_splits
    from treebench.experiment.specs import ProtocolSpec

    codes = np.array([2, 0, 1, 0, 2, 1, -1])  # row 6: in no test part (a holdout's training row)
    extra = pd.DataFrame({OPENML_FOLD_COLUMN.format(0): codes})
    protocol = ProtocolSpec("openml", folds=3, repeats=1, task=7)
    splits = outer_splits(protocol, 123, "openml-task:7", np.zeros(7), extra, 0)
    assert n_folds(protocol, 7) == 3
    for fold, (train, test) in enumerate(splits):
        assert list(test) == list(np.flatnonzero(codes == fold))
        assert sorted([*train, *test]) == list(range(7))
    # the seed plays no part: the task fixes the splits
    again = outer_splits(protocol, 999, "other", np.ones(7), extra, 0)
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(splits, again, strict=True))


def test_a_suite_expands_to_its_tasks(tmp_path, monkeypatch):
    from treebench.data.openml import suite

    openml_env(tmp_path, monkeypatch, server=TEST_SERVER)
    found = suite(146, Settings.from_env())
    assert (found.id, found.name, found.tasks) == (146, "unit tested benchmark suite", (4, 5, 6))


def test_a_suite_in_a_config_asks_for_each_of_its_tasks(tmp_path, monkeypatch):
    from treebench.errors import TreebenchError
    from treebench.experiment.config import parse_config

    openml_env(tmp_path, monkeypatch, server=TEST_SERVER)
    with pytest.raises(TreebenchError, match=r"OpenML task 4 is not in the OpenML cache .* TREEBENCH_OFFLINE"):
        parse_config(CONFIG.format(entry="openml-suite:146"))


def test_openml_dataset_entry_uses_the_card_naming_that_id(tmp_path, monkeypatch):
    from treebench.experiment.config import parse_config

    openml_env(tmp_path, monkeypatch)
    assert cli(["datasets", "add", "openml:61", "--name", "iris-oml"]) == 0
    config = parse_config(CONFIG.format(entry="openml:61") + "protocol: {type: cv, folds: 2}\n")
    assert config.datasets[0].name in {"iris-oml", "iris"}  # a card naming OpenML 61 (user cards first)
    assert config.datasets[0].name == "iris-oml"


def test_network_failure_is_one_line_naming_the_url(tmp_path, monkeypatch, capsys):
    # a closed local port: the connection is refused at once, nothing leaves the machine
    openml_env(tmp_path, monkeypatch, server="http://127.0.0.1:9/api/v1/xml", offline=False)
    assert cli(["datasets", "add", "openml:61", "--name", "x"]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1
    assert "could not reach http://127.0.0.1:9/api/v1/xml/data/61 (connection refused)" in err[0]
    assert "Traceback" not in err[0] and "HTTPConnectionPool" not in err[0]


def test_a_cards_openml_source_reads_through_openml_python(tmp_path, monkeypatch):
    """A card naming an OpenML id loads from OpenML (here: openml-python's cache) when no local copy exists."""
    import warnings

    from treebench.data import DataWarning, load

    cards = openml_env(tmp_path, monkeypatch)
    assert cli(["datasets", "add", "openml:61", "--name", "iris-oml"]) == 0
    (tmp_path / "cache" / "iris-oml.csv.gz").unlink()  # no treebench cache copy: the OpenML source is used
    (tmp_path / "cache" / "iris-oml.json").unlink()
    card = parse_card(cards / "iris-oml.yaml")
    monkeypatch.setenv(ENV_OFFLINE, "0")
    # the recorded responses hold the ARFF only: without this, openml-python would try the parquet
    # copy on OpenML's object store (retries with back-off, 12 s here; a real download when connected)
    monkeypatch.setenv("OPENML_SKIP_PARQUET", "true")
    ds = load("iris-oml")
    assert ds.source == "openml OpenML dataset 61 v1" and ds.checksum == card.checksum
    # a card naming another version: a warning, and no other source to try
    text = (cards / "iris-oml.yaml").read_text(encoding="utf-8").replace("version: 1}", "version: 2}")
    (cards / "iris-oml.yaml").write_text(text, encoding="utf-8")
    (tmp_path / "cache" / "iris-oml.csv.gz").unlink()
    (tmp_path / "cache" / "iris-oml.json").unlink()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DataWarning)
        with pytest.raises(Exception, match=r"OpenML dataset 61: is version 1, the card names version 2"):
            load("iris-oml")
    assert any("is version 1, the card names version 2" in str(w.message) for w in caught)
