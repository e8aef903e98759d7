"""Statistics that say what is noise: intervals, Elo and likelihood of superiority (issue 17).

Every two-player pairing plays **duplicate pairs** (``schedule.round_robin``: the same deals twice,
seats swapped). The two matches of a pair are not independent (they share every card), so the
unit of every interval here is the pair, as fishtest does with paired openings: a pair scores 0,
½, 1, 1½ or 2 match points for bot A (a won match 1, a drawn match ½, a lost one 0; a forfeit is
a loss for the offender), and the five counts are the **pentanomial**. Its mean and variance per
pair give the score interval, the Elo interval and the likelihood of superiority (LOS). Three and
four players generalise the pair to the *deal set* (six seatings on the same cards), and the same
cluster-as-unit rule applies (``clustered_mean``).

Conventions, as fishtest's ``stat_util``: the variance is the sample's own (divided by N, not
N - 1); intervals are normal approximations of the mean, mean ± z·sd/√N, with z the normal quantile
of the level; Elo is logistic, 400·log10(s / (1 - s)); LOS is Φ((mean - ½) / sd of the mean).

The batch Elo fit (``fit_elo``) is a Bradley–Terry (logistic) maximum-likelihood fit over all
results at once, so the order of the matches does not matter (TrueSkill, the platform's rating,
is replayed in schedule order and stays the ranking). Its intervals come from a **sandwich
variance clustered on the deal set**: one extra pass over the data, exact in the limit whatever
the correlation within a pair, and deterministic; a cluster bootstrap would need hundreds of
refits every time a report is rebuilt (reports are rebuilt while a tournament runs).

numpy and scipy do the numerics (normal quantiles and CDF, the optimiser, the null space);
nothing here hand-writes what they provide (STYLE.md §10).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Hashable, Iterable, Sequence

import numpy as np
from scipy import linalg, optimize
from scipy.stats import norm

LEVEL = 0.95
PAIR_SCORES = (0.0, 0.5, 1.0, 1.5, 2.0)
"""Match points a duplicate pair can give bot A: the index into ``Pentanomial.counts``."""
_ELO_PER_NAT = 400 / math.log(10)  # logistic Elo: a difference of 400 is 10 to 1 odds


@dataclass(frozen=True)
class Interval:
    """A point estimate with the bounds of its confidence interval (``low`` <= ``estimate`` <=
    ``high``). Bounds may be infinite (an Elo interval of a bot that won every pair)."""

    estimate: float
    low: float
    high: float

    def __str__(self) -> str:
        return f"{self.estimate:.3g} [{self.low:.3g}, {self.high:.3g}]"

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2


@dataclass(frozen=True)
class Pentanomial:
    """How many duplicate pairs gave bot A 0, ½, 1, 1½ and 2 match points against bot B
    (``counts[k]`` pairs scored ``PAIR_SCORES[k]``): fishtest's LL, LD, DD+WL, WD, WW."""

    counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    def __post_init__(self) -> None:
        if len(self.counts) != 5 or any(int(c) != c or c < 0 for c in self.counts):
            raise ValueError(f"a pentanomial is five counts >= 0, not {self.counts!r}")

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def matches(self) -> int:
        return 2 * self.pairs

    @property
    def points(self) -> float:
        """A's match points over all pairs."""
        return float(np.dot(self.counts, PAIR_SCORES))

    def mean(self) -> float:
        """A's mean score per match (pair score / 2), 0.5 when there are no pairs."""
        if not self.pairs:
            return 0.5
        return self.points / 2 / self.pairs

    def variance(self) -> float:
        """The variance of A's per-pair score / 2 over the pairs (divided by N, as fishtest)."""
        if not self.pairs:
            return 0.0
        x = np.array(PAIR_SCORES) / 2
        p = np.array(self.counts) / self.pairs
        return float(np.dot(p, (x - self.mean()) ** 2))

    def flipped(self) -> Pentanomial:
        """The same pairs seen from bot B."""
        return Pentanomial(tuple(reversed(self.counts)))  # type: ignore[arg-type]

    def __add__(self, other: Pentanomial) -> Pentanomial:
        return Pentanomial(tuple(a + b for a, b in zip(self.counts, other.counts)))  # type: ignore[arg-type]


