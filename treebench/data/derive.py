"""Derived datasets: declarative operations applied to a loaded base dataset.

Operations (each a one-key mapping in the card's ``operations`` list, applied
in order):

``drop_classes: [a, b]``
    Remove the rows of these classes and the classes themselves.
``merge_classes: {new: [a, b]}``
    Relabel a and b as ``new``; ``new`` takes the place of the first member.
``select_rows: {column: split, equals: train}`` (or ``in: [...]``)
    Keep matching rows; the class list is unchanged so that train and test
    parts of one dataset share their class codes.
``target_column: region``
    Use a non-feature column as the target; the old target becomes a
    non-feature column (never a feature: it would leak the label).
``drop_columns: [a]``
    Remove features or non-feature columns.

Category levels of the base are kept, so every part of a split codes a
category the same way.
"""

from __future__ import annotations

from treebench.data.build import Table
from treebench.data.cards import Card, Operation
from treebench.data.labels import as_label, natural_order
from treebench.errors import TreebenchError


def derive(card: Card, base: Table) -> Table:
    """Apply ``card.operations`` to ``base`` and return the new table.

    Raises
    ------
    TreebenchError
        An operation names a class or column the base does not have, or
        selects no row.
    """
    table = Table(
        frame=base.frame.copy(),
        features=list(base.features),
        kinds=dict(base.kinds),
        extras=list(base.extras),
        target=base.target,
        classes=list(base.classes),
    )
    for step, op in enumerate(card.operations):
        where = f"{card.display_path}: operations[{step}] {op.kind}"
        table = _APPLY[op.kind](table, op, where)
    if card.classes is not None:
        if set(card.classes) != set(table.classes):
            raise TreebenchError(
                f"{card.display_path}: field 'classes' ({', '.join(card.classes)}) does not match "
                f"the derived classes ({', '.join(table.classes)})"
            )
        table.classes = list(card.classes)
    table.frame = table.frame.reset_index(drop=True)
    return table


def _known_classes(table: Table, names: tuple[str, ...], where: str) -> None:
    for name in names:
        if name not in table.classes:
            raise TreebenchError(f"{where}: no class {name!r}; classes: {', '.join(table.classes)}")


def _drop_classes(table: Table, op: Operation, where: str) -> Table:
    _known_classes(table, op.args, where)
    keep = ~table.frame[table.target].isin(op.args).to_numpy()
    table.frame = table.frame[keep]
    table.classes = [c for c in table.classes if c not in op.args]
    if not table.classes:
        raise TreebenchError(f"{where}: no class left")
    return table


def _merge_classes(table: Table, op: Operation, where: str) -> Table:
    for new, members in op.args.items():
        _known_classes(table, members, where)
        if new in table.classes and new not in members:
            raise TreebenchError(f"{where}: merged class {new!r} already exists")
        labels = table.frame[table.target]
        table.frame[table.target] = labels.where(~labels.isin(members), new)
        first = min(table.classes.index(m) for m in members)
        classes = [c for c in table.classes if c not in members]
        classes.insert(min(first, len(classes)), new)
        table.classes = classes
    return table


def _select_rows(table: Table, op: Operation, where: str) -> Table:
    column, values = op.args["column"], op.args["values"]
    if column == table.target:
        values_present = table.frame[column]
    elif column in table.extras or column in table.features:
        values_present = table.frame[column]
    else:
        raise TreebenchError(
            f"{where}: no column {column!r}; columns: {', '.join(table.features + table.extras)}"
        )
    text = values_present.map(lambda v: None if v is None or v != v else as_label(v))
    keep = text.isin(values).to_numpy()
    if not keep.any():
        seen = natural_order({v for v in text if v is not None})
        raise TreebenchError(
            f"{where}: no row has {column} in {', '.join(values)}; values present: {', '.join(seen[:10])}"
        )
    table.frame = table.frame[keep]
    return table


def _target_column(table: Table, op: Operation, where: str) -> Table:
    column = op.args
    if column not in table.extras:
        raise TreebenchError(
            f"{where}: {column!r} is not a non-feature column; accepted: {', '.join(table.extras) or '(none)'}"
        )
    labels = table.frame[column]
    if labels.isna().any():
        raise TreebenchError(f"{where}: column {column!r} has {int(labels.isna().sum())} rows without a label")
    table.extras = [c for c in table.extras if c != column] + [table.target]
    table.target = column
    table.classes = natural_order(set(labels))
    return table


def _drop_columns(table: Table, op: Operation, where: str) -> Table:
    for column in op.args:
        if column == table.target:
            raise TreebenchError(f"{where}: cannot drop the target column {column!r}")
        if column in table.features:
            table.features.remove(column)
            del table.kinds[column]
        elif column in table.extras:
            table.extras.remove(column)
        else:
            raise TreebenchError(
                f"{where}: no column {column!r}; columns: {', '.join(table.features + table.extras)}"
            )
        table.frame = table.frame.drop(columns=[column])
    if not table.features:
        raise TreebenchError(f"{where}: no feature left")
    return table


def describe(op: Operation) -> str:
    """One readable line for an operation (``datasets info``)."""
    if op.kind == "merge_classes":
        return "; ".join(f"merge {', '.join(members)} into {new}" for new, members in op.args.items())
    if op.kind == "select_rows":
        return f"keep rows where {op.args['column']} is {' or '.join(op.args['values'])}"
    if op.kind == "target_column":
        return f"use {op.args} as the class (the old class becomes a non-feature column)"
    verb = "drop classes" if op.kind == "drop_classes" else "drop columns"
    return f"{verb} {', '.join(op.args)}"


_APPLY = {
    "drop_classes": _drop_classes,
    "merge_classes": _merge_classes,
    "select_rows": _select_rows,
    "target_column": _target_column,
    "drop_columns": _drop_columns,
}

__all__ = ["derive"]
