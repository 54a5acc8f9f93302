"""Run a snippet in a fresh Python process whose kernel cache is empty, and read its JSON answer.

For tests of what a first fit compiles: in a process that loads its kernels from the cache, a
kernel called only from compiled code is never compiled, so its types and compile events are
not there to inspect.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def cold_json(code: str, folder: Path) -> Any:
    """The JSON the last line of ``code``'s output holds, run with ``folder`` as its empty kernel cache."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(folder), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=folder, capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.splitlines()[-1])