def pentanomial(pairs: Iterable[float]) -> Pentanomial:
    """The pentanomial of per-pair scores for A (each 0, 0.5, 1, 1.5 or 2 match points)."""
    counts = [0] * 5
    for score in pairs:
        k = 2 * float(score)
        if k not in (0, 1, 2, 3, 4):
            raise ValueError(f"a duplicate pair scores 0, 0.5, 1, 1.5 or 2 match points, not {score!r}")
        counts[int(k)] += 1
    return Pentanomial((counts[0], counts[1], counts[2], counts[3], counts[4]))


def match_points(winner: int | None, seat: int, played: bool = True) -> float | None:
    """Match points of the bot in ``seat`` (two players): 1 for a win, 0 for a loss (a forfeit
    is the offender's loss: the store's winner is then the other seat), ½ for a match that ended
    without a winner (a tie at the deal limit); None for a match not played (no contest)."""
    if not played:
        return None
    if winner is None:
        return 0.5
    return 1.0 if winner == seat else 0.0


def _z(level: float) -> float:
    if not 0 < level < 1:
        raise ValueError(f"a confidence level is between 0 and 1, not {level}")
    return float(norm.ppf((1 + level) / 2))


def normal_interval(mean: float, sd_of_mean: float, level: float = LEVEL,
                    lower: float = -math.inf, upper: float = math.inf) -> Interval:
    """mean ± z·sd, clipped to [lower, upper] (a score cannot leave [0, 1])."""
    half = _z(level) * sd_of_mean
    return Interval(mean, max(lower, mean - half), min(upper, mean + half))


def score_interval(penta: Pentanomial, level: float = LEVEL) -> Interval:
    """A's score per match with its confidence interval, the pair as the unit: the mean of the pair
    score / 2 ± z·sqrt(variance / pairs), clipped to [0, 1]. No pairs: 0.5 in [0, 1]."""
    if not penta.pairs:
        return Interval(0.5, 0.0, 1.0)
    return normal_interval(penta.mean(), math.sqrt(penta.variance() / penta.pairs), level, 0.0, 1.0)


def trinomial_interval(wins: int, draws: int, losses: int, level: float = LEVEL) -> Interval:
    """A's score per match with the *match* as the unit (wins, draws, losses as if independent):
    what an interval would say if it ignored the pairs. Kept to compare with ``score_interval``."""
    n = wins + draws + losses
    if not n:
        return Interval(0.5, 0.0, 1.0)
    mean = (wins + draws / 2) / n
    var = (wins * (1 - mean) ** 2 + draws * (0.5 - mean) ** 2 + losses * mean ** 2) / n
    return normal_interval(mean, math.sqrt(var / n), level, 0.0, 1.0)


def elo_from_score(s: float) -> float:
    """Logistic Elo difference of an expected score ``s``: -400·log10(1/s - 1); ±inf at 1 and 0."""
    if not 0 <= s <= 1:
        raise ValueError(f"a score is between 0 and 1, not {s}")
    if s == 0:
        return -math.inf
    if s == 1:
        return math.inf
    return -400 * math.log10(1 / s - 1)


def score_from_elo(elo: float) -> float:
    """The expected score of an Elo difference (the inverse of ``elo_from_score``)."""
    return float(1 / (1 + 10 ** (-elo / 400)))


def elo_interval(penta: Pentanomial, level: float = LEVEL) -> Interval:
    """A's Elo difference over B with its interval: the score interval's ends mapped through
    ``elo_from_score`` (it is monotone), as fishtest does."""
    s = score_interval(penta, level)
    return Interval(elo_from_score(s.estimate), elo_from_score(s.low), elo_from_score(s.high))


