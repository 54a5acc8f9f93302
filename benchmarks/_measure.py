"""Shared helpers of the benchmark scripts: peak RSS of one fit in a child process, machine
description and the marked sections of ``benchmarks/results.md``.

Peak memory: a fresh child process resets its peak resident set size
(``echo 5 > /proc/self/clear_refs``), reads its resident size, fits once, and reads the peak
(``VmHWM`` in ``/proc/self/status``); the difference is the fit's *extra* peak memory (RSS, so
allocations inside numba's compiled code, which tracemalloc cannot see, are counted;
``ru_maxrss`` is only a fallback, as a child starts with its parent's value).
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).with_name("results.md")


def status_mib(field: str) -> float | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0  # kB
    except OSError:
        pass
    return None


def reset_peak() -> bool:
    """Reset the peak RSS (VmHWM) of this process; False where Linux's clear_refs is missing."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def peak_mib() -> float:
    """Peak RSS of this address space: VmHWM (Linux), else ru_maxrss (which a child may inherit)."""
    hwm = status_mib("VmHWM")
    return hwm if hwm is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def warm_up(model, X, y) -> None:
    """Fit ``model`` once on small data, outside any timing: imports, numba compiles or cache loads.

    A treebench tree is fitted twice more, on the same rows presorted with
    uint16 and with int32 ranks: the builder is compiled once per width and
    small data takes uint16, while columns of more than 65,535 distinct values
    (the large synthetic cases) take int32 -- its compile would land in the
    timed fit.  And once on the rows repeated up to the size from which a fit
    keeps tables (another specialisation of the builder, whose loaded code
    would otherwise count in the timed fit's memory).
    """
    model.fit(X, y)
    from treebench.trees.estimator import TreeClassifier

    if isinstance(model, TreeClassifier) and getattr(model, "pruning", None) is None:
        from treebench.kernels.rank_tables import TABLES_MIN_ROWS
        from treebench.trees.builder import Presorted

        narrow = Presorted.for_fit(X, y)
        for presorted in (narrow, narrow.widened()):
            model.fit(X, y, presorted=presorted)
        # a fit of enough rows runs the builder's specialisations that keep tables: loaded here too
        copies = -(-TABLES_MIN_ROWS // max(len(y), 1))
        X_more, y_more = np.repeat(np.asarray(X), copies, axis=0), np.repeat(np.asarray(y), copies)
        more = Presorted.for_fit(X_more, y_more)
        for presorted in (more, more.widened()):
            model.fit(X_more, y_more, presorted=presorted)


def measured_fit(make, X, y, warmup_rows: int = 2000) -> dict:
    """In a (fresh) process: warm up on the first rows, then one fit with its time and extra peak RSS."""
    warm_up(make(), X[:warmup_rows], y[:warmup_rows])  # compile / import outside the measurement
    before = status_mib("VmRSS") if reset_peak() else peak_mib()
    model = make()
    started = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - started
    after = peak_mib()
    leaves = model.get_n_leaves() if hasattr(model, "get_n_leaves") else model.tree_.n_leaves
    return {"seconds": seconds, "extra_mib": after - before, "peak_mib": after, "leaves": int(leaves)}


def run_child(script: str, *args: str) -> dict:
    """Run ``python script --child ARGS`` and return the JSON of its last stdout line."""
    done = subprocess.run([sys.executable, script, "--child", *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def load_average() -> str:
    return " / ".join(f"{v:.2f}" for v in os.getloadavg())


def write_section(begin: str, end: str, lines: list[str], out: Path = RESULTS) -> None:
    """Replace (or append) the section between the markers ``begin`` and ``end``; the rest is kept."""
    text = out.read_text() if out.exists() else ""
    if begin in text and end in text:
        text = text[: text.index(begin)] + text[text.index(end) + len(end):].lstrip("\n")
    out.write_text(text.rstrip("\n") + "\n\n" + "\n".join([begin, *lines, end]) + "\n")
