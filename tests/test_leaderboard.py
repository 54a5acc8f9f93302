"""``treebench leaderboard`` end to end on a tiny bundled suite, and its statistics checked independently.

One board (iris, wine, glass, zoo; 3 folds; entropy, gini, tuned and default
Tsallis, MEE, belief, C4.5 and a plugin criterion) is run once in a subprocess
(the plugin must not register itself in the test process); the tests read its
files and recompute ranks, W/T/L and the Friedman statistic from the SQLite
store with scipy alone.
"""

from __future__ import annotations

import math
import os
import sqlite3
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from test_report_html import (  # the report page's headless-Chromium check
    browse_alone,
    needs_chromium,
)

from treebench.cli import main
from treebench.errors import TreebenchError
from treebench.leaderboard.board import cell_means, pareto_front, wtl

REPO = Path(__file__).resolve().parents[1]
_listed = [p for p in os.environ.get("TREEBENCH_DATA", "").split(os.pathsep) if p.strip()]
MIRROR = Path(_listed[0]) if _listed else REPO.parent / "shared" / "datasets"
pytestmark = pytest.mark.skipif(not (MIRROR / "iris.csv.gz").is_file(), reason=f"no dataset mirror at {MIRROR}")

DATASETS = ["iris", "wine", "glass", "zoo"]
CRITERIA = "entropy,gini,tsallis,mee,belief,c4.5"
PLUGIN = '''
from treebench.criteria import register
from treebench.criteria.classic import Gini


@register
class GiniCopy(Gini):
    name = "gini_copy"
    summary = "Gini again, from a plugin file"
'''
FOLDS = 3


def _env(tmp: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(REPO), TREEBENCH_DATA=str(MIRROR), TREEBENCH_OFFLINE="1",
               TREEBENCH_CACHE=str(tmp / "cache"))
    return env


def _leaderboard(out: Path, *extra: str) -> subprocess.CompletedProcess:
    args = [sys.executable, "-m", "treebench", "leaderboard", "--datasets", ",".join(DATASETS), "--folds",
            str(FOLDS), "--criteria", CRITERIA, "--plugin", str(out.parent / "gini_copy.py"), "--out", str(out),
            "--jobs", "1", "-q", *extra]
    return subprocess.run(args, capture_output=True, text=True, env=_env(out.parent), cwd=out.parent, timeout=600)


@pytest.fixture(scope="module")
def board(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("leaderboard")
    (tmp / "gini_copy.py").write_text(PLUGIN, encoding="utf-8")
    out = tmp / "board"
    done = _leaderboard(out)
    assert done.returncode == 0, done.stderr
    return out


def _trials(out: Path) -> pd.DataFrame:
    """The store's trials, read with sqlite3 alone (not through treebench)."""
    conn = sqlite3.connect(f"file:{out / 'leaderboard.sqlite'}?mode=ro", uri=True)
    try:
        return pd.read_sql_query("SELECT dataset, algorithm, fold, status, accuracy, n_leaves, finished_at "
                                 "FROM trials", conn)
    finally:
        conn.close()


def _means(out: Path) -> pd.DataFrame:
    t = _trials(out)
    assert (t["status"] == "ok").all()
    return t.pivot_table(index="dataset", columns="algorithm", values="accuracy", aggfunc="mean")


# -- the run and its files -----------------------------------------------------------------------------------
def test_every_output_exists_and_parses(board: Path):
    import matplotlib.image

    for name in ("leaderboard.csv", "pairwise.csv", "not_applicable.csv", "winners.csv", "imbalanced.csv"):
        assert not pd.read_csv(board / name).empty, name
    for name in ("cd.png", "pareto.png", "wins.png"):
        image = matplotlib.image.imread(board / name)
        assert image.ndim == 3 and image.shape[0] > 50 and image.shape[1] > 50, name
    table = pd.read_csv(board / "leaderboard.csv")
    required = {"algorithm", "mean_rank", "mean_accuracy", "mean_balanced_accuracy", "mean_leaves", "wins", "ties",
                "losses"}
    assert required <= set(table.columns)
    assert list(table["algorithm"]).count("gini_copy") == 1  # the plugin's row
    assert {"tsallis", "tsallis-default", "c4.5", "entropy", "gini", "mee", "belief", "belief-default"} <= set(
        table["algorithm"])
    md = (board / "leaderboard.md").read_text(encoding="utf-8")
    for heading in ("## Leaderboard", "## Not applicable", "## Pairwise comparisons", "### Bayesian signed-rank test",
                    "## Critical-difference diagram", "## Accuracy against tree size", "## Where each criterion wins", "## Imbalanced view", "## Anomaly flags",
                    "## Provenance"):
        assert heading in md
    for version in ("| treebench |", "| numpy |", "| scikit-learn |", "| seed | 0 |"):  # provenance
        assert version in md


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.images: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):  # noqa: ANN001
        self.tags.append(tag)
        if tag == "img":
            self.images.append(dict(attrs).get("src", ""))

    def handle_data(self, data):  # noqa: ANN001
        self.text.append(data)


