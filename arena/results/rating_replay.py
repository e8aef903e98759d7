"""The TrueSkill environment and the replay of two-player results in schedule order, in plain
Python: what the league's running ratings and ``arena league status`` need. ``ratings.py`` builds
the leaderboard and the charts' histories on it with pandas, whose import alone takes longer than
a status may (issue 30: ``league status`` in a second on a league of 100,000 matches).

A match cannot be drawn (RULES.md §8: only one player scores in a deal), so the environment's draw
probability is 0; the two matches that have no winner (both bots failed to start, or a tie at the
platform's deal limit) leave ratings unchanged.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Iterable, Mapping

import trueskill

# The trueskill package's defaults (mu 25, sigma 25/3, beta sigma/2, tau sigma/100), written out so
# that a change of the package's defaults cannot silently change a leaderboard.
MU = 25.0
SIGMA = MU / 3
ENV = trueskill.TrueSkill(mu=MU, sigma=SIGMA, beta=SIGMA / 2, tau=SIGMA / 100, draw_probability=0.0,
                          backend=None)


@dataclass(frozen=True)
class RatingPoint:
    """A bot's rating after the match at ``order`` in the schedule (for the ratings chart)."""

    order: int
    bot: str
    mu: float
    sigma: float


def rate(results: Iterable[tuple[int, str, str, int | None]],
         start: Mapping[str, trueskill.Rating] | None = None
         ) -> tuple[dict[str, trueskill.Rating], list[RatingPoint]]:
    """Ratings from (schedule order, seat-0 bot, seat-1 bot, winning seat or None) and the history
    of every change. The input may come in any order; it is sorted by schedule order first.
    ``start``: the ratings to continue from (those of every earlier match), else everyone new.

    A replay of a league's 10,000 matches takes seconds (the trueskill package's factor graph,
    about a millisecond a match), and one publish asks for it several times (the leaderboard, the
    ratings chart, the league's ladder and its chart), each publish for the same matches plus a
    few new ones. So the last replay from the start is kept (``_Replay``) and continued from the
    longest prefix the new input shares with it: the same Rating objects as a replay from the
    start, so the same figures to the last bit."""
    items = sorted((int(o), a, b, None if w is None or w != w else int(w))  # NaN: no winner
                   for o, a, b, w in results)
    if start is not None:
        return _replay(items, dict(start))
    with _LAST_LOCK:  # (a report may be read from threads of a server)
        return _LAST.continue_to(items)


def _replay(items: list[tuple[int, str, str, int | None]],
            ratings: dict[str, trueskill.Rating]
            ) -> tuple[dict[str, trueskill.Rating], list[RatingPoint]]:
    history: list[RatingPoint] = []
    for item in items:
        _step(item, ratings, history)
    return ratings, history


def _step(item: tuple[int, str, str, int | None], ratings: dict[str, trueskill.Rating],
          history: list[RatingPoint]) -> tuple[trueskill.Rating, trueskill.Rating] | None:
    """One match of a replay: both seats' ratings updated in ``ratings`` and appended to
    ``history``; returns them, or None for a match without a winner (nothing changes)."""
    order, seat0, seat1, winner = item
    a = ratings.setdefault(seat0, ENV.create_rating())
    b = ratings.setdefault(seat1, ENV.create_rating())
    if winner is None:
        return None
    if winner == 0:
        a, b = trueskill.rate_1vs1(a, b, env=ENV)
    else:
        b, a = trueskill.rate_1vs1(b, a, env=ENV)
    ratings[seat0], ratings[seat1] = a, b
    history.append(RatingPoint(order, seat0, a.mu, a.sigma))
    history.append(RatingPoint(order, seat1, b.mu, b.sigma))
    return a, b


class _Replay:
    """The last ``rate`` replay: its sorted input, the two seats' ratings after each match (None
    for a match without a winner) and how long the history was after each."""

    def __init__(self) -> None:
        self.items: list[tuple[int, str, str, int | None]] = []
        self.after: list[tuple[trueskill.Rating, trueskill.Rating] | None] = []
        self.history: list[RatingPoint] = []
        self.length: list[int] = []

    def continue_to(self, items: list[tuple[int, str, str, int | None]]
                    ) -> tuple[dict[str, trueskill.Rating], list[RatingPoint]]:
        same = 0
        for old, new in zip(self.items, items):
            if old != new:
                break
            same += 1
        ratings: dict[str, trueskill.Rating] = {}
        for (_, seat0, seat1, _), after in zip(self.items[:same], self.after[:same]):
            ratings.setdefault(seat0, ENV.create_rating())
            ratings.setdefault(seat1, ENV.create_rating())
            if after is not None:
                ratings[seat0], ratings[seat1] = after
        history = self.history[:self.length[same - 1]] if same else []
        after_each, length = self.after[:same], self.length[:same]
        for item in items[same:]:
            after_each.append(_step(item, ratings, history))
            length.append(len(history))
        self.items, self.after, self.history, self.length = items, after_each, history, length
        return ratings, list(history)


