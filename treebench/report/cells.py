"""Published numbers next to the rerun's: the cells of a reproduction report.

:func:`compare_cells` lines every published number up with the rerun's value
for the same dataset, algorithm and metric, in the paper's unit
(:func:`trial_values`); :class:`Matcher` maps the reference's names onto the
store's (case and punctuation ignored).

For the verdicts of a report, :func:`paired_values` gives every dataset's
values of several algorithms split by split (the rows a paired bootstrap
resamples), and :func:`calibrate` checks the protocol: per dataset, whether
the rerun's baseline algorithms land within tolerance of the paper's, with
:func:`what_differs` comparing the dataset card with the paper's description
where they do not.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import pandas as pd


def ok_trials(frame: pd.DataFrame) -> pd.DataFrame:
    """The successful trials of ``frame`` (all rows when it has no ``status`` column)."""
    return frame[frame["status"].astype(str) == "ok"] if "status" in frame.columns else frame


def norm(name: object) -> str:
    """Loose name key: lower case, letters and digits only (``O-PiTree`` == ``opitree``)."""
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


# -- our values in the paper's units ----------------------------------------------
def _json_value(text: object, key: str) -> float:
    """``key`` of a JSON object given as text (``params``/``chosen``); NaN when absent or not a number."""
    try:
        value = json.loads(text) if isinstance(text, str) and text else {}
    except ValueError:
        return math.nan
    v = value.get(key) if isinstance(value, dict) else None
    return float(v) if isinstance(v, (int, float)) else math.nan


def trial_values(frame: pd.DataFrame, metric: str, unit: str) -> pd.Series:
    """Per-trial values of a reference metric, in the reference's unit.

    ``train_errors``/``test_errors`` are counts: the error rate times the
    size of the part (``n_train``/``n_test`` columns of the store).  ``q``
    (or any other name that is not a store column) is read from the tuned
    values (``chosen``), else from ``params``.
    """
    n = len(frame)
    nan = pd.Series(np.full(n, np.nan), index=frame.index)
    num = lambda col: pd.to_numeric(frame[col], errors="coerce") if col in frame.columns else nan  # noqa: E731
    if metric == "train_errors":
        values = (1.0 - num("train_accuracy")) * num("n_train")
    elif metric == "test_errors":
        values = num("error") * num("n_test")
    elif metric in frame.columns:
        values = num(metric)
    else:
        values = nan.copy()
        for col in ("chosen", "params"):
            if col in frame.columns:
                found = frame[col].map(lambda t: _json_value(t, metric))
                values = values.fillna(found)
    if unit == "percent":
        values = values * 100.0
    if unit == "count" and metric in ("train_errors", "test_errors"):
        values = values.round()
    return values


def case_values(frame: pd.DataFrame, metric: str) -> np.ndarray | None:
    """Per test case, 1 where a trial's case counts for ``metric`` (an error, or a correct answer), else 0.

    A trial of ``n_test`` cases with error rate ``e`` gives ``round(e n_test)``
    ones and the rest zeros, so that a leave-one-out trial (one case) and a
    25-fold CV trial (about ``n / 25`` cases) are values of the same kind and
    can be compared by a test over cases (a paper that ran one algorithm
    under k-fold CV and the others under leave-one-out).  ``None``
    for another metric or without the test sizes.
    """
    if metric not in ("error", "accuracy") or metric not in frame.columns or "n_test" not in frame.columns:
        return None
    rates = pd.to_numeric(frame[metric], errors="coerce").to_numpy(dtype=float)
    sizes = pd.to_numeric(frame["n_test"], errors="coerce").to_numpy(dtype=float)
    keep = np.isfinite(rates) & np.isfinite(sizes) & (sizes >= 1)
    if not keep.any():
        return None
    sizes = sizes[keep].astype(int)
    hits = np.clip(np.rint(rates[keep] * sizes), 0, sizes).astype(int)
    return np.concatenate([np.r_[np.ones(k), np.zeros(m - k)] for k, m in zip(hits, sizes)])


@dataclass
class Matcher:
    """Map reference dataset/algorithm names onto the names in the frame."""

    frame_datasets: list[str]
    frame_algorithms: list[str]

    @classmethod
    def of(cls, frame: pd.DataFrame) -> Matcher:
        """The names of ``frame``'s ``dataset`` and ``algorithm`` columns (none for an empty frame)."""
        if not len(frame):
            return cls([], [])
        return cls(sorted(set(frame["dataset"].astype(str))), sorted(set(frame["algorithm"].astype(str))))

    @staticmethod
    def _find(candidates: list[str], *names: str) -> str | None:
        keys = {norm(c): c for c in candidates}
        for name in names:
            if name and norm(name) in keys:
                return keys[norm(name)]
        return None

    def dataset(self, name: str, label: str = "") -> str | None:
        """The frame's dataset called ``name`` (else ``label``); ``None`` if neither is there."""
        return self._find(self.frame_datasets, name, label) if name else None

    def algorithm(self, name: str, label: str = "") -> str | None:
        """The frame's algorithm called ``name`` (else ``label``); ``None`` if neither is there."""
        return self._find(self.frame_algorithms, name, label)


