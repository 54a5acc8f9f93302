"""What each comparable metric is: its column, direction and display scale.

The results store keeps raw values (accuracy and error as fractions, sizes as
counts, times in seconds).  Tables and tests need to know two more things per
metric: whether larger is better (which decides "best", the rank order and the
meaning of Weka's ``v``/``*`` marks) and how to display it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from treebench.errors import one_of


@dataclass(frozen=True)
class Metric:
    """A metric that ``treebench compare`` can tabulate.

    Attributes
    ----------
    name
        The name used on the command line and as the store column.
    label
        Human label for headers and axes.
    higher_is_better
        ``True`` for accuracy; ``False`` for error, sizes and times.
    scale
        Factor applied for display only (100 turns a fraction into percent).
    decimals
        Digits after the point in tables.
    unit
        Short unit shown in captions (``"%"``, ``"s"``, or empty).
    """

    name: str
    label: str
    higher_is_better: bool
    scale: float = 1.0
    decimals: int = 2
    unit: str = ""

    def better(self, a: float, b: float) -> bool:
        """Whether value ``a`` is strictly better than ``b`` for this metric."""
        return a > b if self.higher_is_better else a < b


METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        Metric("accuracy", "accuracy", True, scale=100.0, decimals=2, unit="%"),
        Metric("error", "error rate", False, scale=100.0, decimals=2, unit="%"),
        Metric("train_accuracy", "training accuracy", True, scale=100.0, decimals=2, unit="%"),
        Metric("n_leaves", "leaves", False, decimals=1),
        Metric("n_nodes", "nodes", False, decimals=1),
        Metric("depth", "depth", False, decimals=1),
        Metric("tree_quality", "tree quality (criterion's tree measure, e.g. eq. 18)", False, decimals=2),
        Metric("fit_seconds", "fit time", False, decimals=3, unit="s"),
        Metric("predict_seconds", "predict time", False, decimals=4, unit="s"),
    )
}

#: The metrics offered by ``treebench compare --metric`` (the issue's list).
COMPARE_METRICS = ("accuracy", "error", "n_leaves", "n_nodes", "fit_seconds")


def get_metric(name: str, extra: Mapping[str, Metric] | None = None) -> Metric:
    """Look a metric up by name: a fixed one, else one of ``extra``.

    ``extra`` are the measures that learners add beyond the fixed ones (a
    results frame carries their definitions in ``frame.attrs["metrics"]``).

    Raises
    ------
    TreebenchError
        For an unknown name, listing the accepted ones.
    """
    known = {**METRICS, **(extra or {})}
    try:
        return known[name]
    except KeyError:
        raise one_of(name, tuple(known), "metric") from None


def frame_metrics(frame: object) -> dict[str, Metric]:
    """The extra measures a results frame declares (``frame.attrs["metrics"]``; none if absent)."""
    attrs = getattr(frame, "attrs", None) or {}
    declared = attrs.get("metrics", {})
    return dict(declared) if isinstance(declared, Mapping) else {}


def metric_in(frame: object, name: str) -> Metric:
    """The metric ``name`` of a results frame: a fixed one or an extra measure it declares."""
    return get_metric(name, frame_metrics(frame))