def los_normal(mean: float, sd_of_mean: float, even: float = 0.5) -> float:
    """The likelihood that the true mean exceeds ``even``: Φ((mean - even) / sd). A sample without
    spread says 1, 0 or ½ outright."""
    if sd_of_mean <= 0 or not math.isfinite(sd_of_mean):
        return 0.5 if mean == even else float(mean > even)
    return float(norm.cdf((mean - even) / sd_of_mean))


def los(penta: Pentanomial) -> float:
    """Likelihood of superiority of A over B from the pairs: Φ((mean - ½) / sd of the mean), the
    pair as the unit. ½ when nothing was played or the sample is symmetric."""
    if not penta.pairs:
        return 0.5
    return los_normal(penta.mean(), math.sqrt(penta.variance() / penta.pairs))


def clustered_mean(values: Sequence[float], clusters: Sequence[Hashable],
                   level: float = LEVEL, lower: float = 0.0, upper: float = 1.0
                   ) -> tuple[Interval, float]:
    """The mean of ``values`` with its interval when the values of one cluster (a duplicate pair, a
    deal set) are not independent: the cluster is the unit (the variance of the mean from the
    clusters' sums, the usual cluster-robust estimator, divided by G as ``Pentanomial.variance``).
    With every cluster a complete pair this is exactly ``score_interval`` of the pairs.
    Returns (interval, sd of the mean); no values: the middle of [lower, upper], sd inf."""
    x = np.asarray(values, dtype=float)
    if not len(x):
        return Interval((lower + upper) / 2, lower, upper), math.inf
    if len(clusters) != len(x):
        raise ValueError("one cluster per value")
    mean = float(x.mean())
    ids = {c: i for i, c in enumerate(dict.fromkeys(clusters))}
    index = np.fromiter((ids[c] for c in clusters), dtype=int, count=len(x))
    residual = np.bincount(index, weights=x - mean)
    sd = math.sqrt(float(np.sum(residual ** 2))) / len(x)
    return normal_interval(mean, sd, level, lower, upper), sd


# ---------------------------------------------------------------------------------------------
# The batch Elo fit

PRIOR_DRAWS = 1.0
"""Virtual drawn matches of each bot against a bot of Elo 0 (BayesElo's prior, in spirit): keeps a
bot that won or lost everything at a finite rating. One match's worth barely moves a bot that has
played dozens."""


@dataclass(frozen=True)
class Comparison:
    """One result between two bots for the Elo fit: ``score`` is A's (1, ½ or 0), ``cluster`` the
    unit the intervals treat as independent (the deal set: a duplicate pair's two matches)."""

    a: str
    b: str
    score: float
    cluster: Hashable


@dataclass(frozen=True)
class EloFit:
    """Each bot's Elo, anchored so that the bots' mean is 0, with a covariance matrix of the
    estimates (clustered sandwich). ``bots`` names the rows of ``elo`` and ``cov``."""

    bots: tuple[str, ...]
    elo: np.ndarray
    cov: np.ndarray
    level: float = LEVEL

    def interval(self, bot: str) -> Interval:
        i = self.bots.index(bot)
        return normal_interval(float(self.elo[i]), math.sqrt(max(self.cov[i, i], 0.0)), self.level)

    def los(self, a: str, b: str) -> float:
        """Likelihood that ``a`` is stronger than ``b``, from the difference of their fitted Elo
        and its variance (the covariance included): BayesElo's LOS matrix, from a fit of all
        results, not only their own games."""
        i, j = self.bots.index(a), self.bots.index(b)
        var = self.cov[i, i] + self.cov[j, j] - 2 * self.cov[i, j]
        return los_normal(float(self.elo[i] - self.elo[j]), math.sqrt(max(var, 0.0)), even=0.0)


