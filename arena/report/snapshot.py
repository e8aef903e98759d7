"""One state of a results store, read once, for everything one report or publish shows.

A report asks the store dozens of questions (the matches, the deals, the seats, the ratings, the
statistics, the deal sets still waiting for a match). Each ``SELECT`` on a connection outside a
transaction is a read of its own, and a running tournament or league commits matches between them:
one publish showed "3 waiting" beside two matches held back, and published a deal set without its
last match, stored after the match list was read but before the waiting sets were (issue 29).

``read_snapshot`` copies the store into memory in one read (SQLite's backup, all pages in one
step: one read transaction, which a writer in WAL mode does not wait for and cannot change), and
everything a build shows is then read from that copy. For a publish, the copy then drops every
match waiting for its duplicate partner (``public.waiting_for_partner``), with its deals, seats and
sides: such a match is on no page at all (not its score, its ending, its deals, nor in a bot's
count of matches or its rating) until its partner is stored; the pages say only how many wait.

A league whose ratings were started again (a final: ``league_ladder.rating_start``) is reported
from that reset on: the copy drops the matches before it, as it drops those held back, so every
table, chart and count of the report is the final's, as the league's ladder is. They stay in the
store itself.

The copy is in memory, not in a file: the store holds the tournament's secret deal key, which a
file would put one more place on disk (the copy drops it too, as no page needs it). A store is a
few kilobytes a match, and the report reads its tables into pandas frames of that size anyway.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from arena.report.public import waiting_for_partner
from arena.results.league_ladder import rating_start
from arena.results.store import connect_read_only

# The tables whose rows belong to one match (store.py's schema; a store older than schema 3 lacks
# the side tables). ``matches`` itself goes last.
_PER_MATCH = ("deals", "seats", "sides", "deal_sides")


@dataclass(frozen=True)
class Snapshot:
    """An in-memory copy of a results store as it stood at one moment. ``held_back``: the matches
    taken out of it because their deal set's other matches are not stored yet (empty unless the
    snapshot was read for publishing)."""

    db: sqlite3.Connection
    held_back: frozenset[str]

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Snapshot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_snapshot(path: Path, hold_back: bool) -> Snapshot:
    """The store at ``path`` as it stands now, in memory. ``hold_back``: take out the matches whose
    duplicate partner is not stored yet, as a publish must. Raises ``store.StoreError`` (no such
    file, not an arena store) or ``sqlite3.Error``."""
    source = connect_read_only(path)
    copy = sqlite3.connect(":memory:")
    try:
        # pages=-1: every page in one step, so under one read lock of the source (sqlite3_backup_step).
        source.backup(copy, pages=-1)
    except BaseException:
        copy.close()
        raise
    finally:
        source.close()
    try:
        held = waiting_for_partner(copy) if hold_back else frozenset()
        _drop(copy, held)
    except BaseException:
        copy.close()
        raise
    return Snapshot(copy, held)


def _drop(db: sqlite3.Connection, held: frozenset[str]) -> None:
    """Take the ``held`` matches, those before the ratings' newest reset and the deal key out of
    the copy ``db``."""
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    with db:
        if "deal_key" in tables:
            db.execute("DELETE FROM deal_key")
        start = rating_start(db)
        if not held and not start:
            return
        db.execute("CREATE TEMP TABLE held_back (match_id TEXT PRIMARY KEY)")
        db.executemany("INSERT INTO held_back VALUES (?)", [(m,) for m in sorted(held)])
        db.execute("INSERT OR IGNORE INTO held_back SELECT match_id FROM main.matches "
                   "WHERE sched_order < ?", (start,))
        for table in (*_PER_MATCH, "matches"):
            if table in tables:
                db.execute(f"DELETE FROM main.{table} WHERE match_id IN "
                           "(SELECT match_id FROM held_back)")
        db.execute("DROP TABLE held_back")
