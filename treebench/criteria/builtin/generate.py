"""Write the source of the kernels' dispatch from the built-in criterion modules.

:func:`render` reads every module's ``KERNELS`` and returns the source of one
module; :mod:`treebench.kernels.dispatch` writes it at first use into the
kernel cache folder of the current sources
(:func:`treebench.kernels.kernel_cache.cache_folder`) and imports it.  Nothing
generated is committed: adding a criterion is adding its module.
``python -m treebench.criteria.builtin.generate`` prints the source
(``treebench.kernels.dispatch.GENERATED_PATH``: the file a process imports).

Why generated source and not a table of functions: numba cannot call through
a dict of functions, and a tuple of jitted functions walked by
``literal_unroll`` (or first-class function types) makes the callee a
run-time value -- no inlining of a criterion's arithmetic into the scans, and
the loop over the tuple is compiled into every caller.  A generated ``if cid
== K`` ladder is plain code to numba: every branch is a direct call that
numba or LLVM inlines (the per-sample scoring stays as fast as the
hand-written chains were), and
the functions cache to disk like any others (``cache=True``: the ladder is a
module in the kernel cache folder, whose source file numba's cache index keys on; a
warm start of the same fits takes 1.8-1.9 s CPU, as with the hand-written chains).  The first compile
of a plain tree takes as long as with the hand-written chains (cold fit of
every criterion, fresh cache, side by side with them on quiet cores:
34.1-38.9 s CPU against 34.5-38.6 s in 4 pairs, the differences -0.5 to
+0.3 s) once the criterion functions are compiled as
:mod:`treebench.criteria.builtin.spec` says; inlining all of them into the
ladders had cost 8 % more.  ``literal_unroll`` over a tuple of
functions was not built: numba compiles its body once per tuple element
into every caller, which can only add to the first compile.

The ladder groups the ids whose module function is the same object (gain
ratio scores its candidates with entropy's ``g`` and ``mass``), so the
branches are those a person would have written.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence

from treebench.criteria.builtin import kernel_modules
from treebench.criteria.builtin.spec import ADDITIVE, ROWS, Kernel

HEADER = '''"""Dispatch of the compiled kernels on the built-in criteria -- GENERATED, do not edit.

Written at first use by :mod:`treebench.kernels.dispatch` from the
``KERNELS`` declarations of the modules of :mod:`treebench.criteria.builtin`
(:func:`treebench.criteria.builtin.generate.render`).  Each function
is one ``if cid == K`` ladder whose branches call a criterion module directly,
so numba inlines or links them like any other call and caches them to disk;
the reasons are in :mod:`treebench.criteria.builtin.generate`.  The generic
scoring built on it is :mod:`treebench.kernels.scoring`.

