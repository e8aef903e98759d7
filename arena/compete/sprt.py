"""Testing a new version of a bot against its base: a sequential probability ratio test on pairs.

``arena sprt NEW BASE`` plays duplicate pairs (the same deals twice, seats swapped: schedule.py) and
after every complete pair asks one question: is NEW at least ``elo1`` stronger than BASE (H1), or at
most ``elo0`` (H0)? Wald's test stops as soon as the evidence for one side is strong enough, with
error rates ``alpha`` (H1 accepted though H0 holds) and ``beta`` (H0 accepted though H1 holds).

How the evidence is counted follows fishtest for paired openings (Michel Van den Bergh's GSPRT):

- **The pair is the unit.** A pair's two matches share their cards, so they are not independent;
  each pair gives NEW a pair score, the mean of its two match scores (a win 1, a draw ½, a loss 0):
  0, ¼, ½, ¾ or 1 (``stats.py`` counts the same in match points, 0 to 2). The counts of the five
  are the *pentanomial*. Only complete pairs count, in schedule order, and the first bound the LLR
  reaches is the verdict (``SequentialTest``): the same stored pairs give the same verdict however
  the workers finished them.
- **Logistic Elo.** ``elo0``/``elo1`` are logistic Elo differences (the Elo of cutechess,
  fastchess's ``model=logistic`` and the leaderboard's Elo column): an expected match score
  ``s = 1 / (1 + 10^(-elo / 400))``, so 0 Elo is a score of ½ and 10 Elo is 0.5144. Not fishtest's
  *normalized* Elo, which divides by the spread of the results and so depends on the bots' draw
  rate and luck: a bound of 10 would mean something else for Schnapsen than for Sixty-Six.
- **The generalized LLR.** Under a hypothesis the mean pair score is ``s(elo)``; the pentanomial's
  five probabilities are otherwise free. Each hypothesis is represented by the distribution with
  that mean that makes the observed pairs most likely (the maximum-likelihood estimate under the
  constraint, found with one Lagrange multiplier), and the log-likelihood ratio is the sum over the
  pairs of ``log p1(pair) / p0(pair)``. With only wins and losses this is exactly the classic
  binomial SPRT's ``W log(s1/s0) + L log((1-s1)/(1-s0))``.
- **Bounds.** Wald's ``log(beta / (1 - alpha))`` (accept H0 at or below) and
  ``log((1 - beta) / alpha)`` (accept H1 at or above): ±2.944 for the default 0.05 and 0.05.

An empty cell of the pentanomial gets a count of ``REGULARIZE`` (as fishtest does): with, say, only
won pairs so far, no distribution on the observed values alone could have a mean below 1, and the
test would have no likelihood to compare.
"""

from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Sequence

from arena.results.stats import PAIR_SCORES, Pentanomial, match_points, pentanomial, score_from_elo

__all__ = ["REGULARIZE", "SequentialTest", "Sprt", "SprtError", "SprtState", "Verdict", "bounds",
           "llr", "pair_results_from_store"]

PAIR_MEANS = tuple(points / 2 for points in PAIR_SCORES)
"""NEW's mean match score in a duplicate pair, one per pentanomial cell (stats.PAIR_SCORES
counts match points, 0 to 2): 0, ¼, ½, ¾, 1, comparable with ``score_from_elo``."""

REGULARIZE = 1e-3
"""The count an empty pentanomial cell is given (fishtest's choice): small enough to change a
test's LLR by less than one part in a thousand once a few pairs are in."""


class SprtError(ValueError):
    """Settings no test can run with (a user mistake: exit 2 at the command line)."""


class Verdict(StrEnum):
    """Where the test stands after the pairs so far."""

    H0 = "H0 accepted"        # NEW is at most elo0 stronger (the LLR reached the lower bound)
    H1 = "H1 accepted"        # NEW is at least elo1 stronger (the LLR reached the upper bound)
    CONTINUE = "continue"     # neither yet: play more pairs

    def __repr__(self) -> str:
        return f"Verdict.{self.name}"


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's stopping bounds on the LLR: H0 is accepted at or below the first, H1 at or above the
    second."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _constrained_mle(probs: Sequence[float], values: Sequence[float],
                     mean: float) -> list[float]:
    """The distribution on ``values`` with the given ``mean`` that maximises the likelihood of
    samples whose observed frequencies are ``probs`` (all > 0).

    Maximising ``sum(p̂ log p)`` subject to ``sum(p) = 1`` and ``sum(p a) = mean`` gives
    ``p_i = p̂_i / (1 + λ (a_i - mean))`` with λ the root of
    ``f(λ) = sum(p̂_i (a_i - mean) / (1 + λ (a_i - mean)))``. ``f`` falls strictly from +∞ to -∞
    on the λ that keep every ``p_i`` positive, so the root is unique: Newton's method from λ = 0
    (the observed distribution itself), kept inside a shrinking bracket by bisection. Hand-written
    rather than scipy's ``brentq``: five terms, called after every pair (and thousands of times by
    the simulation test): ``brentq`` over the same bracket took 5 times as long (52 µs against
    10 µs a call, measured), its extra evaluations of ``f`` being the whole cost."""
    terms = [(p, a - mean) for p, a in zip(probs, values)]
    # The bracket: 1 + λ·shift > 0 for every value (some lie above the mean, some below).
    low = -1.0 / max(d for _, d in terms)
    high = -1.0 / min(d for _, d in terms)
    lam = 0.0
    for _ in range(200):
        f = slope = 0.0
        for p, d in terms:
            ratio = d / (1.0 + lam * d)
            f += p * ratio
            slope -= p * ratio * ratio
        if abs(f) < 1e-14:
            break
        if f > 0:
            low = lam
        else:
            high = lam
        step = lam - f / slope
        lam = step if low < step < high else (low + high) / 2.0
        if high - low < 1e-15:
            break
    return [p / (1.0 + lam * d) for p, d in terms]