def test_the_page_holds_every_table_and_inlined_figure(board: Path):
    page = _Page()
    page.feed((board / "index.html").read_text(encoding="utf-8"))
    page.close()
    # leaderboard, not applicable, p-values, Bayesian matrix, winners, imbalanced view, algorithms, provenance
    assert page.tags.count("table") == 8
    assert len(page.images) == 3 and all(src.startswith("data:image/png;base64,") for src in page.images)
    text = " ".join(page.text)
    assert "features are nominal" in text and "needs uncertain labels" not in text
    assert "<script" not in (board / "index.html").read_text(encoding="utf-8")


@needs_chromium
def test_chromium_shows_every_table_and_figure_without_console_errors(board: Path, tmp_path):
    dom, widths, _ = browse_alone(board / "index.html", tmp_path)
    assert dom.count["table"] == 8
    assert len(widths) == 3 and all(w > 0 for w in widths)


def test_ranks_wtl_and_friedman_equal_an_independent_computation(board: Path):
    table = pd.read_csv(board / "leaderboard.csv").set_index("algorithm")
    means = _means(board)
    ranked = list(table.index[table["status"] == "ranked"])
    # every algorithm that applies to all four datasets is ranked (belief trees on crisp labels too); MEE
    # (not on zoo) is not
    assert set(ranked) == {"entropy", "gini", "gini_copy", "tsallis", "tsallis-default", "c4.5", "belief",
                           "belief-default"}
    matrix = means.loc[DATASETS, ranked]
    ranks = np.apply_along_axis(stats.rankdata, 1, -matrix.to_numpy()).mean(axis=0)
    assert np.allclose(table.loc[ranked, "mean_rank"].to_numpy(), ranks)
    assert np.allclose(table.loc[ranked, "mean_accuracy"].to_numpy(), matrix.mean().to_numpy())
    leader = ranked[int(np.argmin(ranks))]
    for name in ranked:
        d = matrix[name] - matrix["entropy"]
        if name != "entropy":
            expected = [(d > 1e-9).sum(), (d.abs() <= 1e-9).sum(), (d < -1e-9).sum()]
            assert table.loc[name, ["wins_vs_entropy", "ties_vs_entropy", "losses_vs_entropy"]].tolist() == expected
        if name != leader:
            d = matrix[name] - matrix[leader]
            expected = [(d > 1e-9).sum(), (d.abs() <= 1e-9).sum(), (d < -1e-9).sum()]
            assert table.loc[name, ["wins", "ties", "losses"]].tolist() == expected
    # the plugin is gini under another name: same trees, so a tie on every dataset
    assert table.loc["gini_copy", ["wins", "ties", "losses"]].tolist() == table.loc[
        "gini", ["wins", "ties", "losses"]].tolist()
    chi2 = stats.friedmanchisquare(*(matrix[c].to_numpy() for c in ranked)).statistic
    assert f"χ² = {chi2:.2f}" in (board / "leaderboard.md").read_text(encoding="utf-8")
    pairs = pd.read_csv(board / "pairwise.csv")
    assert len(pairs) == len(ranked) * (len(ranked) - 1) // 2
    k, n = len(ranked), len(DATASETS)
    se = math.sqrt(k * (k + 1) / (6 * n))
    mean_rank = dict(zip(ranked, ranks))
    for row in pairs.itertuples(index=False):
        z = abs(mean_rank[row.a] - mean_rank[row.b]) / se
        assert row.p == pytest.approx(2 * stats.norm.sf(z))
        assert row.p <= row.p_adjusted <= 1.0
        assert row.p_a_better + row.p_equivalent + row.p_b_better == pytest.approx(1.0)


