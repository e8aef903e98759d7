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
import sqlite3
from dataclasses import dataclass
from itertools import combinations
from typing import Hashable, Iterable, Sequence

import numpy as np
import pandas as pd
from scipy import linalg, optimize

# The standard normal's CDF and quantile as plain ufuncs: scipy.stats.norm's per-call overhead
# (about a millisecond) adds up over a report's thousand head-to-head intervals.
from scipy.special import ndtr, ndtri

from arena.results.ratings import bot_matches, ranks_of, read_seated, side_of, store_players
from arena.results.ratings import leaderboard as ratings_leaderboard
from arena.types import MatchEnding

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
    return float(ndtri((1 + level) / 2))


def normal_interval(mean: float, sd_of_mean: float, level: float = LEVEL,
                    lower: float = -math.inf, upper: float = math.inf) -> Interval:
    """mean ± z·sd, clipped to [lower, upper] (a score cannot leave [0, 1])."""
    half = _z(level) * sd_of_mean
    return Interval(mean, max(lower, mean - half), min(upper, mean + half))


def score_interval(penta: Pentanomial, level: float = LEVEL) -> Interval:
    """A's score per match with its confidence interval, the pair as the unit: the mean of the pair
    score / 2 ± z·sqrt(variance / pairs), clipped to [0, 1]. No pairs: 0.5 in [0, 1]; one pair:
    its score in [0, 1] (one unit says nothing of the spread: the variance divided by N would be
    0, and a single pair read as a certainty)."""
    if penta.pairs < 2:
        return Interval(penta.mean(), 0.0, 1.0)
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
    spread says 1, 0 or ½ outright; an unknown spread (sd infinite) says ½."""
    if not math.isfinite(sd_of_mean):
        return 0.5
    if sd_of_mean <= 0:
        return 0.5 if mean == even else float(mean > even)
    return float(ndtr((mean - even) / sd_of_mean))


def los(penta: Pentanomial) -> float:
    """Likelihood of superiority of A over B from the pairs: Φ((mean - ½) / sd of the mean), the
    pair as the unit. ½ when fewer than two pairs were played or the sample is symmetric."""
    if penta.pairs < 2:
        return 0.5
    return los_normal(penta.mean(), math.sqrt(penta.variance() / penta.pairs))


def clustered_mean(values: Sequence[float], clusters: Sequence[Hashable],
                   level: float = LEVEL, lower: float = 0.0, upper: float = 1.0
                   ) -> tuple[Interval, float]:
    """The mean of ``values`` with its interval when the values of one cluster (a duplicate pair, a
    deal set) are not independent: the cluster is the unit (the variance of the mean from the
    clusters' sums, the usual cluster-robust estimator, divided by G as ``Pentanomial.variance``).
    With every cluster a complete pair this is exactly ``score_interval`` of the pairs.
    Returns (interval, sd of the mean); no values: the middle of [lower, upper], sd inf; one
    cluster: its mean in [lower, upper], sd inf (one unit says nothing of the spread)."""
    x = np.asarray(values, dtype=float)
    if not len(x):
        return Interval((lower + upper) / 2, lower, upper), math.inf
    if len(clusters) != len(x):
        raise ValueError("one cluster per value")
    mean = float(x.mean())
    ids = {c: i for i, c in enumerate(dict.fromkeys(clusters))}
    if len(ids) < 2:
        return Interval(mean, lower, upper), math.inf
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
    outer products of each cluster's score vector (times G / (G - 1)) and the prior's information:
    intervals that hold however the results of one cluster are correlated. Bots named in no result
    are not in the fit."""
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
    # The prior's virtual draws count as data in the meat too (their expected information): else a
    # few clusters that each split exactly evenly would give a zero-width interval.
    meat[np.diag_indices(n)] += PRIOR_DRAWS * k * k * q * (1 - q)
    bread = np.linalg.inv(basis.T @ hess @ basis)
    cov = basis @ bread @ (basis.T @ meat @ basis) @ bread @ basis.T
    return EloFit(bots, r - r.mean(), cov, level)


def _log_sigmoid(x: np.ndarray) -> np.ndarray:
    return -np.logaddexp(0.0, -x)


# ---------------------------------------------------------------------------------------------
# A tournament's statistics, read from its store

SEPARATED_LOS = 0.95
"""Two neighbours on the leaderboard are *separated* when the Elo fit gives the upper one a
likelihood of superiority over the lower one of at least this much."""


def _pair_key(a: str, b: str, pair_index: int) -> tuple[str, str, int]:
    """A duplicate pair's cluster: the pairing (either seat order) and the pair's number. (Not the
    deal-set label: stores from before secret keys, schema 1, have none.)"""
    return (min(a, b), max(a, b), int(pair_index))


def _two_player_matches(db: sqlite3.Connection) -> pd.DataFrame:
    """One row per played two-player match (no contest and declined left out): seat0, seat1,
    score0 (seat 0's match points: ``match_points``) and cluster (its duplicate pair)."""
    matches = pd.read_sql_query(
        "SELECT match_id, seat0, seat1, winner, reason, offender, pair_index FROM matches "
        "ORDER BY sched_order", db)
    matches = matches[~matches["reason"].isin([MatchEnding.NO_CONTEST, MatchEnding.DECLINED])]
    winner = matches["winner"]
    matches = matches.assign(
        score0=[match_points(None if pd.isna(w) else int(w), 0) for w in winner],
        cluster=[_pair_key(a, b, k) for a, b, k in
                 zip(matches["seat0"], matches["seat1"], matches["pair_index"])])
    return matches.reset_index(drop=True)


def _seated_comparisons(db: sqlite3.Connection, players: int) -> pd.DataFrame:
    """Three and four players: within each played match, one row per two bots on different sides
    (an unordered pair, a < b): a's score against b (its side placed ahead 1, level ½, behind 0:
    ``ratings.ranks_of``, a forfeit last) and the match's deal set as its cluster. A bot filling
    two seats of a side counts once; partners are never compared."""
    results = read_seated(db, players)
    sets = dict(db.execute("SELECT match_id, deal_set FROM matches").fetchall())
    sides = results.sides.set_index(["match_id", "side"])["points"]
    rows = []
    for match_id, seated in results.seats.groupby("match_id", sort=False):
        first = seated.iloc[0]
        if first["reason"] in (MatchEnding.NO_CONTEST, MatchEnding.DECLINED):
            continue
        m = results.sides_per_match
        points = tuple(int(sides.get((match_id, k), 0)) for k in range(m))
        winner = None if pd.isna(first["winner"]) else int(first["winner"])
        offender = None if pd.isna(first["offender"]) else side_of(players, int(first["offender"]))
        ranks = ranks_of(players, points, winner, offender) or (0,) * m  # None: all level
        side_of_bot = dict(zip(seated["bot"], seated["side"]))
        for a, b in combinations(sorted(side_of_bot), 2):
            ra, rb = ranks[side_of_bot[a]], ranks[side_of_bot[b]]
            if side_of_bot[a] == side_of_bot[b]:
                continue
            rows.append((match_id, a, b, 1.0 if ra < rb else 0.0 if ra > rb else 0.5,
                         sets.get(match_id, match_id)))
    return pd.DataFrame(rows, columns=["match_id", "a", "b", "score", "cluster"])


def comparisons(db: sqlite3.Connection) -> list[Comparison]:
    """Every result between two bots in the store, for ``fit_elo``: each played two-player match
    (seat 0 against seat 1, clustered by duplicate pair); with three or four players every two bots
    on different sides of a match (clustered by deal set: the six seatings of one set of cards)."""
    players = store_players(db)
    if players > 2:
        table = _seated_comparisons(db, players)
        return [Comparison(a, b, s, c) for a, b, s, c in
                zip(table["a"], table["b"], table["score"], table["cluster"])]
    matches = _two_player_matches(db)
    return [Comparison(a, b, s, c) for a, b, s, c in
            zip(matches["seat0"], matches["seat1"], matches["score0"], matches["cluster"])]


STAT_COLUMNS = ["wins", "draws", "losses", "score_low", "score_high", "elo", "elo_low",
                "elo_high"]


def bot_statistics(db: sqlite3.Connection, fit: EloFit | None = None) -> pd.DataFrame:
    """Per bot (the index): wins, draws, losses (two players: matches; three and four: matches its
    side won, matches without a winner, matches its side lost or it forfeited), score_pct with
    score_low and score_high, its 95% interval, and elo with elo_low and elo_high from the batch fit.

    Two players: the score is the mean match points (a draw ½), its interval with the duplicate
    pair as the unit. Three and four players: the score is the score share (the side's part of the
    game points, ``ratings.seated_leaderboard``), its interval with the deal set as the unit. A bot
    that played nothing has NaN figures."""
    players = store_players(db)
    fit = fit or fit_elo(comparisons(db))
    bots = pd.read_sql_query("SELECT name FROM bots", db)["name"].tolist()
    rows: dict[str, dict[str, float]] = {}
    if players > 2:
        per_bot = bot_matches(read_seated(db, players))
        played = per_bot[per_bot["played"]]
        sets = dict(db.execute("SELECT match_id, deal_set FROM matches").fetchall())
        for bot, mine in played.groupby("bot"):
            lost = (mine["winner"].notna() & ~mine["won"]) | mine["forfeit"]
            interval, _ = clustered_mean(list(mine["share"]),
                                         [sets.get(m, m) for m in mine["match_id"]])
            rows[str(bot)] = {"wins": int(mine["won"].sum()), "losses": int(lost.sum()),
                              "draws": int((~mine["won"] & ~lost).sum()),
                              "score_pct": 100 * interval.estimate,
                              "score_low": 100 * interval.low, "score_high": 100 * interval.high}
    else:
        matches = _two_player_matches(db)
        seen = pd.concat([
            pd.DataFrame({"bot": matches["seat0"], "score": matches["score0"],
                          "cluster": matches["cluster"]}),
            pd.DataFrame({"bot": matches["seat1"], "score": 1 - matches["score0"],
                          "cluster": matches["cluster"]})])
        for bot, mine in seen.groupby("bot"):
            interval, _ = clustered_mean(list(mine["score"]), list(mine["cluster"]))
            rows[str(bot)] = {"wins": int((mine["score"] == 1).sum()),
                              "draws": int((mine["score"] == 0.5).sum()),
                              "losses": int((mine["score"] == 0).sum()),
                              "score_pct": 100 * interval.estimate,
                              "score_low": 100 * interval.low, "score_high": 100 * interval.high}
    for bot in fit.bots:
        elo = fit.interval(bot)
        rows.setdefault(bot, {}).update(elo=elo.estimate, elo_low=elo.low, elo_high=elo.high)
    table = pd.DataFrame.from_dict(rows, orient="index")
    table = table.reindex(index=bots, columns=["score_pct", *STAT_COLUMNS])
    for column in ("wins", "draws", "losses"):
        table[column] = table[column].fillna(0).astype(int)
    table.index.name = "bot"
    return table


def neighbours(order: Sequence[str], fit: EloFit) -> list[float | None]:
    """For each bot in ``order`` (the leaderboard's, best first), the likelihood that the bot above
    it is stronger (from the Elo fit); None for the first and for a bot either of the two has no
    result for."""
    out: list[float | None] = [None]
    for upper, lower in zip(order, order[1:]):
        out.append(fit.los(upper, lower) if upper in fit.bots and lower in fit.bots else None)
    return out[:len(order)]


def leaderboard(db: sqlite3.Connection, fit: EloFit | None = None) -> pd.DataFrame:
    """``ratings.leaderboard`` (TrueSkill, which stays the rating and the order) with the statistics
    appended: wins, draws, losses; score_pct (two players; three and four players have theirs
    already), score_low, score_high; elo, elo_low, elo_high; los_above (the likelihood that the bot
    one row up is stronger, from the Elo fit, in %) and separated (False when that is under
    ``SEPARATED_LOS``: their order is not established)."""
    board = ratings_leaderboard(db)
    fit = fit or fit_elo(comparisons(db))
    stats = bot_statistics(db, fit)
    if "score_pct" in board.columns:
        stats = stats.drop(columns="score_pct")
    table = board.join(stats, on="bot")
    above = neighbours(list(table["bot"]), fit)
    table["los_above"] = [None if p is None else 100 * p for p in above]
    table["los_above"] = table["los_above"].astype(float)
    table["separated"] = [p is None or p >= SEPARATED_LOS for p in above]
    return table


def los_matrix(order: Sequence[str], fit: EloFit) -> pd.DataFrame:
    """LOS of each row over each column from the Elo fit, bots x bots in ``order``; NaN on the
    diagonal and for bots without results."""
    cells = [[fit.los(r, c) if r != c and r in fit.bots and c in fit.bots else math.nan
              for c in order] for r in order]
    return pd.DataFrame(cells, index=list(order), columns=list(order), dtype=float)


H2H_COLUMNS = ["bot", "opponent", "pairs", "penta", "score", "score_low", "score_high", "elo",
               "elo_low", "elo_high", "los"]


def head_to_head(db: sqlite3.Connection) -> pd.DataFrame:
    """Per ordered pair of bots that met (bot, opponent): the duplicate pairs both of whose matches
    were played and their pentanomial counts (``penta``, a tuple from the bot's side), the bot's
    score with its interval, the Elo difference with its interval and LOS, all with the pair as the
    unit (a pair with one match missing is left out). Three and four players: ``pairs`` counts deal
    sets, ``penta`` is None, and score, interval and LOS come from the pairwise results of the
    matches in which the two sat on different sides, the deal set as the unit. Scores are 0-1."""
    players = store_players(db)
    rows: list[tuple[object, ...]] = []
    if players > 2:
        table = _seated_comparisons(db, players)
        both = pd.concat([table, table.rename(columns={"a": "b", "b": "a"})
                          .assign(score=1 - table["score"])], ignore_index=True)
        for (bot, opponent), mine in both.groupby(["a", "b"]):
            interval, sd = clustered_mean(list(mine["score"]), list(mine["cluster"]))
            elo = Interval(*(elo_from_score(v) for v in (interval.estimate, interval.low,
                                                         interval.high)))
            rows.append((bot, opponent, mine["cluster"].nunique(), None, interval.estimate,
                         interval.low, interval.high, elo.estimate, elo.low, elo.high,
                         los_normal(interval.estimate, sd)))
        return pd.DataFrame(rows, columns=H2H_COLUMNS)
    matches = _two_player_matches(db)
    # Each pair's matches, as seat-0 bot and its points (plain Python: hundreds of small groups).
    by_pair: dict[tuple[str, str, int], list[tuple[str, float]]] = {}
    for key, seat0, score0 in zip(matches["cluster"], matches["seat0"], matches["score0"]):
        by_pair.setdefault(key, []).append((seat0, score0))
    pair_scores: dict[tuple[str, str], list[float]] = {}
    for (first, second, _), pair in by_pair.items():
        if len(pair) != 2:
            continue
        # The pair's score from the alphabetically first bot's side.
        score = sum(s if a == first else 1 - s for a, s in pair)
        pair_scores.setdefault((first, second), []).append(score)
    for (x, y), scores in pair_scores.items():
        penta = pentanomial(scores)
        for bot, opponent, p in ((x, y, penta), (y, x, penta.flipped())):
            s, e = score_interval(p), elo_interval(p)
            rows.append((bot, opponent, p.pairs, p.counts, s.estimate, s.low, s.high,
                         e.estimate, e.low, e.high, los(p)))
    return pd.DataFrame(rows, columns=H2H_COLUMNS).sort_values(["bot", "opponent"]) \
        .reset_index(drop=True)


NOT_SEPARATED = "≈"
LEGEND = (f"{NOT_SEPARATED}: not separated from the bot above (the Elo fit gives the bot above a "
          f"likelihood of superiority, los_above, under {SEPARATED_LOS:.0%}). Intervals are 95%, "
          "with each duplicate pair (three or four players: each deal set) as one unit; elo is a "
          "batch fit of all results, mean 0; TrueSkill (mu, sigma, conservative) ranks the table.")


def _fmt(value: float, digits: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    return f"{value:.{digits}f}"


def interval_text(estimate: float, low: float, high: float, digits: int = 1) -> str:
    """'52.1 [47.0, 57.2]'; '–' for a missing figure or one without an interval (a bot that
    played nothing); ∞ for an infinite bound."""
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in (estimate, low, high)):
        return "–"
    return f"{_fmt(estimate, digits)} [{_fmt(low, digits)}, {_fmt(high, digits)}]"


def likelihood_text(p: float | None) -> str:
    """A likelihood in % to one decimal, rounded towards 50 (a near-certainty never reads as
    certain, '>99.9', and a figure under the SEPARATED_LOS threshold never reads as on it);
    '–' when unknown."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "–"
    if 0.999 < p < 1:
        return ">99.9"
    if 0 < p < 0.001:
        return "<0.1"
    return f"{(math.floor if p >= 0.5 else math.ceil)(1000 * p) / 10:.1f}"


def display_table(table: pd.DataFrame) -> pd.DataFrame:
    """``leaderboard`` for people (the table and markdown formats): W-D-L in one column, each
    interval beside its estimate, and the mark of bots not separated from the one above."""
    shown = pd.DataFrame({
        "rank": table["rank"],
        "": [("" if s else NOT_SEPARATED) for s in table["separated"]],
        "bot": table["bot"],
        "mu": table["mu"].map(lambda v: _fmt(v, 2)),
        "sigma": table["sigma"].map(lambda v: _fmt(v, 2)),
        "conservative": table["conservative"].map(lambda v: _fmt(v, 2)),
        "matches": table["matches"],
        "W-D-L": [f"{w}-{d}-{l}" for w, d, l in zip(table["wins"], table["draws"], table["losses"])],
        "win_pct": table["win_pct"].map(lambda v: _fmt(v, 1)),
        "score_pct [95%]": [interval_text(*v) for v in
                            zip(table["score_pct"], table["score_low"], table["score_high"])],
        "elo [95%]": [interval_text(*v, digits=0) for v in
                      zip(table["elo"], table["elo_low"], table["elo_high"])],
        "los_above": table["los_above"].map(lambda v: likelihood_text(v / 100)),
        "points_per_deal": table["points_per_deal"].map(lambda v: _fmt(v, 3)),
        "forfeits": table["forfeits"],
    })
    if "declined" in table.columns:
        shown["declined"] = table["declined"]
    return shown
