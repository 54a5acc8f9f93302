"""Paper 002 as a :class:`~treebench.report.spec.PaperSpec`: Table II, its Wilcoxon tests and Fig. 1."""

from __future__ import annotations

from treebench.report.claims import MeanDiffClaim, WilcoxonClaim
from treebench.report.sections import Section
from treebench.report.spec import Figure, PaperSpec, SectionContext, section_builder


@section_builder("q_sweep")
def q_sweep(context: SectionContext) -> list[Section]:
    """Fig. 1 on the paper's own config; ``context.options`` are
    :func:`~treebench.papers.tsallis.q_sweep.q_sweep_section`'s settings."""
    from treebench.papers.tsallis.q_sweep import q_sweep_section

    return [q_sweep_section(context.out_dir, config=context.spec.config, **context.options)]


SPEC = PaperSpec(
    key="tsallis",
    number="002",
    citation="Wang, Song & Xia, Unifying the split criteria of decision trees using Tsallis entropy",
    reference="002_tsallis_table2.csv",
    description="Tsallis entropy criteria",
    authors="Wang, Song & Xia",
    claims=(
        WilcoxonClaim("Tsallis entropy beats Shannon entropy (Wilcoxon, p < 0.01)", "tsallis", "id3", "accuracy",
                      True, 0.01),
        WilcoxonClaim("Tsallis entropy beats the Gini index (Wilcoxon, p < 0.01)", "tsallis", "cart", "accuracy",
                      True, 0.01),
        WilcoxonClaim("Tsallis gain ratio beats gain ratio (Wilcoxon, p < 0.01)", "tsallis-gr", "c45", "accuracy",
                      True, 0.01),
        MeanDiffClaim("TEC improves accuracy by about 4 points on average", "tsallis", ("id3", "cart", "c45"),
                      "accuracy", paper="≈ 4 points"),
    ),
    figures=(
        Figure("cd", "cd", "Critical-difference diagram of accuracy ranks (Friedman + Nemenyi).",
               {"metric": "accuracy"}),
        Figure("leaves", "nodes", "Mean number of nodes per dataset and criterion (Table II).",
               {"metric": "n_nodes"}),
    ),
    sections=(q_sweep,),  # Fig. 1: a fine, untuned q grid on glass
    # the paper prints no std: count the cells within 2 accuracy points
    tolerances={"accuracy": 2.0},
)
