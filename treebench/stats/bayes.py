"""Bayesian signed-rank test with a region of practical equivalence (ROPE).

Benavoli, Corani, Demšar & Zaffalon, "Time for a change: a tutorial for
comparing multiple classifiers through Bayesian analysis", JMLR 18 (2017),
section 4 (after Benavoli et al., ICML 2014).  The per-dataset differences
``z_1..z_n`` get a Dirichlet-process posterior with a prior pseudo-observation
at ``z_0 = 0`` of weight ``prior`` (0.5 in the paper).  A draw
``w ~ Dirichlet(prior, 1, ..., 1)`` gives

.. math:: \\theta_{better} = \\sum_{i,j} w_i w_j H(z_i + z_j - 2r), \\quad
          \\theta_{worse} = \\sum_{i,j} w_i w_j H(-z_i - z_j - 2r),

``theta_rope = 1 - theta_better - theta_worse`` (``H`` is the Heaviside step
with ``H(0) = 1/2``, ``r`` the ROPE half-width).  P(A better), P(equivalent) and
P(B better) are the fractions of draws in which each of the three is the
largest.  Draws come from ``numpy.random.RandomState(seed).dirichlet``, so a
given seed and sample count reproduce ``baycomp.SignedRankTest`` draw for draw.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from treebench.errors import TreebenchError

#: Monte Carlo draws and seed used when the caller gives none.
DEFAULT_SAMPLES = 50_000
DEFAULT_SEED = 0
#: Weight of the prior pseudo-observation at zero difference (Benavoli et al. 2017).
DEFAULT_PRIOR = 0.5
#: The most Monte Carlo draws accepted.  A draw holds ``n + 1`` Dirichlet weights
#: and ``n + 1`` partial sums (``n`` datasets) plus its three probabilities, 8 bytes
#: each, and every pair keeps its three: 10^6 draws over 30 datasets take about
#: 0.5 GB at once, plus 24 MB per pair.  More draws change the third decimal at most.
MAX_SAMPLES = 1_000_000
#: The seeds ``numpy.random.RandomState`` accepts: 0 .. 2**32 - 1.
MAX_SEED = 2**32 - 1


def check_draws(nsamples: object, seed: object) -> tuple[int, int]:
    """``(nsamples, seed)`` as integers within their bounds, else a one-line :class:`TreebenchError`."""
    if isinstance(nsamples, bool) or not isinstance(nsamples, (int, np.integer)) or not 1 <= nsamples <= MAX_SAMPLES:
        raise TreebenchError(
            f"--samples {nsamples} is out of range; accepted: an integer from 1 to {MAX_SAMPLES:,} "
            "(each draw takes 16 bytes per dataset: 10^6 draws over 30 datasets about 0.5 GB)"
        )
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed <= MAX_SEED:
        raise TreebenchError(f"--seed {seed} is out of range; accepted: an integer from 0 to {MAX_SEED} (2**32 - 1)")
    return int(nsamples), int(seed)


@dataclass(frozen=True)
class BayesResult:
    """Posterior of one pair's comparison over datasets.

    Attributes
    ----------
    a, b
        Algorithm names; "better" follows the metric's direction.
    p_a_better, p_rope, p_b_better
        Posterior probabilities (fractions of Monte Carlo draws) that A is
        practically better, that they are practically equivalent, that B is better.
    rope
        Half-width of the ROPE, in the units of the differences.
    n
        Number of datasets.
    samples
        The draws, shape ``(nsamples, 3)``: columns ``theta_B_better, theta_rope,
        theta_A_better`` (the order of the simplex plot).
    seed
        Seed of the draws.
    """

    a: str
    b: str
    p_a_better: float
    p_rope: float
    p_b_better: float
    rope: float
    n: int
    samples: np.ndarray
    seed: int


def signed_rank_samples(
    diffs: np.ndarray,
    rope: float = 0.0,
    *,
    prior: float = DEFAULT_PRIOR,
    nsamples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
) -> np.ndarray:
    """Posterior draws of ``(theta_worse, theta_rope, theta_better)``.

    Parameters
    ----------
    diffs
        Per-dataset differences, positive when the first algorithm is better.
    rope
        ROPE half-width (same units as ``diffs``), at least 0.
    prior, nsamples, seed
        Prior weight at zero, number of draws, seed of ``RandomState``.

    Returns
    -------
    numpy.ndarray
        Shape ``(nsamples, 3)``; each row sums to 1.
    """
    z = np.asarray(diffs, dtype=float)
    if z.ndim != 1 or z.size < 1 or not np.all(np.isfinite(z)):
        raise TreebenchError("the Bayesian signed-rank test needs finite differences on at least one dataset")
    if rope < 0 or not np.isfinite(rope):
        raise TreebenchError(f"--rope must be a finite value >= 0, got {rope}")
    nsamples, seed = check_draws(nsamples, seed)
    full = np.concatenate(([0.0], z))
    sums = full[:, None] + full[None, :]
    above = (sums > 2 * rope) + 0.5 * (sums == 2 * rope)
    below = (-sums > 2 * rope) + 0.5 * (-sums == 2 * rope)
    weights = np.ones(full.size)
    weights[0] = prior
    w = np.random.RandomState(seed).dirichlet(weights, nsamples)
    out = np.empty((nsamples, 3))
    # w_s^T H w_s for every draw s: one matrix product (BLAS) instead of a three-operand einsum loop
    out[:, 2] = ((w @ above) * w).sum(axis=1)
    if rope > 0:
        out[:, 0] = ((w @ below) * w).sum(axis=1)
    else:  # without a ROPE, ties at zero count for "better" by half, as in baycomp
        out[:, 0] = 1.0 - out[:, 2]
    out[:, 1] = 1.0 - out[:, 0] - out[:, 2]
    return out


def signed_rank(
    x: np.ndarray,
    y: np.ndarray,
    a: str = "A",
    b: str = "B",
    *,
    rope: float = 0.0,
    higher_is_better: bool = True,
    prior: float = DEFAULT_PRIOR,
    nsamples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
) -> BayesResult:
    """Bayesian signed-rank test of ``a`` (scores ``x``) against ``b`` (``y``) over datasets.

    Parameters
    ----------
    x, y
        Per-dataset mean scores of ``a`` and ``b``, same units as ``rope``.
    rope
        Half-width of the region of practical equivalence (0: none).
    higher_is_better
        Metric direction; with ``False`` a lower score is "better".

    Returns
    -------
    BayesResult
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape:
        raise TreebenchError("the Bayesian signed-rank test needs the same datasets for both algorithms")
    d = x - y if higher_is_better else y - x
    s = signed_rank_samples(d, rope, prior=prior, nsamples=nsamples, seed=seed)
    winners = np.argmax(s, axis=1)
    pw, pe, pb = np.bincount(winners, minlength=3) / len(winners)
    return BayesResult(a, b, float(pb), float(pe), float(pw), float(rope), int(d.size), s, int(seed))


