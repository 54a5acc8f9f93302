"""What a reproduced paper publishes and concludes, as a checkable spec.

A :class:`PaperSpec` names the paper's config, its reference CSV
(``results/reference``), the claims its text makes about its own numbers
(:mod:`treebench.report.claims`), the figures to draw and the extra sections
to build.  The specs themselves live with their papers, in
:mod:`treebench.papers`; this module is the shape they share.

An extra section is made by a :class:`SectionBuilder`: a named function that
:func:`treebench.report.reproduce.build_report` calls with one
:class:`SectionContext` and whose :class:`~treebench.report.sections.Section`
objects it appends to the report.  The name is the key under which the
``extras`` option of ``build_report`` selects the builder and passes it
settings (``{name: {setting: value}}``).

Algorithm names in a reference CSV (column ``algorithm``) are the names the
paper's config must give its algorithms; see ``docs/reports.md``.

A spec also names the paper's *baselines* (the classic algorithms it compares
against but did not invent) and describes its datasets as the paper prints
them (:class:`PaperDataset`): the report uses both to calibrate the protocol,
dataset by dataset (:func:`treebench.report.cells.calibrate`).  ``excluded``
leaves datasets out of every claim and count, with the reason shown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from treebench.report.sections import Section

if TYPE_CHECKING:  # types only: the specs are built at import, before pandas is needed
    import pandas as pd

    from treebench.report.claims import Claim

#: Title and first paragraph of the tree-quality section when a spec gives none.
TREE_QUALITY_TITLE = "Tree quality measure"
TREE_QUALITY_TEXT = ("Mean ± std over trials of the criterion's own tree-level measure of every fitted tree "
                     "(lower is better).")


@dataclass(frozen=True)
class PaperDataset:
    """A dataset as the paper describes it (its dataset table, or its text).

    ``None`` means the paper does not say.  Compared with the dataset card
    (:attr:`treebench.data.cards.Card.expected`) when the baselines of the
    rerun disagree with the paper's on that dataset.

    Attributes
    ----------
    rows, features, classes
        Numbers of examples, attributes and classes as printed.
    source
        Where the paper prints them (``"Table I"``, ``"Results section"``).
    note
        Anything else the paper says about the data (e.g. classes merged).
    """

    rows: int | None = None
    features: int | None = None
    classes: int | None = None
    source: str = ""
    note: str = ""


@dataclass(frozen=True)
class Figure:
    """A figure of the report.

    Attributes
    ----------
    kind
        A registered figure kind (:mod:`treebench.report.figure_kinds`):
        ``leaves`` (grouped bars), ``cd`` (critical-difference diagram),
        ``param`` (metrics against a hyperparameter), or one a paper adds.
    name
        File name without suffix, in the report folder.
    caption
        The caption under the figure.
    options
        Keyword settings of the plot (``metric``, ``param``, ``dataset``).
    """

    kind: str
    name: str
    caption: str
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class SectionContext:
    """Everything a section builder may read.

    Attributes
    ----------
    out_dir
        The report folder: figures and cached computations go here.
    frame
        The trials of the rerun (the results store as a frame; may be empty).
    reference
        The paper's published numbers (:func:`treebench.report.reference.load_reference`).
    spec
        The paper being reported.
    options
        The builder's settings from ``build_report(extras={name: {...}})``; empty by default.
    notes
        The report's notes; a builder may append to it.
    reading_sources
        Reading name -> its trials, for the spec's readings with their own
        config whose store the caller read (``build_report(reading_sources=...)``).
    """

    out_dir: Path
    frame: pd.DataFrame
    reference: pd.DataFrame
    spec: PaperSpec
    options: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    reading_sources: dict[str, pd.DataFrame] = field(default_factory=dict)

    @property
    def has_trials(self) -> bool:
        """Whether the frame holds any trial."""
        return self.frame is not None and len(self.frame) > 0


@dataclass(frozen=True)
class SectionBuilder:
    """A named function from a :class:`SectionContext` to the :class:`Section` objects it adds.

    ``build`` returns the sections (possibly none, e.g. before anything has
    run).  It may raise :class:`~treebench.errors.TreebenchError`,
    ``OSError`` or ``ValueError`` when its inputs are missing or unusable; the
    report then notes ``section NAME not built: ...`` and goes on.
    """

    name: str
    build: Callable[[SectionContext], Sequence[Section]]

    def __call__(self, context: SectionContext) -> list[Section]:
        """The sections ``build`` makes from ``context``, as a list."""
        return list(self.build(context))


def section_builder(name: str) -> Callable[[Callable[[SectionContext], Sequence[Section]]], SectionBuilder]:
    """Decorator: turn ``build(context) -> sections`` into a :class:`SectionBuilder` called ``name``."""

    def wrap(build: Callable[[SectionContext], Sequence[Section]]) -> SectionBuilder:
        return SectionBuilder(name, build)

    return wrap


@dataclass(frozen=True)
class Reading:
    """Another reading of an under-specified protocol or formula, run beside the default one.

    The report recomputes every cell and claim under each reading and shows the
    verdicts side by side; the default reading is the one the config's own
    algorithm names carry, chosen from the text (the reasoning is in the docs).

    Attributes
    ----------
    name
        Short label (a column heading).
    description
        What the text allows that this reading takes, in one sentence.
    rename
        Algorithm run under this reading -> the algorithm it stands in for
        (e.g. ``{"cart-sklearn": "cart"}``); the stood-in-for algorithm's own
        rows are left out of the reading.
    config
        Another experiment config whose store holds the reading's trials
        (e.g. the same experiment with a different split order), relative to
        the repository root; ``None``: the paper's own config and store.
    run
        Whether ``treebench reproduce`` runs ``config`` beside the paper's
        (``False`` for a costly sensitivity sweep: the report shows it once
        its store exists and otherwise says how to fill it).
    """

    name: str
    description: str
    rename: dict[str, str] = field(default_factory=dict)
    config: str | None = None
    run: bool = True


@dataclass(frozen=True)
class PaperSpec:
    """One paper to reproduce.

    Attributes
    ----------
    key
        Short name (``treebench reproduce KEY``; the config is ``configs/KEY.yaml``).
    number
        The paper's number in the reference CSVs (``"000"``, ``"001"``, ...).
    citation
        Authors and title, as printed under the report's heading.
    reference
        File name of the published numbers in ``results/reference``.
    description
        One line for listings: what the paper is about (e.g. its criterion).
    authors
        Short authors-and-year label for listings.
    claims
        The paper's conclusions, each recomputed on the rerun.
    figures
        Figures drawn from the rerun's frame.
    sections
        Extra sections, built in this order when the report asks for extras.
    aliases
        Other names :func:`treebench.papers.get_paper` accepts.
    tolerances
        Metric -> tolerance in the paper's unit: the report counts the cells
        within it (for papers that print no std).
    tree_quality_title, tree_quality_text
        Heading and first paragraph of the tree-quality section (written when
        the store has ``tree_quality`` values), so that a paper can name its
        own measure.
    baselines
        Reference names of the classic algorithms the paper compares against
        but did not invent; their cells calibrate the protocol per dataset.
    datasets
        The paper's description of each dataset, keyed by the reference's
        ``dataset_label``.
    dataset_source
        Where those descriptions come from, or why there are none.
    excluded
        Dataset (card name or the reference's label) -> why it is left out of
        the claims and of the calibration counts (its cells are still listed).
    default_reading
        One line: what the default reading is, for the readings section.
    readings
        The other readings the text allows, each run and shown beside it.
    joined
        Other configs whose trials join the paper's own in the default
        reading: the algorithms the paper ran under another protocol (one
        baseline under 25-fold CV, the others under leave-one-out, say).
        ``reproduce`` runs them beside the paper's config; an algorithm the
        paper's own store holds keeps its own trials.  Comparisons pair
        trials only on the same (protocol, repeat, fold).
    paper_splits
        How many splits stand behind each published value (``None``: as many as the
        rerun's): the paper's noise is its per-split spread over that many (paper
        003's one 80/20 split: the spread of one split, not of a mean over five).
    our_std
        How the "ours" std beside the paper's is computed: ``sample`` (over
        the trials) or ``binomial`` (``sqrt(m (1 - m) / n)`` of the error
        rate, for a paper that prints that), so like is shown beside like.
    causes
        Path of the paper's cause registry (``causes.yaml`` in its folder,
        :mod:`treebench.report.causes`); empty: none.
    config_file
        The paper's experiment config when it is not ``configs/KEY.yaml``
        (relative to the working directory, or absolute); empty: that default.
    folder
        The paper folder the spec was loaded from (:mod:`treebench.papers.folder`);
        empty for a spec built in Python.
    """

    key: str
    number: str
    citation: str
    reference: str
    description: str = ""
    authors: str = ""
    claims: tuple[Claim, ...] = ()
    figures: tuple[Figure, ...] = ()
    sections: tuple[SectionBuilder, ...] = ()
    aliases: tuple[str, ...] = ()
    tolerances: dict[str, float] = field(default_factory=dict)
    tree_quality_title: str = TREE_QUALITY_TITLE
    tree_quality_text: str = TREE_QUALITY_TEXT
    baselines: tuple[str, ...] = ()
    datasets: dict[str, PaperDataset] = field(default_factory=dict)
    dataset_source: str = ""
    excluded: dict[str, str] = field(default_factory=dict)
    default_reading: str = ""
    readings: tuple[Reading, ...] = ()
    joined: tuple[str, ...] = ()
    our_std: str = "sample"
    paper_splits: int | None = None
    causes: str = ""
    config_file: str = ""
    folder: str = ""

    @property
    def config(self) -> str:
        """The paper's experiment config: ``config_file``, else ``configs/KEY.yaml`` (relative to the repository root)."""
        return self.config_file or f"configs/{self.key}.yaml"

    @property
    def extras(self) -> tuple[str, ...]:
        """Names of the extra sections (the keys ``build_report(extras=...)`` accepts)."""
        return tuple(builder.name for builder in self.sections)

    @property
    def headline(self) -> str:
        """``number authors, description`` — one line for listings."""
        return f"{self.number} {self.authors}, {self.description}"
