"""Plugins: user modules or ``.py`` files that register criteria when imported.

A config's ``plugins:`` are imported by the validator and again in every
worker process before its first trial (a worker does not import the config).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import re
import sys
from pathlib import Path

from treebench.errors import TreebenchError


def import_plugin(spec: str) -> None:
    """Import a plugin: a module name, or the path of a ``.py`` file (imported once per process)."""
    if not spec.endswith(".py"):
        try:
            importlib.import_module(spec)
        except ImportError as exc:
            raise TreebenchError(f"cannot import plugin module {spec!r}: {exc}") from None
        return
    digest = hashlib.sha256(spec.encode()).hexdigest()[:10]  # stable across processes
    name = "treebench_plugin_" + re.sub(r"\W", "_", Path(spec).stem) + f"_{digest}"
    if name in sys.modules:
        return
    if not Path(spec).is_file():
        raise TreebenchError(f"plugin file {spec!r} not found")
    module_spec = importlib.util.spec_from_file_location(name, spec)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except Exception as exc:  # a user's file: report, never crash the validation
        del sys.modules[name]
        raise TreebenchError(
            f"plugin {spec!r} failed to import: {type(exc).__name__}: {exc}"
        ) from None
