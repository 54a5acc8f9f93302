"""Config schema: valid configs parse to frozen specs; every bad one names file, line and accepted values."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from treebench.cli import cli
from treebench.errors import TreebenchError
from treebench.experiment.config import (
    PAIR_PROTOCOL,
    ConfigError,
    ProtocolSpec,
    load_config,
    parse_config,
)

FIXTURES = Path(__file__).parent / "fixtures" / "configs"
REPO = Path(__file__).resolve().parents[1]

GOOD = """\
experiment: demo
seed: 3
datasets: [iris, wine]
protocol: {type: cv, folds: 5, repeats: 2}
algorithms:
  - name: PiTree
    criterion: possibilistic
    params: {min_samples_leaf: 2}
    grid: {gamma: [1e-3, 0.1]}
  - name: CART
    baseline: sklearn-cart
    params: {criterion: gini}
"""


def write(tmp_path: Path, text: str, name: str = "c.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def problems_of(tmp_path: Path, text: str) -> str:
    path = write(tmp_path, text)
    with pytest.raises(TreebenchError) as info:
        load_config(path)
    return str(info.value)


def test_a_valid_config_becomes_frozen_specs(tmp_path):
    config = load_config(write(tmp_path, GOOD))
    assert config.experiment == "demo" and config.seed == 3
    assert [d.label for d in config.datasets] == ["iris", "wine"]
    assert config.datasets[0].protocol == ProtocolSpec("cv", folds=5, repeats=2)
    pi, cart = config.algorithms
    assert pi.criterion == "possibilistic" and pi.fixed_params == {"min_samples_leaf": 2}
    # YAML 1.1 would read 1e-3 as text; the loader reads it as a float
    assert pi.grid == (("gamma", (0.001, 0.1)),)
    assert cart.baseline == "sklearn-cart" and cart.grid_points() == [{}]
    assert config.store == "results/demo.sqlite"
    assert config.tuning.folds == 5 and config.metrics == ("accuracy", "n_leaves")
    with pytest.raises(AttributeError):
        config.seed = 4  # frozen


def test_grid_points_vary_the_last_parameter_fastest(tmp_path):
    config = load_config(
        write(
            tmp_path,
            GOOD.replace("grid: {gamma: [1e-3, 0.1]}", "grid: {gamma: [0.1, 0.2], min_gain: [0.0, 0.5]}"),
        )
    )
    assert config.algorithms[0].grid_points() == [
        {"gamma": 0.1, "min_gain": 0.0},
        {"gamma": 0.1, "min_gain": 0.5},
        {"gamma": 0.2, "min_gain": 0.0},
        {"gamma": 0.2, "min_gain": 0.5},
    ]


def test_shipped_configs_are_valid():
    yeast = load_config(REPO / "configs" / "yeast.yaml")
    assert [a.name for a in yeast.algorithms] == ["PiTree", "LogTree"]
    assert len(yeast.algorithms[0].grid_points()) == 10
    assert yeast.datasets[0].protocol.folds == 10
    quick = load_config(REPO / "configs" / "quickstart.yaml")
    assert {d.name for d in quick.datasets} == {"iris", "wine", "wdbc", "digits"}


def test_pruning_and_its_parameters(tmp_path):
    text = GOOD.replace("min_samples_leaf: 2", "subtree_raising: true").replace(
        "    grid: {gamma: [1e-3, 0.1]}", "    grid: {confidence: [0.1, 0.25]}\n    pruning: pessimistic"
    )
    pi = load_config(write(tmp_path, text)).algorithms[0]
    assert pi.pruning == "pessimistic" and pi.grid == (("confidence", (0.1, 0.25)),)
    assert pi.fixed_params == {"subtree_raising": True}
    assert load_config(write(tmp_path, GOOD)).algorithms[0].pruning is None


def test_pairs_aliases_and_per_dataset_protocols(tmp_path):
    config = load_config(
        write(
            tmp_path,
            """\
            experiment: mixed
            datasets:
              - breast-cancer
              - {name: monks-1, train: monks-1-train, test: monks-1-test}
              - {name: shuttle, protocol: {type: fixed, column: split}}
              - {name: yeast, protocol: loo}
            protocol: {type: holdout, test_size: 0.3}
            algorithms: [{name: a, criterion: gini}]
            """,
        )
    )
    alias, pair, shuttle, yeast = config.datasets
    assert alias.label == "breast-cancer" and alias.name == "wdbc"  # splits are seeded by the card
    assert alias.protocol == ProtocolSpec("holdout", test_size=0.3, repeats=10)
    assert pair.is_pair and pair.protocol == PAIR_PROTOCOL and pair.seed_name == "monks-1-train+monks-1-test"
    assert shuttle.protocol.label == "fixed:split"
    assert yeast.protocol.kind == "loo" and yeast.expected_rows == 1484


# One case per kind of mistake: (config text, fragments the message must contain).
BAD = {
    "unknown top-level key": (
        GOOD + "seeds: 4\n",
        ["c.yaml:13:", "unknown key 'seeds' (did you mean seed?)", "accepted: experiment, description, seed"],
    ),
    "unknown criterion": (
        GOOD.replace("criterion: possibilistic", "criterion: posibilistic"),
        ["c.yaml:7:", "algorithms[0].criterion", "unknown criterion 'posibilistic'", "did you mean possibilistic",
         "accepted: ", "certainty, entropy"],
    ),
    "parameter out of range": (
        GOOD.replace("[1e-3, 0.1]", "[1e-3, 1.5]"),
        ["c.yaml:9:", "algorithms[0].grid.gamma[1]", "gamma=1.5 is out of range", "accepted: 0 < gamma < 1"],
    ),
    "unknown criterion parameter": (
        GOOD.replace("min_samples_leaf: 2", "min_leaf: 2"),
        ["c.yaml:8:", "has no parameter 'min_leaf'", "did you mean min_samples_leaf", "0 < gamma < 1",
         "max_depth (null or an integer >= 0)"],
    ),
    "bad tree parameter value": (
        GOOD.replace("min_samples_leaf: 2", "min_samples_leaf: 0"),
        ["c.yaml:8:", "min_samples_leaf=0 is invalid; accepted: an integer >= 1"],
    ),
    "unknown dataset": (
        GOOD.replace("[iris, wine]", "[iris, yaest]"),
        ["c.yaml:3:", "datasets[1]", "unknown dataset 'yaest'", "did you mean: yeast"],
    ),
    "unknown protocol type": (
        GOOD.replace("type: cv", "type: kfold"),
        ["c.yaml:4:", "protocol.type", "unknown protocol type 'kfold'", "accepted: cv, holdout, loo, ordered, fixed"],
    ),
    "key not accepted by this protocol": (
        GOOD.replace("repeats: 2", "test_size: 0.3"),
        ["c.yaml:4:", "protocol.test_size", "unknown key 'test_size'", "accepted: type, folds, repeats, stratified"],
    ),
    "too few folds": (
        GOOD.replace("folds: 5", "folds: 1"),
        ["c.yaml:4:", "protocol.folds", "1 is out of range; accepted: an integer from 2 to 1000"],
    ),
    "unknown baseline": (
        GOOD.replace("baseline: sklearn-cart", "baseline: sklearn-c4.5"),
        ["c.yaml:11:", "unknown baseline 'sklearn-c4.5'", "accepted: c4.5, c50, sklearn, sklearn-cart, sklearn-cart-ccp, weka-j48"],
    ),
    "bad c50 parameter": (
        GOOD.replace("baseline: sklearn-cart", "baseline: c50").replace("criterion: gini}", "CF: 0}"),
        ["c.yaml:12:", "c50: CF=0 is invalid; accepted: a number 0 < CF <= 100"],
    ),
    "bad baseline parameter value": (
        GOOD.replace("criterion: gini}", "criterion: ginny}"),
        ["c.yaml:12:", "algorithms[1].params.criterion", "'criterion' parameter of DecisionTreeClassifier",
         "'gini'", "'ginny'"],
    ),
    "pruning a baseline": (
        GOOD + "    pruning: pessimistic\n",
        ["c.yaml:13:", "baseline 'sklearn-cart' prunes through its own params (sklearn-cart: ccp_alpha)"],
    ),
    "pruning parameter without its pruning": (
        GOOD.replace("min_samples_leaf: 2", "confidence: 0.25"),
        ["c.yaml:8:", "'confidence' applies to pruning: pessimistic only; this algorithm has pruning: none"],
    ),
    "pruning parameter out of range": (
        GOOD.replace("min_samples_leaf: 2", "confidence: 0.9").replace("    grid:", "    pruning: pessimistic\n    grid:"),
        ["c.yaml:8:", "confidence=0.9 is out of range; accepted: 0 < confidence <= 0.5"],
    ),
    "unknown pruning": (
        GOOD + "    pruning: reduced-error\n",
        ["c.yaml:13:", "unknown pruning 'reduced-error'", "accepted: none, pessimistic, cost-complexity"],
    ),
    "both criterion and baseline": (
        GOOD.replace("baseline: sklearn-cart", "baseline: sklearn-cart\n    criterion: gini"),
        ["c.yaml:10:", "give exactly one of 'criterion'", "or 'baseline' (accepted: c4.5, c50, sklearn, sklearn-cart, sklearn-cart-ccp, weka-j48)"],
    ),
    "duplicate algorithm name": (
        GOOD.replace("name: CART", "name: PiTree"),
        ["c.yaml:10:", "algorithm name 'PiTree' is used twice"],
    ),
    "param both fixed and in grid": (
        GOOD.replace("min_samples_leaf: 2", "gamma: 0.2"),
        ["c.yaml:9:", "'gamma' is both a fixed param and a grid param"],
    ),
    "empty grid": (
        GOOD.replace("[1e-3, 0.1]", "[]"),
        ["c.yaml:9:", "expected a non-empty list of values"],
    ),
    "seed of the wrong type": (
        GOOD.replace("seed: 3", "seed: three"),
        ["c.yaml:2:", "seed: expected an integer from 0 to 4294967295; got 'three'"],
    ),
    "unknown metric": (
        GOOD + "metrics: [accuracy, auc]\n",
        ["c.yaml:13:", "metrics[1]", "unknown metric 'auc'", "accepted: accuracy, error, train_accuracy"],
    ),
    "missing required keys": (
        "seed: 1\nprotocol: loo\n",
        ["(top level): missing required key 'experiment'", "missing required key 'datasets'",
         "missing required key 'algorithms'"],
    ),
    "fixed protocol on a dataset without the column": (
        GOOD.replace("{type: cv, folds: 5, repeats: 2}", "{type: fixed, column: split}"),
        ["c.yaml:3:", "fixed protocol column 'split' is not a column of dataset 'iris'", "{train: A, test: B}"],
    ),
    "key given twice": (
        GOOD.replace("seed: 3", "seed: 3\nseed: 4"),
        ["c.yaml:3:", "seed: key given twice"],
    ),
    "bad experiment name": (
        GOOD.replace("experiment: demo", "experiment: my demo/1"),
        ["c.yaml:1:", "'my demo/1' is not a valid name"],
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_each_kind_of_mistake_is_reported_with_line_and_accepted_values(tmp_path, case):
    text, fragments = BAD[case]
    message = problems_of(tmp_path, text)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"


def test_every_problem_is_reported_at_once_sorted_by_line(tmp_path):
    text = (
        GOOD.replace("seed: 3", "seed: -1")
        .replace("[iris, wine]", "[iris, nope]")
        .replace("criterion: possibilistic", "criterion: nope")
    )
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    problems = info.value.problems
    assert len(problems) == 3
    lines = [int(p.split(":")[1]) for p in problems]
    assert lines == sorted(lines) == [2, 3, 7]
    assert str(info.value).startswith(f"3 problems in {path}:\n  {path}:2: seed: -1 is out of range")


def test_yaml_syntax_and_missing_file_are_one_line_errors(tmp_path):
    message = problems_of(tmp_path, "experiment: x\ndatasets: [iris\n")
    assert message.startswith(f"{tmp_path / 'c.yaml'}:") and "YAML syntax error" in message
    assert "\n" not in message
    with pytest.raises(TreebenchError, match="config file '.*nothere.yaml' not found"):
        load_config(tmp_path / "nothere.yaml")


def test_plugin_criteria_are_validated_and_bad_plugins_reported(tmp_path):
    config = load_config(FIXTURES / "failing.yaml")
    assert config.plugins == (str((FIXTURES / "exploding.py").resolve()),)
    assert [a.criterion for a in config.algorithms] == ["gini", "exploding", "exploding"]
    message = problems_of(tmp_path, GOOD + "plugins: [missing.py, no_such_module_xyz]\n")
    assert "plugins[0]: plugin file" in message and "not found" in message
    assert "plugins[1]: cannot import plugin module 'no_such_module_xyz'" in message


def test_parse_config_without_a_file():
    config = parse_config(GOOD, "inline")
    assert config.path == "inline" and config.text == GOOD


def test_cli_reports_config_errors_in_one_block_with_exit_2(tmp_path):
    path = write(tmp_path, GOOD.replace("[iris, wine]", "[iris, yaest]"))
    result = CliRunner().invoke(cli, ["run", str(path), "--dry-run"])
    assert result.exit_code != 0
    assert isinstance(result.exception, TreebenchError)
    assert "unknown dataset 'yaest'" in str(result.exception)


def test_dry_run_prints_trials_per_dataset_and_algorithm(tmp_path):
    path = write(tmp_path, GOOD + "tuning: {folds: 4}\n")
    result = CliRunner().invoke(cli, ["run", str(path), "--dry-run", "--store", str(tmp_path / "s.sqlite")])
    assert result.exit_code == 0, result.output
    rows = {tuple(line.split()[:3]): line.split()[3:] for line in result.output.splitlines()[3:7]}
    # 5 folds x 2 repeats; PiTree tunes 2 values by 4-fold inner CV: 1 + 2 * 4 fits per trial
    assert rows[("iris", "cv5x2", "PiTree")] == ["10", "2", "90"]
    assert rows[("wine", "cv5x2", "CART")] == ["10", "1", "10"]
    assert "total: 40 trials, 200 tree fits" in result.output
    assert not (tmp_path / "s.sqlite").exists()


def test_planned_trials_counts_what_the_runner_plans(tmp_path):
    from treebench.experiment.config import check_trial_count, planned_trials
    from treebench.experiment.runner import plan

    config = load_config(
        write(
            tmp_path,
            """\
            experiment: count
            datasets:
              - iris                                      # cv 3 x 2: 6 splits
              - {name: wine, protocol: {type: holdout, repeats: 4}}
              - {name: glass, protocol: loo}              # one split per row: 214
              - {name: monks-1, train: monks-1-train, test: monks-1-test}
            protocol: {type: cv, folds: 3, repeats: 2}
            algorithms: [{name: a, criterion: gini}, {name: b, criterion: entropy}]
            """,
        )
    )
    assert planned_trials(config) == (6 + 4 + 214 + 1) * 2 == len(plan(config))
    assert check_trial_count(config, 450) == 450
    with pytest.raises(TreebenchError, match=r"plans 450 trials .*more than 449; accepted: at most 449"):
        check_trial_count(config, 449)


def test_anchors_aliases_and_merge_keys_still_work_in_a_config(tmp_path):
    config = load_config(
        write(
            tmp_path,
            """\
            experiment: shared
            datasets: [iris]
            protocol: {type: cv, folds: 2}
            algorithms:
              - {name: a, criterion: gini, params: &tree {min_samples_leaf: 2, max_depth: 3}}
              - {name: b, criterion: entropy, params: {<<: *tree, max_depth: 5}}
              - {name: c, criterion: entropy, params: *tree}
            """,
        )
    )
    a, b, c = config.algorithms
    assert a.fixed_params == c.fixed_params == {"min_samples_leaf": 2, "max_depth": 3}
    assert b.fixed_params == {"min_samples_leaf": 2, "max_depth": 5}


def test_limits_are_inclusive(tmp_path):
    text = GOOD.replace("seed: 3", "seed: 4294967295").replace("folds: 5, repeats: 2", "folds: 5, repeats: 10000")
    config = load_config(write(tmp_path, text + "tuning: {folds: 1000}\n"))
    assert config.seed == 2**32 - 1 and config.datasets[0].protocol.repeats == 10000
    assert config.tuning.folds == 1000


def test_dry_run_counts_the_trees_a_self_tuning_baseline_grows(tmp_path):
    """CART with cost-complexity α by 4-fold inner CV grows 1 + 4 trees per fit (the full tree, pruned, is the model); J48 tuning C over
    3 values by 5-fold CV inside Weka grows 3 * 5 + 1; an estimator that cross-validates inside fit is marked unknown."""
    text = (
        "experiment: selftuned\nseed: 1\ndatasets: [iris]\nprotocol: {type: cv, folds: 5, repeats: 1}\n"
        "algorithms:\n"
        "  - {name: cart, baseline: sklearn-cart-ccp, params: {inner_folds: 4}}\n"
        "  - {name: j48, baseline: weka-j48, params: {tune_C: [0.1, 0.5, 3], tune_folds: 5}}\n"
        "  - {name: search, baseline: sklearn, estimator: sklearn.linear_model.LogisticRegressionCV}\n"
    )
    path = tmp_path / "c.yaml"
    path.write_text(text)
    result = CliRunner().invoke(cli, ["run", str(path), "--dry-run", "--store", str(tmp_path / "s.sqlite")])
    assert result.exit_code == 0, result.output
    rows = {line.split()[2]: line.split()[3:] for line in result.output.splitlines() if line.startswith("iris ")}
    assert rows["cart"] == ["5", "1", str(5 * 5)]
    assert rows["j48"] == ["5", "1", str(5 * 16)]
    assert rows["search"] == ["5", "1", "5+"]
    assert "search: fits its own search or cross-validation" in result.output
