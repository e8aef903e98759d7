"""A cgroup per bot: a bot's processes together are held to its memory and process caps, what it
exceeded is its forfeit's reason, and nothing else notices (issue 13, "One bot cannot starve the
machine").

Real processes and real cgroups throughout, at a scale that is safe on a small shared machine: a
bot whose 8 children each touch 60 MB (each far below any per-process limit) against a cap of
200 MB for the whole bot.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from arena.isolation import cgroups, zygote
from arena.match.bot_process import BotProcess, Limits
from arena.entrants.bot_specs import resolve_bot
from arena.game import profile
from arena.match.referee import BotSpec, MatchConfig, run_match
from arena.isolation.limits import SandboxLimits
from arena.isolation.launcher import launcher, launcher_fd
from arena.isolation.probe import support
from bot_procs import TAG, tagged_processes
from other_users import needs_others_to_read

CAP_BOT = Path(__file__).parent / "fixtures" / "cap_bot.py"
CPU_BOT = Path(__file__).parent / "fixtures" / "cpu_bot.py"
CAPPED = support().mode != "limits" and cgroups.available() is None
needs_cgroups = pytest.mark.skipif(
    not CAPPED, reason="needs a cgroup per bot (root, or cgroup v2 delegated): " + str(
        support().reason if support().mode == "limits" else cgroups.available()))
SMALL = SandboxLimits(cpu_s=20, memory_mb=200, processes=16, file_mb=8, open_files=64)
# Long limits: a loaded machine must not turn the fault at the cap into a timeout.
LIMITS = Limits(decision_ms=10_000, startup_ms=10_000, sandbox=SMALL)

@pytest.fixture(params=["zygote", "exec"])
def launch_path(request, monkeypatch):
    """Both ways a Python bot starts (issue 18): forked from the zygote (arena/isolation/zygote.py) and by
    exec; every guarantee this fixture's tests check holds for both."""
    monkeypatch.setenv(zygote.ENV, "1" if request.param == "zygote" else "0")
    if request.param == "zygote" and support().mode != "limits":
        assert zygote.get() is not None, zygote.failure()  # never a silent fall-back to exec
    return request.param



def cap_bot(mode: str, count: int, megabytes: int = 0) -> BotSpec:
    return BotSpec(f"cap-{mode}", (sys.executable, str(CAP_BOT), mode, str(count),
                                   str(megabytes), TAG))


def our_cgroups() -> list[Path]:
    """The bot cgroups this test process made that still exist (once removed: in the background),
    but for those kept empty for its next bots (issue 34: cgroups.give_back), which must be."""
    from arena.isolation import bot_folders

    if bot_folders._removals is not None:
        bot_folders._removals.join()
    kept = cgroups.kept()
    for group in kept:
        assert group._empty() and not group.killed, group.paths
    kept_paths = {path for group in kept for path in group.paths}
    return [path for parent in cgroups.layout().parents
            for path in parent.glob(f"{cgroups.PREFIX}{os.getpid()}-*") if path not in kept_paths]


def play(bots: list[BotSpec], tmp_path: Path):
    config = MatchConfig(rules=profile("sixty_six"), seed=5, match_id="c", limits=LIMITS)
    return run_match(bots, config, record_path=tmp_path / "m.jsonl", log_dir=tmp_path / "logs")


@needs_cgroups
def test_children_together_over_the_memory_cap_forfeit_naming_it(launch_path, tmp_path):
    result = play([cap_bot("children", 8, 60), resolve_bot("greedy")], tmp_path)
    assert (result.reason, result.offender, result.fault) == ("forfeit", 0, "exit"), result.detail
    assert "memory limit of 200 MB reached (cgroup OOM kill)" in result.detail
    # The opponent played to the end untouched and exited by itself, within its own caps.
    assert result.winner == 1
    other = result.seats[1].sandbox
    assert other is not None and other.status == 0 and other.exceeded == ""
    assert tagged_processes() == [] and our_cgroups() == []


