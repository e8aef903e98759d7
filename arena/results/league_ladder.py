"""A league's ladder read fast: what ``arena league status`` and the league page show of every bot.

A league of 200 bots and 100,000 matches must answer ``league status`` within a second (issue 30).
Replaying TrueSkill over every match in Python takes several, so the running league keeps the
ratings in its own store, table ``league_ratings``, updated in the transaction that stores each
match (``settle``). They are derived, never the truth (STYLE.md §6), and kept so that they are
exactly the report's:

- The report replays the stored matches **in schedule order** (``rating_replay.rate``); the league
  stores them in the order they finish. So the table holds the ratings after every match of a
  schedule order below ``through``, where every match below ``through`` is stored: the first match
  of the oldest pair still being played. A reader replays the few stored matches from ``through``
  on over it (``read_ratings``): the same updates in the same order as the report's replay, to
  the last bit (TrueSkill's own parameters are kept, ``rating_replay.exact``).
- A publish's snapshot holds back the matches of pairs not complete (``report.snapshot``); those
  are all at or after ``through``, so the table fits the snapshot as it fits the store.
- ``league_rating_history`` keeps every rating change of those matches, as the replay makes them
  (``rating_replay.RatingPoint``, in the replay's order), and ``league_history.through`` up to
  where: a publish of a league draws its ratings chart and its leaderboard from it and replays only
  the matches after (``kept_replay``), where a league of 10,000 matches took seconds to replay
  from the first (issue 30: a first publish within 10 s).
- A reset of the ratings (a final: the site's admin, ``league_members.request_rating_reset``) is
  a row of ``league_resets``: the ratings count only the matches from its ``since`` on
  (``rating_start``), those before stay stored. The running league applies it between pairs, in
  one transaction with forgetting what it kept; what it keeps next is marked with the reset it
  counts from (``league_rated_since``), and kept data from before the newest reset is never read.
  A report's snapshot drops the matches before it (``report.snapshot``).
- ``league_rated.matches`` says how many matches the table rated; a store that no longer holds as
  many below ``through`` (changed by hand, an old backup) is recomputed from its matches, as is a
  store from before the table (the running league then rebuilds it when it starts).

W-D-L and the score interval are sums over the matches that SQLite adds up in one pass (the
cluster-robust interval of ``stats.clustered_mean`` needs only per-cluster sums: see
``score_interval``). ``stats.py`` is not imported here: it brings numpy, scipy and pandas, whose
import alone takes about a second; a test checks these figures against its own.

**Provisional.** A rating is provisional until it has settled: fewer than ``SETTLED_MATCHES``
matches, or a TrueSkill sigma above ``SETTLED_SIGMA`` (a new bot starts at 8.33; among bots of
different strength sigma falls under 2.5 after about 25 matches). Its rank may still move a lot.
"""

from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass
from statistics import NormalDist
from typing import Iterable

import trueskill

from arena.results.rating_replay import RatingPoint, exact, rate

SETTLED_SIGMA = 2.5
SETTLED_MATCHES = 20
LEVEL = 0.95   # as stats.LEVEL (a test checks they agree)
_Z = NormalDist().inv_cdf((1 + LEVEL) / 2)

SCHEMA = """
CREATE TABLE IF NOT EXISTS league_ratings (
    -- Each bot's TrueSkill rating after every match of a schedule order below league_rated.through,
    -- as TrueSkill holds it (precision pi, precision-adjusted mean tau: exact). Derived from the
    -- matches and kept by the running league (league_ladder.py); readers check that it fits.
    -- The rest are the sums records() adds up over the same matches (whole duplicate pairs).
    bot TEXT PRIMARY KEY,
    pi REAL NOT NULL,
    tau REAL NOT NULL,
    matches INTEGER NOT NULL, n INTEGER NOT NULL, total REAL NOT NULL, squares REAL NOT NULL,
    cross REAL NOT NULL, counts INTEGER NOT NULL, clusters INTEGER NOT NULL,
    wins INTEGER NOT NULL, draws INTEGER NOT NULL, losses INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS league_rated (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    through INTEGER NOT NULL,        -- every match of a lower schedule order is stored and rated
    matches INTEGER NOT NULL         -- the matches rated (below through)
);
CREATE TABLE IF NOT EXISTS league_rating_history (
    -- Each change of a rating by a match below league_history.through, in the replay's order
    -- (rowid): the bot's mu and sigma after the match at sched_order (rating_replay.RatingPoint).
    sched_order INTEGER NOT NULL,
    bot TEXT NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS league_history (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    through INTEGER NOT NULL         -- league_rating_history holds every change below this order:
                                     -- it fits league_rated when the two throughs are equal
);
CREATE TABLE IF NOT EXISTS league_resets (
    -- The ratings started again (a final: league_members.request_rating_reset): they count only
    -- the matches of schedule order >= since of the newest reset; those before stay stored.
    request INTEGER PRIMARY KEY,     -- the request's number in members.sqlite
    since INTEGER NOT NULL,
    requested TEXT NOT NULL,
    applied TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS league_rated_since (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    since INTEGER NOT NULL           -- the reset the kept ratings and history count from (its
                                     -- league_resets.since): kept from before the newest reset,
                                     -- they are not read. No row: from the first match.
);
"""


