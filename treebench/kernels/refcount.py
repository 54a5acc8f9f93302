"""Kernels compiled without reference counting: the option and the rule for using it.

numba counts references to every array a compiled function holds: on entry it increments the
count of each array argument and of each view it takes, on exit it decrements them, each an
atomic operation (``lock xadd``) that also waits for the core's pending stores to drain.  A
kernel called once per node and feature (a scan, a partition) with half a dozen arrays paid
a dozen of them per call, right after its loop had filled the store buffer: a fifth of a
letter fit or more (entropy 29.9 -> 23.2 ms, min of 15 fits, with the kernels listed in
docs/architecture.md compiled this way).

``_nrt=False`` compiles a function with no reference counting at all (numba's own option; its
maintainers use it to show this cost, numba issue #2350).  That is safe for a kernel that only
reads and writes the arrays its caller hands it and returns scalars: the caller's references
keep every array alive for the whole call.  Such a kernel must not allocate (numba refuses to
compile ``np.empty`` and the like without NRT) and must not return an array or a view
(nothing would own the reference): ``tests/test_kernel_refcount.py`` checks the return types
of every kernel compiled with :data:`NO_REFCOUNT`.

numba compiles a callee with its caller's setting unless the callee states its own, so a
kernel that allocates and is reachable from one compiled without counting (a criterion's
multiway scoring under :func:`treebench.kernels.node_split.search_node`) is declared with
:data:`COUNTS_REFERENCES`; it then counts its own references whoever calls it.
"""

from __future__ import annotations

#: ``@njit(..., **NO_REFCOUNT)``: compile without reference counting (see the module docstring).
NO_REFCOUNT = {"_nrt": False}

#: ``@njit(..., **COUNTS_REFERENCES)``: a kernel that allocates keeps reference counting even when
#: a kernel compiled with :data:`NO_REFCOUNT` calls it.
COUNTS_REFERENCES = {"_nrt": True}