@needs_cgroups
def test_the_same_children_under_a_larger_cap_play_on(tmp_path):
    """The cap, not the children, is what ended the bot above: with room for them all it plays."""
    roomy = Limits(decision_ms=5000, startup_ms=5000,
                   sandbox=SandboxLimits(memory_mb=1024, processes=16))
    config = MatchConfig(rules=profile("sixty_six"), seed=5, match_id="c", limits=roomy)
    result = run_match([cap_bot("children", 8, 60), resolve_bot("greedy")], config,
                       log_dir=tmp_path / "logs")
    assert result.reason == "target", result.detail
    assert "8 of 8 children hold 60 MB" in (tmp_path / "logs" / "c.seat0.stderr.log").read_text()
    assert tagged_processes() == [] and our_cgroups() == []


@needs_cgroups
def test_a_bot_over_its_process_cap_forfeits_naming_it(tmp_path):
    # It catches the failed fork and would play on: the cap still ends it.
    result = play([cap_bot("processes", 40), resolve_bot("greedy")], tmp_path)
    assert (result.reason, result.offender, result.fault) == ("forfeit", 0, "exit"), result.detail
    assert "process limit of 16 reached (cgroup pids.max)" in result.detail
    # What the bot says of its failed fork, when it could say it: the watcher may kill it first
    # (its 15 new children, all starting at once, share its one core: cores=1).
    log = (tmp_path / "logs" / "c.seat0.stderr.log").read_text()
    assert log == "" or "fork failed after 15 children" in log, log  # 16 with the bot itself
    assert tagged_processes() == [] and our_cgroups() == []


@needs_cgroups
def test_a_bot_that_survives_its_cap_forfeits_when_the_match_ends(tmp_path, monkeypatch):
    """Without the watcher (which looks only every WATCH_S, and so may be too late), the referee
    still finds the cap the bot ran into before the match counts as won or lost."""
    monkeypatch.setattr(cgroups, "watch", lambda group: None)
    result = play([cap_bot("processes", 40), resolve_bot("greedy")], tmp_path)
    assert (result.reason, result.offender, result.fault) == ("forfeit", 0, "exit"), result.detail
    assert "killed at its cap: process limit of 16 reached (cgroup pids.max)" in result.detail
    assert result.state is not None and result.state.outcome is not None
    assert result.state.outcome.offender == 0  # the engine's outcome agrees with the result
    assert tagged_processes() == [] and our_cgroups() == []


@needs_cgroups
def test_the_bot_and_its_children_are_in_its_cgroup_from_the_start(launch_path, tmp_path):
    """The launcher joins the bot's cgroups before it forks PID 1 and the bot: every process of
    the bot is in each of them. From inside, in a cgroup namespace of its own, the bot sees
    only "/" (no path of the arena's cgroups on the host, no referee PID in a name)."""
    proc = BotProcess([sys.executable, "-c", "import sys; print(open('/proc/self/cgroup').read(),"
                       " file=sys.stderr); print('ready x', flush=True); sys.stdin.read()"],
                      LIMITS, stderr_log=tmp_path / "err.log")
    proc.start()
    try:
        assert proc.read_line(5) == b"ready x"
        made = our_cgroups()
        assert made  # one per hierarchy: v2 one, v1 memory, pids and cpu
        inside = [set((path / "cgroup.procs").read_text().split()) for path in made]
        assert len(inside[0]) >= 2 and all(pids == inside[0] for pids in inside), inside
    finally:
        proc.close()
    seen = [line.split(":", 2)[2] for line in (tmp_path / "err.log").read_text().splitlines()
            if line.count(":") >= 2]
    assert seen and set(seen) == {"/"}, seen
    assert our_cgroups() == []  # removed with the bot, or kept empty for the next one