@dataclass(frozen=True)
class LadderRow:
    """A bot version of the league with its figures. ``wins``, ``draws`` and ``losses`` count its
    played matches (a forfeit is the offender's loss; a draw a match without a winner); ``score``
    is its mean match points in % (a win 1, a draw ½) with its 95% interval (``score_low``,
    ``score_high``), each duplicate pair one unit, as the report's; NaN when it played nothing."""

    family: str
    name: str          # the version in the store
    mu: float
    sigma: float
    matches: int
    active: bool
    wins: int = 0
    draws: int = 0
    losses: int = 0
    score: float = math.nan
    score_low: float = math.nan
    score_high: float = math.nan
    joined: str = ""   # when this version joined the league (league_bots.joined, UTC)

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def version(self) -> str:
        return self.name.partition("@")[2]

    @property
    def provisional(self) -> bool:
        return self.matches < SETTLED_MATCHES or self.sigma > SETTLED_SIGMA


# -- sums over matches ----------------------------------------------------------------------------

Sums = tuple[int, int, float, float, float, int, int, int, int, int]
"""A bot's sums over some whole duplicate pairs: (matches stored, matches played n, score total Σx,
ΣS², ΣnS, Σn² over its pairs (S a pair's score, n its played matches), pairs played, wins, draws,
losses). Sums of halves and their squares: exact in floating point, so adding them in parts gives
what one pass gives."""

# Per bot and duplicate pair (the cluster: the two bots and the pair's number, as stats._pair_key),
# then per bot. A match not played (no contest, declined) counts as stored and scores nothing, as in
# the report.
_SUMS = """
WITH seen AS (
    SELECT seat0 AS bot, MIN(seat0, seat1) AS lo, MAX(seat0, seat1) AS hi, pair_index,
           CASE WHEN reason IN ('no_contest', 'declined') THEN NULL
                WHEN winner IS NULL THEN 0.5 WHEN winner = 0 THEN 1.0 ELSE 0.0 END AS s
    FROM matches WHERE sched_order >= :start AND sched_order < :end
    UNION ALL
    SELECT seat1, MIN(seat0, seat1), MAX(seat0, seat1), pair_index,
           CASE WHEN reason IN ('no_contest', 'declined') THEN NULL
                WHEN winner IS NULL THEN 0.5 WHEN winner = 1 THEN 1.0 ELSE 0.0 END
    FROM matches WHERE sched_order >= :start AND sched_order < :end
), pairs AS (
    SELECT bot, COUNT(*) AS everything, COUNT(s) AS n, COALESCE(SUM(s), 0.0) AS total,
           SUM(s = 1.0) AS w, SUM(s = 0.5) AS d, SUM(s = 0.0) AS l
    FROM seen GROUP BY bot, lo, hi, pair_index
)
SELECT bot, SUM(everything), SUM(n), SUM(total), SUM(total * total), SUM(n * total), SUM(n * n),
       SUM(n > 0), COALESCE(SUM(w), 0), COALESCE(SUM(d), 0), COALESCE(SUM(l), 0)
FROM pairs GROUP BY bot
"""
_NONE: Sums = (0, 0, 0.0, 0.0, 0.0, 0, 0, 0, 0, 0)
_END = 1 << 62


