"""Helpers of the league's tests: settings files, reading a league's store while it runs, waiting
for a league process, the check that a league's store is whole, and matchmaking's shares."""

from __future__ import annotations

import json
import math
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Sequence

import pytest

from arena.compete.league_config import CONFIG_NAME
from arena.compete.league_store import league_pairs
from arena.results.store import DB_NAME

ARENA = [sys.executable, "-m", "arena.cli.main"]
WAIT_S = 120      # a loaded 2-core machine is slow to start Python processes


def write_settings(folder: Path, **settings: object) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    lines = [f"{key} = {json.dumps(value)}" for key, value in settings.items()]
    (folder / CONFIG_NAME).write_text("\n".join(lines) + "\n")


def read_store(folder: Path, sql: str, args: tuple[object, ...] = ()) -> list[tuple]:
    try:
        db = sqlite3.connect(f"file:{folder / DB_NAME}?mode=ro", uri=True, timeout=30)
    except sqlite3.OperationalError:  # not created yet
        return []
    try:
        return db.execute(sql, args).fetchall()
    except sqlite3.OperationalError:  # its tables not created yet
        return []
    finally:
        db.close()


def wait_for(what: str, check: Callable[[], Any], proc: subprocess.Popen | None = None,
             timeout: float = WAIT_S) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"the league ended (status {proc.returncode}) before {what}:\n{out}\n{err}")
        time.sleep(0.2)
    said = ""
    if proc is not None:  # what the league said of why (a bot that cannot start, say)
        proc.terminate()  # a stop, not a kill: the league ends its own workers and bots
        try:
            out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        said = f":\n{out[-3000:]}\n{err[-3000:]}"
    pytest.fail(f"timed out waiting for {what}{said}")


def check_whole(folder: Path, name: str) -> list[str]:
    """Every stored pair complete, on one deal set, with its records; match ids unique. Returns
    the stored match ids."""
    ids = [row[0] for row in read_store(folder, "SELECT match_id FROM matches")]
    assert len(ids) == len(set(ids))
    db = sqlite3.connect(f"file:{folder / DB_NAME}?mode=ro", uri=True)
    try:
        pairs = league_pairs(db, name)
    finally:
        db.close()
    assert [p.pair_no for p in pairs] == list(range(len(pairs)))  # numbered without a gap
    assert all(len(p.stored) == 2 for p in pairs), [p for p in pairs if len(p.stored) != 2]
    assert set(ids) == {i for p in pairs for i in p.stored}
    for pair in pairs:
        sets = read_store(folder, "SELECT DISTINCT deal_set FROM matches WHERE pair_index = ? "
                          "AND match_id LIKE 'L%'", (pair.pair_no,))
        assert len(sets) == 1
    for (record,) in read_store(folder, "SELECT record FROM matches"):
        assert (folder / record).is_file()
    return ids


def shares(pairs: Sequence[tuple[str, str]], bots: Sequence[str]) -> tuple[float, float]:
    """(the most played pairing's count / its even share, the least playing bot's pairs / the
    mean bot's) over ``pairs``."""
    pairings = len(bots) * (len(bots) - 1) / 2
    by_pairing = Counter(tuple(sorted(p)) for p in pairs)
    by_bot = Counter(b for p in pairs for b in p)
    return (max(by_pairing.values()) / (len(pairs) / pairings),
            min(by_bot[b] for b in bots) / (2 * len(pairs) / len(bots)))


def worst_windows(pairs: Sequence[tuple[str, str]], bots: Sequence[str], width: int
                  ) -> tuple[float, float]:
    """``shares`` at their worst over every window of ``width`` consecutive pairs."""
    most, least = 0.0, math.inf
    for start in range(len(pairs) - width + 1):
        pairing, bot = shares(pairs[start:start + width], bots)
        most, least = max(most, pairing), min(least, bot)
    return most, least
