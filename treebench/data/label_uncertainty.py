"""Simulated expert label uncertainty (paper 004's protocol on public data).

The paper's EEG labels came from five physicians: one class was certain, and
for the other each pattern got ``m({w2}) = q`` (``q`` = share of experts who
named the class) and ``1 - q`` on Omega.  :func:`simulate_label_masses`
imitates that on a crisp two-class dataset: a seeded share of the uncertain
class's examples is rated by simulated experts, expert ``e`` naming the class
with probability ``experts[e]`` (its reliability); the other examples keep
crisp labels.  The config key ``label_uncertainty`` carries the parameters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from treebench.errors import TreebenchError

#: Stream id for the label simulation (see treebench.experiment.protocols).
LABEL_STREAM = 104
KEYS = ("uncertain_class", "share", "experts")
DEFAULT_EXPERTS = (0.95, 0.85, 0.75, 0.65, 0.55)


@dataclass(frozen=True)
class LabelUncertainty:
    """Parameters of the simulation.

    Attributes
    ----------
    uncertain_class:
        Code (0 or 1) of the class whose examples experts rate; the other
        class is certain.
    share:
        Fraction of that class's examples rated by the experts, in (0, 1].
    experts:
        Reliability of each expert in [0, 1]: the probability that they name
        the (true) uncertain class for a rated example.
    """

    uncertain_class: int = 1
    share: float = 0.5
    experts: tuple[float, ...] = DEFAULT_EXPERTS

    def fields(self) -> dict[str, Any]:
        return {"uncertain_class": self.uncertain_class, "share": self.share, "experts": list(self.experts)}


def parse_label_uncertainty(raw: Any) -> LabelUncertainty:
    """Validate the config mapping; raises a one-line :class:`TreebenchError`."""
    if not isinstance(raw, dict):
        raise TreebenchError(f"expected a mapping with keys {', '.join(KEYS)}; got {type(raw).__name__}")
    unknown = [key for key in raw if key not in KEYS]
    if unknown:
        raise TreebenchError(f"unknown key {unknown[0]!r}; accepted: {', '.join(KEYS)}")
    cls = raw.get("uncertain_class", 1)
    if isinstance(cls, bool) or cls not in (0, 1):
        raise TreebenchError(f"uncertain_class={cls!r} is invalid; accepted: 0 or 1 (a class code)")
    share = raw.get("share", 0.5)
    if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 < share <= 1:
        raise TreebenchError(f"share={share!r} is out of range; accepted: 0 < share <= 1")
    experts = raw.get("experts", list(DEFAULT_EXPERTS))
    if (
        not isinstance(experts, list)
        or not experts
        or any(isinstance(e, bool) or not isinstance(e, (int, float)) or not 0 <= e <= 1 for e in experts)
    ):
        raise TreebenchError(f"experts={experts!r} is invalid; accepted: a non-empty list of reliabilities in [0, 1]")
    return LabelUncertainty(int(cls), float(share), tuple(float(e) for e in experts))


def crisp_label_masses(y: np.ndarray, n_classes: int) -> np.ndarray:
    """One-hot label masses ``(n, k + 1)`` (nothing on Omega)."""
    masses = np.zeros((len(y), n_classes + 1))
    masses[np.arange(len(y)), np.asarray(y, dtype=np.int64)] = 1.0
    return masses


def simulate_label_masses(y: np.ndarray, spec: LabelUncertainty, rng: np.random.Generator) -> np.ndarray:
    """Label masses ``(n, 3)`` for two-class codes ``y``: crisp, except the rated examples.

    A rated example of the uncertain class ``c`` gets ``m({c}) = q`` and
    ``m(Omega) = 1 - q``, ``q`` the fraction of experts naming ``c``.
    """
    y = np.asarray(y, dtype=np.int64)
    if y.size and (y.min() < 0 or y.max() > 1):
        raise TreebenchError("label_uncertainty needs a two-class dataset (class codes 0 and 1)")
    masses = crisp_label_masses(y, 2)
    candidates = np.flatnonzero(y == spec.uncertain_class)
    rated = candidates[rng.random(len(candidates)) < spec.share]
    votes = rng.random((len(rated), len(spec.experts))) < np.asarray(spec.experts)[None, :]
    q = votes.mean(axis=1)
    masses[rated] = 0.0
    masses[rated, spec.uncertain_class] = q
    masses[rated, 2] = 1.0 - q
    return masses
