"""Bad input, part 2 (issue 29): the surfaces added last round, through the command line.

Plugins (their outputs, their imports, ``sys.exit`` in them), estimators
given by ``estimator:`` (their predictions and probabilities), ``compare
--test bayes`` bounds, ``reproduce`` options and store identity, and OpenML
against a server that accepts and never answers.  A case that brings user
code (a plugin, a module, an estimator) runs ``treebench ARGS`` in its own
process (a crash, an exit, a hang or an imported module stays there); one
without runs in this process through the real entry point (``IN_PROCESS``),
with the same checks; each in a fresh folder, through ``tests/badinput.py``:

* a :class:`~badinput.CliCase` must end in its exit code and one clean line;
* a :class:`TrialCase` runs a config whose trials must *fail* (exit 1) with
  the reason on their ``failed:`` line, and store no ``ok`` row;
* a control must run (exit 0) and store only values inside their domains.

A failing case's message starts with ``[hang]``, ``[traceback]``,
``[silent]`` or ``[other]`` (the tally of the issue's closing note).
"""

from __future__ import annotations

import shutil
import socket
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import surfaces_fixtures as F
from badinput import (
    CliCase,
    isolated_env,
    run_cli_case,
    run_cli_case_isolated,
    run_isolated,
    write_files,
)

REPO = Path(__file__).resolve().parents[1]
EVAL = ("criteria", "eval", "broken", "--plugin", "p.py", "--counts", "5,3", "--children", "5,0;0,3|4,1;1,2")
EVAL_ONE = ("criteria", "eval", "broken", "--plugin", "p.py", "--counts", "5,3", "--children", "5,0;0,3")
LIST = ("criteria", "list", "--plugin", "p.py")
DRY = ("run", "c.yaml", "--dry-run")
#: What Ctrl-C prints (click reads a KeyboardInterrupt as an abort); exit 130 either way.
CTRL_C = r"^(Aborted\.|interrupted)$"


def loads(plugins: str) -> str:
    """A config loading ``plugins`` but running a built-in criterion: the import is its only problem."""
    return F.criterion_config(plugins, criterion="entropy")


RUN = ("run", "c.yaml", "--jobs", "1", "--quiet")


def plugin(text: str, config: str | None = None) -> dict[str, str]:
    files = {"p.py": text}
    if config is not None:
        files["c.yaml"] = config
    return files


def module(name: str, text: str) -> dict[str, str]:
    return {f"{name}.py": text}


