"""Issue 43, the fourth independent hostile pass, group B: scheduler, plugins, duplicate trials, options.

- T1: ``--scheduler inproc://...`` (and Dask's removed ``ucx://`` stub) is refused in one line before
  anything is written, on a new and on a finished store or board (it was a traceback after 33 s).
- S1: a plugin's helper module (imported from its folder) is part of its code version: edited, the
  plugin's trials are new trials.
- S2/S11: a store holding two finished trials of one algorithm on one split (an edited plugin, a
  changed config) is refused when read without its config (``compare``, ``plot``, ``results show``),
  naming the split; its config still reads the current trials.
- S7: a single-value option given twice is refused, naming it (click kept the last silently).
- M1: ``leaderboard --plugin MODULE`` takes a module name, as ``--help`` and configs say.

Each :class:`~badinput.CliCase` asserts the exit status, one stderr line without a traceback, and
(hashing the case folder) that nothing in it changed; the controls check the valid neighbours.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import itertools
import shutil
import sqlite3
from pathlib import Path

import pytest
from badinput import CliCase, run_cli_case, tree_digest, write_files
from test_bad_inputs_outputs import MIRROR, _cache, _in, _status, board, needs_mirror, store

#: The store of test_bad_inputs_outputs' STORE_CONFIG (iris; entropy and gini, max_depth 2; 2 folds) as a config
#: of this folder: rerun as it is, it computes nothing.
SAME = """experiment: outputs
seed: 0
datasets: [iris]
protocol: {type: cv, folds: 2, repeats: 1}
algorithms:
  - {name: entropy, criterion: entropy, params: {max_depth: 2}}
  - {name: gini, criterion: gini, params: GINI}
store: s.sqlite
"""
#: A criterion plugin whose split score comes from a helper module beside it.
PLUGIN = """import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np
from treebench.criteria import Criterion, register
import HELPER


@register
class Mine(Criterion):
    name = "NAME"
    summary = "misclassification gain through a helper module"
    params = ()

    def node_value(self, counts):
        counts = np.asarray(counts, dtype=float)
        return 1.0 - counts.max() / counts.sum() if counts.sum() else 0.0

    def split_scores(self, parent, children, context=None):
        return HELPER.score(parent, children)
"""
HELPER = """import numpy as np
SIGN = 1.0


def score(parent, children):
    children = np.asarray(children, dtype=float)
    parent = np.asarray(parent, dtype=float)
    before = parent.sum() - parent.max()
    after = (children.sum(axis=2) - children.max(axis=2)).sum(axis=1)
    return SIGN * (before - after) / parent.sum()
"""
#: Unique criterion and helper names: one test process registers each plugin once.
_NAMES = (f"fourthb{i}" for i in itertools.count())


def plugin_files(folder: Path) -> tuple[Path, Path, str]:
    """Write a plugin ``folder/mine.py`` and its helper; return both paths and the criterion's name."""
    name = next(_NAMES)
    helper = folder / f"help_{name}.py"
    helper.write_text(HELPER, encoding="utf-8")
    plugin = folder / "mine.py"
    plugin.write_text(PLUGIN.replace("HELPER", helper.stem).replace("NAME", name), encoding="utf-8")
    return plugin, helper, name


@functools.cache
def _built_twice() -> Path:
    """A store holding gini twice on each split: the config was rerun with other gini params."""
    folder = _cache() / "twice"
    folder.mkdir()
    store(folder)
    config = folder / "s.yaml"
    config.write_text(SAME.replace("GINI", "{max_depth: 3}"), encoding="utf-8")
    _in(folder, ["run", "s.yaml", "--jobs", "1", "-q"])
    return folder


def twice(folder: Path) -> None:
    """``folder/s.sqlite`` holding gini {max_depth: 2} and {max_depth: 3} on each split, and ``s.yaml`` (the second)."""
    for name in ("s.sqlite", "s.yaml"):
        shutil.copyfile(_built_twice() / name, folder / name)


DUPLICATE = r"^error: store 's\.sqlite' holds 2 finished trials of gini on one split of iris \(protocol cv2x1, " \
            r"repeat 0, fold 0\) \(and 1 more split\(s\)\), in the cells iris / gini: .*accepted: .*its config"
GOOD = SAME.replace("GINI", "{max_depth: 2}")

