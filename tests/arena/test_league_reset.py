"""A reset of a league's ratings (a final: league_members.request_rating_reset, the site's admin)
on a real league run: after it, the running league's ladder (matchmaking's), the ladder of a
league started again, the kept ratings and history, and a report of the store all count only the
matches from the reset on, as a replay of those matches alone gives them."""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from arena.compete.league import Ladder, run_league
from arena.compete.league_members import request_rating_reset
from arena.compete.league_store import read_ladder
from arena.report.snapshot import read_snapshot
from arena.results.league_ladder import kept_ratings, kept_replay, rating_start
from arena.results.rating_replay import rate
from arena.results.ratings import leaderboard, rating_history
from arena.results.store import DB_NAME, connect_read_only
from league_util import write_settings


@pytest.fixture(scope="module")
def reset_league(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A league of 2 pairs, a reset, 3 pairs more (the reset applied by the running league before
    its first), then 1 pair more in a league started again. One worker: its ladder takes the
    matches in schedule order, as a replay does."""
    root = tmp_path_factory.mktemp("reset")
    league, data = root / "league", root / "data"
    write_settings(league, name="final", bots=["greedy", "random"], workers=1, max_deals=2)
    run_league(league, data=data, max_pairs=2, publish=False)
    request_rating_reset(league)
    after_reset = run_league(league, data=data, max_pairs=3, publish=False)
    assert after_reset.ladder is not None
    running = {b: (r.mu, r.sigma) for b, r in after_reset.ladder.ratings.items()}
    running_matches = dict(after_reset.ladder.matches)
    restarted = run_league(league, data=data, max_pairs=1, publish=False)
    assert restarted.ladder is not None
    return {"league": league, "data": data, "running": running, "running_matches": running_matches,
            "restarted": {b: (r.mu, r.sigma) for b, r in restarted.ladder.ratings.items()},
            "restarted_matches": dict(restarted.ladder.matches)}


def _since(league: Path) -> int:
    db = connect_read_only(league / DB_NAME)
    try:
        rows = db.execute("SELECT request, since FROM league_resets").fetchall()
        assert rows == [(1, 4)]  # applied before the third pair: orders 4 on
        assert rating_start(db) == 4
        return 4
    finally:
        db.close()


def _replay(league: Path, below: int | None = None) -> tuple[dict[str, tuple[float, float]],
                                                            dict[str, int], list[tuple]]:
    """Ratings, match counts and rating history of the matches from the reset on (below
    ``below``), replayed from nothing: what every reader must give."""
    db = connect_read_only(league / DB_NAME)
    try:
        rows = db.execute("SELECT sched_order, seat0, seat1, winner FROM matches "
                          "WHERE sched_order >= ? AND sched_order < ?",
                          (_since(league), below if below is not None else 1 << 62)).fetchall()
    finally:
        db.close()
    ratings, history = rate(rows, start={})  # from nothing, no kept replay
    counts: dict[str, int] = {}
    for _, seat0, seat1, _ in rows:
        counts[seat0] = counts.get(seat0, 0) + 1
        counts[seat1] = counts.get(seat1, 0) + 1
    return {b: (r.mu, r.sigma) for b, r in ratings.items()}, counts, \
        [(p.order, p.bot, p.mu, p.sigma) for p in history]


def _same(mine: dict[str, tuple[float, float]], theirs: dict[str, tuple[float, float]]) -> None:
    assert mine.keys() == theirs.keys()
    for bot, (mu, sigma) in mine.items():
        assert math.isclose(mu, theirs[bot][0], rel_tol=1e-9), (bot, mu, theirs[bot])
        assert math.isclose(sigma, theirs[bot][1], rel_tol=1e-9), (bot, sigma, theirs[bot])


def test_the_running_league_counts_from_the_reset(reset_league):
    # The ratings matchmaking used after the reset, and the matches stored by then (orders < 10):
    # those of the three pairs after the reset only, not the two before.
    ratings, counts, _ = _replay(reset_league["league"], below=10)
    assert counts == {"greedy": 6, "random": 6}
    _same(reset_league["running"], ratings)
    assert reset_league["running_matches"] == counts


def test_a_league_started_after_a_reset_continues_from_it(reset_league):
    league, data = reset_league["league"], reset_league["data"]
    ratings, counts, history = _replay(league)
    assert counts == {"greedy": 8, "random": 8}
    _same(reset_league["restarted"], ratings)
    assert reset_league["restarted_matches"] == counts
    db = connect_read_only(league / DB_NAME)
    try:
        # Its ladder made from the kept ratings, and (they no longer fit) from the matches.
        kept = kept_ratings(db)
        assert kept is not None and kept[0] == 12
        _same({b: (r.mu, r.sigma) for b, r in Ladder.from_store(db).ratings.items()}, ratings)
        assert Ladder.from_store(db).matches == counts
        # The kept history starts anew at the reset.
        replayed = kept_replay(db)
        assert replayed is not None
        assert [(p.order, p.bot, p.mu, p.sigma) for p in replayed[2]] == history
    finally:
        db.close()
    rows, stored = read_ladder(league, data)  # arena league status
    assert stored["matches"] == 12  # every match stays stored
    _same({r.name: (r.mu, r.sigma) for r in rows}, ratings)
    assert {r.name: r.matches for r in rows} == counts


def test_a_ladder_made_again_from_the_matches_counts_from_the_reset(reset_league, tmp_path):
    # The kept ratings do not fit (a store changed by hand): replayed from the reset, not from the
    # first match.
    path = tmp_path / DB_NAME
    _copy(reset_league["league"] / DB_NAME, path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE league_rated SET matches = matches + 1")
    ratings, counts, _ = _replay(reset_league["league"])
    db = connect_read_only(path)
    try:
        assert kept_ratings(db) is None
        ladder = Ladder.from_store(db)
    finally:
        db.close()
    _same({b: (r.mu, r.sigma) for b, r in ladder.ratings.items()}, ratings)
    assert ladder.matches == counts


def test_ratings_kept_from_before_the_newest_reset_are_not_read(reset_league, tmp_path):
    # A reset recorded but the kept ratings not made anew (a league stopped between the two, a
    # store put back by hand): they fit the matches' count, and are still not the reset's.
    path = tmp_path / DB_NAME
    _copy(reset_league["league"] / DB_NAME, path)
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO league_resets VALUES (2, 0, 'then', 'then')")
        db.execute("UPDATE league_rated SET matches = (SELECT COUNT(*) FROM matches "
                   "WHERE sched_order < league_rated.through)")
    db = connect_read_only(path)
    try:
        assert rating_start(db) == 0
        assert kept_ratings(db) is None and kept_replay(db) is None
        every = db.execute("SELECT sched_order, seat0, seat1, winner FROM matches").fetchall()
        _same({b: (r.mu, r.sigma) for b, r in Ladder.from_store(db).ratings.items()},
              {b: (r.mu, r.sigma) for b, r in rate(every, start={})[0].items()})
    finally:
        db.close()


def test_the_report_after_a_reset_counts_from_it(reset_league):
    league = reset_league["league"]
    ratings, counts, history = _replay(league)
    for hold_back in (False, True):  # arena report, and a publish
        with read_snapshot(league / DB_NAME, hold_back) as snapshot:
            board = leaderboard(snapshot.db)
            played = board[board["matches"] > 0]
            _same({b: (m, s) for b, m, s in zip(played["bot"], played["mu"], played["sigma"])},
                  ratings)
            assert dict(zip(played["bot"], played["matches"])) == counts
            assert list(rating_history(snapshot.db).itertuples(index=False, name=None)) == history
            assert snapshot.db.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 8


def _copy(source: Path, target: Path) -> None:
    with connect_read_only(source) as db, sqlite3.connect(target) as copy:
        db.backup(copy)
