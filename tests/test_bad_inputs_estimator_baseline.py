"""Bad ``baseline: sklearn`` / ``estimator:`` configs: one line, exit 2, no traceback, nothing run.

Each case is one line (see ``tests/badinput.py``).  The factories the cases
name live in this module (importable as ``test_bad_inputs_estimator_baseline``
while the tests run); modules that fail to import are written to a temporary
folder put on ``sys.path`` for the one call.
"""

from __future__ import annotations

import hashlib
import importlib
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from badinput import GOOD_CONFIG, ApiCase, CliCase, case_tests, run_cli_case

from treebench.errors import TreebenchError
from treebench.experiment.config import ConfigError, parse_config
from treebench.learners.registry import make_learner

HERE = "test_bad_inputs_estimator_baseline"
ALGORITHM = "{name: entropy, criterion: entropy, params: {max_depth: 2}}"
RF = "sklearn.ensemble.RandomForestClassifier"


def algo(fields: str) -> str:
    """GOOD_CONFIG with its one algorithm's mapping given ``fields`` instead."""
    assert ALGORITHM in GOOD_CONFIG
    return GOOD_CONFIG.replace(ALGORITHM, "{" + fields + "}")


def sk(estimator: str, extra: str = "") -> dict[str, str]:
    """The files of a case: a config whose algorithm is ``baseline: sklearn`` with ``estimator``."""
    return {"c.yaml": algo(f"name: b, baseline: sklearn, estimator: {estimator}{extra}")}


# -- factories named by the cases ---------------------------------------------------------
def returns_regressor():
    from sklearn.ensemble import RandomForestRegressor

    return RandomForestRegressor()


def returns_a_class():
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier


def fails():
    raise RuntimeError("no GPU found")


def scaled_forest():
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), RandomForestClassifier(n_estimators=3))


class FitOnly:
    """A class with fit and no predict."""

    def fit(self, X, y):
        return self


def with_module(source: str, fields: str) -> Callable[[], object]:
    """A call validating ``algo(fields)`` with a module ``{mod}`` whose import runs ``source``."""

    def call() -> object:
        name = "tb_case_" + hashlib.sha256(source.encode()).hexdigest()[:10]
        with tempfile.TemporaryDirectory() as folder:
            Path(folder, f"{name}.py").write_text(source, encoding="utf-8")
            sys.path.insert(0, folder)
            importlib.invalidate_caches()
            try:
                return parse_config(algo(fields.replace("{mod}", name)), "c.yaml")
            finally:
                sys.path.remove(folder)
                sys.modules.pop(name, None)

    return call


