"""Issue 34, step four: a bot's cgroup is looked at (is any process in it?) once where it is handed
back and once where it is handed on, each look reading every hierarchy's ``cgroup.procs`` (~60 us
of a start). What the looks guard stays as ``test_cgroups.py`` checks it (a cgroup with a process
in it is never handed on); these count them, with real cgroups and a real bot.
"""

from __future__ import annotations

import threading

import pytest

from arena.entrants.bot_specs import resolve_bot
from arena.isolation import cgroups
from arena.isolation.probe import support
from arena.match.bot_process import BotProcess, Limits

CAPPED = support().mode != "limits" and cgroups.available() is None
needs_cgroups = pytest.mark.skipif(not CAPPED, reason="needs a cgroup per bot (root, or cgroup "
                                                      "v2 delegated)")


@pytest.fixture()
def looks(monkeypatch) -> list[str]:
    """The ``cgroup.procs`` files this thread reads (the cgroup watcher's thread left out)."""
    seen: list[str] = []
    me = threading.get_ident()
    real = cgroups._read

    def counting(path):
        if str(path).endswith("cgroup.procs") and threading.get_ident() == me:
            seen.append(str(path))
        return real(path)
    monkeypatch.setattr(cgroups, "_read", counting)
    monkeypatch.setattr(cgroups, "_idle", {})  # this test's cgroups only
    return seen


@needs_cgroups
def test_a_kept_cgroup_is_looked_at_once_when_handed_on(looks):
    group = cgroups.take(64, 8, 1)
    try:
        assert cgroups.give_back(group)
        looks.clear()
        again = cgroups.take(64, 8, 1)
        assert again is group
        assert sorted(looks) == sorted(str(p / "cgroup.procs") for p in group.paths)
    finally:
        group.remove()


@needs_cgroups
def test_a_bots_cgroup_is_looked_at_once_when_it_closes(looks):
    """The referee's close: the bot has exited, its cgroup is empty and goes back to be kept,
    with one look (``give_back``'s), not a look of its own before it."""
    proc = BotProcess(list(resolve_bot("first-legal-c").argv), Limits())
    proc.start()
    try:
        proc.send("sixtysix 1")
        assert proc.read_ready_line().startswith(b"ready")
        paths = list(proc._sandbox._launch._cgroup.paths)  # type: ignore[union-attr]
    finally:
        looks.clear()
        proc.close()
    assert sorted(looks) == sorted(str(p / "cgroup.procs") for p in paths)
    assert any(g.paths == paths for kept in cgroups._idle.values() for g in kept)
    for kept in cgroups._idle.values():
        for group in kept:
            group.remove()
