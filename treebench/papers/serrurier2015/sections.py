"""Paper 000's own sections, named in its ``paper.yaml`` (``sections:random_trees``, ...).

Each builder imports its heavy module when it runs, so reading the paper
folder stays light: Figs. 2-3 from the random-tree experiment
(:mod:`.figures`), O-ΠTree over arrival orders and tie rules (:mod:`.orders`)
and Fig. 4's leaves under every reading (:mod:`.sizes`).
"""

from __future__ import annotations

from treebench.report.sections import Section
from treebench.report.spec import SectionContext, section_builder

#: The readings the orders section sets beside the default, by their names in ``paper.yaml``.
OTHER_ORDER = "another arrival order"
FILE_ORDER = "file order"


@section_builder("random_trees")
def random_trees(context: SectionContext) -> list[Section]:
    """Figs. 2-3 from the random-tree experiment; ``context.options`` are
    :func:`~treebench.papers.serrurier2015.figures.random_trees_section`'s settings."""
    from treebench.papers.serrurier2015.figures import random_trees_section

    return [random_trees_section(context.out_dir, **context.options)]


@section_builder("orders")
def orders(context: SectionContext) -> list[Section]:
    """O-ΠTree over five arrival orders and under the tie and order readings (:mod:`.orders`)."""
    from treebench.papers.serrurier2015.orders import orders_section

    section = orders_section(context.frame, context.reading_trials(OTHER_ORDER), context.reading_trials(FILE_ORDER),
                             context.reference)
    return [] if section is None else [section]


@section_builder("sizes")
def sizes(context: SectionContext) -> list[Section]:
    """Fig. 4's five algorithms' leaves per dataset under the default and each reading (:mod:`.sizes`)."""
    from treebench.papers.serrurier2015.sizes import reading_views, sizes_section

    section = sizes_section(reading_views(context.frame, context.spec.readings, context.reading_sources))
    return [] if section is None else [section]
