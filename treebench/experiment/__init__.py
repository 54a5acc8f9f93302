"""Experiments: config schema, protocols (splits), tuning, trials, executors, results store.

The layers talk through plain frozen dataclasses and numpy arrays:

* :mod:`~treebench.experiment.config` -- YAML -> validated :class:`Config`;
* :mod:`~treebench.experiment.protocols` -- pure ``(seed, dataset, repeat) -> splits``;
* :mod:`~treebench.experiment.tuning` -- grid search by inner stratified CV;
* :mod:`~treebench.experiment.trial` -- :class:`Trial` and ``run_trial(trial) -> Result``;
* :mod:`~treebench.experiment.executors` -- sequential, local processes, Dask;
* :mod:`~treebench.experiment.store` -- the SQLite results store (driver is the only writer);
* :mod:`~treebench.experiment.runner` -- plans trials, skips finished ones, runs the rest.

See ``docs/configs.md``.  Imports are lazy so ``treebench --help`` stays fast.
"""

from __future__ import annotations

from treebench.lazy import lazy_getattr

__all__ = ["Config", "ResultsStore", "load_config", "run_experiment"]

_LAZY = {
    "Config": "treebench.experiment.config",
    "load_config": "treebench.experiment.config",
    "ResultsStore": "treebench.experiment.store",
    "run_experiment": "treebench.experiment.runner",
}


__getattr__ = lazy_getattr('treebench.experiment', _LAZY)
