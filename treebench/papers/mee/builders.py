"""Paper 001's section builder, named in its ``paper.yaml`` as ``builders:mee``.

The computations live in :mod:`.sections` (R, the sensitivity to the
readings, Fig. 5, Fig. 1, section 4), imported when the section is built, so
that reading the paper folder stays light.  What the builder needs of the
paper -- which readings stand in for MEE, the CART leave-one-out reading, the
cases of Table 1 -- it takes from the loaded spec, so ``paper.yaml`` stays
the one place that says it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from treebench.report.sections import Section
from treebench.report.spec import PaperSpec, SectionContext, section_builder

if TYPE_CHECKING:
    import pandas as pd

#: The algorithm the MEE readings stand in for, and the reading of CART on MEE's leave-one-out splits.
MEE = "mee"
CART_LOO = "CART leave-one-out"


def mee_variants(spec: PaperSpec) -> dict[str, str]:
    """Reading name -> the algorithm run under it, for every reading standing in for MEE (``default``: mee)."""
    return {"default": MEE, **{reading.name: run for reading in spec.readings
                               for run, stands_for in reading.rename.items() if stands_for == MEE}}


def sensitivity_trials(context: SectionContext) -> pd.DataFrame | None:
    """The trials of the MEE readings run from their own config (one store for all of them), or ``None``."""
    return next((context.reading_sources[r.name] for r in context.spec.readings
                 if r.config and MEE in r.rename.values() and r.name in context.reading_sources), None)


@section_builder("mee")
def mee(context: SectionContext) -> list[Section]:
    """Section 5's R, the MEE sensitivity to the readings, Fig. 5, Fig. 1 and section 4; ``context.options``
    may hold the ``levels``, ``curve``, ``versus_ig`` and ``cart_loo`` settings of
    :func:`~treebench.papers.mee.sections.mee_sections` (``cart_loo`` and ``sensitivity``: the trials of
    configs/mee-cart-loo.yaml and configs/mee-sensitivity.yaml; left out, the readings' trials the report was
    given)."""
    from treebench.papers.mee.sections import mee_sections

    options: dict[str, Any] = dict(context.options)
    options.setdefault("cart_loo", context.reading_trials(CART_LOO))
    frame = context.frame
    extra = options.pop("sensitivity") if "sensitivity" in options else sensitivity_trials(context)
    if extra is not None and len(extra) and len(frame):
        import pandas as pd

        frame = pd.concat([frame, extra], ignore_index=True)
    options.setdefault("cases", {label: ds.rows for label, ds in context.spec.datasets.items()})
    return mee_sections(context.out_dir, frame, context.reference, variants=mee_variants(context.spec), **options)