#: How ``our_std`` is computed: ``sample`` (the std over trials, every paper's
#: default) or ``binomial`` (``sqrt(m (1 - m) / n)`` of the error rate ``m``
#: over the ``n`` cases tested, the std some papers print beside an error).
OUR_STD_KINDS = ("sample", "binomial")

def binomial_std(frame: pd.DataFrame, metric: str, unit: str) -> float:
    """``sqrt(m (1 - m) / n)`` of one cell's trials: ``m`` the error (or accuracy) rate over all
    cases tested, ``n`` the cases tested per repeat (the data set's size under CV or LOO).

    NaN for a metric that is not a rate (``error``/``accuracy``) or without ``n_test``.
    """
    if metric not in ("error", "accuracy") or unit not in ("fraction", "percent") or "n_test" not in frame.columns:
        return math.nan
    n_test = pd.to_numeric(frame["n_test"], errors="coerce")
    rate = pd.to_numeric(frame[metric], errors="coerce")
    keep = n_test.notna() & rate.notna() & (n_test > 0)
    if not keep.any():
        return math.nan
    total = float(n_test[keep].sum())
    m = float((rate[keep] * n_test[keep]).sum() / total)
    repeats = frame.loc[keep, "repeat"].nunique() if "repeat" in frame.columns else 1
    n = total / max(int(repeats), 1)
    std = math.sqrt(max(m * (1.0 - m), 0.0) / n)
    return std * 100.0 if unit == "percent" else std


#: z of the cell agreement rule: |ours - paper| <= z * sqrt(se_paper^2 + se_ours^2) (a two-sided 95 % band).
AGREEMENT_Z = 1.96

#: Count metrics: errors out of the cases of a part (``n_train`` or ``n_test`` cases).
COUNT_PARTS = {"train_errors": "n_train", "test_errors": "n_test"}


def _is_rate(metric: str, unit: str) -> bool:
    return unit in ("percent", "fraction") and (metric in ("accuracy", "error") or metric.endswith("_error"))


def _binomial_se(value: float, metric: str, unit: str, cases: float) -> float:
    """Standard error of one rate or count from ``cases`` cases (NaN for any other metric)."""
    if not cases or math.isnan(cases) or math.isnan(value):
        return math.nan
    if metric in COUNT_PARTS:
        p = min(max(value / cases, 0.0), 1.0)
        return math.sqrt(cases * p * (1.0 - p))
    if _is_rate(metric, unit):
        scale = 100.0 if unit == "percent" else 1.0
        p = min(max(value / scale, 0.0), 1.0)
        return scale * math.sqrt(p * (1.0 - p) / cases)
    return math.nan


def _cases(sub: pd.DataFrame, metric: str) -> float:
    """Cases behind one trial's value: the part the metric counts on (mean over the trials)."""
    col = COUNT_PARTS.get(metric, "n_test")
    if col not in sub.columns:
        return math.nan
    n = pd.to_numeric(sub[col], errors="coerce").dropna()
    return float(n.mean()) if len(n) else math.nan


