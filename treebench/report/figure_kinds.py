"""Figure kinds of a paper's report, by name: ``leaves``, ``cd``, ``param``.

A :class:`~treebench.report.spec.Figure` names its kind; the report draws it
with the function registered under that name (:data:`FIGURE_KINDS`), called
as ``draw(frame, base, options)`` with the path without suffix and the
figure's options, returning the files written (PNG first).  A new kind is
one function::

    @figure_kind("violin", options=("metric",))
    def violin(frame, base, options): ...

``options`` are the settings the kind accepts and ``required`` those it
needs: a paper folder is checked against them when it is loaded
(:mod:`treebench.papers.folder`), so a misspelt option is a line-numbered
error there, not a figure silently drawn with its default.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from treebench.report.registry import Registry

if TYPE_CHECKING:
    import pandas as pd

#: ``draw(frame, base, options) -> [png, svg, ...]``.
Draw = Callable[["pd.DataFrame", Path, dict[str, Any]], list[Path]]


#: Figure kind name -> its drawing function (with attributes ``options`` and ``required``).
FIGURE_KINDS: Registry[Draw] = Registry("figure kind")


def figure_kind(name: str, options: tuple[str, ...] = (), required: tuple[str, ...] = ()) -> Callable[[Draw], Draw]:
    """Decorator: register ``draw`` as figure kind ``name`` taking ``options`` (``required`` among them)."""

    def wrap(draw: Draw) -> Draw:
        draw.options, draw.required = tuple(options), tuple(required)  # type: ignore[attr-defined]
        return FIGURE_KINDS.register(name)(draw)

    return wrap


def figure_options(kind: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The options figure kind ``kind`` accepts and those it requires."""
    draw = FIGURE_KINDS.get(kind)
    return tuple(getattr(draw, "options", ())), tuple(getattr(draw, "required", ()))


def draw_figure(kind: str, frame: pd.DataFrame, base: Path, options: dict[str, Any]) -> list[Path]:
    """Draw one figure of kind ``kind``; an unknown kind is a :class:`~treebench.errors.TreebenchError`."""
    return FIGURE_KINDS.get(kind)(frame, base, options)


@figure_kind("leaves", options=("metric",))
def leaves(frame: pd.DataFrame, base: Path, options: dict[str, Any]) -> list[Path]:
    """Grouped bars of a size metric per dataset (default ``n_leaves``)."""
    from treebench.report.plots import plot_leaves

    return plot_leaves(frame, base, metric=options.get("metric", "n_leaves"))


@figure_kind("cd", options=("metric",))
def cd(frame: pd.DataFrame, base: Path, options: dict[str, Any]) -> list[Path]:
    """Critical-difference diagram of the ranks on ``metric`` (default ``accuracy``)."""
    from treebench.report.plots import plot_cd

    return plot_cd(frame, base, metric=options.get("metric", "accuracy"))


@figure_kind("param", options=("param", "dataset"), required=("param",))
def param(frame: pd.DataFrame, base: Path, options: dict[str, Any]) -> list[Path]:
    """Metrics against the hyperparameter ``param`` (on ``dataset`` when given)."""
    from treebench.report.plots import plot_param

    return plot_param(frame, base, param=options["param"], dataset=options.get("dataset"))