def test_pairwise_p_values_equal_scikit_posthocs(board: Path):
    """The unadjusted pairwise rank tests after Friedman are Siegel and Castellan's z-tests
    (scikit-posthocs' ``posthoc_siegel_friedman``) on the same datasets x algorithms means."""
    sp = pytest.importorskip("scikit_posthocs")
    table = pd.read_csv(board / "leaderboard.csv").set_index("algorithm")
    ranked = list(table.index[table["status"] == "ranked"])
    matrix = _means(board).loc[DATASETS, ranked]
    theirs = pd.DataFrame(sp.posthoc_siegel_friedman(matrix.to_numpy()).to_numpy(), index=ranked, columns=ranked)
    for row in pd.read_csv(board / "pairwise.csv").itertuples(index=False):
        assert row.p == pytest.approx(theirs.loc[row.a, row.b], rel=1e-9), (row.a, row.b)


def test_not_applicable_pairs_are_listed_with_their_reasons(board: Path):
    table = pd.read_csv(board / "leaderboard.csv").set_index("algorithm")
    for name in ("belief", "belief-default"):  # crisp labels are categorical masses: they run everywhere
        assert table.loc[name, "status"] == "ranked" and table.loc[name, "not_applicable_on"] == 0
    assert table.loc["mee", "status"] == "partial" and table.loc["mee", "n_datasets"] == 3
    assert "nominal" in table.loc["mee", "reason"]
    skipped = pd.read_csv(board / "not_applicable.csv")
    assert set(map(tuple, skipped[["algorithm", "dataset"]].to_numpy())) == {
        ("mee", "zoo")}
    trials = _trials(board)
    assert not ((trials["algorithm"] == "mee") & (trials["dataset"] == "zoo")).any()
    assert (trials["algorithm"] == "belief").sum() == len(DATASETS) * FOLDS
    # every applicable pair has its FOLDS trials
    counts = trials.groupby(["dataset", "algorithm"]).size()
    assert (counts == FOLDS).all() and len(counts) == 4 * 8 + 3  # 8 rows on every dataset, mee on three


def test_a_second_run_computes_nothing_new(board: Path):
    before = _trials(board)
    again = _leaderboard(board)
    assert again.returncode == 0, again.stderr
    assert "leaderboard: 0 trials computed" in again.stdout
    after = _trials(board)
    pd.testing.assert_frame_equal(before.sort_values(["dataset", "algorithm", "fold"]).reset_index(drop=True),
                                  after.sort_values(["dataset", "algorithm", "fold"]).reset_index(drop=True))


