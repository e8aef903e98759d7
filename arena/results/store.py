"""The tournament's results in one SQLite file (standard library), written by the coordinator only.

Each finished match goes in with its deals and per-seat figures in **one transaction** (or several
matches together in one, ``Store.insert``): a ``kill -9`` at any moment leaves either the whole
match or none of it. The match id is the primary key, so a
match can never be stored twice; ``finished_ids()`` tells a resumed run what is left to play. The
store holds derived data; the JSON Lines records it points to remain the raw truth.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import time
import urllib.parse
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, NamedTuple, Sequence

from arena.arena_folders import private_file, private_subfolder, tighten
from arena.game import DealResult, RulesError, load_rules
from arena.match.deal_keys import check_key
from arena.types import ConfigError, MatchResult, ScheduledMatch

DB_NAME = "results.sqlite"  # in the tournament's folder
# 3: matches of three and four players (matches.players, seats.declined, the sides and deal_sides
#    tables); a version-2 store is brought to 3 when a run resumes it (``_upgrade_2_to_3``: columns and
#    tables are only added, no stored value changes) and is read as it is by the leaderboard and report.
# 2: deals from a secret key (deal_key table, matches.deal_set); 1 had seeds.
SCHEMA_VERSION = 3
# PRAGMA application_id of every database the arena creates ("66AR"): a SQLite file without it is
# another program's, and the arena neither writes nor adds tables to it.
APPLICATION_ID = 0x36364152

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS deal_key (
    -- The tournament's secret (deal_keys.py), kept here only: resumed matches deal the same cards.
    -- Hex text, so a scan of this file for it finds it wherever a copy of the file went.
    id INTEGER PRIMARY KEY CHECK (id = 1),
    key TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tournament (
    name TEXT PRIMARY KEY,
    config TEXT NOT NULL,            -- JSON: everything needed to rerun the tournament
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS bots (
    name TEXT PRIMARY KEY,
    command TEXT NOT NULL,           -- JSON argv
    version TEXT NOT NULL            -- content hash of the bot's files, or '' when unknown
);
CREATE TABLE IF NOT EXISTS matches (
    -- With three or four players (players > 2), seat0/seat1 are the bots of seats 0 and 1 (the
    -- seats table names every seat), winner is a side, points0/points1 are sides 0 and 1 (the
    -- sides table holds every side), offender is a seat (PROTOCOL.md §9), pair_index is the
    -- deal set of the group and swapped the seating, 0-5 (schedule.py).
    match_id TEXT PRIMARY KEY,
    sched_order INTEGER NOT NULL UNIQUE,
    seat0 TEXT NOT NULL REFERENCES bots(name),
    seat1 TEXT NOT NULL REFERENCES bots(name),
    deal_set TEXT NOT NULL,          -- public label of its deals (a duplicate pair shares one)
    first_dealer INTEGER NOT NULL,
    pair_index INTEGER NOT NULL,
    swapped INTEGER NOT NULL,
    winner INTEGER,                  -- seat, NULL for no contest or a tie at the deal limit
    reason TEXT NOT NULL,            -- target | forfeit | deal_limit | no_contest
    points0 INTEGER NOT NULL,
    points1 INTEGER NOT NULL,
    offender INTEGER,
    fault TEXT,
    detail TEXT NOT NULL,
    record TEXT,                     -- path of the JSON Lines record, relative to the database
    play_ms REAL NOT NULL,
    finished TEXT NOT NULL,
    players INTEGER NOT NULL DEFAULT 2  -- seats: 2, 3 or 4 (see above)
);
CREATE TABLE IF NOT EXISTS deals (
    match_id TEXT NOT NULL REFERENCES matches(match_id),
    deal_no INTEGER NOT NULL,
    dealer INTEGER NOT NULL,
    reason TEXT NOT NULL,
    winner INTEGER,
    points INTEGER NOT NULL,
    awarded INTEGER NOT NULL,
    total0 INTEGER NOT NULL,
    total1 INTEGER NOT NULL,
    tricks0 INTEGER NOT NULL,
    tricks1 INTEGER NOT NULL,
    claimant INTEGER,
    closer INTEGER,
    PRIMARY KEY (match_id, deal_no)
);
CREATE TABLE IF NOT EXISTS seats (
    match_id TEXT NOT NULL REFERENCES matches(match_id),
    seat INTEGER NOT NULL,
    bot TEXT NOT NULL REFERENCES bots(name),
    correct_claims INTEGER NOT NULL,
    wrong_claims INTEGER NOT NULL,
    missed_claims INTEGER NOT NULL,
    decisions INTEGER NOT NULL,
    median_ms REAL,
    p99_ms REAL,
    max_ms REAL,
    declined INTEGER NOT NULL DEFAULT 0,  -- 1: the bot declined the variant (PROTOCOL.md §9)
    PRIMARY KEY (match_id, seat)
);
"""

