"""Turn user features (numpy arrays or DataFrames) into the engine's float matrix.

Numeric and ordinal features become floats (ordinal categories are their order
codes, so thresholds follow the order).  Nominal features become category codes
``0..c-1``; the extra code ``c`` is the *missing* category (NaN at fit time,
and any category not seen at fit time when predicting).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionArray
from scipy.sparse import issparse

from treebench.errors import TreebenchError
from treebench.kernels.readiness import watch_compiles

NUMERIC = "numeric"
NOMINAL = "nominal"


@dataclass
class FeatureEncoder:
    """How each column of the training data maps to the float matrix."""

    names: list[str]
    kinds: list[str]
    categories: list[list[Any] | None] = field(default_factory=list)
    from_dataframe: bool = False
    #: Per column, whether it was an ordered categorical at fit (read as its order codes);
    #: empty for encoders pickled before it was recorded.
    ordinal: list[bool] = field(default_factory=list)
    #: Per nominal column, the categorical dtype last seen there and its code table
    #: (a cache: repeated predictions on frames of the same dtype skip the lookups).
    _tables: dict[int, tuple[Any, np.ndarray]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_tables", None)  # a cache: not pickled with a fitted estimator
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._tables = {}

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
    def fit(
        cls, X: Any, nominal_features: Any = None, *, ordered_nominal: bool = False
    ) -> tuple[FeatureEncoder, np.ndarray]:
        """Learn the encoding from training data and return the encoded matrix.

        ``ordered_nominal``: ordered categoricals are nominal too (C4.5, as J48 reads them),
        not their order codes.

        Raises
        ------
        TreebenchError
            On sparse, complex or non-2-d input, and on 0 samples or 0 features
            (scikit-learn's messages for the last two).
        """
        watch_compiles()  # every estimator's fit passes here: a first fit that compiles says so, once
        columns = _checked_columns(X) if isinstance(X, pd.DataFrame) else None
        X = X if columns is not None else as_2d_input(X)
        n_samples, n_features = X.shape
        for count, what in ((n_samples, "sample"), (n_features, "feature")):
            if count == 0:
                raise TreebenchError(
                    f"Found array with 0 {what}(s) (shape={X.shape}) while a minimum of 1 is required."
                )
        if columns is not None:  # read once (``X.dtypes`` would build a Series)
            dtypes = [column.dtype for column in columns]
            encoder = cls._fit_frame(X, nominal_features, dtypes, ordered_nominal)
            # column-major: the presort and the builder read the matrix by columns
            return encoder, encoder._transform_frame(X, "F", dtypes, columns)
        encoder = cls._fit_array(X, nominal_features)
        return encoder, encoder.transform(X, order="F")

    @classmethod
    def _fit_frame(
        cls, X: pd.DataFrame, nominal_features: Any, dtypes: list[Any], ordered_nominal: bool = False
    ) -> FeatureEncoder:
        labels = _as_list(X.columns)
        names = [str(c) for c in labels]
        forced = _resolve_nominal(nominal_features, names)
        kinds: list[str] = []
        categories: list[list[Any] | None] = []
        # code tables known at fit time (a categorical's own categories; a factorised column's
        # distinct values): the transform of the training frame then reads no value twice
        tables: dict[int, tuple[Any, np.ndarray]] = {}
        for position, (column, dtype) in enumerate(zip(labels, dtypes)):
            if _plain_number(dtype) and position not in forced:  # the usual numeric column, told cheaply
                kinds.append(NUMERIC)
                categories.append(None)
            elif (isinstance(dtype, pd.CategoricalDtype) and dtype.ordered and position not in forced
                    and not ordered_nominal):
                kinds.append(NUMERIC)  # ordinal: order codes
                categories.append(None)
            elif (
                position in forced
                or isinstance(dtype, pd.CategoricalDtype)
                or pd.api.types.is_object_dtype(dtype)
                or pd.api.types.is_string_dtype(dtype)
                or pd.api.types.is_bool_dtype(dtype)
            ):
                kinds.append(NOMINAL)
                if isinstance(dtype, pd.CategoricalDtype):
                    categories.append(_category_list(dtype))
                    identity = np.arange(len(dtype.categories) + 1, dtype=np.float64)  # code -1 reads the last: missing
                    tables[position] = (dtype, identity)
                else:
                    categories.append(_sorted_unique(X.iloc[:, position].dropna().to_numpy()))
            elif pd.api.types.is_numeric_dtype(dtype):
                kinds.append(NUMERIC)
                categories.append(None)
            else:
                raise TreebenchError(
                    f"column {column!r} has unsupported dtype {dtype}; "
                    "accepted: numeric, bool, string/object or categorical"
                )
        ordinal = [isinstance(d, pd.CategoricalDtype) and bool(d.ordered) and k == NUMERIC for d, k in zip(dtypes, kinds)]
        encoder = cls(names, kinds, categories, from_dataframe=True, ordinal=ordinal)
        encoder._tables.update(tables)
        return encoder

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
        return cls(names, kinds, categories, ordinal=[False] * X.shape[1])

    # -- transforming ------------------------------------------------------
    def transform(self, X: Any, order: str = "C") -> np.ndarray:
        """Encode ``X`` as a float64 matrix (n, d), C-ordered unless ``order="F"``.

        All-numeric input without nominal features keeps its memory layout
        (no copy where none is needed).
        """
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
            columns = _frame_columns(X)
            return self._transform_frame(X, order, [column.dtype for column in columns], columns)
        return self._fill([X[:, j] for j in range(self.n_features)], X.shape[0], order)

    def _transform_frame(self, X: pd.DataFrame, order: str, dtypes: list[Any], columns: list[Any]) -> np.ndarray:
        """:meth:`transform` of a checked DataFrame: its columns' values and dtypes given."""
        if not any(kind == NOMINAL for kind in self.kinds) and all(_plain_number(dtype) for dtype in dtypes):
            # all plain numbers: one conversion instead of per-column work
            return X.to_numpy(dtype=np.float64, na_value=np.nan)
        return self._fill(columns, X.shape[0], order)

    def _fill(self, columns: list[Any], n_rows: int, order: str) -> np.ndarray:
        # filled column by column: a column-major matrix takes contiguous
        # writes (ten times faster than strided ones on wide data)
        out = np.empty((n_rows, self.n_features), dtype=np.float64, order=order)
        for j, column in enumerate(columns):
            out[:, j] = self._encode_column(j, column)
        return out

    def _encode_column(self, j: int, column: Any) -> np.ndarray:
        if self.categories[j] is None:
            return self._encode_numeric(j, column)
        return self._encode_nominal(j, column)

    def _encode_numeric(self, j: int, column: Any) -> np.ndarray:
        if _is_categorical(column):
            known = getattr(self, "ordinal", None) or []
            if j < len(known) and not known[j]:  # numbers at fit: read the values, never the codes
                return self._categorical_numbers(j, _as_series(column))
            codes = _codes(column).astype(np.float64)
            codes[codes < 0] = np.nan
            return codes
        if isinstance(column, np.ndarray) and column.dtype.kind in "iuf":
            return column  # a plain numpy column: the caller's float64 assignment converts it
        if isinstance(column, (pd.Series, ExtensionArray)) and _plain_number(column.dtype):
            return column.to_numpy(dtype=np.float64, na_value=np.nan)
        try:
            series = column if isinstance(column, pd.Series) else pd.Series(column)
            return pd.to_numeric(series).to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError):
            raise TreebenchError(
                f"feature {self.names[j]!r} is numeric but holds non-numeric values"
            ) from None

    def _categorical_numbers(self, j: int, column: pd.Series) -> np.ndarray:
        """A categorical given for a column that held plain numbers at fit: its values, if numbers."""
        levels = column.dtype.categories
        if pd.api.types.is_numeric_dtype(levels.dtype) and not pd.api.types.is_bool_dtype(levels.dtype):
            return column.astype(np.float64).to_numpy(dtype=np.float64, na_value=np.nan)
        raise TreebenchError(
            f"feature {self.names[j]!r} held numbers at fit; got a categorical of {levels.dtype} "
            f"(e.g. {_example(levels)}), whose codes are not those numbers; accepted: the numbers themselves "
            "(an ordered categorical only for a column that was one at fit)"
        )

    def _encode_nominal(self, j: int, column: Any) -> np.ndarray:
        """Codes of the fitted categories, ``len(categories)`` for missing and unseen values.

        The column is factorised once (``cat.codes`` of a categorical), and
        only its distinct values are looked up: the same dictionary lookup,
        value by value, as a cell-by-cell encoding would make.
        """
        if _is_categorical(column):
            codes = _codes(column)
            cached = self._tables.get(j)
            # the same categories in the same order (dtype `==` ignores the order of unordered ones)
            if cached is not None and (
                cached[0] is column.dtype or cached[0].categories.equals(column.dtype.categories)
            ):
                return cached[1][codes]
            table = self._code_table(j, _as_list(column.dtype.categories))
            self._tables[j] = (column.dtype, table)
            return table[codes]
        try:
            codes, distinct = pd.factorize(column, use_na_sentinel=True)
        except TypeError:  # e.g. lists or dicts in an object column
            raise TreebenchError(
                f"feature {self.names[j]!r} holds unhashable values; accepted: numbers, strings, bools or None"
            ) from None
        return self._code_table(j, distinct.tolist())[np.asarray(codes)]

    def _code_table(self, j: int, distinct: list[Any]) -> np.ndarray:
        """The code of each distinct value, then (read by code -1: missing) the missing code."""
        cats = self.categories[j]
        missing = len(cats)
        lookup = {value: code for code, value in enumerate(cats)}
        table = np.empty(len(distinct) + 1, dtype=np.float64)
        for position, value in enumerate(distinct):
            table[position] = missing if _is_missing(value) else lookup.get(value, missing)
        table[-1] = missing
        return table