CASES = [
    # T1: an inproc scheduler lives in the process that started it; it was probed by nobody and failed 33 s later
    CliCase("run-scheduler-inproc", ("run", "s.yaml", "--scheduler", "inproc://x"),
            r"^error: --scheduler 'inproc://x': an inproc:// scheduler is reachable only from inside the Python "
            r"process that started it.*; accepted: SCHEME://HOST:PORT with SCHEME one of tcp, tls",
            files={"s.yaml": GOOD}),
    CliCase("run-scheduler-inproc-finished-store", ("run", "s.yaml", "--scheduler", "inproc://x"),
            r"^error: --scheduler 'inproc://x': an inproc:// scheduler", files={"s.yaml": GOOD, "s.sqlite": store}),
    CliCase("run-scheduler-ucx-stub", ("run", "s.yaml", "--scheduler", "ucx://127.0.0.1:8786"),
            r"^error: --scheduler 'ucx://127\.0\.0\.1:8786': this Dask release removed its ucx:// support",
            files={"s.yaml": GOOD}),
    CliCase("leaderboard-scheduler-inproc-new", ("leaderboard", "--datasets", "iris,wine", "--criteria", "entropy",
                                                 "--folds", "3", "-q", "--out", "new", "--scheduler", "inproc://x"),
            r"^error: --scheduler 'inproc://x': an inproc:// scheduler"),
    CliCase("leaderboard-scheduler-inproc-finished", ("leaderboard", "--datasets", "iris,wine", "--criteria",
                                                      "entropy", "--folds", "3", "-q", "--out", "b",
                                                      "--scheduler", "inproc://x"),
            r"^error: --scheduler 'inproc://x': an inproc:// scheduler", files={"b": board}),
    # S7: a single-value option given twice kept the last, dropping the first names without a word
    CliCase("leaderboard-criteria-twice", ("leaderboard", "--datasets", "iris,wine", "--criteria", "belief",
                                           "--criteria", "entropy,gini", "--folds", "3", "--dry-run", "--out", "t"),
            r"^error: option --criteria is given twice, and it takes one value .*; accepted: --criteria once with "
            r"the names in one comma-separated value \(see 'treebench leaderboard --help'\)$"),
    CliCase("leaderboard-datasets-twice", ("leaderboard", "--datasets", "iris", "--datasets", "wine", "--criteria",
                                           "entropy", "--folds", "3", "--dry-run", "--out", "t"),
            r"^error: option --datasets is given twice"),
    CliCase("compare-algorithms-twice", ("compare", "s.sqlite", "--algorithms", "entropy", "--algorithms", "gini"),
            r"^error: option --algorithms is given twice", files={"s.sqlite": store}),
    CliCase("compare-metric-twice", ("compare", "s.sqlite", "--metric", "accuracy", "--metric", "n_leaves"),
            r"^error: option --metric is given twice, and it takes one value .*; accepted: --metric once "
            r"\(see 'treebench compare --help'\)$", files={"s.sqlite": store}),
    CliCase("compare-out-twice", ("compare", "s.sqlite", "--out", "a.md", "--out", "b.md"),
            r"^error: option --out is given twice", files={"s.sqlite": store}),
    CliCase("run-jobs-twice", ("run", "s.yaml", "--jobs", "1", "--jobs", "2", "--dry-run"),
            r"^error: option --jobs is given twice", files={"s.yaml": GOOD}),
    # S2/S11: two versions of gini on each split, read without the config: averaged (or one picked) silently
    CliCase("compare-store-duplicate-splits", ("compare", "s.sqlite"), DUPLICATE, files={"s.sqlite": twice}),
    CliCase("compare-store-duplicate-splits-mcnemar", ("compare", "s.sqlite", "--test", "mcnemar"), DUPLICATE,
            files={"s.sqlite": twice}),
    CliCase("results-show-duplicate-splits", ("results", "show", "s.sqlite"), DUPLICATE, files={"s.sqlite": twice}),
    CliCase("plot-scores-duplicate-splits", ("plot", "scores", "s.sqlite", "--out", "p/x"), DUPLICATE,
            files={"s.sqlite": twice}),
    # M1: a plugin module that does not import is named as the user wrote it, not at a generated config's line
    CliCase("leaderboard-plugin-module-missing", ("leaderboard", "--datasets", "iris,wine", "--criteria", "entropy",
                                                  "--folds", "3", "-q", "--plugin", "no_such_plugin_mod", "--out", "n"),
            r"^error: cannot import plugin module 'no_such_plugin_mod': no module named 'no_such_plugin_mod'; "
            r"accepted: a \.py file, or the name of a module"),
]


@needs_mirror
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_fourth_pass_b_input_ends_in_one_line_and_changes_nothing(case: CliCase, tmp_path: Path, monkeypatch,
                                                                     capsys) -> None:
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    write_files(case.files, tmp_path)
    before = tree_digest(tmp_path)
    run_cli_case(dataclasses.replace(case, files={}, unchanged=tuple(case.files)), tmp_path, capsys)
    after = tree_digest(tmp_path)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, f"{case.id}: the case folder changed: {changed}"


# --------------------------------------------------------------------------- valid controls
def _trial_count(path: Path) -> int:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        return conn.execute("SELECT COUNT(*) FROM trials").fetchone()[0]


