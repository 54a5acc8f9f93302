"""Paper 004 as a :class:`~treebench.report.spec.PaperSpec`: Table 1, crisp against uncertain labels."""

from __future__ import annotations

from treebench.report.claims import FewerClaim
from treebench.report.sections import Section
from treebench.report.spec import PaperDataset, PaperSpec, SectionContext, section_builder


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
    # Table 1 has the paper's own tree only (crisp and uncertain labels); C4.5 appears in the text alone
    # ("equivalent" error rate, not shown), so there is no baseline cell to calibrate with
    baselines=(),
    datasets={"EEG (K-complex vs delta)": PaperDataset(
        150, 64, 2, "section 4", "50 delta waves and 100 K-complex patterns labelled by five experts; not public")},
    dataset_source="section 4 (150 EEG patterns, 64 attributes, two classes)",
)
