"""The report's numbers, read from a results store through pandas (and nothing else).

Every table here is derived from the store, like the leaderboard (``ratings.py``), whose reader it
reuses; the charts and the page only lay out what this module computes, so a test can compare these
frames with the store and be sure the pictures show the store's figures.
"""

from __future__ import annotations

import dataclasses
import json
import math
import sqlite3
from dataclasses import dataclass
from typing import Any

import pandas as pd

from arena.report.public import public_command
from arena.results.ratings import (
    SeatedResults,
    partner_table,
    ranks_of,
    rating_history,
    read_seated,
    side_of,
    store_players,
)
from arena.results.stats import EloFit, comparisons, fit_elo, los_matrix
from arena.results.stats import head_to_head as h2h_statistics
from arena.results.stats import leaderboard as stats_leaderboard
from arena.types import DealEnding, MatchEnding

# How a deal ended, seen from one of its two players, in the order the outcomes chart stacks them:
# the wins by claim first (RULES.md §7.3 tiers), then the other wins, then draws and losses, and the
# player's own mistakes last, so that they stand out at the right end of each bar.
WON_BY_CLAIM = ("won by claim for 3", "won by claim for 2", "won by claim for 1")
WON_ON_MISTAKE = "won on opponent's mistake"
WON_PLAYED_OUT = "won, played out"
DRAWN = "drawn"
LOST = "lost"
LOST_WRONG_CLAIM = "lost: own wrong claim"
LOST_FAILED_CLOSE = "lost: own failed close"
LOST_FORFEITED_DEAL = "lost: forfeited deal"
LOST_PARTNER_WRONG_CLAIM = "lost: partner's wrong claim"  # four players only
DEAL_ENDINGS = (*WON_BY_CLAIM, WON_ON_MISTAKE, WON_PLAYED_OUT, DRAWN, LOST, LOST_WRONG_CLAIM,
                LOST_FAILED_CLOSE, LOST_FORFEITED_DEAL)
# Three and four players: a partnership's deal may be lost on the partner's wrong claim.
SEATED_DEAL_ENDINGS = (*DEAL_ENDINGS[:DEAL_ENDINGS.index(LOST_WRONG_CLAIM) + 1],
                       LOST_PARTNER_WRONG_CLAIM,
                       *DEAL_ENDINGS[DEAL_ENDINGS.index(LOST_WRONG_CLAIM) + 1:])
# Shown in the legend even when no deal ended so: the chart would otherwise not say "none".
ALWAYS_SHOWN = (*WON_BY_CLAIM, LOST)

# Deal endings (the store's ``deals.reason``) by what they say of the deal's loser.
_CLAIM_WINS = {DealEnding.CLAIM, DealEnding.CLAIM_AGAINST_CLOSE}
_PLAYED_OUT = {DealEnding.LAST_TRICK, DealEnding.HIGHER_TOTAL}
_LOSER_MISTAKE: dict[str, str] = {DealEnding.WRONG_CLAIM: LOST_WRONG_CLAIM,
                                  DealEnding.CLOSE_FAILED: LOST_FAILED_CLOSE,
                                  DealEnding.FORFEIT: LOST_FORFEITED_DEAL}


