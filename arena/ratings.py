"""TrueSkill ratings and the leaderboard, derived from the results store (never stored as truth).

Ratings are updated match by match **in schedule order**, so the same results give the same
ratings whatever order the workers finished in. A match cannot be drawn (RULES.md §8: only one
player scores in a deal), so the environment's draw probability is 0; the two matches that have no
winner (both bots failed to start, or a tie at the platform's deal limit) leave ratings unchanged.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import pandas as pd
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


def rate(results: list[tuple[int, str, str, int | None]]) -> tuple[dict[str, trueskill.Rating],
                                                                   list[RatingPoint]]:
    """Ratings from (schedule order, seat-0 bot, seat-1 bot, winning seat or None) and the history
    of every change. The input may come in any order; it is sorted by schedule order first."""
    ratings: dict[str, trueskill.Rating] = {}
    history: list[RatingPoint] = []
    for order, seat0, seat1, winner in sorted(results):
        a = ratings.setdefault(seat0, ENV.create_rating())
        b = ratings.setdefault(seat1, ENV.create_rating())
        if winner is None:
            continue
        if winner == 0:
            a, b = trueskill.rate_1vs1(a, b, env=ENV)
        else:
            b, a = trueskill.rate_1vs1(b, a, env=ENV)
        ratings[seat0], ratings[seat1] = a, b
        history.append(RatingPoint(order, seat0, a.mu, a.sigma))
        history.append(RatingPoint(order, seat1, b.mu, b.sigma))
    return ratings, history


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
        members = [sorted(set(team)) for team in teams]
        everyone = [bot for team in members for bot in team]
        if len(everyone) != len(set(everyone)):
            raise ValueError(f"match {order}: a bot plays on two sides: {teams}")
        for bot in everyone:
            ratings.setdefault(bot, ENV.create_rating())
        if ranks is None:
            continue
        if len(ranks) != len(teams):
            raise ValueError(f"match {order}: {len(teams)} teams but {len(ranks)} ranks")
        groups = [{bot: ratings[bot] for bot in team} for team in members]
        weights = {(i, bot): float(team.count(bot)) for i, team in enumerate(teams) for bot in set(team)}
        rated = ENV.rate(groups, ranks=list(ranks), weights=weights)
        for group in rated:
            for bot, rating in sorted(group.items()):
                ratings[bot] = rating
                history.append(RatingPoint(order, bot, rating.mu, rating.sigma))
    return ratings, history


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


def _rate_store(matches: pd.DataFrame) -> tuple[dict[str, trueskill.Rating], list[RatingPoint]]:
    return rate(list(matches[["sched_order", "seat0", "seat1", "winner"]]
                     .astype(object).itertuples(index=False, name=None)))


def rating_history(db: sqlite3.Connection) -> pd.DataFrame:
    """Each bot's mu and sigma after each of its rated matches (columns order, bot, mu, sigma), in
    schedule order: the same replay as the leaderboard's, so its last row per bot is the table's."""
    matches = pd.read_sql_query("SELECT sched_order, seat0, seat1, winner FROM matches", db)
    _, history = _rate_store(matches)
    return pd.DataFrame(history, columns=["order", "bot", "mu", "sigma"]) \
        .astype({"order": int, "bot": str, "mu": float, "sigma": float})  # typed even when empty


def leaderboard(db: sqlite3.Connection) -> pd.DataFrame:
    """Rank, bot, mu, sigma, conservative rating (mu - 3 sigma), matches, match win %, game points
    won per deal, forfeits: one row per bot of the tournament, best conservative rating first."""
    matches = pd.read_sql_query(
        "SELECT sched_order, seat0, seat1, winner, reason, offender FROM matches", db)
    bots = pd.read_sql_query("SELECT name FROM bots", db)["name"].tolist()
    ratings, _ = _rate_store(matches)
    per_seat = pd.concat([
        matches.assign(bot=matches.seat0, won=matches.winner == 0,
                       forfeit=matches.offender == 0),
        matches.assign(bot=matches.seat1, won=matches.winner == 1,
                       forfeit=matches.offender == 1),
    ])
    counts = per_seat.groupby("bot").agg(matches=("won", "size"), wins=("won", "sum"),
                                         forfeits=("forfeit", "sum"))
    deals = pd.read_sql_query(
        "SELECT m.seat0, m.seat1, d.winner, d.awarded FROM deals d "
        "JOIN matches m USING (match_id)", db)
    per_deal_seat = pd.concat([
        deals.assign(bot=deals.seat0, won_points=deals.awarded.where(deals.winner == 0, 0)),
        deals.assign(bot=deals.seat1, won_points=deals.awarded.where(deals.winner == 1, 0)),
    ])
    points = per_deal_seat.groupby("bot")["won_points"].mean().rename("points_per_deal")
    table = pd.DataFrame({"bot": bots}).set_index("bot")
    table["mu"] = [ratings.get(b, ENV.create_rating()).mu for b in table.index]
    table["sigma"] = [ratings.get(b, ENV.create_rating()).sigma for b in table.index]
    table["conservative"] = table["mu"] - 3 * table["sigma"]
    table = table.join(counts).join(points)
    table[["matches", "wins", "forfeits"]] = table[["matches", "wins", "forfeits"]].fillna(0).astype(int)
    table["win_pct"] = (100 * table["wins"] / table["matches"].where(table["matches"] > 0)).fillna(0.0)
    table["points_per_deal"] = table["points_per_deal"].fillna(0.0)
    table = table.sort_values(["conservative", "mu"], ascending=False).reset_index()
    table.insert(0, "rank", range(1, len(table) + 1))
    return table[["rank", "bot", "mu", "sigma", "conservative", "matches", "win_pct",
                  "points_per_deal", "forfeits"]]
