"""Shared helpers of the C4.5-versus-J48 parity check (issue 19, item 3).

Used by ``benchmarks/j48_reference.py`` (writes the J48 fixtures), ``benchmarks/bench_c45_parity.py``
(the comparison table) and ``tests/test_c45_parity.py`` (which puts this folder on ``sys.path``).
Nothing here needs Java.

Definitions
-----------
* **split**: one stratified 70/30 split of the row *positions*
  (``train_test_split(positions, test_size=0.3, stratify=y, random_state=0)``), each part sorted,
  so rows reach both learners in the dataset's own order.
* **leaves / size**: J48's "Number of Leaves" and "Size of the tree" (every node, leaves
  included); treebench's ``tree_.n_leaves`` and ``tree_.n_nodes``.
* **agreement**: the fraction of test rows on which both trees predict the same class.
* **identical**: same leaves, same size and 100 % agreement.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "j48"
#: The 15 UCI datasets of the parity check (all present in the shared mirror).
DATASETS = (
    "diabetes", "vehicle", "ionosphere", "iris", "yeast", "glass", "wine", "sonar", "ecoli",
    "segment", "breast-w", "vote", "soybean", "credit-g", "car",
)
#: Fixture keys of the two J48 runs and the J48 options of each.
VARIANTS = {"pruned": {"C": 0.25, "M": 2}, "unpruned": {"unpruned": True, "M": 2}}
TEST_SIZE, RANDOM_STATE = 0.3, 0
#: Acceptance criteria of issue 19: leaves within 10 % of J48's on >= 13 of 15 datasets,
#: mean test-accuracy difference within 0.5 points.
LEAF_TOLERANCE, MIN_LEAVES_WITHIN, MAX_MEAN_ACC_DIFF = 0.10, 13, 0.5


# --------------------------------------------------------------------------- the learners
def make_c45() -> Any:
    """treebench's C4.5 as compared with J48 ``-C 0.25 -M 2`` (later: the named ``c4.5`` configuration)."""
    from treebench.trees.c45 import C45Classifier

    return C45Classifier(confidence=0.25, min_samples_leaf=2)


def make_c45_unpruned() -> Any:
    """treebench's unpruned gain-ratio tree, compared with J48 ``-U -M 2``."""
    from treebench.trees.c45 import C45Classifier

    return C45Classifier(unpruned=True, min_samples_leaf=2)


MAKERS = {"pruned": make_c45, "unpruned": make_c45_unpruned}


# --------------------------------------------------------------------------- data and split
def mirror_folders() -> list[Path]:
    """The folders of ``TREEBENCH_DATA`` (a path list); empty when it is not set."""
    return [Path(p) for p in os.environ.get("TREEBENCH_DATA", "").split(os.pathsep) if p.strip()]


def dataset_file(name: str) -> Path | None:
    """``<name>.csv.gz`` in the first mirror folder holding it, else ``None``."""
    for folder in mirror_folders():
        path = folder / f"{name}.csv.gz"
        if path.is_file():
            return path
    return None


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_dataset(name: str) -> Any:
    """The dataset as treebench loads it (nominal columns categorical), from the mirror only.

    A private empty cache and offline mode make sure the rows come from the mirror file whose
    checksum the fixture records, not from a cached or downloaded copy.
    """
    from treebench.data import load
    from treebench.data.settings import Settings

    with tempfile.TemporaryDirectory(prefix="treebench-parity-") as cache:
        ds = load(name, settings=Settings.from_env(cache_dir=Path(cache), offline=True))
    if not ds.source.startswith("mirror"):
        raise RuntimeError(f"{name}: expected the mirror copy, got {ds.source}")
    return ds


def split(y: np.ndarray) -> tuple[list[int], list[int]]:
    """The fixed stratified 70/30 split of row positions (each part sorted)."""
    from sklearn.model_selection import train_test_split

    train, test = train_test_split(
        np.arange(len(y)), test_size=TEST_SIZE, stratify=y, random_state=RANDOM_STATE
    )
    return sorted(int(i) for i in train), sorted(int(i) for i in test)


def accuracy(predicted: Iterable[str], truth: Iterable[str]) -> float:
    pairs = list(zip(predicted, truth, strict=True))
    return sum(p == t for p, t in pairs) / len(pairs)


# --------------------------------------------------------------------------- fixtures
def fixture_path(name: str) -> Path:
    return FIXTURES / f"{name}.json"


def read_fixture(name: str) -> dict[str, Any]:
    return json.loads(fixture_path(name).read_text(encoding="utf-8"))


def write_fixture(record: dict[str, Any]) -> Path:
    """Compact JSON (one line; the tree text keeps its newlines as ``\\n``)."""
    path = fixture_path(record["dataset"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, separators=(",", ":")) + "\n", encoding="utf-8")
    return path


def fixture_names() -> list[str]:
    """Datasets with a fixture, in :data:`DATASETS` order, then any others."""
    present = {p.stem for p in FIXTURES.glob("*.json")}
    return [n for n in DATASETS if n in present] + sorted(present - set(DATASETS))