The kernels import it through :mod:`treebench.kernels.dispatch`, the one import from a
higher layer (kernels -> criteria) in the package (tests/test_layers.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, types
from numba.extending import overload

'''

G_TERM = '''

def g_term(cid: int, params: np.ndarray, table: np.ndarray, c: Any) -> float:
    """``g(c)``: a look-up in ``table`` for an integer count, :func:`g_value` for a weight sum.

    Compiled code only (the overload below picks the version by the type of ``c``).
    """
    raise NotImplementedError("g_term is for numba-compiled code")


@overload(g_term, inline="always")
def _g_term(cid, params, table, c):
    if isinstance(c, types.Integer):
        return lambda cid, params, table, c: table[c]
    return lambda cid, params, table, c: g_value(cid, params[0], c)
'''


#: The modules the functions being rendered are defined in, by alias (filled by :func:`_where`).
_USED: dict[str, str] = {}


CLASS_PARAMS = '''

@njit(cache=True, no_cfunc_wrapper=True)
def class_params(cid: int, params: np.ndarray, k: int):
    """``(cid, params)`` for ``k`` classes: completed by the criteria that need the class count, and
    widened to :data:`PARAMS_WIDTH` (zeros appended).  Every builder calls it before scoring."""
    cid, params = _completed(cid, params, k)
    if params.shape[0] >= PARAMS_WIDTH:
        return cid, params
    wide = np.zeros(PARAMS_WIDTH)
    for i in range(params.shape[0]):  # not a slice assignment: its shape check compiles string formatting
        wide[i] = params[i]
    return cid, wide
'''


def _function_of(module: object, attribute: str, kernel: Kernel) -> Callable:
    """The module's function ``attribute`` for ``kernel``: with the kernel's suffix when it has one."""
    return getattr(module, attribute + kernel.suffix, None) or getattr(module, attribute)


def _where(function: Callable) -> tuple[str, str]:
    """``(module alias, attribute)`` of a module's compiled function (a numba dispatcher or plain)."""
    py = getattr(function, "py_func", function)
    alias = "_" + py.__module__.rsplit(".", 1)[1]
    if _USED.setdefault(alias, py.__module__) != py.__module__:
        raise ValueError(f"two criterion modules named {alias[1:]!r}: {_USED[alias]}, {py.__module__}")
    return alias, py.__name__


def _condition(ids: Sequence[int]) -> str:
    return " or ".join(f"cid == {i}" for i in ids)


def _ladder(kernels: Sequence[tuple[Kernel, object]], attribute: str, call: Callable[[str, Kernel], str],
            ) -> list[str]:
    """``if`` branches of one function: ids grouped by the module function they call (in id order)."""
    groups: dict[tuple[str, str, str], list[int]] = {}
    for kernel, module in kernels:
        alias, name = _where(_function_of(module, attribute, kernel))
        groups.setdefault((alias, name, call(f"{alias}.{name}", kernel)), []).append(kernel.id)
    lines = []
    for (_, _, expression), ids in groups.items():
        lines += [f"    if {_condition(ids)}:", f"        return {expression}"]
    return lines


def _by_value(kernels: Sequence[tuple[Kernel, object]], constant: str) -> dict[float, list[int]]:
    """The ids of ``kernels`` grouped by their module's float ``constant`` (one branch per value, as
    :func:`_ladder` groups ids by function)."""
    groups: dict[float, list[int]] = {}
    for kernel, module in kernels:
        groups.setdefault(float(getattr(module, constant)), []).append(kernel.id)
    return groups


def _mass_call(function: str, kernel: Kernel) -> str:
    """The call of an additive criterion's ``mass``: scalars only, its parameters read in its branch.

    Reading ``params`` in a branch (or handing it to the inlined ``mass``)
    would cost a reference-count increment and decrement per candidate for
    every criterion: the ladder reads them all at its top (:func:`_params_read`),
    which :func:`class_params` makes safe by widening ``params`` to
    ``PARAMS_WIDTH``.
    """
    g_s = "g_term(cid, params, table, s)" if kernel.g_of_size else "0.0"
    extra = "".join(f", p{i}" for i in range(1, kernel.mass_params + 1))
    return f"{function}(q, s, g_sum, {g_s}{extra})"


def _params_read(width: int) -> list[str]:
    """The prologue of a per-candidate function: every parameter a ``mass`` may read, read first."""
    names = ", ".join(["q", *(f"p{i}" for i in range(1, width))])
    values = ", ".join(f"params[{i}]" for i in range(width))
    return [f"    {names} = {values}  # read unconditionally: the hot-path rule of treebench.kernels.scoring"]


def _predicate(name: str, doc: str, ids: Sequence[int]) -> str:
    body = f"return {_condition(ids)}" if ids else "return False"
    return (f'\n\n@njit(cache=True, no_cfunc_wrapper=True, inline="always")\ndef {name}(cid: int) -> bool:\n'
            f'    """{doc}"""\n    {body}\n')


def _function(signature: str, doc: str, lines: Sequence[str], default: str, inline: bool = True,
              prologue: Sequence[str] = ()) -> str:
    decorator = '@njit(cache=True, no_cfunc_wrapper=True, inline="always")' if inline else "@njit(cache=True, no_cfunc_wrapper=True)"
    body = "\n".join([*prologue, *lines, f"    return {default}"])
    return f'\n\n{decorator}\ndef {signature}:\n    """{doc}"""\n{body}\n'


#: The arguments of a row-scored module's ``pair_mass`` (after the slot, in the dispatch's).
PAIR_ARGUMENTS = "left, parent, right, w_left, total, z, scratch"

ROW_SLOTS_DOC = '''

def pair_mass(slot: int, left: np.ndarray, parent: np.ndarray, right: np.ndarray, w_left: Any, total: Any, z: Any,
              scratch: np.ndarray) -> float:
    """Summed masses of a threshold's two children for the row-scored criterion ``slot``.

    Compiled code only, and ``slot`` must be a compile-time constant (a literal integer: the
    kernel id as :func:`with_row_slot` hands it to a scan): the overload below then inlines that
    one criterion's ``pair_mass`` and nothing else, so each specialisation of the scan holds
    only its own criterion's code, with no test per candidate.
    """
    raise NotImplementedError("pair_mass is for numba-compiled code, with a literal slot")


@overload(pair_mass, inline="always")
def _pair_mass(slot, left, parent, right, w_left, total, z, scratch):
    if not isinstance(slot, types.IntegerLiteral):
        return None  # numba then types the call again with the literal value
    return _PAIR_MASS.get(slot.literal_value)


def with_row_slot(scan: Any, stepped: Any, cid: int, weights: Any, whole: Any, args: tuple) -> Any:
    """``scan(slot, args)`` with ``slot`` the row-scored criterion ``cid`` as a literal integer.

    Compiled code only.  One branch per row-scored kernel, each handing its id to ``scan`` as a
    constant, so numba compiles ``scan`` once per criterion (a literal-typed signature, cached
    like any other) and :func:`pair_mass` inside it picks that criterion when it is typed.
    Without weights (``weights`` is ``None``) the kernels with a bounded scan are left out: the
    builders search those by :mod:`treebench.kernels.possibilistic_bound`, and the overload
    picks the ladder by the type of ``weights`` so that the unweighted builder does not compile
    a full scan it never runs.  ``whole`` is ``None``, or the marker array of a criterion scored
    whole (:func:`treebench.criteria.builtin.whole_split_marker`): by its type the ladder holds only the
    other kernels, or only those scored whole, so a fit compiles no other kind's scans.  Without
    weights, a kernel declared ``step_bounded`` is handed to ``stepped`` instead
    (:func:`treebench.kernels.step_scan.scan_step_bounded`); the other ladders never call it, so
    it is compiled only for those kernels.
    """
    raise NotImplementedError("with_row_slot is for numba-compiled code")


@overload(with_row_slot, inline="always")
def _with_row_slot(scan, stepped, cid, weights, whole, args):
    unweighted = isinstance(weights, types.NoneType)
    if not isinstance(whole, types.NoneType):
        return _rows_whole_unweighted if unweighted else _rows_whole
    return _rows_unweighted if unweighted else _rows_weighted
'''


def _row_slots(rows: Sequence[tuple[Kernel, object]]) -> str:
    """The dispatch of the row-scored criteria by a literal slot (see ``ROW_SLOTS_DOC``)."""
    lines = [ROW_SLOTS_DOC]
    table = []
    for kernel, module in rows:
        name = f"_pair_mass_{kernel.id}"
        lines.append(f"\n\ndef {name}(slot, {PAIR_ARGUMENTS}):\n"
                     f"    return {'.'.join(_where(_function_of(module, 'pair_mass', kernel)))}({PAIR_ARGUMENTS})\n")
        table.append(f"    {kernel.id}: {name},\n")
    lines.append("\n\n#: ``pair_mass`` of each row-scored kernel, by id (the overload's choice).\n"
                 "_PAIR_MASS = {\n" + "".join(table) + "}\n")
    parts = [k for k in rows if not k[0].whole_split], [k for k in rows if k[0].whole_split]
    for suffix, kept, steps in (("WEIGHTED", parts[0], False),
                                ("UNWEIGHTED", [(k, m) for k, m in parts[0] if not k.bounded_scan], True),
                                ("WHOLE", parts[1], False), ("WHOLE_UNWEIGHTED", parts[1], True)):
        # the tuple is handed over whole: a starred call would type the literal id as a plain int
        body = [f"    if {_condition([k.id])}:\n        return {'stepped' if steps and k.step_bounded else 'scan'}"
                f"({k.id}, args)\n" for k, _ in kept]
        lines.append(f"\n\ndef _rows_{suffix.lower()}(scan, stepped, cid, weights, whole, args):\n" + "".join(body)
                     + '    raise ValueError("not a row-scored criterion of this ladder (one searched by its bounded scan, or a '
                     'whole-split marker that does not match the criterion)")\n')
    return "".join(lines)


def render() -> str:
    """The source of :mod:`treebench.kernels.dispatch` for the modules as they are now."""
    declared: list[tuple[Kernel, object]] = []
    for module in kernel_modules():
        declared += [(kernel, module) for kernel in module.KERNELS]
    declared.sort(key=lambda pair: pair[0].id)
    ids = [k.id for k, _ in declared]
    names = [k.name.upper() for k, _ in declared]
    if len(set(ids)) != len(ids) or len(set(names)) != len(names):
        raise ValueError(f"kernel ids and names must be unique; declared: {list(zip(ids, names))}")
    additive = [(k, m) for k, m in declared if k.family == ADDITIVE]
    rows = [(k, m) for k, m in declared if k.family == ROWS]
    _USED.clear()
    width = 1 + max((k.mass_params for k, _ in additive), default=0)
    out = [f"{k.name.upper()} = {k.id}\n" for k, _ in declared]
    out.append(f"\n#: Length :func:`class_params` widens every parameter array to (zeros appended), so that the\n"
               f"#: per-candidate functions read ``params[:{width}]`` unconditionally.\nPARAMS_WIDTH = {width}\n")
    # (name, docstring, the kernels it is true of)
    predicates = [
        ("is_additive", "Whether a child's mass is a function of its size and ``G = sum_i g(c_i)``.", additive, None),
        ("is_one_vs_rest", "Whether ``G`` also sums ``g(s - c_i)`` over the classes (O(k) per candidate).", additive,
         "one_vs_rest"),
        ("is_ratio", "Whether the reported score divides the gain by a split information.", declared, "ratio"),
        ("is_purity", "Whether the node measure is a purity (the kernels minimise its negation).", declared, "purity"),
        ("has_bounded_scan", "Whether unweighted numeric features are searched by the bounded scan.", declared,
         "bounded_scan"),
        ("scores_label_masses", "Whether the label-mass sweeps score it (two classes).", declared, "label_masses"),
        ("takes_quantile", "Whether a row-scored criterion's pair mass takes a quantile ``z``.", rows, "quantile"),
        ("is_step_bounded", "Whether the unweighted threshold scan skips candidates by a bound on one sample's change.",
         rows, "step_bounded"),
        ("is_whole_split", "Whether a split is scored whole (``whole_pair_mass``, ``whole_split_mass``), not as a sum\n"
         "    of its children's masses.", rows, "whole_split"),
    ]
    for name, doc, kernels, flag in predicates:
        out.append(_predicate(name, doc, [k.id for k, _ in kernels if flag is None or getattr(k, flag)]))
    completing = [(k, m) for k, m in declared if k.class_count]
    out.append(_function(
        "_completed(cid: int, params: np.ndarray, k: int)",
        "``(cid, params)`` completed for ``k`` classes by the criteria that need the class count, else unchanged.",
        _ladder(completing, "class_params", lambda f, kernel: f"{f}(cid, params, k)"), "cid, params",
    ))
    out.append(CLASS_PARAMS)
    out.append(_function(
        "g_value(cid: int, q: float, c: float) -> float",
        "``g(c)`` of an additive criterion (``q = params[0]``); ``g(c <= 0) = 0``, which also absorbs\n"
        "    the rounding of weighted counts that should be 0.  Scalars only: a call costs no reference counting.",
        _ladder(additive, "g", lambda f, kernel: f"{f}(q, c)"), "0.0", inline=False,
        prologue=["    if c <= 0.0:", "        return 0.0"],
    ))
    out.append(G_TERM)
    out.append(_function(
        "mass_from_sum(cid: int, params: np.ndarray, table: np.ndarray, s: Any, g_sum: float) -> float",
        "``s * impurity(child)`` of an additive criterion from ``G = sum g(c_i)`` (``s``: size or weight).",
        _ladder(additive, "mass", _mass_call),
        "0.0",
        prologue=[*_params_read(width), "    if s == 0:", "        return 0.0"],
    ))
    out.append(_function(
        "one_vs_rest_mass(cid: int, params: np.ndarray, table: np.ndarray, s: Any, g_sum: float) -> float",
        "``s * impurity(child)`` of a one-vs-rest criterion, ``G`` including the rest sides; its\n"
        "    own ladder, so that a scan's one-vs-rest branch inlines only those criteria.",
        _ladder([(k, m) for k, m in additive if k.one_vs_rest], "mass",
                _mass_call),
        "0.0",
        prologue=_params_read(width),
    ))
    out.append(_function(
        "row_mass(cid: int, params: np.ndarray, row: np.ndarray, s: Any, n_branches: int, scratch: np.ndarray)"
        " -> float",
        "``s * impurity(child)`` of a row-scored criterion from its count row (``n_branches``: of its split).",
        _ladder(rows, "row_mass", lambda f, kernel: f"{f}(params, row, s, n_branches, scratch)"), "0.0",
    ))
    out.append(_row_slots(rows))
    whole = [(k, m) for k, m in rows if k.whole_split]
    out.append(_function(
        "whole_pair_mass(cid: int, params: np.ndarray, left: np.ndarray, parent: np.ndarray, right: np.ndarray,\n"
        "    w_left: Any, total: Any, scratch: np.ndarray) -> float",
        "Both children's mass of a two-branch split of a criterion scored whole (nominal and histogram\n"
        "    scans; the threshold scan calls :func:`pair_mass` with a literal slot).",
        _ladder(whole, "pair_mass", lambda f, kernel: f"{f}(left, parent, right, w_left, total, "
                f"{'params[2]' if kernel.quantile else '0.0'}, scratch)"),
        "0.0", inline=False,
    ))
    out.append(_function(
        "whole_split_mass(cid: int, params: np.ndarray, counts: np.ndarray, rows: np.ndarray, n_branches: int,\n"
        "    parent: np.ndarray, total: Any, scratch: np.ndarray) -> float",
        "The mass of a multiway split of a criterion scored whole; branch ``j`` has the counts ``counts[rows[j]]``.",
        _ladder(whole, "split_mass", lambda f, kernel: f"{f}(params, counts, rows, n_branches, parent, total, scratch)"),
        "0.0", inline=False,
    ))
    bounded = [(k, m) for k, m in rows if k.step_bounded]
    out.append(_function(
        "step_term(cid: int, c: float) -> float",
        "The term of a step-bounded criterion's bound on the change one moved sample makes (tabulated\n"
        "    by :func:`treebench.kernels.scoring.make_table`).",
        _ladder(bounded, "step_term", lambda f, kernel: f"{f}(c)"), "0.0", inline=False,
    ))
    out.append(_function(
        "value_rounding(cid: int) -> float",
        "How far a step-bounded criterion's computed value may be from the exact one.",
        [line for value, ids in _by_value(bounded, "VALUE_ROUNDING").items()
         for line in (f"    if {_condition(ids)}:", f"        return {value!r}")],
        "np.inf", inline=False,
    ))
    out.append(_function(
        "has_tie_break(cid: int, params: np.ndarray) -> bool",
        "Whether equal scores are ranked by a second key (entropy gain).",
        _ladder([(k, m) for k, m in declared if k.tie_break], "has_tie_break", lambda f, kernel: f"{f}(params)"),
        "False", inline=False,
    ))
    out.append(_function(
        "split_information(cid: int, params: np.ndarray, sizes: np.ndarray, n_branches: int, n: Any) -> float",
        "The split information a ratio criterion divides its gain by.",
        _ladder([(k, m) for k, m in declared if k.ratio], "split_info",
                lambda f, kernel: f"{f}(params, sizes, n_branches, n)"),
        "0.0", inline=False,
    ))
    imports = [f"import {_USED[alias]} as {alias}\n" for alias in sorted(_USED, key=lambda a: _USED[a])]
    body = "".join(out)
    public = re.findall(r"^(?:def )?([A-Za-z]\w*)(?: = |\()", body, flags=re.M)
    exported = "__all__ = [\n" + "".join(f"    {name!r},\n" for name in public) + "]\n\n"
    return "".join([HEADER, *imports, "\n", exported, body])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m treebench.criteria.builtin.generate",
                                     description=__doc__.split("\n")[0])
    parser.parse_args(argv)
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