def standard_errors(paper: float, paper_std: float, ours: float, our_std: float, n: int, cases: float,
                    metric: str, unit: str, std_kind: str,
                    paper_splits: int | None = None) -> tuple[float, float, str]:
    """``(se_paper, se_ours, how)`` of one cell, in the paper's unit.

    Ours: the binomial std when ``std_kind`` is ``binomial`` (already a
    standard error over the cases), else the std over our ``n`` trials over
    sqrt(n), else (one trial) the binomial standard error of the rate or
    count.  The paper's: its printed std (a standard error when it prints a
    binomial std, else a std over its folds, divided by sqrt(n): the paper's
    protocol has our number of folds); where it prints none, our fold spread
    stands in for its noise (same protocol, same data), and with one trial the
    binomial estimate from its own value.  ``paper_splits`` is how many splits stand
    behind the paper's value when not as many as ours (a single published split
    against our repeated ones): its noise is then the per-split spread over that many.
    """
    how = []
    if std_kind == "binomial":
        se_ours = our_std
        how.append("ours: binomial std")
    elif n >= 2 and not math.isnan(our_std):
        se_ours = our_std / math.sqrt(n)
        how.append(f"ours: std over {n} trials / sqrt({n})")
    else:
        se_ours = _binomial_se(ours, metric, unit, cases)
        how.append("ours: binomial" if not math.isnan(se_ours) else "ours: no spread")
    k = max(paper_splits or n, 1)  # the splits behind the paper's value
    if not math.isnan(paper_std):
        se_paper = paper_std if std_kind == "binomial" else paper_std / math.sqrt(k)
        how.append("paper: its binomial std" if std_kind == "binomial" else f"paper: its std / sqrt({k})")
    elif n >= 2 and not math.isnan(se_ours) and paper_splits and paper_splits != n and std_kind != "binomial":
        se_paper = our_std / math.sqrt(k)
        how.append(f"paper: no std printed, our per-split spread over its {k} split{'s' if k != 1 else ''} "
                   "stands in")
    elif n >= 2 and not math.isnan(se_ours):
        se_paper = se_ours
        how.append("paper: no std printed, our fold spread stands in")
    else:
        se_paper = _binomial_se(paper, metric, unit, cases)
        how.append("paper: binomial from its value" if not math.isnan(se_paper) else "paper: no spread")
    return se_paper, se_ours, "; ".join(how)


def agreement(diff: float, se_paper: float, se_ours: float, z: float = AGREEMENT_Z) -> tuple[bool | None, float]:
    """``(agrees, bound)``: ``|diff| <= z * sqrt(se_paper^2 + se_ours^2)``; ``(None, NaN)`` without both errors."""
    if any(math.isnan(x) for x in (diff, se_paper, se_ours)):
        return None, math.nan
    bound = z * math.sqrt(se_paper ** 2 + se_ours ** 2)
    return bool(abs(diff) <= bound + 1e-9 * max(1.0, abs(diff))), bound


# -- a split shared with the paper: paired counts ----------------------------------------------------
#: Protocols whose split the data file itself defines (its row order; a train/test column or file pair):
#: a paper that applied the same rule to the same file tested the very same cases.
FILE_SPLITS = ("ordered", "fixed")

#: Level of the paired rule (two-sided, the same 95 % as :data:`AGREEMENT_Z`).
PAIRED_ALPHA = 0.05


def shares_split(sub: pd.DataFrame, paper_splits: int | None) -> bool:
    """Whether one cell's trials tested the paper's own cases: the paper's value is one split's
    (``paper_splits == 1``) and ours is one trial of a split the file defines (:data:`FILE_SPLITS`)."""
    if paper_splits != 1 or len(sub) != 1 or "protocol" not in sub.columns:
        return False
    return str(sub["protocol"].iloc[0]).startswith(FILE_SPLITS)


@dataclass(frozen=True)
class PairedCounts:
    """Two error counts on the same cases, compared when only the counts are known.

    Attributes
    ----------
    agrees
        ``True`` when no overlap of the two error sets makes the difference significant, ``False``
        when every overlap does, ``None`` when it depends on the overlap (which cases each got wrong).
    p_low, p_high
        The exact McNemar p-value at the fewest discordant cases (the smaller count's errors all among
        the larger's) and at the most (as few shared errors as the cases allow).
    bound
        The largest ``|ours - paper|`` the rule can call agreeing at its level (5 errors at 0.05).
    why
        One line: the counts, the p range and the verdict.
    """

    agrees: bool | None
    p_low: float
    p_high: float
    bound: float
    why: str


