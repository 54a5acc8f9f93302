"""Paper 003's own claim kinds: its per-dataset statements and the error-rate statements of its Results section.

The Results section states, dataset by dataset, that the certainty tree makes fewer training and
fewer test errors than C5.0 (:class:`FewerBothClaim`), that it "almost perfectly fits the training
data", and that every dataset it reports passed its filter, correct test guesses at least three times
the incorrect ones (both :class:`RateBelowClaim`).  Each claim is evaluated on the rerun's trials and,
by :func:`treebench.report.reproduce.grade_paper_on_paper`, on the paper's own counts turned into
trials (one per printed cell, the count as printed with a part size of 1: the part sizes then come
from the dataset card, split as the paper says, first 80 % train).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from treebench.report.claims import COUNT, ClaimOutcome, measured_effect, net_share
from treebench.report.registry import claim_kind

if TYPE_CHECKING:  # pandas is imported where a claim is evaluated: listing the papers stays cheap
    import pandas as pd

#: The store's column for the size of each counted part.
PART_SIZE = {"train_errors": "n_train", "test_errors": "n_test"}
#: The paper's split: the first 80 % of the rows train (``floor``, as the ordered protocol cuts).
TRAIN_FRACTION = 0.8
PART_NAMES = {"train_errors": "training", "test_errors": "test"}


def card_part_size(dataset: str, metric: str) -> float:
    """Rows of the ``metric``'s part of ``dataset`` under the paper's split, from the dataset card
    (NaN without a readable card)."""
    from treebench.data.cards import CardRegistry
    from treebench.data.settings import Settings
    from treebench.errors import TreebenchError

    try:
        rows = CardRegistry(Settings.from_env().cards_dir).get(dataset).expected.rows
    except (TreebenchError, OSError):
        return math.nan
    if not rows:
        return math.nan
    train = math.floor(rows * TRAIN_FRACTION)
    return float(train if metric == "train_errors" else rows - train)


def error_rates(frame: pd.DataFrame, dataset: str, algorithm: str, metric: str) -> np.ndarray:
    """Per trial of ``algorithm`` on ``dataset``: the error rate of ``metric``'s part.

    The count over the part's size; a trial whose size is 1 is a printed count
    (:func:`treebench.report.paper_frame.paper_frame`), divided by the card's part size.
    """
    import pandas as pd

    from treebench.report.cells import trial_values

    sub = frame[(frame["dataset"].astype(str) == dataset) & (frame["algorithm"].astype(str) == algorithm)]
    if not len(sub):
        return np.array([])
    counts = trial_values(sub, metric, "count").to_numpy(dtype=float)
    column = PART_SIZE[metric]
    sizes = (pd.to_numeric(sub[column], errors="coerce").to_numpy(dtype=float) if column in sub.columns
             else np.full(len(sub), np.nan))
    printed = ~(sizes > 1)
    if printed.any():
        sizes = np.where(printed, card_part_size(dataset, metric), sizes)
    rates = counts / sizes
    return rates[~np.isnan(rates)]


@claim_kind("rate_below")
@dataclass(frozen=True)
class RateBelowClaim:
    """"``a``'s error rate on the ``metric`` part is at most ``max_rate`` on every dataset" (no test).

    A ``count`` claim over ``datasets`` (empty: every dataset of the rerun): each dataset's mean
    rate is compared with ``max_rate`` (a dataset holds when it is strictly below, or equal).
    Effect: the net share of datasets below the rate (−1 to +1); the paper's, from its printed
    counts over the card's part sizes (its datasets with a card).  ``reading`` says how the
    sentence became the rate.
    """

    text: str
    a: str
    metric: str
    max_rate: float
    datasets: tuple[str, ...] = ()
    reading: str = ""

    #: "Every dataset": each named dataset must hold.
    kind = COUNT

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """Each dataset's mean rate against ``max_rate``, on the rerun, and the effect."""
        from treebench.report.cells import Matcher, ok_trials

        part, limit = PART_NAMES[self.metric], _percent(self.max_rate)
        measure = f"net share of datasets where {self.a}'s {part} error rate is at most {limit} (−1 to +1)"
        out = ClaimOutcome(self.text, self.reading or "yes", "–", "not run", None)
        paper = self._paper(cells, out)
        ok = ok_trials(frame) if len(frame) and {"dataset", "algorithm"} <= set(frame.columns) else frame.iloc[0:0]
        match = Matcher.of(ok)
        a = match.algorithm(self.a)
        if a is None:
            return out.set_effect(measured_effect(measure, paper, [], None, kind=self.kind,
                                                  empty=f"{self.a} not run"))
        names = [match.dataset(d) for d in self.datasets] if self.datasets else match.frame_datasets
        units: dict[str, np.ndarray] = {}
        for want, ds in zip(self.datasets or names, names):
            rates = error_rates(ok, ds, a, self.metric) if ds else np.array([])
            if not rates.size:
                out.details.append(f"{want}: not run")
                continue
            units[ds] = rates[:, None]
            mean = float(rates.mean())
            out.details.append(f"{ds}: {self.a} {part} error rate {_percent(mean)} "
                               f"({'at most' if mean <= self.max_rate else 'above'} {limit})")
        if units:
            below = sum(float(r.mean()) <= self.max_rate for r in units.values())
            out.ours = f"at most {limit} on {below} of {len(units)} dataset(s)"
            out.literal = below == len(units)
        # + when below the rate: a dataset exactly at it holds too (sign of rate - max is then 0 -> +1)
        effect = measured_effect(measure, paper, units,
                                 lambda m: np.where(m[:, 0] <= self.max_rate + 1e-12, 1.0, -1.0), net_share,
                                 kind=self.kind, empty=f"none of {', '.join(self.datasets) or 'the datasets'} "
                                                       f"rerun with {self.a}")
        return out.set_effect(effect)

    def _paper(self, cells: pd.DataFrame, out: ClaimOutcome) -> tuple[float, int, str]:
        """The net share on the paper's printed counts (datasets with a card), else as stated."""
        from treebench.report.cells import norm

        signs, shown = [], []
        if len(cells) and {"metric", "algorithm", "value", "dataset"} <= set(cells.columns):
            sub = cells[(cells["metric"] == self.metric) & (cells["algorithm"] == self.a)]
            wanted = {norm(d) for d in self.datasets}
            for r in sub.drop_duplicates("dataset_label").itertuples(index=False):
                card = str(r.dataset or "")
                if not card or (wanted and norm(card) not in wanted):
                    continue
                size = card_part_size(card, self.metric)
                if math.isnan(size):
                    continue
                rate = float(r.value) / size
                signs.append(1.0 if rate <= self.max_rate + 1e-12 else -1.0)
                shown.append(f"{r.dataset_label} {int(r.value)} of {int(size):,} ({_percent(rate)})")
        if signs:
            out.paper_numbers = "; ".join(shown)
            return float(np.mean(signs)), len(signs), f"its text, {len(signs)} dataset(s) with a printed count"
        return 1.0, 0, "stated, no count printed for a dataset with a card"


