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
that a learner ignoring the masses keeps.  With ``named_only`` the uncertain
class holds only examples some expert names, as the paper's K-complex class
does: a rated example of that class whom no expert names is rated again
(its votes are drawn conditionally on at least one).

:func:`no_majority_share` measures the share of the crisp uncertain class
that at most half of the experts name, on the labels a run actually uses;
:func:`expected_no_majority` gives its expectation for a class rated by
experts of given reliabilities, and :func:`equal_reliability_for` the common
reliability of the experts at which that expectation is a target share.

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
KEYS = ("uncertain_class", "share", "experts", "confused", "named_only")
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
    named_only:
        Whether every rated example of the uncertain class is named by at
        least one expert (its votes redrawn until one names it).
    """

    uncertain_class: int = 1
    share: float = 0.5
    experts: tuple[float, ...] = DEFAULT_EXPERTS
    confused: float = 0.0
    named_only: bool = False

    def fields(self) -> dict[str, Any]:
        out = {"uncertain_class": self.uncertain_class, "share": self.share, "experts": list(self.experts)}
        # only when set, so the trial keys of configs without them stay as they were
        if self.confused:
            out["confused"] = self.confused
        if self.named_only:
            out["named_only"] = True
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
    named_only = raw.get("named_only", False)
    if not isinstance(named_only, bool):
        raise TreebenchError(f"named_only={named_only!r} is invalid; accepted: true or false")
    if named_only and not any(e > 0 for e in experts):
        raise TreebenchError("named_only=true needs an expert of reliability > 0 (no one could name an example)")
    return LabelUncertainty(int(cls), float(share), tuple(float(e) for e in experts), float(confused), named_only)


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
    votes = rng.random((len(rated), reliability.shape[1])) < reliability
    if spec.named_only:
        # the class is "every example some expert named": draw again the votes no expert cast
        unnamed = np.flatnonzero(~votes.any(axis=1))
        while unnamed.size:
            votes[unnamed] = rng.random((unnamed.size, reliability.shape[1])) < reliability
            unnamed = unnamed[~votes[unnamed].any(axis=1)]
    q = votes.mean(axis=1)
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


def no_majority_share(masses: np.ndarray, labels: np.ndarray, uncertain_class: int = 1) -> float:
    """Share of the crisp ``uncertain_class`` examples that at most half of the experts name.

    ``masses`` and ``labels`` are :func:`simulate_label_masses`' output: an
    example of that class has ``m({c}) = q``, the share of experts naming it
    (1 when it was not rated, so it counts as named by a majority).  NaN
    when no example has the class.
    """
    in_class = np.asarray(labels) == uncertain_class
    if not in_class.any():
        return float("nan")
    q = np.asarray(masses, dtype=float)[in_class, uncertain_class]
    return float(np.mean(q <= 0.5 + 1e-12))


def vote_distribution(experts: tuple[float, ...] | list[float]) -> np.ndarray:
    """``P(V = v)``, ``v = 0 .. len(experts)``: how many of independent experts of these reliabilities name a true example."""
    dist = np.array([1.0])
    for r in experts:
        dist = np.concatenate([dist * (1.0 - r), [0.0]]) + np.concatenate([[0.0], dist * r])
    return dist


def expected_no_majority(experts: tuple[float, ...] | list[float], named_only: bool = True) -> float:
    """Expected share of rated uncertain-class examples named by at most half of the experts.

    With ``named_only`` the votes are conditioned on at least one expert naming the example.
    """
    dist = vote_distribution(experts)
    half = len(experts) // 2  # at most half: v <= floor(E / 2)
    low = dist[: half + 1].sum()
    if named_only:
        return float((low - dist[0]) / (1.0 - dist[0]))
    return float(low)


def equal_reliability_for(target: float, n_experts: int = 5, named_only: bool = True) -> float:
    """The common reliability of ``n_experts`` experts at which :func:`expected_no_majority` is ``target``.

    The share falls as the reliability rises, so a bisection finds it
    (to 1e-12); ``target`` must lie strictly between the shares at
    reliabilities 1 and (nearly) 0.
    """
    lo, hi = 1e-6, 1.0
    share_lo = min(expected_no_majority([lo] * n_experts, named_only), 1.0)
    if not 0.0 < target < share_lo:
        raise TreebenchError(f"target share {target!r} is out of reach; accepted: 0 < target < {share_lo:.3f}")
    for _ in range(100):
        mid = (lo + hi) / 2
        if expected_no_majority([mid] * n_experts, named_only) > target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2
