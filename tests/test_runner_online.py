"""O-ΠTree in experiments: ``online: true`` tunes with batch trees, then grows the tree online."""

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
  - name: O-PiTree
    criterion: possibilistic
    online: true
    grid: {gamma: [0.01, 0.1, 0.4]}
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "online.yaml"
    path.write_text(text)
    return path


def test_online_algorithm_runs_and_differs_from_batch_only_in_the_final_fit(tmp_path):
    store = tmp_path / "online.sqlite"
    summary = run_experiment(write(tmp_path, CONFIG), store_path=store, quiet=True, echo=lambda _: None)
    assert summary.failed == 0 and summary.done == 6
    with ResultsStore(store) as results:
        frame = results.to_frame(all_columns=True).sort_values(["algorithm", "fold"])
    batch, online = frame[frame.algorithm == "PiTree"], frame[frame.algorithm == "O-PiTree"]
    # the same inner CV picks the same gamma for both
    assert list(batch["chosen"]) == list(online["chosen"])
    assert all(json.loads(c)["gamma"] in (0.01, 0.1, 0.4) for c in online["chosen"])
    assert (online["accuracy"] > 0.6).all() and online["tree_quality"].notna().all()
    # stored under their own keys: the online flag is part of what a trial is
    assert set(batch["trial_key"]).isdisjoint(online["trial_key"])


@pytest.mark.parametrize(
    "algorithm, message",
    [
        ("{name: X, baseline: sklearn-cart, online: true}", "online trees need a 'criterion'"),
        ("{name: X, criterion: entropy, online: true, pruning: pessimistic}", "online trees are not pruned"),
        ("{name: X, criterion: entropy, online: yes please}", "online"),
    ],
)
def test_online_config_errors(tmp_path, algorithm, message):
    text = CONFIG.split("algorithms:")[0] + f"algorithms:\n  - {algorithm}\n"
    with pytest.raises(TreebenchError, match=message):
        load_config(write(tmp_path, text))
