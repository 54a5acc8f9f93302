"""Paper 003 as a :class:`~treebench.report.spec.PaperSpec`: training and test error counts against C5.0."""

from __future__ import annotations

from treebench.report.claims import FewerClaim
from treebench.report.sections import Section
from treebench.report.spec import PaperSpec, SectionContext, section_builder

#: The datasets on which the paper reports fewer errors than C5.0.
FEWER_ON = ("monks-1", "monks-2", "optdigits", "pendigits")


@section_builder("certainty_errors")
def error_counts(context: SectionContext) -> list[Section]:
    """Every algorithm's error counts per dataset and the claim against C5.0, once anything has run."""
    from treebench.papers.certainty.error_counts import certainty_section

    return [certainty_section(context.frame)] if context.has_trials else []


SPEC = PaperSpec(
    key="certainty",
    number="003",
    citation="Peñate-Díaz, Calculating certainty in decision trees: certainty vs entropy",
    reference="003_certainty_errors.csv",
    description="certainty vs entropy",
    authors="Penate-Diaz",
    claims=(
        FewerClaim("Certainty makes fewer training errors than C5.0 on Monks-1, Monks-2, Optdigits, Pendigits",
                   "certainty", "c50", "train_errors", FEWER_ON),
        FewerClaim("Certainty makes fewer test errors than C5.0 on Monks-1, Monks-2, Optdigits, Pendigits",
                   "certainty", "c50", "test_errors", FEWER_ON),
    ),
    sections=(error_counts,),
)
