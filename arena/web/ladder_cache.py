"""The leaderboard kept until the league's files change: reading the ladder
(``league_view.ladder``: the store's ratings, every member resolved) costs tens of milliseconds,
and a site under load asks for it hundreds of times a second while the league stores a match every
few seconds (scripts/bench_web.py). The ladder is read again when a file it is made of changes (its
size or time: the store's write-ahead log grows with every match stored) or after ``MAX_AGE_S``;
``/api/leaderboard`` sends the JSON bytes made once with it, the home page renders the rows."""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.web.league_view import ladder
from arena.web.settings import Settings

MAX_AGE_S = 5.0
_lock = threading.Lock()


@dataclass(frozen=True)
class Board:
    """The ladder as ``league_view.ladder`` reads it, and as ``/api/leaderboard``'s body."""

    board: dict[str, Any]
    body: bytes


_kept: dict[Path, tuple[tuple[Any, ...], float, Board]] = {}


def _stamp(paths: tuple[Path, ...]) -> tuple[Any, ...]:
    out: list[Any] = []
    for path in paths:
        try:
            info = os.stat(path)
            out.append((info.st_mtime_ns, info.st_size))
        except OSError:
            out.append(None)
    return tuple(out)


def cached_ladder(settings: Settings) -> Board:
    """The league's ladder, kept per league folder while its files are unchanged. One reader at a
    time: the others wait for its answer instead of reading the same again. In a thread."""
    league, data = settings.league_dir, settings.data_dir
    paths = (league / "results.sqlite", league / "results.sqlite-wal", league / "members.sqlite",
             league / "league.toml", data / "registry" / "registry.sqlite")
    with _lock:
        stamp = _stamp(paths)
        kept = _kept.get(league)
        if kept is not None and kept[0] == stamp and time.monotonic() - kept[1] < MAX_AGE_S:
            return kept[2]
        board = ladder(settings)
        body = json.dumps(board, ensure_ascii=False, allow_nan=False,
                          separators=(",", ":")).encode()  # as JSONResponse's
        _kept[league] = (stamp, time.monotonic(), Board(board, body))
        return _kept[league][2]
