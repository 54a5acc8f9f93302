"""First-use compile time: CPU seconds of a fresh process with an empty kernel cache.

numba compiles treebench's kernels on first use and caches them on disk
(``treebench/kernels/kernel_cache.py``); a user pays this once per version.
Each scenario runs in its own process with ``NUMBA_CACHE_DIR`` an empty
temporary folder, and reports the process's CPU time (user + system: on a
shared machine the wall time measures the neighbours).  ``--against PATH``
runs the same scenarios on another checkout (``git worktree add /tmp/ref REV``)
in interleaved rounds, the way a change to the kernels is judged; given several
times, every round runs every checkout, each round starting one further along the
list, and each round is printed with the load average (other processes on the
cores slow a compile down: compare checkouts within a round).

Usage::

    python benchmarks/bench_first_compile.py [--repeat 3] [--against /tmp/ref [--against /tmp/ref2]]
        [--scenario batch]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_PRELUDE = """
import resource, numpy as np
from sklearn.datasets import load_iris
X, y = load_iris(return_X_y=True)
w = np.linspace(0.5, 1.5, len(y))
"""
_REPORT = """
r = resource.getrusage(resource.RUSAGE_SELF)
print(r.ru_utime + r.ru_stime)
"""

#: What each scenario fits (the body of a fresh process).
SCENARIOS: dict[str, str] = {
    # a plain tree of an additive and a row-scored criterion, with and without weights
    "batch": """
from treebench import TreeClassifier
for criterion in ("entropy", "possibilistic"):
    TreeClassifier(criterion=criterion).fit(X, y)
    TreeClassifier(criterion=criterion).fit(X, y, sample_weight=w)
""",
    # the same, then the online learner (which shares the node-split search)
    "batch+online": """
from treebench import TreeClassifier
from treebench.trees.online import OnlineTreeClassifier
for criterion in ("entropy", "possibilistic"):
    TreeClassifier(criterion=criterion).fit(X, y)
    TreeClassifier(criterion=criterion).fit(X, y, sample_weight=w)
OnlineTreeClassifier("possibilistic").fit(X, y)
""",
}


def cpu_seconds(checkout: Path, scenario: str) -> float:
    """CPU time of one fresh process running ``scenario`` on ``checkout`` with an empty kernel cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(checkout)}
        done = subprocess.run([sys.executable, "-c", _PRELUDE + SCENARIOS[scenario] + _REPORT], env=env,
                              cwd=cache, capture_output=True, text=True, check=True)
    return float(done.stdout.split()[-1])


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: accepted: an integer >= 1")
    return int(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=_positive, default=1, help="interleaved runs per scenario (default 1)")
    parser.add_argument("--against", type=Path, action="append", default=[],
                        help="another checkout to compare with, in interleaved rounds (may be repeated)")
    parser.add_argument("--scenario", choices=sorted(SCENARIOS), action="append",
                        help="only these scenarios (default: all)")
    args = parser.parse_args()
    for against in args.against:
        if not (against / "treebench" / "__init__.py").is_file():
            parser.error(f"--against {against}: not a treebench checkout (no treebench/__init__.py); "
                         "accepted: a folder made by git worktree add PATH REV")
    checkouts = {"this": ROOT}
    for number, against in enumerate(args.against):
        checkouts["against" if len(args.against) == 1 else f"against{number + 1} ({against.name})"] = against.resolve()
    names = list(checkouts)
    for scenario in args.scenario or list(SCENARIOS):
        times: dict[str, list[float]] = {name: [] for name in checkouts}
        for round_ in range(args.repeat):
            order = names[round_ % len(names):] + names[:round_ % len(names)]
            for name in order:
                times[name].append(cpu_seconds(checkouts[name], scenario))
            if len(names) > 1:
                shown = "  ".join(f"{name} {times[name][-1]:.1f}" for name in order)
                print(f"  round {round_ + 1} (load {os.getloadavg()[0]:.1f}): {shown}", flush=True)
        shown = "  ".join(f"{name} {statistics.median(t):.1f} s ({', '.join(f'{x:.1f}' for x in t)})"
                          for name, t in times.items())
        print(f"first compile, {scenario}: {shown}")


if __name__ == "__main__":
    main()
