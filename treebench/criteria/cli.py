"""``treebench criteria list`` and ``treebench criteria eval``."""

from __future__ import annotations

import json
from pathlib import Path

import click
import numpy as np

from treebench.criteria import available, criterion_class, get
from treebench.criteria.base import Criterion
from treebench.criteria.guard import is_user_class
from treebench.criteria.plugins import require_criteria
from treebench.errors import TreebenchError

_PLUGIN_HELP = "A .py file or module that registers criteria (repeatable)."


def load_plugins(specs: tuple[str, ...]) -> None:
    """Import every ``--plugin``: a ``.py`` file (relative to the working directory) or a module name."""
    for spec in specs:  # one registering nothing is refused: the listing would look complete without it
        require_criteria(str(Path(spec).resolve()) if spec.endswith(".py") else spec, spec)


@click.group()
def criteria() -> None:
    """Inspect and evaluate split criteria."""


@criteria.command("list")
@click.option("--plugin", "plugins", multiple=True, metavar="FILE", help=_PLUGIN_HELP)
def list_criteria(plugins: tuple[str, ...]) -> None:
    """List the registered criteria with their parameters and valid ranges."""
    load_plugins(plugins)
    rows = []
    for name in available():
        cls = criterion_class(name)
        params = "; ".join(f"{p.describe()} (default {p.default})" for p in cls.all_params())
        rows.append((name, cls.summary, cls.paper, params))
    widths = [max(len(r[i]) for r in rows + [("name", "what", "paper", "parameters")]) for i in range(3)]
    header = ("name", "what", "paper", "parameters")
    click.echo("  ".join(h.ljust(w) for h, w in zip(header, widths)) + "  parameters")
    for row in rows:
        click.echo("  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[3])


#: What a count vector may hold, for error messages.
_COUNTS_ACCEPTED = "accepted: whole numbers >= 0 separated by commas, one per class, e.g. 5,2,3"


def parse_counts(text: str, what: str, allow_empty: bool = False) -> np.ndarray:
    """Parse ``"5,2,3"`` into a count vector (float64 holding whole numbers).

    Counts are numbers of training rows: whole and non-negative.  A node
    holds at least one row, so an all-zero vector is refused unless
    ``allow_empty`` (a branch of a multiway split may be empty).

    Raises
    ------
    TreebenchError
        One line naming ``what``, the text and the accepted form.
    """
    if not text.strip():
        raise TreebenchError(f"{what} is empty; {_COUNTS_ACCEPTED}")
    cells = [cell.strip() for cell in text.split(",")]
    if not all(cells):
        raise TreebenchError(f"{what} {text!r} has an empty count; {_COUNTS_ACCEPTED}")
    try:
        values = np.array([float(cell) for cell in cells], dtype=float)
    except ValueError:
        raise TreebenchError(f"{what} {text!r} is not a comma-separated list of numbers; {_COUNTS_ACCEPTED}") from None
    bad = [cell for cell, v in zip(cells, values) if not (np.isfinite(v) and v >= 0 and float(v).is_integer())]
    if bad:
        raise TreebenchError(f"{what} {text!r} holds {bad[0]!r}, not a count; {_COUNTS_ACCEPTED}")
    if not allow_empty and values.sum() == 0:
        raise TreebenchError(f"{what} {text!r} counts no row (a node holds at least one); {_COUNTS_ACCEPTED}")
    return values


def parse_children(text: str, n_classes: int) -> np.ndarray:
    """Parse ``"2,0;0,2"`` (branches separated by ``;``) into shape ``(1, r, k)``;
    several candidates may be separated by ``|``."""
    candidates = []
    for candidate in text.split("|"):
        # one branch of a multiway split may be empty (a category absent from the node)
        rows = [parse_counts(row, "children branch", allow_empty=True) for row in candidate.split(";")]
        for row in rows:
            if row.size != n_classes:
                raise TreebenchError(
                    f"children branch has {row.size} counts; --counts has {n_classes} classes"
                )
        candidates.append(rows)
    if len({len(c) for c in candidates}) != 1:
        raise TreebenchError("every candidate in --children must have the same number of branches")
    return np.array(candidates, dtype=float)


def parse_params(pairs: tuple[str, ...]) -> dict[str, str]:
    params = {}
    for pair in pairs:
        if "=" not in pair:
            raise TreebenchError(f"--param {pair!r} is not NAME=VALUE, e.g. --param gamma=0.05")
        key, value = pair.split("=", 1)
        params[key.strip()] = value.strip()
    return params


@criteria.command("eval")
@click.argument("name")
@click.option("--counts", required=True, help="Class counts of the node, e.g. 5,2,3.")
@click.option("--param", "params", multiple=True, help="Criterion parameter NAME=VALUE (repeatable).")
@click.option("--children", default=None, help='Branch counts of a split, e.g. "2,0,1;3,2,2"; candidates separated by "|".')
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.option("--digits", default=4, show_default=True, type=click.IntRange(0, 17), help="Decimals shown.")
@click.option("--plugin", "plugins", multiple=True, metavar="FILE", help=_PLUGIN_HELP)
def eval_criterion(
    name: str, counts: str, params: tuple[str, ...], children: str | None, as_json: bool, digits: int,
    plugins: tuple[str, ...],
) -> None:
    """Print the node value of NAME for --counts and, with --children, split scores."""
    load_plugins(plugins)
    criterion = get(name, **parse_params(params))
    parent = parse_counts(counts, "--counts")
    try:
        result = _evaluate(criterion, parent, children)
    except TreebenchError:
        raise
    except (Exception, SystemExit) as exc:  # a user criterion's own code failed: one line, never an exit 0
        if not is_user_class(type(criterion)):
            raise
        what = f"SystemExit({exc.code!r})" if isinstance(exc, SystemExit) else type(exc).__name__
        text = " ".join(str(exc).split()) if not isinstance(exc, SystemExit) else "it called sys.exit"
        raise TreebenchError(f"criterion {criterion.name!r} failed: {what}: {text}") from None
    if as_json:
        click.echo(json.dumps(result, indent=2))
        return
    _print(criterion, parent, result, children is not None, digits)


def _evaluate(criterion: Criterion, parent: np.ndarray, children: str | None) -> dict:
    """The node value of ``parent`` and, with ``children``, the scores of each candidate."""
    result: dict = {"criterion": criterion.name, "params": criterion.values, "counts": parent.tolist()}
    result["node_value"] = criterion.node_value(parent)
    if children is not None:
        branches = parse_children(children, parent.size)
        sums = branches.sum(axis=1)
        mismatch = ~np.isclose(sums, parent[None, :]).all(axis=1)
        if mismatch.any():
            bad = int(np.flatnonzero(mismatch)[0])
            raise TreebenchError(
                f"children of candidate {bad + 1} sum to {sums[bad].tolist()}, not to --counts {parent.tolist()}"
            )
        split = criterion.split_scores(parent, branches)
        candidate = criterion.candidate_scores(parent, branches)
        result["children"] = branches.tolist()
        result["child_values"] = [[criterion.node_value(row) for row in c] for c in branches]
        result["split_score"] = split.tolist()
        if not np.allclose(candidate, split, equal_nan=True):
            result["candidate_score"] = candidate.tolist()
        result["accepts"] = [criterion.accepts(float(s)) for s in split]
        from treebench.criteria.certainty import Certainty  # numba: not at start-up

        if isinstance(criterion, Certainty):
            result["raises_certainty"] = criterion.raises_certainty(parent, branches).tolist()
    return result


def _print(criterion: Criterion, parent: np.ndarray, result: dict, children: bool, digits: int) -> None:
    fmt = f"{{:.{digits}f}}"
    args = ", ".join(f"{k}={v}" for k, v in criterion.values.items())
    click.echo(f"criterion:   {criterion.name} ({args})")
    click.echo(f"counts:      {_ints(parent)}")
    click.echo(f"node value:  {fmt.format(result['node_value'])}")
    if not children:
        return
    for i, branch_set in enumerate(result["children"]):
        label = f"candidate {i + 1}" if len(result["children"]) > 1 else "split"
        values = ", ".join(fmt.format(v) for v in result["child_values"][i])
        click.echo(f"{label}:  branches {' | '.join(_ints(np.array(b)) for b in branch_set)}")
        click.echo(f"  child values:    {values}")
        click.echo(f"  split score:     {fmt.format(result['split_score'][i])}")
        if "candidate_score" in result:
            click.echo(f"  candidate score: {fmt.format(result['candidate_score'][i])} (ranks thresholds within a feature)")
        click.echo(f"  accepted:        {'yes' if result['accepts'][i] else 'no'}")
        if "raises_certainty" in result:
            click.echo(f"  raises certainty (I(C|A) > I(C)): {'yes' if result['raises_certainty'][i] else 'no'}")


def _ints(values: np.ndarray) -> str:
    return ",".join(str(int(v)) if float(v).is_integer() else str(v) for v in values)