@needs_cgroups
def test_a_bot_cannot_raise_its_own_caps(launch_path, tmp_path):
    """The caps are files of its cgroup, which the bot can see: in the isolated mode it runs as a
    user id of its own, and they are root's."""
    if support().mode != "isolated":
        pytest.skip("a bot that runs as your user could write its cgroup's files")
    script = ("import sys\n"
              "for line in open('/proc/self/cgroup'):\n"
              "    _, controllers, path = line.strip().split(':', 2)\n"
              "    for name, folder, value in (\n"
              "            ('memory', 'memory.limit_in_bytes', '-1'), ('pids', 'pids.max', 'max'),\n"
              "            ('cpu', 'cpu.shares', '1024'), ('cpu', 'cpu.cfs_quota_us', '-1'),\n"
              "            ('', 'memory.max', 'max'), ('', 'cpu.weight', '100'),\n"
              "            ('', 'cpu.max', 'max')):\n"
              "        if name in controllers.split(',') or name == controllers == '':\n"
              "            where = f'/sys/fs/cgroup/{name}{path}/{folder}'.replace('//', '/')\n"
              "            try:\n"
              "                open(where, 'w').write(value)\n"
              "                print('raised', where, file=sys.stderr)\n"
              "            except OSError as err:\n"
              "                print('refused', where, err.errno, file=sys.stderr)\n"
              "print('ready x', flush=True)\n"
              "sys.stdin.read()\n")
    proc = BotProcess([sys.executable, "-c", script], LIMITS, stderr_log=tmp_path / "err.log")
    proc.start()
    try:
        assert proc.read_line(5) == b"ready x"
    finally:
        proc.close()
    said = (tmp_path / "err.log").read_text()
    assert "raised" not in said
    assert said.count("refused") >= 1, said  # it found them, and could not write


_BUSY_MATCH = """
import os, subprocess, sys, time
from pathlib import Path
from typing import Iterator
core = int(sys.argv[1])
os.sched_setaffinity(0, {core})  # before the zygote: every bot inherits it
# Another program busy on that core, in a session of its own (its own autogroup), as any other
# program on a busy machine.
busy = subprocess.Popen([sys.executable, "-c", "while True: pass", sys.argv[4]],
                        start_new_session=True)
try:
    from arena.match.bot_process import Limits
    from arena.game import profile
    from arena.match.referee import BotSpec, MatchConfig, run_match
    folder, bot, tag = Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    bots = [BotSpec("exit", (sys.executable, bot, "exit", "30", tag)),
            BotSpec("quick", (sys.executable, bot, "work", "0", tag))]
    config = MatchConfig(rules=profile("sixty_six"), seed=5, match_id="exit", max_deals=1,
                         limits=Limits(decision_ms=10_000, startup_ms=10_000))
    result = run_match(bots, config, record_path=folder / "m.jsonl", log_dir=folder / "logs")
    print(result.reason, result.seats[0].sandbox.status, result.seats[1].sandbox.status)
finally:
    busy.kill()
    busy.wait()
"""


