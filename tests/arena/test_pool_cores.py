"""Asked to (ARENA_PIN_WORKERS=1), each worker keeps to a core of its own, and every process it
starts (the zygote, launchers, bots) inherits it (issue 18: a match's referee and bots woke each
other across the cores, behind the other worker's match, and a match of cheap bots took ~1.4x as
long with 2 workers as with 1). Not by default: a bot kept to a busy core may lose its time."""

from __future__ import annotations

import os

import pytest

from arena.pool import PIN_ENV, Pool, cores_for
from core_jobs import cores

CORES = sorted(os.sched_getaffinity(0))
needs_two = pytest.mark.skipif(len(CORES) < 2, reason="one core: nothing to spread")


@needs_two
def test_workers_keep_to_a_core_each_only_when_asked(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(PIN_ENV, raising=False)
    assert cores_for(1) == cores_for(2) == cores_for(len(CORES)) == []  # the kernel balances
    monkeypatch.setenv(PIN_ENV, "0")
    assert cores_for(len(CORES)) == []
    monkeypatch.setenv(PIN_ENV, "1")
    assert cores_for(1) == CORES[:1]
    assert cores_for(2) == CORES[:2]
    assert cores_for(len(CORES)) == CORES
    assert cores_for(len(CORES) + 1) == []  # they would share cores: left to the kernel


@needs_two
def test_each_worker_and_what_it_starts_keep_to_its_own_core(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(PIN_ENV, "1")  # 2 workers: pinned however many cores this machine has
    with Pool(cores, 2) as pool:
        seen = {pid: (mine, child) for _, (pid, mine, child) in pool.run(range(6))}
    assert len(seen) == 2  # both workers played
    pinned = sorted(mine[0] for mine, _ in seen.values())
    assert pinned == CORES[:2]
    for mine, child in seen.values():
        assert len(mine) == 1 and child == str(mine[0])