# -- bad options -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("args", "words"), [
    (["--criteria", "entropy,nosuch"], ["unknown criterion or baseline 'nosuch'", "accepted:", "entropy"]),
    (["--datasets", "iris,nosuchset"], ["unknown dataset 'nosuchset'", "accepted:", "iris"]),
    (["--folds", "1"], ["--folds 1", "accepted: an integer from 2"]),
    (["--max-rows", "-1"], ["--max-rows -1", "accepted: 0 (no limit)"]),
    (["--repeats", "0"], ["--repeats 0", "accepted: an integer from 1"]),
    (["--suite", "nosuite"], ["not a suite", "accepted: bundled"]),
    (["--suite", "SUITE_FILE"], ["--suite", "unknown dataset 'irsi'", "did you mean iris"]),
    (["--plugin", "nothere.py"], ["plugin file", "not found"]),
    (["--jobs", "0"], ["--jobs 0", "accepted: a positive integer"]),
    (["--out", "SUITE_FILE"], ["is a file", "accepted: a folder"]),
])
def test_a_bad_option_is_one_line_with_the_accepted_values(args, words, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    suite = tmp_path / "suite.txt"
    suite.write_text("# two datasets\niris\nirsi\n", encoding="utf-8")
    args = [str(suite) if a == "SUITE_FILE" else a for a in args]
    with pytest.raises(SystemExit) as stop:
        # a case's own --out replaces the default one (an option given twice is refused)
        main(["leaderboard", *(["--out", str(tmp_path / "out")] if "--out" not in args else []), *args])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error:")
    for word in words:
        assert word in err
    assert not (tmp_path / "out" / "leaderboard.sqlite").exists()


def test_dry_run_writes_the_configs_and_runs_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    main(["leaderboard", "--datasets", "iris,zoo", "--criteria", "entropy,mee", "--folds", "2",
          "--out", str(tmp_path), "--dry-run"])  # status 0: returns
    out = capsys.readouterr().out
    assert "not applicable: mee on zoo" in out
    assert sorted(p.name for p in tmp_path.glob("config-*.yaml")) == ["config-1.yaml", "config-2.yaml"]
    assert not (tmp_path / "leaderboard.sqlite").exists()


def test_a_suite_file_lists_names_with_comments(tmp_path, monkeypatch):
    from treebench.leaderboard.suite import resolve

    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    path = tmp_path / "mine.txt"
    path.write_text("iris, wine  # two small ones\n\n# a comment line\nbreast-cancer\n", encoding="utf-8")
    assert resolve(str(path), 0) == ["iris", "wine", "breast-cancer"]  # an alias is a name too
    # a name listed twice is refused as --datasets iris,iris is (issue 43 F14), not merged without a word
    path.write_text("iris, wine\nbreast-cancer\niris\n", encoding="utf-8")
    with pytest.raises(TreebenchError, match=r"line 3: 'iris' is listed twice \(first on line 1\)"):
        resolve(str(path), 0)


def test_the_bundled_suite_keeps_raw_local_cards_within_max_rows(monkeypatch):
    from treebench.leaderboard.suite import bundled

    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    names = bundled(100_000)
    assert {"iris", "letter", "monks-1"} <= set(names)
    # large sets, derived cards, train/test parts of a card and embedded-only cards stay out
    assert not {"skin-segmentation", "kddcup99-10pct", "ecoli4", "monks-1-train", "digits"} & set(names)
    assert "letter" not in bundled(5000) and "shuttle" not in bundled(50_000)
    assert {"shuttle", "skin-segmentation", "kddcup99-10pct"} <= set(bundled(0))


# -- pieces ------------------------------------------------------------------------------------------------
def test_pareto_front_keeps_the_undominated_points():
    points = pd.DataFrame({"leaves": [5, 10, 10, 20, 4], "accuracy": [0.8, 0.9, 0.85, 0.9, 0.7]},
                          index=["a", "b", "c", "d", "e"])
    assert pareto_front(points) == ["a", "b", "e"]


def test_wtl_and_incomplete_cells():
    a = pd.Series([0.9, 0.8, 0.7, np.nan])
    b = pd.Series([0.8, 0.8, 0.75, 0.5])
    assert wtl(a, b) == (1, 1, 1)
    frame = pd.DataFrame({"dataset": ["x", "x", "x", "y", "y"], "algorithm": ["p", "p", "q", "p", "p"],
                          "accuracy": [1.0, 0.5, 0.9, 0.2, 0.4]})
    means = cell_means(frame, "accuracy", ["x", "y"], ["p", "q"], {"x": 2, "y": 2})
    assert means.loc["x", "p"] == 0.75 and np.isnan(means.loc["x", "q"]) and means.loc["y", "p"] == pytest.approx(0.3)


# -- processes and Dask give the same board ----------------------------------------------------------------
TIMING = ["fit_seconds", "predict_seconds", "tune_seconds", "finished_at"]


def _store_rows(out: Path) -> pd.DataFrame:
    conn = sqlite3.connect(f"file:{out / 'leaderboard.sqlite'}?mode=ro", uri=True)
    try:
        rows = pd.read_sql_query("SELECT * FROM trials", conn)
    finally:
        conn.close()
    return rows.drop(columns=[c for c in TIMING if c in rows.columns]).sort_values("trial_key").reset_index(drop=True)


def test_a_dask_local_cluster_gives_the_same_board_as_two_processes(tmp_path, monkeypatch):
    distributed = pytest.importorskip("distributed")
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))  # the workers load the same data
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    common = [sys.executable, "-m", "treebench", "leaderboard", "--datasets", "iris,wine,zoo", "--folds", "3",
              "--criteria", "entropy,possibilistic,mee", "-q"]
    env = _env(tmp_path)
    local = subprocess.run([*common, "--jobs", "2", "--out", str(tmp_path / "jobs")], capture_output=True, text=True,
                           env=env, timeout=600)
    assert local.returncode == 0, local.stderr
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        remote = subprocess.run([*common, "--scheduler", cluster.scheduler_address, "--out", str(tmp_path / "dask")],
                                capture_output=True, text=True, env=env, timeout=600)
    assert remote.returncode == 0, remote.stderr
    pd.testing.assert_frame_equal(_store_rows(tmp_path / "jobs"), _store_rows(tmp_path / "dask"))
    columns = ["algorithm", "status", "mean_rank", "mean_accuracy", "mean_leaves", "wins", "ties", "losses", "reason"]
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "jobs" / "leaderboard.csv")[columns],
                                  pd.read_csv(tmp_path / "dask" / "leaderboard.csv")[columns])


