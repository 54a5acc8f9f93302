"""Throughput of ``treebench run``: ``--jobs 2`` against ``--jobs 1`` on a config (issue 18 item 6).

Run with ``python benchmarks/bench_throughput.py [CONFIG] [--repeats N]`` (default
``configs/quickstart.yaml``, embedded datasets, no mirror needed).  One untimed warm-up run
fills numba's kernel cache; then the job counts are run in turn (interleaved) ``--repeats``
times, each on a fresh store in a temporary directory (``--store``), and the median
trials/s from the summary line ("... N trials/s; store ...") and the median wall seconds
(process start to exit, so start-up and import are included) are compared.  The load average
is printed beside them since the machine may be shared; the table goes to the config's marked section of
``benchmarks/results.md``.  ``--profile OUT.prof`` instead runs the driver in this process under
cProfile with a timeline (first submit, first result, waits, share of the wall spent in trials).
"""

from __future__ import annotations

import argparse
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from _measure import load_average, machine, write_section

ROOT = Path(__file__).resolve().parent.parent
TREEBENCH = Path(sys.executable).with_name("treebench")
SUMMARY = re.compile(r"finished: (\d+) done.* in ([\d.]+)s, ([\d.]+) trials/s")


def markers(config: str) -> tuple[str, str]:
    """The marked section of ``benchmarks/results.md`` that holds this config's table (one per config)."""
    name = Path(config).stem
    return f"<!-- bench_throughput {name} -->", f"<!-- /bench_throughput {name} -->"


