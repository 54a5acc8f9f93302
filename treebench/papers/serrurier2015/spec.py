"""Paper 000 as a :class:`~treebench.report.spec.PaperSpec`: Table 1, Fig. 4 and Figs. 2-3."""

from __future__ import annotations

from pathlib import Path

from treebench.papers.serrurier2015.sizes import (
    LOGTREE_RIVALS,
    OPITREE_RIVALS,
    FewCasesLargestClaim,
)
from treebench.report.claims import FewerClaim, MostClaim, UnderlineClaim, WilcoxonClaim
from treebench.report.sections import Section
from treebench.report.spec import Figure, PaperSpec, Reading, SectionContext, section_builder


@section_builder("random_trees")
def random_trees(context: SectionContext) -> list[Section]:
    """Figs. 2-3 from the random-tree experiment; ``context.options`` are
    :func:`~treebench.papers.serrurier2015.figures.random_trees_section`'s settings."""
    from treebench.papers.serrurier2015.figures import random_trees_section

    return [random_trees_section(context.out_dir, **context.options)]


#: The readings of what the paper leaves open: attribute ties and O-ΠTree's arrival order (their trials:
#: configs/serrurier2015-readings.yaml, 11 of the 16 sets) and other arrival orders (configs/serrurier2015-orders.yaml).
READINGS_CONFIG = "configs/serrurier2015-readings.yaml"
ORDERS_CONFIG = "configs/serrurier2015-orders.yaml"
FIRST_TIES = Reading(
    "first-column ties",
    "of attributes with the same best gain, the lowest column wins (treebench's former rule) instead of one drawn "
    "at random, for ΠTree, O-ΠTree, LogTree and PrunTree (11 of the 16 sets)",
    {"pitree-first": "pitree", "o-pitree-first": "o-pitree", "logtree-first": "logtree",
     "pruntree-first": "pruntree"},
    config=READINGS_CONFIG,
)
FILE_ORDER = Reading(
    "file order",
    "O-ΠTree's training examples arrive in the file's order, not shuffled (random ties; 11 of the 16 sets)",
    {"o-pitree-file": "o-pitree"},
    config=READINGS_CONFIG,
)
FILE_ORDER_FIRST = Reading(
    "file order + first-column ties",
    "O-ΠTree fed in the file's order with first-column ties: the rule and order the paper's text does not exclude "
    "that make a tree depend on how the file is laid out (11 of the 16 sets)",
    {"o-pitree-file-first": "o-pitree"},
    config=READINGS_CONFIG,
)
OTHER_ORDER = Reading(
    "another arrival order",
    "O-ΠTree fed in another seeded order (draw 1 of configs/serrurier2015-orders.yaml; 5 small sets); the "
    "section \"O-ΠTree over arrival orders and tie rules\" shows all five orders and their spread",
    {"o-pitree-draw-1": "o-pitree"},
    config=ORDERS_CONFIG,
)


# --- tuning protocol (issue 39 finding 3, issue 38 item 6) -------------------------------------------------
#: The diagnostic of where γ is chosen: on the outer test fold (configs/serrurier2015-tuning.yaml), never a
#: default -- §4.1 tunes γ "by the mean of a cross-validation on the training set", as the paper's config does.
TUNING_CONFIG = "configs/serrurier2015-tuning.yaml"
TEST_TUNED = Reading(
    "tuned on the test split (optimistic bound)",
    "γ of ΠTree and O-ΠTree, and PrunTree's confidence, chosen by the accuracy of each value's tree on the outer "
    "test fold it is then scored on (all 16 sets): not the paper's protocol but an upper bound on what choosing "
    "among the same 10 values could give, showing how much of a shortfall selection on the test data could explain",
    {"pitree-test-tuned": "pitree", "o-pitree-test-tuned": "o-pitree", "pruntree-test-tuned": "pruntree"},
    config=TUNING_CONFIG,
)
TUNING_READINGS = (TEST_TUNED,)
# --- end of the tuning protocol block ------------------------------------------------------------------------


@section_builder("orders")
def orders(context: SectionContext) -> list[Section]:
    """O-ΠTree over five arrival orders and under the tie and order readings (:mod:`.orders`)."""
    from treebench.papers.serrurier2015.orders import orders_section

    section = orders_section(context.frame, context.reading_sources.get(OTHER_ORDER.name),
                             context.reading_sources.get(FILE_ORDER.name), context.reference)
    return [] if section is None else [section]