def fit_elo(results: Iterable[Comparison], level: float = LEVEL) -> EloFit:
    """A Bradley–Terry (logistic) maximum-likelihood Elo fit of all ``results`` at once (the order
    does not matter; a draw is half a win), with ``PRIOR_DRAWS`` virtual draws per bot, anchored at
    mean 0. The covariance is the sandwich H⁻¹ M H⁻¹ on the plane of mean-0 ratings, M summing the
    outer products of each cluster's score vector (times G / (G - 1)): intervals that hold however
    the results of one cluster are correlated. Bots named in no result are not in the fit."""
    rows = list(results)
    bots = tuple(sorted({r.a for r in rows} | {r.b for r in rows}))
    n = len(bots)
    if n == 0:
        return EloFit((), np.zeros(0), np.zeros((0, 0)), level)
    where = {b: i for i, b in enumerate(bots)}
    a = np.array([where[r.a] for r in rows], dtype=int)
    b = np.array([where[r.b] for r in rows], dtype=int)
    s = np.array([r.score for r in rows], dtype=float)
    if np.any((s < 0) | (s > 1)) or np.any(a == b):
        raise ValueError("a result is a score in [0, 1] between two different bots")
    k = 1 / _ELO_PER_NAT
    # Elo lives on the plane sum = 0: a basis of it (n - 1 columns) makes the problem well posed.
    basis = linalg.null_space(np.ones((1, n))) if n > 1 else np.zeros((1, 0))

    def parts(x: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
        r = basis @ x
        d = k * (r[a] - r[b])
        p = 1 / (1 + np.exp(-d))
        q = 1 / (1 + np.exp(-k * r))  # against the prior's virtual opponent at 0
        nll = -np.sum(s * _log_sigmoid(d) + (1 - s) * _log_sigmoid(-d)) \
            - PRIOR_DRAWS * np.sum(0.5 * _log_sigmoid(k * r) + 0.5 * _log_sigmoid(-k * r))
        per_result = -k * (s - p)  # d nll / d r_a for each result (the negative for r_b)
        grad = np.bincount(a, per_result, n) - np.bincount(b, per_result, n) \
            - PRIOR_DRAWS * k * (0.5 - q)
        return float(nll), grad, per_result, p

    def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
        nll, grad, _, _ = parts(x)
        return nll, basis.T @ grad

    solved = optimize.minimize(objective, np.zeros(n - 1), jac=True, method="L-BFGS-B",
                               options={"gtol": 1e-10, "ftol": 1e-14, "maxiter": 10_000})
    x = solved.x
    r = basis @ x
    _, _, per_result, p = parts(x)
    # Hessian of the negative log-likelihood (with the prior) in Elo coordinates.
    w = k * k * p * (1 - p)
    hess = np.zeros((n, n))
    np.add.at(hess, (a, a), w)
    np.add.at(hess, (b, b), w)
    np.add.at(hess, (a, b), -w)
    np.add.at(hess, (b, a), -w)
    q = 1 / (1 + np.exp(-k * r))
    hess[np.diag_indices(n)] += PRIOR_DRAWS * k * k * q * (1 - q)
    # Each cluster's score vector (the data's gradient; the prior is not data).
    ids = {c: i for i, c in enumerate(dict.fromkeys(row.cluster for row in rows))}
    g = len(ids)
    cluster = np.array([ids[row.cluster] for row in rows], dtype=int)
    scores = np.zeros((g, n))
    np.add.at(scores, (cluster, a), per_result)
    np.add.at(scores, (cluster, b), -per_result)
    meat = scores.T @ scores * (g / (g - 1) if g > 1 else 1.0)
    bread = np.linalg.inv(basis.T @ hess @ basis)
    cov = basis @ bread @ (basis.T @ meat @ basis) @ bread @ basis.T
    return EloFit(bots, r - r.mean(), cov, level)


def _log_sigmoid(x: np.ndarray) -> np.ndarray:
    return -np.logaddexp(0.0, -x)
