"""Paper 003: how often the best certainty gain is tied, and how often the tie-break picks the split.

The certainty gain ``I(C|A) - I(C)`` is piecewise linear in the class counts
(with two classes it is twice the drop in training errors over the node's
size), so many candidate splits score exactly the same.  The paper does not
say how ties are broken; treebench's default ``tie_break="entropy"`` ranks
tied candidates by their entropy gain, ``"none"`` keeps the first.  This
module measures, per dataset, what that choice decides:

* the tree is grown by the readable engine (``engine="python"``, the same
  tree as the compiled one: its leaves are checked against the stored
  trial's), with a :class:`Recorder` hooked into it that keeps every
  candidate's certainty gain at every node;
* :func:`judge` says, per node, how many candidates tie at the best gain
  (within the builder's tie tolerance), whether the split taken is another
  than the first tied one in (feature, candidate) order -- the one
  ``tie_break="none"`` takes -- and whether the best gain is zero;
* :func:`ties_section` prints the counts beside the leaves and test errors
  of the stored trials under both tie rules (the default and the reading
  ``no tie-break``).

The counts of a dataset are cached in the report folder (:data:`CACHE`),
keyed by the dataset's checksum, the training size and the learner's
parameters, as the readable engine takes a few seconds on the large sets.
``investigations/certainty_ties.py`` is the script that first measured this.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from treebench.criteria.base import ties

if TYPE_CHECKING:
    import pandas as pd

    from treebench.report.sections import Section

#: Bumped when the counting changes: cached counts of another version are recomputed.
VERSION = 1
#: The cache of the counts, in the report folder.
CACHE = "certainty_ties.json"
#: The paper's split (configs/certainty.yaml: protocol ordered, train_fraction 0.8).
TRAIN_FRACTION = 0.8
#: The certainty algorithm's parameters (configs/certainty.yaml).
PARAMS: dict[str, Any] = {"nominal_split": "multiway"}
#: The algorithm of the paper's config whose trees are counted.
CERTAINTY = "certainty"


@dataclass
class NodeRecord:
    """Every feature's candidate gains at one node, in the builder's order, and the split chosen."""

    gains: list[tuple[int, np.ndarray]] = field(default_factory=list)
    chosen: int = -1
    chosen_index: int = -1


class Recorder:
    """Hooks the readable builder while in a ``with`` block: one :class:`NodeRecord` per node searched.

    The builder (:mod:`treebench.trees.generic`) scores each feature's
    candidates with ``score_candidates`` and then picks the feature with the
    criterion's ``select_feature``; both are wrapped, unchanged in what they
    return, and restored on exit.
    """

    def __init__(self) -> None:
        self.nodes: list[NodeRecord] = []
        self._open = NodeRecord()
        self._indices: dict[int, int] = {}

    def __enter__(self) -> Recorder:
        from treebench.criteria.certainty import Certainty
        from treebench.trees import generic

        self._score, self._select = generic.score_candidates, Certainty.select_feature
        recorder = self

        def score(criterion, parent, children, context):  # noqa: ANN001, ANN202 - the builder's own signature
            result = recorder._score(criterion, parent, children, context)
            gains = np.asarray(criterion.candidate_scores(parent, children, context), dtype=float)
            recorder._open.gains.append((int(context.feature), gains))
            recorder._indices[int(context.feature)] = int(result[0])
            return result

        def select(criterion, candidate_best, split_best, tie_best=None):  # noqa: ANN001, ANN202
            chosen = recorder._select(criterion, candidate_best, split_best, tie_best)
            recorder._open.chosen = int(chosen)
            recorder._open.chosen_index = recorder._indices.get(int(chosen), -1)
            recorder.nodes.append(recorder._open)
            recorder._open, recorder._indices = NodeRecord(), {}
            return chosen

        generic.score_candidates, Certainty.select_feature = score, select
        return self

    def __exit__(self, *exc: object) -> None:
        from treebench.criteria.certainty import Certainty
        from treebench.trees import generic

        generic.score_candidates, Certainty.select_feature = self._score, self._select


@dataclass(frozen=True)
class NodeVerdict:
    """What decided one node's split."""

    tied: int          # candidates tied at the best gain
    decided: bool      # the tie-break took another split than the first tied one
    zero_best: bool    # the best gain is zero: no candidate moves a class across 1/N


def judge(node: NodeRecord) -> NodeVerdict | None:
    """What decided one node's split (``None`` for a node without a usable candidate)."""
    finite = [(f, g) for f, g in node.gains if np.isfinite(g).any()]
    if node.chosen < 0 or not finite:
        return None
    best = max(float(np.nanmax(np.where(np.isfinite(g), g, -np.inf))) for _, g in finite)
    tied = [(f, i) for f, g in finite for i, v in enumerate(g) if np.isfinite(v) and ties(float(v), best)]
    return NodeVerdict(len(tied), len(tied) > 1 and tied[0] != (node.chosen, node.chosen_index),
                       abs(best) <= 1e-12)


