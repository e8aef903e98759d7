"""Each worker keeps to a core of its own where it can claim one (worker_cores.py), and every
process it starts (the zygote, launchers, bots) inherits it (issue 18: a match's referee and bots
woke each other across the cores, behind the other worker's match, and a match of cheap bots took
~1.25x as long with 2 workers as with 1). A core another arena's worker holds is not taken: two
arenas on one machine never stack their workers on one core.

Every test here claims in a folder of its own (``ARENA_CORE_CLAIMS``), so another arena running on
the machine changes nothing in them."""

from __future__ import annotations

import fcntl
import os
import re
import sys
from pathlib import Path
from typing import Callable, Iterator

import pytest

from arena.isolation import levels, probe
from arena.compete.pool import Pool
from arena.isolation.worker_cores import CLAIMS_ENV, claimed, cores_for, for_run, start_at
from core_jobs import cores

CORES = sorted(os.sched_getaffinity(0))
ALL = ", ".join(map(str, CORES))  # how a bot free to use any core prints its cores
needs_two = pytest.mark.skipif(len(CORES) < 2, reason="one core: nothing to spread")


@pytest.fixture
def claims(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A claims folder of this test's own (the workers it spawns inherit the environment)."""
    folder = tmp_path / "claims"
    monkeypatch.setenv(CLAIMS_ENV, str(folder))
    return folder


@pytest.fixture
def other_arena(claims: Path) -> Iterator[Callable[[int], None]]:
    """Stands for another arena's worker: claims a core (a lock on the core's file, as a worker
    takes it) for the rest of the test."""
    fds: list[int] = []

    def hold(core: int) -> None:
        claims.mkdir(exist_ok=True)
        fd = os.open(claims / f"core-{core}", os.O_RDONLY | os.O_CREAT, 0o644)
        fds.append(fd)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    yield hold
    for fd in fds:
        os.close(fd)


def _placed(workers: int, affinity: bool | str) -> list[tuple[list[int], str]]:
    """Each worker's cores and those of a process it starts, from a pool of ``workers``."""
    with Pool(cores, workers, affinity=affinity) as pool:
        seen = {pid: (mine, child) for _, (pid, mine, child) in pool.run(range(4 * workers))}
    assert len(seen) == workers, seen  # every worker played
    return sorted(seen.values())


def _allowed_list() -> str:
    """This process's Cpus_allowed_list: what a process free to use any core shows."""
    status = Path("/proc/self/status").read_text()
    return next(line.split(":", 1)[1].strip() for line in status.splitlines()
                if line.startswith("Cpus_allowed_list:"))


def test_which_core_each_worker_would_keep_to():
    assert cores_for(1, False) == cores_for(len(CORES), False) == []
    for affinity in (True, "auto"):
        assert cores_for(1, affinity) == CORES[:1]
        assert cores_for(len(CORES), affinity) == CORES
        assert cores_for(len(CORES) + 1, affinity) == []  # they would share cores: the kernel's
        # A run starts at a random core (start_at), its workers on the next ones in turn.
        assert cores_for(len(CORES), affinity, 1) == CORES[1:] + CORES[:1]
        assert cores_for(1, affinity, len(CORES) + 1) == CORES[1:2]
    # Runs that share no claims folder (containers on one machine) mostly start apart.
    assert {start_at() % len(CORES) for _ in range(200)} == set(range(len(CORES)))


def test_auto_keeps_workers_free_unless_bots_have_one_core_and_yield_it_while_waiting():
    """A bot kept to one core could not use the ``cores`` its sandbox gives it; and without a
    cgroup's weight, a bot computing while its opponent decides would take half the core they
    share (free, it takes another)."""
    assert for_run("auto", 1, True) == "auto"
    assert for_run("auto", 2, True) is False and for_run("auto", 0, True) is False  # 0: unlimited
    assert for_run("auto", 1, False) is False
    assert for_run(True, 2, False) is True and for_run(False, 1, True) is False  # as asked


def test_only_bots_in_a_cgroup_yield_the_core_while_waiting(monkeypatch: pytest.MonkeyPatch):
    """What a run's "auto" asks of its sandbox (``for_run``'s last argument)."""
    def at(level: str) -> bool:
        monkeypatch.setenv(levels.ISOLATION_ENV, level)
        monkeypatch.setattr(probe, "_requested", None)
        monkeypatch.setattr(probe, "_support", None)
        return probe.waiting_bots_yield()

    try:
        assert at("limits") is False
        if probe.best_level() == "isolated":  # root, with the cgroups it needs
            assert at("isolated") is True
    finally:
        probe._support = None


@needs_two
def test_by_default_each_worker_and_what_it_starts_keep_to_a_core_it_claims(claims: Path):
    placed = _placed(2, "auto")
    kept = {mine[0] for mine, _ in placed}
    assert len(kept) == 2 and kept <= set(CORES)
    for mine, child in placed:
        assert len(mine) == 1 and child == str(mine[0])
    assert claimed(CORES) == []  # the workers are gone, and their claims with them
    assert {p.name for p in claims.iterdir()} == {f"core-{c}" for c in kept}


@needs_two
def test_a_core_another_arena_claims_is_left_to_it(other_arena: Callable[[int], None]):
    other_arena(CORES[0])
    # One worker: where its own core is taken, it takes the next.
    for _ in range(4):  # it starts at a random core: the held one too, most likely
        [(mine, child)] = _placed(1, "auto")
        assert len(mine) == 1 and mine != [CORES[0]] and child == str(mine[0])
    if len(CORES) == 2:
        # Two workers on two cores, one held: one keeps to the free core, the other runs free.
        placed = _placed(2, "auto")
        assert sorted(len(mine) for mine, _ in placed) == [1, 2]
        assert [CORES[1]] in [mine for mine, _ in placed]
        assert CORES in [mine for mine, _ in placed]


@needs_two
def test_with_every_core_claimed_workers_run_free_unless_told_to_keep(
        other_arena: Callable[[int], None]):
    for core in CORES:
        other_arena(core)
    for mine, child in _placed(2, "auto"):
        assert mine == CORES, "a worker took a core another arena holds"
        assert child == _allowed_list()
    # --affinity: kept to cores whatever is claimed, as asked.
    kept = [mine for mine, _ in _placed(2, True)]
    assert all(len(mine) == 1 for mine in kept) and len({mine[0] for mine in kept}) == 2


@needs_two
def test_no_affinity_leaves_every_worker_free(claims: Path):
    for mine, _ in _placed(2, False):
        assert mine == CORES
    assert not claims.exists()  # nothing claimed


@needs_two
def test_a_claim_planted_as_a_link_is_not_followed(claims: Path, tmp_path: Path):
    """The claims folder is shared by every user (like /tmp): a link put there by another user
    is refused, never opened, and that core is simply not claimed (here: every core's, so the
    worker runs free wherever it starts)."""
    claims.mkdir()
    target = tmp_path / "victim"
    target.write_text("")
    for core in CORES:
        (claims / f"core-{core}").symlink_to(target)
    [(mine, _)] = _placed(1, "auto")
    assert mine == CORES
    assert target.read_text() == "" and not target.stat().st_mode & 0o111


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


def _auto_keeps() -> bool:
    """Whether the default ("auto") keeps workers to cores here: only where waiting bots yield
    their core (a cgroup's weight). As a normal user without a cgroup delegated, they run free;
    a test asserting the default's choice asserts this one."""
    return for_run("auto", 1, probe.waiting_bots_yield()) is not False


def _cores_seen(folder: Path) -> list[str]:
    """The cores each of its matches' bots said it may use, from a run's stderr logs."""
    return [m[1] for path in (folder / "logs").iterdir()
            if (m := re.search(r"cores \[([\d, ]+)\]", path.read_text()))]


@needs_two
@pytest.mark.parametrize("flags, kept", [([], None), (["--affinity"], True),
                                         (["--no-affinity"], False),
                                         (["--limit", "cores=2"], False)],
                         ids=["default", "affinity", "no-affinity", "bots-with-two-cores"])
def test_a_tournament_keeps_each_bot_to_its_worker_s_core(tmp_path, claims: Path,
                                                          flags: list[str], kept: bool | None):
    """Found as a normal user: the default kept each bot to one core only as root (``kept``
    None: what the default does in the state this machine is in, ``_auto_keeps``)."""
    from typer.testing import CliRunner

    from arena.cli.main import app

    if kept is None:
        kept = _auto_keeps()

    out = tmp_path / "t"
    result = CliRunner().invoke(app, ["tournament", "--no-report", "-b", _says_its_cores(tmp_path),
                                      "-b", "first-legal-c", "-n", "6", "-w", "2", *flags,
                                      "-o", str(out)])
    assert result.exit_code == 0, result.output
    seen = _cores_seen(out)
    sets = set(seen)
    assert len(seen) == 6, [p.name for p in (out / "logs").iterdir()]
    if kept:  # each bot on one core; the two workers' cores
        assert sets <= {str(c) for c in CORES} and len(sets) == 2, sets
    else:
        assert sets == {ALL}, sets


@needs_two
def test_a_league_keeps_each_bot_to_its_worker_s_core(tmp_path, claims: Path):
    """By default where waiting bots yield their core (``_auto_keeps``; found as a normal user,
    whose bots have no cgroup: its workers run free)."""
    from arena.compete.league import run_league
    from league_util import write_settings

    league = tmp_path / "league"
    write_settings(league, name="pinned", bots=[_says_its_cores(tmp_path), "first-legal-c"],
                   workers=2, publish_every=0)
    progress = run_league(league, data=tmp_path / "data", max_pairs=3, publish=False)
    assert progress.played == 6
    seen = _cores_seen(league)
    assert len(seen) == 6, seen
    if _auto_keeps():  # the league's default, "auto"
        assert set(seen) <= {str(c) for c in CORES}, seen
    else:
        assert set(seen) == {ALL}, seen


@needs_two
def test_by_default_a_run_has_a_worker_per_core_it_may_use(tmp_path: Path):
    """Not per core of the machine: a run under ``taskset`` (or in a container's cpuset) of one
    core gets one worker, kept to that core."""
    import subprocess

    script = ("import os\n"
              f"os.sched_setaffinity(0, {{{CORES[-1]}}})\n"
              "from arena.compete.tournament import TournamentConfig\n"
              "from arena.compete.league import LeagueConfig\n"
              "from arena.isolation.worker_cores import cores_for\n"
              "print(TournamentConfig().worker_count(), LeagueConfig().worker_count(),\n"
              "      cores_for(1, 'auto', 5))\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, timeout=60).stdout.strip().split(maxsplit=2)
    assert out == ["1", "1", f"[{CORES[-1]}]"]
