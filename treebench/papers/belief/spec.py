"""Paper 004 as a :class:`~treebench.report.spec.PaperSpec`: Table 1, crisp against uncertain labels."""

from __future__ import annotations

from treebench.report.claims import FewerClaim
from treebench.report.sections import Section
from treebench.report.spec import PaperSpec, SectionContext, section_builder


@section_builder("belief_tables")
def belief_tables(context: SectionContext) -> list[Section]:
    """Crisp vs uncertain labels and belief vs entropy per public dataset, once anything has run."""
    from treebench.papers.belief.tables import belief_section

    return [belief_section(context.frame)] if context.has_trials else []


SPEC = PaperSpec(
    key="belief",
    number="004",
    citation="Denœux & Skarstein Bjanger, Induction of decision trees from partially classified data using "
             "belief functions, SMC 2000",
    reference="004_belief_table1.csv",
    description="belief-function trees",
    authors="Denoeux & Skarstein Bjanger",
    claims=(
        FewerClaim("Uncertain labels lower the error rate (marginally)", "belief-uncertain", "belief-crisp",
                   "error", ()),
        FewerClaim("Uncertain labels lower the pignistic error E", "belief-uncertain", "belief-crisp",
                   "pignistic_error", ()),
    ),
    sections=(belief_tables,),
)