def _frame_columns(X: pd.DataFrame) -> list[Any]:
    """Every column's values as pandas stores them (a numpy array, or an extension array such as a
    ``Categorical``), by position: building a Series per column costs ten times as much on a
    narrow frame.  ``_get_column_array`` is pandas' own accessor; without it, the Series' arrays."""
    get = getattr(X, "_get_column_array", None)
    if get is None:
        return [series.array for _, series in X.items()]
    return [get(j) for j in range(X.shape[1])]


def _is_categorical(column: Any) -> bool:
    return isinstance(column.dtype, pd.CategoricalDtype)


def _codes(column: Any) -> np.ndarray:
    """The category codes of a categorical Series or ``Categorical`` (-1 for missing)."""
    return column.array.codes if isinstance(column, pd.Series) else column.codes


def _as_series(column: Any) -> pd.Series:
    return column if isinstance(column, pd.Series) else pd.Series(column, copy=False)


#: Each categorical dtype's categories as a list, by dtype object (held weakly): a frame keeps its
#: columns' dtype objects from fit to fit, so a tuning grid's fits on it read them once (reading
#: string categories is a conversion per value, a tenth of a small fit).
_CATEGORY_LISTS: dict[int, tuple[weakref.ref, list[Any]]] = {}


def _category_list(dtype: pd.CategoricalDtype) -> list[Any]:
    """The categories of ``dtype`` as a new list (of Python values: ``str``, ``int``...)."""
    key = id(dtype)
    known = _CATEGORY_LISTS.get(key)
    if known is not None and known[0]() is dtype:
        return list(known[1])
    cats = dtype.categories
    # ``tolist`` reads string categories in one call (``list`` iterates them one by one)
    values = list(cats) if _plain_number(cats.dtype) else _as_list(cats)
    # the entry leaves with its dtype (before the id can name another object)
    _CATEGORY_LISTS[key] = (weakref.ref(dtype, lambda _, key=key, table=_CATEGORY_LISTS: table.pop(key, None)),
                            values)
    return list(values)