#: The page ``make leaderboard`` built (``results/leaderboard/index.html``): checked when this names it.
BUILT = os.environ.get("TREEBENCH_LEADERBOARD")


@needs_chromium
@pytest.mark.skipif(not BUILT, reason="set TREEBENCH_LEADERBOARD=results/leaderboard/index.html (make leaderboard does)")
def test_the_built_leaderboard_loads_in_chromium_with_every_table_and_figure(tmp_path):
    source = Path(str(BUILT))
    assert source.is_file(), f"{source} does not exist: run `treebench leaderboard` first"
    page = _Page()
    page.feed(source.read_text(encoding="utf-8"))
    dom, widths, _ = browse_alone(source, tmp_path)
    assert dom.count["table"] == page.tags.count("table") >= 6
    assert len(widths) == len(page.images) >= 3 and all(w > 0 for w in widths), widths


def test_failed_trials_are_named_never_silently_dropped():
    from treebench.leaderboard.board import build
    from treebench.leaderboard.catalogue import Algorithm
    from treebench.leaderboard.suite import DatasetMeta

    rng = np.random.default_rng(0)
    names = ["entropy", "gini", "other", "crashes", "broken"]
    rows = []
    for d in ("d1", "d2", "d3"):
        for n in names:
            for fold in range(2):
                failed = (n == "crashes" and d == "d2") or n == "broken"
                rows.append({"dataset": d, "algorithm": n, "fold": fold, "status": "failed" if failed else "ok",
                             "accuracy": np.nan if failed else rng.uniform(0.6, 0.9), "n_leaves": 5.0,
                             "fit_seconds": 0.01})
    metas = {d: DatasetMeta(d, 100, 4, 2, 1.0, 0.0, False) for d in ("d1", "d2", "d3")}
    board = build(pd.DataFrame(rows), [Algorithm(n, n, criterion="entropy") for n in names], metas, [],
                  {"d1": 2, "d2": 2, "d3": 2})
    table = board.table.set_index("algorithm")
    assert board.ranked == ["entropy", "gini", "other"]
    assert table.loc["crashes", "status"] == "partial" and table.loc["crashes", "reason"] == "trials failed on d2"
    assert table.loc["broken", "status"] == "failed" and "d1, d2, d3" in table.loc["broken", "reason"]
    assert any("crashes: trials failed on d2" in n for n in board.notes)


def test_an_openml_suite_resolves_to_its_tasks_and_a_task_runs_on_its_own_splits(tmp_path, monkeypatch):
    """Offline, on the recorded OpenML responses of tests/fixtures/openml (test server: suite 146, task 1)."""
    from test_openml import TEST_SERVER, openml_env

    from treebench.leaderboard.suite import resolve

    openml_env(tmp_path, monkeypatch, server=TEST_SERVER)
    assert resolve("openml-suite:146", 0) == ["openml-task:4", "openml-task:5", "openml-task:6"]
    out = tmp_path / "board"
    main(["leaderboard", "--suite", "openml-suite:146", "--datasets", "openml-task:1", "--criteria",
          "entropy,gini,mee", "--out", str(out), "--jobs", "1", "-q"])
    table = pd.read_csv(out / "leaderboard.csv").set_index("algorithm")
    assert list(table.loc[["entropy", "gini"], "status"]) == ["ranked", "ranked"]
    # anneal has nominal features and missing values: no MEE trees
    assert table.loc["mee", "status"] == "not applicable" and "nominal" in table.loc["mee", "reason"]
    trials = _trials(out)
    assert set(trials["dataset"]) == {"openml-task:1"} and trials["fold"].nunique() == 10  # the task's 10 folds
    assert "the Friedman test needs" in (out / "leaderboard.md").read_text(encoding="utf-8")