@needs_cgroups
def test_a_bot_has_the_cpu_to_exit_when_its_match_ends(launch_path, tmp_path):
    """After match_end the referee waits for each bot to exit (1 s, PROTOCOL.md): each gets the
    normal weight back for that. A bot that needs 30 ms of CPU to exit, on a core another program
    keeps busy, exits by itself (status 0); left at the least weight it got ~0.2% of the core
    and was killed after its second (no exit status of its own)."""
    core = str(max(os.sched_getaffinity(0)))
    proc = subprocess.run([sys.executable, "-c", _BUSY_MATCH, core, str(tmp_path), str(CPU_BOT),
                           TAG], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["deal_limit", "0", "0"], proc.stdout
    assert tagged_processes() == []


def _cpu_seconds(pids: list[int]) -> dict[int, float]:
    """Each live process's CPU time so far (user and system)."""
    seconds = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        seconds[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return seconds


@needs_cgroups
def test_a_bot_gets_at_most_its_cores_worth_of_cpu(launch_path, tmp_path):
    """Three spinning processes of one bot, held to cores=1: together they use one core's worth
    of time, however many cores are idle (on this 2-core machine, without the cap they used
    ~2). The cap holds the bot back and never kills it. cores=0 leaves it unlimited."""
    spin = ("import os, sys\n"
            "for _ in range(2):\n"
            "    if os.fork() == 0:\n"
            "        while True: pass\n"
            "print('ready x', flush=True)\n"
            "while True: pass\n")
    limits = Limits(decision_ms=10_000, startup_ms=10_000,
                    sandbox=SandboxLimits(cpu_s=20, processes=16, cores=1))
    proc = BotProcess([sys.executable, "-c", spin, TAG], limits, stderr_log=tmp_path / "e.log")
    proc.start()
    try:
        assert proc.read_line(10) == b"ready x"
        cpu = next(path for path in our_cgroups() if path.parent == cgroups.layout().parents[-1])
        assert (cpu / ("cpu.cfs_quota_us" if cgroups.layout().version == 1 else "cpu.max")) \
            .read_text().split()[0] == "100000"
        pids = [int(p) for p in (cpu / "cgroup.procs").read_text().split()]
        before, start = _cpu_seconds(pids), time.monotonic()
        time.sleep(0.6)  # short: the rest of the parallel suite shares the machine
        after, wall = _cpu_seconds(pids), time.monotonic() - start
        used = sum(after[pid] - before[pid] for pid in after if pid in before)
        assert 0 < used / wall < 1.15, (used, wall)
        assert set(after) == set(before)  # all still running: held back, not killed
    finally:
        proc.close()
    unlimited = cgroups.BotCgroup(memory_mb=64, processes=8, cores=0)
    try:
        quota = unlimited.paths[-1] / ("cpu.cfs_quota_us" if unlimited.layout.version == 1
                                       else "cpu.max")
        assert quota.read_text().split()[0] in ("-1", "max")
    finally:
        unlimited.remove()
    assert tagged_processes() == [] and our_cgroups() == []


@needs_cgroups
def test_under_an_arena_held_below_one_core_a_bot_still_starts_held_by_it(tmp_path):
    """An arena whose own cgroup has less CPU than ``cores`` (a container given half a core):
    cgroup v1 refuses the bot's larger quota, and the bot's cgroup is made anyway, its quota left
    to the arena's, which already holds it below ``cores``."""
    if cgroups.layout().version != 1:
        pytest.skip("cgroup v2 takes a larger quota below a smaller one and applies the smaller")
    held = cgroups.layout().parents[-1] / f"test-held-{os.getpid()}"
    held.mkdir()
    try:
        (held / "cpu.cfs_quota_us").write_text("50000")  # half of the 100 ms period
        script = ("import os, sys\n"
                  "open(sys.argv[1] + '/cgroup.procs', 'w').write(str(os.getpid()))\n"
                  "from arena.isolation import cgroups\n"
                  "group = cgroups.BotCgroup(memory_mb=64, processes=8, cores=1)\n"
                  "print(group.paths[-1].parent.name, "
                  "(group.paths[-1] / 'cpu.cfs_quota_us').read_text().strip())\n"
                  "group.remove()\n")
        proc = subprocess.run([sys.executable, "-c", script, str(held)], capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.split() == [held.name, "-1"]
    finally:
        for _ in range(50):  # the subprocess has exited; its cgroup entry may linger a moment
            try:
                held.rmdir()
                break
            except OSError:
                time.sleep(0.02)


@pytest.mark.slow
@needs_cgroups
def test_a_tournament_and_its_store_are_untouched_by_a_bot_at_its_cap(tmp_path):
    from arena.compete.tournament import load_config, run_tournament

    hog = " ".join(cap_bot("children", 8, 60).argv)
    db = run_tournament(load_config(None, {
        "name": "caps", "bots": ["greedy", "random", hog], "matches_per_pairing": 2, "seed": 3,
        "workers": 2, "output": str(tmp_path / "t"), "sandbox": {"memory_mb": 200},
        "decision_ms": 5000}))
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT seat0, seat1, reason, offender, fault, detail FROM matches"
                            ).fetchall()
        deals = dict(conn.execute("SELECT match_id, count(*) FROM deals GROUP BY match_id"))
        names = {n for (n,) in conn.execute("SELECT name FROM bots")}
    assert len(rows) == 6  # every scheduled match stored, whole
    hog_name = (names - {"greedy", "random"}).pop()
    for seat0, seat1, reason, offender, fault, detail in rows:
        if hog_name in (seat0, seat1):
            assert (reason, fault) == ("forfeit", "exit"), detail
            assert (seat0, seat1)[offender] == hog_name
            assert "memory limit of 200 MB reached (cgroup OOM kill)" in detail
        else:
            assert reason == "target", detail  # greedy against random: an ordinary match
    assert len(deals) == 6 - 4 + sum(1 for n in deals.values() if n == 0)  # played to the end
    assert tagged_processes() == [] and our_cgroups() == []


@needs_cgroups
def test_the_cgroups_of_a_dead_arena_are_removed_by_the_next_one(tmp_path):
    import tempfile

    from arena.isolation import bot_folders, sandbox

    dead = subprocess.Popen(["true"])
    dead.wait()  # its PID now names no process
    parents = cgroups.layout().parents
    stale = [parent / f"{cgroups.PREFIX}{dead.pid}-7" for parent in parents]
    alive = [parent / f"{cgroups.PREFIX}{os.getpid()}-999999" for parent in parents]
    for path in stale + alive:
        path.mkdir()
    try:
        bot_folders.sweep_stale_folders.cache_clear()
        old_tempdir, tempfile.tempdir = tempfile.tempdir, str(tmp_path)
        try:
            box = sandbox.Sandbox(SandboxLimits())
            box.close()
        finally:
            tempfile.tempdir = old_tempdir
            bot_folders.sweep_stale_folders.cache_clear()
        assert not any(path.exists() for path in stale)
        assert all(path.exists() for path in alive)  # its owner runs: not touched
    finally:
        for path in stale + alive:
            if path.exists():
                path.rmdir()


@needs_cgroups
def test_the_cgroups_of_a_referee_killed_with_kill_9_go_with_the_next_arena(tmp_path):
    import signal
    import time

    from arena.isolation import bot_folders, sandbox

    script = (f"import sys; from arena.match.referee import BotSpec, MatchConfig, run_match\n"
              f"from arena.match.bot_process import Limits; from arena.game import profile\n"
              f"bots = [BotSpec('c', (sys.executable, {str(CAP_BOT)!r}, 'processes', '1', '0', "
              f"{TAG!r})) for _ in range(2)]\n"
              f"run_match(bots, MatchConfig(rules=profile('sixty_six'), "
              f"limits=Limits(decision_ms=60000)))\n")
    # The killed referee cannot remove its bots' folders: they go to tmp_path, which pytest does.
    referee = subprocess.Popen([sys.executable, "-c", script],
                               env={**os.environ, "TMPDIR": str(tmp_path)})

    def theirs() -> list[Path]:
        return [path for parent in cgroups.layout().parents
                for path in parent.glob(f"{cgroups.PREFIX}{referee.pid}-*")]
    try:
        deadline = time.monotonic() + 20
        while len(theirs()) < 2 * len(cgroups.layout().parents) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(theirs()) == 2 * len(cgroups.layout().parents)  # both bots', each hierarchy
    finally:
        referee.send_signal(signal.SIGKILL)
        referee.wait()
    # Nobody removed them: the referee died first. Looked at at once: another arena on this
    # machine (a test run beside this one) sweeps them as soon as their killed bots are reaped,
    # and the run of three test workers once lost that race while waiting for the bots below.
    assert theirs()
    deadline = time.monotonic() + 3
    while tagged_processes() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert tagged_processes() == []
    # The next sandbox sweeps. A cgroup goes only once its killed bots are reaped, which a loaded
    # machine (another test run beside this one) can delay past the wait above: sweep again a while.
    deadline = time.monotonic() + 10
    while True:
        bot_folders.sweep_stale_folders.cache_clear()
        try:
            sandbox.Sandbox(SandboxLimits()).close()
        finally:
            bot_folders.sweep_stale_folders.cache_clear()
        if not theirs() or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert theirs() == []
    assert our_cgroups() == []


@needs_cgroups
def test_the_launcher_refuses_to_start_a_bot_outside_its_cgroup(tmp_path):
    """A cgroup the launcher cannot join ends it before anything runs (fail closed)."""
    status_r, status_w = os.pipe()
    missing = tmp_path / "no-such-cgroup"
    proc = subprocess.run([str(launcher()), f"--status-fd={status_w}", f"--parent={os.getpid()}",
                           f"--cwd={tmp_path}", f"--base={tmp_path}", f"--cgroup={missing}", "--",
                           "sh", "-c", f"touch {tmp_path}/ran"],
                          pass_fds=(status_w, launcher_fd()))
    os.close(status_w)
    with os.fdopen(status_r) as fh:
        said = fh.read()
    assert proc.returncode == 126
    assert f"sandbox: {missing}/cgroup.procs: No such file or directory" in said
    assert not (tmp_path / "ran").exists()


@needs_others_to_read
def test_without_cgroups_the_sandbox_says_memory_is_per_process():
    """As a normal user on this machine (cgroup v1, nothing delegated) there are no cgroups: the
    sandbox's description says so plainly."""
    import shutil
    import tempfile

    user: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("needs setpriv to run as another user")
        user = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    cache = Path(tempfile.mkdtemp(prefix="test-cgroups-cache-"))  # the other user's own
    try:
        if user:
            os.chown(cache, 65534, 65534)
        script = ("from arena.isolation import cgroups\n"
                  "from arena.isolation.probe import describe\n"
                  "print(cgroups.available()); print(describe())")
        proc = subprocess.run([*user, sys.executable, "-c", script], capture_output=True,
                              text=True, cwd="/",
                              # isolated fails closed for a normal user: ask for namespaces.
                              env={**os.environ, "XDG_CACHE_HOME": str(cache),
                                   "ARENA_ISOLATION": "namespaces"})
    finally:
        shutil.rmtree(cache)
    assert proc.returncode == 0, proc.stderr
    available, described = proc.stdout.splitlines()[:2]
    if available == "None":
        pytest.skip("this user has cgroups delegated to it")
    assert "memory_mb is per process" in described, described
    assert "a waiting bot may take the CPU of the one deciding" in described  # said, not hidden
    assert available in described


def _isolated_level_where(hide: str, tmp_path: Path) -> tuple[str, str, str]:
    """What root's arena says of the isolated level in a mount namespace of the test's own where
    the shell command ``hide`` has hidden cgroup hierarchies: the level's mode ("unavailable"),
    why, and what starting an isolated bot says."""
    import shutil

    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare(1) to hide the cgroups from one process")
    script = ("from arena.isolation import launch, levels, probe\n"
              "from arena.isolation.limits import SandboxLimits\n"
              "try:\n"
              "    print(probe.support().mode)\n"
              "except levels.SandboxUnavailable as err:\n"
              "    print('unavailable')\n"
              "    print(str(err))\n"
              "try:\n"
              "    launch.Launch(SandboxLimits(), mode='isolated').cleanup()\n"
              "except OSError as err:\n"
              "    print('refused:', err.strerror)\n")
    proc = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c",
         hide + ' && exec "$0" -c "$1"', sys.executable, script],
        capture_output=True, text=True, timeout=60,
        env={**os.environ, "TMPDIR": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache"),
             "ARENA_ISOLATION": "isolated"})
    assert proc.returncode == 0, proc.stderr
    mode, described, refused = proc.stdout.splitlines()[:3]
    return mode, described, refused


