"""``treebench paper new NAME``: a skeleton paper folder that ``treebench paper check`` accepts as it is.

The folder holds ``paper.yaml`` (the required fields, and one claim of each common kind commented
out with its fields explained), ``config.yaml`` (two criteria on two datasets scikit-learn ships,
so it runs with no download), ``causes.yaml`` (no cause, one commented example) and
``reference/NAME.csv`` (the header of the published cells).  Uncomment, fill in, then
``treebench paper check FOLDER`` and ``treebench reproduce FOLDER`` (``docs/papers.md``).
"""

from __future__ import annotations

import re
from pathlib import Path

from treebench.errors import TreebenchError

#: A paper's key as ``paper.yaml`` accepts it (:mod:`treebench.papers.folder`).
_KEY = re.compile(r"^[a-z0-9][a-z0-9_-]*$")

PAPER_YAML = '''\
# The paper folder {key}/ (docs/papers.md has the schema and a walk-through).
# Check it with `treebench paper check {key}`; rerun it with `treebench reproduce {key}`.
key: {key}                         # treebench reproduce PATH; the report goes to results/{key}/
number: "900"                      # quoted digits; the reference CSV's `paper` column repeats it
citation: >-
  Author, A., Title of the paper, Venue Year (replace with the paper you check)
authors: Author
description: one line for listings
reference: {key}.csv               # reference/{key}.csv: the published cells, one row each
# config: config.yaml is this folder's (the default when the file is here)

# The paper's name of each dataset (the reference CSV's dataset_label) as the paper describes it.
datasets: {{}}
#  Iris:
#    rows: 150
#    features: 4
#    classes: 3
#    source: Table 1
baselines: []                      # reference names of classic algorithms that calibrate the protocol

# Every results statement of the text: a claim that grades it, or why it cannot be graded.
# Uncomment one entry per statement and fill in its fields; `a`, `b`, `others` and `opponents` are
# algorithm names of config.yaml (or of the reference CSV's `algorithm` column); `metric` one of the
# store's metrics (accuracy, error, n_leaves, n_nodes, depth, ...).
claims: []
#  - location: Table 1                # where the text says it
#    scope: the datasets and caveats of its sentence
#    test_as_applied: none           # the test the paper applied, or none
#    claim:
#      kind: fewer                   # "a has a lower mean metric than b" on each dataset listed ([] = all)
#      text: Gini trees have fewer leaves than entropy trees
#      a: gini
#      b: entropy
#      metric: n_leaves
#      datasets: []
#  - location: Table 1
#    claim:
#      kind: folds                   # a paired test over each dataset's folds (significant: false = equivalent)
#      text: Entropy and Gini trees are equally accurate
#      a: entropy
#      b: gini
#      metric: accuracy
#      significant: false
#      test: ttest                   # or corrected-ttest
#  - location: Section 4
#    claim:
#      kind: wilcoxon                # a Wilcoxon test over datasets on the per-dataset means
#      text: Entropy beats Gini (Wilcoxon over datasets)
#      a: entropy
#      b: gini
#      metric: accuracy
#      significant: true
#  - location: Section 4
#    claim:
#      kind: mean_diff               # the mean over datasets of a minus each of others
#      text: Entropy is about one point more accurate than Gini
#      a: entropy
#      others: [gini]
#      metric: accuracy
#      paper: about +1 point         # what the paper states
#  - location: Table 1
#    claim:
#      kind: most                    # a is the best on most datasets (against others; [] = every algorithm)
#      text: Entropy is the most accurate on most datasets
#      a: entropy
#      metric: accuracy
#      others: [gini]
#  - location: Table 1
#    claim:
#      kind: underline               # the cells marked `underline` are significantly better than opponents
#      text: Underlined cells beat Gini (paired t-test)
#      opponents: [gini]
#  - location: Table 1
#    claim:
#      kind: one_way                 # the marked best/worst cells by a one-way test per dataset
#      text: Bold is significantly best per dataset
#      metric: error
#  - location: Section 5             # a statement no claim can grade: say why
#    paraphrase: The criterion should help random forests too
#    statement_kind: difference      # difference, equivalence, significance, trend or count
#    why_not: the paper runs no forest
'''

CONFIG_YAML = '''\
# The experiment of paper {key} (docs/configs.md).  iris and wine ship with scikit-learn: no download.
experiment: {key}
description: two split criteria on two small datasets, 5-fold cross-validation
seed: 0
datasets: [iris, wine]
protocol: {{type: cv, folds: 5, repeats: 1}}
algorithms:
  - name: entropy
    criterion: entropy
  - name: gini
    criterion: gini
metrics: [accuracy, n_leaves]
store: results/{key}.sqlite         # relative to the working directory, as every config's store
'''

CAUSES_YAML = '''\
# Known causes of the differences between the paper and the rerun, with where each is established
# (docs/reports.md, "Causes").  One entry per cause:
#  - dataset: Iris                  # the paper's label or the dataset card
#    algorithm: gini                # optional: only this algorithm's cells
#    metric: accuracy               # optional: only this metric's cells
#    kind: misprint                 # misprint, id column, minimum leaf, file order, unpublished data,
#                                   # different file, unstated data, tie rule, reading, not located
#    explains: [rows]               # optional: rows, features, classes the cause accounts for
#    text: Table 1 prints 105 rows; the data has 150.
#    source: {{kind: text, where: "Table 1"}}   # kind: text, measurement or sensitivity
causes: []
'''


def reference_header() -> str:
    """The reference CSV's header line (:data:`treebench.report.reference.COLUMNS`)."""
    from treebench.report.reference import COLUMNS

    return ",".join(COLUMNS) + "\n"


def write_skeleton(name: str, parent: str | Path = ".") -> Path:
    """Write the skeleton folder ``parent/name`` and return it.

    Raises
    ------
    TreebenchError
        A name ``paper.yaml`` would refuse as a key, a built-in paper's key,
        or a place that is a file or a folder that is not empty.
    """
    if not _KEY.match(name):
        raise TreebenchError(f"paper name {name!r} is not a valid key; accepted: lower-case letters, digits, '_' and "
                             "'-', starting with a letter or digit")
    from treebench.papers.catalogue import PAPERS

    if name in PAPERS or any(name in spec.aliases for spec in PAPERS.values()):
        raise TreebenchError(f"{name!r} is a built-in paper's name (its report would go to results/{name}); "
                             f"accepted: a name other than {', '.join(PAPERS)}")
    folder = Path(parent) / name
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        what = "is not a folder" if not folder.is_dir() else "is a folder that is not empty"
        raise TreebenchError(f"{folder} {what}; accepted: a new folder (or an empty one) for the paper")
    if Path(parent).exists() and not Path(parent).is_dir():
        raise TreebenchError(f"--dir {str(parent)!r} is not a folder; accepted: a folder (made when missing)")
    try:
        (folder / "reference").mkdir(parents=True, exist_ok=True)
        (folder / "paper.yaml").write_text(PAPER_YAML.format(key=name), encoding="utf-8")
        (folder / "config.yaml").write_text(CONFIG_YAML.format(key=name), encoding="utf-8")
        (folder / "causes.yaml").write_text(CAUSES_YAML.format(), encoding="utf-8")
        (folder / "reference" / f"{name}.csv").write_text(reference_header(), encoding="utf-8")
    except OSError as exc:
        raise TreebenchError(f"cannot write the paper folder {folder}: {exc.strerror or exc}; accepted: a writable "
                             "place (--dir)") from None
    return folder


__all__ = ["write_skeleton"]
