"""The weka-j48 baseline: ARFF writing, Weka output parsing (fixtures captured from
Weka 3.6.14 runs), the missing-java/jar message, and real runs when Weka is installed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from treebench.errors import TreebenchError
from treebench.learners import weka, weka_jvm
from treebench.learners.weka import (
    MISSING_MESSAGE,
    Schema,
    WekaJ48,
    arff_quote,
    chosen_values,
    classifier_options,
    parse_model,
    parse_predictions,
)

FIXTURES = Path(__file__).parent / "fixtures" / "weka"
REASON = weka.availability()
needs_weka = pytest.mark.skipif(REASON is not None, reason=f"Weka not installed: {REASON}")


# --------------------------------------------------------------------------- ARFF
def test_arff_quoting_escapes_quotes_backslashes_and_newlines():
    assert arff_quote("a b") == "'a b'"
    assert arff_quote("it's") == "'it\\'s'"
    assert arff_quote("back\\slash") == "'back\\\\slash'"
    assert arff_quote("two\nlines") == "'two\\nlines'"
    assert arff_quote(3) == "'3'"


def test_arff_numeric_nominal_missing_and_class_indices():
    X = pd.DataFrame(
        {
            "width": [1.5, np.nan, 2.0, 1e-7],
            "it's": pd.Categorical(["p q", None, "r's", "p q"], categories=["p q", "r's", "never"]),
            "count": pd.array([1, 2, None, 4], dtype="Int64"),
            "class": ["u", "v", None, "u"],  # an object column named like the class
        }
    )
    schema = Schema.of(X, n_classes=3)
    header = schema.header()
    assert "@attribute 'width' numeric" in header
    assert "@attribute 'it\\'s' {'p q','r\\'s','never'}" in header  # declared categories, in order
    assert "@attribute 'count' numeric" in header
    assert "@attribute 'class' {'u','v'}" in header
    assert "@attribute '_class' {0,1,2}" in header  # the class attribute avoids the clash
    assert schema.rows(X, np.array([0, 2, 1, 0])) == [
        "1.5,'p q',1.0,'u',0",
        "?,?,2.0,'v',2",
        "2.0,'r\\'s',?,?,1",
        "1e-07,'p q',4.0,'u',0",
    ]
    assert schema.rows(X.iloc[:1], None) == ["1.5,'p q',1.0,'u',?"]  # prediction rows


# --------------------------------------------------------------------------- options
def test_untuned_j48_uses_weka_defaults_unless_given():
    assert classifier_options({}, 7) == ["weka.classifiers.trees.J48"]
    assert classifier_options({"C": 0.1, "M": 5, "binary_splits": True}, 7) == [
        "weka.classifiers.trees.J48", "-C", "0.1", "-M", "5", "-B"
    ]
    assert classifier_options({"unpruned": True}, 7) == ["weka.classifiers.trees.J48", "-U"]


def test_tuning_wraps_j48_in_cvparameterselection():
    options = classifier_options({"tune_C": [0.05, 0.5, 10], "M": 2, "tune_folds": 3}, 7)
    assert options == [
        "weka.classifiers.meta.CVParameterSelection", "-P", "C 0.05 0.5 10", "-X", "3", "-S", "7",
        "-W", "weka.classifiers.trees.J48", "--", "-M", "2",
    ]


@pytest.mark.parametrize(
    "params, fragment",
    [
        ({"C": 0.7}, "C=0.7 is invalid; accepted: 0 < C <= 0.5"),
        ({"M": 0}, "M=0 is invalid"),
        ({"tune_C": [0.05, 0.5]}, "tune_C=[0.05, 0.5] is invalid; accepted: null or [low, high, steps]"),
        ({"tune_M": [5, 1, 3]}, "tune_M=[5, 1, 3] is invalid"),
        ({"confidence": 0.25}, "baseline 'weka-j48' has no parameter 'confidence'"),
        ({"C": 0.1, "tune_C": [0.05, 0.5, 10]}, "give C or tune_C, not both"),
        ({"unpruned": True, "C": 0.1}, "unpruned: true has no pruning confidence"),
    ],
)
def test_bad_parameters_are_one_line_errors(params, fragment):
    with pytest.raises(TreebenchError, match=None) as info:
        WekaJ48.validate_params(params)
    assert fragment in str(info.value)


# --------------------------------------------------------------------------- parsing (fixtures)
def test_parse_plain_j48_model():
    model = parse_model((FIXTURES / "j48-iris.txt").read_text())
    assert (model.n_leaves, model.n_nodes, model.options) == (5, 9, {})


def test_parse_unpruned_model_on_nominal_data():
    model = parse_model((FIXTURES / "j48-unpruned-vote.txt").read_text())
    assert model.n_leaves > 10 and model.n_nodes > model.n_leaves


@pytest.mark.parametrize("fixture", ["cvparameterselection-iris.txt", "cvparameterselection-iris-weka39.txt"])
def test_parse_cvparameterselection_chosen_options_and_wrapped_tree(fixture):
    text = (FIXTURES / fixture).read_text()  # Weka 3.6.14 and 3.9.7 (python-weka-wrapper3's jar)
    model = parse_model(text)
    assert (model.n_leaves, model.n_nodes) == (4, 7)
    assert model.options == {"-C": "0.15000000000000002", "-M": "2"}
    assert chosen_values({"tune_C": [0.05, 0.5, 10]}, model) == {"C": 0.15}
    assert chosen_values({}, model) == {}


@pytest.mark.parametrize("fixture", ["predictions-iris.txt", "predictions-iris-weka39.txt"])
def test_parse_predictions_with_errors_and_missing_actual_class(fixture):
    text = (FIXTURES / fixture).read_text()  # 3.6 truncates labels to 10 characters, 3.9 does not
    predicted = parse_predictions(text, 150)
    assert predicted.shape == (150,) and set(predicted.tolist()) == {0, 1, 2}
    assert predicted[70] == 2  # the line marked '+' (an error): actual 2:Iris-ver, predicted 3:Iris-vir
    assert (predicted[:50] == 0).all()
    with pytest.raises(TreebenchError, match="expected 151 predictions from Weka, parsed 150"):
        parse_predictions(text, 151)


def test_parse_errors_are_clear():
    with pytest.raises(TreebenchError, match="no 'Number of Leaves'"):
        parse_model("Weka exception: No training file given.")


# --------------------------------------------------------------------------- missing java / jar
def test_missing_java_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no java here
    assert weka.availability().startswith(MISSING_MESSAGE)
    X = pd.DataFrame({"a": [0.0, 1.0]})
    with pytest.raises(TreebenchError) as info:
        WekaJ48(0).fit({}, X, np.array([0, 1]))
    assert str(info.value) == f"{MISSING_MESSAGE} (no `java` on PATH)"


def test_missing_jar_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("TREEBENCH_WEKA_JAR", str(tmp_path / "weka.jar"))
    with pytest.raises(TreebenchError) as info:
        weka.find_jar()
    assert str(info.value).startswith(MISSING_MESSAGE)
    assert "TREEBENCH_WEKA_JAR=" in str(info.value)
    assert WekaJ48.code_version() == "Weka unavailable"


# --------------------------------------------------------------------------- engines
def test_bad_engine_is_a_one_line_error(monkeypatch):
    monkeypatch.setenv("TREEBENCH_WEKA_ENGINE", "jni")
    with pytest.raises(TreebenchError, match=r"TREEBENCH_WEKA_ENGINE='jni' is invalid; accepted: auto, jpype, java"):
        weka_jvm.use_jpype()
    if REASON is None:  # java and the jar are there: the engine is what availability reports
        assert weka.availability() == "TREEBENCH_WEKA_ENGINE='jni' is invalid; accepted: auto, jpype, java"


def test_java_engine_is_honoured_and_auto_needs_jpype(monkeypatch):
    monkeypatch.setenv("TREEBENCH_WEKA_ENGINE", "java")
    assert weka_jvm.use_jpype() is False
    monkeypatch.setenv("TREEBENCH_WEKA_ENGINE", "auto")
    monkeypatch.setattr(weka_jvm, "jpype_missing", lambda: "JPype is not installed")
    assert weka_jvm.use_jpype() is False
    monkeypatch.setenv("TREEBENCH_WEKA_ENGINE", "jpype")
    with pytest.raises(TreebenchError, match="TREEBENCH_WEKA_ENGINE=jpype but JPype is not installed"):
        weka_jvm.use_jpype()


@pytest.fixture(params=["java", "jpype"])
def engine(request, monkeypatch):
    """Run a real-Weka test through the command line and in-process (when JPype imports)."""
    if request.param == "jpype" and weka_jvm.jpype_missing():
        pytest.skip(weka_jvm.jpype_missing())
    monkeypatch.setenv("TREEBENCH_WEKA_ENGINE", request.param)
    return request.param


@needs_weka
@pytest.mark.skipif(weka_jvm.jpype_missing() is not None, reason="JPype not installed")
@pytest.mark.parametrize("params", [{}, {"tune_C": [0.1, 0.5, 5], "tune_folds": 3}, {"unpruned": True}])
def test_in_process_weka_gives_the_command_lines_trees_and_predictions(params, monkeypatch):
    from treebench.data import load

    ds = load("glass")
    train, test = ds.X.iloc[40:], ds.X.iloc[:40]
    seen = {}
    for name in ("java", "jpype"):
        monkeypatch.setenv("TREEBENCH_WEKA_ENGINE", name)
        learner = WekaJ48(11)
        learner.will_predict(test, train)  # as a trial asks: test rows, then the training rows themselves
        model = learner.fit_final(params, train, ds.y[40:], 11)
        assert (model.handle is not None) == (name == "jpype")
        seen[name] = (learner.measures(model), learner.chosen(model), learner.predict(model, test).tolist(),
                      learner.predict(model, ds.X.iloc[:7].copy()).tolist(),
                      learner.predict(model, train).tolist(), learner.predict(model, train.copy()).tolist())
        # in-process, the training rows are classified from the JVM's own dataset: the same as converted again
        assert seen[name][4] == seen[name][5]
    assert seen["java"] == seen["jpype"]


def _mixed_frame(seed: int, n: int = 90) -> pd.DataFrame:
    """Numbers (with NaN and infinities), a categorical with an unused category, strings with quotes."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "x": rng.normal(size=n) * 10.0 ** rng.integers(-6, 8, size=n),
        "colour": pd.Categorical(rng.choice(["red", "green", "it's blue"], size=n),
                                 categories=["red", "green", "it's blue", "unused"]),
        "word": rng.choice(["a,b", "c d", "e"], size=n).astype(object),
        "flag": rng.random(n) < 0.5,
    })
    X.loc[::7, "x"] = np.nan
    X.loc[3, "x"] = np.inf
    X.loc[::11, "colour"] = np.nan
    X.loc[::13, "word"] = None
    return X


