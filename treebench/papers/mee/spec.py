"""Paper 001 as a :class:`~treebench.report.spec.PaperSpec`: Table 2's marks and the extra sections."""

from __future__ import annotations

from treebench.report.claims import OneWayClaim
from treebench.report.sections import Section
from treebench.report.spec import PaperSpec, SectionContext, section_builder


@section_builder("mee")
def mee(context: SectionContext) -> list[Section]:
    """Section 5's R, Fig. 5, Fig. 1 and section 4; ``context.options`` may hold the
    ``levels``, ``curve`` and ``versus_ig`` settings of :func:`~treebench.papers.mee.sections.mee_sections`."""
    from treebench.papers.mee.sections import mee_sections

    return mee_sections(context.out_dir, context.frame, context.reference, **context.options)


SPEC = PaperSpec(
    key="mee",
    number="001",
    citation="Marques de Sá, Gama, Sebastião & Alexandre, Decision trees using the minimum entropy-of-error "
             "principle",
    reference="001_mee_table2.csv",
    description="minimum entropy-of-error trees",
    authors="Marques de Sa et al.",
    claims=(OneWayClaim("Significantly best (bold) and worst (underlined) per dataset, Table 2"),),
    aliases=("marquesdesa",),
    sections=(mee,),
)
