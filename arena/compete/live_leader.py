"""The leader of a running tournament, for its progress line, without re-reading the store.

The leaderboard (``ratings.py``) replays TrueSkill over every stored match in schedule order; the
progress line used to rerun it whenever the store had grown by a tenth, reading the whole store each
time (issue 18: a 10,000-match run read it some 50 times). ``LiveLeader`` reads the store once, when
a run starts or resumes, then rates each match as the coordinator stores it: one TrueSkill update
per match.

It rates in **schedule order** too, with the same updates as ``ratings.rate`` and
``ratings.rate_ranked`` (two players in closed form, ``rate_1vs1``: equal to 1e-12), so once every
scheduled match is stored its ratings, and so its leader, are the leaderboard's. Workers finish out
of order: a result that arrives before an earlier scheduled match is held until that match is in
(at most the matches a worker holds, a quarter of a second of play each, on a fresh run; on a
resumed run the matches lost in flight are played first). While a match is missing, the leader
shown is that of the schedule's prefix before it, which may differ from what the leaderboard of
the store says at that moment; at the end they agree.
"""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path
from typing import Sequence

import trueskill

from arena.results.rating_replay import ENV, Teams, ranks_of, side_of
from arena.results.store import MatchRows, connect_read_only, store_players
from arena.types import MatchEnding, MatchResult, ScheduledMatch

# A match cannot be drawn (ratings.py: draw probability 0), yet the package's margin for it is not
# exactly 0 (its inverse normal is an approximation, 2e-7): rate_1vs1 uses the same figure, scaled
# by the spread of the performance difference as the package's truncation factor does.
_DRAW_MARGIN = trueskill.calc_draw_margin(ENV.draw_probability, 2, ENV)

# What rating one match needs: its sides' bots and their places (None: rates nobody).
_Rated = tuple[Teams, tuple[int, ...] | None]


def match_outcome(players: int, seats: Sequence[str], game_points: Sequence[int],
                  winner: int | None, offender: int | None, reason: str) -> _Rated:
    """The teams and places of one match, as the leaderboard derives them from the store: two
    players by the winning seat (no winner rates nobody); three and four by ``ranks_of``."""
    if players == 2:
        teams: Teams = ((seats[0],), (seats[1],))
        return teams, None if winner is None else ((0, 1) if winner == 0 else (1, 0))
    sides = 2 if players == 4 else players
    teams = tuple(tuple(bot for seat, bot in enumerate(seats) if side_of(players, seat) == side)
                  for side in range(sides))
    points = tuple(game_points[side] if side < len(game_points) else 0 for side in range(sides))
    unrated = reason in (MatchEnding.NO_CONTEST, MatchEnding.DECLINED)
    ranks = ranks_of(players, points, winner,
                     None if offender is None else side_of(players, offender), no_contest=unrated)
    return teams, ranks


