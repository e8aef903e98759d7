"""A sandbox level found missing by chance is probed again before it is refused or stepped down
from (``probe.PROBE_ATTEMPTS``): a suite worker as root once stepped down to ``limits`` after one
failed probe on a loaded machine, and its Python bots could not start for the rest of its life.
A level missing for sure (``isolated`` for a normal user) is not probed again."""

from __future__ import annotations

import os

import pytest

from arena.isolation import probe
from arena.isolation.levels import SandboxUnavailable


class Flaky:
    """``probe._probe`` whose first probe of each level fails, as under load; the next ones
    probe for real. ``calls``: the levels probed, in order."""

    def __init__(self) -> None:
        self.real, self.failed, self.calls = probe._probe, set(), []

    def __call__(self, level: str):
        self.calls.append(level)
        if level not in self.failed:
            self.failed.add(level)
            raise SandboxUnavailable(f"the {level} probe missed its time (simulated)")
        return self.real(level)


@pytest.fixture
def flaky(monkeypatch) -> Flaky:
    fake = Flaky()
    monkeypatch.setattr(probe, "_probe", fake)
    monkeypatch.setattr(probe, "PROBE_PAUSE_S", 0.01)
    monkeypatch.delenv(probe.PROBE_FAIL_ENV, raising=False)
    return fake


def test_best_level_is_not_lowered_by_one_failed_probe(flaky):
    found = probe.best_level()
    if os.geteuid() == 0:
        assert found == "isolated", flaky.calls
        assert flaky.calls[:2] == ["isolated", "isolated"]
    else:  # a normal user: isolated is missing for sure, probed once; then namespaces or limits
        assert flaky.calls.count("isolated") == 1
        assert found in ("namespaces", "limits")


def test_the_level_asked_for_is_had_after_one_failed_probe(flaky, monkeypatch):
    level = probe.best_level()
    flaky.calls.clear()
    flaky.failed.clear()  # each level fails once again
    monkeypatch.setattr(probe, "_support", None)
    monkeypatch.setattr(probe, "_requested", level)
    assert probe.support().mode in (level, "isolated")  # as root, namespaces is isolated
    assert len(flaky.calls) == 2  # it failed once, and was probed again


def test_a_level_that_always_fails_is_refused_after_its_attempts(monkeypatch):
    calls = []

    def missing(level: str):
        calls.append(level)
        raise SandboxUnavailable("no namespaces here (simulated)")

    monkeypatch.setattr(probe, "_probe", missing)
    monkeypatch.setattr(probe, "PROBE_PAUSE_S", 0.01)
    monkeypatch.setattr(probe, "_support", None)
    monkeypatch.setattr(probe, "_requested", "namespaces")
    with pytest.raises(SandboxUnavailable):
        probe.support()
    assert calls == ["namespaces"] * probe.PROBE_ATTEMPTS