def test_as_root_without_cgroups_bots_are_not_run_isolated(tmp_path):
    """Fail closed: with the cgroup hierarchies hidden (an empty tmpfs over /sys/fs/cgroup, in a
    mount namespace of the test's own), root's arena refuses the isolated level, says what is
    missing, and refuses to start an isolated bot without a cgroup."""
    mode, described, refused = _isolated_level_where("mount -t tmpfs none /sys/fs/cgroup",
                                                     tmp_path)
    assert mode == "unavailable"
    assert "cannot cap each bot's memory and processes as a whole" in described
    assert "cgroup v1: /sys/fs/cgroup/memory" in described and "cannot be found" in described
    assert "--isolation" in described  # the opt-in is named
    assert refused.startswith("refused: cannot cap the bot's memory and processes")


def test_as_root_without_the_cpu_controller_bots_are_not_run_isolated(tmp_path):
    """Fail closed on the CPU share too: with the memory and pids hierarchies there but the cpu
    one unmounted, the isolated level is refused and the missing controller named (a waiting bot
    could otherwise take its opponent's decision time, test below)."""
    mounts = cgroups._mounts()
    if "cpu" not in mounts or not {"memory", "pids"} <= set(mounts):
        pytest.skip("needs cgroup v1 memory, pids and cpu hierarchies to unmount one of them")
    mode, described, refused = _isolated_level_where(f"umount {mounts['cpu'][0]}", tmp_path)
    assert mode == "unavailable"
    assert "nor keep a waiting bot off the CPU of the one deciding" in described
    assert "cgroup v1 has no hierarchy mounted for the cpu controller" in described, described
    assert refused.startswith("refused: cannot cap the bot's memory and processes, nor its share")