def _as_list(index: pd.Index) -> list[Any]:
    """The values of an Index as Python objects; an object array first when they are strings
    (``tolist`` of pandas' string arrays converts value by value)."""
    if index.dtype.kind in "OSU" or isinstance(index.dtype, pd.StringDtype):
        return index.to_numpy(dtype=object).tolist()
    return index.tolist()


def _plain_number(dtype: Any) -> bool:
    """A float or integer column (ordered categoricals and bools need encoding)."""
    return _kind(dtype) in ("i", "u", "f")


def _kind(dtype: Any) -> str:
    """numpy's one-letter kind, also of pandas' own dtypes (nullable ``Int64``: ``i``; categorical: ``O``).

    Cheaper than ``pd.api.types.is_*_dtype``, which matters on every predict of a wide frame.
    """
    return getattr(dtype, "kind", "O")


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
        _checked_columns(X)
        return X
    return _as_2d_array(X)


def _checked_columns(X: pd.DataFrame) -> list[Any]:
    """:func:`_frame_columns`, refusing complex ones (:func:`as_2d_input` of a frame)."""
    # the columns' own dtypes: ``X.dtypes`` builds a Series, a Series per column costs more
    columns = _frame_columns(X)
    kinds = [_kind(column.dtype) for column in columns]
    if "c" in kinds:
        raise TreebenchError(f"Complex data not supported; column {X.columns[kinds.index('c')]!r} is complex")
    return columns


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


def _example(levels: Any) -> str:
    """The first level of a categorical, shown briefly."""
    text = repr(levels[0]) if len(levels) else "no levels"
    return text if len(text) <= 30 else text[:27] + "..."
