"""The built-in criterion modules and the kernels' dispatch generated from them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from treebench.criteria import available, criterion_class
from treebench.criteria.base import Criterion, stored_name
from treebench.criteria.builtin import criterion_classes, kernel_modules
from treebench.criteria.builtin.generate import main, render
from treebench.criteria.builtin.spec import ADDITIVE, Kernel

KERNELS_DIR = Path(__file__).resolve().parents[1] / "treebench" / "kernels"


def test_the_imported_dispatch_is_what_the_modules_declare(capsys):
    from treebench.kernels import dispatch

    assert dispatch.GENERATED_PATH.read_text(encoding="utf-8") == render()
    assert main([]) == 0
    assert capsys.readouterr().out == render()


def test_no_kernel_tests_a_criterion_id_by_hand():
    """Only the generated module (in the kernel cache) branches on ``cid ==``; the kernels ask its predicates."""
    found = [f"{path.name}:{n}: {line.strip()}"
             for path in sorted(KERNELS_DIR.glob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"\bcid\s*[!=]=", line)]
    assert not found, "\n".join(found)


def test_every_compiled_criterion_has_its_kernel_declared_in_its_own_module():
    declared = {k.id: (k, m) for m in kernel_modules() for k in m.KERNELS}
    # the built-in ones: a plugin registered earlier in this process (another test's) may subclass a
    # compiled criterion and inherit its kernel id, without being declared anywhere
    compiled = [criterion_class(name) for name in available() if criterion_class(name).kernel_id >= 0
                and criterion_class(name).__module__.startswith("treebench.")]
    assert {cls.kernel_id for cls in compiled} <= set(declared)
    for cls in compiled:
        kernel, module = declared[cls.kernel_id]
        assert cls.__module__ == module.__name__, f"{cls.name}: class and kernel in different modules"
        assert cls in module.CRITERIA
    assert sorted(cls.name for cls in criterion_classes()) == sorted(cls.name for cls in compiled)


def test_the_dispatch_constants_are_the_declared_ids():
    from treebench.kernels import dispatch

    for module in kernel_modules():
        for kernel in module.KERNELS:
            assert getattr(dispatch, kernel.name.upper()) == kernel.id
    assert criterion_class("belief")(multiclass="one-vs-rest").kernel_id == dispatch.BELIEF_OVR


def test_a_duplicate_kernel_id_is_refused(monkeypatch):
    import treebench.criteria.builtin.generate as generate

    modules = kernel_modules()
    twin = type(modules[0])("twin")
    twin.KERNELS = (Kernel(modules[0].KERNELS[0].id, "twin", ADDITIVE),)
    monkeypatch.setattr(generate, "kernel_modules", lambda: [*modules, twin])
    with pytest.raises(ValueError, match="unique"):
        generate.render()


def test_a_kernel_declaration_is_checked():
    with pytest.raises(ValueError, match="family"):
        Kernel(99, "odd", "pairs")
    with pytest.raises(ValueError, match="id"):
        Kernel(-1, "odd", ADDITIVE)


def test_moved_classes_keep_the_names_their_trials_were_stored_under():
    # results stores key a trial on the class's dotted name: the built-ins keep theirs
    expected = {
        "entropy": "treebench.criteria.classic.Entropy",
        "gain_ratio": "treebench.criteria.classic.GainRatio",
        "gini": "treebench.criteria.classic.Gini",
        "tsallis": "treebench.criteria.tsallis.Tsallis",
        "tsallis_gain_ratio": "treebench.criteria.tsallis.TsallisGainRatio",
        "certainty": "treebench.criteria.certainty.Certainty",
        "possibilistic": "treebench.criteria.possibilistic.Possibilistic",
        "belief": "treebench.criteria.belief.Belief",
    }
    assert {name: stored_name(criterion_class(name)) for name in expected} == expected
    # a subclass (a user's, or a built-in's own) is stored under its own name
    mine = type("Mine", (criterion_class("entropy"),), {"name": "mine-entropy", "__module__": "mine"})
    assert stored_name(mine) == "mine.Mine"
    plain = type("Plain", (Criterion,), {"name": "plain", "__module__": "elsewhere"})
    assert stored_name(plain) == "elsewhere.Plain"


def test_class_params_widens_the_parameters_the_ladders_read():
    """The per-candidate ladders read ``params[:PARAMS_WIDTH]`` unconditionally (the hot-path rule)."""
    import numpy as np

    from treebench.kernels.dispatch import (
        BELIEF,
        PARAMS_WIDTH,
        POSSIBILISTIC,
        TSALLIS,
        class_params,
    )

    cid, params = class_params(np.int64(TSALLIS), np.array([2.5]), np.int64(3))
    assert cid == TSALLIS and params.shape == (PARAMS_WIDTH,) and params[0] == 2.5 and not params[1:].any()
    long = np.arange(1.0, PARAMS_WIDTH + 3.0)  # gamma and one quantile per branch count
    assert class_params(np.int64(POSSIBILISTIC), long, np.int64(3))[1].tolist() == long.tolist()
    cid, params = class_params(np.int64(BELIEF), np.array([0.5, 1.0]), np.int64(4))
    assert cid == BELIEF and params.shape[0] >= PARAMS_WIDTH
