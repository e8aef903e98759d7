"""Where a match's time goes (``arena/match/phases.py``, issue 34): with ``ARENA_PHASES`` set, a
match of real bot processes appends one line of its phases, which add up to no more than the
match took."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from arena.entrants.bot_specs import resolve_bot
from arena.game import profile
from arena.match import phases
from arena.match.bot_process import Limits
from arena.match.referee import MatchConfig, run_match

ORDER = (phases.SANDBOX_SETUP, phases.SPAWN, phases.READY, phases.PLAY, phases.TEARDOWN)


def _play(tmp_path: Path, match_id: str) -> float:
    bots = (resolve_bot("greedy"), resolve_bot("random"))
    config = MatchConfig(rules=profile("sixty_six"), seed=3, match_id=match_id,
                         limits=Limits(decision_ms=400, startup_ms=3000))
    start = time.perf_counter()
    result = run_match(bots, config, record_path=tmp_path / f"{match_id}.jsonl",
                       log_dir=tmp_path / "logs")
    assert result.winner is not None, result.detail
    return (time.perf_counter() - start) * 1000


def test_a_match_writes_its_phases_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    log = tmp_path / "phases.jsonl"
    monkeypatch.setenv(phases.ENV, str(log))
    wall = _play(tmp_path, "p1")
    [line] = phases.read(str(log))
    assert line["match"] == "p1"
    for phase in (*ORDER, phases.EXIT, phases.FINISH, phases.REMOVE):
        assert line[phase] >= 0, phase
    assert line[phases.PLAY] > 0 and line[phases.SPAWN] > 0 and line[phases.SANDBOX_SETUP] > 0
    # The phases follow one another: together no longer than the whole match.
    assert sum(line[p] for p in ORDER) <= wall
    # The teardown's parts are the bots' own, within it.
    assert line[phases.EXIT] + line[phases.FINISH] + line[phases.REMOVE] <= line[phases.TEARDOWN]