# -- issue 39, finding 1: Fig. 4's size claims, each on its own algorithms, and O-ΠTree's leaf minimum ----------
#: Fig. 4's paragraph and §4.2 on tree sizes (:mod:`.sizes`): LogTree against PrunTree, ΠTree and J4.8 only (the
#: paragraph sets O-ΠTree apart), O-ΠTree against the four others, O-ΠTree against ΠTree ("grow up slowly").
SIZE_CLAIMS = (
    # the text is kept as before (reports and verdict files name a claim by it); the rivals are its scope
    MostClaim("LogTree always produces the most complex trees (Fig. 4)", "logtree", "n_leaves", LOGTREE_RIVALS),
    FewCasesLargestClaim("O-ΠTree may in three cases induce the largest trees (Fig. 4; against LogTree, PrunTree, "
                         "ΠTree, J4.8)", "o-pitree", OPITREE_RIVALS, "n_leaves", 3, 16),
    FewerClaim("O-ΠTree grows up slowly (§4.2): fewer leaves than ΠTree, the same gain grown in batch (trend)",
               "o-pitree", "pitree", "n_leaves", ()),
)
MIN_LEAF_CONFIG = "configs/serrurier2015-minleaf.yaml"
#: §4.2 re-tests the leaf an example lands in at every arrival and states no minimum; eq. 17 gives the clean split
#: of a two-example, two-class leaf a positive gain at every γ (docs/investigations.md), so "a leaf is tested only
#: once it holds N examples" is a reading beside the default (which stays the text as printed: no minimum).
MIN_LEAF_READINGS = (
    Reading(
        "leaf tested from 20 examples",
        "O-ΠTree tests a leaf for a split only once it holds 20 examples (min_samples_split = 20; γ tuned online as "
        "in the default): a minimum the text does not state, for the two-class leaves where eq. 17 splits two "
        "examples (11 of the 16 sets)",
        {"o-pitree-min20": "o-pitree"},
        config=MIN_LEAF_CONFIG,
    ),
)


@section_builder("sizes")
def sizes(context: SectionContext) -> list[Section]:
    """Fig. 4's five algorithms' leaves per dataset under the default and each reading (:mod:`.sizes`)."""
    from treebench.papers.serrurier2015.sizes import reading_views, sizes_section

    section = sizes_section(reading_views(context.frame, context.spec.readings, context.reading_sources))
    return [] if section is None else [section]


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
        *SIZE_CLAIMS,
    ),
    figures=(
        Figure("leaves", "leaves", "Mean number of leaves per dataset and algorithm (cf. paper 000, Fig. 4)."),
        Figure("cd", "cd", "Critical-difference diagram of accuracy ranks (Friedman + Nemenyi).",
               {"metric": "accuracy"}),
    ),
    sections=(random_trees, orders, sizes),
    # §4.2: "The γ parameter is tuned as in the previous algorithm" -- by a cross-validation on the training
    # set (§4.1), which for O-ΠTree cross-validates the online trees; the tree "will grow up slowly".
    default_reading="O-ΠTree's γ tuned by cross-validating online trees on the training part (§4.2: \"tuned as in "
                    "the previous algorithm\" -- the method, a cross-validation, applied to the learner being tuned, "
                    "as PrunTree's confidence is \"tuned with the same method used for ΠTree\"); γ among 10 values "
                    "over ]0, 1[ (0.001..0.99: the propositions hold for γ in ]0, 1[, and γ = 1 gives z = 0, no "
                    "interval and no stopping rule); tied attributes drawn at random and O-ΠTree's examples fed in "
                    "a seeded shuffle (the text gives neither a tie rule nor an order, and a result should not "
                    "depend on how the file's columns or rows are laid out)",
    readings=(
        Reading("batch-tuned γ",
                "O-ΠTree takes the γ that cross-validating batch ΠTrees picks, and only its final tree is grown "
                "online (the tuning done once \"at the beginning\" with the batch algorithm)",
                {"o-pitree-batch-tuned": "o-pitree"}),
        FIRST_TIES,
        FILE_ORDER,
        FILE_ORDER_FIRST,
        OTHER_ORDER,
        *MIN_LEAF_READINGS,
        *TUNING_READINGS,
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
