"""Compiled split search for a criterion given as a count-level impurity ``f(counts, params) -> float``.

``f`` is a ``numba.njit`` function of a float64 count vector (one entry per
class, zeros included) and a float64 parameter vector.  A split's score is
the impurity decrease ``f(parent) - sum_j (n_j / n) f(child_j)``, computed by
:func:`split_scores` for the numpy engine and inside :func:`grow` for the
compiled one, with the same arithmetic, so both engines see the same numbers.

:func:`grow` is a compiled version of ``trees/generic.py`` restricted to
numeric features without missing values, sample weights or per-sample data:
same candidates, stopping rules, tie tolerance, feature choice and node
numbering, so it returns the same arrays as ``build_generic``.  A value of ``f`` that
is not finite stops the growth and is returned in ``problem`` (the caller
raises, naming it).  ``f`` is a
function argument: numba compiles one specialisation per impurity function
(in memory: function arguments are not cached on disk).

Why :func:`grow` keeps its own node loop instead of the builders' search
(:func:`treebench.kernels.node_split.search_node`), measured on 2026-11-29
(first compile from an empty cache, wall seconds, 2 cores at load 2):

* numba types a function value by the function itself, so every compiled
  function that takes ``f`` is compiled again for each plugin, in every
  process.  ``grow`` compiles in 4.4 s; ``search_node`` in 7.4 s (its
  scans included) and the batch builder around it in 16.6 s.  Built-in fits
  would not pay (their specialisation takes no ``f``), but a plugin's first
  use would take up to 1.7 times as long to share the search, 3.8 times to
  share the builder;
* what it would share is thin: the search's scans (:mod:`treebench.kernels.scan`)
  reach a criterion through its compiled id, not through a function, so a
  plugin needs a scan of its own in any case, and that scan must keep the
  numpy engine's arithmetic (``f(parent) - (n_l/n f(left) + n_r/n f(right))``
  on float counts, not ``impurity - mass / total``) and its report of a
  value that is not finite.

So ``grow`` shares the helpers instead: the candidate rule
(:func:`~treebench.kernels.candidates.candidate_step`), the comparison with
the tie tolerance (:func:`~treebench.kernels.candidates.better`), the
threshold placement (:func:`~treebench.kernels.scan.threshold_at`) and the
acceptance rule (:func:`~treebench.kernels.node_split.accepts`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from treebench.kernels import layout as L
from treebench.kernels.candidates import SKIP, STOP, better, candidate_step
from treebench.kernels.node_split import accepts
from treebench.kernels.scan import threshold_at


@njit
def _decrease(f, params, parent_value, total, left, right):
    n_left = left.sum()
    n_right = right.sum()
    size = n_left + n_right
    # the numpy engine's order: weights = sizes / sizes.sum(); parent - (w0 f0 + w1 f1)
    return parent_value - ((n_left / size) * f(left, params) + (n_right / size) * f(right, params))


@njit
def split_scores(f, params, parent, children):
    """Impurity decrease of each candidate of ``children`` (m, r, k)."""
    m, r, k = children.shape
    parent_value = f(parent, params)
    out = np.empty(m)
    for i in range(m):
        size = 0.0
        for j in range(r):
            size += children[i, j].sum()
        weighted = 0.0
        for j in range(r):
            weighted += (children[i, j].sum() / size) * f(children[i, j].copy(), params)
        out[i] = parent_value - weighted
    return out


@njit
def grow(f, params, X, y, n_classes, max_depth, min_samples_split, min_samples_leaf, midpoint, min_gain, strict):
    """Grow a tree on numeric ``X`` (no NaN) and labels ``y`` (0..k-1); the kernel arrays and ``problem``.

    ``problem`` is ``[0, 0, 0]`` after a normal growth; when ``f`` gives a
    value that is not finite it is ``[1, size, value]`` (a node's value) or
    ``[2, size, value]`` (a candidate branch's value), ``size`` the rows of
    that node or branch, and the arrays returned are those grown so far.
    The node value is checked once per node; a candidate's score is
    finite exactly when both branch values are, so the candidates need no
    check beyond the one that skipped unusable scores before.

    Every feature is sorted once, at the root; a node's samples keep the same
    position range ``start:stop`` in every feature's sorted rows, which a
    stable partition maintains after each split (no sort below the root).
    """
    n, d = X.shape
    cap = 2 * n + 1
    ints = np.full((cap, L.N_INT_FIELDS), -1, np.int64)
    floats = np.zeros((cap, L.N_FLOAT_FIELDS))
    counts = np.zeros((cap, n_classes), np.int64)
    ints[0, L.DEPTH] = 0
    ints[0, L.KIND] = L.LEAF
    n_nodes = 1
    rows = np.empty((d, n), np.int64)
    for feature in range(d):
        rows[feature] = np.argsort(X[:, feature], kind="mergesort")
    buffer = np.empty(n, np.int64)
    stack = np.empty((cap, 3), np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2] = 0, 0, n
    top = 1
    parent = np.zeros(n_classes)
    left = np.zeros(n_classes)
    right = np.zeros(n_classes)
    goes_left = np.zeros(n, np.bool_)
    problem = np.zeros(3)
    while top > 0:
        top -= 1
        node, start, stop = stack[top, 0], stack[top, 1], stack[top, 2]
        depth = ints[node, L.DEPTH]
        size = stop - start
        parent[:] = 0.0
        for i in range(start, stop):
            parent[y[rows[0, i]]] += 1.0
        nonzero = 0
        for c in range(n_classes):
            counts[node, c] = np.int64(parent[c])
            if parent[c] > 0:
                nonzero += 1
        parent_value = f(parent, params)
        if not np.isfinite(parent_value):
            problem[0], problem[1], problem[2] = 1.0, size, parent_value
            break
        floats[node, L.IMPURITY] = parent_value
        if (
            size < min_samples_split
            or size < 2 * min_samples_leaf
            or nonzero <= 1
            or (max_depth >= 0 and depth >= max_depth)
        ):
            continue
        best_feature = -1
        best_score = -np.inf
        best_n_left = 0
        for feature in range(d):
            order = rows[feature]
            left[:] = 0.0
            feature_best = -np.inf
            feature_index = -1
            after = X[order[start], feature]
            for i in range(start, stop - 1):
                left[y[order[i]]] += 1.0
                n_left = i - start + 1
                here = after
                after = X[order[i + 1], feature]
                # the builders' candidate rule on values (no value is missing: NaN never equals one)
                step = candidate_step(n_left, size, min_samples_leaf, here, after, np.nan)
                if step == SKIP:
                    continue
                if step == STOP:
                    break
                for c in range(n_classes):
                    right[c] = parent[c] - left[c]
                score = _decrease(f, params, parent_value, size, left, right)
                if not np.isfinite(score):  # a branch's value is not finite: name it
                    value_left = f(left, params)
                    bad_left = not np.isfinite(value_left)
                    problem[0] = 2.0
                    problem[1] = n_left if bad_left else size - n_left
                    problem[2] = value_left if bad_left else f(right, params)
                    break
                if feature_index < 0 or better(score, feature_best):
                    feature_best = score
                    feature_index = n_left
            if problem[0] != 0.0:
                break
            if feature_index < 0 or not np.isfinite(feature_best):
                continue
            # select_feature: best split score, lowest index on ties
            if best_feature < 0 or better(feature_best, best_score):
                best_feature = feature
                best_score = feature_best
                best_n_left = feature_index
        if problem[0] != 0.0:
            break
        if best_feature < 0:
            continue
        if not accepts(best_score, min_gain, strict):  # the builders' rule (was an exact >=: issue 40)
            continue
        chosen = rows[best_feature]
        last_left = start + best_n_left - 1
        threshold = threshold_at(X, True, best_feature, chosen[last_left], chosen[last_left + 1], False, midpoint)
        for i in range(start, start + best_n_left):
            goes_left[chosen[i]] = True
        for i in range(start + best_n_left, stop):
            goes_left[chosen[i]] = False
        for feature in range(d):  # stable partition of every feature's rows
            if feature == best_feature:
                continue
            order = rows[feature]
            write = start
            spill = 0
            for i in range(start, stop):
                s = order[i]
                if goes_left[s]:
                    order[write] = s
                    write += 1
                else:
                    buffer[spill] = s
                    spill += 1
            for i in range(spill):
                order[write + i] = buffer[i]
        first_child = n_nodes
        for j in range(2):
            ints[first_child + j, L.DEPTH] = depth + 1
            ints[first_child + j, L.KIND] = L.LEAF
        n_nodes += 2
        ints[node, L.FEATURE] = best_feature
        ints[node, L.KIND] = L.NUMERIC
        ints[node, L.CHILD_START] = first_child
        ints[node, L.N_CHILDREN] = 2
        floats[node, L.THRESHOLD] = threshold
        floats[node, L.SCORE] = best_score
        # right child pushed first: the left one is grown first, as in the numpy engine
        stack[top, 0], stack[top, 1], stack[top, 2] = first_child + 1, start + best_n_left, stop
        top += 1
        stack[top, 0], stack[top, 1], stack[top, 2] = first_child, start, start + best_n_left
        top += 1
    return ints[:n_nodes].copy(), floats[:n_nodes].copy(), counts[:n_nodes].copy(), problem
