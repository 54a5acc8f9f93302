"""Paper 002's own section, named in its ``paper.yaml`` (``sections:q_sweep``).

Fig. 1: accuracy and tree size of Tsallis entropy on Glass over a fine,
untuned q grid (:mod:`.q_sweep`, imported when the section is built).
"""

from __future__ import annotations

from treebench.report.sections import Section
from treebench.report.spec import SectionContext, section_builder


@section_builder("q_sweep")
def q_sweep(context: SectionContext) -> list[Section]:
    """Fig. 1 on the paper's own config; ``context.options`` are
    :func:`~treebench.papers.tsallis.q_sweep.q_sweep_section`'s settings."""
    from treebench.papers.tsallis.q_sweep import q_sweep_section

    return [q_sweep_section(context.out_dir, config=context.spec.config, **context.options)]
