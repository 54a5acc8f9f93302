"""The kernel registry and the first-fit notice (kernels/readiness.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from types import SimpleNamespace

import numpy as np

from treebench.kernels import readiness
from treebench.trees.encoding import FeatureEncoder

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_registering_is_one_line_and_idempotent(monkeypatch):
    monkeypatch.setattr(readiness, "KERNELS", list(readiness.KERNELS))
    before = len(readiness.KERNELS)
    kernel = readiness.register("test-group", "treebench.kernels.traversal", "apply_tree")
    readiness.register("test-group", "treebench.kernels.traversal", "apply_tree")
    assert len(readiness.KERNELS) == before + 1 and kernel.label == "traversal.apply_tree"
    assert readiness.uncached(["test-group"]) in ([], ["traversal.apply_tree"], None)


def test_every_group_named_in_the_brief_is_registered():
    groups = {kernel.group for kernel in readiness.KERNELS}
    assert {"tree", "large", "c4.5", "pruning", "mee", "belief"} <= groups
    builders = [(k.rank_dtype, dict(k.arguments)) for k in readiness.KERNELS if k.function == "build"]
    none, array = "none", "array"
    masses, whole, tables = readiness.LABEL_MASSES, readiness.WHOLE, readiness.TABLES
    # 16- and 32-bit ranks; belief's label masses are the 16-bit builder's per-sample-data specialisation,
    # a criterion scored whole (its marker) the whole-split one; a fit of enough rows keeps tables
    # (32-bit ranks: always)
    assert sorted(builders, key=str) == sorted([
        ("int32", {masses: none, whole: none, tables: array}),
        ("uint16", {masses: none, whole: none, tables: none}), ("uint16", {masses: none, whole: none, tables: array}),
        ("uint16", {masses: array, whole: none, tables: none}),
        ("uint16", {masses: none, whole: array, tables: none}), ("uint16", {masses: none, whole: array, tables: array}),
    ], key=str)


def test_an_unknown_kernel_cannot_be_told():
    missing = readiness.Kernel("x", "treebench.kernels.no_such_module", "f")
    assert readiness.is_cached(missing) is None


def test_a_cold_cache_lists_the_group_and_a_warm_one_does_not(tmp_path):
    code = "from treebench.kernels import readiness as r; print(r.uncached(['tree', 'c4.5']))"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": ROOT}
    cold = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert "induction.build [uint16 ranks]" in cold.stdout and "c45_build.grow_presorted" in cold.stdout


def _event(module: str, cache: str):
    cache_class = type(cache, (), {})
    dispatcher = SimpleNamespace(py_func=SimpleNamespace(__module__=module), _cache=cache_class())
    return SimpleNamespace(data={"dispatcher": dispatcher})


def test_the_notice_is_printed_once_and_only_for_cached_treebench_kernels(monkeypatch, capsys):
    from numba.core import event

    listeners = []
    monkeypatch.setattr(event, "register", lambda kind, listener: listeners.append((kind, listener)))
    monkeypatch.setattr(readiness, "_state", {"watching": False, "announced": False})
    readiness.watch_compiles()
    readiness.watch_compiles()  # a second fit adds no listener
    assert [kind for kind, _ in listeners] == ["numba:compile"]
    listener = listeners[0][1]
    listener.on_start(_event("user_module", "FunctionCache"))  # a user's kernel
    listener.on_start(_event("treebench.kernels.custom", "NullCache"))  # compiled per process anyway
    assert capsys.readouterr().err == ""
    listener.on_start(_event("treebench.kernels.induction", "FunctionCache"))
    listener.on_start(_event("treebench.kernels.traversal", "FunctionCache"))
    assert capsys.readouterr().err == readiness.FIRST_FIT_NOTICE + "\n"


def test_every_fit_goes_through_the_watch(monkeypatch):
    calls = []
    monkeypatch.setattr("treebench.trees.encoding.watch_compiles", lambda: calls.append(1))
    FeatureEncoder.fit(np.zeros((3, 2)))
    assert calls == [1]


def test_a_warm_cache_fit_prints_nothing():
    code = (
        "import numpy as np; from treebench import TreeClassifier; X = np.arange(40.0).reshape(20, 2); "
        "TreeClassifier('entropy').fit(X, np.arange(20) % 2).predict(X)"
    )
    env = {**os.environ, "PYTHONPATH": ROOT}
    subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True)  # warms
    again = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert readiness.FIRST_FIT_NOTICE not in again.stderr


def test_a_run_names_every_kernel_group_its_algorithms_will_compile(tmp_path, monkeypatch, capsys):
    """``treebench run`` asks each algorithm's learner for its kernel groups before anything compiles."""
    from treebench.experiment import cli as experiment_cli
    from treebench.experiment.config import load_config

    config = tmp_path / "c.yaml"
    config.write_text(
        "experiment: c\ndatasets: [iris]\nprotocol: {type: cv, folds: 2}\nalgorithms:\n"
        "  - {name: E, criterion: entropy}\n  - {name: M, criterion: mee}\n"
        "  - {name: O, criterion: possibilistic, online: true}\n  - {name: J, baseline: sklearn-cart}\n",
        encoding="utf-8",
    )
    asked: list[list[str]] = []

    def fake_uncached(groups):
        asked.append(list(groups))
        return [k.label for k in readiness.KERNELS if k.group in ("mee", "online")]

    monkeypatch.setattr(readiness, "uncached", fake_uncached)
    monkeypatch.setattr(readiness, "_state", {"watching": False, "announced": False})
    experiment_cli._announce_compile(load_config(config))
    assert asked == [["tree", "mee", "online"]]
    err = capsys.readouterr().err
    assert err.startswith("treebench: compiling") and "mee, online" in err and "first use" in err
    assert readiness._state["announced"]  # the Python API stays silent afterwards

    monkeypatch.setattr(readiness, "uncached", lambda groups: [])
    experiment_cli._announce_compile(load_config(config))
    assert capsys.readouterr().err == ""