def _parse_arff_rows(schema: Schema, text: str) -> np.ndarray:
    """The doubles Weka's ARFF reader makes of :meth:`Schema.text`'s data lines (a small reader for
    this writer's output: quoted nominal values, ``?`` missing, Java's number syntax)."""
    import csv

    lines = text.split("@data\n", 1)[1].splitlines()
    rows = []
    for fields in csv.reader([line for line in lines if line], quotechar="'", escapechar="\\"):
        row = []
        for (_, values), field in zip([*schema.attributes, ("class", None)], fields, strict=True):
            if field == "?":
                row.append(np.nan)
            elif values is None:
                row.append(float(field.replace("Infinity", "inf")))
            else:
                row.append(float(values.index(field)))
        rows.append(row)
    return np.array(rows)


@pytest.mark.parametrize("seed", range(4))
def test_schema_matrix_holds_what_the_arff_text_parses_to(seed):
    X = _mixed_frame(seed)
    schema = Schema.of(X, n_classes=2)
    y = np.arange(len(X)) % 2
    np.testing.assert_array_equal(schema.matrix(X, y), _parse_arff_rows(schema, schema.text([X], y)))
    # new data: values the schema does not declare are missing, as in the text
    other = X.copy()
    other["word"] = other["word"].replace("e", "never seen")
    other["colour"] = other["colour"].cat.add_categories(["pink"]).fillna("pink")
    np.testing.assert_array_equal(schema.matrix(other, None), _parse_arff_rows(schema, schema.text([other])))


