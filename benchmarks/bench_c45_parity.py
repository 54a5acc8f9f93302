"""treebench's C4.5 against Weka J48 on fixed 70/30 splits of 15 UCI datasets (issue 19, item 3).

Run with ``TREEBENCH_DATA=/path/to/mirror python benchmarks/bench_c45_parity.py``.  For each
fixture in ``tests/fixtures/j48/`` (written by ``benchmarks/j48_reference.py``), treebench's C4.5
(``_c45_parity.make_c45``) is fitted on the fixture's training rows and compared with J48
(``-C 0.25 -M 2``) on:

* **leaves** and **size** (every node, leaves included; J48's "Number of Leaves" and
  "Size of the tree", treebench's ``tree_.n_leaves`` and ``tree_.n_nodes``);
* **test accuracy** of each tree;
* **prediction agreement**: the fraction of test rows both trees predict alike;
* **identical**: same leaves, same size and 100 % prediction agreement.

Then a summary line: datasets with leaves within 10 % of J48's, mean accuracy difference
(treebench - J48, percentage points), identical trees, geometric mean leaf ratio (treebench / J48).
Issue 19 accepts parity at >= 13 of 15 within 10 % and a mean difference within 0.5 points.

Options: ``--live`` re-runs J48 (same code as ``j48_reference.py``, same splits) instead of
reading the stored results (needs Java and Weka; the fixtures' split and checksum still apply);
``--unpruned`` compares the unpruned gain-ratio tree with J48 ``-U -M 2``;
``--ordinal-as-nominal`` gives ordinal columns (car's six, one of credit-g's) to treebench as
nominal, as J48 sees every categorical (by default treebench splits them by thresholds, as in its
experiment runner); ``--datasets`` picks;
``--write`` puts the table in a marked section of ``benchmarks/results.md``.
"""

from __future__ import annotations

import argparse
import sys
from datetime import date
from typing import Any

import numpy as np
from _c45_parity import (
    Row,
    compare,
    dataset_file,
    fixture_names,
    load_dataset,
    read_fixture,
    sha256,
    summarize,
    summary_line,
    table,
)
from _measure import write_section

BEGIN, END = "<!-- bench_c45_parity -->", "<!-- /bench_c45_parity -->"


def live_record(ds: Any, record: dict[str, Any]) -> dict[str, Any]:
    """The fixture with its J48 runs replaced by fresh ones on the same split."""
    from j48_reference import j48_runs, require_weka

    require_weka()
    return {**record, **j48_runs(ds, record["train"], record["test"])}


def row(name: str, live: bool, variant: str, ordinal_as_nominal: bool = False) -> Row:
    """One dataset's comparison; exits when the mirror file is missing or changed."""
    record = read_fixture(name)
    path = dataset_file(name)
    if path is None:
        raise SystemExit(f"bench_c45_parity: no {name}.csv.gz in TREEBENCH_DATA")
    if sha256(path) != record["sha256"]:
        raise SystemExit(f"bench_c45_parity: {path} differs from the fixture's; rerun j48_reference.py")
    ds = load_dataset(name)
    return compare(ds, live_record(ds, record) if live else record, variant, ordinal_as_nominal)


def c50_result(name: str, variant: str) -> tuple[int, float] | None:
    """Quinlan's C5.0 on the fixture's split: (leaves, test accuracy), ``None`` without the binary.

    Pruned: C5.0's defaults (CF 25 %, global pruning); unpruned: ``-g`` with CF 100 %.
    """
    from treebench.learners.c50 import C50

    if C50.availability() is not None:
        return None
    record, ds = read_fixture(name), load_dataset(name)
    train, test = record["train"], record["test"]
    params = {} if variant == "pruned" else {"global_pruning": False, "CF": 100}
    learner = C50(0)
    model = learner.fit(params, ds.X.iloc[train], ds.y[train])
    predicted = np.asarray(learner.predict(model, ds.X.iloc[test]))
    accuracy = float(np.mean(predicted == np.asarray(ds.y[test])))
    return int(learner.measures(model)["n_leaves"]), accuracy


def c50_table(rows: list[Row], c50: dict[str, tuple[int, float] | None]) -> list[str]:
    """Leaves and accuracy of treebench's C4.5, J48 and C5.0 side by side."""
    lines = ["| dataset | leaves C4.5 (treebench) | leaves J48 | leaves C5.0 | acc C4.5 | acc J48 | acc C5.0 |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        leaves, acc = c50.get(r.dataset) or (None, None)
        lines.append(f"| {r.dataset} | {r.leaves} | {r.leaves_j48} | {leaves if leaves is not None else '–'} | "
                     f"{100 * r.acc:.1f} | {100 * r.acc_j48:.1f} | "
                     f"{f'{100 * acc:.1f}' if acc is not None else '–'} |")
    return lines


def report(rows: list[Row], live: bool, variant: str, ordinal_as_nominal: bool = False) -> list[str]:
    source = "live Weka run" if live else "stored J48 fixtures (tests/fixtures/j48)"
    if ordinal_as_nominal:
        source += "; ordinal columns given to treebench as nominal"
    j48 = "-U -M 2" if variant == "unpruned" else "-C 0.25 -M 2"
    return [
        f"### C4.5 parity with Weka J48 ({variant}, J48 {j48}; {source}; {date.today().isoformat()})",
        "",
        "One stratified 70/30 split per dataset (random_state=0); accuracy in % of the test rows.",
        "",
        *table(rows),
        "",
        summary_line(summarize(rows)),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=None, metavar="NAME")
    parser.add_argument("--live", action="store_true", help="re-run J48 instead of the fixtures")
    parser.add_argument("--unpruned", action="store_true", help="unpruned trees (J48 -U -M 2)")
    parser.add_argument(
        "--ordinal-as-nominal", action="store_true",
        help="give ordinal columns to treebench as nominal, as J48 sees them (car, credit-g)",
    )
    parser.add_argument("--c50", action="store_true", help="add Quinlan's C5.0 on the same splits")
    parser.add_argument("--write", action="store_true", help="write the table to benchmarks/results.md")
    args = parser.parse_args(argv)
    names = args.datasets or fixture_names()
    if not names:
        raise SystemExit("bench_c45_parity: no fixtures; run benchmarks/j48_reference.py first")
    variant = "unpruned" if args.unpruned else "pruned"
    rows = [row(name, args.live, variant, args.ordinal_as_nominal) for name in names]
    lines = report(rows, args.live, variant, args.ordinal_as_nominal)
    if args.c50:
        c50 = {name: c50_result(name, variant) for name in names}
        lines += ["", f"C4.5 (treebench), J48 and Quinlan's C5.0 ({variant}) on the same splits:", "",
                  *c50_table(rows, c50)]
    print("\n".join(lines))
    if args.write:
        begin, end = (BEGIN, END) if variant == "pruned" else (
            BEGIN.replace("parity", "parity_unpruned"), END.replace("parity", "parity_unpruned")
        )
        write_section(begin, end, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
