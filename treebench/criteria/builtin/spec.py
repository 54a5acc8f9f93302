"""What a built-in criterion module declares for the kernels: :class:`Kernel`.

A module of :mod:`treebench.criteria.builtin` lists one :class:`Kernel` per
compiled variant in ``KERNELS``; :mod:`treebench.criteria.builtin.generate`
reads them and writes the dispatch the kernels call
(:mod:`treebench.kernels.dispatch`).  A flag says which compiled functions the
module defines, so the generator knows which branches to write:

``ADDITIVE`` family
    ``g(q, c)``: the term of ``G = sum_i g(c_i)`` for a count ``c > 0``
    (``q = params[0]``), and ``mass(q, s, g_sum, g_s)``: ``s * impurity`` of
    a child of size ``s`` from ``G`` (``g_s = g(s)``, read from the table for
    integer sizes, when ``g_of_size``; else ``0.0``), scalars only: an array
    handed to an inlined function in a branch costs a reference-count
    increment and decrement per candidate (the hot-path rule of
    :mod:`treebench.kernels.scoring`; measured: +50 % on an entropy fit).
    With ``mass_params = m`` it is ``mass(q, s, g_sum, g_s, params[1], ...,
    params[m])``: the dispatch reads them inside the criterion's branch,
    where no array crosses a call (belief reads four).
``ROWS`` family
    ``row_mass(params, row, s, n_branches, scratch)``: ``s * impurity`` of one
    child from its count row, and ``pair_mass(left, parent, right, w_left,
    total, z, scratch)``: both children of a threshold (``z``: the quantile
    of :func:`quantile` with ``quantile``, else ``None``).
``whole_split`` (rows only)
    The split's value is no sum over its children (Hellinger distance):
    ``pair_mass`` scores every two-branch split (thresholds, one nominal
    value against the rest, the histogram scan) and ``split_mass(params,
    counts, rows, n_branches, parent, total, scratch)`` a multiway one (branch
    ``j`` has the counts ``counts[rows[j]]``); ``row_mass`` only scores a node
    on its own.  Its fits hand the builders a marker array (``whole``, see
    :func:`treebench.criteria.builtin.whole_split_marker`), every other
    criterion's ``None``: only the builder compiled for the array holds
    whole-split code.
``step_bounded`` (whole split, no tie break)
    Moving one sample of a class with ``l`` samples on the left and ``r`` on
    the right changes the split's value by at most
    ``sqrt((step_term(l) + step_term(r - 1)) / (l + r))``, and a computed
    value is within ``VALUE_ROUNDING`` of the exact one: the unweighted
    threshold scan skips the candidates that cannot beat the best so far
    (:mod:`treebench.kernels.step_scan`; ``step_term`` is tabulated per fit).
``suffix``
    The module's functions for this kernel carry the suffix (a module with
    two compiled variants: ``pair_mass`` and ``pair_mass_ovr``).
``ratio``
    ``split_info(params, sizes, n_branches, n)``: the score is the
    gain divided by it.
``class_count``
    ``class_params(cid, params, k)``: the parameters completed for ``k``
    classes (and the kernel id, which may change with ``k``).
``tie_break``
    ``has_tie_break(params)``: whether tied scores are ranked by entropy gain.

Numba cannot call through a table of functions at the cost of a branch, so
the dispatch is *generated* source: one ``if cid == K`` ladder per compiled
function, each branch a direct call that numba inlines or links like any
other (see :mod:`treebench.criteria.builtin.generate` for the choice).

How each is compiled was chosen by measuring the first compile of a plain
tree and the fit times: numba's own inlining (``inline="always"``) runs the
callee through its front end again at every call site, and the ladders are
inlined into several scans, each compiled for integer counts and weights.

* The scalar ones (``g``, ``mass``) are plain ``@njit`` functions: numba
  compiles each once per signature, and LLVM inlines them into the ladders'
  callers.  Belief's ``mass`` is ``inline="always"`` (a call left in the
  scan's loop slowed the weighted scans, see its module).
* The ones handed arrays once per candidate (``row_mass``, ``pair_mass``,
  ``split_info``, ``class_params``) are ``inline="always"``: a plain call
  there costs a reference-count increment and decrement per array (the
  hot-path rule of :mod:`treebench.kernels.scoring`; a plain possibilistic
  ``pair_mass`` made its weighted fits 7 % slower).  The row-scored scan
  is compiled once per row-scored criterion, its kernel id handed over as a
  literal (:func:`treebench.kernels.dispatch.with_row_slot`), and
  :func:`treebench.kernels.dispatch.pair_mass` inlines that criterion's
  ``pair_mass`` alone: inlining every one and pruning after would add each
  criterion's code to every version of the scan (most of what the generated
  dispatch first added to the first compile).

Every impurity is minimised; a purity (``purity=True``) is scored as its
negation and reported back with its sign.
"""

