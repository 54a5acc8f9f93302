"""Turn user features (numpy arrays or DataFrames) into the engine's float matrix.

Numeric and ordinal features become floats (ordinal categories are their order
codes, so thresholds follow the order).  Nominal features become category codes
``0..c-1``; the extra code ``c`` is the *missing* category (NaN at fit time,
and any category not seen at fit time when predicting).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.sparse import issparse

from treebench.errors import TreebenchError

NUMERIC = "numeric"
NOMINAL = "nominal"


@dataclass
class FeatureEncoder:
    """How each column of the training data maps to the float matrix."""

    names: list[str]
    kinds: list[str]
    categories: list[list[Any] | None] = field(default_factory=list)
    from_dataframe: bool = False

    @property
    def n_features(self) -> int:
        return len(self.names)

    @property
    def is_nominal(self) -> np.ndarray:
        return np.array([kind == NOMINAL for kind in self.kinds], dtype=np.bool_)

    @property
    def n_categories(self) -> np.ndarray:
        """Codes per feature including the missing code (0 for numeric features)."""
        return np.array(
            [len(cats) + 1 if cats is not None else 0 for cats in self.categories], dtype=np.int64
        )

    # -- fitting -------------------------------------------------------------
    @classmethod
    def fit(cls, X: Any, nominal_features: Any = None) -> tuple[FeatureEncoder, np.ndarray]:
        """Learn the encoding from training data and return the encoded matrix.

        Raises
        ------
        TreebenchError
            On sparse, complex or non-2-d input, and on 0 samples or 0 features
            (scikit-learn's messages for the last two).
        """
        X = as_2d_input(X)
        n_samples, n_features = X.shape
        for count, what in ((n_samples, "sample"), (n_features, "feature")):
            if count == 0:
                raise TreebenchError(
                    f"Found array with 0 {what}(s) (shape={X.shape}) while a minimum of 1 is required."
                )
        if isinstance(X, pd.DataFrame):
            encoder = cls._fit_frame(X, nominal_features)
        else:
            encoder = cls._fit_array(X, nominal_features)
        return encoder, encoder.transform(X)

    @classmethod
    def _fit_frame(cls, X: pd.DataFrame, nominal_features: Any) -> FeatureEncoder:
        names = [str(c) for c in X.columns]
        forced = _resolve_nominal(nominal_features, names)
        kinds: list[str] = []
        categories: list[list[Any] | None] = []
        for position, column in enumerate(X.columns):
            series = X[column]
            if isinstance(series.dtype, pd.CategoricalDtype) and series.dtype.ordered and position not in forced:
                kinds.append(NUMERIC)  # ordinal: order codes
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
                raise TreebenchError(
                    f"column {column!r} has unsupported dtype {series.dtype}; "
                    "accepted: numeric, bool, string/object or categorical"
                )
        return cls(names, kinds, categories, from_dataframe=True)

    @classmethod
    def _fit_array(cls, X: np.ndarray, nominal_features: Any) -> FeatureEncoder:
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
        return cls(names, kinds, categories)

    # -- transforming ------------------------------------------------------
    def transform(self, X: Any) -> np.ndarray:
        """Encode ``X`` as a C-contiguous float64 matrix (n, d)."""
        X = as_2d_input(X)
        if X.shape[1] != self.n_features:
            raise TreebenchError(f"X has {X.shape[1]} features; the tree was fitted on {self.n_features}")
        if (
            not self.from_dataframe
            and not self.is_nominal.any()
            and isinstance(X, np.ndarray)
            and X.dtype.kind in "biuf"
        ):
            # all-numeric array: no per-column work; keep the caller's memory
            # order: the presort wants columns, and traversal makes its own
            # row-major copy when it needs one
            return np.asarray(X, dtype=np.float64)
        if isinstance(X, pd.DataFrame):
            if not self.is_nominal.any() and all(_plain_number(dtype) for dtype in X.dtypes):
                # all plain numbers: one conversion instead of per-column work
                return X.to_numpy(dtype=np.float64, na_value=np.nan)
            columns = [X.iloc[:, j] for j in range(self.n_features)]
        else:
            columns = [X[:, j] for j in range(self.n_features)]
        out = np.empty((len(columns[0]) if columns else 0, self.n_features), dtype=np.float64)
        for j, column in enumerate(columns):
            out[:, j] = self._encode_column(j, column)
        return out

    def _encode_column(self, j: int, column: Any) -> np.ndarray:
        cats = self.categories[j]
        if cats is None:
            if isinstance(column, pd.Series) and isinstance(column.dtype, pd.CategoricalDtype):
                codes = column.cat.codes.to_numpy().astype(np.float64)
                codes[codes < 0] = np.nan
                return codes
            try:
                series = column if isinstance(column, pd.Series) else pd.Series(column)
                return pd.to_numeric(series).to_numpy(dtype=np.float64, na_value=np.nan)
            except (TypeError, ValueError):
                raise TreebenchError(
                    f"feature {self.names[j]!r} is numeric but holds non-numeric values"
                ) from None
        lookup = {value: code for code, value in enumerate(cats)}
        missing = len(cats)
        values = column.to_numpy(dtype=object) if isinstance(column, pd.Series) else np.asarray(column, dtype=object)
        return np.fromiter(
            (missing if _is_missing(v) else lookup.get(v, missing) for v in values),
            dtype=np.float64,
            count=len(values),
        )


def _plain_number(dtype: Any) -> bool:
    """A float or integer column (ordered categoricals and bools need encoding)."""
    return pd.api.types.is_float_dtype(dtype) or (
        pd.api.types.is_integer_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
    )


def _is_missing(value: Any) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _sorted_unique(values: np.ndarray) -> list[Any]:
    unique = pd.unique(values)
    try:
        return sorted(unique.tolist())
    except TypeError:  # mixed types: fall back to their string order
        return sorted(unique.tolist(), key=str)


def as_2d_input(X: Any) -> pd.DataFrame | np.ndarray:
    """``X`` as a DataFrame (kept: its dtypes decide the encoding) or a 2-d numpy array.

    Raises
    ------
    TreebenchError
        For sparse matrices (trees here need dense columns), complex numbers
        and anything but two dimensions, with the words scikit-learn's checks
        look for ("sparse", "Complex data not supported", "Reshape your data").
    """
    if isinstance(X, pd.DataFrame):
        complex_columns = [c for c in X.columns if pd.api.types.is_complex_dtype(X[c].dtype)]
        if complex_columns:
            raise TreebenchError(f"Complex data not supported; column {complex_columns[0]!r} is complex")
        return X
    return _as_2d_array(X)


def _as_2d_array(X: Any) -> np.ndarray:
    if issparse(X):
        raise TreebenchError(
            f"sparse input is not supported (X is a {type(X).__name__}); accepted: a dense array or "
            "DataFrame, e.g. X.toarray()"
        )
    array = np.asarray(X)
    if array.ndim < 2:
        raise TreebenchError(
            f"X must be 2-dimensional (n_samples, n_features); got shape {array.shape}. Reshape your data "
            "with X.reshape(-1, 1) for a single feature or X.reshape(1, -1) for a single sample"
        )
    if array.ndim != 2:
        raise TreebenchError(f"X must be 2-dimensional (n_samples, n_features); got {array.ndim} dimensions")
    if array.dtype.kind == "c":
        raise TreebenchError(f"Complex data not supported; X has dtype {array.dtype}")
    if array.dtype.kind not in "biufOUSb":
        raise TreebenchError(
            f"X has unsupported dtype {array.dtype}; accepted: numbers, bools, strings or objects"
        )
    return array


def _resolve_nominal(nominal_features: Any, names: list[str]) -> set[int]:
    if nominal_features is None:
        return set()
    resolved = set()
    for item in nominal_features:
        if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            if not 0 <= item < len(names):
                raise TreebenchError(
                    f"nominal_features index {item} out of range; accepted: 0..{len(names) - 1}"
                )
            resolved.add(int(item))
        elif str(item) in names:
            resolved.add(names.index(str(item)))
        else:
            raise TreebenchError(
                f"nominal_features names unknown column {item!r}; accepted: {', '.join(names)}"
            )
    return resolved
