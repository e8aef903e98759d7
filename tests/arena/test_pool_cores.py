"""Asked to (ARENA_PIN_WORKERS=1), each worker keeps to a core of its own, and every process it
starts (the zygote, launchers, bots) inherits it (issue 18: a match's referee and bots woke each
other across the cores, behind the other worker's match, and a match of cheap bots took ~1.4x as
long with 2 workers as with 1). Not by default: a bot kept to a busy core may lose its time."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

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


def test_a_run_asks_for_it_whatever_the_environment_says(monkeypatch: pytest.MonkeyPatch):
    """``Pool(pin=...)``, a tournament's ``--affinity`` (``affinity = true``): True or False win
    over ``ARENA_PIN_WORKERS``; None leaves the choice to it."""
    monkeypatch.setenv(PIN_ENV, "0")
    assert cores_for(1, True) == CORES[:1]
    monkeypatch.setenv(PIN_ENV, "1")
    assert cores_for(1, False) == [] and cores_for(1, None) == CORES[:1]
    assert cores_for(len(CORES) + 1, True) == []


# A bot that says on stderr which cores it may run on, then plays as first_legal.py.
_SAYS_ITS_CORES = """\
import os, sys
sys.stderr.write(f"cores {{sorted(os.sched_getaffinity(0))}}\\n")
sys.stderr.flush()
exec(compile(open({first_legal!r}).read(), "first_legal.py", "exec"))
"""


def _says_its_cores(tmp_path: Path) -> str:
    """The command of that bot, written under ``tmp_path``."""
    first_legal = Path(__file__).resolve().parents[2] / "bots" / "minimal" / "first_legal.py"
    bot = tmp_path / "bot" / "says_its_cores.py"
    bot.parent.mkdir()
    bot.write_text(_SAYS_ITS_CORES.format(first_legal=str(first_legal)))
    return f"{sys.executable} {bot}"


def _cores_seen(folder: Path) -> list[str]:
    """The cores each of its matches' bots said it may use, from a run's stderr logs."""
    return [m[1] for path in (folder / "logs").iterdir()
            if (m := re.search(r"cores \[([\d, ]+)\]", path.read_text()))]


@needs_two
@pytest.mark.parametrize("affinity", [True, False])
def test_a_tournament_with_affinity_keeps_each_bot_to_its_worker_s_core(
        tmp_path, monkeypatch: pytest.MonkeyPatch, affinity: bool):
    from typer.testing import CliRunner

    from arena.cli import app

    monkeypatch.delenv(PIN_ENV, raising=False)
    out = tmp_path / "t"
    flags = ["--affinity"] if affinity else []
    result = CliRunner().invoke(app, ["tournament", "--no-report", "-b", _says_its_cores(tmp_path),
                                      "-b", "first-legal-c", "-n", "6", "-w", "2", *flags,
                                      "-o", str(out)])
    assert result.exit_code == 0, result.output
    seen = _cores_seen(out)
    sets = set(seen)
    assert len(seen) == 6, [p.name for p in (out / "logs").iterdir()]
    if affinity:  # each bot on one core; the two workers' cores
        assert sets <= {str(c) for c in CORES[:2]} and len(sets) == 2, sets
    else:
        assert sets == {", ".join(map(str, CORES))}, sets


@needs_two
def test_a_league_with_affinity_keeps_each_bot_to_its_worker_s_core(
        tmp_path, monkeypatch: pytest.MonkeyPatch):
    from arena.league import run_league
    from league_util import write_settings

    monkeypatch.delenv(PIN_ENV, raising=False)
    league = tmp_path / "league"
    write_settings(league, name="pinned", bots=[_says_its_cores(tmp_path), "first-legal-c"],
                   workers=2, affinity=True, publish_every=0)
    progress = run_league(league, data=tmp_path / "data", max_pairs=3, publish=False)
    assert progress.played == 6
    seen = _cores_seen(league)
    assert len(seen) == 6 and set(seen) <= {str(c) for c in CORES[:2]}, seen
