"""The comparison table: its content, and md/LaTeX renderings against golden files.

Regenerate the golden files after an intended change with
``TREEBENCH_UPDATE_GOLDEN=1 pytest tests/test_report_table.py`` and review the diff.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from treebench.errors import TreebenchError
from treebench.report.formats import render, tex_escape
from treebench.report.table import build_table
from treebench.stats.paired import corrected_ttest, paired_ttest

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    # 3 datasets x 3 algorithms x 2 repeats x 5 folds, plus one failed trial.
    return pd.read_csv(GOLDEN / "small_frame.csv")


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("TREEBENCH_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing golden file {path}; run with TREEBENCH_UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8")


def test_cells_marks_and_counts(frame):
    t = build_table(frame, test="corrected-ttest", baseline="logtree")
    assert t.datasets == ["iris", "wine_2", "glass"] and t.algorithms == ["logtree", "pi_tree", "j48"]
    ok = frame[frame["status"] == "ok"]
    iris_pi = ok[(ok.dataset == "iris") & (ok.algorithm == "pi_tree")].sort_values(["repeat", "fold"])
    iris_log = ok[(ok.dataset == "iris") & (ok.algorithm == "logtree")].sort_values(["repeat", "fold"])
    cell = t.cells[("iris", "pi_tree")]
    assert cell.mean == pytest.approx(100 * iris_pi.accuracy.mean())
    assert cell.std == pytest.approx(100 * iris_pi.accuracy.std(ddof=1))
    assert cell.n == 10
    # ratio from the protocol label cv5x2: 1/4
    assert t.ratios["iris"] == pytest.approx(0.25)
    expected = corrected_ttest(iris_pi.accuracy.to_numpy(), iris_log.accuracy.to_numpy(), 0.25)
    assert cell.p_value == pytest.approx(expected.p_value)
    assert t.cells[("iris", "logtree")].mark is None  # the baseline has no mark
    assert sum(t.wtl["pi_tree"]) == 3
    assert all(c.best == (a == "pi_tree") for (d, a), c in t.cells.items())
    assert "1 failed trial(s) excluded." in t.notes


def test_lower_is_better_metrics_bold_the_minimum(frame):
    t = build_table(frame, metric="n_leaves", test="ttest")
    for ds in t.datasets:
        best = min(t.cells[(ds, a)].mean for a in t.algorithms)
        assert all(t.cells[(ds, a)].best == (round(t.cells[(ds, a)].mean, 1) == round(best, 1)) for a in t.algorithms)
    # fewer leaves is better, so the small pi_tree trees are marked v against logtree
    assert all(t.cells[(ds, "pi_tree")].mark == "v" for ds in t.datasets)


def test_paper_000_underline_rule(frame):
    t = build_table(frame, test="ttest", underline_against=["logtree", "j48"])
    ok = frame[frame["status"] == "ok"]
    for ds in t.datasets:
        def acc(a, ds=ds):
            return ok[(ok.dataset == ds) & (ok.algorithm == a)].sort_values(["repeat", "fold"]).accuracy.to_numpy()
        beats_all = all(
            paired_ttest(acc("pi_tree"), acc(o)).p_value <= 0.05 and acc("pi_tree").mean() > acc(o).mean()
            for o in ("logtree", "j48")
        )
        assert t.cells[(ds, "pi_tree")].underline == beats_all
        assert not t.cells[(ds, "logtree")].underline  # opponents are never underlined


def test_user_errors_are_one_line(frame):
    with pytest.raises(TreebenchError, match="unknown baseline algorithm 'cart'; accepted: j48, logtree, pi_tree"):
        build_table(frame, baseline="cart")
    with pytest.raises(TreebenchError, match="unknown test"):
        build_table(frame, test="anova")
    with pytest.raises(TreebenchError, match="alpha"):
        build_table(frame, alpha=1.5)
    with pytest.raises(TreebenchError, match="lacks column"):
        build_table(frame.drop(columns=["accuracy"]))
    with pytest.raises(TreebenchError, match="unknown dataset"):
        build_table(frame, datasets=["zoo"])


def test_markdown_golden_wilcoxon(frame):
    t = build_table(frame, test="wilcoxon", paired_test="ttest", underline_against=["logtree", "j48"])
    check_golden("compare_wilcoxon.md", render(t, "md"))


def test_markdown_golden_kruskal(frame):
    check_golden("compare_kruskal.md", render(build_table(frame, metric="error", test="kruskal"), "md"))


def test_latex_golden_friedman(frame):
    t = build_table(frame, test="friedman", underline_against=["logtree", "j48"])
    check_golden("compare_friedman.tex", render(t, "latex"))


def test_latex_escapes_names():
    assert tex_escape("wine_2 & 100% {x}") == r"wine\_2 \& 100\% \{x\}"
    assert tex_escape("a ± b") == r"a $\pm$ b"


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not installed")
@pytest.mark.parametrize("test", ["wilcoxon", "friedman", "kruskal"])
def test_latex_compiles(frame, tmp_path, test):
    t = build_table(frame, test=test, underline_against=["logtree", "j48"])
    (tmp_path / "t.tex").write_text(render(t, "latex", standalone=True), encoding="utf-8")
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert (tmp_path / "t.pdf").exists()


def test_csv_is_tidy_and_complete(frame):
    t = build_table(frame, test="ttest")
    rows = list(csv.DictReader(io.StringIO(render(t, "csv"))))
    assert len(rows) == 9
    r = next(r for r in rows if r["dataset"] == "glass" and r["algorithm"] == "pi_tree")
    assert float(r["mean"]) == pytest.approx(t.cells[("glass", "pi_tree")].mean)
    assert r["best"] == "1" and r["test"] == "ttest" and r["unit"] == "%"


def test_html_marks_bold_and_underline(frame):
    t = build_table(frame, test="ttest", underline_against=["logtree", "j48"])
    out = render(t, "html")
    assert out.count("<tr>") == 1 + 3 + 1  # header, datasets, w/t/l
    assert "<b>" in out and "(v/ /*)" in out
    assert ("<u>" in out) == any(c.underline for c in t.cells.values())
    with pytest.raises(TreebenchError, match="accepted: csv, html, latex, md"):
        render(t, "pdf")


def test_single_dataset_falls_back_to_paired_trials(frame):
    t = build_table(frame, test="wilcoxon", datasets=["iris"])
    assert t.analysis.unit == "folds" and t.analysis.n_units == 10
    assert "Only one dataset" in render(t, "md")
