"""Issue 39, finding 4: how often does the tie-break, not the certainty gain, choose a split?

Hypothesis
    The certainty gain ``I(C|A) - I(C)`` is piecewise linear in the class counts; with two
    classes it is twice the drop in training errors over the node size (paper 003; see
    ``treebench/criteria/certainty.py``).  Many candidate splits therefore score exactly the
    same, and the second key (``tie_break="entropy"``, treebench's reading: the paper does not
    say) rather than the certainty function picks the split at most nodes of a two-class tree.

Measurement
    Paper 003's protocol (first 80 % of the rows train, file order).  The tree is grown by the
    readable engine (``engine="python"``, which grows the compiled engine's tree), hooked so
    that at every node it records every candidate's certainty gain, for every feature.  At a
    node, the candidates *tied at the best* are those within the builder's tie tolerance of the
    best gain; the tie-break *decides* the node when two or more are tied and the split taken
    is not the first of them in (feature, candidate) order — the split ``tie_break="none"``
    would take.  Beside it, the compiled trees under both tie rules: leaves and test errors.

Run
    ``TREEBENCH_DATA=../shared/datasets .venv/bin/python investigations/certainty_ties.py``
    (about 30 s; ``--datasets wdbc,monks-2`` for fewer).  Prints a Markdown table; the
    conclusion is in docs/investigations.md.
"""

from __future__ import annotations

import argparse
import time

from treebench import TreeClassifier
from treebench.data import load
from treebench.papers.certainty.ties import PARAMS, TRAIN_FRACTION, count_ties
from treebench.sampling import ordered

#: Paper 003's datasets that have a card here (SF crime and Arcene have none), as in its config.
DATASETS = ("wdbc", "monks-1", "monks-2", "skin-segmentation", "shuttle", "optdigits", "pendigits",
            "kddcup99-10pct")
# The recorder and the node verdicts now live in the product (treebench/papers/certainty/ties.py), where paper
# 003's report counts the same numbers; this script keeps the measurement beside the compiled trees' errors.


def test_errors(X_train, y_train, X_test, y_test, tie_break: str) -> tuple[int, int]:  # noqa: ANN001
    model = TreeClassifier("certainty", tie_break=tie_break, **PARAMS).fit(X_train, y_train)
    return int((model.predict(X_test) != y_test).sum()), int(model.get_n_leaves())


def investigate(name: str) -> dict[str, object]:
    data = load(name)
    train, test = ordered(len(data.y), TRAIN_FRACTION)
    X_train, X_test = data.X.iloc[train], data.X.iloc[test]
    y_train, y_test = data.y[train], data.y[test]
    errors_entropy, leaves_entropy = test_errors(X_train, y_train, X_test, y_test, "entropy")
    errors_none, leaves_none = test_errors(X_train, y_train, X_test, y_test, "none")
    started = time.perf_counter()
    # the product's count (paper 003's report prints the same); it checks the readable tree is the compiled one
    counts = count_ties(X_train, y_train, PARAMS, expect_leaves=leaves_entropy)
    seconds = time.perf_counter() - started
    return {
        "dataset": name, "classes": len(data.classes), "train": len(train), "test": len(test),
        "splits": counts.splits,
        "tied best": counts.tied,
        "tie-break decided": counts.decided,
        "best gain 0": counts.zero_best,
        "median tied": counts.median_tied,
        "leaves entropy/none": f"{leaves_entropy} / {leaves_none}",
        "test errors entropy/none": f"{errors_entropy} / {errors_none}",
        "readable engine s": round(seconds, 1),
    }


def markdown(rows: list[dict[str, object]]) -> str:
    head = list(rows[0])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = []
        for key in head:
            value = row[key]
            if key in ("tied best", "tie-break decided", "best gain 0") and row["splits"]:
                value = f"{value} ({100 * int(value) / int(row['splits']):.0f} %)"
            cells.append(str(value))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated dataset names")
    names = [n for n in parser.parse_args().datasets.split(",") if n]
    print(markdown([investigate(name) for name in names]))


if __name__ == "__main__":
    main()
