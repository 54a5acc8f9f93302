"""The leaderboard's algorithms: one row per criterion (tuned and default) and per baseline.

Every registered criterion is a row, grown by its own learner with no pruning.
A criterion with a parameter of its own gets two rows: ``NAME`` tunes that
parameter by inner cross-validation on the grid of :data:`GRIDS`, and
``NAME-default`` runs the criterion's default beside it, so the gain (or cost)
of tuning is visible.  The real baselines (:data:`BASELINES`) join when their
program is present (:meth:`Learner.availability`); a missing one is listed as
not applicable with the reason, like a criterion that cannot run on a dataset.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from treebench.errors import TreebenchError, first_repeat
from treebench.leaderboard.suite import DatasetMeta

#: The documented grids of the criteria's own parameters (docs/leaderboard.md, "Grids").
GRIDS: dict[str, dict[str, list[float]]] = {
    # Tsallis q: q -> 1 is Shannon, q = 2 Gini; paper 002's optima lie between 0.5 and 9
    "tsallis": {"q": [0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]},
    "tsallis_gain_ratio": {"q": [0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]},
    # possibilistic gamma (0 < gamma < 1): paper 000's grid, log-spaced at the small end
    "possibilistic": {"gamma": [0.001, 0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9]},
    # belief-function lambda (0 <= lam <= 1): paper 004's grid
    "belief": {"lam": [0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0]},
}
#: Baselines of the board, in the page's order: treebench's C4.5 (J48's rules), then real programs.
BASELINES: dict[str, str] = {
    "c4.5": "treebench's C4.5 by Weka J48's rules (pessimistic pruning, CF 0.25, M 2)",
    "weka-j48": "Weka's J48 (Java), default options",
    "c50": "Quinlan's C5.0 program, default options",
    "sklearn-cart": "scikit-learn's DecisionTreeClassifier (Gini, unpruned)",
}
#: The row every other one is compared with for wins / ties / losses.
REFERENCE = "entropy"
#: ``--criteria`` default.
ALL = "all"


@dataclass(frozen=True)
class Algorithm:
    """One row of the leaderboard.

    Attributes
    ----------
    name
        The row's label (the config's algorithm ``name``).
    family
        What ``--criteria`` names to select it: the criterion or baseline.
    criterion, baseline
        Exactly one is set.
    grid
        The tuned grid (empty: untuned).
    description
        One line for the page.
    """

    name: str
    family: str
    criterion: str | None = None
    baseline: str | None = None
    grid: dict[str, list[Any]] = field(default_factory=dict)
    description: str = ""

    def config_entry(self) -> dict[str, Any]:
        """The algorithm's entry in a generated experiment config."""
        entry: dict[str, Any] = {"name": self.name}
        if self.criterion is not None:
            entry["criterion"] = self.criterion
        else:
            entry["baseline"] = self.baseline
        if self.grid:
            entry["grid"] = {k: list(v) for k, v in self.grid.items()}
        return entry

    @property
    def tuned(self) -> bool:
        return bool(self.grid)

    @property
    def learner_kind(self) -> str:
        """``tree``, ``mee``, ``belief``, ... for a criterion; ``baseline`` for a baseline."""
        if self.criterion is None:
            return "baseline"
        from treebench.learners.registry import learner_kind

        return learner_kind(self.criterion)


def registered_criteria() -> list[str]:
    """Every registered criterion (built-in, entry-point and imported plugins), sorted."""
    from treebench.criteria.registry import available

    return sorted(available())


def accepted_names() -> list[str]:
    """What ``--criteria`` accepts besides ``all``."""
    return [*registered_criteria(), *BASELINES]


