"""The leaderboard kept until the league's files change: reading the ladder
(``league_view.ladder``: the store's ratings, every member resolved) costs tens of milliseconds,
and a site under load asks for it hundreds of times a second while the league stores a match every
few seconds (scripts/bench_web.py). The ladder is read again when a file it is made of changes (its
size or time: the store's write-ahead log grows with every match stored) or after ``MAX_AGE_S``;
``/api/leaderboard`` sends the JSON bytes made once with it, the home page its HTML rendered once
for every visitor not logged in."""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.web.league_view import ladder
from arena.web.settings import Settings

MAX_AGE_S = 5.0
_lock = threading.Lock()


@dataclass(frozen=True)
class Board:
    """The ladder as ``league_view.ladder`` reads it, as ``/api/leaderboard``'s body, and the
    pages made of it alone (``pages``: the home page as a visitor not logged in sees it), each
    rendered once with it."""

    board: dict[str, Any]
    body: bytes
    pages: dict[str, bytes] = field(default_factory=dict)


_kept: dict[Path, tuple[tuple[Any, ...], float, Board]] = {}


def _stamp(paths: tuple[str, ...]) -> tuple[Any, ...]:
    out: list[Any] = []
    for path in paths:
        try:
            info = os.stat(path)
            out.append((info.st_mtime_ns, info.st_size))
        except OSError:
            out.append(None)
    return tuple(out)


_paths_of: dict[Path, tuple[str, ...]] = {}


def _paths(settings: Settings) -> tuple[str, ...]:
    """The files the ladder is made of, built once per league (pathlib's joins were a third of a
    kept answer's time)."""
    league = settings.league_dir
    paths = _paths_of.get(league)
    if paths is None:
        data = settings.data_dir
        paths = _paths_of[league] = tuple(str(p) for p in (
            league / "results.sqlite", league / "results.sqlite-wal", league / "members.sqlite",
            league / "league.toml", data / "registry" / "registry.sqlite"))
    return paths


def _fresh(settings: Settings, stamp: tuple[Any, ...]) -> Board | None:
    kept = _kept.get(settings.league_dir)
    if kept is not None and kept[0] == stamp and time.monotonic() - kept[1] < MAX_AGE_S:
        return kept[2]
    return None


def kept_ladder(settings: Settings) -> Board | None:
    """The kept ladder if it is still the league's, else None (then ``cached_ladder``, in a
    thread). Five stat calls and no wait: for the event loop itself, where a hop to a thread and
    back was a good part of a leaderboard's time under load. While another request reads the
    ladder again, the one kept is the answer (it was the league's a moment ago): every request
    waiting for that read was the benchmark's p99."""
    if not _lock.acquire(blocking=False):
        kept = _kept.get(settings.league_dir)
        return kept[2] if kept is not None else None
    try:
        return _fresh(settings, _stamp(_paths(settings)))
    finally:
        _lock.release()


def cached_ladder(settings: Settings) -> Board:
    """The league's ladder, kept per league folder while its files are unchanged. One reader at a
    time: the others wait for its answer instead of reading the same again. In a thread."""
    with _lock:
        stamp = _stamp(_paths(settings))
        kept = _fresh(settings, stamp)
        if kept is not None:
            return kept
        board = ladder(settings)
        body = json.dumps(board, ensure_ascii=False, allow_nan=False,
                          separators=(",", ":")).encode()  # as JSONResponse's
        made = Board(board, body)
        _kept[settings.league_dir] = (stamp, time.monotonic(), made)
        return made
