"""The league's own tables beside the tournament store's (``league_bots``, ``league_pairs``,
``league_groups``): every pair or group written down before it is played, so that a continued
league completes it; and reading a league back (``read_ladder``: what ``status`` and the published
page show), while it runs."""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import trueskill

from arena.compete.league_config import load_league_config
from arena.compete.league_members import current_members
from arena.entrants.registry import data_dir
from arena.match.deal_keys import deal_set_label
from arena.results.league_ladder import LadderRow, Record, read_figures, score_interval, waiting_pairs
from arena.results.rating_replay import ENV
from arena.results.store import DB_NAME, connect_read_only, damaged, store_players
from arena.types import BotSpec, ConfigError, ScheduledMatch

LEAGUE_SCHEMA = """
CREATE TABLE IF NOT EXISTS league_bots (
    name TEXT PRIMARY KEY REFERENCES bots(name),  -- as in the store: NAME@VERSION if registered
    family TEXT NOT NULL,            -- the name across versions
    text TEXT NOT NULL,              -- what the settings or `arena league add` said
    spec TEXT NOT NULL,              -- JSON of the BotSpec it runs with (completes its pairs)
    joined TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS league_pairs (
    -- Written before the pair's two matches are sent out: a continued league completes every pair
    -- here whose matches the store does not hold both of, on the same deal set.
    pair_no INTEGER PRIMARY KEY,
    a TEXT NOT NULL REFERENCES bots(name),
    b TEXT NOT NULL REFERENCES bots(name),
    started TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS league_groups (
    -- Three and four players: as league_pairs, a group of bots and the seatings its one deal set
    -- is played in, written before its matches are sent out.
    group_no INTEGER PRIMARY KEY,
    bots TEXT NOT NULL,              -- JSON list of the group's bots, in the order chosen
    seatings TEXT NOT NULL,          -- JSON list of seatings, each a list of bots in seat order
    started TEXT NOT NULL
);
"""


def pair_matches(league: str, pair_no: int, a: str, b: str) -> list[ScheduledMatch]:
    """The two matches of duplicate pair ``pair_no``: one deal set, seats swapped (RULES.md §8).
    Ids come from the league's name, the pair and the bots, never from the key or the time."""
    deal_set = deal_set_label("league", pair_no, a, b)
    matches = []
    for swapped in (0, 1):
        digest = hashlib.sha256(json.dumps([league, pair_no, a, b, swapped]).encode()).hexdigest()
        match_id = f"L{pair_no:06d}{'ab'[swapped]}-{digest[:12]}"
        seats = (b, a) if swapped else (a, b)
        matches.append(ScheduledMatch(2 * pair_no + swapped, match_id, seats, deal_set,
                                      pair_no % 2, (a, b), pair_no, swapped))
    return matches


@dataclass(frozen=True)
class StoredPair:
    pair_no: int
    a: str
    b: str
    stored: frozenset[str]   # match ids of the pair already in the store


def league_pairs(db: sqlite3.Connection, league: str) -> list[StoredPair]:
    """Every pair the league started, with which of its matches are stored."""
    if not has_league_tables(db):
        return []
    done = {row[0] for row in db.execute("SELECT match_id FROM matches")}
    pairs = []
    for pair_no, a, b in db.execute("SELECT pair_no, a, b FROM league_pairs ORDER BY pair_no"):
        ids = {m.match_id for m in pair_matches(league, pair_no, a, b)}
        pairs.append(StoredPair(pair_no, a, b, frozenset(ids & done)))
    return pairs


SEATINGS = 6  # the matches of a group's deal set (schedule.group_seatings)