@needs_weka
@pytest.mark.skipif(weka_jvm.jpype_missing() is not None, reason="JPype not installed")
def test_in_process_weka_agrees_with_the_command_line_on_nominal_and_missing_values(monkeypatch):
    X = _mixed_frame(5, n=160)
    y = np.where(X["colour"].astype(str) == "red", "yes", np.where(X["x"].fillna(0) > 0, "yes", "no"))
    test = _mixed_frame(6, n=40)
    test["word"] = test["word"].replace("e", "never seen")
    seen = {}
    for name in ("java", "jpype"):
        monkeypatch.setenv("TREEBENCH_WEKA_ENGINE", name)
        learner = WekaJ48(2)
        learner.will_predict(test)
        model = learner.fit_final({}, X, y, 2)
        assert (model.handle is not None) == (name == "jpype")
        seen[name] = (model.text.strip(), learner.predict(model, test).tolist(), learner.predict(model, X.copy()).tolist())
    assert seen["java"] == seen["jpype"]


# --------------------------------------------------------------------------- real Weka
@needs_weka
def test_real_j48_on_iris_matches_the_fixture_tree(engine):
    from treebench.data import load

    ds = load("iris")
    learner = WekaJ48(0)
    learner.will_predict(ds.X)
    model = learner.fit_final({}, ds.X, ds.y, 0)
    assert (model.tree.n_leaves, model.tree.n_nodes) == (5, 9)  # as in j48-iris.txt
    predicted = learner.predict(model, ds.X)  # cached from the fit
    assert np.count_nonzero(predicted == ds.y) == 147  # Weka: 98 % on training data
    again = learner.predict(model, ds.X.copy())  # not cached: predicts again
    assert (again == predicted).all()
    assert WekaJ48.code_version().startswith("Weka 3.")