@dataclass(frozen=True)
class TieCounts:
    """One tree's tie counts: splits searched, tied at the best, decided by the tie-break, best gain 0."""

    splits: int
    tied: int
    decided: int
    zero_best: int
    median_tied: float

    @classmethod
    def of(cls, verdicts: list[NodeVerdict]) -> TieCounts:
        """The counts over the nodes' verdicts."""
        return cls(len(verdicts), sum(v.tied > 1 for v in verdicts), sum(v.decided for v in verdicts),
                   sum(v.zero_best for v in verdicts),
                   float(np.median([v.tied for v in verdicts])) if verdicts else float("nan"))


def count_ties(X: Any, y: Any, params: Mapping[str, Any] | None = None,
               expect_leaves: int | None = None) -> TieCounts:
    """Grow the certainty tree on ``(X, y)`` with the readable engine and count its ties.

    ``expect_leaves``: the leaves of the compiled tree these counts are about (a stored trial's); a
    readable tree of another size raises ``ValueError``, as the counts would then be of another tree.
    """
    from treebench import TreeClassifier

    params = dict(PARAMS if params is None else params)
    with Recorder() as recorder:
        readable = TreeClassifier("certainty", engine="python", **params).fit(X, y)
    if expect_leaves is not None and readable.get_n_leaves() != expect_leaves:
        raise ValueError(f"the readable engine grew {readable.get_n_leaves()} leaves where the stored tree has "
                         f"{expect_leaves}: the tie counts would not be about the compiled tree")
    return TieCounts.of([v for v in map(judge, recorder.nodes) if v is not None])


def paper_split(name: str, train_fraction: float = TRAIN_FRACTION) -> tuple[Any, np.ndarray, int]:
    """The training part of dataset ``name`` under the paper's split (first rows, file order) and its classes."""
    from treebench.data import load
    from treebench.sampling import ordered

    data = load(name)
    train, _ = ordered(len(data.y), train_fraction)
    return data.X.iloc[train], data.y[train], len(data.classes)


def dataset_ties(name: str, train_fraction: float = TRAIN_FRACTION, params: Mapping[str, Any] | None = None,
                 expect_leaves: int | None = None) -> tuple[TieCounts, int, int]:
    """The tie counts of the certainty tree on the paper's split of dataset ``name``; also classes and train rows."""
    X, y, classes = paper_split(name, train_fraction)
    return count_ties(X, y, params, expect_leaves), classes, len(y)


# ----------------------------------------------------------------------------------------------- the section
def _trials(frame: pd.DataFrame | None, algorithm: str) -> pd.DataFrame:
    """``algorithm``'s ok trials of ``frame``, one per dataset (the paper's protocol has one split)."""
    from treebench.report.cells import ok_trials

    if frame is None or not len(frame) or "algorithm" not in frame.columns:
        return frame.iloc[0:0] if frame is not None else _empty()
    ok = ok_trials(frame)
    return ok[ok["algorithm"].astype(str) == algorithm].drop_duplicates("dataset").set_index("dataset")


def _empty() -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame()