_PINNED_MATCH = """
import json, os, sys
from pathlib import Path
if sys.argv[6:]:  # a cpu cgroup to play in, before anything starts: its bots' cgroups go below it
    open(sys.argv[6] + '/cgroup.procs', 'w').write(str(os.getpid()))
os.sched_setaffinity(0, {int(sys.argv[1])})  # before the zygote: every bot inherits it
from arena.match.bot_process import Limits
from arena.game import profile
from arena.match.referee import BotSpec, MatchConfig, run_match
spinners, folder, bot, tag = int(sys.argv[2]), Path(sys.argv[3]), sys.argv[4], sys.argv[5]
bots = [BotSpec("spin", (sys.executable, bot, "spin", str(spinners), tag)),
        BotSpec("work", (sys.executable, bot, "work", "20", tag))]
config = MatchConfig(rules=profile("sixty_six"), seed=5, match_id="cpu", max_deals=2,
                     limits=Limits(decision_ms=10_000, startup_ms=10_000))
result = run_match(bots, config, record_path=folder / "m.jsonl", log_dir=folder / "logs")
events = [json.loads(line) for line in (folder / "m.jsonl").read_text().splitlines()]
answers = [e["ms"] for e in events if e.get("type") == "action" and e["seat"] == 1]
print(result.reason, len(answers), min(answers))
"""


