"""Criterion plugins: ``--plugin FILE``, a config's ``plugins:``, and the ``treebench.criteria`` entry points."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

#: The worked example of docs/criteria.md ("Plugins"), kept in step by test_docs_example_is_this_file.
RENYI = '''\
"""Renyi entropy of order alpha: a one-file treebench criterion."""
import numpy as np

from treebench.criteria import Criterion, Param, register


@register
class Renyi(Criterion):
    """Decrease of the Renyi entropy H_a = log2(sum p^a) / (1 - a), in bits; a = 1 is Shannon's."""

    name = "renyi"
    summary = "Renyi entropy decrease"
    params = (Param("alpha", 2.0, float, low=0.0, low_open=True, doc="order of the entropy"),)

    def entropy(self, counts):  # (..., k) counts -> (...) entropies
        counts = np.asarray(counts, dtype=float)
        total = counts.sum(axis=-1, keepdims=True)
        p = np.divide(counts, total, out=np.zeros_like(counts), where=total > 0)
        if self.alpha == 1.0:
            return -(p * np.log2(p, out=np.zeros_like(p), where=p > 0)).sum(axis=-1) + 0.0
        s = (p**self.alpha).sum(axis=-1)
        return np.log2(s, out=np.zeros_like(s), where=s > 0) / (1.0 - self.alpha) + 0.0

    def node_value(self, counts):
        return float(self.entropy(counts))

    def split_scores(self, parent, children, context=None):
        children = np.asarray(children, dtype=float)  # (m, r, k)
        sizes = children.sum(axis=2)
        weights = sizes / sizes.sum(axis=1, keepdims=True)
        return self.node_value(parent) - (weights * self.entropy(children)).sum(axis=1)
