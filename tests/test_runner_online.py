"""O-ΠTree in experiments: ``online: true`` tunes γ with online trees and grows the tree online;
``tune_online: false`` tunes it with batch trees instead (paper 000's other reading)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from treebench.errors import TreebenchError
from treebench.experiment.config import load_config
from treebench.experiment.runner import run_experiment
from treebench.experiment.store import ResultsStore

CONFIG = """
experiment: online
seed: 5
datasets: [wine]
protocol: {type: cv, folds: 3, repeats: 1}
tuning: {folds: 3}
algorithms:
  - name: PiTree
    criterion: possibilistic
    grid: {gamma: [0.01, 0.1, 0.4]}
  - name: O-PiTree-batch
    criterion: possibilistic
    online: true
    tune_online: false
    grid: {gamma: [0.01, 0.1, 0.4]}
  - name: O-PiTree
    criterion: possibilistic
    online: true
    grid: {gamma: [0.01, 0.1, 0.4]}
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "online.yaml"
    path.write_text(text)
    return path


def test_online_algorithms_run_and_batch_tuning_differs_from_batch_only_in_the_final_fit(tmp_path):
    store = tmp_path / "online.sqlite"
    summary = run_experiment(write(tmp_path, CONFIG), store_path=store, quiet=True, echo=lambda _: None)
    assert summary.failed == 0 and summary.done == 9
    with ResultsStore(store) as results:
        frame = results.to_frame(all_columns=True).sort_values(["algorithm", "fold"])
    by = {name: frame[frame.algorithm == name] for name in ("PiTree", "O-PiTree-batch", "O-PiTree")}
    # tuned with batch trees: the same inner CV picks the same gamma as PiTree's
    assert list(by["PiTree"]["chosen"]) == list(by["O-PiTree-batch"]["chosen"])
    for online in (by["O-PiTree-batch"], by["O-PiTree"]):
        assert all(json.loads(c)["gamma"] in (0.01, 0.1, 0.4) for c in online["chosen"])
        assert (online["accuracy"] > 0.6).all() and online["tree_quality"].notna().all()
    # stored under their own keys: the online flag and the tuning are part of what a trial is
    keys = [set(f["trial_key"]) for f in by.values()]
    assert all(a.isdisjoint(b) for i, a in enumerate(keys) for b in keys[i + 1:])


def test_the_key_tells_online_tuning_from_batch_tuning():
    from dataclasses import replace

    from treebench.experiment.specs import AlgorithmSpec, DatasetSpec, ProtocolSpec, TuningSpec
    from treebench.experiment.trial import trial_key

    tuned_online = AlgorithmSpec("o", criterion="possibilistic", grid=(("gamma", (0.1, 0.9)),), online=True)
    batch_tuned = replace(tuned_online, tune_online=False)
    assert tuned_online.tune_online  # the default of online: true
    # batch-tuned trials keep the fields (so the keys) every stored O-PiTree trial was made with
    assert "tune_online" not in batch_tuned.fields() and batch_tuned.fields()["online"] is True
    assert tuned_online.fields() == {**batch_tuned.fields(), "tune_online": True}
    # batch trees are untouched by the flag
    batch = AlgorithmSpec("b", criterion="possibilistic", grid=(("gamma", (0.1, 0.9)),))
    assert batch.fields() == replace(batch, tune_online=False).fields()
    data = DatasetSpec("wine", "wine", ProtocolSpec("cv"))
    key = {a: trial_key("x", data, "c", a, TuningSpec(), 1, 0, 0) for a in (tuned_online, batch_tuned)}
    assert key[tuned_online] != key[batch_tuned]


@pytest.mark.parametrize(
    "algorithm, message",
    [
        ("{name: X, baseline: sklearn-cart, online: true}", "online trees need a 'criterion'"),
        ("{name: X, criterion: entropy, online: true, pruning: pessimistic}", "online trees are not pruned"),
        ("{name: X, criterion: entropy, online: yes please}", "online"),
        ("{name: X, criterion: entropy, tune_online: false}", "tune_online applies to online trees only"),
        ("{name: X, criterion: entropy, online: true, tune_online: sometimes}", "tune_online"),
    ],
)
def test_online_config_errors(tmp_path, algorithm, message):
    text = CONFIG.split("algorithms:")[0] + f"algorithms:\n  - {algorithm}\n"
    with pytest.raises(TreebenchError, match=message):
        load_config(write(tmp_path, text))
