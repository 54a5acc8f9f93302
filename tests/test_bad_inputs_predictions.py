"""Bad kept predictions, one line each (issue 43, item 3; the harness is ``tests/badinput.py``).

A run with ``predictions: true`` keeps each trial's test predictions in ``STORE.predictions/KEY.npz``.
Every reader of those files (``results export --predictions``, ``compare --metric`` on a metric the
store did not keep, ``compare --test mcnemar``) checks each file against its trial before using it:
a missing, empty, truncated, damaged or swapped file names its trial in one ``error:`` line (exit 2),
or, with ``--skip-bad-predictions``, the trial is left out and counted.

Two stores are built once per module (2-fold CV and a holdout split, iris and wine, two algorithms)
and copied into each case's folder, where one file is then damaged; every case checks that the
store, its predictions folder and every other file of the case folder are unchanged by the command.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from badinput import CliCase, exit_code, run_cli_case, write_files
from badinput import tree_digest as shared_tree_digest

from treebench.experiment import predictions as P

#: Filled by the module fixture: store name -> built store, and (store, dataset, algorithm, fold) -> trial key.
BUILT: dict[str, Path] = {}
KEYS: dict[tuple[str, str, str, int], str] = {}

CONFIG = """\
experiment: kept-{name}
seed: 3
datasets: [iris, wine]
protocol: {protocol}
predictions: true
algorithms:
  - {{name: entropy, criterion: entropy, params: {{max_depth: 3}}}}
  - {{name: gini, criterion: gini, params: {{max_depth: 3}}}}
store: {store}
"""
PROTOCOLS = {"cv": "{type: cv, folds: 2, repeats: 1}", "holdout": "{type: holdout, test_size: 0.5, repeats: 1}"}
#: Test rows per trial: 2-fold CV of iris (150) and wine (178) rows.
N_TEST = {"iris": 75, "wine": 89}


@pytest.fixture(scope="module", autouse=True)
def built(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("kept")
    for name, protocol in PROTOCOLS.items():
        store = folder / f"{name}.sqlite"
        config = folder / f"{name}.yaml"
        config.write_text(CONFIG.format(name=name, protocol=protocol, store=store), encoding="utf-8")
        assert exit_code(["run", str(config), "--jobs", "1", "--quiet"]) == 0
        BUILT[name] = store
        with sqlite3.connect(store) as conn:
            for key, dataset, algorithm, fold in conn.execute("SELECT trial_key, dataset, algorithm, fold FROM trials"):
                KEYS[(name, dataset, algorithm, fold)] = key
    assert len(KEYS) == 8 + 4
    return BUILT


# --------------------------------------------------------------------------- files
def npz(folder: Path, store: str, dataset: str = "iris", algorithm: str = "entropy", fold: int = 1) -> Path:
    """The predictions file of one trial in the case folder's copy of ``store``."""
    return folder / f"{store}.sqlite.predictions" / f"{KEYS[(store, dataset, algorithm, fold)]}.npz"


