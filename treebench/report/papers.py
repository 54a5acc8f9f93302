"""What each reproduced paper publishes and concludes, as checkable specs.

A :class:`PaperSpec` names the paper's config, its reference CSV and the
claims its text makes about its own numbers.  The reproduction report
recomputes every claim on the rerun (and, where possible, on the paper's
published numbers too, to show whether the claim even follows from them).

Algorithm names in the reference CSVs (column ``algorithm``) are the names a
paper config must give its algorithms; see ``docs/reports.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from treebench.errors import one_of


@dataclass(frozen=True)
class WilcoxonClaim:
    """"``a`` is (not) significantly better than ``b``" by Wilcoxon over datasets."""

    text: str
    a: str
    b: str
    metric: str
    significant: bool
    alpha: float = 0.05


@dataclass(frozen=True)
class OneWayClaim:
    """Paper 001: per dataset, which algorithms are significantly best / worst."""

    text: str
    metric: str = "error"
    alpha: float = 0.05


@dataclass(frozen=True)
class UnderlineClaim:
    """Paper 000: cells significantly better (paired t-test) than both opponents."""

    text: str
    opponents: tuple[str, ...]
    metric: str = "accuracy"
    test: str = "ttest"
    alpha: float = 0.05


@dataclass(frozen=True)
class FewerClaim:
    """"``a`` has a lower ``metric`` than ``b`` on each of ``datasets``" (no test)."""

    text: str
    a: str
    b: str
    metric: str
    datasets: tuple[str, ...]


@dataclass(frozen=True)
class MostClaim:
    """"``a`` has the largest ``metric`` on every dataset"."""

    text: str
    a: str
    metric: str


@dataclass(frozen=True)
class MeanDiffClaim:
    """Descriptive: mean over datasets of ``a - b`` for each ``b``, paper vs ours."""

    text: str
    a: str
    others: tuple[str, ...]
    metric: str


Claim = WilcoxonClaim | OneWayClaim | UnderlineClaim | FewerClaim | MostClaim | MeanDiffClaim


@dataclass(frozen=True)
class Figure:
    """A figure of the report: ``kind`` is ``leaves``, ``cd`` or ``param``."""

    kind: str
    name: str
    caption: str
    options: dict = field(default_factory=dict)


@dataclass(frozen=True)
class PaperSpec:
    """One paper to reproduce."""

    key: str
    number: str
    citation: str
    reference: str
    claims: tuple[Claim, ...] = ()
    figures: tuple[Figure, ...] = ()
    aliases: tuple[str, ...] = ()
    extras: tuple[str, ...] = ()  # extra report sections, see reproduce._extra_sections
    #: metric -> tolerance in the paper's unit: the report counts the cells
    #: within it (for papers that print no std, e.g. 002: 2 accuracy points).
    tolerances: dict[str, float] = field(default_factory=dict)

    @property
    def config(self) -> str:
        return f"configs/{self.key}.yaml"


PAPERS: dict[str, PaperSpec] = {}


def _add(spec: PaperSpec) -> None:
    PAPERS[spec.key] = spec


_add(PaperSpec(
    key="serrurier2015",
    number="000",
    citation="Serrurier & Prade, Entropy evaluation based on confidence intervals of frequency estimates: "
             "application to the learning of decision trees, ICML 2015",
    reference="000_serrurier2015_table1.csv",
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
    extras=("random_trees",),
))

_add(PaperSpec(
    key="mee",
    number="001",
    citation="Marques de Sá, Gama, Sebastião & Alexandre, Decision trees using the minimum entropy-of-error "
             "principle",
    reference="001_mee_table2.csv",
    claims=(OneWayClaim("Significantly best (bold) and worst (underlined) per dataset, Table 2"),),
    aliases=("marquesdesa",),
    extras=("mee",),
))

_add(PaperSpec(
    key="tsallis",
    number="002",
    citation="Wang, Song & Xia, Unifying the split criteria of decision trees using Tsallis entropy",
    reference="002_tsallis_table2.csv",
    claims=(
        WilcoxonClaim("Tsallis entropy beats Shannon entropy (Wilcoxon, p < 0.01)", "tsallis", "id3", "accuracy",
                      True, 0.01),
        WilcoxonClaim("Tsallis entropy beats the Gini index (Wilcoxon, p < 0.01)", "tsallis", "cart", "accuracy",
                      True, 0.01),
        WilcoxonClaim("Tsallis gain ratio beats gain ratio (Wilcoxon, p < 0.01)", "tsallis-gr", "c45", "accuracy",
                      True, 0.01),
        MeanDiffClaim("TEC improves accuracy by about 4 points on average", "tsallis", ("id3", "cart", "c45"),
                      "accuracy"),
    ),
    figures=(
        Figure("cd", "cd", "Critical-difference diagram of accuracy ranks (Friedman + Nemenyi).",
               {"metric": "accuracy"}),
        Figure("leaves", "nodes", "Mean number of nodes per dataset and criterion (Table II).",
               {"metric": "n_nodes"}),
    ),
    extras=("q_sweep",),  # Fig. 1: a fine, untuned q grid on glass (treebench.report.q_sweep)
    tolerances={"accuracy": 2.0},
))

_add(PaperSpec(
    key="certainty",
    number="003",
    citation="Peñate-Díaz, Calculating certainty in decision trees: certainty vs entropy",
    reference="003_certainty_errors.csv",
    claims=(
        FewerClaim("Certainty makes fewer training errors than C5.0 on Monks-1, Monks-2, Optdigits, Pendigits",
                   "certainty", "c50", "train_errors", ("monks-1", "monks-2", "optdigits", "pendigits")),
        FewerClaim("Certainty makes fewer test errors than C5.0 on Monks-1, Monks-2, Optdigits, Pendigits",
                   "certainty", "c50", "test_errors", ("monks-1", "monks-2", "optdigits", "pendigits")),
    ),
    extras=("certainty_errors",),
))

_add(PaperSpec(
    key="belief",
    number="004",
    citation="Denœux & Skarstein Bjanger, Induction of decision trees from partially classified data using "
             "belief functions, SMC 2000",
    reference="004_belief_table1.csv",
    claims=(
        FewerClaim("Uncertain labels lower the error rate (marginally)", "belief-uncertain", "belief-crisp",
                   "error", ()),
        FewerClaim("Uncertain labels lower the pignistic error E", "belief-uncertain", "belief-crisp",
                   "pignistic_error", ()),
    ),
    extras=("belief_tables",),
))


def get_paper(name: str) -> PaperSpec:
    """Look a paper up by key (or alias)."""
    for spec in PAPERS.values():
        if name == spec.key or name in spec.aliases:
            return spec
    raise one_of(name, tuple(PAPERS), "paper")
