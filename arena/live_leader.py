"""The leader of a running tournament, for its progress line, without re-reading the store.

The leaderboard (``ratings.py``) replays TrueSkill over every stored match in schedule order; the
progress line used to rerun it whenever the store had grown by a tenth, reading the whole store each
time (issue 18: a 10,000-match run read it some 50 times). ``LiveLeader`` reads the store once, when
a run starts or resumes, then rates each match as the coordinator stores it: one TrueSkill update
per match.

It rates in **schedule order** too, with the same calls as ``ratings.rate`` and
``ratings.rate_ranked``, so once every scheduled match is stored its ratings, and so its leader,
are exactly the leaderboard's. Workers finish out of order: a result that arrives before an
earlier scheduled match is held until that match is in (at most about one per worker on a fresh run;
on a resumed run the matches lost in flight are played first). While a match is missing, the
leader shown is that of the schedule's prefix before it, which may differ from what the
leaderboard of the store says at that moment; at the end they agree.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Sequence

import trueskill

from arena.ratings import ENV, Teams, ranks_of, side_of, store_players
from arena.store import connect_read_only
from arena.types import MatchEnding, MatchResult
from arena.schedule import ScheduledMatch

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

    def add(self, entry: ScheduledMatch, result: MatchResult) -> None:
        """Rate a match just stored (or hold it until the schedule's earlier matches are in)."""
        self._waiting[entry.order] = match_outcome(
            self.players, entry.seats, result.game_points, result.winner, result.offender,
            result.reason)
        self._advance()

    def leader(self) -> str:
        """The bot the leaderboard would rank first on the matches rated so far: best
        conservative rating (mu - 3 sigma), then mu, then the store's order."""
        return max(self.bots, key=lambda b: (self.ratings[b].mu - 3 * self.ratings[b].sigma,
                                             self.ratings[b].mu), default="")

    def _advance(self) -> None:
        while self._next in self._waiting:
            self._rate(*self._waiting.pop(self._next))
            self._next += 1

    def _rate(self, teams: Teams, ranks: tuple[int, ...] | None) -> None:
        # The same calls, in the same order, as ratings.rate and ratings.rate_ranked: the floats
        # come out identical.
        for team in teams:
            for bot in team:
                self.ratings.setdefault(bot, ENV.create_rating())
        if ranks is None:
            return
        if self.players == 2:
            (a_name,), (b_name,) = teams
            a, b = self.ratings[a_name], self.ratings[b_name]
            if ranks[0] == 0:
                a, b = trueskill.rate_1vs1(a, b, env=ENV)
            else:
                b, a = trueskill.rate_1vs1(b, a, env=ENV)
            self.ratings[a_name], self.ratings[b_name] = a, b
            return
        members = [sorted(set(team)) for team in teams]
        groups = [{bot: self.ratings[bot] for bot in team} for team in members]
        weights = {(i, bot): float(team.count(bot)) for i, team in enumerate(teams)
                   for bot in set(team)}
        for group in ENV.rate(groups, ranks=list(ranks), weights=weights):
            self.ratings.update(group)


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