@needs_mirror
def test_a_repeatable_option_and_a_repeated_flag_are_still_taken(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    store(tmp_path)
    capsys.readouterr()
    assert _status(tmp_path, ["results", "show", "s.sqlite", "--metric", "accuracy", "--metric", "n_leaves"]) == 0
    shown = capsys.readouterr().out
    assert "accuracy" in shown and "n_leaves" in shown
    (tmp_path / "s.yaml").write_text(GOOD, encoding="utf-8")
    assert _status(tmp_path, ["run", "s.yaml", "-q", "-q", "--dry-run"]) == 0


@needs_mirror
def test_the_config_of_a_store_with_two_versions_reads_its_current_trials(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    twice(tmp_path)
    assert _trial_count(tmp_path / "s.sqlite") == 6  # entropy x2, gini {max_depth: 2} x2, gini {max_depth: 3} x2
    capsys.readouterr()
    assert _status(tmp_path, ["compare", "s.yaml"]) == 0
    table = capsys.readouterr().out
    assert "| iris |" in table and "gini" in table


def test_a_store_with_one_trial_per_split_is_read_as_before(tmp_path):
    from treebench.report.source import load_frame

    store(tmp_path)
    frame = load_frame(tmp_path / "s.sqlite")
    assert len(frame) == 4 and set(frame["algorithm"]) == {"entropy", "gini"}


@needs_mirror
def test_an_edited_helper_of_a_plugin_makes_new_trials(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    plugin, helper, name = plugin_files(tmp_path)
    config = (f"experiment: helper\nseed: 0\ndatasets: [iris]\nprotocol: {{type: cv, folds: 2, repeats: 1}}\n"
              f"plugins: [mine.py]\nalgorithms:\n  - {{name: {name}, criterion: {name}}}\nstore: h.sqlite\n")
    (tmp_path / "h.yaml").write_text(config, encoding="utf-8")
    _in(tmp_path, ["run", "h.yaml", "--jobs", "1", "-q"])
    _in(tmp_path, ["run", "h.yaml", "--jobs", "1", "-q"])  # unchanged code: nothing new
    assert _trial_count(tmp_path / "h.sqlite") == 2
    helper.write_text(HELPER.replace("SIGN = 1.0", "SIGN = -1.0"), encoding="utf-8")
    _in(tmp_path, ["run", "h.yaml", "--jobs", "1", "-q"])
    assert _trial_count(tmp_path / "h.sqlite") == 4, "the helper changed, so the plugin's trials are new trials"


def test_the_code_version_digests_a_plugins_helpers_and_is_unchanged_without_them(tmp_path):
    from treebench.criteria import criterion_class
    from treebench.criteria.plugins import helper_files, import_plugin
    from treebench.experiment.specs import AlgorithmSpec
    from treebench.experiment.trial import code_version

    plugin, helper, name = plugin_files(tmp_path)
    import_plugin(str(plugin.resolve()))
    cls = criterion_class(name)
    assert helper_files(cls.__module__, plugin) == [helper.resolve()]
    before = code_version(AlgorithmSpec(name, criterion=name))["criterion_source"]
    helper.write_text(HELPER.replace("SIGN = 1.0", "SIGN = -1.0"), encoding="utf-8")
    assert code_version(AlgorithmSpec(name, criterion=name))["criterion_source"] != before
    # a plugin without a helper keeps the digest of its file alone (the keys of existing stores stay valid)
    alone = tmp_path / "alone"
    alone.mkdir()
    own = next(_NAMES)
    lone = alone / "lone.py"
    lone.write_text(PLUGIN.replace("import HELPER\n", "").replace("HELPER.score", "np.zeros_like")
                    .replace("sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\n", "")
                    .replace("NAME", own), encoding="utf-8")
    import_plugin(str(lone.resolve()))
    assert code_version(AlgorithmSpec(own, criterion=own))["criterion_source"] == \
        hashlib.sha256(lone.read_bytes()).hexdigest()[:16]


@needs_mirror
def test_a_board_takes_a_plugin_module_by_name(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    modules = tmp_path / "mods"
    modules.mkdir()
    plugin, helper, name = plugin_files(modules)
    module = f"mod_{name}"
    plugin.rename(modules / f"{module}.py")
    monkeypatch.syspath_prepend(str(modules))
    _in(tmp_path, ["leaderboard", "--datasets", "iris,wine", "--criteria", "entropy", "--folds", "3", "--jobs", "1",
                   "-q", "--plugin", module, "--out", "lb"])
    assert f"- {module}\n" in (tmp_path / "lb" / "config-1.yaml").read_text(encoding="utf-8")
    assert name in (tmp_path / "lb" / "leaderboard.md").read_text(encoding="utf-8")


def test_a_repeated_option_is_refused_through_clicks_runner_too():
    from click.testing import CliRunner

    from treebench.cli import cli

    result = CliRunner().invoke(cli, ["compare", "x.sqlite", "--datasets", "iris", "--datasets", "wine"])
    assert result.exit_code == 2 and "option --datasets is given twice" in result.output