@dataclass(frozen=True)
class ReportData:
    """Everything the charts and the page show, as pandas frames in leaderboard order."""

    name: str
    created: str
    config: dict[str, Any]
    scheduled: int | None        # matches the settings schedule; None when the settings are unknown
    bots: pd.DataFrame           # name, command (public text), version; leaderboard order
    leaderboard: pd.DataFrame    # stats.leaderboard: ratings.leaderboard with the statistics
    history: pd.DataFrame        # ratings.rating_history
    matches: pd.DataFrame        # one row per bot per match, seen from that bot (see _per_bot)
    head_to_head: pd.DataFrame   # one row per ordered pair that met (see _head_to_head)
    outcomes: pd.DataFrame       # bots x DEAL_ENDINGS: how many of each bot's deals ended so
    mistakes: pd.DataFrame       # bots x (wrong claims, failed closes, missed claims, forfeits...)
    timing: pd.DataFrame         # per bot: decisions, median and worst decision times (ms)
    players: int = 2             # seats per match (2, 3 or 4)
    deal_count: int = 0          # deals played in all matches
    partners: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)  # ratings.partner_table
    # Issue 17's statistics (arena/results/stats.py): per ordered pair that met, pentanomial, score, Elo
    # and LOS with the pair (deal set) as the unit; and the Elo fit's LOS, row over column.
    h2h_stats: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    los: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)

    @property
    def order(self) -> list[str]:
        """Bot names, best first: the order of every chart and table."""
        return list(self.leaderboard["bot"])

    @property
    def played(self) -> int:
        return int(self.matches["match_id"].nunique()) if len(self.matches) else 0

    def score_matrix(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """(score %, matches) as bots x bots frames, row against column, in leaderboard order; NaN
        and 0 where two bots have not met (and on the diagonal)."""
        order = self.order
        h2h = self.head_to_head
        score = h2h.pivot(index="bot", columns="opponent", values="score_pct") \
            .reindex(index=order, columns=order)
        count = h2h.pivot(index="bot", columns="opponent", values="matches") \
            .reindex(index=order, columns=order).fillna(0).astype(int)
        return score.astype(float), count


def read_report_data(db: sqlite3.Connection) -> ReportData:
    """All of the report's figures from an open results database."""
    players = store_players(db)
    if players > 2:
        return _read_seated_report(db, players)
    fit = fit_elo(comparisons(db))
    board = stats_leaderboard(db, fit)
    order = list(board["bot"])
    tournament = pd.read_sql_query("SELECT name, config, created FROM tournament", db)
    config: dict[str, Any] = json.loads(tournament["config"].iloc[0]) if len(tournament) else {}
    bots = pd.read_sql_query("SELECT name, command, version FROM bots", db)
    # As a public page may show it: no path of this machine (public.py).
    bots["command"] = bots["command"].map(lambda argv: public_command(json.loads(argv)))
    bots = bots.set_index("name").reindex(order).reset_index()
    matches = pd.read_sql_query(
        "SELECT match_id, sched_order, seat0, seat1, winner, reason, points0, points1, "
        "offender, fault, detail, record, play_ms, finished FROM matches ORDER BY sched_order", db)
    deals = pd.read_sql_query(
        "SELECT m.seat0, m.seat1, d.reason, d.winner, d.points FROM deals d "
        "JOIN matches m USING (match_id)", db)
    seats = pd.read_sql_query("SELECT bot, missed_claims, decisions, median_ms, p99_ms, max_ms "
                              "FROM seats", db)
    per_bot = _per_bot(matches)
    outcomes = _deal_outcomes(deals, order)
    return ReportData(
        name=str(tournament["name"].iloc[0]) if len(tournament) else "",
        created=str(tournament["created"].iloc[0]) if len(tournament) else "",
        config=config,
        scheduled=_scheduled(config, len(order)),
        bots=bots,
        leaderboard=board,
        history=rating_history(db),
        matches=per_bot,
        head_to_head=_head_to_head(per_bot),
        outcomes=outcomes,
        mistakes=_mistakes(outcomes, per_bot, seats, order),
        timing=_timing(seats, order),
        deal_count=len(deals),
        **_statistics(db, order, fit),
    )


def _statistics(db: sqlite3.Connection, order: list[str], fit: EloFit) -> dict[str, pd.DataFrame]:
    return {"h2h_stats": h2h_statistics(db), "los": los_matrix(order, fit)}


def _header(db: sqlite3.Connection, order: list[str]) -> tuple[pd.DataFrame, dict[str, Any],
                                                               pd.DataFrame]:
    tournament = pd.read_sql_query("SELECT name, config, created FROM tournament", db)
    config: dict[str, Any] = json.loads(tournament["config"].iloc[0]) if len(tournament) else {}
    bots = pd.read_sql_query("SELECT name, command, version FROM bots", db)
    bots["command"] = bots["command"].map(lambda argv: public_command(json.loads(argv)))
    return tournament, config, bots.set_index("name").reindex(order).reset_index()


def _read_seated_report(db: sqlite3.Connection, players: int) -> ReportData:
    """The report's figures for three or four players. The frames have the two-player shapes, so
    the charts and pages are the same; what a row means is per side: a bot's points and results
    are its side's (its partnership's with four players), and "against an opponent" compares the
    places of their two sides in a match they both played (PROTOCOL.md §9, RULES.md §10)."""
    fit = fit_elo(comparisons(db))
    board = stats_leaderboard(db, fit)
    order = list(board["bot"])
    tournament, config, bots = _header(db, order)
    results = read_seated(db, players)
    matches = pd.read_sql_query(
        "SELECT match_id, reason, fault, detail, record, play_ms, finished FROM matches", db)
    per_bot = _seated_per_bot(results, matches)
    deals = pd.read_sql_query(
        "SELECT d.match_id, d.deal_no, d.reason, d.winner, d.points, d.claimant FROM deals d", db)
    seats = pd.read_sql_query("SELECT bot, wrong_claims, missed_claims, decisions, median_ms, "
                              "p99_ms, max_ms, declined FROM seats", db)
    outcomes = _seated_outcomes(results, deals, order)
    return ReportData(
        name=str(tournament["name"].iloc[0]) if len(tournament) else "",
        created=str(tournament["created"].iloc[0]) if len(tournament) else "",
        config=config,
        scheduled=_seated_scheduled(config, players, len(order)),
        bots=bots,
        leaderboard=board,
        history=rating_history(db),
        matches=per_bot,
        head_to_head=_head_to_head(per_bot[per_bot["opponent"] != ""]),
        outcomes=outcomes,
        mistakes=_seated_mistakes(per_bot, seats, order),
        timing=_timing(seats, order),
        players=players,
        deal_count=len(deals),
        partners=partner_table(db),
        **_statistics(db, order, fit),
    )


def _seated_scheduled(config: dict[str, Any], players: int, bots: int) -> int | None:
    """Matches in the schedule the settings describe (schedule.three_player_sets and
    partnership_groups: six seatings of every deal set; fewer than four bots in partnerships
    play each bot doubled)."""
    sets = config.get("deal_sets")
    if not isinstance(sets, int):
        return None
    if players == 3:
        return 6 * sets * math.comb(bots, 3)
    if bots >= 4:
        return 6 * sets * math.comb(bots, 4)
    return (2 if bots == 2 else 6) * sets


def _seated_per_bot(results: SeatedResults, matches: pd.DataFrame) -> pd.DataFrame:
    """One row per bot, match and opponent it met on another side (an opponent filling two seats
    counts once), with the two sides' places: result 'won' when the bot's side placed above the
    opponent's (ratings.ranks_of: by game points, a forfeit last; with four players the winner),
    'lost' below, 'undecided' level or unrated. A match the bot declined, or that was not played,
    has one row with no opponent (it shows in the bot's list of matches, never in a score)."""
    info = matches.set_index("match_id")
    seats = results.seats
    sides = results.sides.set_index(["match_id", "side"])
    m = results.sides_per_match
    rows = []
    for match_id, seated in seats.groupby("match_id", sort=False):
        first = seated.iloc[0]
        points = tuple(int(sides.loc[(match_id, k), "points"]) if (match_id, k) in sides.index
                       else 0 for k in range(m))
        winner = None if pd.isna(first["winner"]) else int(first["winner"])
        offender = None if pd.isna(first["offender"]) else int(first["offender"])
        played = first["reason"] not in (MatchEnding.NO_CONTEST, MatchEnding.DECLINED)
        ranks = ranks_of(results.players, points, winner,
                         None if offender is None else side_of(results.players, offender),
                         no_contest=not played)
        score = "–".join(str(p) for p in points)
        bots = seated.drop_duplicates("bot")
        for me in bots.itertuples():
            partner = [b for b in seated[seated["side"] == me.side]["bot"] if b != me.bot]
            common = {
                "bot": me.bot, "seat": int(me.seat), "side": int(me.side), "match_id": match_id,
                "sched_order": int(me.sched_order), "reason": first["reason"],
                "points_for": points[me.side],
                "points_against": sum(points) - points[me.side],
                "score": score, "partner": partner[0] if partner else
                (me.bot if results.players == 4 else ""),
                "forfeited": bool(offender is not None and seated.loc[seated["seat"] == offender,
                                                                      "bot"].iloc[0] == me.bot),
                "fault": first["fault"], "declined": bool(me.declined),
                "detail": info.at[match_id, "detail"], "record": info.at[match_id, "record"],
                "play_ms": info.at[match_id, "play_ms"], "finished": info.at[match_id, "finished"],
                "others": _table_seen_by(seated, me.bot, me.side, results.players),
                "offender_bot": None if offender is None else
                seated.loc[seated["seat"] == offender, "bot"].iloc[0],
            }
            common["side_result"] = "won" if winner == me.side else \
                "lost" if winner is not None or common["forfeited"] else "undecided"
            others = bots[bots["side"] != me.side]
            if not played or others.empty:
                rows.append({**common, "opponent": "", "result": "undecided"})
                continue
            for them in others.itertuples():
                mine, theirs = (ranks[me.side], ranks[them.side]) if ranks else (0, 0)
                result = "won" if mine < theirs else "lost" if mine > theirs else "undecided"
                rows.append({**common, "opponent": them.bot, "result": result,
                             "points_against": points[them.side]})
    columns = ["bot", "opponent", "partner", "others", "offender_bot", "seat", "side", "match_id",
               "sched_order", "result", "side_result", "reason", "points_for", "points_against", "score", "forfeited",
               "declined", "fault", "detail", "record", "play_ms", "finished"]
    return pd.DataFrame(rows, columns=columns).sort_values(["sched_order", "seat"]) \
        .reset_index(drop=True)


def _table_seen_by(seated: pd.DataFrame, bot: str, side: int, players: int) -> str:
    """The other players of a match as a bot's page lists them: the two others in seat order with
    three players; the partner, then the other side, with four."""
    if players == 3:
        return ", ".join(seated.sort_values("seat")["bot"][lambda b: b != bot])
    mine = list(seated[seated["side"] == side].sort_values("seat")["bot"])
    partner = mine[1] if mine[0] == bot else mine[0]
    them = " and ".join(dict.fromkeys(seated[seated["side"] != side].sort_values("seat")["bot"]))
    return f"with {'itself' if partner == bot else partner} against {them}"


def seated_deal_ending(reason: str, winner: float | None, points: int, side: int,
                       claimant_side: int | None, awards: int, own_claim: bool = True) -> str:
    """How a deal of three or four players ended for ``side``: as with two players, except that a
    three-player wrong claim pays both opponents (no single winner): the claimant's side lost by
    its wrong claim, the others won on its mistake (RULES.md §10.4); and that with four players a
    side's wrong claim may be the partner's (``own_claim`` False)."""
    lost_claim = LOST_WRONG_CLAIM if own_claim else LOST_PARTNER_WRONG_CLAIM
    if (winner is None or pd.isna(winner)) and awards:
        return lost_claim if side == claimant_side else WON_ON_MISTAKE
    if reason == DealEnding.WRONG_CLAIM and winner is not None and not pd.isna(winner):
        # the deal's loser is the claimant's side; with three players a third side just lost
        if side == winner:
            return WON_ON_MISTAKE
        return lost_claim if side == claimant_side else LOST
    if reason == DealEnding.FORFEIT and side != winner:
        return LOST  # the deals table does not say which of several losing sides forfeited
    return deal_ending(reason, winner, points, side)


def _seated_outcomes(results: SeatedResults, deals: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    """Per bot, how its side's deals ended (a bot filling two seats counts each deal once), in the
    columns SEATED_DEAL_ENDINGS."""
    awards = results.deals.groupby(["match_id", "deal_no"])["awarded"].sum()
    bot_at = results.seats.set_index(["match_id", "seat"])["bot"]
    seats = results.seats.drop_duplicates(["match_id", "bot"])[["match_id", "bot", "side"]]
    rows = deals.merge(seats, on="match_id")
    players = results.players
    endings = [
        seated_deal_ending(r, w, p, int(side), None if pd.isna(c) else side_of(players, int(c)),
                           int(awards.get((mid, no), 0)),
                           own_claim=pd.isna(c) or bot_at.get((mid, int(c))) == bot)
        for r, w, p, side, c, mid, no, bot in zip(
            rows["reason"], rows["winner"], rows["points"], rows["side"], rows["claimant"],
            rows["match_id"], rows["deal_no"], rows["bot"])]
    both = pd.DataFrame({"bot": rows["bot"], "ending": endings})
    unknown = set(both["ending"]) - set(SEATED_DEAL_ENDINGS)
    if unknown:
        raise ValueError(f"deal endings the report cannot place: {sorted(unknown)}")
    counts = pd.crosstab(both["bot"], both["ending"]) if len(both) else pd.DataFrame()
    return counts.reindex(index=order, columns=list(SEATED_DEAL_ENDINGS)).fillna(0).astype(int)


def _seated_mistakes(per_bot: pd.DataFrame, seats: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    """Counts per bot of its own mistakes (not its partner's): wrong claims and missed claims as
    the referee counted them per seat, forfeited matches by fault, and matches it declined."""
    table = pd.DataFrame(index=order)
    by_bot = seats.groupby("bot")
    table["wrong claims"] = by_bot["wrong_claims"].sum().reindex(order).fillna(0).astype(int)
    table["missed claims"] = by_bot["missed_claims"].sum().reindex(order).fillna(0).astype(int)
    once = per_bot.drop_duplicates(["match_id", "bot"])
    _forfeit_columns(table, once[once["forfeited"]], order)
    declined = once[once["declined"]].groupby("bot").size()
    if len(declined):
        table["declined"] = declined.reindex(order).fillna(0).astype(int)
    table.index.name = "bot"
    return table


def _scheduled(config: dict[str, Any], bots: int) -> int | None:
    """Matches in the round robin the settings describe (schedule.round_robin: every pairing
    plays matches_per_pairing matches)."""
    per_pairing = config.get("matches_per_pairing")
    return bots * (bots - 1) // 2 * per_pairing if isinstance(per_pairing, int) else None


def _per_bot(matches: pd.DataFrame) -> pd.DataFrame:
    """Each match twice, once from each seat: bot, opponent, seat, result ('won', 'lost' or
    'undecided' for a match without a winner), points for and against, forfeited (by this bot)."""
    sides = []
    for seat in (0, 1):
        other = 1 - seat
        side = matches.assign(
            bot=matches[f"seat{seat}"], opponent=matches[f"seat{other}"], seat=seat,
            points_for=matches[f"points{seat}"], points_against=matches[f"points{other}"],
            forfeited=matches["offender"] == seat)
        side["result"] = "undecided"
        side.loc[side["winner"] == seat, "result"] = "won"
        side.loc[side["winner"] == other, "result"] = "lost"
        sides.append(side)
    both = pd.concat(sides, ignore_index=True).sort_values(["sched_order", "seat"])
    return both[["bot", "opponent", "seat", "match_id", "sched_order", "result", "reason",
                 "points_for", "points_against", "forfeited", "fault", "detail", "record",
                 "play_ms", "finished"]].reset_index(drop=True)


def _head_to_head(per_bot: pd.DataFrame) -> pd.DataFrame:
    """Per ordered pair (bot, opponent): matches, wins, losses, undecided, game points for and
    against, and the match score in % (a win 1, a match without a winner 1/2, as in chess)."""
    table = per_bot.assign(w=per_bot["result"] == "won", l=per_bot["result"] == "lost",
                           u=per_bot["result"] == "undecided") \
        .groupby(["bot", "opponent"], as_index=False) \
        .agg(matches=("match_id", "size"), wins=("w", "sum"), losses=("l", "sum"),
             undecided=("u", "sum"), points_for=("points_for", "sum"),
             points_against=("points_against", "sum"))
    table["score_pct"] = 100 * (table["wins"] + table["undecided"] / 2) / table["matches"]
    return table


def deal_ending(reason: str, winner: float | None, points: int, seat: int) -> str:
    """How a deal ended for the player in ``seat`` (one of DEAL_ENDINGS)."""
    if winner is None or pd.isna(winner):
        return DRAWN
    if winner == seat:
        if reason in _CLAIM_WINS:
            return f"won by claim for {points}"
        return WON_PLAYED_OUT if reason in _PLAYED_OUT else WON_ON_MISTAKE
    # A deal's loser is the player the reason names: the wrong claimant, the failed closer, the
    # player who forfeited the deal (scoring.settle_*).
    return _LOSER_MISTAKE.get(reason, LOST)


def _deal_outcomes(deals: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    rows = []
    for seat in (0, 1):
        rows.append(pd.DataFrame({
            "bot": deals[f"seat{seat}"],
            "ending": [deal_ending(r, w, p, seat)
                       for r, w, p in zip(deals["reason"], deals["winner"], deals["points"])],
        }))
    both = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=["bot", "ending"])
    unknown = set(both["ending"]) - set(DEAL_ENDINGS)
    if unknown:  # e.g. a claim worth 4 under rules this report does not know
        raise ValueError(f"deal endings the report cannot place: {sorted(unknown)}")
    counts = pd.crosstab(both["bot"], both["ending"]) if len(both) else pd.DataFrame()
    return counts.reindex(index=order, columns=list(DEAL_ENDINGS)).fillna(0).astype(int)


def _mistakes(outcomes: pd.DataFrame, per_bot: pd.DataFrame, seats: pd.DataFrame,
              order: list[str]) -> pd.DataFrame:
    """Counts per bot: wrong claims and failed closes (deals lost so), missed claims (windows in
    which the bot had 66 and did not claim, as the referee counted them), forfeited deals when any,
    and forfeited matches by fault (PROTOCOL.md §5), or one 'forfeits' column of zeros if none."""
    table = pd.DataFrame(index=order)
    table["wrong claims"] = outcomes[LOST_WRONG_CLAIM]
    table["failed closes"] = outcomes[LOST_FAILED_CLOSE]
    table["missed claims"] = seats.groupby("bot")["missed_claims"].sum() \
        .reindex(order).fillna(0).astype(int)
    if outcomes[LOST_FORFEITED_DEAL].any():
        table["forfeited deals"] = outcomes[LOST_FORFEITED_DEAL]
    _forfeit_columns(table, per_bot[per_bot["forfeited"]], order)
    table.index.name = "bot"
    return table


def _timing(seats: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    """Decisions per bot; the median of its per-match medians and its worst p99 and max (ms). The
    store keeps per-match summaries, not every time, so an overall median is not available."""
    table = seats.groupby("bot").agg(decisions=("decisions", "sum"),
                                     median_ms=("median_ms", "median"), p99_ms=("p99_ms", "max"),
                                     max_ms=("max_ms", "max")) if len(seats) else pd.DataFrame(
        columns=["decisions", "median_ms", "p99_ms", "max_ms"])
    table = table.reindex(order)
    table["decisions"] = table["decisions"].fillna(0).astype(int)
    table.index.name = "bot"
    return table


def _forfeit_columns(table: pd.DataFrame, forfeits: pd.DataFrame, order: list[str]) -> None:
    """A column of forfeits per fault (``forfeits: timeout``, ...), or one ``forfeits`` of zeros."""
    if len(forfeits):
        by_fault = pd.crosstab(forfeits["bot"], forfeits["fault"].fillna("unknown"))
        for fault in by_fault.columns:
            table[f"forfeits: {fault}"] = by_fault[fault].reindex(order).fillna(0).astype(int)
    else:
        table["forfeits"] = 0
