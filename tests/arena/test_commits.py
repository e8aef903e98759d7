"""How a tournament's coordinator stores what its workers send (issue 18): the matches that finish
within a quarter of a second are committed together, a stop signal never cuts a commit in two, and
every stored match is counted, logged and shown exactly once. A real SQLite store, real matches."""

from __future__ import annotations

import os
import signal
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from arena.entrants.bot_specs import resolve_bot
from arena.match.deal_keys import deal_secret, new_key
from arena.game import profile
from arena.match.referee import MatchConfig, run_match
from arena.types import ScheduledMatch
from arena.compete.schedule import round_robin
from arena.results.store import MatchRows, Store, match_rows
from arena.compete.stopping import Stopped, stop_on_signals
from arena.compete.tournament import Progress, _Commits, load_config, run_tournament


@pytest.fixture(scope="module")
def played() -> tuple[ScheduledMatch, MatchRows]:
    """One real match of the two C bots, as the rows a worker sends."""
    entry = round_robin("t", ["first-legal-c", "c-counter"], pairs_per_pairing=1)[0]
    result = run_match([resolve_bot(entry.seat0), resolve_bot(entry.seat1)],
                       MatchConfig(rules=profile("sixty_six"),
                                   seed=deal_secret(new_key(), entry.deal_set),
                                   first_dealer=entry.first_dealer, match_id=entry.match_id))
    return entry, match_rows(entry, result)


class _Job:  # what _Commits reads of a match job: its entry
    def __init__(self, entry: ScheduledMatch):
        self.entry = entry


def _matches(played: tuple[ScheduledMatch, MatchRows], count: int) -> list[tuple[_Job, MatchRows]]:
    entry, rows = played
    out = []
    for i in range(count):
        renamed = replace(entry, match_id=f"m{i}", order=i)
        out.append((_Job(renamed), rows._replace(
            match=(renamed.match_id, i, *rows.match[2:]),
            deals=[(renamed.match_id, *row[1:]) for row in rows.deals],
            seats=[(renamed.match_id, *row[1:]) for row in rows.seats])))
    return out


def _store(tmp_path: Path) -> Store:
    store = Store.open(tmp_path / "results.sqlite")
    store.begin_tournament("t", {})
    store.register_bots([("first-legal-c", [], ""), ("c-counter", [], "")])
    return store


def _stored(store: Store) -> int:
    return int(store.db.execute("SELECT COUNT(*) FROM matches").fetchone()[0])


def test_matches_wait_for_their_group_commit_then_are_stored_and_counted_in_order(tmp_path, played):
    store = _store(tmp_path)
    counted: list[str] = []
    with stop_on_signals() as stop:
        commits = _Commits(store, stop, lambda job, match: counted.append(match.match_id),
                           hold_s=3600.0)
        matches = _matches(played, 5)
        commits.add(*matches[0])  # the run's first match: at once, its progress shows at once
        assert _stored(store) == 1 and counted == ["m0"]
        for job, match in matches[1:]:
            commits.add(job, match)
        due = commits.due()
        assert due is not None and 0 < due <= 3600.0  # they wait: nothing stored or counted yet
        assert _stored(store) == 1 and counted == ["m0"]
        commits.flush()  # one transaction for the four
        assert _stored(store) == 5 and counted == [f"m{i}" for i in range(5)]
        assert commits.due() is None  # nothing waits

        # Without a hold (arena sprt, a cluster) each match is committed as it comes.
        at_once = _Commits(store, stop, lambda job, match: counted.append(match.match_id),
                           hold_s=0.0)
        job, match = _matches(played, 6)[5]
        at_once.add(job, match)
        assert _stored(store) == 6 and counted[-1] == "m5"


def test_a_stop_signal_during_a_commit_waits_for_its_end_and_loses_nothing(tmp_path, played):
    """SIGINT while a group is being stored and counted: the group is stored and counted whole,
    then Stopped is raised with the right count, and a second flush has nothing to store twice."""
    store = _store(tmp_path)
    counted: list[str] = []

    def stored_now(job: _Job, match: MatchRows) -> None:
        counted.append(match.match_id)
        if len(counted) == 2:  # in the middle of counting the group: the signal must wait
            os.kill(os.getpid(), signal.SIGINT)

    with stop_on_signals() as stop:
        stop.progress = Progress(0, 5, 0.0)
        commits = _Commits(store, stop, stored_now, hold_s=3600.0)
        commits.first = False  # the whole group waits
        for job, match in _matches(played, 5):
            commits.add(job, match)
        with pytest.raises(Stopped) as stopped:
            commits.flush()
        assert stopped.value.signum == signal.SIGINT
        commits.flush()  # what run_tournament does on a stop: nothing is left to store
    assert counted == [f"m{i}" for i in range(5)] and _stored(store) == 5


def test_a_tournament_logs_shows_and_stores_each_match_once(tmp_path):
    """A real run with grouped commits and workers that report several matches at once: every
    scheduled match is stored once, has one line in tournament.log, and reaches on_progress once
    (as the store's rows, equal to what the store holds)."""
    out = tmp_path / "t"
    config = load_config(None, {"bots": ["first-legal-c", "c-counter", "random"],
                                "matches_per_pairing": 6, "workers": 2, "output": str(out)})
    seen: dict[str, tuple] = {}
    done: list[int] = []

    def on_progress(p: Progress) -> None:
        done.append(p.done)
        if p.last is not None:
            assert p.last.match_id not in seen
            seen[p.last.match_id] = (p.last.winner, p.last.reason, *p.last.game_points)

    db_path = run_tournament(config, on_progress=on_progress)
    db = sqlite3.connect(db_path)
    try:
        rows = {r[0]: r[1:] for r in db.execute(
            "SELECT match_id, winner, reason, points0, points1 FROM matches")}
    finally:
        db.close()
    assert len(rows) == 18 and seen == rows
    assert done == list(range(19))  # the first report before any match, then one per match
    # One line per match: alone after the record's prefix, or indented under "N matches stored:".
    logged = [line.split("match ", 1)[1].split()[0]
              for line in (out / "tournament.log").read_text().splitlines()
              if " arena.compete.tournament: match " in line or line.startswith("  match ")]
    assert sorted(logged) == sorted(rows)


def test_a_stop_that_cannot_store_the_waiting_matches_still_stops_and_says_so(tmp_path, played,
                                                                               caplog):
    """On a stop the waiting matches are committed first; when the store refuses by then (a full
    disk, here a closed connection), they are left to --resume and the stop goes on."""
    from arena.compete.tournament import _keep_waiting

    store = _store(tmp_path)
    with stop_on_signals() as stop:
        commits = _Commits(store, stop, lambda job, match: None, hold_s=3600.0)
        commits.first = False
        for job, match in _matches(played, 3):
            commits.add(job, match)
        store.close()
        _keep_waiting(commits)  # does not raise
    assert "the last 3 finished matches could not be stored" in caplog.text
