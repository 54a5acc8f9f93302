"""Paper 003's own sections, named in its ``paper.yaml`` (``sections:error_counts``, ``sections:tie_counts``).

Every algorithm's error counts per dataset (:mod:`.error_counts`) and how
often the best certainty gain is tied (:mod:`.ties`), each imported when its
section is built.
"""

from __future__ import annotations

from treebench.report.sections import Section
from treebench.report.spec import SectionContext, section_builder

#: The reading the ties section sets beside the default, by its name in ``paper.yaml``.
NO_TIE_BREAK = "no tie-break"


@section_builder("certainty_ties")
def tie_counts(context: SectionContext) -> list[Section]:
    """Per dataset: how often the best gain is tied and the tie-break decides (:mod:`.ties`), once anything ran."""
    from treebench.papers.certainty.ties import ties_section

    if not context.has_trials:
        return []
    section = ties_section(context.frame, context.reading_trials(NO_TIE_BREAK), context.out_dir,
                           context.spec.excluded)
    return [] if section is None else [section]


@section_builder("certainty_errors")
def error_counts(context: SectionContext) -> list[Section]:
    """Every algorithm's error counts per dataset and the claim against C5.0, once anything has run."""
    from treebench.papers.certainty.error_counts import certainty_section

    return [certainty_section(context.frame, context.spec.excluded)] if context.has_trials else []
