"""Paper 001 as a :class:`~treebench.report.spec.PaperSpec`: Table 2's marks and the extra sections."""

from __future__ import annotations

from treebench.report.claims import OneWayClaim
from treebench.report.sections import Section
from treebench.report.spec import PaperDataset, PaperSpec, SectionContext, section_builder

#: Table 1 of the paper ("Datasets (main characteristics)"): cases, features, classes.
TABLE_1 = "Table 1"
DATASETS = {
    "Breast": PaperDataset(106, 9, 6, TABLE_1, "Breast Tissue"),
    "Breast4": PaperDataset(106, 9, 4, TABLE_1, "Breast reduced to 4 classes by merging fad, mas and gla"),
    "Olive": PaperDataset(572, 8, 9, TABLE_1, "Olive Oils"),
    "Ecoli": PaperDataset(327, 5, 5, TABLE_1, "E-coli without the classes omL, imL and imS"),
    "Ecoli4": PaperDataset(327, 5, 4, TABLE_1, "Ecoli reduced to 4 classes by merging im and imU"),
    "Imseg": PaperDataset(2310, 18, 7, TABLE_1, "Image Segmentation"),
    "Glass": PaperDataset(214, 9, 6, TABLE_1),
}


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
    # CART (Statistica, Gini + cost-complexity pruning) and Weka's C4.5 are the classics; MEE is the paper's.
    # Table 2 prints a std for every cell: it is the tolerance.
    baselines=("cart", "c45"),
    datasets=DATASETS,
    dataset_source="Table 1 (cases, features, classes)",
)
