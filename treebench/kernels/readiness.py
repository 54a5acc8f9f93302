"""Whether the compiled tree builder is already on disk, so a first run can say that it will compile.

numba compiles the split kernels on first use and caches the machine code
next to the sources (or in ``NUMBA_CACHE_DIR``); that first compile takes
tens of seconds, during which a progress bar would sit at 0% with no word.
"""

from __future__ import annotations

#: What a run prints before it compiles (the estimate: an idle 2-core machine; a loaded one takes longer).
COMPILE_NOTICE = (
    "treebench: compiling the split kernels (first run only; about 20 s on 2 idle cores, longer on a busy machine)"
)


def builder_cached() -> bool | None:
    """``True`` if numba's cache holds the tree builder for the current source, ``False`` if not.

    ``None`` when it cannot tell (numba's cache internals changed, caching off):
    callers then say nothing rather than something wrong.
    """
    try:
        from treebench.kernels.induction import build

        # the index is empty when missing or when its source stamp no longer matches
        return bool(build._cache._cache_file._load_index())
    except Exception:
        return None