# The tables schema 3 added (also created by _upgrade_2_to_3).
_SIDE_TABLES = """
CREATE TABLE IF NOT EXISTS sides (
    -- Game points of every side of a match of three or four players (a side is a seat with three,
    -- a partnership of seats k and k+2 with four: RULES.md §10.3). Two-player matches keep theirs
    -- in matches.points0/points1 only, as in schema 2.
    match_id TEXT NOT NULL REFERENCES matches(match_id),
    side INTEGER NOT NULL,
    points INTEGER NOT NULL,
    PRIMARY KEY (match_id, side)
);
CREATE TABLE IF NOT EXISTS deal_sides (
    -- Per side of a deal of three or four players: game points scored (the carried pot included:
    -- a three-player wrong claim pays two sides), card totals and tricks (PROTOCOL.md §9 settle).
    match_id TEXT NOT NULL REFERENCES matches(match_id),
    deal_no INTEGER NOT NULL,
    side INTEGER NOT NULL,
    awarded INTEGER NOT NULL,
    total INTEGER NOT NULL,
    tricks INTEGER NOT NULL,
    PRIMARY KEY (match_id, deal_no, side)
);
"""
_SCHEMA += _SIDE_TABLES


class StoreError(ValueError):
    """A results database that cannot be used as asked (another tournament, newer schema, ...)."""


class DiskFullError(StoreError):
    """The disk holding the tournament is full: what was stored is whole, the rest can resume."""


def connect_read_only(path: Path, scan: bool = True) -> sqlite3.Connection:
    """A connection for readers (leaderboard, report) that cannot change the file: a running
    tournament may be writing it, and a reader must never create or alter a database.

    A database in a folder we cannot write (a read-only mount, a folder of another user) is opened
    ``immutable``: SQLite then needs no ``-shm`` file beside it, which it could not create there
    (a WAL database otherwise refuses to open). The file is checked as ``Store.open`` checks it;
    ``scan=False`` leaves out the scan of every page (``PRAGMA quick_check``, 0.4 s of a 100 MB
    store) for a reader that reads a few rows and says a damaged page as ``damaged`` does when it
    meets one (``arena league status``)."""
    if not path.is_file():
        raise StoreError(f"{path} does not exist")
    writable = os.access(path.parent, os.W_OK) and os.access(path, os.W_OK) \
        and not _read_only_mount(path)
    uri = f"file:{urllib.parse.quote(str(path.resolve()))}?mode=ro" + ("" if writable
                                                                         else "&immutable=1")
    try:
        db = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as err:
        raise StoreError(f"cannot open {path}: {err}") from None
    try:
        check_database(db, path, scan)
    except BaseException:
        db.close()
        raise
    return db


def damaged(path: Path, detail: object) -> StoreError:
    """What to say of a damaged store: found by ``check_database``'s scan, or by a reader that
    met a page that does not read (``detail``: what SQLite said)."""
    return StoreError(f"{path} is damaged ({str(detail)[:300]}); restore it from a backup, or "
                      "play the tournament again in a new folder (the match records in records/ "
                      "are intact)")