def llr(penta: Pentanomial, elo0: float, elo1: float) -> float:
    """The generalized log-likelihood ratio of H1 (a mean match score of ``score_from_elo(elo1)``)
    against H0 (``score_from_elo(elo0)``) for the pairs counted in ``penta`` (NEW as bot A). 0 with
    no pairs."""
    if not penta.pairs:
        return 0.0
    regular = [c if c > 0 else REGULARIZE for c in penta.counts]
    total = sum(regular)
    observed = [c / total for c in regular]
    p0 = _constrained_mle(observed, PAIR_MEANS, score_from_elo(elo0))
    p1 = _constrained_mle(observed, PAIR_MEANS, score_from_elo(elo1))
    return sum(c * math.log(b / a) for c, a, b in zip(regular, p0, p1))


@dataclass(frozen=True)
class SprtState:
    """The test after ``pairs`` complete pairs: its LLR between the two bounds, and the verdict."""

    pairs: int
    llr: float
    lower: float
    upper: float
    verdict: Verdict


@dataclass(frozen=True)
class Sprt:
    """A test's hypotheses (logistic Elo of NEW over BASE) and error rates."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1"):
            value = getattr(self, name)
            if not math.isfinite(value) or abs(value) >= 2000:
                raise SprtError(f"{name} must be a logistic Elo difference between -2000 and "
                                f"2000, not {value}")
        if not self.elo0 < self.elo1:
            raise SprtError(f"elo0 must be below elo1 (H0: NEW is at most elo0 stronger; H1: at "
                            f"least elo1), not elo0 {self.elo0} and elo1 {self.elo1}")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 0.5:
                raise SprtError(f"{name} must be an error rate between 0 and 0.5, not {value}")

    @property
    def bounds(self) -> tuple[float, float]:
        return bounds(self.alpha, self.beta)

    def state(self, penta: Pentanomial) -> SprtState:
        """Where the test stands after the pairs counted in ``penta`` (NEW as bot A)."""
        value = llr(penta, self.elo0, self.elo1)
        lower, upper = self.bounds
        verdict = Verdict.H1 if value >= upper else Verdict.H0 if value <= lower \
            else Verdict.CONTINUE
        return SprtState(penta.pairs, value, lower, upper, verdict)


# -- the test, pair after pair --------------------------------------------------------------------

@dataclass
class SequentialTest:
    """A test fed pairs in schedule order. It stops at the first pair whose LLR reaches a bound:
    pairs after that (matches that were in flight when the run stopped, say) change nothing, so a
    resumed or re-read test reaches the same verdict on the same pairs, whatever order the workers
    finished them in."""

    test: Sprt
    seen: int = 0  # pairs looked at, no-contest ones included
    penta: Pentanomial = field(default_factory=Pentanomial)
    state: SprtState | None = None

    def __post_init__(self) -> None:
        if self.state is None:
            self.state = self.test.state(self.penta)

    @property
    def current(self) -> SprtState:
        assert self.state is not None  # set in __post_init__
        return self.state

    def feed(self, results: Sequence[float | None]) -> SprtState:
        """Go on over ``results`` (NEW's match points per pair in schedule order, all so far: the
        ones already seen are skipped; None for a pair that counts for nobody)."""
        for points in results[self.seen:]:
            if self.current.verdict is not Verdict.CONTINUE:
                break
            self.seen += 1
            if points is not None:
                self.penta = self.penta + pentanomial([points])
                self.state = self.test.state(self.penta)
        return self.current


def pair_results_from_store(db: sqlite3.Connection, new: str) -> list[float | None]:
    """NEW's match points (0 to 2) in each duplicate pair of a two-bot store, in schedule order,
    up to the first pair not yet complete (only complete pairs count). A pair with a match nobody
    played (no contest: ``stats.match_points`` gives it no score) is None: it counts for nobody
    and holds up nothing."""
    halves: dict[int, list[float | None]] = {}
    for pair_index, seat0, seat1, winner, reason in db.execute(
            "SELECT pair_index, seat0, seat1, winner, reason FROM matches"):
        if new in (seat0, seat1):
            halves.setdefault(pair_index, []).append(
                match_points(winner, 0 if seat0 == new else 1, played=reason != "no_contest"))
    results: list[float | None] = []
    while len(halves.get(len(results), ())) == 2:
        a, b = halves[len(results)]
        results.append(None if a is None or b is None else a + b)
    return results