def run(config: str, jobs: int, store: Path) -> dict:
    started = time.perf_counter()
    done = subprocess.run([str(TREEBENCH), "run", config, "--jobs", str(jobs), "--store", str(store), "--quiet"],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    match = SUMMARY.search(done.stdout + done.stderr)
    if done.returncode != 0 or not match:
        raise SystemExit(f"--jobs {jobs} failed ({done.returncode}): {(done.stdout + done.stderr)[-2000:]}")
    return {"trials": int(match[1]), "run_s": float(match[2]), "trials_s": float(match[3]), "wall_s": wall,
            "inside_s": inside_seconds(store)}


def inside_seconds(store: Path) -> float:
    """Seconds the stored trials spent inside tune + fit + predict (what more processes can share out)."""
    with sqlite3.connect(store) as db:
        row = db.execute("SELECT SUM(COALESCE(tune_seconds, 0) + COALESCE(fit_seconds, 0) + "
                         "COALESCE(predict_seconds, 0)) FROM trials").fetchone()
    return float(row[0] or 0.0)


def amdahl(wall: float, inside: float, jobs: int) -> float:
    """The best wall speed-up ``jobs`` processes can give a run of ``wall`` s with ``inside`` s in trials:
    only the trials are shared out; start-up, imports, kernel loading and bookkeeping are not."""
    serial = max(wall - inside, 0.0)
    return wall / (serial + inside / jobs)


def profile(config: str, jobs: int, out: Path) -> None:
    """Run the driver in this process under cProfile, with a timeline of trial submissions and results.

    Prints when the first trial was submitted and the first result came back, the gaps in which
    no result arrived, the driver's busy share (its own CPU seconds over the wall), the workers'
    share spent inside the trials (tune + fit + predict seconds the results report, over jobs x
    wall), and the driver's top functions by cumulative time (written in full to ``out``).
    """
    import cProfile
    import pstats

    from treebench.experiment import executors, pool
    from treebench.experiment.runner import run_experiment

    t0 = time.perf_counter()
    cpu0 = time.process_time()
    events: list[tuple[float, str]] = []
    inside = [0.0]
    cls = executors.ProcessExecutor if jobs > 1 else executors.SequentialExecutor
    submit, wait = cls.submit, cls.wait

    def timed_submit(self, trial):  # noqa: ANN001
        events.append((time.perf_counter() - t0, "submit"))
        return submit(self, trial)

    def timed_wait(self):  # noqa: ANN001
        done = wait(self)
        events.append((time.perf_counter() - t0, f"result x{len(done)}"))
        for _, result in done:
            inside[0] += sum(v or 0.0 for v in (result.tune_seconds, result.fit_seconds, result.predict_seconds))
        return done

    cls.submit, cls.wait = timed_submit, timed_wait
    if jobs > 1 and not pool.fork_supported():
        pool.prestart()  # as the CLI does (where workers cannot fork from the driver)
    with tempfile.TemporaryDirectory(prefix="bench-throughput-") as tmp:
        profiler = cProfile.Profile()
        profiler.enable()
        summary = run_experiment(config, jobs=jobs, store_path=Path(tmp) / "p.sqlite", quiet=True, echo=lambda *a, **k: None)
        profiler.disable()
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    profiler.dump_stats(str(out))
    submits = [t for t, e in events if e == "submit"]
    results = [t for t, e in events if e.startswith("result")]
    print(f"--jobs {jobs}: {summary.done} trials in {wall:.1f}s wall ({summary.done / wall:.1f} trials/s), "
          f"driver CPU {cpu:.1f}s ({100 * cpu / wall:.0f}% of the wall)")
    if results:
        gaps = sorted(((b - a, a) for a, b in zip([submits[0], *results], results)), reverse=True)[:5]
        print(f"first submit at {submits[0]:.2f}s, first result at {results[0]:.2f}s, last result at {results[-1]:.2f}s; "
              f"time inside trials (tune+fit+predict) {inside[0]:.1f}s = {100 * inside[0] / (jobs * wall):.0f}% "
              f"of {jobs} x wall")
        print("longest waits for a result (s, at s): " + ", ".join(f"{g:.2f}@{a:.1f}" for g, a in gaps))
    pstats.Stats(str(out)).sort_stats("cumulative").print_stats(18)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", nargs="?", default="configs/quickstart.yaml")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--no-write", action="store_true", help="Print only; leave results.md alone.")
    parser.add_argument("--profile", type=Path, metavar="OUT.prof",
                        help="Instead: profile the driver of each --jobs run in this process (OUT.jN.prof).")
    args = parser.parse_args()
    if args.profile:
        for jobs in args.jobs:
            profile(args.config, jobs, args.profile.with_suffix(f".j{jobs}.prof"))
        return 0
    results: dict[int, list[dict]] = {j: [] for j in args.jobs}
    with tempfile.TemporaryDirectory(prefix="bench-throughput-") as tmp:
        run(args.config, max(args.jobs), Path(tmp) / "warm.sqlite")  # numba cache warm
        for r in range(args.repeats):
            for jobs in args.jobs:
                res = run(args.config, jobs, Path(tmp) / f"j{jobs}-{r}.sqlite")
                res["load"] = os.getloadavg()[0]
                results[jobs].append(res)
                print(f"repeat {r} --jobs {jobs}: {res['trials']} trials, {res['trials_s']:.2f} trials/s, "
                      f"run {res['run_s']:.1f}s, wall {res['wall_s']:.1f}s, load1 {res['load']:.2f}", flush=True)
    med = {j: {k: statistics.median(x[k] for x in results[j]) for k in ("trials_s", "run_s", "wall_s", "inside_s")}
           for j in args.jobs}
    base = args.jobs[0]
    loads = ", ".join(f"{x['load']:.2f}" for j in args.jobs for x in results[j])
    lines = [
        f"## Throughput: `treebench run {args.config} --jobs N` (issues 18 and 27)",
        "",
        f"Measured {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC by `benchmarks/bench_throughput.py` on {machine()}; "
        f"config `{args.config}`, a fresh store per run, numba cache warm, runs interleaved, medians of "
        f"{args.repeats}. Load average (1 min) during the runs: "
        f"{loads} (load above 2 on 2 cores: "
        "the workers share the cores with other processes and the speed-up is understated).",
        "",
        "Where the time goes: `python benchmarks/bench_throughput.py --profile /tmp/run.prof` (driver under cProfile, with a submit/result timeline).",
        "",
        "| --jobs | trials/s (summary line) | run s (summary line) | wall s (incl. start-up) | speed-up trials/s "
        "| speed-up wall |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for jobs in args.jobs:
        line = (f"| {jobs} | {med[jobs]['trials_s']:.2f} | {med[jobs]['run_s']:.2f} | {med[jobs]['wall_s']:.2f} | "
                f"{med[jobs]['trials_s'] / med[base]['trials_s']:.2f} | {med[base]['wall_s'] / med[jobs]['wall_s']:.2f} |")
        lines.append(line)
        print(line)
    one = med[base]
    serial = one["wall_s"] - one["inside_s"]
    lines += ["", f"Amdahl's bound: with --jobs {base} the trials spent {one['inside_s']:.2f} s inside tune + fit + "
              f"predict (the first trial's kernel loading among them: a generous bound) of a {one['wall_s']:.2f} s command; the other {serial:.2f} s (interpreter, imports, data, "
              "kernel loading, planning, the store) is serial: no worker shares it out, so "
              + ", ".join(f"--jobs {j} can at best give {amdahl(one['wall_s'], one['inside_s'], j):.2f}x the wall"
                          for j in args.jobs if j != base) + "."]
    print(lines[-1])
    print(f"load average now {load_average()}")
    if not args.no_write:
        write_section(*markers(args.config), lines)
        print("written to benchmarks/results.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