class LiveLeader:
    """TrueSkill ratings of a tournament, updated per stored match in schedule order."""

    def __init__(self, bots: Sequence[str], players: int):
        self.players = players
        self.bots = list(bots)  # the store's order: the leaderboard breaks exact ties by it
        self.ratings: dict[str, trueskill.Rating] = {b: ENV.create_rating() for b in bots}
        # Each bot's sort key, kept as its rating changes: leader() runs after every stored
        # match, and reading 30 ratings' mu and sigma properties there was a third of the
        # coordinator's CPU per match (issue 18).
        self._keys: dict[str, tuple[float, float]] = {b: _key(r) for b, r in self.ratings.items()}
        self._next = 0                             # schedule order of the next match to rate
        self._waiting: dict[int, _Rated] = {}      # stored, but an earlier match is not yet

    @classmethod
    def of_store(cls, db_path: Path) -> LiveLeader:
        """Ratings of what ``db_path`` holds now: one read, when a run starts or resumes."""
        db = connect_read_only(db_path)
        try:
            players = store_players(db)
            live = cls([row[0] for row in db.execute("SELECT name FROM bots")], players)
            for order, rated in _stored(db, players):
                live._waiting[order] = rated
        finally:
            db.close()
        live._advance()
        return live

    def add(self, entry: ScheduledMatch, result: MatchResult | MatchRows) -> None:
        """Rate a match just stored (or hold it until the schedule's earlier matches are in)."""
        self._waiting[entry.order] = match_outcome(
            self.players, entry.seats, result.game_points, result.winner, result.offender,
            result.reason)
        self._advance()

    def leader(self) -> str:
        """The bot the leaderboard would rank first on the matches rated so far: best
        conservative rating (mu - 3 sigma), then mu, then the store's order."""
        return max(self.bots, key=self._keys.__getitem__, default="")

    def _advance(self) -> None:
        while self._next in self._waiting:
            self._rate(*self._waiting.pop(self._next))
            self._next += 1

    def _rate(self, teams: Teams, ranks: tuple[int, ...] | None) -> None:
        self._update(teams, ranks)
        for team in teams:
            for bot in team:
                self._keys[bot] = _key(self.ratings[bot])

    def _update(self, teams: Teams, ranks: tuple[int, ...] | None) -> None:
        # The same updates, in the same order, as ratings.rate and ratings.rate_ranked.
        for team in teams:
            for bot in team:
                self.ratings.setdefault(bot, ENV.create_rating())
        if ranks is None:
            return
        if self.players == 2:
            (a_name,), (b_name,) = teams
            a, b = self.ratings[a_name], self.ratings[b_name]
            if ranks[0] == 0:
                a, b = rate_1vs1(a, b)
            else:
                b, a = rate_1vs1(b, a)
            self.ratings[a_name], self.ratings[b_name] = a, b
            return
        members = [sorted(set(team)) for team in teams]
        groups = [{bot: self.ratings[bot] for bot in team} for team in members]
        weights = {(i, bot): float(team.count(bot)) for i, team in enumerate(teams)
                   for bot in set(team)}
        for group in ENV.rate(groups, ranks=list(ranks), weights=weights):
            self.ratings.update(group)


def _key(rating: trueskill.Rating) -> tuple[float, float]:
    """The leaderboard's order: conservative rating (mu - 3 sigma), then mu."""
    return rating.mu - 3 * rating.sigma, rating.mu


def rate_1vs1(winner: trueskill.Rating,
              loser: trueskill.Rating) -> tuple[trueskill.Rating, trueskill.Rating]:
    """``trueskill.rate_1vs1(winner, loser, env=ENV)`` in closed form (Herbrich et al. 2007, the
    two-player update without draws), with the package's own v and w functions. The package builds
    and runs a factor graph for each match, some 1.2 ms, the largest part of the coordinator's cost
    per match (issue 18); this takes a few microseconds and agrees with it to about 1e-12, far
    below any gap between two bots' ratings that a tournament shows (tests/arena/test_live_leader.py
    compares them)."""
    tau2 = ENV.tau ** 2
    w_var = winner.sigma ** 2 + tau2  # each rating drifts by tau before the match (dynamics)
    l_var = loser.sigma ** 2 + tau2
    c2 = 2 * ENV.beta ** 2 + w_var + l_var
    c = math.sqrt(c2)
    t = (winner.mu - loser.mu) / c
    v = ENV.v_win(t, _DRAW_MARGIN / c)
    w = ENV.w_win(t, _DRAW_MARGIN / c)
    return (trueskill.Rating(winner.mu + w_var / c * v, math.sqrt(w_var * (1 - w_var / c2 * w))),
            trueskill.Rating(loser.mu - l_var / c * v, math.sqrt(l_var * (1 - l_var / c2 * w))))


def _stored(db: sqlite3.Connection, players: int) -> list[tuple[int, _Rated]]:
    """(schedule order, teams and places) of every stored match."""
    if players == 2:
        return [(order, match_outcome(2, (seat0, seat1), (), winner, None, ""))
                for order, seat0, seat1, winner in
                db.execute("SELECT sched_order, seat0, seat1, winner FROM matches")]
    seats: dict[str, list[str]] = {}
    for match_id, bot in db.execute("SELECT match_id, bot FROM seats ORDER BY match_id, seat"):
        seats.setdefault(match_id, []).append(bot)
    points: dict[str, list[int]] = {}
    for match_id, side_points in db.execute(
            "SELECT match_id, points FROM sides ORDER BY match_id, side"):
        points.setdefault(match_id, []).append(side_points)
    return [(order, match_outcome(players, seats.get(match_id, []), points.get(match_id, []),
                                  winner, offender, reason))
            for match_id, order, winner, offender, reason in db.execute(
                "SELECT match_id, sched_order, winner, offender, reason FROM matches")]