# -- the imbalanced view ---------------------------------------------------------------------------------------
def _store_metric(out: Path, metric: str) -> pd.DataFrame:
    """Per (dataset, algorithm) means of a prediction metric, read from the store's JSON with sqlite3 alone."""
    import json

    conn = sqlite3.connect(f"file:{out / 'leaderboard.sqlite'}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT dataset, algorithm, measures FROM trials WHERE status = 'ok'").fetchall()
    finally:
        conn.close()
    frame = pd.DataFrame([(d, a, json.loads(m or "{}").get(metric, np.nan)) for d, a, m in rows],
                         columns=["dataset", "algorithm", metric])
    return frame.pivot_table(index="dataset", columns="algorithm", values=metric, aggfunc="mean")


def test_the_imbalanced_view_ranks_balanced_accuracy_and_auc_as_computed_independently(board: Path):
    from treebench.leaderboard.imbalanced import IMBALANCED_BELOW

    md = (board / "leaderboard.md").read_text(encoding="utf-8")
    section = md[md.index("## Imbalanced view"):md.index("## Anomaly flags")]
    # the subset from the mirror's own class counts (minority/majority below the bound), not from treebench
    subset = []
    for name in DATASETS:
        y = pd.read_csv(MIRROR / f"{name}.csv.gz").iloc[:, -1]
        counts = y.value_counts()
        if counts.min() / counts.max() < IMBALANCED_BELOW:
            subset.append(name)
    assert sorted(subset) == ["glass", "zoo"]  # iris and wine are balanced enough
    listed = section.split("Datasets: ", 1)[1].split(".\n", 1)[0]
    assert sorted(part.split(" (")[0] for part in listed.split(", ")) == sorted(subset)
    view = pd.read_csv(board / "imbalanced.csv").set_index("algorithm")
    for metric in ("balanced_accuracy", "roc_auc_ovr"):
        means = _store_metric(board, metric).loc[subset].round(12)  # equal predictions tie (summation order)
        complete = [a for a in means.columns if means[a].notna().all()]
        assert {"entropy", "gini", "belief", "c4.5"} <= set(complete), metric
        ranks = np.apply_along_axis(stats.rankdata, 1, -means[complete].to_numpy()).mean(axis=0)
        assert np.allclose(view.loc[complete, f"mean_rank_{metric}"].to_numpy(), ranks), metric
        assert np.allclose(view.loc[complete, f"mean_{metric}"].to_numpy(), means[complete].mean().to_numpy())
        if len(complete) >= 3:
            chi2 = stats.friedmanchisquare(*(means[c].to_numpy() for c in complete)).statistic
            assert f"χ² = {chi2:.2f}" in section, metric


def test_rows_that_give_labels_only_run_from_their_own_config_without_auc(tmp_path, monkeypatch, capsys):
    """Weka's J48 gives no class probabilities: a config asking its ROC AUC would be refused, so it is
    planned in a config of its own (same datasets, same folds) whose metrics leave the AUC out."""
    import yaml

    from treebench.learners.registry import baseline_class

    if baseline_class("weka-j48").availability() is not None:
        pytest.skip("Weka's J48 is not installed here")
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    main(["leaderboard", "--datasets", "iris,zoo", "--criteria", "entropy,weka-j48", "--folds", "2",
          "--out", str(tmp_path), "--dry-run"])
    configs = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted(tmp_path.glob("config-*.yaml"))]
    by_rows = {tuple(a["name"] for a in c["algorithms"]): c for c in configs}
    assert set(by_rows) == {("entropy",), ("weka-j48",)}
    assert "roc_auc_ovr" in by_rows[("entropy",)]["metrics"] and "roc_auc_ovr" not in by_rows[("weka-j48",)]["metrics"]
    assert by_rows[("entropy",)]["datasets"] == by_rows[("weka-j48",)]["datasets"]
    assert by_rows[("entropy",)]["protocol"] == by_rows[("weka-j48",)]["protocol"]


