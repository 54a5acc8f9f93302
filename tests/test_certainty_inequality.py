"""The certainty-raising inequality report (paper 003) and ``treebench certainty``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from treebench.cli import cli
from treebench.criteria.inequality import best_threshold, inequality_report

# 6 "yes", 2 "no": p(C) = (3/4, 1/4) over (no, yes) sorted as (1/4, 3/4); I(C) = 0.25 + 0.25 = 0.5.
Y = np.array(["yes"] * 6 + ["no"] * 2)
X = pd.DataFrame({
    "key": pd.Categorical(["a"] * 6 + ["b"] * 2),  # determines the class
    "noise": pd.Categorical(["u", "u", "u", "v", "v", "v", "u", "v"]),  # 3 yes + 1 no in each value
    "x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 10.0, 11.0],  # yes below 6, no from 10
})


def test_determining_attribute_raises_certainty_and_independent_one_does_not():
    report = inequality_report(X, Y)
    assert report.class_certainty == pytest.approx(0.5)
    ranked = report.attributes.set_index("attribute")
    assert ranked.loc["key", "I(C|A)"] == pytest.approx(1.0)  # pure children: two classes -> 1
    assert ranked.loc["x", "I(C|A)"] == pytest.approx(1.0)
    assert ranked.loc["x", "threshold"] == pytest.approx(8.0)  # midpoint of 6 and 10
    assert ranked.loc["noise", "I(C|A)"] == pytest.approx(0.5)  # same distribution as the class
    assert ranked["raises"].to_dict() == {"key": True, "noise": False, "x": True}
    assert report.attributes["attribute"].iloc[-1] == "noise" and report.attributes["rank"].tolist() == [1, 2, 3]


def test_causal_certainty_per_value_by_hand():
    values = inequality_report(X, Y).values.set_index(["attribute", "value", "class"])
    # key=b, class no: p(no|b)/I(C|A) = 1/1 = 1 > p(no)/I(C) = 0.25/0.5 = 0.5
    row = values.loc[("key", "b", "no")]
    assert (row["p(c|a)/I(C|A)"], row["p(c)/I(C)"], row["causes"]) == (pytest.approx(1.0), pytest.approx(0.5), True)
    # key=a, class yes: 1/1 = 1 is not > 0.75/0.5 = 1.5 (the formula as printed)
    row = values.loc[("key", "a", "yes")]
    assert (row["p(c|a)/I(C|A)"], row["p(c)/I(C)"], row["causes"]) == (pytest.approx(1.0), pytest.approx(1.5), False)
    # noise=u, class no: (1/4) / 0.5 = 0.5, not above 0.5
    assert not values.loc[("noise", "u", "no"), "causes"]
    assert values.loc[("x", "> 8", "no"), "n"] == 2


def test_uniform_classes_have_no_causal_values_and_thresholds_need_two_values():
    report = inequality_report(pd.DataFrame({"k": pd.Categorical(["a", "b"])}), np.array([0, 1]))
    assert report.class_certainty == 0.0 and bool(report.attributes["raises"].iloc[0])
    assert not report.values["causes"].any()  # p(c)/I(C) is infinite
    assert best_threshold(np.array([1.0, 1.0, np.nan]), np.array([0, 1, 0]), 2) is None


def test_certainty_command_table_plot_and_bad_attribute(tmp_path):
    runner = CliRunner()
    result = runner.invoke(cli, ["certainty", "monks-1", "--format", "csv", "--table", "attributes"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "rank,attribute,kind,I(C|A),I(C|A)-I(C),raises,threshold"
    assert lines[1].startswith("1,a5,nominal,0.5,0.5,True")  # a5 = 1 implies class 1
    result = runner.invoke(cli, ["certainty", "monks-1", "--attribute", "a5", "--plot", str(tmp_path / "bars.png")])
    assert result.exit_code == 0, result.output
    assert "| a5 | 1 | 1 | 108 |" in result.output and (tmp_path / "bars.png").is_file()
    result = runner.invoke(cli, ["certainty", "monks-1", "--attribute", "a9"])
    assert result.exit_code != 0
    assert "dataset 'monks-1' has no attribute 'a9'; accepted: a1, a2, a3, a4, a5, a6" in str(result.exception)


def test_report_section_counts_filter_and_claim_against_c50():
    from treebench.papers.certainty.error_counts import certainty_section, passes_filter

    assert passes_filter(25, 100) and not passes_filter(26, 100)  # 75 correct = 3 x 25
    rows = []
    for dataset, (mine, theirs) in {"d1": ((0, 5), (3, 8)), "d2": ((0, 9), (1, 8))}.items():
        for algorithm, (train_errors, test_errors) in (("certainty", mine), ("c50", theirs)):
            rows.append({"dataset": dataset, "algorithm": algorithm, "status": "ok", "n_train": 80,
                         "n_test": 20, "train_accuracy": 1 - train_errors / 80, "error": test_errors / 20,
                         "n_leaves": 4, "n_nodes": 7})
    section = certainty_section(pd.DataFrame(rows))
    text = "\n".join(section.markdown)
    assert "| d1 | kept | 0 / 5 (4) | 3 / 8 (4) |" in text  # 15 correct >= 3 x 5
    assert "| d2 | dropped | 0 / 9 (4) | 1 / 8 (4) |" in text
    assert "than real C5.0 (`c50`) on 1 of 2 datasets: d1." in text
    assert "Not rerun: Crime (San Francisco)" in text
