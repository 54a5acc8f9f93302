"""Paper 004: the simulated expert labels a config's trials actually use, summarised per dataset.

Section 4 of the paper describes its K-complex class as every EEG pattern at
least one of five experts named, only half of them named by a majority.  The
rerun simulates such labels on public data
(:mod:`treebench.data.label_uncertainty`); this module regenerates them
exactly as the trials do (same seed stream, one draw per dataset) and
measures what the text fixes: the share of class 1 without a majority of
experts, and the class shares of the crisp labels every learner trains and
is tested on (the "below majority" flag compares accuracies with the largest
of them, not with the dataset card's counts).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class LabelSummary:
    """One dataset's simulated labels.

    Attributes
    ----------
    n:
        Examples.
    crisp_counts:
        Crisp label counts ``(class 0, class 1)`` after the simulation.
    no_majority:
        Share of crisp class 1 named by at most half of the experts.
    uncertain:
        Examples whose label mass is not one-hot (rated and not unanimous).
    """

    n: int
    crisp_counts: tuple[int, int]
    no_majority: float
    uncertain: int

    @property
    def majority_rate(self) -> float:
        """Share of the largest crisp class: the accuracy of always answering it."""
        return max(self.crisp_counts) / self.n if self.n else float("nan")


def label_summaries(config: str | Path) -> dict[str, LabelSummary]:
    """Dataset name -> :class:`LabelSummary` of the labels the config's trials use.

    Empty when the config simulates no labels.  A dataset that cannot be
    loaded here is left out (the report says nothing rather than guess).
    """
    from treebench.data.label_uncertainty import no_majority_share
    from treebench.experiment.config import load_config
    from treebench.report.anomalies import simulated_labels

    simulated = simulated_labels(config)
    if not simulated:
        return {}
    c = load_config(config).label_uncertainty.uncertain_class
    out: dict[str, LabelSummary] = {}
    for name, (masses, labels) in simulated.items():
        crisp = np.bincount(labels, minlength=2)
        uncertain = int(np.count_nonzero(masses.max(axis=1) < 1.0))
        out[name] = LabelSummary(len(labels), (int(crisp[0]), int(crisp[1])),
                                 no_majority_share(masses, labels, c), uncertain)
    return out