def group_matches(league: str, group_no: int, bots: Sequence[str],
                  seatings: Sequence[Sequence[str]]) -> list[ScheduledMatch]:
    """The matches of group ``group_no`` (three or four players): one deal set, one match per
    seating. Ids come from the league's name, the group, its bots and the seating, never from the
    key or the time; the label's ``players`` keeps a group's deals apart from any pair's."""
    players = len(seatings[0])
    deal_set = deal_set_label("league", players, group_no, *bots)
    matches = []
    for seating, seats in enumerate(seatings):
        digest = hashlib.sha256(json.dumps([league, group_no, list(bots), seating, list(seats)])
                                .encode()).hexdigest()
        match_id = f"L{group_no:06d}{'abcdef'[seating]}-{digest[:12]}"
        matches.append(ScheduledMatch(SEATINGS * group_no + seating, match_id, tuple(seats),
                                      deal_set, group_no % players, tuple(bots), group_no,
                                      seating))
    return matches


@dataclass(frozen=True)
class StoredGroup:
    group_no: int
    bots: tuple[str, ...]
    seatings: tuple[tuple[str, ...], ...]
    stored: frozenset[str]   # match ids of the group already in the store


def league_groups(db: sqlite3.Connection, league: str) -> list[StoredGroup]:
    """Every group a three- or four-player league started, with which of its matches are stored
    (empty for a two-player league, and for a store from before groups)."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'league_groups'").fetchone() is None:
        return []
    done = {row[0] for row in db.execute("SELECT match_id FROM matches")}
    groups = []
    for group_no, bots, seatings in db.execute(
            "SELECT group_no, bots, seatings FROM league_groups ORDER BY group_no"):
        members = tuple(json.loads(bots))
        seated = tuple(tuple(seats) for seats in json.loads(seatings))
        ids = {m.match_id for m in group_matches(league, group_no, members, seated)}
        groups.append(StoredGroup(group_no, members, seated, frozenset(ids & done)))
    return groups


def has_league_tables(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE name = 'league_pairs'").fetchone() \
        is not None


def league_bots(db: sqlite3.Connection) -> dict[str, tuple[str, BotSpec]]:
    """{store name: (family, spec)} of every bot version that joined the league."""
    if not has_league_tables(db):
        return {}
    out = {}
    for name, family, spec in db.execute("SELECT name, family, spec FROM league_bots"):
        data = json.loads(spec)
        data["argv"] = tuple(data["argv"])
        out[name] = (family, BotSpec(**data))
    return out


def unfinished_pairs(db: sqlite3.Connection) -> list[int]:
    """The pairs started of which a match is not stored."""
    return [row[0] for row in db.execute(
        "SELECT pair_no FROM league_pairs WHERE pair_no NOT IN (SELECT pair_index FROM matches "
        "GROUP BY pair_index HAVING COUNT(*) >= 2)")]


def played_through(db: sqlite3.Connection, open_pairs: Iterable[int]) -> int:
    """The first schedule order below which every match is stored for good: the first match of
    the oldest pair still open (pair_matches: pair p plays orders 2p and 2p + 1), else the one
    after every stored match."""
    first = [2 * p for p in open_pairs]
    if first:
        return min(first)
    row = db.execute("SELECT MAX(sched_order) FROM matches").fetchone()
    return 0 if row[0] is None else int(row[0]) + 1


# -- the ratings matchmaking reads -----------------------------------------------------------------

class transaction:
    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, *exc: object) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")


# -- reading a league (status, the published page) -------------------------------------------------

def read_ladder(folder: Path, data: Path | None = None,
                db: sqlite3.Connection | None = None) -> tuple[list[LadderRow], dict[str, int]]:
    """Every bot version of the league with its rating (the report's: the store's matches in pair
    order, from the ratings the league keeps, ``league_ladder.py``), W-D-L, score with its interval,
    when it joined, and whether it is in the ladder now, best first; and counts of the store
    (matches, pairs, pairs waiting for a match). Reads only: works while the league runs. ``db``:
    the store to read instead of the league's own (a publish's snapshot, ``report.snapshot``, so
    that the ladder counts what the build's other pages count); read in one transaction, else."""
    config = load_league_config(folder)
    db_path = folder / DB_NAME
    if db is None and not db_path.is_file():
        raise ConfigError(f"{folder} has not played yet (no {DB_NAME}); start it with "
                          f"arena league {folder}")
    # Not every page scanned first (0.4 s of a 100 MB store, most of a status's second): the
    # reads below say a damaged page when they meet one.
    store = db if db is not None else connect_read_only(db_path, scan=False)
    try:
        if db is None:  # one read: a match stored between two SELECTs would count in one only
            store.execute("BEGIN")
        stored = store.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        joined = dict(store.execute("SELECT name, joined FROM league_bots")) \
            if has_league_tables(store) else {}
        if store_players(store) > 2:  # TrueSkill's teams, as the report rates them
            ratings, figures = _seated_figures(store)
            groups = league_groups(store, config.name)
            pairs = len(groups)
            waiting = sum(1 for g in groups if len(g.stored) < SEATINGS)
        else:
            ratings, figures = read_figures(store)
            pairs, waiting = waiting_pairs(store)
        versions = league_bots(store)
    except sqlite3.DatabaseError as err:
        raise damaged(db_path, err) from None
    finally:
        if db is None:
            store.close()
    members, _ = current_members(folder, config, data or data_dir())
    active = {m.name for m in members}
    table = []
    nothing = Record(0, 0, 0, 0, math.nan, math.nan, math.nan)
    for name in sorted(set(versions) | active):
        rating = ratings.get(name) or ENV.create_rating()
        family = versions[name][0] if name in versions else name.split("@")[0]
        mine = figures.get(name, nothing)
        table.append(LadderRow(family, name, rating.mu, rating.sigma, mine.matches,
                               name in active, mine.wins, mine.draws, mine.losses, mine.score,
                               mine.low, mine.high, str(joined.get(name, ""))))
    table.sort(key=lambda r: (not r.active, -r.conservative, r.name))
    return table, {"matches": int(stored), "pairs": pairs, "waiting": waiting}