@contextlib.contextmanager
def _heaviest_cpu_cgroup() -> Iterator[list[str]]:
    """On cgroup v1, a cpu cgroup of the highest weight below this process's, for a subprocess to
    move into ([its path]); elsewhere [] (v2 forbids processes beside child cgroups)."""
    if cgroups.layout().version != 1:
        yield []
        return
    heavy = cgroups.layout().parents[-1] / f"test-heavy-{os.getpid()}"
    heavy.mkdir()
    try:
        (heavy / "cpu.shares").write_text("262144")  # the kernel's largest
        yield [str(heavy)]
    finally:
        for _ in range(50):  # the subprocess has exited; its cgroup entry may linger a moment
            try:
                heavy.rmdir()
                break
            except OSError:
                time.sleep(0.02)


@needs_cgroups
def test_a_waiting_bot_cannot_take_its_opponents_decision_time(launch_path, tmp_path):
    """A bot whose 8 children spin (each in a session of its own) on the one core its opponent
    also has: the opponent, which spends 20 ms of CPU per decision, decides about as fast as
    against a bot that spins nothing, measured the same way in the same test: 23.7 ms and 23.7 ms
    (medians). With the spinner's cgroup at the normal weight throughout, it took half the core
    (43.9 ms against 23.8); before bots had a cpu cgroup, its children, out of its session, took
    nearly all (116 ms against 24, with 4 spinners). The spinners slow every decision, other
    programs on a busy machine (the rest of the suite) only some: each match's fastest decision
    is compared, which such load leaves alone. Another arena's worker kept to the same core
    leaves no decision alone, so on cgroup v1 both matches play in a cpu cgroup of the highest
    weight: what else runs on the core takes little from either."""
    core = str(max(os.sched_getaffinity(0)))
    fastest = []
    with _heaviest_cpu_cgroup() as heavy:
        for spinners in (0, 8):
            folder = tmp_path / f"spin{spinners}"
            folder.mkdir()
            proc = subprocess.run([sys.executable, "-c", _PINNED_MATCH, core, str(spinners),
                                   str(folder), str(CPU_BOT), TAG, *heavy],
                                  capture_output=True, text=True, timeout=120)
            assert proc.returncode == 0, proc.stderr
            reason, answers, least = proc.stdout.split()
            assert reason == "deal_limit" and int(answers) >= 10, proc.stdout
            fastest.append(float(least))
    alone, beside_spinners = fastest
    assert beside_spinners < 1.5 * alone, fastest
    assert tagged_processes() == []  # the spinners ended with their match