def arrays_of(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return {name: data[name] for name in data.files}


def damaged(store: str, damage: Callable[[Path], None] | None = None, dataset: str = "iris",
            algorithm: str = "entropy", fold: int = 1) -> Callable[[Path], None]:
    """Copy the built ``store`` and its predictions folder into the case folder, then damage one trial's file."""

    def write(folder: Path) -> None:
        shutil.copyfile(BUILT[store], folder / f"{store}.sqlite")
        shutil.copytree(P.folder_for(BUILT[store]), P.folder_for(folder / f"{store}.sqlite"))
        if damage is not None:
            damage(npz(folder, store, dataset, algorithm, fold))

    return write


def truncated(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def empty(path: Path) -> None:
    path.write_bytes(b"")


def random_bytes(path: Path) -> None:
    path.write_bytes(np.random.default_rng(0).bytes(3000))


def wrong_names(path: Path) -> None:
    found = arrays_of(path)
    np.savez_compressed(path, labels=found["truth"], guesses=found["predicted"])


def rewritten(change: Callable[[dict[str, np.ndarray]], None]) -> Callable[[Path], None]:
    """Rewrite a file with one of its arrays changed (still a well-formed .npz)."""

    def write(path: Path) -> None:
        found = arrays_of(path)
        change(found)
        np.savez_compressed(path, **found)

    write.__name__ = change.__name__
    return write


def fewer_rows(found: dict[str, np.ndarray]) -> None:
    for name in ("rows", "truth", "predicted", "proba"):
        found[name] = found[name][:-5]


def halved_proba(found: dict[str, np.ndarray]) -> None:
    found["proba"] = found["proba"] * np.float32(0.5)


def nan_proba(found: dict[str, np.ndarray]) -> None:
    found["proba"][3, 0] = np.nan


def code_outside(found: dict[str, np.ndarray]) -> None:
    found["predicted"][0] = len(found["classes"]) + 4


def changed_prediction(found: dict[str, np.ndarray]) -> None:
    """Another valid class for one test row: the file is well formed, only its checksum tells."""
    found["predicted"][0] = (found["predicted"][0] + 1) % len(found["classes"])


def right_made_wrong(found: dict[str, np.ndarray]) -> None:
    """The first right prediction changed to another valid class: the accuracy drops by one test row."""
    at = int(np.flatnonzero(found["truth"] == found["predicted"])[0])
    found["predicted"][at] = (found["truth"][at] + 1) % len(found["classes"])


def proba_reversed(found: dict[str, np.ndarray]) -> None:
    """The class probabilities' columns reversed: still valid rows summing to 1, but the predicted class is no
    longer the most probable one (the labels, so the accuracy, are unchanged)."""
    found["proba"] = found["proba"][:, ::-1].copy()


def float_truth(found: dict[str, np.ndarray]) -> None:
    found["truth"] = found["truth"].astype(np.float64)


def object_truth(found: dict[str, np.ndarray]) -> None:
    found["truth"] = np.array(list(found["truth"]), dtype=object)  # np.savez pickles it


def repeated_row(found: dict[str, np.ndarray]) -> None:
    found["rows"] = found["rows"].copy()
    found["rows"][1] = found["rows"][0]


def rows_beyond(found: dict[str, np.ndarray]) -> None:
    found["rows"] = found["rows"] + 100_000


def renamed_classes(found: dict[str, np.ndarray]) -> None:
    found["classes"] = np.array([f"x{c}" for c in found["classes"]])


def truth_edited_keeping_accuracy(found: dict[str, np.ndarray]) -> None:
    """A right prediction's truth and prediction both moved to another class: same accuracy, same shapes."""
    truth, predicted = found["truth"].copy(), found["predicted"].copy()
    at = int(np.flatnonzero(truth == predicted)[0])
    truth[at] = predicted[at] = (truth[at] + 1) % len(found["classes"])
    found["truth"], found["predicted"] = truth, predicted
    if "proba" in found:
        proba = found["proba"].copy()
        proba[at] = 0
        proba[at, truth[at]] = 1
        found["proba"] = proba


def folder_instead(path: Path) -> None:
    path.unlink()
    path.mkdir()


def missing(path: Path) -> None:
    path.unlink()


def single_array(path: Path) -> None:
    truth = arrays_of(path)["truth"]
    with path.open("wb") as handle:  # an .npy written under the .npz name
        np.save(handle, truth)


def dev_zero(path: Path) -> None:
    """A link to /dev/zero in place of the file: size 0, yet no empty file (reading it never ends)."""
    path.unlink()
    path.symlink_to("/dev/zero")


def swapped(dataset: str, algorithm: str, fold: int, store: str = "cv", key: bool = True) -> Callable[[Path], None]:
    """Overwrite the file with another trial's (of the same store); ``key=False``: as a file written
    before files named their trial."""

    def write(path: Path) -> None:
        source = npz(path.parents[1], store, dataset, algorithm, fold)
        if key:
            shutil.copyfile(source, path)
            return
        found = arrays_of(source)
        del found["trial"]
        np.savez_compressed(path, **found)

    write.__name__ = f"swapped-{dataset}-{algorithm}"
    return write


def folder_a_file(store: str) -> Callable[[Path], None]:
    """The store copied, with a file where its predictions folder belongs."""

    def write(folder: Path) -> None:
        shutil.copyfile(BUILT[store], folder / f"{store}.sqlite")
        P.folder_for(folder / f"{store}.sqlite").write_text("not a folder\n", encoding="utf-8")

    return write


def legacy(path: Path) -> None:
    """A store written before predictions checksums were recorded: the column is gone."""
    with sqlite3.connect(path) as conn:
        conn.execute("ALTER TABLE trials DROP COLUMN predictions_sha256")
    conn.close()


def legacy_and(damage: Callable[[Path], None], store: str = "cv", **trial) -> Callable[[Path], None]:
    """An older store (no checksums) with one file damaged."""

    def write(folder: Path) -> None:
        damaged(store, damage, **trial)(folder)
        legacy(folder / f"{store}.sqlite")

    return write


# --------------------------------------------------------------------------- cases
EXPORT = ("results", "export", "cv.sqlite", "--predictions", "--out", "out.csv")
F1 = ("compare", "cv.sqlite", "--metric", "f1_macro")
MCNEMAR = ("compare", "holdout.sqlite", "--test", "mcnemar", "--format", "csv")
SKIP = ("--skip-bad-predictions",)
#: The one line naming the trial (iris / entropy, fold 1 unless said) and what is wrong with its file.
TRIAL = r"^error: kept predictions of iris / entropy repeat 0 fold {fold} \(trial [0-9a-f]{{12}}\) failed verification: "
END = r".*; --skip-bad-predictions leaves such trials out$"

#: An older store's file that the other file of its split contradicts (iris / entropy, fold 1).
PEERS = TRIAL.format(fold=1) + (r".*\.npz disagrees with the kept predictions of 1 of the other 1 trial\(s\) of its "
                                r"split: ")
#: A predictions folder that is a file.
FOLDER_A_FILE = (r"^error: the kept predictions folder 'cv\.sqlite\.predictions' of results store 'cv\.sqlite' is a "
                 r"file, not a folder, so no trial's predictions can be read; accepted: the folder a run with "
                 r"predictions: true writes beside its store$")
#: Damage -> what the line says of the file (iris / entropy, fold 1 of the CV store).
KINDS: dict[str, tuple[Callable[[Path], None], str]] = {
    "truncated": (truncated, r"\.npz is not a readable \.npz file \("),
    "zero-bytes": (empty, r"\.npz is empty \(0 bytes\)"),
    "random-bytes": (random_bytes, r"\.npz is not a kept predictions file \(damaged: not an \.npz archive, which "
                                   r"starts with the zip signature PK\)"),
    "object-array": (rewritten(object_truth), r"\.npz holds an array of Python objects \(pickled data\), which a kept "
                                              r"predictions file never does"),
    "repeated-rows": (rewritten(repeated_row), r"\.npz has repeated test row positions \(each test row is predicted "
                                               r"once\)"),
    "wrong-array-names": (wrong_names, r"\.npz holds the arrays guesses, labels; expected rows, truth, predicted"),
    "wrong-row-count": (rewritten(fewer_rows), r"\.npz has 70 test rows; the trial tested 75"),
    "other-dataset": (swapped("wine", "entropy", 1), r"\.npz holds the predictions of trial [0-9a-f]{12} "
                                                    r"\(another trial's file\)"),
    "other-dataset-older-file": (swapped("wine", "entropy", 1, key=False), r"\.npz has 89 test rows; the trial "
                                                                          r"tested 75"),
    "other-algorithm": (swapped("iris", "gini", 1), r"\.npz holds the predictions of trial [0-9a-f]{12} "
                                                   r"\(another trial's file\)"),
    "changed-prediction": (rewritten(changed_prediction), r"\.npz has checksum [0-9a-f]{12}, not the [0-9a-f]{12} "
                                                         r"recorded with the trial"),
    "proba-not-summing-to-1": (rewritten(halved_proba), r"class probabilities that do not sum to 1 \(test row \d+ "
                                                       r"sums to 0\.5\)"),
    "proba-nan": (rewritten(nan_proba), r"\.npz has NaN or infinite class probabilities"),
    "code-outside-classes": (rewritten(code_outside), r"\.npz has codes in 'predicted' outside its 3 classes"),
    "float-truth": (rewritten(float_truth), r"\.npz has 'truth' of dtype float64 .*expected a 1-D integer array"),
    "folder-instead-of-file": (folder_instead, r"\.npz is a folder, not a predictions file"),
    "missing-file": (missing, r"\.npz is missing"),
    "single-npy-array": (single_array, r"\.npz is a single array, not an \.npz file"),
    "link-to-dev-zero": (dev_zero, r"\.npz is not a regular file but a character device"),
}


def line(what: str, fold: int = 1) -> str:
    return TRIAL.format(fold=fold) + r".*" + what + END


def cv_case(case_id: str, args: tuple[str, ...], kind: str, **extra) -> CliCase:
    damage, what = KINDS[kind]
    return CliCase(case_id, args, line(what), files={"cv.sqlite": damaged("cv", damage, dataset="iris",
                                                                          algorithm="entropy", fold=1)}, **extra)


CASES = [
    *[cv_case(f"export-{kind}", EXPORT, kind) for kind in KINDS],
    *[cv_case(f"f1-{kind}", F1, kind) for kind in KINDS],
    # McNemar's test reads two files of one split: either may be the bad one
    CliCase("mcnemar-truncated-baseline", MCNEMAR, line(r"\.npz is not a readable \.npz file", fold=0),
            files={"holdout.sqlite": damaged("holdout", truncated, dataset="iris", algorithm="entropy", fold=0)}),
    CliCase("mcnemar-zero-bytes-other", MCNEMAR,
            r"^error: kept predictions of iris / gini repeat 0 fold 0 .*is empty \(0 bytes\)" + END,
            files={"holdout.sqlite": damaged("holdout", empty, dataset="iris", algorithm="gini", fold=0)}),
    CliCase("mcnemar-other-algorithm", MCNEMAR, line(r"holds the predictions of trial [0-9a-f]{12}", fold=0),
            files={"holdout.sqlite": damaged("holdout", swapped("iris", "gini", 0, "holdout"), dataset="iris",
                                             algorithm="entropy", fold=0)}),
    CliCase("mcnemar-changed-prediction", MCNEMAR, line(r"has checksum [0-9a-f]{12}, not the", fold=0),
            files={"holdout.sqlite": damaged("holdout", rewritten(changed_prediction), dataset="iris",
                                             algorithm="entropy", fold=0)}),
    CliCase("mcnemar-missing-file", MCNEMAR, line(r"\.npz is missing", fold=0),
            files={"holdout.sqlite": damaged("holdout", missing, dataset="iris", algorithm="entropy", fold=0)}),
    # an older store (no checksum column): its files are checked by content and stored accuracy, which see these
    CliCase("legacy-export-wrong-row-count", EXPORT, line(r"has 70 test rows; the trial tested 75"),
            files={"cv.sqlite": legacy_and(rewritten(fewer_rows), dataset="iris", algorithm="entropy", fold=1)}),
    CliCase("legacy-f1-missing-file", F1, line(r"\.npz is missing"),
            files={"cv.sqlite": legacy_and(missing, dataset="iris", algorithm="entropy", fold=1)}),
    CliCase("legacy-export-zero-bytes", EXPORT, line(r"is empty \(0 bytes\)"),
            files={"cv.sqlite": legacy_and(empty, dataset="iris", algorithm="entropy", fold=1)}),
    # an older store's file edited into other valid predictions: its accuracy is no longer the trial's
    CliCase("legacy-export-edited-prediction", EXPORT, line(r"\.npz has accuracy 0\.\d+ \((\d+) of 75 right\), not "
                                                            r"the 0\.\d+ stored with the trial \(another trial's file, "
                                                            r"or changed since\)"),
            files={"cv.sqlite": legacy_and(rewritten(right_made_wrong), dataset="iris", algorithm="entropy", fold=1)}),
    # issue 43, third pass: probabilities edited against the labels (AUC scored from them): labels and
    # probabilities of one file must agree, the predicted class a most probable one
    CliCase("legacy-auc-reversed-probabilities", ("compare", "cv.sqlite", "--metric", "roc_auc_ovr"),
            line(r"\.npz predicts class \S+ on test row \d+ with probability [0-9.e-]+ while its kept probabilities "
                 r"put [0-9.e-]+ on class \S+ \(labels and probabilities disagree: changed since\)"),
            files={"cv.sqlite": legacy_and(rewritten(proba_reversed), dataset="iris", algorithm="entropy", fold=1)}),
    CliCase("legacy-f1-edited-prediction", F1, line(r"has accuracy 0\.\d+ \(\d+ of 75 right\), not the 0\.\d+ stored"),
            files={"cv.sqlite": legacy_and(rewritten(right_made_wrong), dataset="iris", algorithm="entropy", fold=1)}),
    CliCase("legacy-mcnemar-edited-prediction", MCNEMAR,
            line(r"has accuracy 0\.\d+ \(\d+ of 75 right\), not the 0\.\d+ stored", fold=0),
            files={"holdout.sqlite": legacy_and(rewritten(right_made_wrong), store="holdout", dataset="iris",
                                                algorithm="entropy", fold=0)}),
    CliCase("legacy-export-skip-edited-prediction", (*EXPORT, *SKIP),
            r"^skipped 1 trial whose kept predictions failed verification: iris / entropy repeat 0 fold 1 "
            r"\(trial [0-9a-f]{12}\): .*has accuracy 0\.\d+ \(\d+ of 75 right\), not the 0\.\d+ stored", code=0,
            files={"cv.sqlite": legacy_and(rewritten(right_made_wrong), dataset="iris", algorithm="entropy", fold=1)}),
    # issue 43 F4/F5: an older store's file renamed or edited into other valid predictions of the same accuracy,
    # or with impossible rows: the dataset's row count (n_train + n_test) and the other files of the split see it
    CliCase("legacy-export-rows-beyond-the-dataset", EXPORT, line(r"\.npz has test row position 100\d{3}; the dataset "
                                                                  r"has 150 rows \(positions 0 to 149, from the trial's "
                                                                  r"n_train \+ n_test\)"),
            files={"cv.sqlite": legacy_and(rewritten(rows_beyond), dataset="iris", algorithm="entropy", fold=1)}),
    CliCase("legacy-export-repeated-rows", EXPORT, line(r"\.npz has repeated test row positions"),
            files={"cv.sqlite": legacy_and(rewritten(repeated_row), dataset="iris", algorithm="entropy", fold=1)}),
    # of two files that disagree, nothing tells which changed: the first read is named, and the other is said
    CliCase("legacy-export-renamed-classes", EXPORT, PEERS + r"its classes 'x0', 'x1', 'x2' are not the classes "
            r"'0', '1', '2' of gini \(trial [0-9a-f]{12}\); renamed or edited since \(the store records no checksum "
            r"to tell which file changed\)" + END,
            files={"cv.sqlite": legacy_and(rewritten(renamed_classes), dataset="iris", algorithm="entropy", fold=1)}),
    CliCase("legacy-mcnemar-truth-edited-keeping-accuracy", MCNEMAR,
            PEERS.replace("fold 1", "fold 0") + r"its truth of test row \d+ is '\d' \(1 row\(s\) differ\), not "
            r"the '\d' of gini" + END,
            files={"holdout.sqlite": legacy_and(rewritten(truth_edited_keeping_accuracy), store="holdout",
                                                dataset="iris", algorithm="entropy", fold=0)}),
    CliCase("legacy-export-skip-truth-edited-keeping-accuracy", (*EXPORT, *SKIP),
            r"^skipped 2 trials whose kept predictions failed verification: iris / entropy repeat 0 fold 1 .*its truth "
            r"of test row \d+ is .*; iris / gini repeat 0 fold 1 .*its truth of test row \d+ is .*", code=0,
            files={"cv.sqlite": legacy_and(rewritten(truth_edited_keeping_accuracy), dataset="iris",
                                           algorithm="entropy", fold=1)}),
    # the option skips the bad trial and says so, counted, in one line (exit 0)
    CliCase("export-skip-truncated", (*EXPORT, *SKIP),
            r"^skipped 1 trial whose kept predictions failed verification: iris / entropy repeat 0 fold 1 "
            r"\(trial [0-9a-f]{12}\): .*is not a readable \.npz file", code=0,
            files={"cv.sqlite": damaged("cv", truncated, dataset="iris", algorithm="entropy", fold=1)}),
    CliCase("mcnemar-skip-missing", (*MCNEMAR, *SKIP),
            r"^skipped 1 trial whose kept predictions failed verification: wine / gini .*is missing$", code=0,
            files={"holdout.sqlite": damaged("holdout", missing, dataset="wine", algorithm="gini", fold=0)}),
    # both files of one pair bad: each is read, counted and named (the baseline's used to hide its partner's)
    CliCase("mcnemar-skip-both-files-of-a-pair", (*MCNEMAR, *SKIP),
            r"^skipped 2 trials whose kept predictions failed verification: iris / entropy repeat 0 fold 0 "
            r"\(trial [0-9a-f]{12}\): .*is not a readable \.npz file .*; iris / gini repeat 0 fold 0 \(trial "
            r"[0-9a-f]{12}\): .*is empty \(0 bytes\)$", code=0,
            files={"holdout.sqlite": lambda folder: (damaged("holdout", truncated, dataset="iris", algorithm="entropy",
                                                             fold=0)(folder),
                                                     empty(npz(folder, "holdout", "iris", "gini", 0)))}),
    CliCase("mcnemar-link-to-dev-zero", MCNEMAR, line(r"\.npz is not a regular file but a character device", fold=0),
            files={"holdout.sqlite": damaged("holdout", dev_zero, dataset="iris", algorithm="entropy", fold=0)}),
    # a metric name the store does not hold: the refusal lists the metrics of predictions the kept files give
    CliCase("compare-metric-misspelt", ("compare", "cv.sqlite", "--metric", "roc_auc"),
            r"^error: unknown metric 'roc_auc' \(did you mean roc_auc_ovr\?\); accepted: accuracy, .*; or, computed "
            r"from the kept predictions, balanced_accuracy, f1_macro, kappa, log_loss, roc_auc_ovr, brier$",
            files={"cv.sqlite": damaged("cv")}),
    CliCase("plot-scores-metric-misspelt", ("plot", "scores", "cv.sqlite", "--metric", "f1-macro", "--out", "out.s"),
            r"^error: unknown metric 'f1-macro' \(did you mean f1_macro\?\); accepted: .*; or, computed from the kept "
            r"predictions, balanced_accuracy, f1_macro", files={"cv.sqlite": damaged("cv")}),
    CliCase("show-metric-of-predictions", ("results", "show", "cv.sqlite", "--metric", "f1_macro"),
            r"^error: metric 'f1_macro' is a metric of predictions, which this command does not compute; accepted: "
            r"accuracy, .* \(treebench compare --metric computes f1_macro from a store's kept predictions\)$",
            files={"cv.sqlite": damaged("cv")}),
    # the whole predictions folder is a file: one line saying so, not "KEY.npz is missing" with advice to skip
    CliCase("export-predictions-folder-is-a-file", EXPORT, FOLDER_A_FILE, files={"cv.sqlite": folder_a_file("cv")}),
    CliCase("f1-skip-predictions-folder-is-a-file", (*F1, *SKIP), FOLDER_A_FILE, files={"cv.sqlite": folder_a_file("cv")}),
    CliCase("mcnemar-predictions-folder-is-a-file", MCNEMAR, FOLDER_A_FILE.replace("cv", "holdout"),
            files={"holdout.sqlite": folder_a_file("holdout")}),
    CliCase("compare-skip-without-reading-predictions", ("compare", "cv.sqlite", *SKIP),
            r"^error: --skip-bad-predictions goes with what reads kept predictions: --test mcnemar, or --metric a "
            r"metric of predictions \(balanced_accuracy, f1_macro, kappa, log_loss, roc_auc_ovr, brier\)$",
            files={"cv.sqlite": damaged("cv")}),
    CliCase("export-skip-without-predictions", ("results", "export", "cv.sqlite", "--skip-bad-predictions"),
            r"^error: --skip-bad-predictions goes with --predictions$", files={"cv.sqlite": damaged("cv")}),
    CliCase("mcnemar-skip-every-pair", (*MCNEMAR, *SKIP),
            r"^error: no pair of algorithms left for McNemar's test: 2 trials' kept predictions failed verification: "
            r"iris / gini repeat 0 fold 0 .*is empty \(0 bytes\); wine / gini repeat 0 fold 0 .*is empty \(0 bytes\)$",
            files={"holdout.sqlite": lambda folder: (damaged("holdout", empty, dataset="iris", algorithm="gini",
                                                             fold=0)(folder),
                                                     empty(npz(folder, "holdout", "wine", "gini", 0)))}),
    # issue 43 F13: McNemar counts right and wrong predictions; an option it does not read is refused, not ignored
    *[CliCase(f"mcnemar-refuses-{option[2:]}", (*MCNEMAR, option, value),
              rf"^error: {option} is not read by --test mcnemar \(it tests the right and wrong predictions of each "
              r"algorithm against the baseline\); accepted with it: --baseline, --algorithms, --datasets, --alpha, ",
              files={"holdout.sqlite": damaged("holdout")})
      for option, value in (("--metric", "n_leaves"), ("--rope", "2"), ("--underline-against", "gini"),
                            ("--paired", "ttest"), ("--samples", "100"), ("--test-train-ratio", "0.5"))],
    # issue 43 M6: a baseline the store holds but --algorithms leaves out is not "unknown"
    *[CliCase(f"baseline-left-out-by-algorithms-{test}", ("compare", "holdout.sqlite", "--test", test,
                                                          "--algorithms", "gini", "--baseline", "entropy"),
              r"^error: --baseline 'entropy' is not among the chosen --algorithms \(gini\); accepted: one of those, "
              r"or add 'entropy' to --algorithms$", files={"holdout.sqlite": damaged("holdout")})
      for test in ("mcnemar", "corrected-ttest")],
]


def tree_digest(folder: Path) -> dict[str, str]:
    """Every file and folder under ``folder`` but the case's outputs (``out.*``)."""
    return shared_tree_digest(folder, skip_prefix="out.")


def run_case(case: CliCase, folder: Path, capsys: pytest.CaptureFixture) -> None:
    """The harness's checks, plus: nothing under the case folder changed (store, predictions, no -wal)."""
    write_files(case.files, folder)
    before = tree_digest(folder)
    run_cli_case(replace(case, files={}, unchanged=tuple(case.files)), folder, capsys)
    assert tree_digest(folder) == before, f"{case.id}: the store or its predictions changed"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_kept_predictions(case: CliCase, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    run_case(case, tmp_path, capsys)


# --------------------------------------------------------------------------- valid controls and counts
def _run(folder: Path, args: tuple[str, ...], capsys: pytest.CaptureFixture) -> tuple[int, str, list[str]]:
    capsys.readouterr()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        code = exit_code(list(args))
    out = capsys.readouterr()
    return code, out.out, [x for x in out.err.splitlines() if x.strip()]


def test_a_valid_store_exports_every_kept_prediction_without_a_word(tmp_path, capsys):
    damaged("cv")(tmp_path)
    before = tree_digest(tmp_path)
    code, _, err = _run(tmp_path, EXPORT, capsys)
    assert code == 0 and err == []
    table = pd.read_csv(tmp_path / "out.csv")
    assert len(table) == 2 * 2 * (N_TEST["iris"] + N_TEST["wine"]) and table["trial_key"].nunique() == 8
    assert tree_digest(tmp_path) == before


def test_a_valid_store_scores_f1_from_the_kept_predictions(tmp_path, capsys):
    damaged("cv")(tmp_path)
    code, out, err = _run(tmp_path, (*F1, "--format", "csv"), capsys)
    assert code == 0 and not [x for x in err if x.startswith(("error", "skipped", "warning"))]
    assert "iris" in out and "wine" in out and "f1" in out.lower()


def test_skipping_leaves_the_trial_out_of_the_export(tmp_path, capsys):
    damaged("cv", rewritten(halved_proba), dataset="wine", algorithm="gini", fold=0)(tmp_path)
    code, _, err = _run(tmp_path, (*EXPORT, *SKIP), capsys)
    assert code == 0 and len(err) == 1 and err[0].startswith("skipped 1 trial ")
    table = pd.read_csv(tmp_path / "out.csv")
    assert len(table) == 2 * 2 * (N_TEST["iris"] + N_TEST["wine"]) - N_TEST["wine"]
    assert KEYS[("cv", "wine", "gini", 0)] not in set(table["trial_key"])


def test_skipping_counts_every_bad_trial(tmp_path, capsys):
    damaged("cv", empty, dataset="iris", algorithm="gini", fold=1)(tmp_path)
    missing(npz(tmp_path, "cv", "wine", "entropy", 0))
    code, _, err = _run(tmp_path, (*EXPORT, *SKIP), capsys)
    assert code == 0 and len(err) == 1
    assert err[0].startswith("skipped 2 trials whose kept predictions failed verification: ")
    assert "iris / gini repeat 0 fold 1" in err[0] and "wine / entropy repeat 0 fold 0" in err[0]


def test_an_older_store_is_checked_by_content_and_says_so_once(tmp_path, capsys):
    legacy_and(None)(tmp_path)
    code, _, err = _run(tmp_path, EXPORT, capsys)
    assert code == 0 and len(err) == 1
    assert err[0] == ("warning: 8 kept predictions files checked without a checksum (by content, stored accuracy "
                      "and row counts, and against the other files of the same split): their trials were stored "
                      "before predictions checksums were recorded")
    assert len(pd.read_csv(tmp_path / "out.csv")) == 2 * 2 * (N_TEST["iris"] + N_TEST["wine"])


def test_the_recorded_checksum_is_the_files_content(tmp_path):
    with sqlite3.connect(BUILT["cv"]) as conn:
        recorded = dict(conn.execute("SELECT trial_key, predictions_sha256 FROM trials"))
    for key, value in recorded.items():
        assert value == P.checksum(P.read(BUILT["cv"], key), key)
    # the content, not the zip's bytes: a file written again at another time keeps its checksum
    kept = P.read(BUILT["cv"], key)
    P.write(tmp_path / "again.sqlite", key, kept)
    assert P.checksum(P.read(tmp_path / "again.sqlite", key), key) == recorded[key]
    # and bound to its trial: the same predictions under another key do not pass
    assert P.checksum(kept, "another") != recorded[key]


def test_compare_skips_the_bad_trial_and_counts_it(tmp_path, capsys):
    damaged("cv", swapped("iris", "gini", 1), dataset="iris", algorithm="entropy", fold=1)(tmp_path)
    before = tree_digest(tmp_path)
    code, out, err = _run(tmp_path, (*F1, *SKIP, "--format", "csv"), capsys)
    assert code == 0 and "iris" in out
    skipped = [x for x in err if x.startswith("skipped")]
    assert len(skipped) == 1 and skipped[0].startswith("skipped 1 trial whose kept predictions failed verification: "
                                                        "iris / entropy repeat 0 fold 1 ")
    assert not [x for x in err if x.startswith("error")]
    assert tree_digest(tmp_path) == before


def test_a_cell_over_fewer_splits_is_named_in_the_saved_table(tmp_path, capsys):
    """A skipped trial leaves its cell over fewer folds than its row: the Markdown table itself says so."""
    damaged("cv", swapped("iris", "gini", 1), dataset="iris", algorithm="entropy", fold=1)(tmp_path)
    code, out, _ = _run(tmp_path, (*F1, *SKIP), capsys)
    assert code == 0
    assert "Over fewer splits than the rest of their row (their means are not on the same splits): " \
           "iris / entropy (1 of 2)." in out


def test_mcnemar_names_the_pair_it_left_out_under_its_table(tmp_path, capsys):
    damaged("holdout", missing, dataset="wine", algorithm="gini", fold=0)(tmp_path)
    code, out, _ = _run(tmp_path, ("compare", "holdout.sqlite", "--test", "mcnemar", *SKIP), capsys)
    assert code == 0 and "| iris |" in out and "| wine |" not in out
    assert re.search(r"\nLeft out \(kept predictions failed verification; their pairs have no row\): "
                     r"wine / gini repeat 0 fold 0 \(trial [0-9a-f]{12}\)\.$", out.rstrip())


def test_a_swapped_file_with_the_same_predictions_is_still_another_trials(tmp_path):
    # iris, fold 1: entropy and gini trees of depth 3 predict alike; the key the file names tells them apart
    damaged("cv", swapped("iris", "gini", 1), dataset="iris", algorithm="entropy", fold=1)(tmp_path)
    kept = P.KeptPredictions(tmp_path / "cv.sqlite")
    with pytest.raises(P.BadPredictions, match="another trial's file"):
        kept.get(KEYS[("cv", "iris", "entropy", 1)])
    assert kept.get(KEYS[("cv", "iris", "gini", 1)]) is not None


def test_a_failed_trials_stale_file_is_not_exported(tmp_path, capsys):
    # a trial rerun under --force that failed keeps no predictions; the file of its earlier try is stale
    damaged("cv")(tmp_path)
    with sqlite3.connect(tmp_path / "cv.sqlite") as conn:
        conn.execute("UPDATE trials SET status = 'failed', predictions_sha256 = NULL WHERE trial_key = ?",
                     (KEYS[("cv", "wine", "gini", 1)],))
    conn.close()
    code, _, err = _run(tmp_path, EXPORT, capsys)
    assert code == 0 and err == []
    table = pd.read_csv(tmp_path / "out.csv")
    assert len(table) == 2 * 2 * (N_TEST["iris"] + N_TEST["wine"]) - N_TEST["wine"]
    assert KEYS[("cv", "wine", "gini", 1)] not in set(table["trial_key"])


# --------------------------------------------------------------------------- issue 43: F2, F4, F6, F12, M2
THREE = """\
experiment: kept-three
seed: 3
datasets: [iris, wine]
protocol: {type: holdout, test_size: 0.5, repeats: 1}
predictions: true
algorithms:
  - {name: entropy, criterion: entropy, params: {max_depth: 3}}
  - {name: gini, criterion: gini, params: {max_depth: 3}}
  - {name: cart, baseline: sklearn-cart}
store: three.sqlite
"""


@pytest.fixture(scope="module")
def three(tmp_path_factory) -> Path:
    """An older store (no checksums) of three algorithms on one holdout split of iris and wine."""
    folder = tmp_path_factory.mktemp("three")
    (folder / "three.yaml").write_text(THREE, encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        assert exit_code(["run", "three.yaml", "--jobs", "1", "--quiet"]) == 0
    legacy(folder / "three.sqlite")
    return folder / "three.sqlite"


def _copy_three(three: Path, folder: Path) -> tuple[Path, dict[str, str]]:
    store = folder / "three.sqlite"
    shutil.copyfile(three, store)
    shutil.copytree(P.folder_for(three), P.folder_for(store))
    with sqlite3.connect(store) as conn:
        found = dict(conn.execute("SELECT algorithm, trial_key FROM trials WHERE dataset = 'iris'"))
    conn.close()
    return store, found


def test_the_other_files_of_the_split_outvote_a_renamed_one(three, tmp_path, capsys):
    """Three files of one split, one with its classes renamed: that one alone is named (and skipped)."""
    store, found = _copy_three(three, tmp_path)
    path = P.folder_for(store) / f"{found['gini']}.npz"
    rewritten(renamed_classes)(path)
    kept = P.KeptPredictions(store, skip_bad=True)
    for key in found.values():
        kept.get(key)
    assert [facts.algorithm for facts, _ in kept.skipped] == ["gini"]
    assert "disagrees with the kept predictions of 2 of the other 2 trial(s) of its split: its classes 'x0'" \
           in kept.skipped[0][1]


def test_mcnemar_counts_each_file_read_without_a_checksum_once(three, tmp_path, capsys):
    """The baseline's file is read once per pair; the warning counts files (6), not reads (8)."""
    _copy_three(three, tmp_path)
    code, _, err = _run(tmp_path, ("compare", "three.sqlite", "--test", "mcnemar", "--format", "csv"), capsys)
    assert code == 0 and err == [
        "warning: 6 kept predictions files checked without a checksum (by content, stored accuracy and row counts, "
        "and against the other files of the same split): their trials were stored before predictions checksums "
        "were recorded"]


def test_plot_of_a_metric_of_predictions_warns_and_skips_as_compare(three, tmp_path, capsys):
    """plot reads kept predictions too: it says when they had no checksum, and has --skip-bad-predictions,
    which its own refusal names."""
    store, found = _copy_three(three, tmp_path)
    plot = ("plot", "scores", "three.sqlite", "--metric", "f1_macro", "--out", "out.scores")
    code, _, err = _run(tmp_path, plot, capsys)
    assert code == 0 and [x for x in err if x.startswith("warning:")] == [
        "warning: 6 kept predictions files checked without a checksum (by content, stored accuracy and row counts, "
        "and against the other files of the same split): their trials were stored before predictions checksums "
        "were recorded"]
    rewritten(truth_edited_keeping_accuracy)(P.folder_for(store) / f"{found['cart']}.npz")
    before = tree_digest(tmp_path)
    code, _, err = _run(tmp_path, plot, capsys)
    assert code == 2 and len(err) == 1 and err[0].startswith("error: kept predictions of iris / cart ")
    assert err[0].endswith("--skip-bad-predictions leaves such trials out") and tree_digest(tmp_path) == before
    code, _, err = _run(tmp_path, (*plot, *SKIP), capsys)
    assert code == 0 and err[0].startswith("skipped 1 trial whose kept predictions failed verification: iris / cart")
    code, _, err = _run(tmp_path, ("plot", "scores", "three.sqlite", "--out", "out.scores", *SKIP), capsys)
    assert code == 2 and err == ["error: --skip-bad-predictions goes with what reads kept predictions: --metric a "
                                 "metric of predictions (balanced_accuracy, f1_macro, kappa, log_loss, roc_auc_ovr, "
                                 "brier), which plot computes from them"]


RUN_CONFIG = """\
experiment: kept-run
seed: 3
datasets: [iris]
protocol: {type: holdout, test_size: 0.5, repeats: 1}
predictions: PREDICTIONS
algorithms:
  - {name: entropy, criterion: entropy, params: {max_depth: 2}}
  - {name: gini, criterion: gini, params: {max_depth: 2}}
store: run.sqlite
"""
RUN = ("run", "run.yaml", "--jobs", "1", "--quiet")


@pytest.mark.parametrize("case", [
    CliCase("run-predictions-folder-is-a-file", RUN,
            r"^error: the kept predictions folder 'run\.sqlite\.predictions' of results store 'run\.sqlite' is a "
            r"file, not a folder; accepted: a folder there, or nothing \(the run makes it\) -- move that file away, "
            r"or give the store another name \(--store\)$",
            files={"run.yaml": RUN_CONFIG.replace("PREDICTIONS", "true"), "run.sqlite.predictions": "x\n"}),
], ids=lambda case: case.id)
def test_run_refuses_a_predictions_folder_that_is_a_file(case, tmp_path, capsys):
    run_case(case, tmp_path, capsys)  # nothing created: no store, no lock
    assert not (tmp_path / "run.sqlite").exists()


def test_a_finished_config_switched_to_predictions_says_what_keeps_them(tmp_path, capsys):
    """Trial keys do not include predictions: the rerun skips the finished trials, says so and names --force."""
    config = tmp_path / "run.yaml"
    config.write_text(RUN_CONFIG.replace("PREDICTIONS", "false"), encoding="utf-8")
    assert _run(tmp_path, RUN, capsys)[0] == 0
    config.write_text(RUN_CONFIG.replace("PREDICTIONS", "true"), encoding="utf-8")
    code, out, err = _run(tmp_path, RUN, capsys)
    said = [x for x in (out + "\n".join(err)).splitlines() if x.startswith("warning:")]
    assert code == 0 and said == [
        "warning: 2 finished trials of the store have no kept predictions file (run before the config said "
        "predictions: true, or the file removed since) and are not rerun; run again with --force to rerun every "
        "trial and keep them"]
    code, _, err = _run(tmp_path, ("compare", "run.sqlite", "--test", "mcnemar"), capsys)
    assert code == 2 and err[0].endswith("(predictions: true in the config, then run it again with --force: a "
                                         "finished trial is not rerun otherwise)")
    assert _run(tmp_path, (*RUN, "--force"), capsys)[0] == 0
    assert len(list(P.keys(tmp_path / "run.sqlite"))) == 2
    code, out, err = _run(tmp_path, RUN, capsys)  # nothing left without predictions: no warning
    assert code == 0 and not [x for x in (out + "\n".join(err)).splitlines() if x.startswith("warning:")]


def test_compare_on_a_config_names_the_planned_algorithm_without_trials(tmp_path, capsys):
    """Issue 43 F11: a planned algorithm with no finished trial is named on stderr, not dropped without a word;
    the grid check of a config that tunes nothing says so (the config was given)."""
    damaged("holdout")(tmp_path)
    config = CONFIG.format(name="holdout", protocol=PROTOCOLS["holdout"], store="holdout.sqlite")
    (tmp_path / "h.yaml").write_text(config.replace("store:", "  - {name: cart, baseline: sklearn-cart}\nstore:"),
                                     encoding="utf-8")
    before = tree_digest(tmp_path)
    code, out, err = _run(tmp_path, ("compare", "h.yaml", "--format", "csv"), capsys)
    assert code == 0 and "iris" in out and "cart" not in out
    assert [x for x in err if x.startswith("warning")] == [
        "warning: h.yaml plans algorithms cart with no finished trial in holdout.sqlite, so the table leaves them "
        "out (run `treebench run h.yaml` to add them)"]
    assert "  grid edge: not checked (the config tunes no algorithm over a grid)" in err
    code, out, err = _run(tmp_path, ("compare", "h.yaml", "--algorithms", "entropy,gini"), capsys)
    assert code == 0 and not [x for x in err if x.startswith("warning")]  # cart was not asked for
    assert tree_digest(tmp_path) == before
