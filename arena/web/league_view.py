"""The competition's league as the site shows it, read from the league's own files while it plays
(reads only): the ladder, the matches, one match's record made public (``public_record``) and the
bots' stderr of a match (``stderr_logs``).

A match whose duplicate partner is still to be played is not shown at all, to anybody, as a
publish leaves it out (report/public.py ``waiting_for_partner``): its partner is dealt the same
cards, so its record, and a bot's stderr that may echo its hand, would tell the deals of a match
still to be played. The league keeps each bot's stderr of each match in ``league/logs/MATCH.seatK
.stderr.log`` (the referee's log, the first MiB: bot_process.STDERR_CAP_BYTES) and the same text,
cut per decision, in the record's ``debug`` lines; both are for the bot's author only."""

from __future__ import annotations

import json
import math
import sqlite3
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.entrants.registry import Registry, RegistryError
from arena.match.records import Record, RecordError, record_of_lines
from arena.types import ConfigError
from arena.web.settings import Settings

LOGS_DIR = "logs"
MAX_RECORD = 64 << 20  # a league's record is a few MiB at most (its debug lines are capped)
MAX_LOG = 2 << 20      # a stderr log: the referee keeps its first MiB


def family(store_name: str) -> str:
    """A bot's name across its versions: ``NAME@VERSION`` in the league's store is ``NAME``
    (league_members.store_name)."""
    return store_name.partition("@")[0]


def active_version(settings: Settings, name: str) -> str | None:
    if not (settings.data_dir / "registry" / "registry.sqlite").is_file():
        return None
    try:
        with Registry.open(settings.data_dir, create=False) as registry:
            found = registry.find(name)
    except (RegistryError, sqlite3.Error):
        return None
    return found.version if found else None


def _number(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 3)


def ladder(settings: Settings) -> dict[str, Any]:
    """The ladder as ``GET /api/leaderboard`` gives it (and the pages show it)."""
    from arena.compete.league_store import read_ladder

    try:
        rows, counts = read_ladder(settings.league_dir, settings.data_dir)
    except ConfigError:  # the league has not played yet
        return {"league": settings.name, "matches": 0, "pairs": 0, "waiting": 0, "rows": []}
    return {"league": settings.name, **counts, "rows": [
        {"bot": r.family, "name": r.name, "version": r.version, "active": r.active,
         "rating": _number(r.conservative), "mu": _number(r.mu), "sigma": _number(r.sigma),
         "matches": r.matches, "wins": r.wins, "draws": r.draws, "losses": r.losses,
         "score": _number(r.score), "score_low": _number(r.score_low),
         "score_high": _number(r.score_high), "joined": r.joined} for r in rows]}


_COLUMNS = "match_id, seat0, seat1, winner, reason, points0, points1, finished, players, record"


def _open(settings: Settings) -> sqlite3.Connection | None:
    from arena.results.store import DB_NAME, StoreError, connect_read_only

    path = settings.league_dir / DB_NAME
    if not path.is_file():
        return None
    try:
        return connect_read_only(path)
    except StoreError:
        return None


def _row(db: sqlite3.Connection, row: tuple[Any, ...]) -> dict[str, Any]:
    match_id, seat0, seat1, winner, reason, points0, points1, finished, players, record = row
    seats = [seat0, seat1]
    if players > 2:
        seats = [b for (b,) in db.execute("SELECT bot FROM seats WHERE match_id = ? "
                                          "ORDER BY seat", (match_id,))]
    return {"match_id": match_id, "bots": seats, "winner": winner,
            "winner_bot": seats[winner] if players == 2 and winner is not None else None,
            "reason": reason, "points": [points0, points1], "finished": finished,
            "record": record}