@needs_weka
def test_real_tuned_j48_on_a_frame_with_a_nominal_column_and_missing_values(engine):
    rng = np.random.default_rng(0)
    n = 120
    colour = rng.choice(["red", "green", "blue it's"], size=n)
    x = rng.normal(size=n)
    y = np.where(colour == "red", "yes", np.where(x > 0, "yes", "no"))
    X = pd.DataFrame(
        {"colour": pd.Categorical(colour, categories=["red", "green", "blue it's", "unused"]), "x": x}
    )
    X.loc[::17, "x"] = np.nan
    X_test = X.iloc[:30].copy()
    learner = WekaJ48(3)
    learner.will_predict(X_test, X)
    model = learner.fit_final({"tune_C": [0.1, 0.5, 5], "tune_folds": 3}, X, y, 3)
    assert set(model.chosen) == {"C"} and model.chosen["C"] in (0.1, 0.2, 0.3, 0.4, 0.5)
    assert learner.chosen(model) == model.chosen
    assert model.tree.n_leaves >= 4  # the multiway split on colour has a leaf per declared value
    predicted = learner.predict(model, X_test)
    assert predicted.dtype == y.dtype and np.mean(predicted == y[:30]) > 0.8
    assert learner.measures(model)["depth"] is None


@needs_weka
def test_runner_with_baseline_weka_j48(tmp_path, engine):
    from treebench.experiment.runner import run_experiment
    from treebench.experiment.store import ResultsStore

    config = tmp_path / "w.yaml"
    config.write_text(
        "experiment: w\nseed: 3\ndatasets: [iris]\nprotocol: {type: holdout, repeats: 1}\n"
        "algorithms:\n"
        "  - {name: J48, baseline: weka-j48}\n"
        "  - {name: J48-tuned, baseline: weka-j48, params: {tune_C: [0.05, 0.5, 10]}}\n"
        f"store: {tmp_path / 'w.sqlite'}\n"
    )
    summary = run_experiment(str(config), jobs=1, quiet=True, echo=lambda *a, **k: None)
    assert summary.failed == 0 and summary.done == 2
    rows = ResultsStore(tmp_path / "w.sqlite").to_frame(all_columns=True).set_index("algorithm")
    assert rows["status"].tolist() == ["ok", "ok"]
    assert (rows["accuracy"] > 0.85).all() and (rows["n_leaves"] >= 2).all()
    assert rows["depth"].isna().all()
    assert json.loads(rows.loc["J48", "chosen"]) == {}
    chosen = json.loads(rows.loc["J48-tuned", "chosen"])
    assert set(chosen) == {"C"} and json.loads(rows.loc["J48-tuned", "params"])["C"] == chosen["C"]


def test_runner_without_java_fails_the_trial_with_the_message(tmp_path, monkeypatch):
    from treebench.experiment.runner import run_experiment
    from treebench.experiment.store import ResultsStore

    monkeypatch.setenv("PATH", str(tmp_path))
    config = tmp_path / "w.yaml"
    config.write_text(
        "experiment: w\ndatasets: [iris]\nprotocol: {type: holdout, repeats: 1}\n"
        "algorithms:\n  - {name: J48, baseline: weka-j48}\n  - {name: CART, baseline: sklearn-cart}\n"
        f"store: {tmp_path / 'w.sqlite'}\n"
    )
    said: list[str] = []
    summary = run_experiment(str(config), jobs=1, quiet=True, echo=lambda text, **k: said.append(text))
    assert said[0] == f"warning: {MISSING_MESSAGE} (no `java` on PATH)"  # said before running
    assert summary.failed == 1 and summary.done == 2  # the run goes on
    rows = ResultsStore(tmp_path / "w.sqlite").to_frame().set_index("algorithm")
    assert rows.loc["CART", "status"] == "ok" and rows.loc["J48", "status"] == "failed"
    assert MISSING_MESSAGE in rows.loc["J48", "error_text"]