def pairwise_signed_rank(means, rope: float = 0.0, higher_is_better: bool = True, *,
                         nsamples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED) -> list[BayesResult]:
    """:func:`signed_rank` for every pair of columns of a datasets x algorithms matrix.

    Every pair uses the same ``seed``, so each result is reproducible on its own.
    """
    import itertools

    check_draws(nsamples, seed)  # before any pair is drawn
    cols = list(means.columns)
    return [
        signed_rank(means[a].to_numpy(), means[b].to_numpy(), str(a), str(b), rope=rope,
                    higher_is_better=higher_is_better, nsamples=nsamples, seed=seed)
        for a, b in itertools.combinations(cols, 2)
    ]


def plot_simplex(results: list[BayesResult], path, max_points: int = 3000) -> list:
    """Draw each pair's posterior draws in a triangle (matplotlib), the pairs as a matrix.

    Row *i* holds the pairs whose A is the *i*-th algorithm, column *j* those whose B is the
    (*j*+1)-th: with *m* algorithms an (*m*-1) x (*m*-1) grid whose upper triangle is filled,
    so every panel stays readable however many algorithms there are.  Corners: B better (left),
    A better (right), equivalent (top), each with its posterior probability.  ``path`` without
    suffix gets ``.png`` and ``.svg``.

    Returns
    -------
    list of pathlib.Path
        The files written.
    """
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not results:
        raise TreebenchError("no pair to plot")
    base = Path(path)
    base = base.with_suffix("") if base.suffix in (".png", ".svg", ".pdf") else base
    names = list(dict.fromkeys(name for r in results for name in (r.a, r.b)))
    where = {name: i for i, name in enumerate(names)}
    size = max(1, len(names) - 1)
    panel = 2.7 if size <= 4 else 2.2
    fig, axes = plt.subplots(size, size, figsize=(panel * size, panel * size * 0.95), squeeze=False)
    used = np.zeros((size, size), dtype=bool)
    corners = np.array([[0.0, 0.0], [0.5, np.sqrt(3) / 2], [1.0, 0.0]])  # B, rope, A
    centre = corners.mean(axis=0)
    for r in results:
        row, col = sorted((where[r.a], where[r.b]))
        ax = axes[row, col - 1]
        used[row, col - 1] = True
        pts = r.samples[:max_points] @ corners
        ax.scatter(pts[:, 0], pts[:, 1], s=1.5, alpha=0.3, color="tab:blue", linewidths=0, rasterized=True)
        tri = np.vstack([corners, corners[:1]])
        ax.plot(tri[:, 0], tri[:, 1], color="black", lw=0.8)
        # lines from the centre to the edges' midpoints separate the regions where each wins
        for i, j in ((0, 1), (1, 2), (0, 2)):
            mid = (corners[i] + corners[j]) / 2
            ax.plot([centre[0], mid[0]], [centre[1], mid[1]], color="grey", lw=0.6, ls="--")
        ax.text(0.0, -0.05, f"{r.b}\n{r.p_b_better:.3f}", ha="left", va="top", fontsize=7)
        ax.text(1.0, -0.05, f"{r.a}\n{r.p_a_better:.3f}", ha="right", va="top", fontsize=7)
        ax.text(0.5, np.sqrt(3) / 2 + 0.03, f"equivalent {r.p_rope:.3f}", ha="center", va="bottom", fontsize=7)
        ax.set_xlim(-0.08, 1.08)
        ax.set_ylim(-0.3, 1.05)
        ax.set_aspect("equal")
    for row in range(size):
        for col in range(size):
            axes[row, col].axis("off")
            if not used[row, col]:
                axes[row, col].set_visible(False)
    for row in range(size):  # which algorithm a row and a column compare
        axes[row, row].text(-0.12, 0.45, names[row], rotation=90, ha="right", va="center", fontsize=9,
                            fontweight="bold", transform=axes[row, row].transData)
    for col in range(size):
        axes[0, col].set_title(names[col + 1], fontsize=9, fontweight="bold")
    rope = results[0].rope
    fig.suptitle(f"Bayesian signed-rank posteriors, ROPE ±{rope:g} (row: A, column: B; "
                 "corner numbers: P(B better), P(A better), P(equivalent))", fontsize=9)
    fig.tight_layout()
    from treebench.outpaths import with_extension, write_with

    out = []
    try:
        for suffix in (".png", ".svg"):  # each to a temporary name, renamed; one line when it cannot be
            target = with_extension(base, suffix)
            out.append(write_with(target, lambda tmp: fig.savefig(tmp, dpi=150), f"--plot {str(base)!r}"))
    finally:
        plt.close(fig)
    return out