CASES = [
    CliCase("not a dotted path", ("run", "c.yaml"), r"estimator 'RandomForestClassifier' is not a dotted path module\.Name; accepted: the dotted path", files=sk("RandomForestClassifier")),
    CliCase("estimator not text", ("run", "c.yaml"), r"algorithms\[0\]\.estimator: estimator 5 is not a dotted path", files=sk("5")),
    CliCase("misspelt module", ("run", "c.yaml"), r"no module named 'sklearn\.ensembel' \(did you mean sklearn\.ensemble\?\); accepted: a module that imports here", files=sk("sklearn.ensembel.RandomForestClassifier")),
    CliCase("missing package", ("run", "c.yaml"), r"estimator 'nosuchpackage_tb\.Forest': no module named 'nosuchpackage_tb'.*; accepted:", files=sk("nosuchpackage_tb.Forest")),
    CliCase("no such class", ("run", "c.yaml"), r"module 'sklearn\.ensemble' has no 'RandomForestClassifer' \(did you mean sklearn\.ensemble\.RandomForestClassifier\?\)", files=sk("sklearn.ensemble.RandomForestClassifer")),
    CliCase("a regressor class", ("run", "c.yaml"), r"estimator 'sklearn\.ensemble\.RandomForestRegressor' is a regressor, not a classifier; accepted:", files=sk("sklearn.ensemble.RandomForestRegressor")),
    CliCase("a transformer class", ("run", "c.yaml"), r"'sklearn\.preprocessing\.StandardScaler' is a class without predict, not a classifier", files=sk("sklearn.preprocessing.StandardScaler")),
    CliCase("class with fit only", ("run", "c.yaml"), r"is a class without predict, not a classifier", files=sk(f"{HERE}.FitOnly")),
    CliCase("factory returns a regressor", ("run", "c.yaml"), rf"estimator '{HERE}\.returns_regressor' returns a regressor, not a classifier", files=sk(f"{HERE}.returns_regressor")),
    CliCase("factory returns a class", ("run", "c.yaml"), r"returns the class RandomForestClassifier, not an estimator", files=sk(f"{HERE}.returns_a_class")),
    CliCase("factory raises", ("run", "c.yaml"), rf"estimator '{HERE}\.fails' failed: RuntimeError: no GPU found; accepted:", files=sk(f"{HERE}.fails")),
    CliCase("class needs arguments", ("run", "c.yaml"), r"'sklearn\.ensemble\.VotingClassifier' cannot be built without arguments: TypeError: .*'estimators'; accepted: a class whose parameters all have defaults", files=sk("sklearn.ensemble.VotingClassifier")),
    CliCase("built-in is never called", ("run", "c.yaml"), r"estimator 'os\.abort' is a builtin_function_or_method, not a class or a function", files=sk("os.abort")),
    CliCase("function with arguments", ("run", "c.yaml"), r"estimator 'os\.path\.join' is a function that needs arguments \(a\)", files=sk("os.path.join")),
    CliCase("a number", ("run", "c.yaml"), r"estimator 'math\.pi' is a float, not a class or a function", files=sk("math.pi")),
    CliCase("unknown param", ("run", "c.yaml"), r"params\.n_estimator: estimator '.*RandomForestClassifier' has no parameter 'n_estimator' \(did you mean n_estimators\?\); accepted: bootstrap, ", files=sk(RF, ", params: {n_estimator: 3}")),
    CliCase("bad value", ("run", "c.yaml"), r"params\.n_estimators: The 'n_estimators' parameter of RandomForestClassifier must be an int in the range \[1, inf\)\. Got 0 instead", files=sk(RF, ", params: {n_estimators: 0}")),
    CliCase("bad choice", ("run", "c.yaml"), r"The 'criterion' parameter of RandomForestClassifier must be a str among .*Got 'gain' instead", files=sk(RF, ", params: {criterion: gain}")),
    CliCase("grid of an unknown param", ("run", "c.yaml"), r"grid\.max_dept\[0\]: .* has no parameter 'max_dept' \(did you mean max_depth\?\)", files=sk(RF, ", grid: {max_dept: [1, 2]}")),
    CliCase("bad grid value", ("run", "c.yaml"), r"grid\.max_depth\[1\]: The 'max_depth' parameter of RandomForestClassifier must be .*Got -2 instead", files=sk(RF, ", grid: {max_depth: [1, -2]}")),
    CliCase("bad nested pipeline value", ("run", "c.yaml"), r"params\.randomforestclassifier__max_depth: The 'max_depth' parameter of RandomForestClassifier .*Got -1 instead", files=sk(f"{HERE}.scaled_forest", ", params: {randomforestclassifier__max_depth: -1}")),
    CliCase("unknown nested pipeline param", ("run", "c.yaml"), r"has no parameter 'randomforestclassifier__max_dpth' \(did you mean randomforestclassifier__max_depth\?\)", files=sk(f"{HERE}.scaled_forest", ", params: {randomforestclassifier__max_dpth: 2}")),
    CliCase("estimator without baseline sklearn", ("run", "c.yaml"), r"algorithms\[0\]\.estimator: baseline 'sklearn-cart' takes no 'estimator'; accepted: 'estimator' with baseline: sklearn only", files={"c.yaml": algo(f"name: b, baseline: sklearn-cart, estimator: {RF}")}),
    CliCase("estimator with a criterion", ("run", "c.yaml"), r"algorithms\[0\]\.estimator: a criterion algorithm takes no 'estimator'; accepted: 'estimator' with baseline: sklearn only", files={"c.yaml": algo(f"name: b, criterion: entropy, estimator: {RF}")}),
    CliCase("baseline sklearn without estimator", ("run", "c.yaml"), r"algorithms\[0\]\.baseline: baseline 'sklearn' needs an 'estimator'; accepted: the dotted path", files={"c.yaml": algo("name: b, baseline: sklearn, params: {n_estimators: 3}")}),
    CliCase("baseline sklearn with pruning", ("run", "c.yaml"), r"algorithms\[0\]\.pruning: baseline 'sklearn' prunes through its own params.*accepted here: none", files=sk(RF, ", pruning: pessimistic")),
    CliCase("baseline sklearn online", ("run", "c.yaml"), r"algorithms\[0\]\.online: online trees need a 'criterion'", files=sk(RF, ", online: true")),
    CliCase("dry run refuses too", ("run", "c.yaml", "--dry-run"), r"estimator 'sklearn\.ensemble\.RandomForestRegressor' is a regressor", files=sk("sklearn.ensemble.RandomForestRegressor")),
]

API_CASES = [
    ApiCase("module import error", with_module("import nosuchdependency_tb\n", "name: b, baseline: sklearn, estimator: {mod}.make"), r"estimator 'tb_case_\w+\.make': importing module 'tb_case_\w+' failed: ModuleNotFoundError: No module named 'nosuchdependency_tb'", ConfigError),
    ApiCase("module raises on import", with_module("1 / 0\n", "name: b, baseline: sklearn, estimator: {mod}.make"), r"importing module 'tb_case_\w+' failed: ZeroDivisionError: division by zero", ConfigError),
    ApiCase("module exits on import", with_module("raise SystemExit(3)\n", "name: b, baseline: sklearn, estimator: {mod}.make"), r"importing module 'tb_case_\w+' failed: SystemExit: 3", ConfigError),
    ApiCase("duck classifier takes no params", with_module("class Duck:\n    def fit(self, X, y):\n        return self\n    def predict(self, X):\n        return X[:, 0]\n", "name: b, baseline: sklearn, estimator: {mod}.Duck, params: {depth: 2}"), r"has no parameter 'depth'; accepted: none \(the estimator has no get_params\)", ConfigError),
    ApiCase("registry: sklearn without estimator", lambda: make_learner(baseline="sklearn"), r"baseline 'sklearn' needs 'estimator:'", TreebenchError),
    ApiCase("registry: estimator for sklearn-cart", lambda: make_learner(baseline="sklearn-cart", estimator=RF), r"baseline 'sklearn-cart' takes no 'estimator'", TreebenchError),
]


test_cli_bad_input, test_api_bad_input = case_tests(CASES, API_CASES)


def test_there_are_enough_cases_and_no_store_is_created(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert len(CASES) + len(API_CASES) >= 12
    assert len({case.id for case in [*CASES, *API_CASES]}) == len(CASES) + len(API_CASES)
    run_cli_case(CASES[5], tmp_path, capsys)  # a refused config: no results store, no lock
    assert not (tmp_path / "results").exists()