_LAST = _Replay()
_LAST_LOCK = threading.Lock()


def exact(pi: float, tau: float) -> trueskill.Rating:
    """A rating from TrueSkill's own parameters (precision and precision-adjusted mean), as kept:
    one made from mu and sigma may differ from the original in its last bit, and every later
    update would carry the difference."""
    rating = ENV.create_rating()
    rating.pi, rating.tau = pi, tau
    return rating


# -- three and four players: TrueSkill's teams -----------------------------------------------------

Teams = tuple[tuple[str, ...], ...]
"""The sides of a match, each a tuple of bot names: three teams of one with three players, two teams
of two with four (a bot that fills both seats of a side is named twice)."""


def rate_ranked(results: list[tuple[int, Teams, tuple[int, ...] | None]]
                ) -> tuple[dict[str, trueskill.Rating], list[RatingPoint]]:
    """Ratings from (schedule order, teams, ranks) with TrueSkill's own multi-team model: a
    three-player match is a ranking of three teams of one, a four-player match two teams of two.
    ``ranks`` gives each team's place (0 best; equal places are ties); None leaves the ratings
    unchanged (no contest, a tie at the deal limit). Input in any order: sorted by schedule order.

    A bot named twice in one team (partnering itself, schedule.partnership_groups) is one player
    whose performance counts twice: a partial-play weight of 2. A bot on two teams of one match is an
    error: no schedule produces it, and a bot cannot be rated against itself."""
    ratings: dict[str, trueskill.Rating] = {}
    history: list[RatingPoint] = []
    for order, teams, ranks in sorted(results, key=lambda r: r[0]):
        try:
            changed = rate_match(ratings, teams, ranks)
        except ValueError as err:
            raise ValueError(f"match {order}: {err}") from None
        history += [RatingPoint(order, bot, rating.mu, rating.sigma) for bot, rating in changed]
    return ratings, history


def rate_match(ratings: dict[str, trueskill.Rating], teams: Teams,
               ranks: tuple[int, ...] | None) -> list[tuple[str, trueskill.Rating]]:
    """One match of ``rate_ranked``: updates ``ratings`` in place (a bot new to it starts at the
    default) and returns the changed ratings, team by team; none when ``ranks`` is None. A
    league's runner rates each match so as it stores it (league.Ladder)."""
    members = [sorted(set(team)) for team in teams]
    everyone = [bot for team in members for bot in team]
    if len(everyone) != len(set(everyone)):
        raise ValueError(f"a bot plays on two sides: {teams}")
    for bot in everyone:
        ratings.setdefault(bot, ENV.create_rating())
    if ranks is None:
        return []
    if len(ranks) != len(teams):
        raise ValueError(f"{len(teams)} teams but {len(ranks)} ranks")
    groups = [{bot: ratings[bot] for bot in team} for team in members]
    weights = {(i, bot): float(team.count(bot)) for i, team in enumerate(teams) for bot in set(team)}
    rated = ENV.rate(groups, ranks=list(ranks), weights=weights)
    changed = []
    for group in rated:
        for bot, rating in sorted(group.items()):
            ratings[bot] = rating
            changed.append((bot, rating))
    return changed


def ranks_of(players: int, game_points: tuple[int, ...], winner: int | None,
             offender: int | None, no_contest: bool = False) -> tuple[int, ...] | None:
    """Each side's place in a finished N-seat match, for ``rate_ranked`` (None: leaves ratings alone).

    Four players: the winning side first, the other second; no winner (a tie at the deal limit)
    rates nothing. Three players: the offender of a forfeit last, the others by game points, equal
    points tied; a match without a winner and without an offender ranks all three by points."""
    if no_contest:
        return None
    if players == 4:
        if winner is None:
            return None
        return (0, 1) if winner == 0 else (1, 0)
    # Sorting by (forfeited, -points): places are dense ranks, so equal keys share a place.
    keys = [(side == offender, -points) for side, points in enumerate(game_points)]
    places = sorted(set(keys))
    return tuple(places.index(k) for k in keys)


def side_of(players: int, seat: int) -> int:
    """The side a seat plays for (PROTOCOL.md §9): partners sit opposite with four players."""
    return seat % 2 if players == 4 else seat
