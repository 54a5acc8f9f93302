"""Paper 001's claims inventory: every statement its text makes about its experimental results.

Each is a :class:`~treebench.report.statements.Statement` with its location,
its scope (algorithms, datasets and the caveats of its own sentence) and the
test the paper applied, graded by a claim or listed ``not testable`` with the
reason.  The text reports Table 2 (leave-one-out errors, marks from one-way
tests), tree sizes and R (section 5, no numbers printed), Fig. 1 (two root
curves of Breast Tissue), Fig. 2 (the Ecoli4 tree), section 4's synthetic
experiment (Figs. 3-4) and Fig. 5 (errors by tree level); the abstract and
section 6 restate these.  The first three statements keep the claim texts the
report has always used (verdict files name a claim by its text).
"""

from __future__ import annotations

from treebench.papers.mee.claims import (
    CurveShapeClaim,
    LowerRClaim,
    MergedSplitsClaim,
    NoOverfittingClaim,
    VersusIGRateClaim,
    VersusIGTypeClaim,
)
from treebench.report.claims import FewerClaim, OneWayClaim
from treebench.report.statements import Statement
from treebench.report.verdicts import COUNT, DIFFERENCE, EQUIVALENCE, TREND

#: The datasets of Table 2 (card names), in the paper's column order.
TABLE_2 = ("breast-tissue", "breast-tissue4", "olive", "ecoli-327", "ecoli4", "segment", "glass")

#: Section 4's setting, as the report's section runs it.
SECTION_4 = ("two classes of n = 10 cases each (our reading of \"an equal number of points, n\"), two features "
             "uniform on [0, 1], root split only; 5 batches of 1000 runs (\"several batches of 1000\"); "
             "default reading (joint P(e = ±2), a split must lower the error entropy)")

#: Fig. 1's numbering: Breast Tissue's features and classes in the file's (UCI's) order, x1 = I0 ... x9 = P,
#: class 1 = car ... 6 = adi (the text does not say how it numbers them).
FIG_1 = ("Breast Tissue, root node, 100-point grid over the feature's range; features and classes numbered in "
         "the UCI file's order (x2 = PA500, x9 = P; class 2 = fad, class 6 = adi: the text gives no key)")