from __future__ import annotations

from dataclasses import dataclass

#: A child's mass is a function of its size and ``G = sum_i g(c_i)``: O(1) per sample in a scan.
ADDITIVE = "additive"
#: A child's mass needs its whole count row.
ROWS = "rows"
FAMILIES = (ADDITIVE, ROWS)


@dataclass(frozen=True)
class Kernel:
    """One compiled criterion: its id in the kernels and what its module defines.

    Parameters
    ----------
    id
        The integer the kernels dispatch on (a ``Criterion``'s ``kernel_id``);
        unique over all modules.
    name
        The constant the dispatch exports for it (upper-cased), e.g. ``"gini"`` -> ``GINI``.
    family
        :data:`ADDITIVE` or :data:`ROWS` (see the module docstring).
    g_of_size
        Additive only: ``mass`` reads ``g(s)`` of the child's size.
    ratio
        The reported score is gain / ``split_info``.
    one_vs_rest
        Additive only: ``G`` also sums ``g(s - c_i)`` over the classes (O(k) per candidate).
    class_count
        The module's ``class_params`` completes the parameters with the class count.
    purity
        The node measure is a purity: the kernels minimise its negation.
    tie_break
        The module's ``has_tie_break`` says when tied scores are ranked by entropy gain.
    bounded_scan
        Unweighted numeric features are searched by the criterion's own bounded scan
        (:mod:`treebench.kernels.possibilistic_bound`), and the online tree skips searches by its bound.
    quantile
        Rows only: ``pair_mass`` takes the two-branch quantile ``params[2]`` as ``z`` (else 0).
    whole_split
        Rows only: the split is scored whole (``pair_mass``, ``split_mass``), not as a sum of ``row_mass``.
    step_bounded
        Whole split only: a bound on the change one moved sample makes (``step_term``,
        ``VALUE_ROUNDING``; see the module docstring), by which the unweighted threshold scan skips
        candidates that cannot win.
    suffix
        The names of the module's functions for this kernel end with it (e.g. ``"_ovr"``).
    mass_params
        Additive only: ``mass`` also takes ``params[1]`` to ``params[mass_params]`` (scalars).
    label_masses
        The builder's label-mass sweeps (:mod:`treebench.kernels.belief`) score it from per-example
        masses of two classes.
    """

    id: int
    name: str
    family: str
    g_of_size: bool = False
    ratio: bool = False
    one_vs_rest: bool = False
    class_count: bool = False
    purity: bool = False
    tie_break: bool = False
    bounded_scan: bool = False
    quantile: bool = False
    label_masses: bool = False
    mass_params: int = 0
    whole_split: bool = False
    step_bounded: bool = False
    suffix: str = ""

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ValueError(f"kernel {self.name!r}: family {self.family!r}; accepted: {', '.join(FAMILIES)}")
        if not self.name.isidentifier():
            raise ValueError(f"kernel name {self.name!r} is not an identifier")
        if self.whole_split and self.family != ROWS:
            raise ValueError(f"kernel {self.name!r}: whole_split is for the {ROWS} family")
        if self.step_bounded and (not self.whole_split or self.tie_break):
            raise ValueError(f"kernel {self.name!r}: step_bounded is for a whole-split kernel without a tie break")
        if self.id < 0:
            raise ValueError(f"kernel {self.name!r}: id {self.id}; accepted: an integer >= 0")