# --------------------------------------------------------------------------- one clean line
CASES = [
    # a plugin criterion's values, through `criteria eval` (too many / too few / scalar / string ...)
    CliCase("eval-nan-node-value", EVAL, r"^error: criterion 'broken': node_value returned nan for a node of 8 rows \(counts 5,3\); accepted: one finite number", plugin(F.NAN_NODE)),
    CliCase("eval-inf-node-value", EVAL, r"node_value returned inf for a node of 8 rows", plugin(F.INF_NODE)),
    CliCase("eval-string-node-value", EVAL, r"node_value returned 'high' \(str\) for a node of 8 rows", plugin(F.STR_NODE)),
    CliCase("eval-array-node-value", EVAL, r"node_value returned array\(\[0\.1, 0\.2\]\) \(ndarray, shape \(2,\)\)", plugin(F.ARRAY_NODE)),
    CliCase("eval-nan-scores", EVAL, r"split_scores returned nan for candidate 1 of 2 of a node of 8 rows", plugin(F.NAN_SCORES)),
    CliCase("eval-inf-score", EVAL, r"split_scores returned inf for candidate 1 of 2 .*each finite or -inf", plugin(F.INF_SCORES)),
    CliCase("eval-too-few-scores", EVAL, r"split_scores returned shape \(1,\) for 2 candidates of a node of 8 rows .*accepted: 2 numbers", plugin(F.FEW_SCORES)),
    CliCase("eval-too-few-one-candidate", EVAL_ONE, r"split_scores returned shape \(0,\) for 1 candidate of", plugin(F.FEW_SCORES)),
    CliCase("eval-too-many-scores", EVAL, r"split_scores returned shape \(3,\) for 2 candidates", plugin(F.MANY_SCORES)),
    CliCase("eval-scalar-score", EVAL, r"split_scores returned a scalar for 2 candidates", plugin(F.SCALAR_SCORE)),
    CliCase("eval-string-scores", EVAL, r"split_scores returned 'good' \(str\) for 2 candidates", plugin(F.STRING_SCORES)),
    CliCase("eval-column-scores", EVAL, r"split_scores returned shape \(2, 1\) for 2 candidates", plugin(F.COLUMN_SCORES)),
    CliCase("eval-none-scores", EVAL, r"split_scores returned None \(NoneType\)", plugin(F.NONE_SCORES)),
    CliCase("eval-object-scores", EVAL, r"split_scores returned \[None, None\] \(dtype object\)", plugin(F.OBJECT_SCORES)),
    CliCase("eval-bad-candidate-scores", EVAL, r"candidate_scores returned shape \(4,\) for 2 candidates", plugin(F.BAD_CANDIDATES)),
    CliCase("eval-exit-in-scores", EVAL, r"^error: criterion 'broken' failed: SystemExit\(0\): it called sys\.exit$", plugin(F.EXIT_IN_SCORES)),
    CliCase("eval-raise-in-scores", EVAL, r"^error: criterion 'broken' failed: IndexError: index \d+ is out of bounds", plugin(F.RAISE_IN_SCORES)),
    # a plugin's import: sys.exit is an error, Ctrl-C stops (130), module plugins as file plugins
    CliCase("list-plugin-exit-0", LIST, r"^error: plugin '.*p\.py' failed to import: SystemExit\(0\): a plugin must not end the process$", plugin(F.EXIT0_IMPORT)),
    CliCase("list-plugin-exit-3", LIST, r"plugin '.*p\.py' failed to import: SystemExit\(3\)", plugin(F.EXIT3_IMPORT)),
    CliCase("eval-plugin-exit-0", EVAL, r"plugin '.*p\.py' failed to import: SystemExit\(0\)", plugin(F.EXIT0_IMPORT)),
    CliCase("dry-run-plugin-exit-0", DRY, r"c\.yaml:4: plugins\[0\]: plugin '.*p\.py' failed to import: SystemExit\(0\)", plugin(F.EXIT0_IMPORT, loads("p.py"))),
    CliCase("list-plugin-ctrl-c", LIST, CTRL_C, plugin(F.KEYBOARD_IMPORT), code=130),
    CliCase("dry-run-plugin-ctrl-c", DRY, CTRL_C, plugin(F.KEYBOARD_IMPORT, loads("p.py")), code=130),
    CliCase("list-file-syntax-error", LIST, r"plugin '.*p\.py' failed to import: SyntaxError", plugin(F.SYNTAX_ERROR)),
    CliCase("list-module-raises", ("criteria", "list", "--plugin", "modraise"), r"^error: plugin module 'modraise' failed to import: RuntimeError: plugin setup failed$", module("modraise", F.RAISE_IMPORT)),
    CliCase("list-module-syntax-error", ("criteria", "list", "--plugin", "modsyntax"), r"^error: plugin module 'modsyntax' failed to import: SyntaxError", module("modsyntax", F.SYNTAX_ERROR)),
    CliCase("list-module-exit-0", ("criteria", "list", "--plugin", "modexit"), r"plugin module 'modexit' failed to import: SystemExit\(0\)", module("modexit", F.EXIT0_IMPORT)),
    CliCase("list-module-missing", ("criteria", "list", "--plugin", "no_such_plugin_xyz"), r"cannot import plugin module 'no_such_plugin_xyz': no module named 'no_such_plugin_xyz'; accepted: a \.py file"),
    CliCase("list-relative-not-a-file", ("criteria", "list", "--plugin", "./nothere"), r"^error: plugin '\./nothere' is neither a \.py file nor a module name \(not a \.py file\); accepted:"),
    CliCase("list-folder-plugin", ("criteria", "list", "--plugin", "sub"), r"plugin module 'sub' failed to import|cannot import plugin module 'sub'", {"sub/__init__.py": F.RAISE_IMPORT}),
    CliCase("config-module-raises", DRY, r"c\.yaml:4: plugins\[0\]: plugin module 'modraise' failed to import: RuntimeError", {**module("modraise", F.RAISE_IMPORT), "c.yaml": loads("modraise")}),
    CliCase("config-module-syntax-error", DRY, r"plugins\[0\]: plugin module 'modsyntax' failed to import: SyntaxError", {**module("modsyntax", F.SYNTAX_ERROR), "c.yaml": loads("modsyntax")}),
    CliCase("config-relative-not-a-file", DRY, r"plugins\[0\]: plugin '\.\./x' is neither a \.py file nor a module name", {"c.yaml": loads("../x")}),
    CliCase("config-path-without-py", DRY, r"plugins\[0\]: plugin 'sub/p' is neither a \.py file nor a module name", {"c.yaml": loads("sub/p"), "sub/p": F.GOOD_PLUGIN}),
    # an estimator factory that calls sys.exit: the run stops with one line, not "success"
    CliCase("dry-run-factory-exit", DRY, r"estimator 'est\.make_exit' failed: SystemExit: 0", {"est.py": F.ESTIMATORS, "c.yaml": F.estimator_config("est.make_exit")}),
    CliCase("run-factory-exit", RUN, r"estimator 'est\.make_exit' failed: SystemExit: 0", {"est.py": F.ESTIMATORS, "c.yaml": F.estimator_config("est.make_exit")}),
    # reproduce: options and store identity as run, nothing to reproduce is an error
    CliCase("reproduce-jobs-0", ("reproduce", "tsallis", "--jobs", "0"), r"^error: --jobs 0 is out of range; accepted: an integer >= 1"),
    CliCase("reproduce-jobs-negative", ("reproduce", "tsallis", "--jobs", "-3"), r"^error: --jobs -3 is out of range; accepted: an integer >= 1"),
    CliCase("reproduce-jobs-0-no-run", ("reproduce", "tsallis", "--no-run", "--jobs", "0"), r"--jobs 0 is out of range"),
    CliCase("reproduce-all-jobs-0", ("reproduce", "--all", "--jobs", "0"), r"--jobs 0 is out of range"),
    CliCase("reproduce-all-nothing-here", ("reproduce", "--all", "--no-run"), r"^error: nothing to reproduce: no paper's config is here \(configs/"),
    CliCase("reproduce-all-nothing-here-run", ("reproduce", "--all"), r"^error: nothing to reproduce"),
    # other seeds from the user: the range numpy accepts
    CliCase("demo-seed-negative", ("demo", "--seed", "-1", "--folds", "2"), r"^error: Invalid value for '--seed': -1 is not in the range 0<=x<=4294967295"),
    CliCase("demo-seed-2-40", ("demo", "--seed", str(2**40), "--folds", "2"), r"'--seed': 1099511627776 is not in the range"),
]