def paired_count_agreement(ours: int, paper: int, cases: int, alpha: float = PAIRED_ALPHA) -> PairedCounts:
    """Agreement of two error counts on the same ``cases`` (a split shared by both) from the counts alone.

    Paired, the split's sampling noise is common to both sides and only the cases one side gets wrong
    and the other right (the discordant cases) tell them apart: McNemar's exact test, two-sided, of
    ``b`` (ours only wrong) out of ``b + c``.  The paper prints its count, not its cases, so the cases
    both got wrong, ``k``, are unknown: any ``k`` from ``max(0, ours + paper - cases)`` to
    ``min(ours, paper)`` fits, with ``b = ours - k`` and ``c = paper - k``.  The p-value is computed
    for every such ``k``; the cell agrees when even the fewest discordant cases (``k`` at its largest,
    ``b + c = |ours - paper|``) leave the difference non-significant, disagrees when even the most do
    not, and is undetermined in between (stated, never guessed).
    """
    from scipy.stats import binom

    ours, paper, cases = int(round(ours)), int(round(paper)), int(round(cases))
    k = np.arange(max(0, ours + paper - cases), min(ours, paper) + 1)
    b, c = ours - k, paper - k
    d = b + c
    p = np.where(d == 0, 1.0, np.minimum(1.0, 2.0 * binom.cdf(np.minimum(b, c), np.maximum(d, 1), 0.5)))
    p = np.where(b == c, 1.0, p)
    p_low, p_high = float(p.min()), float(p.max())
    bound = float(math.floor(math.log2(2.0 / alpha)))  # the largest |b - c| with 2 * 0.5^|b - c| >= alpha
    agrees = True if p_low >= alpha else False if p_high < alpha else None
    head = (f"paired on the shared split ({ours} vs the paper's {paper} errors of the same {cases:,} cases; "
            f"its count only): exact McNemar p {p_low:.3g} (the fewer errors all shared) to {p_high:.3g} "
            f"(fewest shared)")
    tail = {True: "no overlap makes the difference significant",
            False: f"every overlap makes the difference significant at {alpha:g}",
            None: "undetermined: it depends on which cases each got wrong, which the paper does not print"}[agrees]
    return PairedCounts(agrees, p_low, p_high, bound, f"{head}: {tail}")


def _paired_cell(metric: str, unit: str, paper: float, ours: float, cases: float) -> PairedCounts | None:
    """:func:`paired_count_agreement` of one cell in error counts (``None``: not a count or a rate)."""
    if math.isnan(cases) or cases <= 0 or math.isnan(paper) or math.isnan(ours):
        return None
    if metric in COUNT_PARTS:
        return paired_count_agreement(ours, paper, cases)
    if _is_rate(metric, unit):
        scale = 100.0 if unit == "percent" else 1.0
        errors = (lambda v: (1.0 - v / scale) * cases) if metric == "accuracy" else (lambda v: v / scale * cases)
        return paired_count_agreement(errors(ours), errors(paper), cases)
    return None


#: Why a cell is not judged, by its status.
NOT_JUDGED_WHY = {"no dataset": "not judged: treebench does not have the data",
                  "not run": "not judged: not in the store", "no value": "not judged: the store has no value"}


