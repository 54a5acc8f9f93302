"""Simulated expert labels given as mass functions over the classes.

When several experts label the same examples and do not always agree, a
two-class example's label can be kept as a *mass function* instead of one
class: mass ``q`` on the class the experts named (``q`` = the share of
experts who named it) and ``1 - q`` on Omega, the set of all classes (what
the experts leave open).  :func:`simulate_label_masses` makes such labels
from a crisp two-class dataset: a seeded share of one class's examples (the
*uncertain class*) is rated by simulated experts, expert ``e`` naming the
class with probability ``experts[e]`` (its reliability); the other examples
keep crisp labels.  A ``confused`` share of the other class can be rated too
(experts err on it with probability ``1 - experts[e]``): the examples that at
least one expert names join the uncertain class in the crisp labels, as when
a class is defined as "every example some expert named" -- the label noise
that a learner ignoring the masses keeps.

The protocol follows the multi-expert labelling described by Denœux &
Skarstein Bjanger (IEEE SMC 2000).  Its parameters come from a config's
mapping, validated by the parser below.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from treebench.errors import TreebenchError

#: Stream id for the label simulation (see treebench.experiment.protocols).
LABEL_STREAM = 104
KEYS = ("uncertain_class", "share", "experts", "confused")
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
        Reliability of each expert in [0, 1]: the probability that they give
        a rated example its true class.
    confused:
        Fraction of the certain class's examples that are rated too, in [0, 1).
    """

    uncertain_class: int = 1
    share: float = 0.5
    experts: tuple[float, ...] = DEFAULT_EXPERTS
    confused: float = 0.0

    def fields(self) -> dict[str, Any]:
        out = {"uncertain_class": self.uncertain_class, "share": self.share, "experts": list(self.experts)}
        if self.confused:
            out["confused"] = self.confused
        return out


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
    confused = raw.get("confused", 0.0)
    if isinstance(confused, bool) or not isinstance(confused, (int, float)) or not 0 <= confused < 1:
        raise TreebenchError(f"confused={confused!r} is out of range; accepted: 0 <= confused < 1")
    return LabelUncertainty(int(cls), float(share), tuple(float(e) for e in experts), float(confused))


def crisp_label_masses(y: np.ndarray, n_classes: int) -> np.ndarray:
    """One-hot label masses ``(n, k + 1)`` (nothing on Omega)."""
    masses = np.zeros((len(y), n_classes + 1))
    masses[np.arange(len(y)), np.asarray(y, dtype=np.int64)] = 1.0
    return masses


def simulate_label_masses(
    y: np.ndarray, spec: LabelUncertainty, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Label masses ``(n, 3)`` and crisp labels for two-class codes ``y``.

    A rated example gets ``m({c}) = q`` and ``m(Omega) = 1 - q``, ``q`` the
    fraction of experts naming the uncertain class ``c``.  A rated example of
    the certain class that no expert names keeps its crisp label; one that
    some expert names is labelled ``c`` in the crisp labels.
    """
    y = np.asarray(y, dtype=np.int64)
    if y.size and (y.min() < 0 or y.max() > 1):
        raise TreebenchError("label_uncertainty needs a two-class dataset (class codes 0 and 1)")
    masses = crisp_label_masses(y, 2)
    labels = y.copy()
    c = spec.uncertain_class
    reliability = np.asarray(spec.experts)[None, :]
    candidates = np.flatnonzero(y == c)
    rated = candidates[rng.random(len(candidates)) < spec.share]
    q = (rng.random((len(rated), reliability.shape[1])) < reliability).mean(axis=1)
    others = np.flatnonzero(y != c)
    confused = others[rng.random(len(others)) < spec.confused] if spec.confused else others[:0]
    q_confused = (rng.random((len(confused), reliability.shape[1])) >= reliability).mean(axis=1)
    named = q_confused > 0
    rated = np.concatenate([rated, confused[named]])
    q = np.concatenate([q, q_confused[named]])
    masses[rated] = 0.0
    masses[rated, c] = q
    masses[rated, 2] = 1.0 - q
    labels[rated] = c
    return masses, labels