'''

REPO = Path(__file__).resolve().parents[1]


def renyi_value(counts, alpha=2.0):
    p = np.asarray(counts, float) / np.sum(counts)
    return float(np.log2((p**alpha).sum()) / (1 - alpha))


def treebench(*args: str, cwd: Path, pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    """The command line in a fresh process (a clean registry for every call)."""
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(pythonpath), env.get("PYTHONPATH", "")]))
    code = "from treebench.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300, cwd=cwd, env=env
    )


@pytest.fixture
def renyi_file(tmp_path: Path) -> Path:
    path = tmp_path / "renyi.py"
    path.write_text(RENYI, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def shared_renyi(tmp_path_factory) -> Path:
    """One file for the tests that import it in this process (a name registers once per process)."""
    path = tmp_path_factory.mktemp("shared") / "renyi.py"
    path.write_text(RENYI, encoding="utf-8")
    return path


def make_distribution(root: Path, entry_points: str, modules: dict[str, str]) -> Path:
    """A minimal installed distribution (a ``.dist-info`` folder) in ``root``, to put on ``sys.path``."""
    root.mkdir(parents=True, exist_ok=True)
    info = root / "treebench_renyi_demo-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: treebench-renyi-demo\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))
    for name, text in modules.items():
        (root / f"{name}.py").write_text(text, encoding="utf-8")
    return root


# -- --plugin FILE ---------------------------------------------------------------------------------


def test_plugin_file_appears_in_list_and_eval(renyi_file: Path):
    listed = treebench("criteria", "list", "--plugin", "renyi.py", cwd=renyi_file.parent)
    assert listed.returncode == 0, listed.stderr
    line = next(row for row in listed.stdout.splitlines() if row.startswith("renyi "))
    assert "Renyi entropy decrease" in line and "alpha > 0 (default 2.0)" in line
    assert "entropy " in listed.stdout  # the built-ins are still there

    evaluated = treebench(
        "criteria", "eval", "renyi", "--plugin", "renyi.py", "--counts", "5,2,3",
        "--children", "5,0,0;0,2,3", "--json", cwd=renyi_file.parent,
    )
    assert evaluated.returncode == 0, evaluated.stderr
    data = json.loads(evaluated.stdout)
    assert data["criterion"] == "renyi" and data["params"]["alpha"] == 2.0
    assert data["node_value"] == pytest.approx(renyi_value([5, 2, 3]))
    expected = renyi_value([5, 2, 3]) - 0.5 * renyi_value([2, 3])
    assert data["split_score"][0] == pytest.approx(expected)


def test_plugin_option_is_repeatable_and_takes_parameters(renyi_file: Path, tmp_path: Path):
    other = tmp_path / "half_gini.py"
    other.write_text(textwrap.dedent('''\
        from treebench.criteria import register
        from treebench.criteria.classic import Gini

        @register
        class HalfGini(Gini):
            name = "half_gini"
            summary = "Gini again"
            kernel_id = -1
    '''))
    listed = treebench("criteria", "list", "--plugin", "renyi.py", "--plugin", str(other), cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    names = [row.split()[0] for row in listed.stdout.splitlines()[1:]]
    assert "renyi" in names and "half_gini" in names
    evaluated = treebench(
        "criteria", "eval", "renyi", "--plugin", str(renyi_file), "--counts", "5,2,3", "--param", "alpha=3",
        cwd=REPO,
    )
    assert evaluated.returncode == 0, evaluated.stderr
    assert f"node value:  {renyi_value([5, 2, 3], 3.0):.4f}" in evaluated.stdout


def test_without_the_plugin_the_name_is_unknown_and_a_bad_plugin_is_one_line(renyi_file: Path, tmp_path: Path):
    unknown = treebench("criteria", "eval", "renyi", "--counts", "5,2,3", cwd=tmp_path)
    assert unknown.returncode != 0 and "unknown criterion 'renyi'" in unknown.stderr
    missing = treebench("criteria", "list", "--plugin", "nothere.py", cwd=tmp_path)
    assert missing.returncode != 0 and "plugin file" in missing.stderr and "not found" in missing.stderr
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('boom')\n")
    failed = treebench("criteria", "list", "--plugin", "broken.py", cwd=tmp_path)
    assert failed.returncode != 0
    assert len(failed.stderr.strip().splitlines()) == 1 and "RuntimeError: boom" in failed.stderr


# -- a config's plugins: ----------------------------------------------------------------------------


def test_config_plugins_line_makes_the_criterion_valid(shared_renyi: Path):
    renyi_file = shared_renyi
    from treebench.experiment.config import load_config

    config = renyi_file.parent / "c.yaml"
    config.write_text(textwrap.dedent("""\
        experiment: renyi-demo
        seed: 1
        plugins: [renyi.py]
        datasets: [iris]
        protocol: {type: cv, folds: 3}
        algorithms:
          - name: Renyi2
            criterion: renyi
            params: {alpha: 2.0}
    """))
    loaded = load_config(config)
    assert loaded.plugins == (str(renyi_file.resolve()),)
    assert [a.criterion for a in loaded.algorithms] == ["renyi"]


def test_plugin_grows_trees_through_the_numpy_engine(shared_renyi: Path):
    renyi_file = shared_renyi
    from treebench.criteria import criterion_class
    from treebench.criteria.plugins import import_plugin
    from treebench.trees.estimator import TreeClassifier

    import_plugin(str(renyi_file.resolve()))
    assert criterion_class("renyi").name == "renyi"
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int) + (X[:, 2] > 1)
    model = TreeClassifier("renyi", alpha=2.0, max_depth=4).fit(X, y)
    assert model.score(X, y) > 0.8


# -- entry points ----------------------------------------------------------------------------------


def test_entry_point_plugin_is_listed_and_evaluated(tmp_path: Path):
    root = make_distribution(
        tmp_path / "site",
        """\
        [treebench.criteria]
        renyi = renyi_ep:Renyi
        """,
        {"renyi_ep": RENYI},
    )
    listed = treebench("criteria", "list", cwd=tmp_path, pythonpath=root)
    assert listed.returncode == 0, listed.stderr
    assert any(row.startswith("renyi ") for row in listed.stdout.splitlines())
    assert listed.stderr == ""
    evaluated = treebench("criteria", "eval", "renyi", "--counts", "5,2,3", cwd=tmp_path, pythonpath=root)
    assert evaluated.returncode == 0, evaluated.stderr
    assert f"node value:  {renyi_value([5, 2, 3]):.4f}" in evaluated.stdout


def test_module_entry_point_and_broken_entry_points_warn_once_each(tmp_path: Path):
    root = make_distribution(
        tmp_path / "site",
        """\
        [treebench.criteria]
        renyi_module = renyi_ep
        missing = no_such_module_xyz:Thing
        raising = raising_ep:Thing
        not_a_criterion = renyi_ep:register
        clash = clash_ep:Entropy2
        """,
        {
            "renyi_ep": RENYI,
            "raising_ep": "raise ValueError('bad plugin')\n",
            "clash_ep": (
                "from treebench.criteria.classic import Entropy\n"
                "class Entropy2(Entropy):\n    name = 'entropy'\n"
            ),
        },
    )
    listed = treebench("criteria", "list", cwd=tmp_path, pythonpath=root)
    assert listed.returncode == 0, listed.stderr
    assert any(row.startswith("renyi ") for row in listed.stdout.splitlines())
    warnings = listed.stderr.strip().splitlines()
    assert len(warnings) == 4, listed.stderr
    for name in ("missing", "raising", "not_a_criterion", "clash"):
        assert sum(f"criterion plugin {name!r}" in w for w in warnings) == 1, listed.stderr
    assert all(w.startswith("warning: ") for w in warnings)
    assert "ValueError: bad plugin" in listed.stderr and "already registered" in listed.stderr
    # a built-in criterion never waits for (or warns about) the entry points
    builtin = treebench("criteria", "eval", "gini", "--counts", "5,2,3", cwd=tmp_path, pythonpath=root)
    assert builtin.returncode == 0 and builtin.stderr == ""


def test_entry_points_load_lazily(tmp_path: Path):
    root = make_distribution(
        tmp_path / "site",
        """\
        [treebench.criteria]
        renyi = renyi_ep:Renyi
        """,
        {"renyi_ep": RENYI},
    )
    code = textwrap.dedent("""\
        import sys
        from treebench.criteria import criterion_class, get
        from treebench.trees.estimator import TreeClassifier
        criterion_class("gini")
        assert "renyi_ep" not in sys.modules, "loaded too early"
        assert get("renyi", alpha=0.5).alpha == 0.5
        assert "renyi_ep" in sys.modules
        print("ok")
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH", "")])))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


def test_docs_example_is_this_file():
    text = (REPO / "docs" / "criteria.md").read_text(encoding="utf-8")
    assert "```python\n# renyi.py\n" + RENYI + "```" in text
    assert "renyi = \"treebench_renyi.renyi:Renyi\"" in text and "plugins: [renyi.py]" in text


# -- the compiled count-level impurity (ImpurityCriterion) -----------------------------------------


def doc_block(name: str) -> str:
    text = (REPO / "docs" / "criteria.md").read_text(encoding="utf-8")
    return re.search(rf"```python\n# {re.escape(name)}\n(.*?)```", text, flags=re.S).group(1)


@pytest.fixture(scope="module")
def renyi_fast():
    from treebench.criteria import available, criterion_class

    if "renyi_fast" not in available():
        exec(compile(doc_block("renyi_fast.py"), "docs/criteria.md", "exec"), {"__name__": "renyi_fast"})
    return criterion_class("renyi_fast")


def test_impurity_criterion_values_match_the_formula(renyi_fast):
    for alpha in (0.5, 1.0, 2.0, 3.0):
        criterion = renyi_fast(alpha=alpha)
        counts = np.array([5.0, 2.0, 3.0])
        expected = renyi_value(counts, alpha) if alpha != 1.0 else float(-(counts / 10 * np.log2(counts / 10)).sum())
        assert criterion.node_value(counts) == pytest.approx(expected)
        assert criterion.node_value([4, 0, 0]) == 0.0
        children = np.array([[[5, 0, 0], [0, 2, 3]], [[5, 2, 0], [0, 0, 3]]], dtype=float)
        scores = criterion.split_scores(counts, children)
        weights = children.sum(axis=2) / 10
        values = np.array([[criterion.node_value(c) for c in pair] for pair in children])
        np.testing.assert_allclose(scores, criterion.node_value(counts) - (weights * values).sum(axis=1))


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"max_depth": 3},
        {"min_samples_leaf": 7, "min_samples_split": 20},
        {"threshold": "observed"},
        {"alpha": 1.0, "min_gain": 0.01},
        {"alpha": 0.5},
    ],
)
def test_compiled_scan_grows_the_numpy_engines_tree(renyi_fast, settings):
    from treebench.trees.estimator import TreeClassifier

    settings = dict(settings)
    alpha = settings.pop("alpha", 2.0)
    min_gain = settings.pop("min_gain", 0.0)
    rng = np.random.default_rng(1)
    X = np.round(rng.normal(size=(1500, 5)), 1)  # many ties
    y = ((X[:, 0] + X[:, 1] * X[:, 2] + 0.7 * rng.normal(size=1500)) > 0).astype(int) + 2 * (X[:, 3] > 1.2)
    criterion = renyi_fast(alpha=alpha, min_gain=min_gain)
    tree = TreeClassifier(criterion, engine="python", **settings).fit(X, y).tree_
    arrays = criterion.grow_compiled(
        X, y, int(y.max()) + 1,
        max_depth=settings.get("max_depth"),
        min_samples_split=settings.get("min_samples_split", 2),
        min_samples_leaf=settings.get("min_samples_leaf", 1),
        midpoint=settings.get("threshold", "midpoint") == "midpoint",
    )
    assert tree.int_nodes.shape[0] > 5
    for mine, theirs in zip(arrays, (tree.int_nodes, tree.float_nodes, tree.counts, tree.catmap)):
        np.testing.assert_array_equal(mine, theirs)


def test_compiled_scan_accepts_a_zero_gain_rounded_below_zero_as_the_numpy_engine_does(renyi_fast):
    """The only split of this node keeps the parent's class shares (3:4 on both sides): its Renyi
    decrease is zero, computed as -1.1e-16.  Both engines make it (Criterion.accepts' tolerance);
    the compiled scan used to compare exactly and kept the node a leaf."""
    from treebench.trees.estimator import TreeClassifier

    X = np.array([[0.0]] * 7 + [[1.0]] * 28)
    y = np.array([0] * 3 + [1] * 4 + [0] * 12 + [1] * 16)
    criterion = renyi_fast(alpha=2.0)
    score = criterion.split_scores(np.array([15.0, 20.0]), np.array([[[3.0, 4.0], [12.0, 16.0]]]))[0]
    assert -1e-15 < score < 0.0  # the case this test is about
    tree = TreeClassifier(criterion, engine="python").fit(X, y).tree_
    arrays = criterion.grow_compiled(X, y, 2)
    assert tree.int_nodes.shape[0] == 3
    for mine, theirs in zip(arrays, (tree.int_nodes, tree.float_nodes, tree.counts, tree.catmap)):
        np.testing.assert_array_equal(mine, theirs)


def test_compiled_scan_refuses_missing_values(renyi_fast):
    from treebench.errors import TreebenchError

    X = np.array([[0.0], [np.nan], [1.0]])
    with pytest.raises(TreebenchError, match="finite numeric features"):
        renyi_fast().grow_compiled(X, np.array([0, 1, 1]), 2)
    with pytest.raises(TreebenchError, match="labels must be 0..1"):
        renyi_fast().grow_compiled(np.array([[0.0], [1.0]]), np.array([0, 2]), 2)


def test_an_edited_plugin_file_makes_new_trials(tmp_path: Path) -> None:
    # issue 43, third pass: a board or run kept the trials of a plugin's old code after its file changed
    (tmp_path / "renyi.py").write_text(RENYI, encoding="utf-8")
    (tmp_path / "c.yaml").write_text(
        "experiment: edited\nseed: 0\ndatasets: [iris]\nprotocol: {type: cv, folds: 2, repeats: 1}\n"
        "plugins: [renyi.py]\nalgorithms:\n  - {name: r, criterion: renyi}\nstore: s.sqlite\n", encoding="utf-8")
    first = treebench("run", "c.yaml", "-q", "-j", "1", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    again = treebench("run", "c.yaml", "-q", "-j", "1", cwd=tmp_path)
    assert "0 done, 2 skipped" in again.stdout + again.stderr  # unchanged: resumed
    (tmp_path / "renyi.py").write_text(RENYI.replace("return self.node_value(parent) -", "return -self.node_value(parent) +"),
                                       encoding="utf-8")
    edited = treebench("run", "c.yaml", "-q", "-j", "1", cwd=tmp_path)
    assert edited.returncode == 0, edited.stderr
    assert "2 done, 0 skipped" in edited.stdout + edited.stderr  # the edited criterion's trials run again
