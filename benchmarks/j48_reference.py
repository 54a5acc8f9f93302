"""Record Weka J48's trees on fixed splits of 15 UCI datasets: the reference of the C4.5 parity
check (issue 19, item 3).

Run with ``TREEBENCH_DATA=/path/to/mirror python benchmarks/j48_reference.py [--datasets NAME ...]``
(default: all of ``_c45_parity.DATASETS``).  Needs ``java`` on ``PATH`` and ``weka.jar``
(``TREEBENCH_WEKA_JAR`` or the usual places, as the ``weka-j48`` learner); without them it exits
with a one-line message.  Rerunning overwrites the fixtures; with the same mirror and Weka they
come out the same.

For each dataset:

1. the dataset is loaded through treebench from the mirror (nominal columns categorical,
   missing values NaN) and the mirror file's sha256 recorded, so a changed mirror is detected;
2. one stratified 70/30 split of row positions
   (``train_test_split(..., test_size=0.3, stratify=y, random_state=0)``, parts sorted);
3. J48 is trained on the training rows and predicts the test rows through the ``weka-j48``
   learner's own pieces (``Schema`` for the ARFF text, ``classifier_options``, ``run_weka``,
   ``parse_model``, ``parse_predictions``) on the command-line engine: numeric columns as
   ``NUMERIC``, categoricals as nominal attributes with their declared categories, missing as
   ``?``, the class as the training codes' indices.  Two runs: ``pruned`` (``-C 0.25 -M 2``,
   subtree raising, collapsing and the MDL correction on, as J48's defaults) and ``unpruned``
   (``-U -M 2``).

The fixture ``tests/fixtures/j48/<name>.json`` (compact JSON) holds ``dataset``, ``file``,
``sha256``, ``n_rows``, ``split`` (how it was made), ``train`` and ``test`` (row positions),
``weka_version``, ``class_values`` (the label of each ARFF class index: Weka's printed tree names
classes by these indices) and, per run, ``options``, ``tree`` (the printed tree, from
"J48 pruned tree" to "Size of the tree"), ``n_leaves``, ``tree_size``, ``predictions`` (labels of
the test rows, in ``test`` order) and ``accuracy`` (on the test rows, 0..1).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from _c45_parity import (
    DATASETS,
    RANDOM_STATE,
    TEST_SIZE,
    VARIANTS,
    accuracy,
    dataset_file,
    load_dataset,
    sha256,
    split,
    write_fixture,
)

from treebench.learners.weka import (
    Schema,
    WekaUnavailable,
    classifier_options,
    find_jar,
    find_java,
    parse_model,
    parse_predictions,
    run_weka,
    weka_version,
)

# The printed tree: from its title to the "Size of the tree" line.
_TREE = re.compile(r"^J48 (?:un)?pruned tree.*?^Size of the tree\s*:[^\n]*", re.MULTILINE | re.DOTALL)


def require_weka() -> None:
    """Exit with one line when java or the jar is missing."""
    try:
        find_java(), find_jar()
    except WekaUnavailable as err:
        raise SystemExit(f"j48_reference: {err}") from None


def tree_text(output: str) -> str:
    """The tree block of Weka's ``-t`` output (tabs kept as Weka prints them)."""
    found = _TREE.search(output)
    if found is None:
        raise RuntimeError("no 'J48 ... tree' block in Weka's output:\n" + output[-2000:])
    return found.group(0)


def run_j48(
    X_train: pd.DataFrame, y_train: np.ndarray, X_test: pd.DataFrame, params: dict[str, Any]
) -> dict[str, Any]:
    """Train J48 on ``X_train``/``y_train`` (class codes) and predict ``X_test``.

    Returns
    -------
    dict
        ``options``, ``tree``, ``n_leaves``, ``tree_size`` and ``predicted`` (the codes of
        ``y_train``'s values predicted for the test rows).
    """
    arguments = classifier_options(params, RANDOM_STATE)
    labels, codes = np.unique(np.asarray(y_train), return_inverse=True)
    # The header of the learner: built from every frame Weka will see, declared categories.
    schema = Schema.of(pd.concat([X_train, X_test], ignore_index=True), len(labels))
    with tempfile.TemporaryDirectory(prefix="treebench-j48ref-") as tmp:
        folder = Path(tmp)
        schema.write(folder / "train.arff", X_train, codes.ravel())
        output = run_weka(
            [arguments[0], "-t", "train.arff", "-no-cv", "-v", "-d", "model.bin", *arguments[1:]],
            folder,
        )
        (folder / "rows.arff").write_text(schema.text([X_test]), encoding="utf-8")
        printed = run_weka([arguments[0], "-l", "model.bin", "-T", "rows.arff", "-p", "0"], folder)
    model = parse_model(output)
    indices = parse_predictions(printed, len(X_test))
    return {
        "options": arguments[1:],
        "tree": tree_text(output),
        "n_leaves": model.n_leaves,
        "tree_size": model.n_nodes,
        "predicted": labels[indices],
    }


def j48_runs(ds: Any, train: list[int], test: list[int]) -> dict[str, dict[str, Any]]:
    """Both J48 runs (pruned, unpruned) on one split; predictions as label strings."""
    truth = [str(label) for label in ds.labels[test]]
    runs = {}
    for variant, params in VARIANTS.items():
        run = run_j48(ds.X.iloc[train], ds.y[train], ds.X.iloc[test], params)
        predictions = [ds.classes[int(c)] for c in run.pop("predicted")]
        runs[variant] = {**run, "predictions": predictions, "accuracy": accuracy(predictions, truth)}
    return runs


def reference(name: str) -> dict[str, Any]:
    """The whole fixture record of one dataset."""
    path = dataset_file(name)
    if path is None:
        raise SystemExit(f"j48_reference: no {name}.csv.gz in TREEBENCH_DATA")
    ds = load_dataset(name)
    train, test = split(ds.y)
    return {
        "dataset": name,
        "file": path.name,
        "sha256": sha256(path),
        "n_rows": ds.n_samples,
        "split": f"sklearn train_test_split(positions, test_size={TEST_SIZE}, stratify=y, "
        f"random_state={RANDOM_STATE}), parts sorted",
        "train": train,
        "test": test,
        "weka_version": weka_version(),
        "class_values": [ds.classes[int(c)] for c in np.unique(ds.y[train])],
        **j48_runs(ds, train, test),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), metavar="NAME")
    args = parser.parse_args(argv)
    require_weka()
    for name in args.datasets:
        record = reference(name)
        path = write_fixture(record)
        pruned, unpruned = record["pruned"], record["unpruned"]
        print(
            f"{name}: pruned {pruned['n_leaves']} leaves / size {pruned['tree_size']}, "
            f"acc {100 * pruned['accuracy']:.1f}; unpruned {unpruned['n_leaves']} leaves, "
            f"acc {100 * unpruned['accuracy']:.1f} -> {path.relative_to(path.parents[2])}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