def _sums(db: sqlite3.Connection, start: int = 0, end: int = _END) -> dict[str, Sums]:
    """Each bot's ``Sums`` over the matches of schedule order in [start, end)."""
    return {bot: (int(a), int(n), float(t), float(sq), float(cr), int(co), int(cl), int(w), int(d),
                  int(lo))
            for bot, a, n, t, sq, cr, co, cl, w, d, lo in
            db.execute(_SUMS, {"start": start, "end": end})}


def _add(x: Sums, y: Sums) -> Sums:
    return tuple(p + q for p, q in zip(x, y))  # type: ignore[return-value]


# -- the kept ratings ------------------------------------------------------------------------------

Kept = tuple[int, int, dict[str, trueskill.Rating], dict[str, Sums]]


def _has_table(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE name = 'league_rated'").fetchone() \
        is not None


def rating_start(db: sqlite3.Connection) -> int:
    """The schedule order the ratings count from: the newest reset's, else 0."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'league_resets'").fetchone() is None:
        return 0
    row = db.execute("SELECT since FROM league_resets ORDER BY request DESC LIMIT 1").fetchone()
    return int(row[0]) if row else 0


def reset_ratings(db: sqlite3.Connection, request: int, requested: str, since: int,
                  applied: str) -> None:
    """Start the ratings again from schedule order ``since`` (the running league, in a
    transaction, before its next pair): the kept ratings and history are forgotten, and ``settle``
    keeps them anew from ``since`` on, marked as counting from there (``league_rated_since``)."""
    db.execute("INSERT OR IGNORE INTO league_resets VALUES (?, ?, ?, ?)",
               (request, since, requested, applied))
    _forget(db)


def _rated_since(db: sqlite3.Connection) -> int:
    """The reset the kept ratings count from (0: the first match, as in a store from before
    resets)."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'league_rated_since'").fetchone() \
            is None:
        return 0
    row = db.execute("SELECT since FROM league_rated_since WHERE id = 1").fetchone()
    return 0 if row is None else int(row[0])


def _kept(db: sqlite3.Connection, check: bool = True) -> Kept | None:
    """(through, matches rated, ratings, sums) as the table keeps them; None when there is none, or
    (``check``) when the store does not hold the matches it rated."""
    if not _has_table(db):
        return None
    row = db.execute("SELECT through, matches FROM league_rated WHERE id = 1").fetchone()
    if row is None:
        return None
    through, rated = int(row[0]), int(row[1])
    start = rating_start(db)
    # Kept before the newest reset (a league stopped before its next settle, a store put back by
    # hand): not the ratings that count now.
    if through < start or _rated_since(db) != start or check and db.execute(
            "SELECT COUNT(*) FROM matches WHERE sched_order >= ? AND sched_order < ?",
            (start, through)).fetchone()[0] != rated:
        return None
    ratings: dict[str, trueskill.Rating] = {}
    sums: dict[str, Sums] = {}
    for bot, pi, tau, *rest in db.execute("SELECT * FROM league_ratings"):
        ratings[bot] = exact(pi, tau)
        sums[bot] = tuple(rest)
    return through, rated, ratings, sums


def _two_player(db: sqlite3.Connection, since: int = 0) -> bool:
    row = db.execute("SELECT MAX(players) FROM matches WHERE sched_order >= ?", (since,)).fetchone()
    return row[0] is None or int(row[0]) <= 2


