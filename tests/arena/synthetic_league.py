"""A league's folder with a store of made-up pairs, written straight into the real schema (the
store's, the league's tables, the kept ratings): a league of hundreds of matches in a moment, for
the ladder, ``league status`` and the league page. Real leagues play in test_league*.py."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

from arena.compete.league_store import LEAGUE_SCHEMA, pair_matches
from arena.compete.league_config import CONFIG_NAME, LeagueConfig
from arena.results.league_ladder import SCHEMA, settle
from arena.results.store import DB_NAME, Store

JOINED = "2026-11-28T10:00:00Z"


def synthetic_league(folder: Path, bots: list[str], pairs: int, seed: int = 7,
                     active: list[str] | None = None, open_pairs: int = 0) -> Path:
    """A league named "synthetic" in ``folder`` whose settings name ``active`` (bundled bots, so
    that they resolve; default: none) and whose store holds ``pairs`` pairs among ``bots`` (each
    bot of a hidden strength; now and then a match without a winner). The last ``open_pairs``
    pairs have their second match missing, and the kept ratings are settled below them, as a
    running league leaves them. Returns the store's path."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / CONFIG_NAME).write_text(f'name = "synthetic"\nbots = {json.dumps(active or [])}\n')
    path = folder / DB_NAME
    store = Store.open(path)
    try:
        store.begin_tournament("synthetic", LeagueConfig(name="synthetic").settings())
        store.register_bots([(b, ["./" + b], "") for b in bots])
        db = store.db
        db.executescript(LEAGUE_SCHEMA + SCHEMA)
        strength = {b: rng.gauss(0, 1) for b in bots}
        rows, started = [], []
        for p in range(pairs):
            a, b = rng.sample(bots, 2)
            started.append((p, a, b, JOINED))
            entries = pair_matches("synthetic", p, a, b)
            if p >= pairs - open_pairs:
                entries = entries[:1]
            for entry in entries:
                s0, s1 = entry.seats
                edge = strength[s0] - strength[s1]
                winner = None if rng.random() < 0.03 else \
                    0 if rng.random() < 1 / (1 + 10 ** -edge) else 1
                reason = "deal_limit" if winner is None else "target"
                rows.append((entry.match_id, entry.order, s0, s1, entry.deal_set, entry.first_dealer,
                             p, int(entry.swapped), winner, reason, 7 if winner == 0 else 3,
                             7 if winner == 1 else 3, None, None, "",
                             f"records/{entry.match_id}.jsonl", 1.0,
                             f"2026-11-28T11:{p // 60 % 60:02d}:{p % 60:02d}Z", 2))
        with db:
            db.execute("BEGIN")
            db.executemany("INSERT INTO league_bots VALUES (?, ?, ?, ?, ?)",
                           [(b, b.partition("@")[0], b, json.dumps(
                               {"name": b, "argv": ["./" + b], "version": ""}), JOINED)
                            for b in bots])
            db.executemany("INSERT INTO league_pairs VALUES (?, ?, ?, ?)", started)
            db.executemany(
                "INSERT INTO matches (match_id, sched_order, seat0, seat1, deal_set, first_dealer, "
                "pair_index, swapped, winner, reason, points0, points1, offender, fault, detail, "
                "record, play_ms, finished, players) VALUES "
                "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)
        db.execute("BEGIN IMMEDIATE")
        settle(db, 2 * (pairs - open_pairs))
        db.execute("COMMIT")
    finally:
        store.close()
    return path


def sql(path: Path, query: str, *args: object) -> list[tuple]:
    db = sqlite3.connect(path)
    try:
        with db:
            return db.execute(query, args).fetchall()
    finally:
        db.close()