@needs_cgroups
def test_a_cgroup_removed_by_another_process_is_not_an_error_to_weigh():
    """Only an empty cgroup can be removed, so its bot has ended: raising or lowering its weight
    then has nothing to do (the suite once saw a referee's last raise, for its bots' exit, fail
    with ENODEV on a cgroup another test's sweep had removed)."""
    group = cgroups.BotCgroup(64, 8, cores=1)
    try:
        group.asked(True)
        for path in group.paths:
            path.rmdir()  # empty: no process ever joined it
        group.asked(False)
        group.asked(True)
    finally:
        assert group.remove()  # already gone: nothing left
    assert not any(path.exists() for path in group.paths)


# -- an emptied cgroup goes to the next bot (issue 34) ----------------------------------------------

def _join(group: cgroups.BotCgroup, code: str) -> subprocess.Popen[bytes]:
    """A process in ``group`` (every hierarchy) from its first instruction on, running ``code``
    once it reads a line."""
    proc = subprocess.Popen([sys.executable, "-c", f"import sys; sys.stdin.readline()\n{code}"],
                            stdin=subprocess.PIPE)
    for path in group.paths:
        (path / "cgroup.procs").write_text(str(proc.pid))
    return proc


def _fresh_pool(monkeypatch):
    monkeypatch.setattr(cgroups, "_idle", {})


@needs_cgroups
def test_a_kept_cgroup_counts_only_its_new_bots_caps(monkeypatch):
    """A cgroup's counters only grow (v1 cannot reset them): a bot that ran into pids.max and
    ended before the watcher saw it must not make the next bot in that cgroup forfeit for it."""
    _fresh_pool(monkeypatch)
    group = cgroups.take(64, 1, 1)  # pids.max: 1 + the launcher's 2
    forker = _join(group, "import os, time\nkids = []\nfor _ in range(6):\n    try:\n"
                          "        kids.append(os.fork())\n    except OSError:\n        continue\n"
                          "    if kids[-1] == 0:\n        time.sleep(0.5); os._exit(0)\n"
                          "for k in kids: os.waitpid(k, 0)\n")
    forker.communicate(b"go\n", timeout=30)
    assert group.exceeded()  # the forks it was refused: counted
    assert cgroups.give_back(group)  # empty, never killed: kept
    again = cgroups.take(64, 1, 1)
    try:
        assert again is group  # the same cgroup: not made again
        assert again.exceeded() == "" and again._counts() == (0, 0)
    finally:
        again.remove()


@needs_cgroups
def test_a_kept_cgroup_gets_its_limits_again(monkeypatch):
    """A bot of the namespaces level owns its cgroup's files and could raise its caps: the next
    bot gets the limits it was given, not what the last one left."""
    _fresh_pool(monkeypatch)
    group = cgroups.take(64, 8, 1)
    pids = group.paths[0 if group.layout.version == 2 else 1] / "pids.max"
    assert pids.read_text().strip() == "10"
    assert cgroups.give_back(group)
    pids.write_text("max")
    again = cgroups.take(64, 8, 1)
    try:
        assert again is group and pids.read_text().strip() == "10"
    finally:
        again.remove()


@needs_cgroups
def test_a_cgroup_with_a_process_in_it_is_never_handed_on(monkeypatch):
    """Kept only when empty, and handed on only if still empty: a process in it (the last bot's
    straggler, one that joined it while kept) never meets the next bot; and one cgroup is never
    handed to two bots."""
    _fresh_pool(monkeypatch)
    group = cgroups.take(64, 8, 1)
    sleeper = _join(group, "")
    try:
        assert not cgroups.give_back(group)  # not empty: the caller removes it
        sleeper.communicate(b"go\n", timeout=30)
        assert cgroups.give_back(group)
        joined = _join(group, "")  # joins it while it is kept
        other = cgroups.take(64, 8, 1)
        assert other is not group and not set(other.paths) & set(group.paths)
        assert joined.wait(timeout=10) == -signal.SIGKILL  # the kept cgroup went, with it
        assert not any(path.exists() for path in group.paths)
        assert cgroups.give_back(other)
        first, second = cgroups.take(64, 8, 1), cgroups.take(64, 8, 1)
        assert first is other and second is not other  # one bot each
        for made in (first, second):
            made.remove()
    finally:
        sleeper.kill()
        sleeper.wait()
        group.kill()
        group.remove()
