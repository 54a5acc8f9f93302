"""The certainty-raising inequality of paper 003 on a whole dataset.

For every attribute ``A``: the conditional certainty ``I(C|A)`` against the
class certainty ``I(C)`` (``A`` "raises certainty" when ``I(C|A) > I(C)``),
and for every value ``a`` of ``A`` and class ``c`` the "causal certainty"
comparison ``p(c|a) / I(C|A) > p(c) / I(C)``.

How attributes become values:

* nominal: one value per category seen (multiway, as the certainty tree);
* numeric: the two sides ``<= t`` / ``> t`` of the threshold ``t`` (midpoint
  between consecutive distinct values) that maximises ``I(C|A)`` -- the binary
  test the certainty tree itself would put at the root;
* missing values: rows where ``A`` is missing are left out of that
  attribute's ``I(C|A)`` and value rows (``I(C)`` and ``p(c)`` use all rows).

``p(c) / I(C)`` is infinite when the classes are uniform (``I(C) = 0``); then
no value passes the comparison.  Everything here works on plain arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from treebench.criteria.certainty import RAISE_TOLERANCE, certainty_rows


@dataclass(frozen=True)
class AttributeValues:
    """One attribute reduced to value indices: ``codes`` (-1 = missing) and value names."""

    codes: np.ndarray
    names: tuple[str, ...]
    threshold: float | None  # numeric attributes: the chosen cut


def class_counts(codes: np.ndarray, y: np.ndarray, n_values: int, n_classes: int) -> np.ndarray:
    """Contingency table ``counts[value, class]`` of the rows whose value is known."""
    known = codes >= 0
    flat = codes[known] * n_classes + y[known]
    return np.bincount(flat, minlength=n_values * n_classes).reshape(n_values, n_classes).astype(float)


def conditional_certainty(counts: np.ndarray) -> float:
    """``I(C|A) = sum_j p(a_j) I(C|a_j)`` from a value x class count table."""
    totals = counts.sum(axis=1)
    if totals.sum() == 0:
        return 0.0
    return float((totals / totals.sum()) @ certainty_rows(counts))


def best_threshold(x: np.ndarray, y: np.ndarray, n_classes: int) -> float | None:
    """The midpoint cut maximising ``I(C|A)`` of ``x <= t`` / ``x > t`` (first on ties).

    ``None`` when ``x`` has fewer than two distinct known values.
    """
    known = ~np.isnan(x)
    x, y = x[known], y[known]
    order = np.argsort(x, kind="stable")
    xs, ys = x[order], y[order]
    boundaries = np.flatnonzero(xs[1:] > xs[:-1])  # a cut after position i
    if boundaries.size == 0:
        return None
    onehot = np.zeros((xs.size, n_classes))
    onehot[np.arange(xs.size), ys] = 1.0
    left = np.cumsum(onehot, axis=0)[boundaries]
    right = onehot.sum(axis=0)[None, :] - left
    n = float(xs.size)
    # Certainty of each side, weighted by its share of the rows.
    score = (left.sum(axis=1) / n) * certainty_rows(left) + (right.sum(axis=1) / n) * certainty_rows(right)
    best = int(np.argmax(score))
    i = boundaries[best]
    return float((xs[i] + xs[i + 1]) / 2.0)


def attribute_values(series: pd.Series, y: np.ndarray, n_classes: int) -> AttributeValues:
    """Value indices of one column (see the module docstring for numeric columns)."""
    if isinstance(series.dtype, pd.CategoricalDtype) or not pd.api.types.is_numeric_dtype(series.dtype):
        codes, uniques = pd.factorize(series.astype(object), sort=True)
        return AttributeValues(codes.astype(np.int64), tuple(str(u) for u in uniques), None)
    x = series.to_numpy(dtype=np.float64, na_value=np.nan)
    cut = best_threshold(x, y, n_classes)
    if cut is None:  # a constant column: one value
        codes = np.where(np.isnan(x), -1, 0)
        return AttributeValues(codes.astype(np.int64), ("(constant)",), None)
    codes = np.where(np.isnan(x), -1, np.where(x <= cut, 0, 1))
    return AttributeValues(codes.astype(np.int64), (f"<= {cut:.6g}", f"> {cut:.6g}"), cut)


@dataclass(frozen=True)
class InequalityReport:
    """Attribute ranking and per-value causal comparisons of one dataset."""

    class_certainty: float  # I(C)
    attributes: pd.DataFrame  # attribute, kind, I(C|A), gain, raises, threshold; ranked
    values: pd.DataFrame  # attribute, value, class, n, p(c|a), p(c), left, right, causes


def inequality_report(X: pd.DataFrame, y: np.ndarray) -> InequalityReport:
    """Rank the attributes of ``X`` by ``I(C|A)`` and compare every value's causal certainty."""
    labels, y_codes = np.unique(np.asarray(y), return_inverse=True)
    y_codes = y_codes.ravel().astype(np.int64)
    k = len(labels)
    prior = np.bincount(y_codes, minlength=k).astype(float)
    i_c = float(certainty_rows(prior))
    p_c = prior / prior.sum()
    right = np.divide(p_c, i_c, out=np.full(k, np.inf), where=i_c > 0)
    ranking, rows = [], []
    for name in X.columns:
        values = attribute_values(X[name], y_codes, k)
        counts = class_counts(values.codes, y_codes, len(values.names), k)
        i_ca = conditional_certainty(counts)
        ranking.append({
            "attribute": str(name),
            "kind": "numeric" if values.threshold is not None else "nominal",
            "I(C|A)": i_ca,
            "I(C|A)-I(C)": i_ca - i_c,
            "raises": bool(i_ca - i_c > RAISE_TOLERANCE),
            "threshold": values.threshold,
        })
        totals = counts.sum(axis=1)
        for j, value in enumerate(values.names):
            if totals[j] == 0:
                continue
            p_ca = counts[j] / totals[j]
            left = p_ca / i_ca if i_ca > 0 else np.full(k, np.inf)
            for c in range(k):
                rows.append({
                    "attribute": str(name), "value": value, "class": str(labels[c]),
                    "n": int(totals[j]), "p(c|a)": float(p_ca[c]), "p(c)": float(p_c[c]),
                    "p(c|a)/I(C|A)": float(left[c]), "p(c)/I(C)": float(right[c]),
                    # inf on both sides (no certainty anywhere) is no evidence either way.
                    "causes": bool(np.isfinite(left[c]) and left[c] > right[c]),
                })
    attributes = pd.DataFrame(ranking).sort_values(
        "I(C|A)", ascending=False, kind="stable"
    ).reset_index(drop=True)
    attributes.insert(0, "rank", np.arange(1, len(attributes) + 1))
    return InequalityReport(i_c, attributes, pd.DataFrame(rows))
