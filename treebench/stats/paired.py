"""Per-dataset paired tests over folds/repeats, and Weka's significance marks.

Two tests compare an algorithm with a baseline on the same (repeat, fold)
trials:

* the plain paired t-test, ``t = mean(d) / sqrt(var(d) / k)``;
* the corrected resampled t-test of Nadeau & Bengio (2003), which Weka's
  Experimenter uses by default (``weka.experiment.PairedCorrectedTTester``):

  .. math:: t = \\frac{\\bar d}{\\sqrt{(1/k + n_{test}/n_{train})\\,\\hat\\sigma^2_d}}

  with ``k`` paired differences, the sample variance (ddof=1) and ``k - 1``
  degrees of freedom.  Training sets of different folds overlap, so the
  differences are positively correlated and the plain test's ``1/k`` term
  understates the variance; the ``n_test/n_train`` term is their correction.

Both follow Weka when the differences have zero variance: ``p = 1`` when all
differences are zero, ``p = 0`` when they are all equal and non-zero.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
from scipy import stats

from treebench.errors import TreebenchError, one_of

PAIRED_TESTS = ("ttest", "corrected-ttest")

#: Default n_test/n_train: one fold of 10-fold cross-validation against the
#: other nine, Weka's Experimenter default.
DEFAULT_TEST_TRAIN_RATIO = 1.0 / 9.0


@dataclass(frozen=True)
class PairedResult:
    """Outcome of one paired comparison ``x`` (candidate) vs ``y`` (baseline).

    Attributes
    ----------
    statistic
        The t statistic of ``mean(x - y)`` (NaN when undefined).
    p_value
        Two-sided p-value (1.0 with fewer than two pairs).
    df
        Degrees of freedom, ``k - 1``.
    mean_diff
        ``mean(x - y)``.
    k
        Number of pairs.
    """

    statistic: float
    p_value: float
    df: int
    mean_diff: float
    k: int

    def significant(self, alpha: float) -> bool:
        """Whether the difference is significant at level ``alpha`` (Weka: ``p <= alpha``)."""
        return self.k > 1 and self.p_value <= alpha


def _t_test(d: np.ndarray, variance_factor: float) -> PairedResult:
    """t = mean(d) / sqrt(variance_factor * var(d)), df = k - 1, two-sided."""
    k = int(d.size)
    if k < 2:
        return PairedResult(math.nan, 1.0, max(k - 1, 0), float(d.mean()) if k else math.nan, k)
    mean = float(d.mean())
    var = float(d.var(ddof=1))
    if not var > 0.0:
        # Weka's convention for constant differences (see module docstring).
        p = 1.0 if np.all(d == 0) else 0.0
        t = 0.0 if p == 1.0 else math.copysign(math.inf, mean)
        return PairedResult(t, p, k - 1, mean, k)
    t = mean / math.sqrt(variance_factor * var)
    p = float(2.0 * stats.t.sf(abs(t), k - 1))
    return PairedResult(t, p, k - 1, mean, k)


def paired_ttest(x: np.ndarray, y: np.ndarray) -> PairedResult:
    """Plain paired t-test of ``x`` against ``y`` (same as ``scipy.stats.ttest_rel``)."""
    d = _differences(x, y)
    return _t_test(d, 1.0 / max(d.size, 1))


def corrected_ttest(x: np.ndarray, y: np.ndarray, test_train_ratio: float = DEFAULT_TEST_TRAIN_RATIO) -> PairedResult:
    """Nadeau & Bengio's corrected resampled t-test, as in Weka's Experimenter.

    Parameters
    ----------
    x, y
        Paired values (same (repeat, fold) trials), candidate and baseline.
    test_train_ratio
        ``n_test / n_train`` of one trial: ``1/(K-1)`` for K-fold
        cross-validation, ``0.3/0.7`` for a 70/30 hold-out.
    """
    if not 0 <= test_train_ratio < float("inf"):  # an infinite ratio makes every p equal 1
        raise TreebenchError(f"--test-train-ratio {test_train_ratio} is out of range; accepted: a finite number >= 0 "
                             "(n_test / n_train, e.g. 1/9 for 10-fold cross-validation)")
    d = _differences(x, y)
    return _t_test(d, 1.0 / max(d.size, 1) + test_train_ratio)


def run_paired(
    name: str, x: np.ndarray, y: np.ndarray, test_train_ratio: float = DEFAULT_TEST_TRAIN_RATIO
) -> PairedResult:
    """Dispatch on a test name from :data:`PAIRED_TESTS`."""
    if name == "ttest":
        return paired_ttest(x, y)
    if name == "corrected-ttest":
        return corrected_ttest(x, y, test_train_ratio)
    raise one_of(name, PAIRED_TESTS, "paired test")


def _differences(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"paired samples differ in length: {x.shape} vs {y.shape}")
    return x - y


def weka_mark(result: PairedResult, alpha: float, higher_is_better: bool) -> str:
    """Weka's mark for a candidate against the baseline.

    ``"v"`` significantly better, ``"*"`` significantly worse, ``""``
    otherwise.  Weka itself marks by the sign of the difference (``v`` =
    larger value); here "better" follows the metric, so a significantly
    *lower* error is marked ``v`` too.
    """
    if not result.significant(alpha) or result.mean_diff == 0 or math.isnan(result.mean_diff):
        return ""
    larger = result.mean_diff > 0
    return "v" if larger == higher_is_better else "*"


def ratio_from_protocol(protocol: object, default: float = DEFAULT_TEST_TRAIN_RATIO) -> float:
    """``n_test / n_train`` implied by a protocol label of the results store.

    Understands the runner's labels — ``cv10x1`` (10 folds, 1 repeat),
    ``holdout0.3x10`` (30 % test), ``ordered0.8`` (first 80 % train), ``loo``
    — and loose spellings such as ``10-fold``.  Leave-one-out gives 0 (the
    exact ratio, 1/(n-1), is negligible).  Anything else (a fixed train/test
    pair, an empty value) gives ``default``.
    """
    text = str(protocol or "").strip().lower()
    if not text or text == "nan":
        return default
    if text.startswith("loo") or "leave-one-out" in text:
        return 0.0
    m = re.match(r"cv\s*(\d+)", text) or re.search(r"(\d+)\s*[-_ ]?fold", text)
    if m:
        return _kfold_ratio(int(m.group(1)), default)
    m = re.match(r"holdout\s*(\d*\.?\d+)", text)
    if m:
        f = float(m.group(1))
        return f / (1.0 - f) if 0 < f < 1 else default
    m = re.match(r"ordered\s*(\d*\.?\d+)", text)
    if m:
        f = float(m.group(1))
        return (1.0 - f) / f if 0 < f < 1 else default
    return default


def _kfold_ratio(k: int, default: float) -> float:
    return 1.0 / (k - 1) if k >= 2 else default
