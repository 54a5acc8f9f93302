"""C4.5 parity with Weka J48 on stored J48 outputs (issue 19, item 3); no Java needed.

The fixtures in ``tests/fixtures/j48/`` come from ``benchmarks/j48_reference.py``; the helpers
(``make_c45``, the split, the comparison) from ``benchmarks/_c45_parity.py``, shared with
``benchmarks/bench_c45_parity.py``.  Tests that read the datasets skip without ``TREEBENCH_DATA``
or without the dataset's file in it.
"""

from __future__ import annotations

import math
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import _c45_parity as parity  # noqa: E402

NAMES = parity.fixture_names()


def mirror_dataset(name: str):
    """The dataset file and the loaded dataset, or a skip saying what is missing."""
    if not parity.mirror_folders():
        pytest.skip("TREEBENCH_DATA is not set (the dataset mirror)")
    path = parity.dataset_file(name)
    if path is None:
        pytest.skip(f"no {name}.csv.gz in TREEBENCH_DATA")
    return path, parity.load_dataset(name)


def test_every_parity_dataset_has_a_fixture():
    assert NAMES[: len(parity.DATASETS)] == list(parity.DATASETS)


@pytest.mark.parametrize("name", NAMES)
def test_fixture_is_well_formed(name):
    record = parity.read_fixture(name)
    assert record["dataset"] == name and record["weka_version"].startswith("Weka ")
    for variant in parity.VARIANTS:
        run = record[variant]
        assert len(run["predictions"]) == len(record["test"])
        assert set(run["predictions"]) <= set(record["class_values"])
        # the stored counts are the ones printed under the stored tree
        assert re.search(rf"Number of Leaves\s*:\s*{run['n_leaves']}\b", run["tree"])
        assert re.search(rf"Size of the tree\s*:\s*{run['tree_size']}$", run["tree"])
        assert 1 <= run["n_leaves"] <= run["tree_size"]
    assert record["pruned"]["options"] == ["-C", "0.25", "-M", "2"]
    assert record["unpruned"]["options"] == ["-U", "-M", "2"]


@pytest.mark.parametrize("name", NAMES)
def test_fixture_matches_the_mirror(name):
    path, ds = mirror_dataset(name)
    record = parity.read_fixture(name)
    assert parity.sha256(path) == record["sha256"], f"{path} changed; rerun benchmarks/j48_reference.py"
    train, test = record["train"], record["test"]
    n = ds.n_samples
    assert record["n_rows"] == n
    assert sorted(train + test) == list(range(n))  # a partition of the rows
    assert len(test) == math.ceil(parity.TEST_SIZE * n)
    # stratified: every class's training share is 70 % of its rows, to within one row
    everywhere, in_train = Counter(ds.y.tolist()), Counter(ds.y[train].tolist())
    for code, count in everywhere.items():
        assert abs(in_train[code] - (1 - parity.TEST_SIZE) * count) <= 1, ds.classes[code]
    assert (train, test) == parity.split(ds.y)  # the split is the documented one
    assert record["class_values"] == [ds.classes[c] for c in sorted(in_train)]
    truth = [str(label) for label in ds.labels[test]]
    for variant in parity.VARIANTS:
        run = record[variant]
        assert run["accuracy"] == parity.accuracy(run["predictions"], truth)


def test_c45_leaves_and_accuracy_match_j48():
    rows = []
    for name in parity.DATASETS:
        _, ds = mirror_dataset(name)
        rows.append(parity.compare(ds, parity.read_fixture(name)))
    summary = parity.summarize(rows)
    assert summary.accepted, f"{parity.summary_line(summary)}\nleaves treebench vs J48: {parity.leaves_report(rows)}"