def parse_selection(text: str) -> list[str]:
    """``all`` or a comma-separated list of criteria and baselines -> the selected families."""
    accepted = accepted_names()
    if text.strip() == ALL:
        return accepted
    chosen = [t.strip() for t in text.split(",") if t.strip()]
    if not chosen:
        raise TreebenchError(f"--criteria is empty; accepted: {ALL} or a comma-separated list of {', '.join(accepted)}")
    if ALL in chosen:  # `all` stands alone: inside a list it would read as an unknown name
        raise TreebenchError(f"--criteria {text!r}: {ALL} selects every criterion and stands alone; "
                             f"accepted: {ALL}, or a comma-separated list of {', '.join(accepted)}")
    twice = first_repeat(chosen)
    if twice is not None:
        raise TreebenchError(f"--criteria names {twice!r} twice; accepted: each criterion or baseline once")
    for name in chosen:
        if name not in accepted:
            close = difflib.get_close_matches(name, accepted, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise TreebenchError(
                f"--criteria: unknown criterion or baseline {name!r}{hint}; accepted: {ALL}, {', '.join(accepted)}"
            )
    return list(dict.fromkeys(chosen))


def _criterion_rows(name: str) -> list[Algorithm]:
    from treebench.criteria.registry import criterion_class

    cls = criterion_class(name)
    summary = str(getattr(cls, "description", "") or getattr(cls, "summary", "") or "")
    grid = GRIDS.get(name)
    if not grid:
        return [Algorithm(name, name, criterion=name, description=summary or f"criterion {name}")]
    shown = ", ".join(f"{k} in {{{', '.join(str(v) for v in values)}}}" for k, values in grid.items())
    defaults = {p.name: p.default for p in cls.all_params() if p.name in grid}
    fixed = ", ".join(f"{k} = {v}" for k, v in defaults.items())
    return [
        Algorithm(name, name, criterion=name, grid=dict(grid), description=f"{summary}; tuned: {shown}"),
        Algorithm(f"{name}-default", name, criterion=name, description=f"{summary}; untuned: {fixed}"),
    ]


def catalogue(families: list[str]) -> list[Algorithm]:
    """The rows of the selected criteria and baselines: criteria first (sorted), then baselines."""
    rows: list[Algorithm] = []
    for name in registered_criteria():
        if name in families:
            rows.extend(_criterion_rows(name))
    for name, text in BASELINES.items():
        if name in families:
            rows.append(Algorithm(name, name, baseline=name, description=text))
    return rows


def unavailable(algorithm: Algorithm) -> str | None:
    """Why a baseline cannot run on this machine (``None``: it can; criteria always can)."""
    if algorithm.baseline is None:
        return None
    from treebench.learners.registry import baseline_class

    return baseline_class(algorithm.baseline).availability()


def not_applicable(algorithm: Algorithm, meta: DatasetMeta) -> str | None:
    """Why ``algorithm`` does not apply to the dataset (``None``: it does).

    Checked before anything runs, from the learner kind's known limits:
    minimum entropy-of-error trees split finite numeric features only and
    grow a table of candidate class sets that must stay within its limit;
    a criterion states its own limits (:meth:`Criterion.dataset_limit`).
    Belief-function trees apply everywhere: a suite's crisp labels are their
    categorical masses (each example's whole mass on its class), as paper
    004's own crisp-label arm grows them.
    """
    reason = unavailable(algorithm)
    if reason:
        return f"not available here: {reason}"
    if algorithm.criterion is not None:
        from treebench.criteria.registry import get

        # the criterion's own known limit, at its default parameters (a grid point that lifts it
        # would still be refused with the rest of the row)
        reason = get(algorithm.criterion).dataset_limit(meta.classes, meta.n_nominal)
        if reason:
            return reason
    kind = algorithm.learner_kind
    if kind == "mee":
        from treebench.trees.mee import MAX_CLASS_SETS, count_class_sets

        if meta.nominal_share > 0:
            return f"{meta.n_nominal} of {meta.features} features are nominal; MEE trees split numeric features only"
        if meta.missing:
            return "missing feature values; MEE trees need finite numeric features"
        sets = count_class_sets(meta.classes, None)
        if sets > MAX_CLASS_SETS:
            return f"{meta.classes} classes give {sets:,} candidate class sets; MEE trees allow at most {MAX_CLASS_SETS:,}"
    return None