def compare_cells(reference: pd.DataFrame, frame: pd.DataFrame, our_std: str = "sample",
                  paper_splits: int | None = None) -> pd.DataFrame:
    """Every published number next to ours, with their agreement.

    ``our_std`` is ``"sample"`` (the std over trials) or ``"binomial"``
    (:func:`binomial_std`, like for like where the paper prints a binomial
    std; :attr:`~treebench.report.spec.PaperSpec.our_std`); ``paper_splits``
    the splits behind each published value (:func:`standard_errors`).  A cell whose
    one published split is ours too (:func:`shares_split`: one trial of a split the
    file defines) is judged as paired counts (:func:`paired_count_agreement`; its
    ``se_paper`` and ``se_ours`` are NaN: the split's noise is common to both).

    Returns
    -------
    DataFrame
        The reference columns plus ``ours``, ``our_std``, ``n`` (trials),
        ``diff`` (ours - paper), ``within_std`` (``|diff| <= paper std``;
        None without a paper std or without our value), ``status`` (``ok``,
        ``no dataset``, ``not run``, ``no value``), ``se_paper``, ``se_ours``,
        ``agree_bound`` (``z * sqrt(se_paper^2 + se_ours^2)``), ``agrees``
        (True/False, None when not judged) and ``agree_why`` (how the errors
        were estimated, or why the cell is not judged); see :func:`standard_errors`.
    """
    if our_std not in OUR_STD_KINDS:
        raise ValueError(f"our_std={our_std!r} is invalid; accepted: {', '.join(OUR_STD_KINDS)}")
    ok = ok_trials(frame)
    match = Matcher.of(ok)
    rows = []
    for ref in reference.itertuples(index=False):
        row = ref._asdict()
        row.update(ours=math.nan, our_std=math.nan, n=0, diff=math.nan, within_std=None, se_paper=math.nan,
                   se_ours=math.nan, agree_bound=math.nan, agrees=None, agree_why="")
        ds = match.dataset(ref.dataset, ref.dataset_label) if ref.dataset else None
        alg = match.algorithm(ref.algorithm, ref.algorithm_label)
        if not ref.dataset:
            row["status"] = "no dataset"
        elif ds is None or alg is None:
            row["status"] = "not run"
        else:
            sub = ok[(ok["dataset"].astype(str) == ds) & (ok["algorithm"].astype(str) == alg)]
            vals = trial_values(sub, ref.metric, ref.unit).dropna()
            if vals.empty:
                row["status"] = "no value"
            else:
                row["status"] = "ok"
                row["ours"] = float(vals.median() if ref.metric == "q" else vals.mean())
                if our_std == "binomial":
                    row["our_std"] = binomial_std(sub, ref.metric, ref.unit)
                else:
                    row["our_std"] = float(vals.std(ddof=1)) if len(vals) > 1 else math.nan
                row["n"] = int(len(vals))
                row["diff"] = row["ours"] - float(ref.value)
                if not math.isnan(ref.std):
                    row["within_std"] = bool(abs(row["diff"]) <= ref.std + 1e-9)
                se_p, se_o, how = standard_errors(float(ref.value), float(ref.std), row["ours"], row["our_std"],
                                                  row["n"], _cases(sub, ref.metric), ref.metric, ref.unit, our_std,
                                                  paper_splits)
                row["se_paper"], row["se_ours"] = se_p, se_o
                row["agrees"], row["agree_bound"] = agreement(row["diff"], se_p, se_o)
                row["agree_why"] = how if row["agrees"] is not None else f"not judged: {how}"
                paired = (_paired_cell(ref.metric, ref.unit, float(ref.value), row["ours"], _cases(sub, ref.metric))
                          if shares_split(sub, paper_splits) else None)
                if paired is not None:  # the same cases on both sides: paired counts, not two binomials
                    row["se_paper"] = row["se_ours"] = math.nan
                    row["agrees"], row["agree_bound"], row["agree_why"] = paired.agrees, paired.bound, paired.why
        if row["status"] != "ok":
            row["agree_why"] = NOT_JUDGED_WHY.get(row["status"], f"not judged: {row['status']}")
        rows.append(row)
    return pd.DataFrame(rows)