def _seated_figures(db: sqlite3.Connection
                    ) -> tuple[dict[str, trueskill.Rating], dict[str, Record]]:
    """A three- or four-player league's ratings (``ratings.rate_ranked`` over the store, as the
    report's) and each bot's ``Record``, recomputed (the kept table is two players'): its matches,
    W-D-L of those played (won: its side won the match; drawn: nobody won), and its match score (a
    win 1, a draw ½) in % with the 95% interval, each group's deal set one unit as a duplicate pair
    is for two players (``league_ladder.score_interval``)."""
    from arena.results.ratings import bot_matches, rating_history, read_seated

    if db.execute("SELECT 1 FROM matches LIMIT 1").fetchone() is None:
        return {}, {}  # the seated frames of an empty store do not merge (pandas' dtypes)
    players = store_players(db)
    history = rating_history(db)
    ratings = {str(row.bot): trueskill.Rating(row.mu, row.sigma)
               for row in history.groupby("bot").tail(1).itertuples()}
    per_bot = bot_matches(read_seated(db, players))
    group_of = dict(db.execute("SELECT match_id, pair_index FROM matches"))
    figures = {}
    for bot, rows in per_bot.groupby("bot"):
        played = rows[rows["played"]]
        drawn = played["winner"].isna()
        scores = played["won"].astype(float) + 0.5 * drawn
        units = scores.groupby(played["match_id"].map(group_of)).agg(["sum", "size"])
        low, mean, high = score_interval(len(played), float(scores.sum()),
                                         float((units["sum"] ** 2).sum()),
                                         float((units["size"] * units["sum"]).sum()),
                                         float((units["size"] ** 2).sum()), len(units))
        wins, draws = int(played["won"].sum()), int(drawn.sum())
        figures[str(bot)] = Record(len(rows), wins, draws, len(played) - wins - draws,
                                   100 * mean, 100 * low, 100 * high)
    return ratings, figures