# --------------------------------------------------------------------------- comparison
@dataclass(frozen=True)
class Row:
    """One dataset: treebench's tree against J48's on the same split."""

    dataset: str
    leaves: int
    leaves_j48: int
    size: int
    size_j48: int
    acc: float  # test accuracy, 0..1
    acc_j48: float
    agreement: float  # fraction of test rows predicted alike

    @property
    def identical(self) -> bool:
        return self.leaves == self.leaves_j48 and self.size == self.size_j48 and self.agreement == 1.0

    @property
    def leaves_within(self) -> bool:
        return abs(self.leaves - self.leaves_j48) <= LEAF_TOLERANCE * self.leaves_j48


def as_nominal(X: pd.DataFrame) -> pd.DataFrame:
    """Ordered categoricals made unordered: J48 sees every categorical as nominal (multiway)."""
    ordered = [c for c in X.columns if isinstance(X[c].dtype, pd.CategoricalDtype) and X[c].dtype.ordered]
    return X.assign(**{c: X[c].cat.as_unordered() for c in ordered}) if ordered else X


def fit_treebench(
    ds: Any, train: list[int], test: list[int], variant: str = "pruned", ordinal_as_nominal: bool = False
) -> tuple[Any, list[str]]:
    """Fit on the training rows (class codes, so the class order is J48's); test predictions as labels.

    ``ordinal_as_nominal`` hands ordinal columns (car, one of credit-g) to treebench as nominal,
    as J48 gets them; by default treebench gets the dataset as its runner does (threshold splits).
    """
    X = as_nominal(ds.X) if ordinal_as_nominal else ds.X
    model = MAKERS[variant]()
    model.fit(X.iloc[train], ds.y[train])
    codes = np.asarray(model.predict(X.iloc[test]), dtype=np.int64)
    return model, [ds.classes[c] for c in codes]


def compare(
    ds: Any, record: dict[str, Any], variant: str = "pruned", ordinal_as_nominal: bool = False
) -> Row:
    """treebench's tree against the stored (or live) J48 ``record[variant]``."""
    j48 = record[variant]
    model, predicted = fit_treebench(ds, record["train"], record["test"], variant, ordinal_as_nominal)
    truth = [str(label) for label in ds.labels[record["test"]]]
    return Row(
        dataset=record["dataset"],
        leaves=int(model.tree_.n_leaves),
        leaves_j48=int(j48["n_leaves"]),
        size=int(model.tree_.n_nodes),
        size_j48=int(j48["tree_size"]),
        acc=accuracy(predicted, truth),
        acc_j48=float(j48["accuracy"]),
        agreement=accuracy(predicted, j48["predictions"]),
    )


@dataclass(frozen=True)
class Summary:
    n: int
    leaves_within: int
    mean_acc_diff: float  # treebench - J48, percentage points
    identical: int
    geomean_leaf_ratio: float  # treebench / J48

    @property
    def accepted(self) -> bool:
        return self.leaves_within >= MIN_LEAVES_WITHIN and abs(self.mean_acc_diff) <= MAX_MEAN_ACC_DIFF


def summarize(rows: list[Row]) -> Summary:
    logs = [math.log(r.leaves / r.leaves_j48) for r in rows]
    return Summary(
        n=len(rows),
        leaves_within=sum(r.leaves_within for r in rows),
        mean_acc_diff=100.0 * float(np.mean([r.acc - r.acc_j48 for r in rows])),
        identical=sum(r.identical for r in rows),
        geomean_leaf_ratio=math.exp(float(np.mean(logs))),
    )


def table(rows: list[Row]) -> list[str]:
    """The Markdown table, one line per dataset."""
    lines = [
        "| dataset | leaves treebench | leaves J48 | size treebench | size J48 | acc treebench | acc J48 | prediction agreement | identical |",
        "|---|---:|---:|---:|---:|---:|---:|---:|:---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.dataset} | {r.leaves} | {r.leaves_j48} | {r.size} | {r.size_j48} | "
            f"{100 * r.acc:.1f} | {100 * r.acc_j48:.1f} | {100 * r.agreement:.1f} % | "
            f"{'yes' if r.identical else 'no'} |"
        )
    return lines


def summary_line(s: Summary) -> str:
    return (
        f"Leaves within {LEAF_TOLERANCE:.0%} of J48's: {s.leaves_within}/{s.n} "
        f"(need {MIN_LEAVES_WITHIN}); mean accuracy difference (treebench - J48): "
        f"{s.mean_acc_diff:+.2f} points (need within ±{MAX_MEAN_ACC_DIFF}); identical trees: "
        f"{s.identical}/{s.n}; geometric mean leaf ratio: {s.geomean_leaf_ratio:.2f}"
    )


def leaves_report(rows: list[Row]) -> str:
    """Per-dataset leaves, for an assertion message."""
    return "; ".join(
        f"{r.dataset}: {r.leaves} vs {r.leaves_j48}{'' if r.leaves_within else ' (off)'}" for r in rows
    )
