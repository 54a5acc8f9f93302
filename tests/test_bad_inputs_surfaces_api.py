"""Bad input, part 2 (issue 29), through the Python API: plugins in estimators, memory limits,
Bayesian draws, plugin imports, estimator outputs and the store's invariants.

Cases that could crash, exhaust memory or hang (a million classes, a grid of
10^10 points, a plugin's ``sys.exit``) run in their own process
(``badinput.run_api_case_isolated``): each must raise one exception whose
message is one line.  The store's invariants are plain functions, tested
in-process, each rule by a value just outside it and its controls.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import surfaces_fixtures as F
from badinput import run_api_case_here, run_api_case_isolated

from treebench.errors import TreebenchError
from treebench.trees.estimator import TreeClassifier

IRIS = "from sklearn.datasets import load_iris\nX, y = load_iris(return_X_y=True)\n"
FRAME = "from sklearn.datasets import load_iris\nX, y = load_iris(return_X_y=True, as_frame=True)\n"
TREE = "from treebench import TreeClassifier\n"
PLUGIN = "import p\n"

#: (id, files, source, message, error class name)
CASES = [
    ("fit-a-million-classes", {}, TREE + "import numpy as np\nTreeClassifier().fit(np.zeros((10**6, 1)), np.arange(10**6))",
     r"^y has 1,000,000 classes: a tree separating them holds about 1,999,999 nodes .* needs at least 14\.6 TiB of memory, more than this machine's .*; accepted: fewer classes", "ValueError"),
    ("fit-a-million-classes-pruned", {}, TREE + "import numpy as np\nTreeClassifier('gini', pruning='cost-complexity').fit(np.zeros((10**6, 2)), np.arange(10**6))",
     r"y has 1,000,000 classes", "ValueError"),
    ("mee-grid-1e10", {}, FRAME + "from treebench.trees.mee import MEETreeClassifier\nMEETreeClassifier(convexity_points=10**10).fit(X, y)",
     r"^convexity_points=10,000,000,000 \(a grid of 6 arrays of that length\) needs at least 447\.0 GiB of memory.*accepted: a smaller convexity_points", "ValueError"),
    ("mee-grid-1e12", {}, FRAME + "from treebench.trees.mee import MEETreeClassifier\nMEETreeClassifier(convexity_points=10**12).fit(X, y)",
     r"convexity_points=1,000,000,000,000", "ValueError"),
    ("predict-categorical-of-strings", {}, FRAME + TREE + "import pandas as pd\nm = TreeClassifier(max_depth=3).fit(X, y)\n"
     "Z = X.copy(); Z['petal length (cm)'] = pd.Categorical(Z['petal length (cm)'].astype(str))\nm.predict(Z)",
     r"^feature 'petal length \(cm\)' held numbers at fit; got a categorical of .*whose codes are not those numbers", "ValueError"),
    ("predict-categorical-array-fit", {}, IRIS + TREE + "import pandas as pd\nm = TreeClassifier(max_depth=3).fit(X, y)\n"
     "Z = pd.DataFrame(X, columns=[f'x{j}' for j in range(4)]); Z['x2'] = pd.Categorical(Z['x2'].astype(str))\nm.predict(Z)",
     r"feature 'x2' held numbers at fit", "ValueError"),
    ("predict-proba-categorical-of-strings", {}, FRAME + TREE + "import pandas as pd\nm = TreeClassifier(max_depth=3).fit(X, y)\n"
     "Z = X.copy(); Z['petal width (cm)'] = pd.Categorical(Z['petal width (cm)'].astype(str))\nm.predict_proba(Z)",
     r"feature 'petal width \(cm\)' held numbers at fit", "ValueError"),
    ("fit-plugin-nan-node", {"p.py": F.NAN_NODE}, PLUGIN + IRIS + TREE + "TreeClassifier('broken').fit(X, y)",
     r"^criterion 'broken': node_value returned nan for a node of 150 rows \(counts 50,50,50\)", "CriterionOutputError"),
    ("fit-plugin-too-few", {"p.py": F.FEW_SCORES}, PLUGIN + IRIS + TREE + "TreeClassifier('broken').fit(X, y)",
     r"split_scores returned shape \(\d+,\) for \d+ candidates of a node of 150 rows", "CriterionOutputError"),
    ("fit-plugin-scalar", {"p.py": F.SCALAR_SCORE}, PLUGIN + IRIS + TREE + "TreeClassifier('broken').fit(X, y)",
     r"split_scores returned a scalar", "CriterionOutputError"),
    ("fit-plugin-inf-score-weighted", {"p.py": F.INF_SCORES}, PLUGIN + IRIS + TREE + "import numpy as np\nTreeClassifier('broken').fit(X, y, sample_weight=np.full(150, 0.5))",
     r"split_scores returned inf for candidate 1 of \d+ of a node of 75 rows", "CriterionOutputError"),
    ("fit-plugin-python-engine", {"p.py": F.NAN_SCORES}, PLUGIN + IRIS + TREE + "TreeClassifier('broken', engine='python').fit(X, y)",
     r"split_scores returned nan", "CriterionOutputError"),
    ("compiled-scan-nan", {"p.py": F.IMPURITY_NAN}, PLUGIN + IRIS + "from treebench.criteria import get\nget('broken_fast').grow_compiled(X, y, 3)",
     r"^criterion 'broken_fast': impurity returned nan for a candidate branch of \d+ rows", "CriterionOutputError"),
    ("compiled-fit-inf", {"p.py": F.IMPURITY_INF}, PLUGIN + IRIS + TREE + "TreeClassifier('broken_fast').fit(X, y)",
     r"impurity returned inf for a candidate branch", "CriterionOutputError"),
    ("compiled-numpy-engine-nan", {"p.py": F.IMPURITY_ROOT_NAN}, PLUGIN + IRIS + TREE + "TreeClassifier('broken_fast', engine='python').fit(X, y)",
     r"criterion 'broken_fast': (node_value|impurity) returned nan for a node of 150 rows", "CriterionOutputError"),
    ("node-value-none", {"p.py": F.criterion_plugin(node="None")}, PLUGIN + "from treebench.criteria import get\nget('broken').node_value([1.0, 2.0])",
     r"node_value returned None \(NoneType\) for a node of 3 rows", "CriterionOutputError"),
    ("bayes-samples-1e12", {}, "from treebench.stats.bayes import signed_rank_samples\nsigned_rank_samples([0.1, 0.2], nsamples=10**12)",
     r"^--samples 1000000000000 is out of range; accepted: an integer from 1 to 1,000,000", "ValueError"),
    ("bayes-seed-negative", {}, "from treebench.stats.bayes import signed_rank\nsigned_rank([0.9, 0.8], [0.7, 0.8], seed=-1)",
     r"^--seed -1 is out of range; accepted: an integer from 0 to 4294967295", "ValueError"),
    ("bayes-seed-2-40-pairwise", {}, "import pandas as pd\nfrom treebench.stats.bayes import pairwise_signed_rank\n"
     "pairwise_signed_rank(pd.DataFrame({'a': [0.9, 0.8], 'b': [0.7, 0.8]}), seed=2**40)",
     r"--seed 1099511627776 is out of range", "ValueError"),
    ("bayes-samples-float", {}, "from treebench.stats.bayes import signed_rank_samples\nsigned_rank_samples([0.1], nsamples=1e3)",
     r"--samples 1000\.0 is out of range", "ValueError"),
    ("import-plugin-relative", {}, "from treebench.criteria.plugins import import_plugin\nimport_plugin('../x')",
     r"^plugin '\.\./x' is neither a \.py file nor a module name", "ValueError"),
    ("import-plugin-module-raises", {"modraise.py": F.RAISE_IMPORT}, "from treebench.criteria.plugins import import_plugin\nimport_plugin('modraise')",
     r"^plugin module 'modraise' failed to import: RuntimeError: plugin setup failed$", "ValueError"),
    ("import-plugin-file-exit", {"p.py": F.EXIT0_IMPORT}, "import os\nfrom treebench.criteria.plugins import import_plugin\nimport_plugin(os.path.abspath('p.py'))",
     r"failed to import: SystemExit\(0\)", "ValueError"),
    ("store-record-accuracy-17", {}, "from treebench.experiment.store import ResultsStore\n"
     "s = ResultsStore('s.sqlite', create=True)\ns.record({'trial_key': 'k', 'status': 'ok', 'accuracy': 17.0, 'error': -16.0})",
     r"^trial k not stored: accuracy=17 is outside \[0, 1\]$", "ValueError"),
]


#: Cases that import no user code and cannot crash, exhaust memory or hang: run in this process
#: (a child interpreter would only add its start-up).  Every other case runs in its own process.
IN_PROCESS = frozenset({
    "predict-categorical-of-strings", "predict-categorical-array-fit", "predict-proba-categorical-of-strings",
    "bayes-seed-negative", "bayes-seed-2-40-pairwise", "bayes-samples-float", "import-plugin-relative",
    "store-record-accuracy-17",
})


@pytest.mark.parametrize("case_id,files,source,message,error", CASES, ids=[c[0] for c in CASES])
def test_api_bad_input(case_id: str, files: dict[str, str], source: str, message: str, error: str, tmp_path: Path) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    if case_id in IN_PROCESS:
        assert not files, f"{case_id}: a case with files of its own runs in its own process"
        run_api_case_here(case_id, source, message, error, folder=tmp_path)
    else:
        run_api_case_isolated(case_id, source, message, error, folder=tmp_path)


def test_in_process_cases_exist() -> None:
    assert IN_PROCESS <= {c[0] for c in CASES}


# --------------------------------------------------------------------------- the store's invariants
GOOD_ROW = {
    "status": "ok", "accuracy": 0.9, "error": 0.1, "train_accuracy": 1.0, "n_leaves": 5, "n_nodes": 9, "depth": 3,
    "fit_seconds": 0.01, "predict_seconds": 0.0, "tune_seconds": 0.0, "tree_quality": None, "measures": "{}",
    "n_train": 75, "n_test": 75,
}
ROW_CASES = [
    ("accuracy-1667-percent", {"accuracy": 17.0, "error": -16.0}, r"accuracy=17 is outside \[0, 1\]"),
    ("accuracy-negative", {"accuracy": -0.1, "error": 1.1}, r"accuracy=-0\.1 is outside \[0, 1\]"),
    ("accuracy-nan", {"accuracy": float("nan")}, r"accuracy is missing from a finished trial"),
    ("accuracy-missing", {"accuracy": None}, r"accuracy is missing"),
    ("accuracy-text", {"accuracy": "0.9"}, r"accuracy='0\.9' is not a number"),
    ("train-accuracy-above-1", {"train_accuracy": 1.5}, r"train_accuracy=1\.5 is outside \[0, 1\]"),
    ("accuracy-and-error-disagree", {"error": 0.2}, r"accuracy 0\.9 and error 0\.2 do not sum to 1"),
    ("leaves-negative", {"n_leaves": -1}, r"n_leaves=-1 is not a whole number >= 0"),
    ("nodes-fractional", {"n_nodes": 2.5}, r"n_nodes=2\.5 is not a whole number >= 0"),
    ("depth-infinite", {"depth": float("inf")}, r"depth=inf is not finite"),
    ("n-test-bool", {"n_test": True}, r"n_test=True is not a number"),
    ("fit-time-negative", {"fit_seconds": -0.5}, r"fit_seconds=-0\.5 is negative"),
    ("tune-time-infinite", {"tune_seconds": float("inf")}, r"tune_seconds=inf is not finite"),
    ("tree-quality-infinite", {"tree_quality": float("-inf")}, r"tree_quality=-inf is not finite"),
    ("measure-infinite", {"measures": json.dumps({"pignistic_error": float("inf")})}, r"measure pignistic_error=inf is not finite"),
    ("measure-text", {"measures": json.dumps({"m": "x"})}, r"measure m='x' is not a number"),
    ("measures-not-json", {"measures": "{oops"}, r"measures '\{oops' is not JSON"),
]


@pytest.mark.parametrize("case_id,change,message", ROW_CASES, ids=[c[0] for c in ROW_CASES])
def test_store_refuses_values_outside_their_domain(case_id: str, change: dict, message: str) -> None:
    import re

    from treebench.experiment.runner import checked
    from treebench.experiment.store import row_problem
    from treebench.experiment.trial import Result

    problem = row_problem({**GOOD_ROW, **change})
    assert problem is not None and re.search(message, problem), f"[silent] {case_id}: {problem!r}"
    result = checked(Result(key="k", **{k: v for k, v in {**GOOD_ROW, **change}.items()}))
    assert result.status == "failed" and "outside its domain" in result.error_text and result.accuracy is None


def test_store_invariants_controls() -> None:
    from treebench.experiment.runner import checked
    from treebench.experiment.store import row_problem
    from treebench.experiment.trial import Result

    assert row_problem(GOOD_ROW) is None
    assert row_problem({**GOOD_ROW, "n_leaves": float("nan"), "n_nodes": None, "depth": None}) is None  # no size
    assert row_problem({"status": "failed", "accuracy": 17.0, "error_text": "x"}) is None  # carries no metric
    assert row_problem({**GOOD_ROW, "accuracy": 1.0, "error": 0.0, "n_leaves": np.int64(1)}) is None
    assert checked(Result(key="k", **GOOD_ROW)).status == "ok"


# --------------------------------------------------------------------------- plain checks and controls
def test_predictions_checks() -> None:
    from treebench.experiment.outputs import OutputError, check_predictions

    with pytest.raises(OutputError, match=r"^e: predict returned shape \(3, 1\) for 3 rows"):
        check_predictions(np.zeros((3, 1)), 3, np.array([0, 1]), "e")
    with pytest.raises(OutputError, match=r"predict returned a single value for 3 rows"):
        check_predictions(np.int64(0), 3, np.array([0, 1]), "e")
    with pytest.raises(OutputError, match=r"predict returned np\.int64\(7\), not a training class \(codes 0, 1\)"):
        check_predictions([0, 7, 1], 3, np.array([0, 1]), "e")
    assert check_predictions([0.0, 1.0, 1.0], 3, np.array([0, 1]), "e").tolist() == [0, 1, 1]


def test_draws_at_their_bounds_are_accepted() -> None:
    from treebench.stats.bayes import MAX_SAMPLES, MAX_SEED, check_draws

    assert check_draws(MAX_SAMPLES, MAX_SEED) == (MAX_SAMPLES, MAX_SEED)
    assert check_draws(1, 0) == (1, 0)
    assert MAX_SEED == np.iinfo(np.uint32).max  # what RandomState accepts
    np.random.RandomState(MAX_SEED)
    with pytest.raises(ValueError):
        np.random.RandomState(MAX_SEED + 1)


def test_memory_check_passes_small_requests() -> None:
    from treebench.errors import check_memory

    check_memory(1024, "a small request", "anything")
    with pytest.raises(TreebenchError, match=r"^huge needs at least 8\.0 EiB|^huge needs at least .* PiB"):
        check_memory(2.0**63, "huge", "less")


def test_many_classes_with_a_bounded_tree_still_fit() -> None:
    """The class-count check refuses what cannot fit, not what a max_depth keeps small."""
    X = np.arange(4000, dtype=float)[:, None]
    y = np.arange(4000) % 2000
    model = TreeClassifier(max_depth=2).fit(X, y)
    assert model.tree_.n_leaves == 4 and len(model.classes_) == 2000


def test_categorical_predict_controls() -> None:
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": pd.Categorical(["x", "y", "x", "y"], ordered=True)})
    y = np.array([0, 0, 1, 1])
    model = TreeClassifier().fit(frame, y)
    same = frame.assign(a=pd.Categorical(frame["a"]))  # numbers as a categorical: read as the numbers
    assert model.predict(same).tolist() == model.predict(frame).tolist() == [0, 0, 1, 1]
    # an encoder pickled before the fit-time kinds were recorded keeps reading codes (no crash)
    encoder = pickle.loads(pickle.dumps(model.encoder_))
    del encoder.__dict__["ordinal"]
    assert encoder.transform(frame).shape == (4, 2)
    from treebench.trees.encoding import FeatureEncoder

    assert FeatureEncoder.fit(frame)[0].ordinal == [False, True]


def test_cases_are_many_and_distinct() -> None:
    ids = [c[0] for c in CASES] + [c[0] for c in ROW_CASES]
    assert len(ids) == len(set(ids)) and len(ids) >= 35
