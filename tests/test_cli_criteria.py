"""``treebench criteria`` and ``treebench demo`` from the command line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from treebench.cli import cli
from treebench.errors import TreebenchError


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """The installed entry point in a real process (exit code, no traceback)."""
    code = "from treebench.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120
    )


def test_possibilistic_example_2_from_the_command_line():
    result = run_cli("criteria", "eval", "possibilistic", "--counts", "5,2,3", "--param", "gamma=0.05")
    assert result.returncode == 0, result.stderr
    assert "node value:  0.81" in result.stdout


def test_eval_with_children_and_json():
    runner = CliRunner()
    result = runner.invoke(cli, ["criteria", "eval", "gain_ratio", "--counts", "4,4", "--children", "4,2;0,2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["split_score"][0] == pytest.approx(0.3837, abs=1e-4)
    assert data["candidate_score"][0] == pytest.approx(0.3113, abs=1e-4)
    result = runner.invoke(cli, ["criteria", "eval", "certainty", "--counts", "7,3", "--children", "5,0;2,3"])
    assert "raises certainty (I(C|A) > I(C)): yes" in result.output


def test_list_shows_every_criterion_with_ranges():
    result = CliRunner().invoke(cli, ["criteria", "list"])
    assert result.exit_code == 0
    for name in ("entropy", "gain_ratio", "gini", "tsallis", "tsallis_gain_ratio", "certainty", "possibilistic"):
        assert name in result.output
    assert "0 < gamma < 1" in result.output and "q > 0" in result.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["criteria", "eval", "nope", "--counts", "1,2"], "unknown criterion 'nope'"),
        (["criteria", "eval", "tsallis", "--counts", "1,2", "--param", "q=0"], "accepted: q > 0"),
        (["criteria", "eval", "tsallis", "--counts", "1,2", "--param", "q"], "is not NAME=VALUE"),
        (["criteria", "eval", "gini", "--counts", "1,x"], "is not a comma-separated list"),
        (["criteria", "eval", "gini", "--counts", "1,-2"], "holds '-2', not a count; accepted: whole numbers >= 0"),
        (["criteria", "eval", "gini", "--counts", "2,2", "--children", "1,1,1;1,1,1"], "has 3 counts"),
        (["criteria", "eval", "gini", "--counts", "2,2", "--children", "1,0;0,1"], "sum to [1.0, 1.0]"),
        (["criteria", "eval", "gini"], "Missing option '--counts'"),
        (["nonsense"], "No such command"),
    ],
)
def test_bad_input_is_one_line_without_traceback(args, message):
    result = run_cli(*args)
    assert result.returncode != 0
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_counts_are_whole_numbers_and_a_node_is_not_empty():
    from treebench.criteria.cli import parse_children, parse_counts

    assert parse_counts(" 5, 0,1e1 ", "--counts").tolist() == [5.0, 0.0, 10.0]
    assert parse_children("2,0;0,0", 2).tolist() == [[[2.0, 0.0], [0.0, 0.0]]]  # an empty branch is fine
    for text in ("0,0,0", "0", "1.5,2", "1,-1", "", "1,,2", "nan,1", "inf", "1e999"):
        with pytest.raises(TreebenchError) as info:
            parse_counts(text, "--counts")
        assert "\n" not in str(info.value) and "accepted: whole numbers >= 0" in str(info.value), text


def test_demo_runs_offline():
    result = CliRunner().invoke(cli, ["demo", "--folds", "3"])
    assert result.exit_code == 0, result.output
    assert "possibilistic" in result.output and "iris" in result.output and "±" in result.output
