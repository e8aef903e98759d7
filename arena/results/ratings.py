"""TrueSkill ratings and the leaderboard, derived from the results store (never stored as truth).

Ratings are updated match by match **in schedule order**, so the same results give the same
ratings whatever order the workers finished in. A match cannot be drawn (RULES.md §8: only one
player scores in a deal), so the environment's draw probability is 0; the two matches that have no
winner (both bots failed to start, or a tie at the platform's deal limit) leave ratings unchanged.

Three and four players (RULES.md §10, issue 16) use TrueSkill's multi-team model (``rate_ranked``):
three teams of one ranked by game points (a forfeit last, equal points tied), or two partnerships.
Their leaderboard (``seated_leaderboard``) adds a bot's score share and declined matches, and
``partner_table`` gives each bot's results with each partner.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import pandas as pd
import trueskill

# The environment and the two-player replay live in rating_replay.py (no pandas: a league's status
# imports them); re-exported here for the modules that read them with the leaderboard.
from arena.results.rating_replay import (  # noqa: F401
    ENV,
    MU,
    SIGMA,
    RatingPoint,
    Teams,
    ranks_of,
    rate,
    rate_match,
    rate_ranked,
    side_of,
)
from arena.results.league_ladder import kept_replay, rating_start
from arena.results.store import store_players  # noqa: F401 (where the report reads it)
from arena.types import MatchEnding


@dataclass(frozen=True)
class SeatedResults:
    """A three- or four-player store read per seat and per side (the frames every N-seat table is
    computed from).

    ``seats``: one row per match and seat: match_id, sched_order, seat, side, bot, declined, and the
    match's winner (a side), reason, offender (a seat) and fault. ``sides``: one row per match and
    side: match_id, sched_order, side, points, total (the match's game points, all sides), bots (the
    side's bot names in seat order). ``deals``: one row per deal and side: match_id, side, awarded."""

    players: int
    seats: pd.DataFrame
    sides: pd.DataFrame
    deals: pd.DataFrame

    @property
    def sides_per_match(self) -> int:
        return 2 if self.players == 4 else self.players


def read_seated(db: sqlite3.Connection, players: int) -> SeatedResults:
    # A league's ratings started again (league_ladder.rating_start) count from there: its
    # status reads the store itself (a report's snapshot has dropped the matches before).
    start = {"start": rating_start(db)}
    seats = pd.read_sql_query(
        "SELECT s.match_id, m.sched_order, s.seat, s.bot, s.declined, m.winner, m.reason, "
        "m.offender, m.fault FROM seats s JOIN matches m USING (match_id) "
        "WHERE m.sched_order >= :start ORDER BY m.sched_order, s.seat", db, params=start)
    seats.insert(3, "side", [side_of(players, int(k)) for k in seats["seat"]])
    sides = pd.read_sql_query(
        "SELECT d.match_id, m.sched_order, d.side, d.points FROM sides d "
        "JOIN matches m USING (match_id) WHERE m.sched_order >= :start "
        "ORDER BY m.sched_order, d.side", db, params=start)
    sides["total"] = sides.groupby("match_id")["points"].transform("sum")
    names = seats.groupby(["match_id", "side"])["bot"].agg(tuple).rename("bots")
    sides = sides.join(names, on=["match_id", "side"])
    deals = pd.read_sql_query(
        "SELECT match_id, deal_no, side, awarded FROM deal_sides WHERE match_id IN "
        "(SELECT match_id FROM matches WHERE sched_order >= :start)", db, params=start)
    return SeatedResults(players, seats, sides, deals)


def _unrated(reason: str) -> bool:
    """Nothing was played: no bot is ranked (and a decline is not held against anyone)."""
    return reason in (MatchEnding.NO_CONTEST, MatchEnding.DECLINED)


def _rate_seated(results: SeatedResults) -> tuple[dict[str, trueskill.Rating], list[RatingPoint]]:
    """``rate_ranked`` over a store's N-seat matches: each side a team of its seats' bots."""
    games: list[tuple[int, Teams, tuple[int, ...] | None]] = []
    matches = results.seats.drop_duplicates("match_id")
    sides = results.sides.set_index(["match_id", "side"])
    teams_of = results.seats.groupby("match_id")
    for m in matches.itertuples():
        seated = teams_of.get_group(m.match_id)
        teams = tuple(tuple(seated[seated["side"] == side]["bot"])
                      for side in range(results.sides_per_match))
        points = tuple(int(sides.loc[(m.match_id, side), "points"])
                       if (m.match_id, side) in sides.index else 0
                       for side in range(results.sides_per_match))
        winner = None if pd.isna(m.winner) else int(m.winner)
        offender = None if pd.isna(m.offender) else side_of(results.players, int(m.offender))
        ranks = ranks_of(results.players, points, winner, offender, no_contest=_unrated(m.reason))
        games.append((int(m.sched_order), teams, ranks))
    return rate_ranked(games)


def _rate_store(db: sqlite3.Connection, matches: pd.DataFrame
                ) -> tuple[dict[str, trueskill.Rating], list[RatingPoint]]:
    """Two players: the ratings after ``matches`` (all the store's) and every change, replayed in
    schedule order; a league's store keeps them up to a point (``league_ladder.kept_replay``),
    and only the matches after it are replayed, to the same bits."""
    kept = kept_replay(db)
    if kept is not None:
        through, start, before = kept
        matches = matches[matches["sched_order"] >= through]
    # pandas reads a winner column holding NULLs as floats, NULL as NaN, which is not None: a match
    # without a winner (a tie at the deal limit, no contest) was rated as won by seat 1.
    rows = [(int(order), seat0, seat1, None if pd.isna(winner) else int(winner))
            for order, seat0, seat1, winner in
            matches[["sched_order", "seat0", "seat1", "winner"]].itertuples(index=False, name=None)]
    if kept is None:
        return rate(rows)
    ratings, after = rate(rows, start=start)
    return ratings, before + after


def rating_history(db: sqlite3.Connection) -> pd.DataFrame:
    """Each bot's mu and sigma after each of its rated matches (columns order, bot, mu, sigma), in
    schedule order: the same replay as the leaderboard's, so its last row per bot is the table's."""
    players = store_players(db)
    if players > 2:
        _, history = _rate_seated(read_seated(db, players))
    else:
        matches = pd.read_sql_query("SELECT sched_order, seat0, seat1, winner FROM matches", db)
        _, history = _rate_store(db, matches)
    # Built column by column: from the RatingPoint objects themselves pandas took seconds for a
    # league of 10,000 matches.
    return pd.DataFrame({"order": [p.order for p in history], "bot": [p.bot for p in history],
                         "mu": [p.mu for p in history], "sigma": [p.sigma for p in history]},
                        columns=["order", "bot", "mu", "sigma"]) \
        .astype({"order": int, "bot": str, "mu": float, "sigma": float})  # typed even when empty


def leaderboard(db: sqlite3.Connection) -> pd.DataFrame:
    """Rank, bot, mu, sigma, conservative rating (mu - 3 sigma), matches, match win %, game points
    won per deal, forfeits: one row per bot of the tournament, best conservative rating first.
    Three- and four-player stores have their own columns (``seated_leaderboard``)."""
    players = store_players(db)
    if players > 2:
        return seated_leaderboard(db, read_seated(db, players))
    matches = pd.read_sql_query(
        "SELECT sched_order, seat0, seat1, winner, reason, offender FROM matches", db)
    bots = pd.read_sql_query("SELECT name FROM bots", db)["name"].tolist()
    ratings, _ = _rate_store(db, matches)
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


def bot_matches(results: SeatedResults) -> pd.DataFrame:
    """One row per bot and match it played (a bot partnering itself is one row): its side, the
    side's share of the match's game points, whether the side won, whether the bot forfeited or
    declined, and whether the match was played at all."""
    seats = results.seats.assign(forfeit=results.seats["offender"] == results.seats["seat"])
    per_bot = seats.groupby(["match_id", "bot"], as_index=False, sort=False).agg(
        sched_order=("sched_order", "first"), side=("side", "first"), winner=("winner", "first"),
        reason=("reason", "first"), forfeit=("forfeit", "any"), declined=("declined", "max"))
    sides = results.sides.set_index(["match_id", "side"])
    key = list(zip(per_bot["match_id"], per_bot["side"]))
    points = sides["points"].reindex(key).to_numpy()
    total = sides["total"].reindex(key).to_numpy()
    per_bot["points_for"] = pd.Series(points).fillna(0).astype(int).to_numpy()
    per_bot["points_all"] = pd.Series(total).fillna(0).astype(int).to_numpy()
    per_bot["played"] = ~per_bot["reason"].map(_unrated)
    # Score share: the side's part of the game points the match gave out; a match in which nobody
    # scored (a forfeit on the first deal) shares evenly.
    even = 1 / results.sides_per_match
    per_bot["share"] = (per_bot["points_for"] / per_bot["points_all"].where(per_bot["points_all"] > 0)) \
        .fillna(even)
    per_bot["won"] = per_bot["winner"] == per_bot["side"]
    return per_bot


def seated_leaderboard(db: sqlite3.Connection, results: SeatedResults) -> pd.DataFrame:
    """The leaderboard of a three- or four-player tournament, one row per bot, best conservative
    rating first: rank, bot, mu, sigma, conservative, matches (played, not declined), win_pct (its
    side won the match), score_pct (the mean share of each match's game points its side took:
    100/3 or 50 is even), points_per_deal (game points its side scored per deal, the pot
    included), forfeits (matches it forfeited) and declined (matches not played because it
    declined the variant)."""
    bots = pd.read_sql_query("SELECT name FROM bots", db)["name"].tolist()
    ratings, _ = _rate_seated(results)
    per_bot = bot_matches(results)
    played = per_bot[per_bot["played"]]
    counts = played.groupby("bot").agg(matches=("match_id", "size"), wins=("won", "sum"),
                                       share=("share", "mean"), forfeits=("forfeit", "sum"))
    declined = per_bot.groupby("bot")["declined"].sum().rename("declined")
    deals = results.deals.merge(results.seats[["match_id", "side", "bot"]].drop_duplicates(),
                                on=["match_id", "side"])
    points = deals.groupby("bot")["awarded"].mean().rename("points_per_deal")
    table = pd.DataFrame({"bot": bots}).set_index("bot")
    table["mu"] = [ratings.get(b, ENV.create_rating()).mu for b in table.index]
    table["sigma"] = [ratings.get(b, ENV.create_rating()).sigma for b in table.index]
    table["conservative"] = table["mu"] - 3 * table["sigma"]
    table = table.join(counts).join(points).join(declined)
    for column in ("matches", "wins", "forfeits", "declined"):
        table[column] = table[column].fillna(0).astype(int)
    table["win_pct"] = (100 * table["wins"] / table["matches"].where(table["matches"] > 0)).fillna(0.0)
    table["score_pct"] = (100 * table["share"]).fillna(0.0)
    table["points_per_deal"] = table["points_per_deal"].fillna(0.0)
    table = table.sort_values(["conservative", "mu"], ascending=False).reset_index()
    table.insert(0, "rank", range(1, len(table) + 1))
    return table[["rank", "bot", "mu", "sigma", "conservative", "matches", "win_pct", "score_pct",
                  "points_per_deal", "forfeits", "declined"]]


def partner_table(db: sqlite3.Connection) -> pd.DataFrame:
    """Four players: per bot and partner (the bot in the seat opposite; itself when it filled both
    seats), matches played together, wins, losses, undecided, and score_pct (the side's mean share
    of the game points). Empty for other stores."""
    columns = ["bot", "partner", "matches", "wins", "losses", "undecided", "score_pct"]
    if store_players(db) != 4:
        return pd.DataFrame(columns=columns)
    results = read_seated(db, 4)
    seats = results.seats
    partners = seats.assign(partner=seats.groupby(["match_id", "side"])["bot"]
                            .transform(lambda bots: bots.iloc[::-1].to_numpy()))
    per_bot = bot_matches(results)
    rows = partners.drop_duplicates(["match_id", "bot"]).merge(
        per_bot[["match_id", "bot", "share", "won", "played"]], on=["match_id", "bot"])
    rows = rows[rows["played"]]
    rows = rows.assign(lost=rows["winner"].notna() & ~rows["won"], undecided=rows["winner"].isna())
    table = rows.groupby(["bot", "partner"], as_index=False).agg(
        matches=("match_id", "size"), wins=("won", "sum"), losses=("lost", "sum"),
        undecided=("undecided", "sum"), share=("share", "mean"))
    table["score_pct"] = 100 * table["share"]
    return table[columns].astype({"matches": int, "wins": int, "losses": int, "undecided": int})
