"""The model of one finished trial, fitted again: for pictures and inspection, not for scores.

A trial stores its scores and the parameter values it used, not its model.  Fitting the same
learner with those values on the same training part (the split and the seed come from the
config, as in the run) gives back the tree the trial measured; this module does that for one
dataset, algorithm, repeat and fold of a config whose store holds the trial.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from treebench.errors import TreebenchError


@dataclass
class RefittedTrial:
    """A trial's model fitted again, with what identifies it."""

    model: Any
    dataset: str
    algorithm: str
    repeat: int
    fold: int
    params: dict[str, Any]
    n_train: int


def _one_of(name: str, value: str | None, accepted: list[str]) -> str:
    if value is None:
        if len(accepted) == 1:
            return accepted[0]
        raise TreebenchError(f"say which {name} (--{name}); accepted: {', '.join(accepted)}")
    if value not in accepted:
        raise TreebenchError(f"unknown {name} {value!r}; accepted: {', '.join(accepted)}")
    return value


def refit_trial(config_path: str | Path, *, dataset: str | None = None, algorithm: str | None = None,
                repeat: int = 0, fold: int = 0) -> RefittedTrial:
    """Fit the model of the config's trial (``dataset``, ``algorithm``, ``repeat``, ``fold``) again.

    The parameters are those the stored trial used (its tuned choice included), read from the
    config's store; a config without a grid needs no store.

    Raises
    ------
    TreebenchError
        For an unknown dataset or algorithm, a split outside the protocol, or a tuned
        algorithm whose trial the store does not hold (run the config first).
    """
    from treebench.experiment.config import load_config
    from treebench.experiment.runner import plan
    from treebench.experiment.store import ResultsStore
    from treebench.experiment.trial import load_data, make_learner, outer_split, trial_labels
    from treebench.sampling import model_seed

    config = load_config(config_path)
    label = _one_of("dataset", dataset, [d.label for d in config.datasets])
    name = _one_of("algorithm", algorithm, [a.name for a in config.algorithms])
    config = replace(config, datasets=[d for d in config.datasets if d.label == label])
    found = [t for t in plan(config) if t.algorithm.name == name]
    trial = next((t for t in found if (t.repeat, t.fold) == (repeat, fold)), None)
    if trial is None:
        last = found[-1]
        raise TreebenchError(f"no split repeat {repeat}, fold {fold} of {label!r}: repeats 0..{last.repeat}, "
                             f"folds 0..{max(t.fold for t in found)}")
    params = dict(trial.algorithm.fixed_params)
    stored = None
    if Path(config.store).exists():
        with ResultsStore(config.store) as store:
            frame = store.to_frame(all_columns=True)
        mine = frame[frame["trial_key"] == trial.key] if "trial_key" in frame else frame[:0]
        rows = mine[mine["status"] == "ok"]
        stored = rows.iloc[0] if len(rows) else None
        if stored is None and len(mine):  # the run tried and failed: refitting would fail the same way
            why = " ".join(str(mine["error_text"].iloc[0] or "no error recorded").split())[:300]
            raise TreebenchError(f"{name!r} on {label!r} repeat {repeat}, fold {fold} failed in the run ({why}), "
                                 "so there is no tree to draw; accepted: a finished trial (`treebench results show "
                                 f"{config.store}` lists them)")
    points = trial.algorithm.tuning_points()
    grid_keys = set().union(*points) if points else set()
    if stored is not None and isinstance(stored.get("params"), str):
        # the grid's choice; what a learner tuned inside its own fit it tunes again the same way
        params = {**params, **{k: v for k, v in _stored_params(stored, config.store).items() if k in grid_keys}}
    elif len(points) > 1:
        raise TreebenchError(f"{name!r} tunes its parameters and {config.store} holds no finished trial of "
                             f"{label!r} repeat {repeat}, fold {fold}: run the config first")
    data = load_data(trial.dataset)
    train, _ = outer_split(trial, data)
    labels, masses = data.y, None
    if trial.label_uncertainty is not None:  # the simulated expert labels the trial learned from
        masses, labels = trial_labels(trial, data)
    learner = make_learner(trial)
    if learner.uses_label_masses:
        learner.use_label_masses(masses, data.X.index)
    seed = model_seed(trial.seed, trial.dataset.seed_name, trial.repeat, trial.fold)
    try:
        model = learner.fit_final(params, data.X.iloc[train], labels[train], seed)
    except TreebenchError:
        raise
    except (Exception, SystemExit) as exc:  # a plugin's or an estimator's own code: one line, as in a run
        from treebench.experiment.trial import describe_error

        raise TreebenchError(f"refitting {name!r} on {label!r} repeat {repeat}, fold {fold} failed: "
                             f"{describe_error(exc)}") from None
    return RefittedTrial(model, label, name, repeat, fold, params, len(train))


def _stored_params(row, store) -> dict:  # noqa: ANN001 - a store row (pandas Series) and its path
    """The parameters a stored trial ran with (its ``params`` JSON object), or one line saying why not."""
    try:
        params = json.loads(row["params"])
    except ValueError:
        params = None
    if not isinstance(params, dict):
        raise TreebenchError(f"trial {row['trial_key']} in {store}: its params {str(row['params'])[:60]!r} are not "
                             "a JSON object (the store was edited or damaged); accepted: rerun the trial "
                             "(delete its row, then treebench run)")
    return params