def _read_only_mount(path: Path) -> bool:
    """Whether ``path`` is on a file system mounted read-only (root passes ``os.access`` there)."""
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def check_database(db: sqlite3.Connection, path: Path, scan: bool = True) -> None:
    """Refuse a file that is not the arena's results database, or one that is damaged, with what to
    do about it. Reads only: a foreign file stays byte for byte as it was."""
    if path.stat().st_size == 0:
        raise StoreError(f"{path} is empty (0 bytes): it holds no results. It was truncated or "
                         "never written; restore it from a backup, or start the tournament again "
                         "in a new folder")
    try:
        app_id = db.execute("PRAGMA application_id").fetchone()[0]
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as err:
        raise StoreError(f"{path} is not a results database: not an SQLite file, or its first "
                         f"page is damaged ({err}); restore it from a backup, or start again in a "
                         "new folder") from None
    if app_id != APPLICATION_ID and not (app_id == 0 and _ARENA_TABLES <= tables):
        # app_id 0 with the arena's tables: a database made before the mark existed.
        raise StoreError(f"{path} is not a results database of this arena (another program's "
                         f"SQLite file, application_id {app_id:#x}); it was left untouched: give "
                         "the folder of an arena tournament")
    if not scan:
        return
    try:
        problems = [row[0] for row in db.execute("PRAGMA quick_check(5)")]
    except sqlite3.DatabaseError as err:
        problems = [str(err)]
    if problems != ["ok"]:
        raise damaged(path, "; ".join(problems))


_ARENA_TABLES = {"meta", "tournament", "bots", "matches", "deals", "seats"}


def is_disk_full(err: BaseException) -> bool:
    """SQLite's "database or disk is full", or an ``OSError`` for a full disk or quota."""
    if isinstance(err, sqlite3.Error):
        return getattr(err, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or \
            "disk is full" in str(err)
    return isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT)