def settle(db: sqlite3.Connection, through: int, check: bool = False) -> None:
    """(The tables exist: ``SCHEMA``, made when the league starts; ``executescript`` would commit
    the transaction this runs in.) Bring the kept ratings up to ``through`` (every match of a lower
    schedule order is stored, whole pairs): the stored matches from the table's ``through`` to
    this one are replayed over it and added to its sums. Called by the running league inside the
    transaction that stores a match, and when it starts (``check``: first see that the table fits
    the store; one that does not is rebuilt from the first match). Three- and four-player matches
    are not rated here (their readers recompute): the table is emptied."""
    kept, fresh = _kept(db, check), False
    if kept is not None and check and _history_through(db) != kept[0]:
        kept = None  # a store from before the history was kept: both made again, from the start
    if kept is None:
        _forget(db)
        kept = (rating_start(db), 0, {}, {})
        fresh = True
    start, rated, ratings, sums = kept
    if through <= start:
        return
    if not _two_player(db, start):
        _forget(db)
        return
    # The history goes on only from where it stopped: one missing its start (a store from before
    # it, not yet rebuilt by a start's check) is not added to, and readers replay everything.
    history_fits = _history_through(db) == start or (_history_through(db) is None and
                                                     (fresh or start == 0))
    rows = db.execute("SELECT sched_order, seat0, seat1, winner FROM matches "
                      "WHERE sched_order >= ? AND sched_order < ?", (start, through)).fetchall()
    new, history = rate(rows, start=ratings)
    added = _sums(db, start, through)
    db.executemany("INSERT OR REPLACE INTO league_ratings VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                   [(bot, new[bot].pi, new[bot].tau, *_add(sums.get(bot, _NONE), more))
                    for bot, more in sorted(added.items())])
    db.execute("INSERT OR REPLACE INTO league_rated VALUES (1, ?, ?)", (through, rated + len(rows)))
    if fresh:
        db.execute("INSERT OR REPLACE INTO league_rated_since VALUES (1, ?)", (start,))
    if history_fits:
        db.executemany("INSERT INTO league_rating_history VALUES (?,?,?,?)",
                       [(p.order, p.bot, p.mu, p.sigma) for p in history])
        db.execute("INSERT OR REPLACE INTO league_history VALUES (1, ?)", (through,))


def _forget(db: sqlite3.Connection) -> None:
    for table in ("league_ratings", "league_rated", "league_rating_history", "league_history",
                  "league_rated_since"):
        if db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone():
            db.execute(f"DELETE FROM {table}")


def _history_through(db: sqlite3.Connection) -> int | None:
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'league_history'").fetchone() is None:
        return None
    row = db.execute("SELECT through FROM league_history WHERE id = 1").fetchone()
    return None if row is None else int(row[0])


def kept_ratings(db: sqlite3.Connection) -> tuple[int, dict[str, trueskill.Rating]] | None:
    """(through, every bot's rating after the matches below ``through``) as the league keeps them
    (two players), for the running league's own ladder to continue from when it starts; None when
    there is no table, or it does not fit the store."""
    kept = _kept(db)
    if kept is None or not _two_player(db):
        return None
    return kept[0], kept[2]


def kept_replay(db: sqlite3.Connection
                ) -> tuple[int, dict[str, trueskill.Rating], list[RatingPoint]] | None:
    """(through, every bot's rating after the matches below ``through``, the history of those
    matches' changes) as a running league keeps them: what ``rating_replay.rate`` would make of
    those matches, to the last bit, so a reader replays only the matches from ``through`` on.
    None when the store keeps no such history, or it does not fit the matches stored (then the
    reader replays them all)."""
    kept = _kept(db)
    if kept is None or _history_through(db) != kept[0] or not _two_player(db):
        return None
    through, _, ratings, _ = kept
    history = [RatingPoint(int(o), str(b), float(m), float(s)) for o, b, m, s in db.execute(
        "SELECT sched_order, bot, mu, sigma FROM league_rating_history ORDER BY rowid")]
    return through, ratings, history


@dataclass(frozen=True)
class Record:
    """A bot's matches (all stored), W-D-L of those played, and its score in % with the interval."""

    matches: int
    wins: int
    draws: int
    losses: int
    score: float
    low: float
    high: float


def read_figures(db: sqlite3.Connection) -> tuple[dict[str, trueskill.Rating], dict[str, Record]]:
    """Every bot's rating after every stored match of ``db``, in schedule order, and its
    ``Record``: the kept table and the matches after it, or (no table, or one that does not fit)
    all the matches again."""
    kept = _kept(db)
    start = rating_start(db)
    if kept is None or not _two_player(db, kept[0]):
        if not _two_player(db, start):
            # Three and four players are TrueSkill's teams, read with pandas by the league's own
            # reader (league_store._seated_figures), which never asks here.
            return {}, {}
        rows = db.execute("SELECT sched_order, seat0, seat1, winner FROM matches "
                          "WHERE sched_order >= ?", (start,)).fetchall()
        return rate(rows)[0], {bot: _record(s) for bot, s in _sums(db, start).items()}
    through, _, ratings, sums = kept
    rows = db.execute("SELECT sched_order, seat0, seat1, winner FROM matches "
                      "WHERE sched_order >= ?", (through,)).fetchall()
    for bot, more in _sums(db, through).items():
        sums[bot] = _add(sums.get(bot, _NONE), more)
    return rate(rows, start=ratings)[0], {bot: _record(s) for bot, s in sums.items()}


