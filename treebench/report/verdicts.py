"""One grading rule per claim kind, and the verdicts of a report as data.

Every claim a paper makes is of one *kind*, and each kind has exactly one
rule, implemented once here and used by every table, page and count
(``docs/reports.md``, "Claim kinds and their rules"):

========================  ===============================================================
kind                      reproduced when
========================  ===============================================================
``difference``            our 95 % interval of the effect excludes 0 in the paper's
                          direction and holds the paper's effect (``reproduced, smaller``
                          / ``larger`` when it lies wholly below/above it; ``inconclusive``
                          when it holds both 0 and the paper's effect)
``equivalence``           our interval lies inside ± the claim's margin
                          (``inconclusive`` when it is wider than that)
``significance``          the paper's test on our data, as the paper applied it (no
                          correction the paper did not use), rejects at the paper's level,
                          our effect in the paper's direction; unit by unit, on a majority
                          of the units; with no test named, graded as a ``difference``
``trend``                 the interval of the net share of datasets going the claim's way
                          excludes 0 upwards (graded against the paper's share as a
                          ``difference`` is against the paper's effect)
``count``                 the claim holds on every dataset it names (means compared)
========================  ===============================================================

:func:`judge` dispatches an :class:`~treebench.report.claims.Effect` to its
kind's rule; :func:`summary` counts verdicts; :func:`verdicts_document` is
the ``verdicts.json`` of a report.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from treebench.report.misses import open_questions

# -- kinds -----------------------------------------------------------------------------------------
DIFFERENCE = "difference"
EQUIVALENCE = "equivalence"
SIGNIFICANCE = "significance"
TREND = "trend"
COUNT = "count"
#: The claim kinds, each with one grading rule.
KINDS = (DIFFERENCE, EQUIVALENCE, SIGNIFICANCE, TREND, COUNT)

# -- grades ----------------------------------------------------------------------------------------
REPRODUCED = "reproduced"
LARGER = "reproduced, larger"
SMALLER = "reproduced, smaller"
INCONCLUSIVE = "inconclusive"
NOT_REPRODUCED = "not reproduced"
REVERSED = "reversed"
NOT_TESTABLE = "not testable"
#: Every grade a verdict can have, best first (``not testable`` is followed by its reason in brackets).
GRADES = (REPRODUCED, LARGER, SMALLER, INCONCLUSIVE, NOT_REPRODUCED, REVERSED, NOT_TESTABLE)

#: Equivalence margins by the paper's unit when a claim states none: 1 accuracy point, 0.01 of an
#: error rate (the same point), 1 error of a count.  A claim may give its own (``margin=``).
MARGINS = {"percent": 1.0, "fraction": 0.01, "count": 1.0}

#: Relative slack of the comparisons with zero, the margin and the paper's effect (float noise of means).
SLACK = 1e-9


def not_testable(reason: str) -> str:
    """The verdict ``not testable (reason)``."""
    return f"{NOT_TESTABLE} ({reason})"


def own_numbers_why(effect: Any) -> str:
    """Why the paper's own numbers do not carry a claim under its rule (``""`` when they do: ``reproduced``).

    ``effect`` is the claim's effect computed on the paper's published table
    (its paper-on-paper grade).  The reason is read off that grade and its
    interval, so the report never leaves a claim the paper's numbers fail
    without saying so.
    """
    verdict = str(getattr(effect, "verdict", ""))
    grade = grade_of(verdict)
    if grade == REPRODUCED:
        return ""
    if grade == NOT_TESTABLE:
        return verdict[len(NOT_TESTABLE) + 2:-1] if verdict.startswith(NOT_TESTABLE + " (") else verdict
    ours, low, high = (float(getattr(effect, name, math.nan)) for name in ("ours", "low", "high"))
    kind, margin = getattr(effect, "kind", DIFFERENCE), float(getattr(effect, "margin", math.nan))
    shown = "" if math.isnan(ours) else f"{ours:+.3g}" + ("" if math.isnan(low) else f" [{low:+.3g}, {high:+.3g}]")
    n = int(getattr(effect, "n_datasets", 0) or 0)
    over = f" over its {n} datasets" if n else ""
    if grade == INCONCLUSIVE and kind == EQUIVALENCE and not math.isnan(margin):
        return (f"the paper's own numbers{over} give {shown}, reaching past the margin ± {abs(margin):.3g}: they do "
                "not show the equivalence its design could resolve")
    if grade == INCONCLUSIVE:
        return (f"the paper's own numbers{over} give {shown}, an interval holding 0: they do not establish the "
                "effect at the 95 % level under this rule")
    return f"the paper's own numbers{over} grade `{verdict}` under this rule ({shown or 'no effect computed'})"


def grade_of(verdict: str) -> str:
    """The verdict without the reason of ``not testable``."""
    return NOT_TESTABLE if verdict.startswith(NOT_TESTABLE) else verdict


def _nan(*xs: float) -> bool:
    return any(x is None or math.isnan(x) for x in xs)


def _slack(*xs: float) -> float:
    return SLACK * max([1.0] + [abs(x) for x in xs if x is not None and not math.isnan(x)])


# -- the five rules -------------------------------------------------------------------------------
def grade_difference(paper: float, low: float, high: float) -> str:
    """``difference``: our interval ``[low, high]`` against 0 and the paper's effect (both oriented).

    The outcome grades of a replication (LeBel, Vanpaemel, Cheung & Campbell
    2019, "A brief guide to evaluate replications", Meta-Psychology 3), from
    our 95 % interval and the paper's estimate ``paper``:

    - ``reversed``: the interval lies wholly below 0;
    - above 0 (an effect in the paper's direction is detected): ``reproduced``
      when the interval holds the paper's effect (or the paper gives no
      positive effect to compare with), ``reproduced, smaller`` /
      ``reproduced, larger`` when it lies wholly below / above it;
    - holding 0 (no effect detected): ``not reproduced`` when the interval
      excludes the paper's effect (the rerun contradicts it), ``inconclusive``
      when it holds it too, or when the paper gives no effect to contradict
      (the rerun cannot tell; :func:`power_to_detect` says how likely it was to).
    """
    if _nan(low, high):
        return not_testable("no interval")
    eps = _slack(low, high, paper)
    if high < -eps:
        return REVERSED
    known = not _nan(paper) and paper > 0
    if low <= eps:
        if known and high < paper - eps:
            return NOT_REPRODUCED
        return INCONCLUSIVE
    if known:
        if high < paper - eps:
            return SMALLER
        if low > paper + eps:
            return LARGER
    return REPRODUCED


def power_to_detect(paper: float, low: float, high: float, level: float = 0.95) -> float:
    """The rerun's power to detect the paper's effect: P(our ``level`` interval excludes 0 | true effect = ``paper``).

    Normal approximation with the standard error implied by the interval's
    width (``(high - low) / (2 z)``): the chance that an estimate centred on
    the paper's effect lands more than ``z`` standard errors from 0.  NaN when
    either is missing or the interval has no width.
    """
    from scipy.stats import norm

    if _nan(paper, low, high) or high <= low:
        return math.nan
    z = float(norm.ppf(0.5 + level / 2))
    se = (high - low) / (2 * z)
    shift = abs(paper) / se
    return float(norm.sf(z - shift) + norm.cdf(-z - shift))


def grade_equivalence(low: float, high: float, margin: float) -> str:
    """``equivalence``: ``reproduced`` when ``[low, high]`` lies inside ``± margin``.

    The 95 % interval inside the margin is two one-sided tests at 2.5 %
    each.  ``not reproduced`` when the interval lies wholly outside the
    margin (a difference larger than it), ``inconclusive`` otherwise: the
    data cannot tell, and a wide interval never counts as equivalence.
    """
    if _nan(margin):
        return not_testable("no equivalence margin")
    if _nan(low, high):
        return not_testable("no interval")
    eps = _slack(low, high, margin)
    if low >= -margin - eps and high <= margin + eps:
        return REPRODUCED
    if low > margin + eps or high < -margin - eps:
        return NOT_REPRODUCED
    return INCONCLUSIVE


def grade_significance(p: float, alpha: float, ours: float) -> str:
    """``significance``: the paper's test on our data, as the paper applied it, at the paper's level.

    ``reproduced`` when ``p < alpha`` and our effect goes the paper's way
    (``ours > 0``, or no effect to check); ``reversed`` when the test
    rejects with our effect the other way; else ``not reproduced``.
    """
    if _nan(p):
        return not_testable("the test could not be computed")
    if p < alpha:
        return REVERSED if not _nan(ours) and ours < 0 else REPRODUCED
    return NOT_REPRODUCED


#: A claim tested unit by unit (each cell, each dataset) is reproduced when more than this share of
#: the units its test could be run on reproduce (reversed likewise): the claim's units taken as
#: one claim, none allowed to decide alone and no correction the papers did not apply.
UNIT_MAJORITY = 0.5


def grade_units(grades: Sequence[str]) -> str:
    """A claim of several units (``grades``: each unit's): ``reproduced`` on a majority of the testable ones.

    ``reversed`` when a majority is reversed, ``not testable`` when no unit
    is testable, else ``not reproduced``.
    """
    testable = [grade_of(g) for g in grades if grade_of(g) != NOT_TESTABLE]
    if not testable:
        return not_testable("no unit could be tested")
    if testable.count(REPRODUCED) > UNIT_MAJORITY * len(testable):
        return REPRODUCED
    if testable.count(REVERSED) > UNIT_MAJORITY * len(testable):
        return REVERSED
    return NOT_REPRODUCED


def units_text(grades: Sequence[tuple[str, str]]) -> str:
    """``k of n units reproduced`` (testable units only)."""
    testable = [g for _, g in grades if grade_of(g) != NOT_TESTABLE]
    return f"{sum(grade_of(g) == REPRODUCED for g in testable)} of {len(testable)} units reproduced"


def grade_trend(low: float, high: float, paper: float = math.nan) -> str:
    """``trend``: the net share of datasets going the claim's way, with its interval.

    Graded like a :func:`grade_difference` with the paper's own net share
    ``paper`` as its effect: ``reproduced`` when the interval lies above 0
    (more datasets go the claim's way than against it, beyond resampling
    noise) and holds the paper's share, ``reproduced, smaller``/``larger``
    beside it, ``reversed`` below 0, ``inconclusive`` or ``not reproduced``
    when it holds 0.
    """
    return grade_difference(paper, low, high)


def grade_count(holds: int, fails: int, n: int) -> str:
    """``count``: the claim holds on every dataset it names (``holds`` of ``n``; ``fails`` go the other way).

    ``reproduced`` on all ``n``; ``reversed`` when it fails on all ``n``;
    else ``not reproduced``.
    """
    if n <= 0:
        return not_testable("no dataset to count on")
    if holds == n:
        return REPRODUCED
    if fails == n:
        return REVERSED
    return NOT_REPRODUCED


def judge(effect: Any) -> str:
    """The verdict of ``effect`` (a :class:`treebench.report.claims.Effect`) under its kind's rule.

    A ``not testable`` verdict with its reason is kept when there is nothing to grade.
    """
    if effect.verdict.startswith(NOT_TESTABLE) and _nan(effect.ours) and effect.kind != SIGNIFICANCE:
        return effect.verdict
    kind = effect.kind
    if kind == EQUIVALENCE:
        return grade_equivalence(effect.low, effect.high, effect.margin)
    if kind == SIGNIFICANCE:
        test = effect.test
        if test is None:
            return not_testable("no test to run")
        if _nan(effect.ours) and effect.verdict.startswith(NOT_TESTABLE):
            return effect.verdict
        if not test.as_applied:  # the paper names no test: what it states is an effect
            return grade_difference(effect.paper, effect.low, effect.high)
        if test.units:
            return grade_units([g for _, g in test.units])
        return grade_significance(test.p_verdict, test.alpha, effect.ours)
    if kind == TREND:
        return grade_trend(effect.low, effect.high, effect.paper)
    if kind == COUNT:
        return grade_count(effect.holds, effect.fails, effect.counted)
    return grade_difference(effect.paper, effect.low, effect.high)


def views(effect: Any) -> dict[str, str]:
    """The named second views of a claim's grade: stricter rules the paper did not apply, never the verdict.

    ``Holm across claims`` (the claim's test Holm-adjusted with the paper's
    other claims tested the same way), ``every unit after Holm`` (a test run
    unit by unit, every unit rejecting after Holm over the units), ``our
    test, majority of units`` (where the paper names no test); for an
    equivalence claim, ``fixed margin ± m`` and ``the paper's test on ours``
    ("no significant difference" read as the paper's own test not rejecting:
    ``not reproduced`` when it rejects on our data).
    """
    out: dict[str, str] = {}
    test = getattr(effect, "test", None)
    if effect is not None and effect.kind == EQUIVALENCE and not _nan(getattr(effect, "fixed_margin", math.nan)):
        out[f"fixed margin ± {effect.fixed_margin:g}"] = grade_equivalence(effect.low, effect.high, effect.fixed_margin)
    if effect is not None and effect.kind == EQUIVALENCE and test is not None and test.as_applied \
            and not _nan(test.ours_p):
        out["the paper's test on ours"] = NOT_REPRODUCED if test.ours_p < test.alpha else REPRODUCED
    if effect is None or test is None or effect.kind != SIGNIFICANCE:
        return out
    if not _nan(test.ours_p_holm):
        out["Holm across claims"] = grade_significance(test.ours_p_holm, test.alpha, effect.ours)
    if test.parts:
        out["every unit after Holm"] = grade_significance(test.p_adjusted, test.alpha, effect.ours)
    if not test.as_applied and test.units:
        out["our test, majority of units"] = grade_units([g for _, g in test.units])
    return out


def rule_text(kind: str) -> str:
    """One sentence: the rule of ``kind`` (for the report's verdict rows)."""
    return {
        DIFFERENCE: "reproduced when the 95 % interval excludes 0 in the paper's direction and holds the paper's "
                    "effect; inconclusive when it holds both 0 and the paper's effect",
        EQUIVALENCE: "reproduced when the 95 % interval lies inside ± the margin; inconclusive when wider",
        SIGNIFICANCE: "reproduced when the paper's test, as the paper applied it, rejects on our data (p < alpha; "
                      "unit by unit: on a majority of the units); where the paper names no test, graded as a "
                      "difference",
        TREND: "reproduced when the interval of the net share of datasets lies above 0 and holds the paper's share",
        COUNT: "reproduced when the claim holds on every dataset it names",
    }.get(kind, "")


# -- counts ----------------------------------------------------------------------------------------
def summary(verdicts: Iterable[str]) -> dict[str, int]:
    """Grade -> how many of ``verdicts`` have it, every grade listed (zeros included), plus ``total``."""
    counts = Counter(grade_of(v) for v in verdicts)
    out = {g: int(counts.get(g, 0)) for g in GRADES}
    out["total"] = int(sum(counts.values()))
    return out


def summary_text(counts: dict[str, int]) -> str:
    """``"n claims: a reproduced, b not reproduced, ..."`` (grades with a zero count left out)."""
    parts = [f"{counts[g]} {g}" for g in GRADES if counts.get(g)]
    total = counts.get("total", sum(counts.get(g, 0) for g in GRADES))
    return f"{total} claim{'s' if total != 1 else ''}: " + (", ".join(parts) or "none")


# -- verdicts.json ----------------------------------------------------------------------------------
def _num(x: Any) -> float | None:
    """A JSON number: NaN and None become null."""
    if x is None:
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) or math.isinf(v) else v


def claim_record(outcome: Any, attribute: str = "effect") -> dict[str, Any]:
    """One claim of ``verdicts.json``: text, kind, verdict, effect, interval, margin, test, datasets."""
    effect = getattr(outcome, attribute, None)
    record: dict[str, Any] = {"claim": str(getattr(outcome, "text", "")), "kind": getattr(effect, "kind", DIFFERENCE),
                              "verdict": str(getattr(effect, "verdict", not_testable("no effect")))}
    for name in ("location", "scope", "test_as_applied"):
        record[name] = str(getattr(outcome, name, "") or "")
    record["cause"] = str(getattr(outcome, "cause", "") or "") or None
    if effect is None:
        record.update(effect=None, interval=[None, None], datasets=[])
        return record
    record["effect"] = _num(effect.ours)
    record["paper_effect"] = _num(effect.paper)
    record["interval"] = [_num(effect.low), _num(effect.high)]
    record["measure"] = effect.measure
    if effect.kind in (DIFFERENCE, TREND, SIGNIFICANCE):
        record["outcome"] = str(effect.outcome)
        record["power"] = _num(effect.power)
    if effect.kind == EQUIVALENCE:
        record["margin"] = _num(effect.margin)
        record["margin_source"] = getattr(effect, "margin_source", "") or "fixed (verdicts.MARGINS or the claim's own)"
    if effect.kind == COUNT:
        record["holds"] = {"on": effect.holds, "against": effect.fails, "of": effect.counted}
        # each named dataset graded on its means: the claim ("on each of ...") needs every one
        record["units"] = [{"unit": u, "grade": REPRODUCED if v > 0 else REVERSED if v < 0 else NOT_REPRODUCED,
                            "value": _num(v)} for u, v in getattr(effect, "unit_points", [])]
    test = effect.test
    if test is not None:
        record["test"] = {"name": test.name, "as_applied": bool(test.as_applied), "p": _num(test.p_verdict),
                          "alpha": _num(test.alpha), "p_strict": _num(test.p_adjusted),
                          "correction_strict": test.correction}
        if test.units:
            record["units"] = [{"unit": u, "grade": g} for u, g in test.units]
    record["views"] = views(effect)
    record["datasets"] = list(effect.datasets)
    return record


def cell_records(cells: Any) -> list[dict[str, Any]]:
    """Per published cell: dataset, metric, paper, ours, se_paper, se_ours, agrees (true/false/null), cause."""
    out = []
    if cells is None or not len(cells):
        return out
    for r in cells.to_dict("records"):
        agrees = r.get("agrees")
        out.append({
            "dataset": str(r.get("dataset_label", "")), "card": str(r.get("dataset", "") or ""),
            "algorithm": str(r.get("algorithm", "")), "metric": str(r.get("metric", "")),
            "unit": str(r.get("unit", "")), "paper": _num(r.get("value")), "ours": _num(r.get("ours")),
            "se_paper": _num(r.get("se_paper")), "se_ours": _num(r.get("se_ours")),
            "agrees": None if agrees is None or (isinstance(agrees, float) and math.isnan(agrees)) else bool(agrees),
            "why": str(r.get("agree_why", "") or ""), "cause": str(r.get("cause", "") or "") or None,
            "cause_stale": str(r.get("cause", "") or "").startswith("stale ("),
        })
    return out


def verdicts_document(report: Any) -> dict[str, Any]:
    """The ``verdicts.json`` of a report: claims, cells, anomalies and the summary counts.

    ``summary`` counts the claims' verdicts over all datasets (the headline of
    every page); ``summary_calibrated`` the verdicts over the calibrated datasets.
    """
    claims = []
    for outcome in report.claims:
        record = claim_record(outcome)
        calibrated = getattr(outcome, "calibrated", None)
        record["verdict_calibrated"] = str(getattr(calibrated, "verdict", not_testable("not computed")))
        own = getattr(outcome, "paper_on_paper", None)
        record["paper_on_paper"] = None if own is None else {
            "verdict": str(own.verdict), "effect": _num(own.ours), "interval": [_num(own.low), _num(own.high)],
            "why_not_carried": own_numbers_why(own)}
        claims.append(record)
    spec = report.spec
    return {
        "paper": spec.number, "key": spec.key,
        "systematic": [d.as_dict() for d in getattr(report, "systematic", [])],
        "claims": claims,
        "cells": cell_records(report.cells),
        "anomalies": [a.as_dict() for a in getattr(report, "anomalies", []) or []],
        "open_questions": _open_questions(report),
        "summary": summary(c["verdict"] for c in claims),
        "summary_calibrated": summary(c["verdict_calibrated"] for c in claims),
    }


def _open_questions(report: Any) -> list[str]:
    try:
        return open_questions(report)
    except (AttributeError, KeyError, TypeError):  # a report object without cells or claims (tests' stand-ins)
        return []


def check_document(doc: dict[str, Any]) -> list[str]:
    """The invariants a ``verdicts.json`` must satisfy; returns the broken ones (empty: valid).

    Summary counts equal the claims' verdicts; no equivalence reproduced with an
    interval outside ± margin; no significance reproduced with ``p_adjusted >=
    alpha``; no difference reproduced (or smaller/larger) with an interval covering 0;
    a difference or trend ``inconclusive`` or ``not reproduced`` only with an interval
    holding 0, ``not reproduced`` only when it excludes the paper's effect.
    """
    problems = []
    claims: Sequence[dict[str, Any]] = doc.get("claims", [])
    if doc.get("summary") != summary(c["verdict"] for c in claims):
        problems.append("summary counts differ from the claims' verdicts")
    for c in claims:
        good = grade_of(c["verdict"]) in (REPRODUCED, SMALLER, LARGER)
        lo, hi = c.get("interval", [None, None])
        if not good:
            continue
        if c["kind"] == EQUIVALENCE:
            m = c.get("margin")
            if m is None or lo is None or hi is None or lo < -m - SLACK * max(1, m) or hi > m + SLACK * max(1, m):
                problems.append(f"{c['claim']}: equivalence reproduced with interval {lo, hi} outside ± {m}")
        elif c["kind"] == SIGNIFICANCE:
            t = c.get("test") or {}
            if not t.get("as_applied", True):
                if lo is None or hi is None or lo <= 0:
                    problems.append(f"{c['claim']}: significance (no test named) reproduced with interval "
                                    f"{lo, hi} reaching 0")
            elif c.get("units"):
                if grade_units([u["grade"] for u in c["units"]]) != grade_of(c["verdict"]):
                    problems.append(f"{c['claim']}: significance {c['verdict']} while its units give "
                                    f"{grade_units([u['grade'] for u in c['units']])}")
            elif t.get("p") is None or t.get("alpha") is None or t["p"] >= t["alpha"]:
                problems.append(f"{c['claim']}: significance reproduced with p {t.get('p')} "
                                f">= alpha {t.get('alpha')}")
        elif c["kind"] == DIFFERENCE:
            if lo is None or hi is None or lo <= 0 <= hi:
                problems.append(f"{c['claim']}: difference reproduced with interval {lo, hi} covering 0")
    for c in claims:
        units = [u["grade"] for u in c.get("units") or []]
        if c["kind"] == COUNT and units and (grade_of(c["verdict"]) == REPRODUCED) != (set(units) == {REPRODUCED}):
            problems.append(f"{c['claim']}: count {c['verdict']} while its units are {', '.join(units)}")
    for c in claims:
        # the two grades of an interval holding 0 differ only by whether it holds the paper's effect
        grade, lo, hi, paper = grade_of(c["verdict"]), *c.get("interval", [None, None]), c.get("paper_effect")
        if c["kind"] not in (DIFFERENCE, TREND) or grade not in (INCONCLUSIVE, NOT_REPRODUCED) or lo is None:
            continue
        if not lo - SLACK <= 0 <= hi + SLACK:
            problems.append(f"{c['claim']}: {grade} with interval {lo, hi} excluding 0")
        elif grade == NOT_REPRODUCED and (paper is None or lo - SLACK <= paper <= hi + SLACK):
            problems.append(f"{c['claim']}: not reproduced with interval {lo, hi} holding the paper's effect {paper}")
    for c in claims:  # a rule the paper's own numbers fail is said, never left to be guessed
        own = c.get("paper_on_paper") or {}
        if own and grade_of(str(own.get("verdict", ""))) != REPRODUCED and not own.get("why_not_carried"):
            problems.append(f"{c['claim']}: the paper's own numbers grade {own.get('verdict')!r} with no reason")
    return problems