def _cached_counts(out_dir: Path, wanted: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Dataset -> counts, from the cache where its key matches, else computed (and the cache rewritten)."""
    from treebench.outpaths import write_text

    path = Path(out_dir) / CACHE
    try:
        cached = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError):
        cached = {}  # an unreadable cache is recomputed
    out, changed = {}, False
    for name, key in wanted.items():
        entry = cached.get(name) if isinstance(cached, dict) else None
        if isinstance(entry, dict) and entry.get("key") == key:
            out[name] = entry
            continue
        counts, classes, n_train = dataset_ties(name, TRAIN_FRACTION, key["params"], key["leaves"])
        if n_train != key["n_train"]:
            raise ValueError(f"{name}: the paper's split gives {n_train} training rows, the stored trial "
                             f"{key['n_train']}: the store is not of this protocol")
        out[name] = {"key": key, "classes": classes, **asdict(counts)}
        changed = True
    if changed:
        write_text(path, json.dumps(out, indent=1, sort_keys=True) + "\n")
    return out


def _pct(n: int, total: int) -> str:
    return f"{n} ({100 * n / total:.0f} %)" if total else str(n)


def _count(value: object) -> str:
    return "–" if value is None or (isinstance(value, float) and np.isnan(value)) else str(int(round(float(value))))


INTRO = (
    "How often the certainty gain alone does not choose the split. The paper does not say how tied gains are "
    "broken: the default ranks tied candidates by their entropy gain (`tie_break=\"entropy\"`), the reading "
    "*no tie-break* keeps the first tied candidate in (attribute, candidate) order (`tie_break=\"none\"`). Counted "
    "on the default's certainty tree of each dataset (first 80 % of the rows, as the store's trial), regrown by "
    "the readable engine, which grows the same tree, while every candidate's gain is recorded at every node. "
    "*splits*: nodes split; *tied best*: two or more candidates within the tie tolerance of the best gain; "
    "*tie-break decided*: of those, the split taken is not the first tied one (the split `tie_break=\"none\"` "
    "takes there); *best gain 0*: no candidate moves a class across 1/N, so every candidate ties and the entropy "
    "gain alone chooses; *median tied*: candidates at the best per node. Leaves and test errors are the stored "
    "trials of both readings."
)


def ties_section(frame: pd.DataFrame, no_tie_break: pd.DataFrame | None, out_dir: Path,
                 excluded: Mapping[str, str] | None = None) -> Section | None:
    """The per-dataset tie table (``None`` before any certainty trial has run).

    ``frame`` holds the default's trials (algorithm :data:`CERTAINTY`),
    ``no_tie_break`` the reading's (already named ``certainty`` or
    ``certainty-none``), ``out_dir`` the folder of the cache.  ``excluded``
    datasets (the spec's: left out of every claim and count) are named, not
    counted: the readable engine would spend most of its time on them.
    """
    from treebench.report.cells import excluded_reason
    from treebench.report.formats import md_table, tex_escape, tex_table
    from treebench.report.sections import Section

    default = _trials(frame, CERTAINTY)
    left_out = [str(d) for d in default.index if excluded_reason(dict(excluded or {}), str(d)) is not None]
    default = default.drop(index=left_out)
    if not len(default):
        return None
    other = _trials(no_tie_break, "certainty-none")
    if not len(other):
        other = _trials(no_tie_break, CERTAINTY)
    wanted = {}
    for name, row in default.iterrows():
        params = {**PARAMS, **_json(row.get("params"))}
        params.pop("tie_break", None)
        wanted[str(name)] = {"version": VERSION, "checksum": str(row.get("dataset_checksum", "")),
                             "n_train": int(row["n_train"]), "leaves": int(row["n_leaves"]), "params": params}
    counts = _cached_counts(Path(out_dir), wanted)
    head = ["dataset", "classes", "train", "splits", "tied best", "tie-break decided", "best gain 0", "median tied",
            "leaves entropy / none", "test errors entropy / none"]
    rows = []
    for name, c in counts.items():
        d, o = default.loc[name], other.loc[name] if name in other.index else None
        errors = _count(float(d["error"]) * float(d["n_test"]))
        errors_none = "–" if o is None else _count(float(o["error"]) * float(o["n_test"]))
        rows.append([name, str(c["classes"]), str(c["key"]["n_train"]), str(c["splits"]),
                     _pct(c["tied"], c["splits"]), _pct(c["decided"], c["splits"]), _pct(c["zero_best"], c["splits"]),
                     f"{c['median_tied']:g}", f"{_count(d['n_leaves'])} / {'–' if o is None else _count(o['n_leaves'])}",
                     f"{errors} / {errors_none}"])
    summary = summary_lines(counts)
    if left_out:
        summary.append(f"- Not counted: {', '.join(left_out)} (left out of every claim and count of this report).")
    md = [INTRO, "", *md_table(head, rows, "l" + "r" * (len(head) - 1)), "", *summary]
    tex = [tex_escape(INTRO.replace("*", "").replace("`", "")), "", *tex_table(head, rows, "l" + "r" * (len(head) - 1)),
           "", *[tex_escape(s[2:].replace("*", "")) for s in summary]]
    return Section("Tied certainty gains and the tie-break", md, tex)


def summary_lines(counts: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Two bullet lines: the share of splits the tie-break decides on two-class and on multi-class sets."""
    lines = []
    for label, pick in (("two-class", lambda c: c["classes"] == 2), ("multi-class", lambda c: c["classes"] > 2)):
        chosen = [c for c in counts.values() if pick(c) and c["splits"]]
        if not chosen:
            continue
        tied = [c["tied"] / c["splits"] for c in chosen]
        decided = [c["decided"] / c["splits"] for c in chosen]
        lines.append(f"- On the {len(chosen)} {label} sets, {100 * min(tied):.0f}–{100 * max(tied):.0f} % of the "
                     f"splits have a tied best gain and the tie-break changes {100 * min(decided):.0f}–"
                     f"{100 * max(decided):.0f} % of the splits.")
    return lines


def _json(text: object) -> dict[str, Any]:
    """A trial's ``params`` JSON as a dict (empty when absent or unreadable)."""
    try:
        value = json.loads(str(text)) if text is not None and str(text) not in ("", "nan") else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