def test_the_default_suites_imbalanced_subset_is_the_documented_one():
    """docs/leaderboard.md names the default suite's imbalanced datasets: counted here from the mirror's
    manifest (class counts as published with the copies), not from treebench's loader."""
    import csv

    from treebench.leaderboard.imbalanced import IMBALANCED_BELOW
    from treebench.leaderboard.suite import bundled

    manifest = {r["name"]: r for r in csv.DictReader(open(MIRROR / "MANIFEST.tsv", encoding="utf-8"), delimiter="\t")}
    subset = []
    for name in bundled(100_000):
        counts = [int(part.rsplit(":", 1)[1]) for part in manifest[name]["class_counts"].split(";") if part]
        if min(counts) / max(counts) < IMBALANCED_BELOW:
            subset.append(name)
    docs = (REPO / "docs" / "leaderboard.md").read_text(encoding="utf-8")
    sentence = docs[docs.index("the view holds"):].split(" (a test counts them")[0]
    assert f"the view holds {len(subset)}:" in sentence
    for name in subset:
        assert name in sentence, name


def test_a_criterion_states_its_own_dataset_limit_and_the_board_lists_it():
    """Hellinger's exhaustive grouping of a multiway split is refused above 12 classes: the board marks
    such a dataset not applicable with the criterion's reason before running, instead of 10 failed trials
    (abalone, 28 classes with a nominal feature, and soybean, 19 nominal ones, failed so)."""
    from treebench.leaderboard.catalogue import Algorithm, not_applicable
    from treebench.leaderboard.suite import DatasetMeta

    hellinger = Algorithm("hellinger", "hellinger", criterion="hellinger")
    many_nominal = DatasetMeta("abalone-like", 4177, 8, 28, 689.0, 1 / 8, False)
    reason = not_applicable(hellinger, many_nominal)
    assert reason is not None and "28 classes" in reason and "134,217,727 groupings" in reason
    # numeric features only (two-branch splits: the sorted cut), or 12 classes: it applies
    assert not_applicable(hellinger, DatasetMeta("letter-like", 20000, 16, 26, 1.1, 0.0, False)) is None
    assert not_applicable(hellinger, DatasetMeta("twelve", 500, 4, 12, 2.0, 0.5, False)) is None
    # the other readings' rows have no such limit; nor has any criterion by default
    from treebench.criteria.registry import get

    assert get("hellinger", reading="one-vs-rest").dataset_limit(28, 1) is None
    assert not_applicable(Algorithm("entropy", "entropy", criterion="entropy"), many_nominal) is None


def test_a_partial_row_of_the_imbalanced_view_gets_its_rank_where_it_applies():
    """A row missing a dataset of the view is not ranked with the others, but shows (in brackets) its mean
    rank among the ranked rows on the datasets it has, computed here with scipy's rankdata."""
    from treebench.leaderboard.imbalanced import build_view

    means = pd.DataFrame({"a": [0.9, 0.7, 0.8], "b": [0.8, 0.75, 0.6], "c": [0.7, 0.6, 0.9],
                          "partial": [0.95, np.nan, 0.65]}, index=["d1", "d2", "d3"])
    view = build_view({"d1": 0.1, "d2": 0.05, "d3": 0.01}, {"balanced_accuracy": means, "roc_auc_ovr": None})
    ranking = view.rankings["balanced_accuracy"]
    assert ranking.ranked == ["a", "b", "c"] and "partial" not in ranking.ranks.index
    on_its_sets = means.loc[["d1", "d3"]]
    expected = np.apply_along_axis(stats.rankdata, 1, -on_its_sets.to_numpy()).mean(axis=0)[3]  # (1 + 3) / 2
    assert ranking.ranks_where_applicable["partial"] == pytest.approx(expected) == 2.0
    table = view.table().set_index("algorithm")
    assert math.isnan(table.loc["partial", "mean_rank_balanced_accuracy"])
    assert table.loc["partial", "mean_rank_where_applicable_balanced_accuracy"] == pytest.approx(2.0)
    assert math.isnan(table.loc["a", "mean_rank_where_applicable_balanced_accuracy"])
    from treebench.leaderboard.page import _imbalanced

    line = next(x for x in _imbalanced(view) if x.startswith("| partial "))
    assert "(2.00)" in line