#: Cases that import no user code (no plugin, module or estimator of the case's own; nothing that
#: exits, hangs or stays in ``sys.modules``): run in this process through the real entry point, with
#: the same checks.  Every other case runs in a child process of its own.
IN_PROCESS = frozenset({
    "list-module-missing", "list-relative-not-a-file", "config-relative-not-a-file", "config-path-without-py",
    "reproduce-jobs-0", "reproduce-jobs-negative", "reproduce-jobs-0-no-run", "reproduce-all-jobs-0",
    "reproduce-all-nothing-here", "reproduce-all-nothing-here-run", "demo-seed-negative", "demo-seed-2-40",
})


def run_case(case: CliCase, folder: Path, capsys: pytest.CaptureFixture) -> None:
    """``case`` in this process if it is one of :data:`IN_PROCESS`, else in a child process."""
    if case.id in IN_PROCESS:
        run_cli_case(case, folder, capsys)
    else:
        run_cli_case_isolated(case, folder)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_one_clean_line(case: CliCase, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    run_case(case, tmp_path, capsys)
    assert not (tmp_path / "results" / "index.html").exists(), f"[silent] {case.id}: a page was written"


# --------------------------------------------------------------------------- failed trials
@dataclass(frozen=True)
class TrialCase:
    """``treebench run`` of ``files['c.yaml']``: every trial fails with ``message``, exit 1, no ok row."""

    id: str
    files: dict[str, Any]
    message: str
    args: tuple[str, ...] = RUN


def store_rows(folder: Path) -> list[dict[str, Any]]:
    stores = list((folder / "results").glob("*.sqlite"))
    if not stores:
        return []
    with sqlite3.connect(stores[0]) as conn:
        conn.row_factory = sqlite3.Row
        return [dict(row) for row in conn.execute("SELECT * FROM trials")]


def outside_domain(row: dict[str, Any]) -> str | None:
    """The first stored value outside its domain (this test's own reading of the store's invariants)."""
    for column in ("accuracy", "error", "train_accuracy"):
        value = row.get(column)
        if value is not None and not 0.0 <= value <= 1.0:  # NaN fails too
            return f"{column}={value}"
    for column in ("n_leaves", "n_nodes", "depth", "n_train", "n_test", "fit_seconds", "predict_seconds", "tune_seconds"):
        value = row.get(column)
        if value is not None and not value >= 0:
            return f"{column}={value}"
    return None


def run_trials(case_id: str, files: dict[str, Any], args: tuple[str, ...], folder: Path) -> tuple[int, str, list[dict]]:
    write_files(files, folder)
    code, out, err = run_isolated(["-c", "from treebench.cli import main; main()", *args], folder,
                                  isolated_env(), 300, case_id)
    assert "Traceback" not in err + out, f"[traceback] {case_id}: exit {code}:\n{(err + out)[-3000:]}"
    rows = store_rows(folder)
    outside = [(r["algorithm"], outside_domain(r)) for r in rows if outside_domain(r)]
    assert not outside, f"[silent] {case_id}: stored outside their domain: {outside}"
    return code, out + err, rows


def est(name: str) -> dict[str, str]:
    return {"est.py": F.ESTIMATORS, "c.yaml": F.estimator_config(f"est.{name}")}


def crit(text: str) -> dict[str, str]:
    return {"p.py": text, "c.yaml": F.criterion_config()}


def fast(text: str) -> dict[str, str]:
    return {"p.py": text, "c.yaml": F.criterion_config(criterion="broken_fast")}


JOBS2 = ("run", "c.yaml", "--jobs", "2", "--quiet")
EST = r"estimator 'est\.{}' \(algorithm 'est'\): "
TRIAL_CASES = [
    TrialCase("run-nan-node-value", crit(F.NAN_NODE), r"criterion 'broken': node_value returned nan for a node of 75 rows \(counts 25,25,25\)"),
    TrialCase("run-inf-node-value", crit(F.INF_NODE), r"node_value returned inf for a node of 75 rows"),
    TrialCase("run-nan-scores", crit(F.NAN_SCORES), r"split_scores returned nan for candidate 1 of \d+ of a node of 75 rows"),
    TrialCase("run-inf-score", crit(F.INF_SCORES), r"split_scores returned inf for candidate 1 of \d+ of a node of 75 rows"),
    TrialCase("run-one-score-too-few", crit(F.FEW_SCORES), r"split_scores returned shape \((\d+),\) for \d+ candidates of a node of 75 rows"),
    TrialCase("run-one-score-too-many", crit(F.MANY_SCORES), r"split_scores returned shape \(\d+,\) for \d+ candidates"),
    TrialCase("run-scalar-score", crit(F.SCALAR_SCORE), r"split_scores returned a scalar"),
    TrialCase("run-column-scores", crit(F.COLUMN_SCORES), r"split_scores returned shape \(\d+, 1\)"),
    TrialCase("run-bad-candidate-scores", crit(F.BAD_CANDIDATES), r"candidate_scores returned shape"),
    TrialCase("run-nan-tie-scores", crit(F.NAN_TIES), r"tie_scores returned nan for candidate 1"),
    TrialCase("run-exit-in-scores", crit(F.EXIT_IN_SCORES), r"SystemExit\(0\): user code \(a plugin or an estimator\) called sys\.exit"),
    TrialCase("run-nan-node-value-jobs-2", crit(F.NAN_NODE), r"node_value returned nan for a node of 75 rows", JOBS2),
    TrialCase("run-exit-in-scores-jobs-2", crit(F.EXIT_IN_SCORES), r"SystemExit\(0\)", JOBS2),
    TrialCase("compiled-nan-branch", fast(F.IMPURITY_NAN), r"criterion 'broken_fast': impurity returned nan for a candidate branch of \d+ rows"),
    TrialCase("compiled-inf-branch", fast(F.IMPURITY_INF), r"criterion 'broken_fast': impurity returned inf for a candidate branch of \d+ rows"),
    TrialCase("compiled-nan-root", fast(F.IMPURITY_ROOT_NAN), r"criterion 'broken_fast': impurity returned nan for a node of 75 rows"),
    TrialCase("estimator-one-label", est("OneLabel"), EST.format("OneLabel") + r"predict returned a single value for 75 rows; accepted: one label per row \(shape \(75,\)\)"),
    TrialCase("estimator-column", est("Column"), EST.format("Column") + r"predict returned shape \(75, 1\) for 75 rows"),
    TrialCase("estimator-unknown-label", est("Unknown"), EST.format("Unknown") + r"predict returned np\.int64\(99\), not a training class \(codes 0, 1, 2\)"),
    TrialCase("estimator-too-many", est("TooMany"), EST.format("TooMany") + r"predict returned shape \(76,\) for 75 rows"),
    TrialCase("estimator-words", est("Words"), EST.format("Words") + r"predict returned .*'setosa'.*, not a training class"),
    TrialCase("estimator-nan-labels", est("NaNs"), EST.format("NaNs") + r"predict returned .*nan.*, not a training class"),
    TrialCase("estimator-proba-sum", est("UnnormalisedProba"), EST.format("UnnormalisedProba") + r"predict_proba's row 1 sums to 0\.5; accepted: "),
    TrialCase("estimator-proba-negative", est("NegativeProba"), EST.format("NegativeProba") + r"predict_proba returned -0\.5 \(row \d+\); accepted: one row per test row"),
    TrialCase("estimator-exit-in-fit", est("ExitInFit"), r"SystemExit\(0\): user code \(a plugin or an estimator\) called sys\.exit"),
    TrialCase("estimator-exit-in-predict", est("ExitInPredict"), r"SystemExit\(0\)"),
    TrialCase("estimator-column-jobs-2", est("Column"), EST.format("Column") + r"predict returned shape \(75, 1\)", JOBS2),
    TrialCase("estimator-exit-in-fit-jobs-2", est("ExitInFit"), r"SystemExit\(0\)", JOBS2),
]


@pytest.mark.parametrize("case", TRIAL_CASES, ids=[c.id for c in TRIAL_CASES])
def test_trials_fail_with_their_reason(case: TrialCase, tmp_path: Path) -> None:
    code, text, rows = run_trials(case.id, case.files, case.args, tmp_path)
    ok = [r for r in rows if r["status"] == "ok"]
    assert not ok, f"[silent] {case.id}: {len(ok)} trials stored as ok (accuracy {[r['accuracy'] for r in ok]})"
    assert code == 1, f"[other] {case.id}: exit {code}, expected 1: {text[-1500:]!r}"
    failed = [line for line in text.splitlines() if line.strip().startswith("failed:")]
    assert failed, f"[other] {case.id}: no failed trial reported: {text[-1500:]!r}"
    import re

    assert all(re.search(case.message, line) for line in failed), f"[other] {case.id}: {failed[0]!r} !~ {case.message!r}"
    assert len(rows) == 2 and all(r["error_text"] for r in rows), f"[other] {case.id}: {rows}"


CONTROLS = [
    ("good-plugin", crit(F.GOOD_PLUGIN)),
    ("good-compiled-plugin", fast(F.IMPURITY_GOOD)),
    ("good-estimator-class", est("Good")),
    ("good-estimator-factory", est("make_good")),
    ("sklearn-random-forest", {"c.yaml": F.estimator_config("sklearn.ensemble.RandomForestClassifier")}),
]


@pytest.mark.parametrize("name,files", CONTROLS, ids=[c[0] for c in CONTROLS])
def test_valid_surfaces_still_run(name: str, files: dict[str, str], tmp_path: Path) -> None:
    code, text, rows = run_trials(name, files, RUN, tmp_path)
    assert code == 0, f"{name}: exit {code}: {text[-2000:]}"
    assert len(rows) == 2 and all(r["status"] == "ok" for r in rows), rows
    assert all(0.5 < r["accuracy"] <= 1 for r in rows), [r["accuracy"] for r in rows]


def test_eval_of_a_good_plugin(tmp_path: Path) -> None:
    write_files(plugin(F.GOOD_PLUGIN), tmp_path)
    code, out, err = run_isolated(["-c", "from treebench.cli import main; main()", *EVAL, "--json"], tmp_path,
                                  isolated_env(), 120, "eval-good")
    assert code == 0 and err.strip() == "", err
    import json

    result = json.loads(out)
    assert result["node_value"] == pytest.approx(1 - (5 / 8) ** 2 - (3 / 8) ** 2)
    assert len(result["split_score"]) == 2 and result["split_score"][0] == pytest.approx(result["node_value"])


# --------------------------------------------------------------------------- compare --test bayes
@pytest.fixture(scope="module")
def compare_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small finished store: iris and wine, two algorithms, 2-fold CV."""
    folder = tmp_path_factory.mktemp("compare")
    config = (
        "experiment: bounds\nseed: 0\ndatasets: [iris, wine]\nprotocol: {type: cv, folds: 2, repeats: 1}\n"
        "algorithms:\n  - {name: a, criterion: entropy, params: {max_depth: 1}}\n"
        "  - {name: b, criterion: gini, params: {max_depth: 3}}\n"
    )
    code, text, rows = run_trials("compare-store", {"c.yaml": config}, RUN, folder)
    assert code == 0 and len(rows) == 8, text
    return folder / "results" / "bounds.sqlite"


BAYES = ("compare", "store.sqlite", "--test", "bayes")
COMPARE_CASES = [
    CliCase("bayes-samples-1e12", (*BAYES, "--samples", "1000000000000"), r"^error: --samples 1000000000000 is out of range; accepted: an integer from 1 to 1,000,000 \(each draw"),
    CliCase("bayes-samples-above-cap", (*BAYES, "--samples", "1000001"), r"--samples 1000001 is out of range"),
    CliCase("bayes-samples-0", (*BAYES, "--samples", "0"), r"--samples 0 is out of range"),
    CliCase("bayes-samples-negative", (*BAYES, "--samples", "-5"), r"--samples -5 is out of range"),
    CliCase("bayes-seed-negative", (*BAYES, "--seed", "-1"), r"^error: --seed -1 is out of range; accepted: an integer from 0 to 4294967295"),
    CliCase("bayes-seed-2-40", (*BAYES, "--seed", str(2**40)), r"--seed 1099511627776 is out of range"),
    CliCase("bayes-seed-2-32", (*BAYES, "--seed", str(2**32)), r"--seed 4294967296 is out of range"),
]


@pytest.mark.parametrize("case", COMPARE_CASES, ids=[c.id for c in COMPARE_CASES])
def test_compare_bounds(case: CliCase, compare_store: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    shutil.copy(compare_store, tmp_path / "store.sqlite")
    run_cli_case(case, tmp_path, capsys)  # no user code: in this process


def test_bayes_within_bounds_runs(compare_store: Path, tmp_path: Path, capsys: pytest.CaptureFixture,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from treebench.cli import main

    shutil.copy(compare_store, tmp_path / "store.sqlite")
    monkeypatch.chdir(tmp_path)
    try:
        main([*BAYES, "--samples", "2000", "--seed", str(2**32 - 1)])
        code = 0
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    assert code in (0, None), out.err
    assert "2000 Monte Carlo draws, seed 4294967295" in out.out


# --------------------------------------------------------------------------- reproduce and store identity
def test_reproduce_refuses_a_store_of_another_experiment(tmp_path: Path) -> None:
    """configs/tsallis.yaml as in the repository, its store holding another experiment: refused as by run."""
    (tmp_path / "configs").mkdir()
    shutil.copy(REPO / "configs" / "tsallis.yaml", tmp_path / "configs" / "tsallis.yaml")
    code, out, err = run_isolated(
        ["-c", "from treebench.experiment.config import load_config; print(load_config('configs/tsallis.yaml').store)"],
        tmp_path, isolated_env(), 120, "store-path")
    assert code == 0, err
    store = out.strip().splitlines()[-1]
    other = F.run_config("{name: x, criterion: entropy, params: {max_depth: 1}}")
    (tmp_path / "other.yaml").write_text(other)
    code, _, err = run_isolated(["-c", "from treebench.cli import main; main()", "run", "other.yaml", "--store", store,
                                 "--jobs", "1", "-q"], tmp_path, isolated_env(), 300, "foreign-store")
    assert code == 0, err
    for args in (("tsallis", "--no-run"), ("tsallis", "--no-run", "--jobs", "1"), ("--all", "--no-run")):
        case = CliCase(
            "reproduce-foreign-store" + "".join(args), ("reproduce", *args),
            r"^error: results store '.*' holds experiment 'hostile', not '.*': a store belongs to one experiment",
            files={}, unchanged=(store,),
        )
        run_cli_case_isolated(case, tmp_path)
    assert not (tmp_path / "results" / "tsallis").exists(), "[silent] a report was written from another experiment"


# --------------------------------------------------------------------------- OpenML that never answers
@pytest.fixture(scope="module")
def silent_server() -> str:
    """A server that accepts every connection and never answers: its OpenML API URL."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            held.append(connection)  # kept open, never answered

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/api/v1/xml"
    server.close()
    for connection in held:
        connection.close()


TIMED_OUT = r"could not reach http://127\.0\.0\.1:\d+/api/v1/xml/{} \(timed out\); check the network, or set TREEBENCH_OFFLINE=1"
NETWORK_CASES = [
    CliCase("openml-add-dataset", ("datasets", "add", "openml:61", "--name", "y"), r"^error: OpenML dataset 61: " + TIMED_OUT.format("data/61")),
    CliCase("openml-fetch-task", ("datasets", "fetch", "openml-task:5"), r"^error: OpenML task 5: " + TIMED_OUT.format("task/5")),
    CliCase("openml-fetch-suite", ("datasets", "fetch", "openml-suite:99"), r"^error: OpenML suite 99: " + TIMED_OUT.format("study/99")),
    CliCase("openml-config-task", DRY, r"datasets\[0\]: OpenML task 59: " + TIMED_OUT.format("task/59"), {"c.yaml": F.RUN_CONFIG.format(plugins="", algorithm="{name: e, criterion: entropy}").replace("datasets: [iris]\n", "datasets: [openml-task:59]\n").replace("protocol: {type: cv, folds: 2, repeats: 1}\n", "")}),
]


@pytest.mark.parametrize("case", NETWORK_CASES, ids=[c.id for c in NETWORK_CASES])
def test_openml_bounded_by_timeout(case: CliCase, silent_server: str, tmp_path: Path) -> None:
    env = {"TREEBENCH_OPENML_SERVER": silent_server, "TREEBENCH_TIMEOUT": "0.5", "TREEBENCH_OFFLINE": None,
           "TREEBENCH_CACHE": str(tmp_path / "cache")}
    run_cli_case_isolated(case, tmp_path, env=env, timeout=60)


def test_cases_are_many_and_distinct() -> None:
    ids = [c.id for c in CASES + COMPARE_CASES + NETWORK_CASES] + [c.id for c in TRIAL_CASES]
    assert len(ids) == len(set(ids)) and len(ids) >= 60
    assert IN_PROCESS <= {c.id for c in CASES}