STATEMENTS = (
    # ---------------------------------------------------------------- section 3, Table 2
    Statement("Section 3, Table 2 (bold / underlined)", claim=OneWayClaim(
        "Significantly best (bold) and worst (underlined) per dataset, Table 2"),
        scope="MEE, CART, C4.5 on the 7 datasets of Table 2, each dataset a unit; Glass, where all three cells "
              "are underlined, asserts no best or worst and is not testable",
        test_as_applied="Levene at 0.05, then one-way ANOVA or Kruskal-Wallis, multiple comparisons at 5 %"),
    Statement("Section 3 (after Table 2)",
              "On Breast and Ecoli some classes always had high error rates, with every method, which is why "
              "they were merged into Breast4 and Ecoli4",
              scope="Breast and Ecoli, all three methods (\"also found with other classification methods\"); "
                    "\"quite high\" has no threshold",
              test_as_applied="none",
              why_not="needs per-class errors: the rerun's store keeps one error per leave-one-out trial without "
                      "the test case's class (configs/mee.yaml saves no predictions), and the text names no "
                      "threshold for \"quite high\"",
              statement_kind=COUNT),
    # ---------------------------------------------------------------- section 5
    # "the MEE algorithm always produced smaller trees, on average, than those produced by C4.5"; the
    # paper measured tree size as the number of nodes and printed no sizes, so the claim is taken as stated
    Statement("Section 5 (tree size)", claim=FewerClaim(
        "MEE trees are smaller (mean nodes) than C4.5's on every dataset (section 5)",
        "mee", "c45", "n_nodes", TABLE_2),
        scope="MEE against C4.5 only (\"no tree size statistics were available for CART\"), every dataset, "
              "\"on average\" (mean nodes of the leave-one-out trees)",
        test_as_applied="none"),
    Statement("Section 5 (generalisation, R)", claim=LowerRClaim(
        "MEE trees generalise better: a lower R = |m_R − m_CV| / s̄ than CART's and C4.5's (section 5)"),
        scope="\"a tendency\", against the other methods; s̄ undefined in the text (ours: the mean of the two "
              "binomial stds)",
        test_as_applied="none named (\"significantly lower R\")"),
    Statement("Section 5 (class overlap)",
              "Where the two class means are less than one pooled standard deviation apart the entropy-of-error "
              "curve is concave, so MEE makes no split there (one reason for its smaller trees)",
              scope="a guess from the theory of [9] (\"one may guess\"), offered as one reason among others",
              test_as_applied="none",
              why_not="a conjecture drawn from reference [9], not a result: the paper runs no experiment on it "
                      "and gives no distributions to run one on",
              statement_kind=COUNT),
    Statement("Section 5, Fig. 5", claim=NoOverfittingClaim(
        "MEE trees do not overfit: the test error of the full tree does not rise above that of the tree cut at "
        "its best level (Fig. 5)", TABLE_2),
        scope="MEE (no pruning), 50 random 80/20 splits per dataset, the tree cut at each level; \"the same "
              "conclusion\" in all experiments, \"over 20 for each dataset\" (which datasets Fig. 5 shows is not "
              "said: every dataset of Table 2 here)",
        test_as_applied="none (read off the figure: \"clearly indicate\")"),
    # ---------------------------------------------------------------- section 2, Figs. 1-2
    Statement("Section 2, Fig. 1a", claim=CurveShapeClaim(
        "Fig. 1a: feature x9 with class 6 of Breast Tissue gives a convex curve whose minimum is a split",
        "breast-tissue", "P", "adi", True),
        scope=FIG_1 + "; the curve's global minimum is \"the interesting split\"", test_as_applied="none"),
    Statement("Section 2, Fig. 1b", claim=CurveShapeClaim(
        "Fig. 1b: feature x2 with class 2 of Breast Tissue gives a concave curve",
        "breast-tissue", "PA500", "fad", False),
        scope=FIG_1, test_as_applied="none"),
    Statement("Section 2 (merged classes)", claim=MergedSplitsClaim(
        "MEE often finds its best split on merged classes (section 2)", TABLE_2),
        scope="\"in a large number of experiments\" (unnamed); ours: the default trees grown on every case of "
              "each dataset of Table 2; \"often\" gives no share",
        test_as_applied="none"),
    Statement("Section 2 (merged classes, convexity)",
              "Merged-class splits can give good splits where no convex curve, or only a hard one, exists for "
              "single classes",
              scope="the same paragraph as the merged-class statement; \"good\" and \"difficult\" unquantified",
              test_as_applied="none",
              why_not="it names no measure of a good split or of a difficult curve, and a fitted tree keeps only "
                      "the class set it chose at each node, not which single-class curves were convex there",
              statement_kind=COUNT),
    Statement("Section 2 (the crude convexity rule)",
              "Other modifications of the five-interval convex/concave rule brought no clear improvement",
              scope="the rule of section 2; the modifications are not described", test_as_applied="none",
              why_not="the modifications tried are not described, so there is nothing to rerun",
              statement_kind=EQUIVALENCE),
    Statement("Section 2, Fig. 2", claim=MergedSplitsClaim(
        "Fig. 2: the MEE tree of Ecoli4 splits on 2-class combinations", ("ecoli4",), every=True),
        scope="Ecoli4, the tree grown on every case (the figure's data are not said)", test_as_applied="none"),
    # ---------------------------------------------------------------- section 4, Figs. 3-4
    Statement("Section 4", claim=VersusIGRateClaim(
        "MEE picks another root feature than information gain in only about 1 % of the runs (section 4)"),
        scope=SECTION_4 + "; \"on average\" over the batches", test_as_applied="none"),
    Statement("Section 4, Fig. 3", claim=VersusIGTypeClaim(
        "Where MEE and IG differ, MEE finds no valid split on IG's feature (section 4, Fig. 3)", "unsplit"),
        scope=SECTION_4 + "; \"all differences\", of the type of Fig. 3", test_as_applied="none"),
    Statement("Section 4, Fig. 4; section 6", claim=VersusIGTypeClaim(
        "Where MEE and IG differ, MEE's split errs more evenly over the two classes (section 4, Fig. 4)",
        "balanced"),
        scope=SECTION_4 + "; the conclusion repeats it as a benefit (\"errors distributed in a more balanced "
                          "way\")", test_as_applied="none"),
    Statement("Section 4, Figs. 3-4 (values)",
              "On the sample of Fig. 3, IG's best gains are 0.1639 (x1) and 0.1325 (x2) and MEE's minimum on x2 "
              "is 0.4609, with no valid minimum on x1",
              scope="one sample of section 4's experiment", test_as_applied="none",
              why_not="the sample behind Figs. 3-4 is not published, so its values cannot be recomputed",
              statement_kind=DIFFERENCE),
    # ---------------------------------------------------------------- abstract and section 6
    Statement("Abstract", claim=FewerClaim(
        "MEE trees are often smaller (mean nodes) than C4.5's (abstract)", "mee", "c45", "n_nodes", ()),
        scope="\"often simpler trees\", against C4.5 (the only sizes the paper had), every dataset rerun",
        test_as_applied="none"),
    Statement("Abstract; section 6",
              "MEE produces good results and, on the real-world datasets, results that look encouraging",
              scope="the seven datasets of section 3; \"good\" and \"encouraging\" name no comparator",
              test_as_applied="none",
              why_not="an appraisal with no comparator or threshold; Table 2's marks, graded above, are the "
                      "comparison the paper tested",
              statement_kind=DIFFERENCE),
    Statement("Abstract; section 6 (no pruning)",
              "MEE trees need no pruning (\"could be used without pruning\", \"no need of applying a pruning "
              "operation\")",
              scope="\"in the many experiments we have performed\"", test_as_applied="none",
              why_not="the same statement as Fig. 5's absence of overfitting (pruning could only help a tree that "
                      "overfits), graded there once so that it is not counted twice",
              statement_kind=EQUIVALENCE),
    Statement("Abstract (generalisation)",
              "MEE trees have interesting generalisation properties",
              scope="summary of section 5", test_as_applied="none",
              why_not="a summary of section 5's R and Fig. 5, each graded above; \"interesting\" adds nothing "
                      "to test",
              statement_kind=TREND),
)