def _record(sums: Sums) -> Record:
    everything, n, total, squares, cross, counts, clusters, w, d, losses = sums
    low, mean, high = score_interval(n, total, squares, cross, counts, clusters)
    return Record(everything, w, d, losses, 100 * mean, 100 * low, 100 * high)


def score_interval(n: int, total: float, squares: float, cross: float, counts: float,
                   clusters: int) -> tuple[float, float, float]:
    """(low, mean, high) of ``n`` scores in [0, 1] grouped in ``clusters``, from their sums: total
    Σx, and over the clusters ΣS², ΣnS and Σn² (S a cluster's sum, n its size): what
    ``stats.clustered_mean`` gives, since Σ(S - n·mean)² = ΣS² - 2·mean·ΣnS + mean²·Σn². No
    scores: NaN; one cluster: its mean in [0, 1] (one unit says nothing of the spread)."""
    if not n:
        return math.nan, math.nan, math.nan
    mean = total / n
    if clusters < 2:
        return 0.0, mean, 1.0
    spread = max(squares - 2 * mean * cross + mean * mean * counts, 0.0)
    half = _Z * math.sqrt(spread) / n
    return max(0.0, mean - half), mean, min(1.0, mean + half)


def waiting_pairs(db: sqlite3.Connection) -> tuple[int, int]:
    """(pairs started, pairs of which a match is not stored yet), from the league's tables. Only
    the pairs from the kept ratings' ``through`` on are looked at: every pair below it is whole."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'league_pairs'").fetchone() is None:
        return 0, 0
    kept = _kept(db) if _has_table(db) else None
    first = kept[0] // 2 if kept is not None else 0  # pair p plays orders 2p and 2p + 1
    pairs = db.execute("SELECT COUNT(*) FROM league_pairs").fetchone()[0]
    later = db.execute("SELECT COUNT(*) FROM league_pairs WHERE pair_no >= ?", (first,)).fetchone()[0]
    whole = db.execute("SELECT COUNT(*) FROM (SELECT pair_index FROM matches "
                       "WHERE sched_order >= ? AND pair_index IN (SELECT pair_no FROM league_pairs) "
                       "GROUP BY pair_index HAVING COUNT(*) >= 2)", (2 * first,)).fetchone()[0]
    return int(pairs), int(later) - int(whole)


def ranked(rows: Iterable[LadderRow]) -> list[tuple[int | None, LadderRow]]:
    """Rows in ladder order with each active bot's rank (None for a retired version)."""
    out: list[tuple[int | None, LadderRow]] = []
    rank = 0
    for row in rows:
        if row.active:
            rank += 1
        out.append((rank if row.active else None, row))
    return out


FIELDS = ("rank", "bot", "version", "name", "joined", "active", "provisional", "mu", "sigma",
          "conservative", "matches", "wins", "draws", "losses", "score", "score_low", "score_high")
"""The columns of ``arena league status --format csv`` and of each bot in ``--format json`` and in
a build's ``league.json``: rank in the ladder (none for a retired version), family name, version
(8 hex digits; empty for a bundled bot or a command), name in the store, when it joined (UTC), in
the ladder now, provisional, TrueSkill mu, sigma and mu - 3 sigma, matches stored, W-D-L of those
played, score in % with its 95% interval (empty when nothing was played)."""


def as_records(rows: Iterable[LadderRow]) -> list[dict[str, object]]:
    """Each row's ``FIELDS`` as plain values (None for a figure not known), ladder order."""
    out: list[dict[str, object]] = []
    for rank, row in ranked(rows):
        def figure(value: float, digits: int) -> float | None:
            return None if math.isnan(value) else round(value, digits)

        out.append({"rank": rank, "bot": row.family, "version": row.version, "name": row.name,
                    "joined": row.joined, "active": row.active, "provisional": row.provisional,
                    "mu": round(row.mu, 3), "sigma": round(row.sigma, 3),
                    "conservative": round(row.conservative, 3), "matches": row.matches,
                    "wins": row.wins, "draws": row.draws, "losses": row.losses,
                    "score": figure(row.score, 2), "score_low": figure(row.score_low, 2),
                    "score_high": figure(row.score_high, 2)})
    return out
