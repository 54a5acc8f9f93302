"""Paper 000 as a :class:`~treebench.report.spec.PaperSpec`: Table 1, Fig. 4 and Figs. 2-3."""

from __future__ import annotations

from pathlib import Path

from treebench.report.claims import MostClaim, UnderlineClaim, WilcoxonClaim
from treebench.report.sections import Section
from treebench.report.spec import Figure, PaperSpec, Reading, SectionContext, section_builder


@section_builder("random_trees")
def random_trees(context: SectionContext) -> list[Section]:
    """Figs. 2-3 from the random-tree experiment; ``context.options`` are
    :func:`~treebench.papers.serrurier2015.figures.random_trees_section`'s settings."""
    from treebench.papers.serrurier2015.figures import random_trees_section

    return [random_trees_section(context.out_dir, **context.options)]


SPEC = PaperSpec(
    key="serrurier2015",
    number="000",
    citation="Serrurier & Prade, Entropy evaluation based on confidence intervals of frequency estimates: "
             "application to the learning of decision trees, ICML 2015",
    reference="000_serrurier2015_table1.csv",
    description="possibilistic cumulative entropy",
    authors="Serrurier & Prade 2015",
    claims=(
        WilcoxonClaim("ΠTree beats LogTree (Wilcoxon over datasets)", "pitree", "logtree", "accuracy", True),
        WilcoxonClaim("ΠTree beats PrunTree (Wilcoxon over datasets)", "pitree", "pruntree", "accuracy", True),
        WilcoxonClaim("ΠTree vs J4.8: no significant difference", "pitree", "j48", "accuracy", False),
        WilcoxonClaim("O-ΠTree vs LogTree: no significant difference", "o-pitree", "logtree", "accuracy", False),
        WilcoxonClaim("O-ΠTree vs PrunTree: no significant difference", "o-pitree", "pruntree", "accuracy", False),
        UnderlineClaim("Underlined: significantly better (paired t-test) than LogTree and PrunTree",
                       ("logtree", "pruntree")),
        MostClaim("LogTree always produces the most complex trees (Fig. 4)", "logtree", "n_leaves"),
    ),
    figures=(
        Figure("leaves", "leaves", "Mean number of leaves per dataset and algorithm (cf. paper 000, Fig. 4)."),
        Figure("cd", "cd", "Critical-difference diagram of accuracy ranks (Friedman + Nemenyi).",
               {"metric": "accuracy"}),
    ),
    sections=(random_trees,),
    # §4.2: "The γ parameter is tuned as in the previous algorithm" -- by a cross-validation on the training
    # set (§4.1), which for O-ΠTree cross-validates the online trees; the tree "will grow up slowly".
    default_reading="O-ΠTree's γ tuned by cross-validating online trees on the training part (§4.2: \"tuned as in "
                    "the previous algorithm\" -- the method, a cross-validation, applied to the learner being tuned, "
                    "as PrunTree's confidence is \"tuned with the same method used for ΠTree\")",
    readings=(
        Reading("batch-tuned γ",
                "O-ΠTree takes the γ that cross-validating batch ΠTrees picks, and only its final tree is grown "
                "online (the tuning done once \"at the beginning\" with the batch algorithm)",
                {"o-pitree-batch-tuned": "o-pitree"}),
    ),
    # eq. 18 is the possibilistic criterion's tree measure (Possibilistic.tree_quality)
    # LogTree (log entropy, no pruning), PrunTree (the same with pessimistic-error pruning) and Weka's J4.8
    # are classic algorithms the paper compares against; ΠTree and O-ΠTree are its own
    baselines=("logtree", "pruntree", "j48"),
    dataset_source="none printed: section 5 says only \"16 benchmarks from UCI, 3 of these datasets have "
                   "nominal attributes and 13 have numerical attributes only\", with no rows, classes or attributes",
    tree_quality_title="Tree quality measure (eq. 18)",
    tree_quality_text="Mean ± std over trials of the criterion's tree measure of every fitted tree "
                      "(eq. 18: the sum over the leaves of H*(p_l, n_l, γ) at the tuned γ; lower is better).",
    # known differences from the paper, as data with their sources (docs/reports.md, "Causes")
    causes=str(Path(__file__).with_name("causes.yaml")),
)
