"""Evidential impurity u_lambda of belief-function trees (paper 004, Denœux & Skarstein Bjanger).

A node with class counts ``n_j`` is summarised by the belief structure
``m({w_j}) = n_j/(n+1)``, ``m(Omega) = 1/(n+1)`` (eqs. 15-16); with uncertain
labels the structure comes from eq. 22 (:mod:`treebench.kernels.belief`).  Its
uncertainty is ``(1 - lam) * N + lam * D`` (nonspecificity, eq. 17, plus
discord, eq. 18).  The closed form printed in the paper differs from eqs.
17-19 by ``lam * n/(n+1)``; both are offered (see ``docs/criteria.md``).

Oracle: :func:`uncertainty` of :func:`crisp_masses` and :class:`Belief`.
Compiled: with crisp counts a node's structure is ``m_j = c_j/(s+1)``,
``m(Omega) = 1/(s+1)``, so its pignistic probabilities are ``BetP_j = (c_j +
1/k)/(s+1)`` and the discord ``-sum_j m_j log2 BetP_j`` is ``(s log2(s+1) -
G)/(s+1)`` with ``g(c) = c log2(c + 1/k)``: additive (kernel ``belief``).
The one-vs-rest reading averages the two-class impurities of ``(c_j, s -
c_j)``: the same form with ``g(c) = c log2(c + 1/2)`` and ``G = (sum_j g(c_j)
+ g(s - c_j)) / k``, whose second terms all move with ``s`` -- O(k) per
candidate (kernel ``belief_ovr``).  Both need the class count:
:func:`class_params` completes ``[lam, printed]``.  Label masses (eq. 22) are
scored by the builder's sweeps in :mod:`treebench.kernels.belief`.
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
from numba import njit

from treebench.criteria.base import Criterion, Param, SplitContext, as_children
from treebench.criteria.builtin.spec import ADDITIVE, Kernel
from treebench.errors import TreebenchError
from treebench.kernels.belief import B_G_SCALE, B_LAM, B_LOG_FRAME, B_PRINTED, B_SHARE

#: Kernel ids: the natural k-class impurity, and the mean of the one-vs-rest ones.
NATURAL, ONE_VS_REST = 7, 8


def crisp_masses(counts: np.ndarray) -> np.ndarray:
    """Belief structures of count rows: ``(..., k)`` -> ``(..., k + 1)`` (last = m(Omega))."""
    counts = np.asarray(counts, dtype=float)
    denom = counts.sum(axis=-1, keepdims=True) + 1.0
    return np.concatenate([counts / denom, 1.0 / denom], axis=-1)


def pignistic(masses: np.ndarray) -> np.ndarray:
    """BetP on the singletons: ``m({w_j}) + m(Omega)/k`` (focal sets are singletons and Omega)."""
    masses = np.asarray(masses, dtype=float)
    k = masses.shape[-1] - 1
    return masses[..., :k] + masses[..., k:] / k


def uncertainty(masses: np.ndarray, lam: float, variant: str = "printed") -> np.ndarray:
    """``U_lambda`` of belief structures whose focal sets are the singletons and Omega.

    ``masses`` has shape ``(..., k + 1)``.  ``variant="nonspecificity-discord"``
    is eq. 19 applied literally: ``N = m(Omega) log2 k`` and
    ``D = -sum_j m_j log2 BetP_j`` (Omega's own term vanishes, BetP(Omega) = 1).
    ``variant="printed"`` is the paper's closed form, which reads
    ``log2(k BetP_j)`` in the discord (for two classes ``log2((2 n_j + 1)/(n + 1))``);
    it equals the literal form minus ``lam (1 - m(Omega)) log2 k``.
    """
    masses = np.asarray(masses, dtype=float)
    k = masses.shape[-1] - 1
    singles, omega = masses[..., :k], masses[..., k]
    betp = pignistic(masses)
    safe = np.where(singles > 0, betp, 1.0)
    discord = -(singles * np.log2(safe)).sum(axis=-1)
    log_k = np.log2(k)
    value = (1.0 - lam) * omega * log_k + lam * discord
    if variant == "printed":
        value = value - lam * (1.0 - omega) * log_k
    return value


def one_vs_rest_counts(counts: np.ndarray) -> np.ndarray:
    """``(..., k)`` counts -> ``(..., k, 2)``: class ``j`` against the others."""
    counts = np.asarray(counts, dtype=float)
    rest = counts.sum(axis=-1, keepdims=True) - counts
    return np.stack([counts, rest], axis=-1)


class Belief(Criterion):
    """Goodness ``Delta u = u(t) - p_L u(t_L) - p_R u(t_R)`` of the evidential impurity.

    ``multiclass="natural"`` uses the k-class structure of eqs. 15-16;
    ``"one-vs-rest"`` (our reading of the paper's remark that a k-class
    problem can be handled as two-class problems) averages the two-class
    impurities of ``w_j`` against the other classes.  With per-example label
    masses (``SplitContext.sample_data``, shape ``(n, 3)``: m(class 0),
    m(class 1), m(Omega)) the node structures follow eq. 22 (two classes only).
    Branch weights ``p`` are example counts, as in eq. 14.
    """

    name = "belief"
    summary = "evidential impurity u_lambda of belief-function trees (uncertain labels supported)"
    paper = "004 Denœux & Skarstein Bjanger"
    params = (
        Param("lam", 0.5, float, low=0.0, high=1.0, doc="weight of discord vs nonspecificity"),
        Param(
            "variant",
            "printed",
            str,
            choices=("printed", "nonspecificity-discord"),
            doc="closed form as printed, or eqs. 17-19 literally (differ by lam*n/(n+1))",
        ),
        Param(
            "multiclass",
            "natural",
            str,
            choices=("natural", "one-vs-rest"),
            doc="k-class belief structure, or mean of one-vs-rest two-class impurities",
        ),
        Param(
            "labels",
            "masses",
            str,
            choices=("masses", "crisp"),
            doc="learn from the label masses when given, or ignore them (crisp labels)",
        ),
        # read by the belief learner only (treebench.learners.belief), not by the impurity
        Param(
            "lam_tuning",
            "config",
            str,
            choices=("config", "pignistic-error", "pignistic-error-own-labels"),
            doc="lam as the config gives it (fixed or its grid), or chosen by the learner's own inner "
                "5-fold CV minimising the pignistic error E on the label masses (-own-labels: on the "
                "labels the tree learns from, one-hot crisp ones with labels=crisp)",
            # its default grows the trees grown before it existed: stored belief trials stay current
            since_default_keyless=True,
        ),
    )
    #: Run by the belief-tree learner: label masses in, pignistic probabilities out.
    learner_kind: ClassVar[str] = "belief"
    #: The compiled builder scores crisp counts (see the module docstring):
    #: :data:`NATURAL`, or :data:`ONE_VS_REST` (set per instance).
    kernel_id: ClassVar[int] = NATURAL
    stored_as = "treebench.criteria.belief.Belief"

    def __init__(self, **params) -> None:
        super().__init__(**params)
        if self.multiclass == "one-vs-rest":
            self.kernel_id = ONE_VS_REST  # type: ignore[misc]  # an instance's own scan (O(k) per candidate)

    def kernel_takes(self, sample_data: np.ndarray, n_classes: int) -> bool:
        """Label masses of two classes, ``(n, 3)``: scored by the builder's eq. 22 sweeps
        (``treebench.kernels.belief.scan_label_masses``); anything else is refused by :meth:`split_scores`."""
        data = np.asarray(sample_data)
        return n_classes == 2 and data.ndim == 2 and data.shape[1] == 3

    def kernel_params(self, max_branches: int) -> np.ndarray:
        """``[lam, printed]``; the builder completes them with the class count."""
        return np.array([self.lam, 1.0 if self.variant == "printed" else 0.0])

    # -- impurity of count rows --------------------------------------------------
    def count_impurity(self, counts: np.ndarray) -> np.ndarray:
        """``u_lambda`` of every count row ``(..., k)``."""
        counts = np.asarray(counts, dtype=float)
        if self.multiclass == "one-vs-rest" and counts.shape[-1] > 2:
            pairs = crisp_masses(one_vs_rest_counts(counts))
            return uncertainty(pairs, self.lam, self.variant).mean(axis=-1)
        return uncertainty(crisp_masses(counts), self.lam, self.variant)

    def node_value(self, counts: np.ndarray) -> float:
        return float(self.count_impurity(counts))

    def split_scores(self, parent, children, context: SplitContext | None = None) -> np.ndarray:
        children = as_children(children)
        sizes = children.sum(axis=2)
        totals = sizes.sum(axis=1)
        if context is not None and context.sample_data is not None:
            parent_u, child_u = self._label_mass_impurities(children, context)
        else:
            parent_u = np.full(len(children), self.node_value(parent))
            child_u = self.count_impurity(children)
        weights = sizes / np.where(totals > 0, totals, 1.0)[:, None]
        return parent_u - np.where(sizes > 0, weights * child_u, 0.0).sum(axis=1)

    # -- impurity from label masses (eq. 22) --------------------------------------
    def _label_mass_impurities(self, children: np.ndarray, context: SplitContext):
        from treebench.kernels.belief import node_masses, split_masses

        data = np.asarray(context.sample_data, dtype=float)
        if data.ndim != 2 or data.shape[1] != 3 or children.shape[2] != 2:
            raise TreebenchError(
                "criterion 'belief': label masses need two classes and sample_data of shape (n, 3) "
                f"(m(class 0), m(class 1), m(Omega)); got {data.shape} with {children.shape[2]} classes"
            )
        labels = data[context.order]
        parent_u = float(uncertainty(node_masses(labels), self.lam, self.variant))
        if context.kind == "numeric":
            left, right = split_masses(labels, context.positions)
            child = np.stack([left, right], axis=1)
        else:
            codes = np.asarray(context.values)
            present = np.unique(codes)
            if children.shape[0] != 1 or children.shape[1] != len(present):
                raise TreebenchError(
                    "criterion 'belief': label masses support numeric features and multiway "
                    "nominal splits; accepted: nominal_split=multiway"
                )
            child = np.stack([node_masses(labels[codes == c]) for c in present])[None, :, :]
        child_u = uncertainty(child, self.lam, self.variant)
        return np.full(len(children), parent_u), child_u


@njit(cache=True, inline="always")
def class_params(cid: int, params: np.ndarray, k: int):
    """``(cid, params)`` completed for ``k`` classes from ``[lam, printed]`` (columns ``B_*`` of
    :mod:`treebench.kernels.belief`).

    One-vs-rest with two classes is the natural impurity (the numpy criterion's rule).
    """
    one_vs_rest = cid == ONE_VS_REST and k > 2
    out = np.empty(5)
    out[B_LAM] = params[0]
    out[B_PRINTED] = params[1]
    if not one_vs_rest:
        out[B_SHARE] = 1.0 / k
        out[B_LOG_FRAME] = math.log2(k)
        out[B_G_SCALE] = 1.0
        return np.int64(NATURAL), out
    # every class against the rest: two-class frames, averaged over the k classes
    out[B_SHARE] = 0.5
    out[B_LOG_FRAME] = 1.0
    out[B_G_SCALE] = 1.0 / k
    return np.int64(ONE_VS_REST), out


@njit(cache=True)
def g(q: float, c: float) -> float:
    """``c log2(c + share)`` (``q = params[B_SHARE]``, the pignistic share of Omega)."""
    return c * math.log2(c + q)


# Inlined, unlike the other criteria's scalar functions: the threshold scan holds every
# additive criterion's mass in one loop, and a call left in it (never taken by the others)
# made the weighted entropy fit 7 % slower than main's hand-written chain (fit time against
# scikit-learn's on pendigits); inlined, with scalars only, it is 4 % slower and the
# unweighted entropy and Gini fits 7 % faster.
@njit(cache=True, inline="always")
def mass(q: float, s, g_sum: float, g_s: float, lam: float, printed: float, frame: float, g_scale: float) -> float:
    """``s * u_lambda`` of a child of size ``s`` from ``G``; the last four are columns ``B_LAM``,
    ``B_PRINTED``, ``B_LOG_FRAME``, ``B_G_SCALE`` of the parameters :func:`class_params` completed.

    ``(s + 1) u = (1 - lam) L + lam (s log2(s + 1) - G') - printed lam s L``
    with ``L`` the log2 of the frame and ``G'`` the scaled ``G``: eqs. 15-19,
    or the printed closed form, with crisp counts (see the module docstring).
    """
    size = float(s)
    inner = (1.0 - lam) * frame + lam * (size * math.log2(size + 1.0) - g_scale * g_sum)
    inner -= printed * lam * size * frame
    return size / (size + 1.0) * inner


# mass reads params[1:5] in this order (the dispatch hands them over as scalars)
assert (B_LAM, B_PRINTED, B_LOG_FRAME, B_G_SCALE) == (1, 2, 3, 4)

KERNELS = (
    Kernel(NATURAL, "belief", ADDITIVE, class_count=True, label_masses=True, mass_params=4),
    Kernel(ONE_VS_REST, "belief_ovr", ADDITIVE, class_count=True, one_vs_rest=True, mass_params=4),
)
CRITERIA = (Belief,)