@claim_kind("fewer_both")
@dataclass(frozen=True)
class FewerBothClaim:
    """"``a`` makes fewer training **and** fewer test errors than ``b`` on ``dataset``" (one sentence each).

    A ``count`` claim over the two parts (both must hold, means compared, as the sentence
    states no test).  Effect: the net share of the two parts where ``a`` has fewer errors
    (−1 to +1).  With one shared split (file order) the two algorithms tested the same cases;
    their counts are set beside McNemar's exact test bounded over the unknown overlap of their
    errors (:func:`treebench.report.cells.paired_count_agreement`: the store keeps no
    per-case predictions for this paper), a detail, not the verdict.
    """

    text: str
    a: str
    b: str
    dataset: str
    parts: tuple[str, ...] = ("train_errors", "test_errors")

    #: Both parts must hold.
    kind = COUNT

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """The two parts' mean counts of ``a`` and ``b`` on ``dataset``, and the effect."""
        from treebench.report.cells import Matcher, ok_trials, paired_count_agreement, paired_values

        measure = (f"net share of the parts ({', '.join(PART_NAMES[p] for p in self.parts)}) of {self.dataset} "
                   f"where {self.a} makes fewer errors than {self.b} (−1 to +1)")
        out = ClaimOutcome(self.text, "yes", "–", "not run", None)
        paper = self._paper(cells, out)
        ok = ok_trials(frame) if len(frame) and {"dataset", "algorithm"} <= set(frame.columns) else frame.iloc[0:0]
        match = Matcher.of(ok)
        a, b, ds = match.algorithm(self.a), match.algorithm(self.b), match.dataset(self.dataset)
        if a is None or b is None or ds is None:
            missing = ", ".join(n for n, f in ((self.a, a), (self.b, b), (self.dataset, ds)) if f is None)
            return out.set_effect(measured_effect(measure, paper, [], None, kind=self.kind,
                                                  empty=f"{missing} not run"))
        units: dict[str, np.ndarray] = {}
        holds = []
        for part in self.parts:
            found = paired_values(ok[ok["dataset"].astype(str) == ds], [a, b], part, "count").get(ds)
            if found is None or not len(found):
                out.details.append(f"{ds} {PART_NAMES[part]}: no counts in the store")
                continue
            units[f"{ds} {PART_NAMES[part]}"] = found
            ea, eb = (float(v) for v in found.mean(axis=0))
            holds.append(ea < eb)
            line = f"{ds} {PART_NAMES[part]} errors: {self.a} {ea:.4g} vs {self.b} {eb:.4g}"
            size = _one_split_size(ok, ds, a, part)
            if len(found) == 1 and not math.isnan(size):
                paired = paired_count_agreement(int(round(ea)), int(round(eb)), int(size))
                line += (f"; the same {int(size):,} cases: exact McNemar p {paired.p_low:.3g} to {paired.p_high:.3g} "
                         "over the unknown overlap of their errors (no per-case predictions kept)")
            out.details.append(line)
        if holds:
            out.ours = f"fewer on {sum(holds)} of {len(holds)} part(s)"
            out.literal = all(holds)
        effect = measured_effect(measure, paper, units, lambda m: np.sign(m[:, 1] - m[:, 0]), net_share,
                                 kind=self.kind, empty=f"no error counts of {self.a} and {self.b} on {ds}")
        return out.set_effect(effect)

    def _paper(self, cells: pd.DataFrame, out: ClaimOutcome) -> tuple[float, int, str]:
        """The net share on the paper's printed counts for ``dataset``."""
        from treebench.report.cells import norm

        signs, shown = [], []
        if len(cells) and {"metric", "algorithm", "value", "dataset"} <= set(cells.columns):
            mine = cells[cells["dataset"].map(norm) == norm(self.dataset)]
            for part in self.parts:
                values = mine[mine["metric"] == part].groupby("algorithm")["value"].mean()
                if self.a in values and self.b in values:
                    signs.append(float(np.sign(values[self.b] - values[self.a])))
                    shown.append(f"{PART_NAMES[part]} {values[self.a]:g} vs {values[self.b]:g}")
        if signs:
            out.paper_numbers = f"{self.a} vs {self.b}: " + "; ".join(shown)
            return float(np.mean(signs)), len(signs), f"its text, {len(signs)} part(s)"
        return 1.0, 0, "stated, no counts"


def _percent(rate: float) -> str:
    """A rate as a percentage with 3 significant digits (``0.0046 %``, ``25 %``)."""
    return f"{100 * rate:.3g} %"


def _one_split_size(frame: pd.DataFrame, dataset: str, algorithm: str, metric: str) -> float:
    """The size of ``metric``'s part in ``algorithm``'s one trial on ``dataset`` (NaN: not one real trial)."""
    import pandas as pd

    sub = frame[(frame["dataset"].astype(str) == dataset) & (frame["algorithm"].astype(str) == algorithm)]
    column = PART_SIZE[metric]
    if len(sub) != 1 or column not in sub.columns:
        return math.nan
    size = pd.to_numeric(sub[column], errors="coerce").iloc[0]
    return float(size) if size is not None and not math.isnan(size) and size > 1 else math.nan
