"""The cell-by-cell feature encoding treebench used before issue 27: the oracle of tests/test_encoding.py.

Kept verbatim in what it computes (one ``pd.isna`` and one dictionary lookup
per cell of a nominal column); only the names changed.  The product's
:class:`treebench.trees.encoding.FeatureEncoder` must give the same kinds,
categories and matrices.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionArray

from treebench.trees.encoding import (
    NOMINAL,
    NUMERIC,
    FeatureEncoder,
    _resolve_nominal,
    _sorted_unique,
    as_2d_input,
)


def oracle_fit(X: Any, nominal_features: Any = None) -> tuple[FeatureEncoder, np.ndarray]:
    """The old ``FeatureEncoder.fit``: kinds and categories, then the cell-by-cell matrix."""
    X = as_2d_input(X)
    if isinstance(X, pd.DataFrame):
        names = [str(c) for c in X.columns]
        forced = _resolve_nominal(nominal_features, names)
        kinds, categories = [], []
        for position, column in enumerate(X.columns):
            series = X[column]
            if isinstance(series.dtype, pd.CategoricalDtype) and series.dtype.ordered and position not in forced:
                kinds.append(NUMERIC)
                categories.append(None)
            elif (
                position in forced
                or isinstance(series.dtype, pd.CategoricalDtype)
                or pd.api.types.is_object_dtype(series.dtype)
                or pd.api.types.is_string_dtype(series.dtype)
                or pd.api.types.is_bool_dtype(series.dtype)
            ):
                kinds.append(NOMINAL)
                if isinstance(series.dtype, pd.CategoricalDtype):
                    categories.append(list(series.dtype.categories))
                else:
                    categories.append(_sorted_unique(series.dropna().to_numpy()))
            elif pd.api.types.is_numeric_dtype(series.dtype):
                kinds.append(NUMERIC)
                categories.append(None)
            else:
                raise TypeError(f"column {column!r}: unsupported dtype {series.dtype}")
        encoder = FeatureEncoder(names, kinds, categories, from_dataframe=True)
    else:
        names = [f"x{j}" for j in range(X.shape[1])]
        forced = _resolve_nominal(nominal_features, names)
        kinds, categories = [], []
        for j in range(X.shape[1]):
            if j in forced or X.dtype.kind in "OUSb":
                kinds.append(NOMINAL)
                column = X[:, j]
                categories.append(_sorted_unique(column[~pd.isna(column)]))
            else:
                kinds.append(NUMERIC)
                categories.append(None)
        encoder = FeatureEncoder(names, kinds, categories)
    return encoder, oracle_transform(encoder, X)


def oracle_transform(encoder: FeatureEncoder, X: Any) -> np.ndarray:
    """The old ``FeatureEncoder.transform`` (general path), column by column, cell by cell."""
    X = as_2d_input(X)
    columns = [X.iloc[:, j] for j in range(X.shape[1])] if isinstance(X, pd.DataFrame) else [X[:, j] for j in range(X.shape[1])]
    out = np.empty((X.shape[0], encoder.n_features), dtype=np.float64)
    for j, column in enumerate(columns):
        out[:, j] = oracle_column(encoder, j, column)
    return out


def oracle_column(encoder: FeatureEncoder, j: int, column: Any) -> np.ndarray:
    """The old ``FeatureEncoder._encode_column``."""
    if isinstance(column, ExtensionArray):  # a frame's column as stored: the old code was given its Series
        column = pd.Series(column)
    cats = encoder.categories[j]
    if cats is None:
        if isinstance(column, pd.Series) and isinstance(column.dtype, pd.CategoricalDtype):
            codes = column.cat.codes.to_numpy().astype(np.float64)
            codes[codes < 0] = np.nan
            return codes
        series = column if isinstance(column, pd.Series) else pd.Series(column)
        return pd.to_numeric(series).to_numpy(dtype=np.float64, na_value=np.nan)
    lookup = {value: code for code, value in enumerate(cats)}
    missing = len(cats)
    values = column.to_numpy(dtype=object) if isinstance(column, pd.Series) else np.asarray(column, dtype=object)
    return np.fromiter(
        (missing if _is_missing(v) else lookup.get(v, missing) for v in values),
        dtype=np.float64,
        count=len(values),
    )


def _is_missing(value: Any) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False
