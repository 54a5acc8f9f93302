"""The loaded dataset (:class:`Dataset`) and its content checksum."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from treebench.data.cards import Card

CHECKSUM_VERSION = b"treebench-dataset-v1"


@dataclass
class Dataset:
    """A classification dataset checked against its card.

    Attributes
    ----------
    name
        The card name (an alias resolves to the card it names).
    X
        Features: numeric columns ``float64``, nominal columns ``category``,
        ordinal columns ordered ``category``.  Missing values are NaN.
    y
        Class codes ``0..k-1`` (``int64``), indexing :attr:`classes`.
    classes
        Class names, in code order.
    feature_kinds
        Column -> ``"numeric"``, ``"nominal"`` or ``"ordinal"``.
    card
        The parsed card.
    checksum
        SHA-256 (hex) of the content: features, labels and extra columns.
        Identical content gives the same checksum whatever the source.
    extra
        Columns that are not features (``split``, ``region``...), same rows.
    source
        Where the data came from, for humans.
    target_name
        The column the labels came from (``class``, or ``region`` for olive-region).
    """

    name: str
    X: pd.DataFrame
    y: np.ndarray
    classes: list[str]
    feature_kinds: dict[str, str]
    card: Card
    checksum: str
    extra: pd.DataFrame = field(default_factory=pd.DataFrame)
    source: str = ""
    target_name: str = "class"

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @property
    def labels(self) -> np.ndarray:
        """Class names per row (object array)."""
        return np.asarray(self.classes, dtype=object)[self.y]

    def class_counts(self) -> dict[str, int]:
        """Class name -> number of rows, in class order (zeros included)."""
        counts = np.bincount(self.y, minlength=self.n_classes)
        return {c: int(n) for c, n in zip(self.classes, counts, strict=True)}

    def missing_cells(self) -> int:
        return int(self.X.isna().to_numpy().sum())

    def summary(self) -> str:
        """One line: name, shape, classes, short checksum."""
        return (
            f"{self.name}: {self.n_samples} rows, {self.n_features} features, "
            f"{self.n_classes} classes, sha256 {self.checksum[:12]}"
        )

    def __repr__(self) -> str:
        return f"Dataset({self.summary()})"


def content_checksum(
    X: pd.DataFrame, y: np.ndarray, classes: list[str], kinds: dict[str, str], extra: pd.DataFrame
) -> str:
    """SHA-256 of the content, independent of the source and of pandas' internals.

    Numeric columns hash their float64 bytes (NaN and -0.0 canonicalised),
    categorical columns their levels and codes, the target its class names and
    codes, extra columns their text.
    """
    h = hashlib.sha256(CHECKSUM_VERSION)
    h.update(f"\x1e{len(X)}".encode())
    for column in X.columns:
        series = X[column]
        h.update(f"\x1ef:{column}:{kinds[column]}".encode())
        if isinstance(series.dtype, pd.CategoricalDtype):
            h.update("\x1f".join(map(str, series.cat.categories)).encode())
            h.update(np.ascontiguousarray(series.cat.codes.to_numpy(), dtype="<i4").tobytes())
        else:
            values = series.to_numpy(dtype=np.float64, na_value=np.nan)
            values = np.where(np.isnan(values), np.nan, values + 0.0)  # one NaN, no -0.0
            h.update(np.ascontiguousarray(values, dtype="<f8").tobytes())
    h.update(("\x1ey:" + "\x1f".join(classes)).encode())
    h.update(np.ascontiguousarray(y, dtype="<i8").tobytes())
    for column in extra.columns:
        h.update(f"\x1ee:{column}".encode())
        text = "\x1f".join("\x00" if v is None or v != v else str(v) for v in extra[column].tolist())
        h.update(text.encode())
    return h.hexdigest()