# -- paired values per split, for effects and their intervals -----------------------------
def paired_values(frame: pd.DataFrame, algorithms: list[str], metric: str, unit: str, *,
                  unpaired: bool = False) -> dict[str, Any]:
    """Per dataset, the values of ``algorithms`` on the splits they all have, in the paper's unit.

    Splits are matched on ``(protocol, repeat, fold)``
    (:data:`treebench.stats.frame.PAIR_KEYS`): fold 3 of a 25-fold CV and
    fold 3 of a leave-one-out are different test sets.

    Parameters
    ----------
    frame
        The rerun's trials; names must already be the frame's (see :class:`Matcher`).
    algorithms
        The algorithms, in column order.
    metric, unit
        What to read (:func:`trial_values`).
    unpaired
        For a dataset on which the algorithms share no split but each has
        values (a paper that ran one of them under another protocol), give
        each algorithm's own values as
        :class:`~treebench.stats.bootstrap.UnpairedColumns` instead of leaving
        the dataset out.  Only for callers that summarise column means (the
        bootstrap of an effect), never for a paired test.

    Returns
    -------
    dict
        Dataset -> array ``(splits, len(algorithms))``, rows in ``(protocol,
        repeat, fold)`` order (or ``UnpairedColumns``, see ``unpaired``); a
        dataset where some algorithm has no value on any shared split is left
        out.  Without ``repeat``/``fold`` columns each dataset gets one row,
        the algorithms' means.
    """
    from treebench.stats.bootstrap import UnpairedColumns
    from treebench.stats.frame import pair_keys

    ok = ok_trials(frame)
    if ok.empty or not algorithms:
        return {}
    ok = ok[ok["algorithm"].astype(str).isin(algorithms)]
    values = trial_values(ok, metric, unit)
    long = pd.DataFrame({"dataset": ok["dataset"].astype(str), "algorithm": ok["algorithm"].astype(str),
                         "value": values.to_numpy(dtype=float)}, index=ok.index)
    ok, keys = pair_keys(ok)
    if not {"repeat", "fold"} & set(keys):
        keys = []
    for k in keys:
        long[k] = ok[k]
    long = long.dropna(subset=["value"])
    # one table for all datasets: (dataset, protocol, repeat, fold) x algorithm; an algorithm
    # without values on a dataset is all-NaN there, so dropna leaves that dataset out
    if keys:
        wide = long.pivot_table(index=["dataset", *keys], columns="algorithm", values="value", aggfunc="mean")
    else:
        wide = long.groupby(["dataset", "algorithm"])["value"].mean().unstack("algorithm")
    if any(a not in wide.columns for a in algorithms):
        return {}
    rows = wide[algorithms].dropna().sort_index()
    out: dict[str, Any] = {str(ds): block.to_numpy(dtype=float)
                           for ds, block in rows.groupby(level="dataset", sort=True)}
    if unpaired and keys:
        for ds, block in wide[algorithms].groupby(level="dataset", sort=True):
            columns = tuple(block[a].dropna().to_numpy(dtype=float) for a in algorithms)
            if str(ds) not in out and all(c.size for c in columns):
                out[str(ds)] = UnpairedColumns(columns)
    return dict(sorted(out.items()))


# -- exclusions and protocol calibration ---------------------------------------------------
def excluded_reason(excluded: dict[str, str], *names: object) -> str | None:
    """The reason ``excluded`` gives for any of ``names`` (loose match), else ``None``."""
    keys = {norm(k): v for k, v in excluded.items()}
    for name in names:
        if name and norm(name) in keys:
            return keys[norm(name)]
    return None


