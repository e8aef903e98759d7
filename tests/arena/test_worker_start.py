"""A tournament's workers start beside its pre-flight and prepare themselves (the sandbox level
the coordinator found, the zygote) before their first match (issue 18: ~0.5 s before every first
match, which a second worker cannot shorten). A run that stops at the pre-flight ends those
workers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.isolation import zygote
from arena.compete.match_job import prepare_worker
from arena.compete.tournament import load_config, resolve_bots, run_tournament
from arena.types import ConfigError


def _children() -> set[int]:
    pids: set[int] = set()
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children") as fh:
            pids |= {int(p) for p in fh.read().split()}
    return pids


def test_a_worker_boots_its_zygote_only_for_bots_that_start_from_one(tmp_path: Path):
    config = load_config(None, {"name": "w", "bots": ["first-legal-c", "c-counter"],
                                "output": str(tmp_path / "c")})
    zygote.stop()
    try:
        prepare_worker(tuple(resolve_bots(config)))
        assert zygote._zygote is None  # C bots start by exec: nothing to boot
        config = load_config(None, {"name": "w", "bots": ["random", "c-counter"],
                                    "output": str(tmp_path / "p")})
        prepare_worker(tuple(resolve_bots(config)))
        assert zygote._zygote is not None and zygote._zygote.alive()
    finally:
        zygote.stop()


def test_a_run_that_stops_at_the_pre_flight_ends_the_workers_it_started(tmp_path: Path):
    before = _children()
    out = tmp_path / "t"
    config = load_config(None, {"name": "w", "bots": ["false", "first-legal-c"], "workers": 2,
                                "output": str(out)})
    with pytest.raises(ConfigError, match="did not start"):
        run_tournament(config)
    left = {pid: open(f"/proc/{pid}/cmdline").read() for pid in _children() - before}
    # multiprocessing's resource tracker lives as long as this process, whoever started it
    assert not {pid: cmd for pid, cmd in left.items() if "resource_tracker" not in cmd}, left
    assert not (out / "results.sqlite").exists()


def test_a_worker_takes_the_sandbox_level_its_coordinator_found_and_probes_no_more(monkeypatch):
    """The coordinator's probe travels to each worker (``prepare_worker(found=)``): a worker's own
    probe was a sandboxed start, ~25 ms before its first match (issue 18). Found for another level
    than the one asked for here, it is not taken: the worker probes for itself."""
    from arena.isolation import levels, probe

    found = probe.support()
    monkeypatch.setattr(probe, "_support", None)
    probed: list[str] = []
    real_probe = probe._probe
    monkeypatch.setattr(probe, "_probe", lambda level: probed.append(level) or real_probe(level))
    prepare_worker((), found)  # no bot starts from a zygote: nothing is booted
    assert probe.support() is found and probed == []

    monkeypatch.setattr(probe, "_support", None)
    other = levels.Support("limits", "asked for", "limits")
    assert found.requested != "limits"
    prepare_worker((), other)
    assert probe.support() == found and probed == [found.requested]