def read_matches(settings: Settings, bot: str | None, count: int) -> list[dict[str, Any]]:
    """The league's matches (of ``bot``'s versions), newest first, without those whose duplicate
    partner is still to be played: their deals are not to be known yet (report/public.py)."""
    from arena.report.public import waiting_for_partner

    db = _open(settings)
    if db is None:
        return []
    try:
        db.execute("BEGIN")  # one read: the held-back set and the rows agree
        held = waiting_for_partner(db)
        query = f"SELECT {_COLUMNS} FROM matches"
        args: tuple[Any, ...] = ()
        if bot is not None:
            # A bot's versions are NAME@VERSION in the league's store (league_members.store_name).
            query += (" WHERE match_id IN (SELECT match_id FROM seats WHERE bot = ?1 "
                      "OR substr(bot, 1, length(?1) + 1) = ?1 || '@') OR seat0 = ?1 OR seat1 = ?1 "
                      "OR substr(seat0, 1, length(?1) + 1) = ?1 || '@' "
                      "OR substr(seat1, 1, length(?1) + 1) = ?1 || '@'")
            args = (bot,)
        query += " ORDER BY sched_order DESC"
        out: list[dict[str, Any]] = []
        for row in db.execute(query, args):
            if row[0] in held:
                continue
            match = _row(db, row)
            del match["record"]  # where the server keeps it is not the reader's to know
            out.append(match)
            if len(out) >= count:
                break
        return out
    finally:
        db.close()


def find_match(settings: Settings, match_id: str) -> dict[str, Any] | None:
    """One match as ``read_matches`` lists it, with its ``record`` (the stored path, relative to
    the league's folder); None when there is none or its duplicate partner is still to be played."""
    from arena.report.public import waiting_for_partner

    db = _open(settings)
    if db is None:
        return None
    try:
        db.execute("BEGIN")
        row = db.execute(f"SELECT {_COLUMNS} FROM matches WHERE match_id = ?",
                         (match_id,)).fetchone()
        if row is None or match_id in waiting_for_partner(db):
            return None
        return _row(db, row)
    finally:
        db.close()


@dataclass(frozen=True)
class _Key:
    stored: str
    size: int
    modified: int


_pages: OrderedDict[_Key, str] = OrderedDict()
_pages_lock = threading.Lock()
_PAGES_KEPT = 32


def record_path(settings: Settings, stored: object) -> Path:
    """The file of a stored record path: one ``publishable_record`` accepts (a ``.jsonl`` below the
    league's folder, no ``..``), a file and not a link. ``RecordError`` otherwise."""
    from arena.report.public import publishable_record

    if not publishable_record(stored):
        raise RecordError("the match has no record")
    assert isinstance(stored, str)
    path = settings.league_dir / stored
    if path.is_symlink() or not path.is_file():
        raise RecordError("the match's record is missing")
    return path


def public_record(path: Path, own_seats: frozenset[int] = frozenset()) -> Record:
    """The record as a publish makes it public (report/public.py: commands and texts without the
    server's paths, no stderr), keeping the stderr (``debug`` lines) of the seats in
    ``own_seats``: the bots of the author who reads it."""
    from arena.report.public import public_record_line

    if path.stat().st_size > MAX_RECORD:
        raise RecordError("the match's record is too large to show")
    lines = []
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            kept = public_record_line(line)
            if not kept and own_seats:  # a debug line: its seat's author may read it
                try:
                    item = json.loads(line)
                except ValueError:
                    item = None
                if isinstance(item, dict) and item.get("seat") in own_seats:
                    kept = line
            lines.append(kept)
    return record_of_lines(lines, "the match's record")


def replay_html(path: Path, own_seats: frozenset[int], back: str) -> str:
    """The replay page (report/replay.py) of the record at ``path``; the public one (no seat's
    stderr) is kept for the next reader, as a few pages are the most watched ones."""
    from arena.report.replay import replay_page

    info = path.stat()
    key = _Key(str(path), info.st_size, info.st_mtime_ns)
    if not own_seats:
        with _pages_lock:
            if key in _pages:
                _pages.move_to_end(key)
                return _pages[key]
    page = replay_page(public_record(path, own_seats), back=back)
    if not own_seats:
        with _pages_lock:
            _pages[key] = page
            while len(_pages) > _PAGES_KEPT:
                _pages.popitem(last=False)
    return page


def stderr_logs(settings: Settings, match_id: str, seats: frozenset[int]) -> dict[int, str | None]:
    """{seat: what its bot wrote to stderr in the match (the league's log of it), None when the
    league kept none} for each seat of ``seats``."""
    out: dict[int, str | None] = {}
    if "/" in match_id or match_id.startswith("."):
        return {seat: None for seat in seats}  # not one of the league's ids
    for seat in sorted(seats):
        path = settings.league_dir / LOGS_DIR / f"{match_id}.seat{seat}.stderr.log"
        if path.is_symlink():
            out[seat] = None
            continue
        try:
            with open(path, "rb") as fh:
                out[seat] = fh.read(MAX_LOG).decode("utf-8", "replace")
        except OSError:
            out[seat] = None
    return out
