"""Plain-numpy reference of the MEE split search (slow; for tests).

It follows the definitions literally -- one error-entropy curve per feature,
class set and orientation, from :func:`treebench.criteria.mee.error_entropy_curve`
-- and visits candidates in the compiled kernel's order (feature, class set,
orientation, threshold), so both must pick the same split.
"""

from __future__ import annotations

import numpy as np

from treebench.criteria.mee import error_entropy_curve, is_convex, unsplit_error_entropy
from treebench.kernels.tolerances import TIE_TOLERANCE


def reference_best_split(
    X: np.ndarray,
    y: np.ndarray,
    sets: list[tuple[int, ...]],
    points: int,
    min_child: int = 1,
    error_rates: str = "joint",
) -> tuple[float, int, int, int, float, float]:
    """Same contract as :func:`treebench.kernels.mee.best_mee_split`."""
    best = (np.inf, -1, -1, -1, 0.0, 0.0)
    for f in range(X.shape[1]):
        x = X[:, f]
        levels = np.unique(x)
        if levels.size < 2:
            continue
        for s, members in enumerate(sets):
            t = np.where(np.isin(y, members), 1, -1)
            unsplit = unsplit_error_entropy(float((t == 1).sum()), float(t.size), error_rates)
            for orientation in (0, 1):
                _, grid_curve, _ = error_entropy_curve(x, t, points, orientation, error_rates)
                if not is_convex(grid_curve):
                    continue
                _, curve, _ = error_entropy_curve(x, t, None, orientation, error_rates)
                n_left = (x[None, :] <= levels[:, None]).sum(axis=1)
                # the last level sends everything left; too small a side is no candidate
                allowed = (n_left >= min_child) & (x.size - n_left >= min_child)
                allowed[-1] = False
                if not allowed.any():
                    continue
                j = int(np.argmin(np.where(allowed, curve, np.inf)))
                if curve[j] < unsplit - TIE_TOLERANCE and curve[j] < best[0] - TIE_TOLERANCE:
                    best = (float(curve[j]), s, f, orientation, float(levels[j]), float(levels[j + 1]))
    return best
