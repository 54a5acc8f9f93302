"""Paper 000, Figs. 2-3 as graded claims: four statements about random trees on yeast.

Section 5 reads four statements off Figs. 2-3 (random trees on yeast,
:mod:`.random_trees`).  Each becomes a ``difference`` claim whose effect is
one number oriented so that + goes the way the text says, computed on the
random trees of the report's section "Figures 2–3" (``random_trees.csv`` of
the paper's report folder), with a 95 % percentile interval from resampling
the random 90/10 splits (each split's trees move together):

* ``entropy_falls`` -- Fig. 2 top, "the classical entropy of the tree always
  decreases when its size increases": minus the rank correlation of the
  training entropy with the number of leaves (trees thresholded by log entropy);
* ``h_star_valley`` -- Fig. 2 bottom, H*(T, γ) "first decreases with size and
  then increases": the smaller of (minus the slope of H* on the leaves over
  the first third of the size range) and (the slope over the last third),
  per 100 leaves -- positive only when it falls early *and* rises late;
* ``log_plateau`` -- Fig. 3 top, a threshold "below which decreasing log
  entropy doesn't increase the accuracy": the slope of test accuracy on the
  training log entropy over the lowest-entropy fifth of the trees (points of
  accuracy per bit; + = accuracy falls as entropy falls, over-fitting; 0 =
  a plateau; - = accuracy still rising);
* ``h_star_accuracy`` -- Fig. 3 bottom, "decreasing H* on the training set
  tends to increase the accuracy": minus the rank correlation of H* with
  test accuracy.

H* is the default reading of eq. 18 (leaves weighted by their share of the
examples, :data:`~treebench.papers.serrurier2015.figures.READING`); the
claims' details give the same statistic for eq. 18 as printed.  The figures
print no numbers, so the paper's effect is unknown (NaN): a claim is
reproduced when the interval lies above 0.  The random trees do not depend on
the learners' readings, so every reading grades them alike.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from treebench.report.claims import DIFFERENCE, ClaimOutcome, Effect, judge, not_testable
from treebench.report.registry import claim_kind

if TYPE_CHECKING:
    import pandas as pd

#: Where ``treebench reproduce serrurier2015`` keeps the random trees (the paper's report folder,
#: relative to the repository root as the configs are): the section "Figures 2–3" writes them.
RANDOM_TREES_FOLDER = "results/serrurier2015"
#: The share of the lowest-entropy log trees whose slope ``log_plateau`` measures.
LOW_SHARE = 0.2


def _ranks(x: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    return rankdata(x)


def _sums(groups: np.ndarray, n_groups: int, part: np.ndarray) -> np.ndarray:
    """Per group (random split), over the trees of weight 1 in ``part`` (columns x, y, weight 0/1):
    n, Σx, Σy, Σx², Σy², Σxy -- what a correlation or a slope needs."""
    x, y, w = np.asarray(part, dtype=float).T
    columns = (w, w * x, w * y, w * x * x, w * y * y, w * x * y)
    return np.column_stack([np.bincount(groups, weights=c, minlength=n_groups) for c in columns])


def _slope(s: np.ndarray) -> np.ndarray:
    """Least-squares slope of y on x from the sums of :func:`_sums` (rows: draws)."""
    n, sx, sy, sxx, _, sxy = s.T
    with np.errstate(divide="ignore", invalid="ignore"):  # a draw with no tree in a region: NaN, left out
        return (sxy - sx * sy / n) / (sxx - sx * sx / n)


def _corr(s: np.ndarray) -> np.ndarray:
    """Pearson correlation from the sums of :func:`_sums` (of ranks: Spearman's, ranks over all trees)."""
    n, sx, sy, sxx, syy, sxy = s.T
    with np.errstate(divide="ignore", invalid="ignore"):
        return (sxy - sx * sy / n) / np.sqrt((sxx - sx * sx / n) * (syy - sy * sy / n))


def _part(x: object, y: object, mask: object = None) -> np.ndarray:
    """Columns x, y and the 0/1 weight of the trees a statistic reads (all of them without ``mask``)."""
    x = np.asarray(x, dtype=float)
    w = np.ones_like(x) if mask is None else np.asarray(mask, dtype=float)
    return np.column_stack([x, np.asarray(y, dtype=float), w])


def _effect_of(name: str, trees: pd.DataFrame, column: str, max_leaves: int) -> tuple[list[np.ndarray], object]:
    """Per-split sums and the function of their totals giving the statistic ``name`` (``column``: H*)."""
    if name == "entropy_falls":
        return [_part(_ranks(trees["n_leaves"]), _ranks(trees["entropy"]))], lambda s: -_corr(s[0])
    if name == "h_star_valley":
        third = max_leaves / 3.0
        early, late = trees["n_leaves"] <= third, trees["n_leaves"] >= 2 * third
        return ([_part(trees["n_leaves"], trees[column], mask) for mask in (early, late)],
                lambda s: 100.0 * np.minimum(-_slope(s[0]), _slope(s[1])))
    if name == "log_plateau":
        low = trees["entropy"] <= np.quantile(trees["entropy"], LOW_SHARE)
        return ([_part(trees["entropy"], 100.0 * trees["accuracy"], low)],
                lambda s: _slope(s[0]))
    if name == "h_star_accuracy":
        return [_part(_ranks(trees[column]), _ranks(trees["accuracy"]))], lambda s: -_corr(s[0])
    raise ValueError(f"unknown statistic {name!r}; accepted: {', '.join(STATISTICS)}")


#: Statistic -> (threshold rule of its trees, what its effect measures, + = as the text says).
STATISTICS = {
    "entropy_falls": ("log", "−Spearman ρ(leaves, classical training entropy), log-entropy trees (+ = entropy "
                             "falls as the tree grows)"),
    "h_star_valley": ("possibilistic", "min(−slope over the first third of the sizes, slope over the last third) "
                                       "of H*(T, γ) on the leaves, per 100 leaves (+ = falls, then rises)"),
    "log_plateau": ("log", f"slope of test accuracy (points) on training log entropy (bits) over the lowest-entropy "
                           f"{LOW_SHARE:.0%} of the trees (+ = accuracy lower at lower entropy: over-fitting; "
                           "0 = plateau; − = still rising)"),
    "h_star_accuracy": ("possibilistic", "−Spearman ρ(H*(T, γ) on training, test accuracy) (+ = lower H*, "
                                         "higher accuracy)"),
}


def resampled(trees: pd.DataFrame, name: str, column: str, max_leaves: int, *, resamples: int | None = None,
              seed: int | None = None) -> tuple[float, float, float]:
    """The statistic ``name`` on ``trees`` and its 95 % percentile interval over the random splits resampled.

    Every draw takes as many splits as there are, with replacement, each with all of its trees; the
    statistic is recomputed from the drawn splits' sums (ranks stay those over all trees).
    """
    from treebench.stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED

    trees = trees[trees["rule"].astype(str) == STATISTICS[name][0]]
    codes, groups = np.unique(trees["repetition"].to_numpy(), return_inverse=True)
    n = len(codes)
    parts, statistic = _effect_of(name, trees, column, max_leaves)
    sums = [_sums(groups, n, p) for p in parts]
    estimate = float(np.asarray(statistic([s.sum(axis=0)[None, :] for s in sums])).ravel()[0])
    rng = np.random.default_rng(DEFAULT_SEED if seed is None else seed)
    draws = rng.multinomial(n, np.full(n, 1.0 / n), size=resamples or DEFAULT_RESAMPLES).astype(float)
    values = np.asarray(statistic([draws @ s for s in sums]), dtype=float)
    values = values[np.isfinite(values)]
    if not values.size or not math.isfinite(estimate):
        return estimate, math.nan, math.nan
    low, high = np.quantile(values, [0.025, 0.975])
    return estimate, float(low), float(high)


def expected_settings() -> dict:
    """The settings of the section's default run (what the cached trees must have been made with)."""
    from treebench.papers.serrurier2015.random_trees import VERSION, RandomTreeSettings

    return {**RandomTreeSettings().as_dict(), "version": VERSION, "dataset": "yeast"}


def load_trees(folder: str | Path) -> tuple[pd.DataFrame | None, dict, str]:
    """The section's random trees in ``folder``: ``(frame, settings, "")`` or ``(None, {}, why not)``."""
    csv, meta = Path(folder) / "random_trees.csv", Path(folder) / "random_trees.json"
    if not csv.is_file() or not meta.is_file():
        return None, {}, (f"the random trees are not in {folder}: `treebench reproduce serrurier2015` makes them "
                          "(section \"Figures 2–3\")")
    settings = json.loads(meta.read_text(encoding="utf-8")).get("settings", {})
    if settings != expected_settings():
        return None, {}, f"the random trees in {folder} were made with other settings than the section's default"
    return _read(str(csv), csv.stat().st_mtime_ns), settings, ""


@functools.lru_cache(maxsize=4)
def _read(path: str, stamp: int) -> pd.DataFrame:
    import pandas as pd

    return pd.read_csv(path)


@functools.lru_cache(maxsize=32)
def _graded(path: str, stamp: int, name: str, column: str, max_leaves: int) -> tuple[float, float, float]:
    """:func:`resampled` once per file version (every reading grades the same trees)."""
    return resampled(_read(path, stamp), name, column, max_leaves)


@claim_kind("random_trees")
@dataclass(frozen=True)
class RandomTreesClaim:
    """One statement of Figs. 2-3, graded on the section's random trees (``statistic``: a key of :data:`STATISTICS`).

    Graded only beside a rerun whose trials hold trees (``n_leaves``): the
    paper's Table 1 read as trials has none, so the paper-on-paper grade is
    ``not testable`` (the figures print no numbers) rather than ours again.
    """

    text: str
    statistic: str
    folder: str = RANDOM_TREES_FOLDER

    #: An effect oriented the text's way, graded against 0 (the figures give no paper effect).
    kind = DIFFERENCE

    def in_folder(self, folder: str | Path) -> RandomTreesClaim:
        """This claim grading the random trees of the report being written in ``folder``."""
        return replace(self, folder=str(folder))

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """The statistic on the random trees, its interval and grade (or why not testable)."""
        from treebench.papers.serrurier2015.figures import H_STAR, H_STAR_PRINTED

        rule, measure = STATISTICS[self.statistic]
        out = ClaimOutcome(self.text, "yes (figure, no numbers)", "–", "not run", None)
        effect = Effect(measure, math.nan, "stated, read off a figure with no numbers", kind=self.kind)
        if not len(frame) or "n_leaves" not in frame.columns:
            effect.verdict = not_testable("no trees to grade: Figs. 2–3 print no numbers, and the random trees "
                                          "are ours, graded beside the rerun only")
            return out.set_effect(effect)
        trees, settings, why = load_trees(self.folder)
        if trees is None:
            effect.verdict = not_testable(why)
            return out.set_effect(effect)
        path = str(Path(self.folder) / "random_trees.csv")
        stamp = (Path(self.folder) / "random_trees.csv").stat().st_mtime_ns
        max_leaves = int(settings["max_leaves"])
        estimate, low, high = _graded(path, stamp, self.statistic, H_STAR, max_leaves)
        n_splits = int(trees["repetition"].nunique())
        effect.ours, effect.low, effect.high = estimate, low, high
        effect.n_datasets = 1
        effect.datasets = ["yeast"]
        effect.verdict = judge(effect)
        out.set_effect(effect)
        out.ours = (f"{estimate:+.3g} [{low:+.3g}, {high:+.3g}] over {n_splits} random splits of yeast "
                    f"({int((trees['rule'] == rule).sum())} trees, γ = {settings['gamma']:g})")
        out.literal = bool(estimate > 0)
        if "h_star" in self.statistic:
            printed = _graded(path, stamp, self.statistic, H_STAR_PRINTED, max_leaves)
            out.details.append(f"eq. 18 as printed (unweighted Σ_l H*): {printed[0]:+.3g} "
                               f"[{printed[1]:+.3g}, {printed[2]:+.3g}]; the default reading (weighted by the "
                               "leaves' shares) grades the claim")
        return out
