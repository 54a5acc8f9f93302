"""Paper 004's own section, named in its ``paper.yaml`` (``sections:belief_tables``).

Crisp against uncertain labels, belief against entropy and C4.5, on the
public datasets and under every reading; the paper's C4.5 sentence (the
statement whose claim compares ``belief-crisp`` with ``c4.5``) is judged
under each reading too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from treebench.errors import TreebenchError
from treebench.report.sections import Section
from treebench.report.spec import PaperSpec, SectionContext, section_builder

if TYPE_CHECKING:
    import pandas as pd

#: The algorithms of configs/belief.yaml that every simulation reading's config reruns.
ALGORITHMS = ("belief-crisp", "belief-uncertain", "entropy", "c4.5")
#: The two belief arms (the paper's Table 1 columns).
ARMS = ("belief-crisp", "belief-uncertain")

#: The text's share of the K-complex class without a majority of experts (section 4: "only one half").
TEXT_NO_MAJORITY = 0.5


def c45_claim(spec: PaperSpec) -> Any:
    """The claim of ``spec``'s inventory that compares the crisp belief arm with C4.5 (section 4's sentence).

    Raises
    ------
    TreebenchError
        No statement's claim compares ``belief-crisp`` with ``c4.5``.
    """
    for statement in spec.claims:
        claim = getattr(statement, "claim", None)
        if getattr(claim, "a", None) == ARMS[0] and getattr(claim, "b", None) == "c4.5":
            return claim
    raise TreebenchError(f"{spec.key}: no claim compares {ARMS[0]} with c4.5; accepted: a statement whose "
                         "claim has a: belief-crisp, b: c4.5 (paper.yaml)")


def reading_frames(context: SectionContext) -> dict[str, pd.DataFrame]:
    """The default reading's trials and each reading's (name -> frame, its algorithms under the default names).

    A reading of another config counts once its store was read; one of
    configs/belief.yaml's extra algorithms once they have trials.
    """
    from treebench.report.reproduce import reading_frame

    frames = {"default": context.frame}
    names = set(context.frame["algorithm"].astype(str)) if "algorithm" in context.frame.columns else set()
    for reading in context.spec.readings:
        source = context.reading_sources.get(reading.name) if reading.config else None
        if reading.config and source is None:
            continue
        if not reading.config and not set(reading.rename) <= names:
            continue
        frames[reading.name] = reading_frame(context.frame, reading, source)
    return frames


def label_configs(spec: PaperSpec) -> dict[str, str]:
    """Frame name of :func:`reading_frames` -> the config its labels come from."""
    out = {"default": spec.config}
    for reading in spec.readings:
        out[reading.name] = reading.config or spec.config
    return out


@section_builder("belief_tables")
def belief_tables(context: SectionContext) -> list[Section]:
    """Crisp vs uncertain labels, belief vs entropy and C4.5 per public dataset (C4.5 under every reading)."""
    import pandas as pd

    from treebench.papers.belief.tables import belief_section

    if not context.has_trials:
        return []
    from treebench.papers.belief.labels import label_summaries

    claim = c45_claim(context.spec)
    frames = reading_frames(context)
    configs = label_configs(context.spec)
    labels = {name: label_summaries(configs[name]) for name in frames}
    return [belief_section(context.frame, {name: claim.evaluate(pd.DataFrame(), frame)
                                           for name, frame in frames.items()}, labels, frames)]
