"""Turn a raw table into a typed, checked :class:`Dataset`.

The steps are the same for every source (mirror file, cache, scikit-learn,
OpenML, UCI): pick and order the card's columns, apply the card's documented
cell corrections, type each feature by its kind, keep missing values as NaN,
encode the target, hash the content and compare it with the card (counts,
then the canonical checksum the card pins).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from treebench.data.cards import Card, Expected
from treebench.data.dataset import Dataset, content_checksum
from treebench.data.formats import SourceError
from treebench.data.labels import as_label, is_missing, natural_order


@dataclass
class Table:
    """Typed columns before the target is encoded; what derived operations edit.

    ``frame`` holds the features (typed), the extra columns and the target, all
    as text labels except numeric features.
    """

    frame: pd.DataFrame
    features: list[str]
    kinds: dict[str, str]
    extras: list[str]
    target: str
    classes: list[str]

    @classmethod
    def from_dataset(cls, ds: Dataset) -> Table:
        target = _free_name(ds.target_name, [*ds.X.columns, *ds.extra.columns])
        frame = pd.concat([ds.X, ds.extra], axis=1)
        frame[target] = ds.labels
        return cls(
            frame=frame,
            features=list(ds.X.columns),
            kinds=dict(ds.feature_kinds),
            extras=list(ds.extra.columns),
            target=target,
            classes=list(ds.classes),
        )


def _free_name(name: str, taken: list[str]) -> str:
    while name in taken:
        name = f"{name}_"
    return name


def labels_of(series: pd.Series) -> np.ndarray:
    """Canonical labels (object array, None where missing), computed per distinct value."""
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    mapped = np.array([as_label(u) for u in uniques] + [None], dtype=object)
    return mapped[np.where(codes >= 0, codes, len(uniques))]


def normalize(card: Card, raw: pd.DataFrame, origin: str) -> Table:
    """Check a raw table's columns against a raw card and type every column.

    Raises
    ------
    SourceError
        Missing or unexpected columns, non-numeric cells in numeric features,
        values outside declared levels, unlabelled rows.
    """
    raw = raw.rename(columns=lambda c: str(c).strip())
    wanted = [*card.features, *card.non_features, card.target]
    absent = [c for c in wanted if c not in raw.columns]
    if absent:
        found = ", ".join(map(str, raw.columns[:12])) + (" ..." if raw.shape[1] > 12 else "")
        raise SourceError(f"{origin}: column(s) {', '.join(absent[:8])} missing (found: {found})")
    surplus = [c for c in raw.columns if c not in wanted]
    if surplus:
        raise SourceError(
            f"{origin}: unexpected column(s) {', '.join(map(str, surplus[:8]))}; the card lists {len(wanted)}"
        )
    frame = raw[wanted].reset_index(drop=True)
    frame = _apply_corrections(card, frame, origin)

    out: dict[str, object] = {}
    for column in card.features:
        kind = card.kind_of(column)
        if kind == "numeric":
            out[column] = _numeric(frame[column], column, origin)
        else:
            levels = card.nominal.get(column) if kind == "nominal" else card.ordinal.get(column)
            out[column] = _categorical(frame[column], column, levels, kind == "ordinal", origin)
    for column in card.non_features:
        out[column] = labels_of(frame[column])
    target = labels_of(frame[card.target])
    unlabelled = int(sum(v is None for v in target))
    if unlabelled:
        raise SourceError(f"{origin}: target column {card.target!r} has {unlabelled} rows without a label")
    out[card.target] = target
    present = natural_order(set(target))
    if card.classes is not None:
        stray = [c for c in present if c not in card.classes]
        if stray:
            raise SourceError(
                f"{origin}: class {stray[0]!r} is not among the card's classes ({', '.join(card.classes)})"
            )
        classes = list(card.classes)
    else:
        classes = present
    return Table(
        frame=pd.DataFrame(out),
        features=list(card.features),
        kinds=card.feature_kinds,
        extras=list(card.non_features),
        target=card.target,
        classes=classes,
    )


def _apply_corrections(card: Card, frame: pd.DataFrame, origin: str) -> pd.DataFrame:
    for fix in card.corrections:
        if fix.row >= len(frame):
            continue  # a shorter copy fails the row count check anyway
        cell = frame.at[fix.row, fix.column]
        if is_missing(cell):
            continue
        if str(cell) == fix.was or as_label(cell) == as_label(fix.was):
            if frame[fix.column].dtype != object:
                frame = frame.copy()
                frame[fix.column] = frame[fix.column].astype(object)
            frame.at[fix.row, fix.column] = fix.value
        # a copy that no longer holds the defect is left alone
    return frame


def _numeric(series: pd.Series, column: str, origin: str) -> np.ndarray:
    if pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_bool_dtype(series.dtype):
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        converted = pd.to_numeric(series, errors="coerce")
        bad = converted.isna().to_numpy() & series.notna().to_numpy()
        if bad.any():
            rows = np.flatnonzero(bad)
            raise SourceError(
                f"{origin}: numeric column {column!r} holds {series.iloc[rows[0]]!r} in data row {rows[0]} "
                f"({len(rows)} non-numeric cell{'s' if len(rows) > 1 else ''})"
            )
        values = converted.to_numpy(dtype=np.float64, na_value=np.nan)
    # parsers read inf, -inf and numbers beyond float64 (1e999) as infinities: never data
    infinite = np.isinf(values)
    if infinite.any():
        rows = np.flatnonzero(infinite)
        cell = series.iloc[rows[0]]
        shown = cell if isinstance(cell, str) else str(values[rows[0]])
        raise SourceError(
            f"{origin}: numeric column {column!r} holds {shown!r} in data row {rows[0]} "
            f"({len(rows)} infinite or overflowing cell{'s' if len(rows) > 1 else ''}; accepted: finite numbers)"
        )
    return values


def _categorical(
    series: pd.Series, column: str, levels: tuple[str, ...] | None, ordered: bool, origin: str
) -> pd.Categorical:
    labels = labels_of(series)
    observed = {v for v in labels if v is not None}
    if levels is None:
        categories = natural_order(observed)
    else:
        stray = sorted(observed - set(levels))
        if stray:
            raise SourceError(
                f"{origin}: column {column!r} holds {stray[0]!r}, not among the card's levels ({', '.join(levels)})"
            )
        categories = list(levels)
    return pd.Categorical(labels, categories=categories, ordered=ordered)


def to_dataset(name: str, card: Card, table: Table, source: str) -> Dataset:
    """Encode the target and hash the content."""
    y = pd.Categorical(table.frame[table.target], categories=table.classes).codes.astype(np.int64)
    if (y < 0).any():
        stray = table.frame[table.target][y < 0].iloc[0]
        raise SourceError(f"{source}: label {stray!r} is not among the classes ({', '.join(table.classes)})")
    X = table.frame[table.features].copy()
    extra = table.frame[table.extras].copy()
    kinds = {c: table.kinds[c] for c in table.features}
    return Dataset(
        name=name,
        target_name=table.target,
        X=X,
        y=y,
        classes=list(table.classes),
        feature_kinds=kinds,
        card=card,
        checksum=content_checksum(X, y, list(table.classes), kinds, extra),
        extra=extra,
        source=source,
    )


def judge(card: Card, ds: Dataset, origin: str, pinned: bool = True) -> str:
    """Why a copy read from ``origin`` is not the card's table ("" when it is).

    The counts are compared first (the more telling message), then, when
    ``pinned`` and the card has one, the canonical checksum.
    """
    problems = mismatches(ds, card.expected)
    if problems:
        return f"{origin} does not match {card.display_path}: {'; '.join(problems)}"
    if pinned and card.checksum is not None and ds.checksum != card.checksum:
        return f"{origin}: canonical checksum {ds.checksum}, {card.display_path} expects {card.checksum}"
    return ""


def mismatches(ds: Dataset, expected: Expected) -> list[str]:
    """How a loaded dataset differs from the card's expectations (empty when it matches)."""
    problems = []
    if ds.n_samples != expected.rows:
        problems.append(f"{ds.n_samples} rows, card says {expected.rows}")
    if ds.n_features != expected.features:
        problems.append(f"{ds.n_features} features, card says {expected.features}")
    if ds.n_classes != expected.classes:
        problems.append(f"{ds.n_classes} classes, card says {expected.classes}")
    if expected.class_counts is not None:
        counts = ds.class_counts()
        differ = [
            f"{label} {counts.get(label, 0)}/{want}"
            for label, want in expected.class_counts.items()
            if counts.get(label, 0) != want
        ]
        differ += [f"{label} {n}/0" for label, n in counts.items() if label not in expected.class_counts]
        if differ:
            problems.append("class counts differ (got/card): " + ", ".join(differ[:6]))
    if expected.missing is not None and ds.missing_cells() != expected.missing:
        problems.append(f"{ds.missing_cells()} missing cells, card says {expected.missing}")
    return problems