class Store:
    """A tournament's database. Open with ``Store.open(path)``; close with ``close()``."""

    def __init__(self, connection: sqlite3.Connection, path: Path):
        self.db = connection
        self.path = path

    @classmethod
    def open(cls, path: Path, create: bool = True) -> Store:
        """Open a results database for writing; with ``create``, a missing one is made (and marked
        with ``APPLICATION_ID``). An existing file is checked first (``check_database``): a
        foreign or damaged file is refused before anything is written to it."""
        existed = path.exists()
        if not existed and not create:
            raise StoreError(f"{path} does not exist")
        try:
            private_subfolder(path.parent)
            if not existed:
                _create_file(path)
            else:
                # Made 0644 by an older version: its deal key readable by any user (issue 29).
                # SQLite gives the -wal and -shm it makes the database's mode, but not those made
                # before: tightened too.
                tighten(path, ("-wal", "-shm", "-journal"))
            db = sqlite3.connect(path, isolation_level=None)  # transactions are explicit below
        except (OSError, sqlite3.Error) as err:
            if is_disk_full(err):
                raise DiskFullError(f"the disk holding {path} is full") from None
            raise StoreError(f"cannot open {path}: {getattr(err, 'strerror', None) or err}") \
                from None
        try:
            # Checked even when made just now: another run may have made it first (_create_file).
            check_database(db, path)
            _refuse_other_versions(db, path)  # before anything is added to an older store
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: committed data survives a kill
            db.execute("PRAGMA foreign_keys=ON")
            _create_schema(db)
        except BaseException as err:
            db.close()
            if isinstance(err, StoreError):
                raise
            if isinstance(err, sqlite3.Error) and is_disk_full(err):
                raise DiskFullError(f"the disk holding {path} is full") from None
            if isinstance(err, sqlite3.DatabaseError):
                raise StoreError(f"{path} is not a usable results database: {err}") from None
            raise
        store = cls(db, path)
        version = store._meta("schema_version")
        if version is None or int(version) != SCHEMA_VERSION:
            db.close()
            raise StoreError(f"{path} has schema version {version}; this arena reads version "
                             f"{SCHEMA_VERSION}")
        return store

    def close(self) -> None:
        self.db.close()

    def _meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    # -- the deal key (deal_keys.py) ---------------------------------------------------------------

    def deal_key(self) -> bytes | None:
        row = self.db.execute("SELECT key FROM deal_key WHERE id = 1").fetchone()
        return bytes.fromhex(row[0]) if row else None

    def set_deal_key(self, key: bytes) -> None:
        """Keep the tournament's key; a store holds one key for good (its matches were dealt by it)."""
        with self._transaction():
            if self.db.execute("SELECT 1 FROM deal_key").fetchone() is not None:
                raise StoreError(f"{self.path} already holds a deal key")
            self.db.execute("INSERT INTO deal_key VALUES (1, ?)", (check_key(key).hex(),))

    # -- the tournament and its bots ------------------------------------------------------------

    def begin_tournament(self, name: str, config: Mapping[str, Any]) -> None:
        """Record the tournament's settings, or check them on resume: resuming with other settings
        would mix two tournaments in one table, so it is refused."""
        text = json.dumps(config, sort_keys=True)
        row = self.db.execute("SELECT name, config FROM tournament").fetchone()
        if row is None:
            self.db.execute("INSERT INTO tournament VALUES (?, ?, ?)",
                            (name, text, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())))
        elif row[0] != name or row[1] != text:
            stored = json.loads(row[1])
            changed = sorted(k for k in set(stored) | set(config) if stored.get(k) != config.get(k))
            raise StoreError(f"{self.path} holds tournament {row[0]!r} with other settings "
                             f"(differing: {', '.join(changed) or 'name'}); use a new folder")

    def tournament_config(self) -> dict[str, Any] | None:
        row = self.db.execute("SELECT config FROM tournament").fetchone()
        return json.loads(row[0]) if row else None

    def register_bots(self, bots: Iterable[tuple[str, list[str], str]]) -> None:
        """(name, argv, version) of each bot; a bot whose command or version changed is refused."""
        with self._transaction():
            for name, argv, version in bots:
                row = self.db.execute("SELECT command, version FROM bots WHERE name = ?",
                                      (name,)).fetchone()
                if row is None:
                    self.db.execute("INSERT INTO bots VALUES (?, ?, ?)",
                                    (name, json.dumps(list(argv)), version))
                elif (json.loads(row[0]), row[1]) != (list(argv), version):
                    raise StoreError(f"bot {name!r} changed since this tournament started "
                                     f"(was {' '.join(json.loads(row[0]))} version {row[1] or '?'})")

    # -- matches ----------------------------------------------------------------------------------

    def finished_ids(self) -> set[str]:
        return {row[0] for row in self.db.execute("SELECT match_id FROM matches")}

    def record_match(self, scheduled: ScheduledMatch, result: MatchResult,
                     record: str | None = None,
                     then: Callable[[sqlite3.Connection], None] | None = None) -> None:
        """Store a finished match, its deals and every seat's figures, all or nothing. With three
        or four players, every side's points go in ``sides`` and ``deal_sides`` as well. ``then``:
        what else to write in the same transaction (a league's kept ratings)."""
        self.insert([match_rows(scheduled, result, record)], then)

    def insert(self, matches: Sequence[MatchRows],
               then: Callable[[sqlite3.Connection], None] | None = None) -> None:
        """Store several finished matches, as ``match_rows`` made them, in one transaction: all
        of them or none. A tournament commits the matches that finished within a fraction of a
        second together (tournament.py): one commit per match was the largest part of the
        coordinator's CPU in a tournament of cheap bots (issue 18)."""
        with self._transaction():
            self.db.executemany(
                "INSERT INTO matches (match_id, sched_order, seat0, seat1, deal_set, first_dealer, "
                "pair_index, swapped, winner, reason, points0, points1, offender, fault, detail, "
                "record, play_ms, finished, players) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                [m.match for m in matches])
            self.db.executemany("INSERT INTO deals VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                                [row for m in matches for row in m.deals])
            self.db.executemany("INSERT INTO seats VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                                [row for m in matches for row in m.seats])
            if any(m.sides for m in matches):
                self.db.executemany("INSERT INTO sides VALUES (?,?,?)",
                                    [row for m in matches for row in m.sides])
                self.db.executemany("INSERT INTO deal_sides VALUES (?,?,?,?,?,?)",
                                    [row for m in matches for row in m.deal_sides])
            if then is not None:
                then(self.db)

    def _transaction(self) -> "_Transaction":
        return _Transaction(self.db)


class MatchRows(NamedTuple):
    """One finished match as the store's rows (``match_rows``): what a tournament's worker sends
    its coordinator. Plain tuples of numbers and strings: unpickling a whole ``MatchResult`` (its
    deals, settlements, enums and every decision's time) was most of the coordinator's cost of
    receiving a match (issue 18)."""

    match: tuple[Any, ...]                 # the matches table's row
    deals: list[tuple[Any, ...]]
    seats: list[tuple[Any, ...]]
    sides: list[tuple[Any, ...]]           # three or four players only
    deal_sides: list[tuple[Any, ...]]

    # What the progress line and the log read of a match (the columns of the matches table).
    @property
    def match_id(self) -> str:
        return str(self.match[0])

    @property
    def winner(self) -> int | None:
        return self.match[8]

    @property
    def reason(self) -> str:
        return str(self.match[9])

    @property
    def offender(self) -> int | None:
        return self.match[12]

    @property
    def play_ms(self) -> float:
        return float(self.match[16])

    @property
    def game_points(self) -> tuple[int, ...]:
        """Per side: two players' from the match row, more from the sides rows."""
        if self.sides:
            return tuple(points for _, _, points in self.sides)
        return self.match[10], self.match[11]


def match_rows(scheduled: ScheduledMatch, result: MatchResult, record: str | None = None,
               finished: str | None = None) -> MatchRows:
    """The rows that store a finished match (``Store.insert``); ``record`` is its record's path
    in the tournament's folder, ``finished`` when it ended (default: now)."""
    names = scheduled.seats
    players = len(names)
    if len(result.seats) != players:
        raise StoreError(f"match {scheduled.match_id}: {players} seats scheduled but "
                         f"{len(result.seats)} in the result")
    match_id = scheduled.match_id
    match = (match_id, scheduled.order, names[0], names[1], scheduled.deal_set,
             scheduled.first_dealer, scheduled.pair_index,
             scheduled.seating if players > 2 else int(scheduled.swapped), result.winner,
             str(result.reason), result.game_points[0], result.game_points[1], result.offender,
             None if result.fault is None else str(result.fault), result.detail, record,
             result.play_ms, finished or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
             players)
    deals = [(match_id, d.deal_no, d.dealer, str(d.settlement.reason), d.settlement.winner,
              d.settlement.game_points, d.awarded, d.settlement.totals[0], d.settlement.totals[1],
              d.settlement.tricks[0], d.settlement.tricks[1], d.settlement.claimant,
              d.settlement.closer) for d in result.deals]
    seats = [(match_id, seat, names[seat], s.correct_claims, s.wrong_claims, s.missed_claims,
              t["decisions"], t.get("median_ms"), t.get("p99_ms"), t.get("max_ms"),
              int(seat in result.declined))
             for seat, s in enumerate(result.seats) for t in [s.timing()]]
    sides: list[tuple[Any, ...]] = []
    deal_sides: list[tuple[Any, ...]] = []
    if players > 2:
        sides = [(match_id, side, points) for side, points in enumerate(result.game_points)]
        deal_sides = [(match_id, d.deal_no, side, award, d.settlement.totals[side],
                       d.settlement.tricks[side])
                      for d in result.deals for side, award in enumerate(deal_awards(d))]
    return MatchRows(match, deals, seats, sides, deal_sides)


def deal_awards(deal: DealResult) -> tuple[int, ...]:
    """Game points each side scored in a deal, the carried pot included (PROTOCOL.md §9's
    ``awarded``): the single scorer's ``awarded``, or the settlement's awards when several sides
    score (a three-player wrong claim, RULES.md §10.4: the pot waits)."""
    sides = len(deal.settlement.totals)
    if deal.settlement.winner is not None:
        return tuple(deal.awarded if side == deal.settlement.winner else 0 for side in range(sides))
    return tuple(deal.settlement.awards) if deal.settlement.awards else (0,) * sides


def _refuse_other_versions(db: sqlite3.Connection, path: Path) -> None:
    """An arena database of another schema version is refused as it is: nothing is added to it."""
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.OperationalError:
        return  # no meta table: an empty file the arena made, about to get its schema
    version = row[0] if row else None
    if version is None or int(version) == SCHEMA_VERSION:
        return
    if int(version) == 2:
        _upgrade_2_to_3(db, path)
        return
    if int(version) == 1:
        raise StoreError(f"{path} was made by an earlier arena, whose deals came from a seed that "
                         "bots could guess; it cannot be resumed (start a new tournament), but "
                         "arena leaderboard and arena report still read it and its records replay")
    raise StoreError(f"{path} has schema version {version}; this arena reads version "
                     f"{SCHEMA_VERSION}")


def _upgrade_2_to_3(db: sqlite3.Connection, path: Path) -> None:
    """A schema-2 store (two-player only) gains what schema 3 adds, in one transaction: the
    ``players`` column (2 for every stored match, which is what they are), ``seats.declined`` (0:
    nobody could decline a two-player match) and the empty ``sides`` and ``deal_sides`` tables.
    Nothing stored is changed or removed, so its leaderboard stays the same and the run resumes
    where it stopped. Only a writer (a resumed run) upgrades; readers take a version-2 file as it
    is (``match_players``)."""
    try:
        db.executescript(
            "BEGIN IMMEDIATE; "
            "ALTER TABLE matches ADD COLUMN players INTEGER NOT NULL DEFAULT 2; "
            "ALTER TABLE seats ADD COLUMN declined INTEGER NOT NULL DEFAULT 0; "
            f"{_SIDE_TABLES}; UPDATE meta SET value = '3' WHERE key = 'schema_version'; COMMIT;")
    except sqlite3.Error as err:
        if db.in_transaction:
            _rollback(db)
        if is_disk_full(err):
            raise DiskFullError(f"the disk holding {path} is full") from None
        raise StoreError(f"cannot bring {path} from schema version 2 to {SCHEMA_VERSION}: {err}") \
            from None


def match_players(db: sqlite3.Connection) -> str:
    """The SQL expression for a match's seats in ``matches``: the column, or 2 in a version-2 store
    (read as it is: readers never upgrade a file)."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(matches)")}
    return "players" if "players" in columns else "2"


def _create_file(path: Path) -> None:
    """A new database, whole: the mark and the schema are written under a temporary name, which is
    then linked to ``path``. A run stopped at any moment leaves either no ``path`` or a store with
    its whole schema: an empty file would make ``--resume`` fail on a database this arena made.
    Linking, unlike renaming, never replaces a file another run made in the meantime."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.new")
    try:
        private_file(temporary)  # 0600 whatever the umask: it will hold the deal key
        db = sqlite3.connect(temporary, isolation_level=None)
        try:
            _create_schema(db)
        finally:
            db.close()
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass  # another run made it first; the checks of an existing store follow
    finally:
        temporary.unlink(missing_ok=True)


def _create_schema(db: sqlite3.Connection) -> None:
    """The mark, the tables and the schema version in one transaction: a run stopped while
    creating the file leaves a database that is whole (or empty), never half a schema."""
    try:
        # One script (one call): the transaction is the script's own, since executescript()
        # commits any transaction opened before it.
        db.executescript(f"BEGIN IMMEDIATE; PRAGMA application_id = {APPLICATION_ID}; {_SCHEMA}; "
                         f"INSERT OR IGNORE INTO meta VALUES ('schema_version', "
                         f"'{SCHEMA_VERSION}'); COMMIT;")
    except BaseException:
        if db.in_transaction:
            _rollback(db)
        raise


def _rollback(db: sqlite3.Connection) -> None:
    """ROLLBACK that never hides the error that made it necessary (on a full disk it may fail)."""
    try:
        db.execute("ROLLBACK")
    except sqlite3.Error:
        pass


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on any error: a match is stored whole or not at all."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, error: object, tb: object) -> None:
        if kind is None:
            try:
                self.db.execute("COMMIT")
            except BaseException as err:
                _rollback(self.db)
                if is_disk_full(err):
                    raise DiskFullError(str(err)) from err
                raise
        else:
            _rollback(self.db)
            if isinstance(error, BaseException) and is_disk_full(error):
                raise DiskFullError(str(error)) from error


def store_players(db: sqlite3.Connection) -> int:
    """Seats per match of the tournament in ``db``: every match of a tournament has its profile's.
    A store from before three- and four-player tournaments (schema 2) holds two-player matches."""
    if match_players(db) == "2":
        return 2
    row = db.execute("SELECT MAX(players) FROM matches").fetchone()
    if row and row[0]:
        return int(row[0])
    config = db.execute("SELECT config FROM tournament").fetchone()
    if config is None:
        return 2
    settings = json.loads(config[0])
    try:  # nothing stored yet: the settings' profile says
        return load_rules(str(settings.get("profile", "sixty_six")),
                          overrides=settings.get("rules") or {}).players
    except (RulesError, TypeError, ValueError):
        return 2


def stored_settings(db: Path) -> dict[str, Any]:
    """The settings a tournament stored in ``db`` when it started, to resume it with (``arena
    tournament --resume``, ``arena sprt --resume``). Read only and checked: another run may own
    the store."""
    reader = connect_read_only(db)
    try:
        stored = Store(reader, db).tournament_config()
    finally:
        reader.close()
    if stored is None:
        raise ConfigError(f"{db} holds no tournament settings")
    return stored
