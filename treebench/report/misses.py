"""The misses a report does not explain: each an open question until a cause is located."""

from __future__ import annotations

from typing import Any

#: The grades of a claim whose miss needs a cause or an open question.
MISSES = ("not reproduced", "reversed")


def open_questions(rep: Any) -> list[str]:
    """Every miss the report does not explain: a disagreeing cell with no registered cause, a claim not
    reproduced or reversed whose statement names no cause (each an open question until one is located)."""
    out = []
    cells = rep.cells
    if len(cells) and {"agrees", "cause"} <= set(cells.columns):
        for r in cells[(cells["agrees"] == False) & (cells["cause"].fillna("") == "")].to_dict("records"):  # noqa: E712
            out.append(f"cell {r['dataset_label']} / {r['algorithm']} / {r['metric']}: ours {r['ours']:.4g} against "
                       f"the paper's {r['value']:.4g} — disagrees, no registered cause")
    for c in rep.claims:
        grade = (c.verdict or "").split(" (")[0]
        if grade in MISSES and not getattr(c, "cause", ""):
            out.append(f"claim \"{c.text}\": {grade} — no cause located")
    return out


def explained_claims(rep: Any) -> list[str]:
    """The claims not reproduced or reversed whose miss has a located cause (the statement's ``cause``)."""
    return [f"claim \"{c.text}\": {(c.verdict or '').split(' (')[0]} — {c.cause}" for c in rep.claims
            if (c.verdict or "").split(" (")[0] in MISSES and getattr(c, "cause", "")]
