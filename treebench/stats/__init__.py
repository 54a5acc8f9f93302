"""Significance tests and aggregation over a tidy results frame.

* :mod:`treebench.stats.metrics` — which metrics exist, their direction and display.
* :mod:`treebench.stats.frame` — select finished trials, pair them, per-dataset means.
* :mod:`treebench.stats.paired` — per-dataset paired t-test and Nadeau-Bengio corrected
  resampled t-test (Weka's Experimenter), Weka's ``v``/``*`` marks.
* :mod:`treebench.stats.across` — Wilcoxon signed-rank, Friedman + Nemenyi (Demšar 2006).
* :mod:`treebench.stats.oneway` — Levene, then ANOVA + Tukey or Kruskal-Wallis + Dunn
  (paper 001's protocol).
* :mod:`treebench.stats.multiple` — Holm and Bonferroni corrections of a family of p-values.
* :mod:`treebench.stats.posthoc` — pairwise rank z-tests after Friedman, Shaffer's static procedure.
* :mod:`treebench.stats.bayes` — Bayesian signed-rank test with a ROPE (Benavoli et al. 2017).

Every function takes a pandas DataFrame (or arrays); nothing here reads SQLite.
See ``docs/statistics.md``.
"""

from __future__ import annotations

from treebench.lazy import lazy_getattr

# Submodules load on first use: scipy.stats alone costs ~1 s of start-up, and a run's
# trials only need the metric registry (``treebench.stats.metrics``).
_ATTRIBUTES = {
    **dict.fromkeys(
        ["FriedmanResult", "WilcoxonResult", "average_ranks", "cd_groups", "critical_difference",
         "friedman", "nemenyi_q", "pairwise_wilcoxon", "wilcoxon"],
        "treebench.stats.across",
    ),
    **dict.fromkeys(["Trials", "cell_summary", "means_matrix", "select_trials"], "treebench.stats.frame"),
    **dict.fromkeys(["COMPARE_METRICS", "METRICS", "Metric", "get_metric"], "treebench.stats.metrics"),
    **dict.fromkeys(["OneWayResult", "dunn", "oneway_protocol"], "treebench.stats.oneway"),
    **dict.fromkeys(
        ["DEFAULT_TEST_TRAIN_RATIO", "PAIRED_TESTS", "PairedResult", "corrected_ttest", "paired_ttest",
         "ratio_from_protocol", "run_paired", "weka_mark"],
        "treebench.stats.paired",
    ),
}
__getattr__ = lazy_getattr(__name__, _ATTRIBUTES)

__all__ = [
    "COMPARE_METRICS",
    "DEFAULT_TEST_TRAIN_RATIO",
    "METRICS",
    "PAIRED_TESTS",
    "FriedmanResult",
    "Metric",
    "OneWayResult",
    "PairedResult",
    "Trials",
    "WilcoxonResult",
    "average_ranks",
    "cd_groups",
    "cell_summary",
    "corrected_ttest",
    "critical_difference",
    "dunn",
    "friedman",
    "get_metric",
    "means_matrix",
    "nemenyi_q",
    "oneway_protocol",
    "paired_ttest",
    "pairwise_wilcoxon",
    "run_paired",
    "select_trials",
    "ratio_from_protocol",
    "weka_mark",
    "wilcoxon",
]