def test_the_builder_specialisations_are_told_apart_by_their_label_masses_and_marker_arguments():
    """The belief builder is ``build``'s specialisation whose ``label_masses`` is an array, the whole-split
    one the specialisation whose ``whole`` marker is, and each has a version that keeps tables (its
    ``tables`` marker an array); the positions registered must be those arguments' (the label masses
    were read as the last argument until ``tie_stream`` was added after them, and every label-mass fit
    was then reported as not compiled)."""
    import inspect

    from treebench.kernels.induction import build

    names = list(inspect.signature(build.py_func).parameters)
    assert names[readiness.LABEL_MASSES] == "label_masses" and names[readiness.WHOLE] == "whole"
    assert names[readiness.TABLES] == "tables"
    plain = ["x"] * (len(names) - 5)

    def signature(tables: str, masses: str, whole: str) -> tuple[tuple[str, ...]]:
        return ((*plain, tables, "weights", masses, "tie", whole),)  # a cache index key: (types, ...)

    marker, masses, whole = "array(int64, 1d, C)", "array(float64, 2d, C)", "array(float64, 1d, C)"
    signatures = {
        ("tree", False): signature("none", "none", "none"),
        ("tree", True): signature(marker, "none", "none"),
        ("belief", False): signature("none", masses, "none"),
        ("whole-split", False): signature("none", "none", whole),
        ("whole-split", True): signature(marker, "none", whole),
    }
    builders = {(k.group, (readiness.TABLES, "array") in k.arguments): k
                for k in readiness.KERNELS if k.function == "build" and k.rank_dtype == "uint16"}
    assert set(builders) == set(signatures)
    for key, kernel in builders.items():
        for other, types in signatures.items():
            matches = all(readiness._argument_type(types, position).startswith(prefix)
                          for position, prefix in kernel.arguments)
            assert matches == (key == other), (key, other)
