"""A paper's results statements: each with where it is, its scope, its test as applied, and its grade.

A paper says more about its results than its tables test.  Every such
statement is one :class:`Statement` of the paper's inventory: its location
in the text, a paraphrase in our words, its scope (the algorithms, datasets
and caveats of its own sentence), the test the paper applied to it (or
``none``), and either the claim that grades it or the reason it cannot be
graded (``not testable (why)``), so the headline counts every statement the
text makes, not only the ones a table carries.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from treebench.report.claims import ClaimOutcome, Effect, evaluate_claim, in_report_folder
from treebench.report.verdicts import DIFFERENCE, KINDS, not_testable

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class Statement:
    """One results statement of a paper, graded by ``claim`` or ``not testable`` for ``why_not``.

    Attributes
    ----------
    location
        Where the text makes it ("Section 5", "Table 2", "Fig. 4 paragraph").
    paraphrase
        The statement in our words (the claim's text when it has a claim and this is empty).
    claim
        The claim that grades it (any claim kind of :mod:`treebench.report.claims` or a paper's own);
        ``None`` for a statement that cannot be graded.
    scope
        Its algorithms, datasets and the caveats of its own sentence or paragraph.
    test_as_applied
        The test the paper applied to it, with its level and correction, or ``none``.
    why_not
        Why it cannot be graded (with no ``claim``).
    statement_kind
        The kind the statement would be graded as (with no ``claim``; one of the claim kinds).
    cause
        What explains the rerun's miss of it, with the run or investigation (its command) that
        establishes it; empty: none located (a miss is then an open question).
    """

    location: str
    paraphrase: str = ""
    claim: Any = None
    scope: str = ""
    test_as_applied: str = "none"
    why_not: str = ""
    statement_kind: str = DIFFERENCE
    cause: str = ""

    def __post_init__(self) -> None:
        if self.claim is None and not self.why_not:
            raise ValueError(f"statement at {self.location!r}: give a claim or why it cannot be graded")
        if self.statement_kind not in KINDS:
            raise ValueError(f"statement at {self.location!r}: kind {self.statement_kind!r}; accepted: "
                             f"{', '.join(KINDS)}")

    @property
    def text(self) -> str:
        """The statement as the report names it."""
        return self.paraphrase or str(getattr(self.claim, "text", ""))

    @property
    def kind(self) -> str:
        """Its claim's kind, else the kind it would be graded as."""
        return str(getattr(self.claim, "kind", self.statement_kind)) if self.claim is not None else self.statement_kind

    def in_folder(self, folder: str | Path) -> Statement:
        """This statement with its claim reading the report folder ``folder`` (:func:`in_report_folder`)."""
        return self if self.claim is None else replace(self, claim=in_report_folder(self.claim, folder))

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """The claim's outcome (or a ``not testable`` one), carrying the statement's location, scope and test."""
        if self.claim is None:
            out = ClaimOutcome(self.text, "stated in the text", "–", "not testable", None)
            out.set_effect(Effect("–", kind=self.statement_kind, verdict=not_testable(self.why_not)))
        else:
            out = evaluate_claim(self.claim, cells, frame)
            out.text = self.text
        out.location, out.scope, out.test_as_applied = self.location, self.scope, self.test_as_applied
        out.cause = self.cause
        return out