def drop_excluded(cells: pd.DataFrame, frame: pd.DataFrame, excluded: dict[str, str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``cells`` and ``frame`` without the excluded datasets (by card name or the paper's label)."""
    if not excluded:
        return cells, frame
    if len(cells) and "dataset_label" in cells.columns:
        ds = cells["dataset"] if "dataset" in cells.columns else cells["dataset_label"]
        keep = [excluded_reason(excluded, d, lab) is None for d, lab in zip(ds, cells["dataset_label"])]
        cells = cells[keep]
    if len(frame) and "dataset" in frame.columns:
        frame = frame[[excluded_reason(excluded, d) is None for d in frame["dataset"].astype(str)]]
    return cells, frame


#: Status of a dataset in the calibration table.
CALIBRATED = "calibrated"
MISMATCH = "protocol mismatch"
NOT_JUDGED = "not judged"
EXCLUDED = "excluded"
NOT_IN_PAPER = "not in the paper's table"


@dataclass
class DatasetCalibration:
    """How the rerun's baselines compare with the paper's on one dataset.

    Attributes
    ----------
    label
        The dataset as the paper names it (the frame's name for datasets the paper does not list).
    dataset
        The frame's dataset name; ``""`` when nothing was rerun on it.
    status
        ``calibrated``, ``protocol mismatch``, ``not judged``, ``excluded`` or
        ``not in the paper's table``.
    compared, within
        Baseline cells rerun and judged (they have a tolerance), and how many lie within it.
    worst
        The baseline cell furthest from the paper relative to its tolerance, as text.
    reason
        Why the dataset is not judged or is excluded.
    differs
        For a mismatch: the dataset card against the paper's description.
    """

    label: str
    dataset: str
    status: str
    compared: int = 0
    within: int = 0
    worst: str = ""
    reason: str = ""
    differs: str = ""


@dataclass
class Calibration:
    """The protocol check of a report: which datasets' baselines agree with the paper's.

    Attributes
    ----------
    baselines
        The classic algorithms compared (reference names).
    rows
        One :class:`DatasetCalibration` per dataset of the paper, then per rerun dataset the paper does not list.
    """

    baselines: tuple[str, ...]
    rows: list[DatasetCalibration]

    @property
    def calibrated(self) -> list[DatasetCalibration]:
        """The datasets whose rerun baselines all agree with the paper's."""
        return [r for r in self.rows if r.status == CALIBRATED]

    def count(self, status: str) -> int:
        """How many datasets have ``status``."""
        return sum(r.status == status for r in self.rows)

    def restrict(self, cells: pd.DataFrame, frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
        """``cells`` and ``frame`` on the calibrated datasets only."""
        labels = {r.label for r in self.calibrated}
        names = {r.dataset for r in self.calibrated if r.dataset}
        if len(cells) and "dataset_label" in cells.columns:
            cells = cells[cells["dataset_label"].isin(labels)]
        if len(frame) and "dataset" in frame.columns:
            frame = frame[frame["dataset"].astype(str).isin(names)]
        return cells, frame


def cell_tolerance(std: object, metric: str, tolerances: dict[str, float]) -> float | None:
    """A cell's tolerance: the paper's std when printed, else the spec's tolerance for ``metric``."""
    if isinstance(std, (int, float)) and not math.isnan(float(std)):
        return float(std)
    tol = tolerances.get(metric)
    return None if tol is None else float(tol)


def calibrate(
    cells: pd.DataFrame,
    frame: pd.DataFrame,
    baselines: tuple[str, ...] | list[str],
    tolerances: dict[str, float] | None = None,
    excluded: dict[str, str] | None = None,
    describe: Callable[[str, str], str] | None = None,
) -> Calibration:
    """Compare the rerun's baseline cells with the paper's, dataset by dataset.

    The metrics that calibrate are those of cells with a tolerance
    (:func:`cell_tolerance`: a printed std, or the spec's tolerance for the
    metric); such a baseline cell *agrees* by the cell agreement rule
    (``agrees`` of :func:`compare_cells`: within ``z * sqrt(se_paper^2 +
    se_ours^2)``), or, when that rule cannot judge it, within its
    tolerance.  Other cells are not judged here.  A dataset is ``calibrated`` when at least one of its
    baseline cells was judged and all judged ones agree, ``protocol mismatch``
    when one disagrees.

    Parameters
    ----------
    cells
        :func:`compare_cells`'s table.
    frame
        The rerun's trials (only the dataset names are read).
    baselines
        Reference names of the baseline algorithms.
    tolerances
        Metric -> tolerance in the paper's unit, for cells without a printed std.
    excluded
        Dataset -> reason, listed as ``excluded``.
    describe
        ``describe(frame_dataset, paper_label)`` -> the "what differs" line of a mismatch.
    """
    tolerances = dict(tolerances or {})
    excluded = dict(excluded or {})
    wanted = {norm(b) for b in baselines}
    ok = ok_trials(frame) if len(frame) and "dataset" in frame.columns else frame
    match = Matcher.of(ok) if len(ok) and "algorithm" in ok.columns else Matcher([], [])
    rows: list[DatasetCalibration] = []
    seen: set[str] = set()
    if len(cells):
        for label, group in cells.groupby("dataset_label", sort=False):
            card = str(group["dataset"].iloc[0]) if "dataset" in group.columns else ""
            name = match.dataset(card, str(label)) if card else None
            if name:
                seen.add(name)
            row = DatasetCalibration(str(label), name or "", NOT_JUDGED)
            reason = excluded_reason(excluded, card, label)
            if reason is not None:
                row.status, row.reason = EXCLUDED, reason
                rows.append(row)
                continue
            worst_ratio = -1.0
            for r in group.itertuples(index=False):
                if norm(r.algorithm) not in wanted or r.status != "ok":
                    continue
                tol = cell_tolerance(r.std, r.metric, tolerances)
                if tol is None:  # the metrics that calibrate: a printed std or a spec tolerance
                    continue
                judged = getattr(r, "agrees", None)
                if judged is not None and not (isinstance(judged, float) and math.isnan(judged)):
                    # the cell agreement rule: both noises (compare_cells)
                    tol, inside, what = float(r.agree_bound), bool(judged), "agreement band"
                else:
                    inside, what = abs(float(r.diff)) <= tol + 1e-9, "tolerance"
                row.compared += 1
                gap = abs(float(r.diff))
                row.within += inside
                ratio = gap / tol if tol > 0 else (0.0 if gap == 0 else math.inf)
                if ratio > worst_ratio:
                    worst_ratio = ratio
                    row.worst = (f"{r.algorithm} {r.metric}: ours {float(r.ours):.4g}, paper {float(r.value):.4g} "
                                 f"({float(r.diff):+.3g}; {what} ± {tol:.3g})")
            if row.compared == 0:
                row.reason = ("no dataset rerun" if not name
                              else "no baseline named" if not wanted
                              else "no baseline cell rerun with a standard error or a tolerance")
            elif row.within == row.compared:
                row.status = CALIBRATED
            else:
                row.status = MISMATCH
                row.differs = describe(name or "", str(label)) if describe else ""
            rows.append(row)
    for name in match.frame_datasets:
        if name in seen:
            continue
        reason = excluded_reason(excluded, name)
        rows.append(DatasetCalibration(name, name, EXCLUDED if reason is not None else NOT_IN_PAPER,
                                       reason=reason or "the paper prints no numbers for it"))
    return Calibration(tuple(baselines), rows)


class DatasetDescription(Protocol):
    """What a paper prints about a dataset (:class:`treebench.report.spec.PaperDataset` has this shape)."""

    rows: int | None
    features: int | None
    classes: int | None
    source: str
    note: str


def _card_shape(name: str) -> tuple[int, int, int] | None:
    """Rows, features and classes of dataset card ``name`` (``None`` without a readable card)."""
    from treebench.data.cards import CardRegistry
    from treebench.data.settings import Settings
    from treebench.errors import TreebenchError

    try:
        expected = CardRegistry(Settings.from_env().cards_dir).get(name).expected
    except (TreebenchError, OSError):
        return None
    return expected.rows, expected.features, expected.classes


def what_differs(name: str, paper: DatasetDescription | None, shape: tuple[int, int, int] | None = None,
                 causes: Sequence[Any] = ()) -> str:
    """One line: the dataset card's rows, features and classes against the paper's description, and the
    known causes of the dataset (:mod:`treebench.report.causes`).

    Parameters
    ----------
    name
        The dataset card (the frame's dataset name).
    paper
        What the paper prints about the dataset; ``None`` when it prints nothing.
    shape
        ``(rows, features, classes)`` of the card; read from the card when not given.
    causes
        The registry's causes for the dataset (each with ``kind``, ``explains`` and ``line()``); a shape
        difference a cause ``explains`` is marked as explained.
    """
    shape = shape if shape is not None else (_card_shape(name) if name else None)
    known = [c.line() for c in causes]
    explained = {f: c.kind for c in causes for f in c.explains}
    tail = ("known: " + "; ".join(known)) if known else "no registered cause"
    if shape is None:
        head = f"no dataset card {name!r} to compare" if name else "not rerun"
        return f"{head}; {tail}"
    card = dict(zip(("rows", "features", "classes"), shape))
    printed = {k: getattr(paper, k, None) for k in card} if paper is not None else {}
    given = [k for k in card if printed.get(k) is not None]
    if not given:
        return (f"card {name}: {card['rows']:,} rows, {card['features']} features, {card['classes']} classes; "
                f"the paper does not describe this dataset; {tail}")
    source = f" ({paper.source})" if paper is not None and paper.source else ""
    diffs = [f"{k} {card[k]:,} vs the paper's {printed[k]:,}" + (f" (explained: {explained[k]})" if k in explained
                                                                  else "")
             for k in given if printed[k] != card[k]]
    same = [k for k in given if printed[k] == card[k]]
    unsaid = [k for k in card if k not in given]
    if diffs:
        parts = [f"card {name}: " + "; ".join(diffs) + source]
        if same:
            parts.append("same " + ", ".join(same))
    else:
        parts = [f"card {name}: {', '.join(f'{card[k]:,} {k}' for k in given)} as the paper prints{source}"]
    if unsaid:
        parts.append("the paper does not give " + ", ".join(unsaid))
    if not known:
        unexplained = [k for k in given if printed[k] != card[k] and k not in explained]
        parts.append("no registered cause: " + ("the data differ in " + ", ".join(unexplained) if unexplained
                                                 else "the difference lies in the protocol or the implementation"))
    else:
        parts.append(tail)
    if paper is not None and paper.note:
        parts.append(paper.note)
    return "; ".join(parts)
