"""The progress line's leader (arena/compete/live_leader.py) is rated match by match as results are stored,
never by re-reading the store (issue 18); at the end of a tournament it is exactly the leaderboard's.
Real tournaments: bot processes, worker processes, a SQLite file."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

import trueskill

from arena.compete.live_leader import LiveLeader, match_outcome, rate_1vs1
from arena.results.ratings import ENV, leaderboard
from arena.compete.tournament import Progress, load_config, run_tournament
from synthetic_store import NAMES, fill, fill_seated


def table(db_path: Path):  # noqa: ANN201 - a DataFrame
    db = sqlite3.connect(db_path)
    try:
        return leaderboard(db)
    finally:
        db.close()


def assert_same_as_leaderboard(live: LiveLeader, db_path: Path) -> None:
    board = table(db_path)
    for row in board.itertuples():
        # The same TrueSkill updates in the same (schedule) order; two players' in closed form.
        assert live.ratings[row.bot].mu == pytest.approx(row.mu, abs=1e-9)
        assert live.ratings[row.bot].sigma == pytest.approx(row.sigma, abs=1e-9)
    assert live.leader() == board.iloc[0]["bot"]


def follow(db_path: Path) -> tuple[list[LiveLeader], object]:
    """An on_progress that keeps a LiveLeader as the CLI's progress line does."""
    holder: list[LiveLeader] = []

    def on_progress(p: Progress) -> None:
        if not holder:
            holder.append(LiveLeader.of_store(db_path))
        elif p.last is not None and p.last_entry is not None:
            holder[0].add(p.last_entry, p.last)

    return holder, on_progress


def test_the_live_leader_equals_the_leaderboard_after_a_stop_and_a_resume(tmp_path):
    """Two workers finish out of schedule order, a stop hook ends the first run early (the
    matches in flight are still stored) and --resume finishes it: the ratings rated as results
    came in are the leaderboard's."""
    out = tmp_path / "t"
    cfg = load_config(None, {"bots": ["c-counter", "first-legal-c", "first-legal"], "name": "t",
                             "matches_per_pairing": 2, "seed": 7, "workers": 2,
                             "output": str(out)})
    db_path = out / "results.sqlite"
    stored: list[int] = []

    def count(p: Progress) -> None:
        stored.append(p.done)

    run_tournament(cfg, on_progress=count, should_stop=lambda: len(stored) > 1)
    first = sqlite3.connect(db_path).execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    # The hook is asked before each new match: one stored, then at most the 2 in flight.
    assert 1 <= first <= 3 < 6
    holder, on_progress = follow(db_path)
    run_tournament(cfg, resume=True, on_progress=on_progress)
    assert sqlite3.connect(db_path).execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 6
    assert_same_as_leaderboard(holder[0], db_path)
    assert_same_as_leaderboard(LiveLeader.of_store(db_path), db_path)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_store_read_once_rates_as_the_leaderboard_does(tmp_path, players):
    """Synthetic stores shaped like real ones (forfeits, ties, bots partnering themselves)."""
    db_path = tmp_path / "results.sqlite"
    if players == 2:
        fill(db_path, bots=6)
    else:
        fill_seated(db_path, players, NAMES[:4], flaky=NAMES[3])
    assert_same_as_leaderboard(LiveLeader.of_store(db_path), db_path)


def test_the_closed_form_two_player_update_is_the_packages():
    rng = random.Random(3)
    for _ in range(500):
        a = trueskill.Rating(rng.uniform(0, 50), rng.uniform(0.5, 8.4))
        b = trueskill.Rating(rng.uniform(0, 50), rng.uniform(0.5, 8.4))
        for mine, theirs in zip(rate_1vs1(a, b), trueskill.rate_1vs1(a, b, env=ENV)):
            assert (mine.mu, mine.sigma) == pytest.approx((theirs.mu, theirs.sigma), abs=1e-11)


@pytest.mark.parametrize("case, seats, points, winner, offender, reason, expected", [
    ("two, seat 1 wins", ("a", "b"), (0, 7), 1, None, "target", ((("a",), ("b",)), (1, 0))),
    ("two, no winner", ("a", "b"), (0, 0), None, None, "no_contest", ((("a",), ("b",)), None)),
    ("three, seat 2 forfeits", ("a", "b", "c"), (3, 1, 5), 0, 2, "forfeit",
     ((("a",), ("b",), ("c",)), (0, 1, 2))),
    ("three, declined", ("a", "b", "c"), (0, 0, 0), None, None, "declined",
     ((("a",), ("b",), ("c",)), None)),
    ("four, partners opposite", ("a", "b", "a", "c"), (7, 2), 0, None, "target",
     ((("a", "a"), ("b", "c")), (0, 1))),
])
def test_match_outcome_gives_the_leaderboards_teams_and_places(case, seats, points, winner,
                                                               offender, reason, expected):
    n = len(seats)
    assert match_outcome(n, seats, points, winner, offender, reason) == expected
