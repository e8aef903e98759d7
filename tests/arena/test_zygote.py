"""Issue 18: Python bots forked from a pre-imported interpreter (arena/isolation/zygote.py) get everything the
exec path gives, and the zygote holds nothing a bot could use.

Real processes throughout: the zygote of this test process, ``fixtures/fork_probe.py`` as a
submitted ``python bot.py`` (it reports what it holds), bundled bots, a referee killed with
kill -9. The hostile bots and the isolation probes of test_sandbox.py and
test_sandbox_isolation.py run through both launch paths as well.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.isolation import launcher, zygote
from arena.match.bot_process import BotProcess, Limits
from arena.entrants.bot_specs import resolve_bot
from arena.isolation.limits import SandboxLimits
from arena.isolation.bot_folders import UID_BASE, UID_COUNT
from arena.isolation.probe import support
from bot_procs import TAG, tagged_processes

FIXTURES = Path(__file__).parent / "fixtures"
LIMITS = Limits(decision_ms=5000, startup_ms=10000, max_line_bytes=1 << 15,
                sandbox=SandboxLimits(cpu_s=20, memory_mb=1024, processes=32))

namespaced = pytest.mark.skipif(
    support().mode == "limits", reason=f"the zygote serves the namespaced levels: {support().reason}")
pytestmark = namespaced


@pytest.fixture(autouse=True)
def zygote_on(monkeypatch):
    monkeypatch.setenv(zygote.ENV, "1")


def start_probe(folder: Path, *extra: str) -> tuple[BotProcess, dict]:
    """The fork probe in its own folder, started and greeted: (the process, its report)."""
    import json

    folder.mkdir(exist_ok=True)
    shutil.copy(FIXTURES / "fork_probe.py", folder / "fork_probe.py")
    proc = BotProcess([sys.executable, "fork_probe.py", TAG, *extra], LIMITS, files=folder)
    proc.start()
    try:
        proc.send("sixtysix 1")
        return proc, json.loads(proc.read_line(20))
    except BaseException:
        proc.close()
        raise


def test_python_bots_are_forked_and_everything_else_is_exec_ed(monkeypatch):
    for name, forked in (("random", True), ("first-legal-c", False)):
        proc = BotProcess(list(resolve_bot(name).argv), LIMITS)
        proc.start()
        proc.send("sixtysix 1")
        assert proc.read_line(10).startswith(b"ready")
        assert proc.via_zygote is forked, name
        assert proc.close() == 0
    monkeypatch.setenv(zygote.ENV, "0")  # the baseline: every bot by exec
    proc = BotProcess(list(resolve_bot("random").argv), LIMITS)
    proc.start()
    proc.close()
    assert not proc.via_zygote


def test_a_zygote_told_its_bots_pre_imports_only_those_and_still_starts_any(tmp_path):
    """A tournament's worker tells its zygote the bots it will start (match_job.prepare_worker):
    the zygote pre-imports the bundled bots among them and no other (bots.strong alone is ~10 ms
    of its start), and a bundled bot it did not pre-import still starts from it, importing
    itself in its child as under exec."""
    from arena.game import profile
    from arena.match.referee import MatchConfig, run_match

    zygote.stop()  # this test's own zygote; the next test's first bot starts the usual one
    try:
        assert zygote.get([list(resolve_bot("greedy").argv), list(resolve_bot("first-legal-c")
                                                                  .argv)]) is not None
        probe, report = start_probe(tmp_path / "probe")
        probe.close()
        loaded = set(report["bots_preloaded"])
        assert probe.via_zygote and "bots.greedy_bot" in loaded, loaded
        assert not {m for m in loaded if m == "bots.random_bot" or m.startswith("bots.strong")}
        config = MatchConfig(rules=profile("sixty_six"), seed=3, match_id="z", max_deals=2,
                             limits=LIMITS)
        result = run_match([resolve_bot("strong"), resolve_bot("greedy")], config)
        assert result.reason == "deal_limit", result.detail
    finally:
        zygote.stop()
    zygote.get()
    probe, report = start_probe(tmp_path / "all")
    probe.close()
    assert {"bots.greedy_bot", "bots.random_bot", "bots.strong", "bots.strong.__main__"} <= \
        set(report["bots_preloaded"])  # not told: every bundled bot, as before


def test_a_zygote_child_holds_its_pipes_its_own_user_and_fresh_random_state(tmp_path):
    (first, a), (second, b) = start_probe(tmp_path / "a"), start_probe(tmp_path / "b")
    try:
        assert first.via_zygote and a["sdk_preloaded"]
        for report in (a, b):
            # The bot's own code ran only inside its sandbox, as its user: at its first line.
            assert report["at_import"] == {"uid": report["uid"], "own_root": True}
            assert report["fds"] == [0, 1, 2]  # not the zygote's socket, not the status pipe
            assert report["shared_writable"] == []  # nothing writable shared with anyone
            assert report["cwd"] == launcher.BOT_HOME
            assert set(report["env"]) <= {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL",
                                          "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE",
                                          "VIRTUAL_ENV"}
            assert report["pid1_cmdline"] == "sandbox"  # PID 1 names no path of the machine
            assert TAG in report["cmdline"] and report["argv"][0] == TAG
            assert max(report["pids"]) < 10  # its own PID namespace
            assert report["unix_sockets"] == []  # no socket in its network namespace at all
            # the launcher's library is mapped from a memfd, not from the hidden cache folder
            assert "/memfd:sandbox-launch" in report["maps"]
            assert "sixtysix-arena" not in report["maps"]
            if os.geteuid() == 0:
                assert UID_BASE <= report["uid"] < UID_BASE + UID_COUNT
                assert report["gid"] == report["uid"]
        assert a["uid"] != b["uid"] or os.geteuid() != 0  # two leases at once
        assert a["random"] != b["random"]
    finally:
        first.close()
        second.close()


def _zygote_process() -> subprocess.Popen[bytes]:
    z = zygote.get()
    assert z is not None, zygote.failure()
    return z.proc


def memory_holds(pid: int, needle: bytes) -> bool:
    """Whether ``needle`` is anywhere in the readable memory of process ``pid`` (we are root)."""
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", 0) as mem:
        for line in maps:
            span, perms = line.split()[:2]
            if not perms.startswith("r") or "[vsyscall]" in line or "[vvar" in line:
                continue
            start, end = (int(x, 16) for x in span.split("-"))
            mem.seek(start)
            try:
                if needle in mem.read(end - start):
                    return True
            except OSError:
                continue
    return False


@pytest.mark.skipif(os.geteuid() != 0, reason="reads another process's memory")
def test_the_zygote_holds_nothing_of_a_bot_and_no_socket_a_bot_could_name(tmp_path):
    token = f"secret-{os.getpid()}-{time.time_ns()}"
    proc, report = start_probe(tmp_path / "bot", token)
    try:
        assert report["argv"] == [TAG, token]
        pid = _zygote_process().pid
        # No argument of a bot passes through the zygote's memory: the child reads its own.
        assert not memory_holds(pid, token.encode())
        # And the bot's memory keeps nothing of what its launcher was told (its folder on the
        # host, named with the referee's PID): read into C memory, wiped before the bot ran.
        bot = [p for p, cmd in tagged_processes() if token in cmd]
        assert len(bot) == 1
        folder = proc._sandbox._launch._base  # type: ignore[union-attr]
        assert memory_holds(bot[0], token.encode())  # the control: its own argv is there
        assert not memory_holds(bot[0], os.path.basename(folder).encode())
        # Started by exec with the bots' minimal environment, not forked from this referee.
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        assert {e.split(b"=", 1)[0] for e in environ if e} <= {
            b"PATH", b"HOME", b"TMPDIR", b"LANG", b"LC_ALL", b"PYTHONUNBUFFERED",
            b"PYTHONDONTWRITEBYTECODE", b"VIRTUAL_ENV"}
        assert b"zygote.py" in Path(f"/proc/{pid}/cmdline").read_bytes()
        # Its sockets have no name: nothing to connect to, in any namespace.
        inodes = set()
        for fd in os.listdir(f"/proc/{pid}/fd"):
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
        assert inodes
        named = [line for line in Path("/proc/net/unix").read_text().splitlines()[1:]
                 if line.split()[6] in inodes and len(line.split()) > 7]
        assert named == []
    finally:
        proc.close()


def test_a_zygote_child_is_killed_reaped_and_its_status_reported(tmp_path):
    bad = FIXTURES / "bad_bot.py"
    proc = BotProcess([sys.executable, str(bad), "hang", TAG], LIMITS)
    proc.start()
    assert proc.via_zygote
    proc.send("sixtysix 1")
    assert proc.read_line(10).startswith(b"ready")
    proc.send("play? play:AS")  # it never answers, nor exits: killed at the end of its grace
    pid = proc.pid
    assert pid is not None
    assert proc.close(grace_s=0.1) == -signal.SIGKILL
    assert not Path(f"/proc/{pid}").exists() or "Z" not in Path(f"/proc/{pid}/stat").read_text()
    assert [p for p, _ in tagged_processes() if p != os.getpid()] == []
    assert proc.child_cpu_s() > 0  # reaped by the zygote with wait4: its rusage came back
    proc = BotProcess([sys.executable, str(bad), "exit_at_start", TAG], LIMITS)
    proc.start()
    assert proc.close() == 3  # the bot's own exit status, as the launcher reported it


def test_a_malformed_request_ends_its_child_before_any_sandbox_and_the_zygote_serves_on():
    # The child's C code (sandbox_enter_from) reads its own request after the fork: one it
    # cannot parse ends that child with 126, nothing built, nothing run; the zygote is unharmed.
    import socket

    z = zygote.get()
    assert z is not None
    pipes = [os.pipe() for _ in range(4)]
    control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        control.sendall(b"not a size at all\n")
        with z._lock:
            socket.send_fds(z._sock, [b"spawn"], [pipes[0][0], pipes[1][1], pipes[2][1],
                                                   pipes[3][1], theirs.fileno()])
            msg, fds, _, _ = socket.recv_fds(z._sock, 64, 1)
        assert int(msg) > 0 and len(fds) == 1
        os.close(fds[0])
        theirs.close()
        control.settimeout(10)
        said = b""
        while not said.endswith(b"\n"):
            chunk = control.recv(256)
            assert chunk, "the zygote closed the control socket without a status"
            said += chunk
        assert said.split()[0] == b"126"
    finally:
        control.close()
        theirs.close()
        for r, w in pipes:
            for fd in (r, w):
                try:
                    os.close(fd)
                except OSError:
                    pass
    proc = BotProcess(resolve_bot("random").argv, LIMITS)
    proc.start()
    try:
        assert proc.via_zygote
        proc.send("sixtysix 1")
        assert proc.read_line(10).startswith(b"ready")
    finally:
        proc.close()


def test_without_a_zygote_bots_start_by_exec_and_the_log_says_why(monkeypatch, caplog):
    zygote.stop()

    def broken() -> bytes:
        raise OSError("no library here")
    monkeypatch.setattr(launcher, "launcher_library_bytes", broken)
    try:
        with caplog.at_level(logging.WARNING, logger="arena.isolation.zygote"):
            proc = BotProcess(list(resolve_bot("random").argv), LIMITS)
            proc.start()
            proc.send("sixtysix 1")
            assert proc.read_line(10) == b"ready random"
            proc.close()
        assert not proc.via_zygote
        assert "bots start by exec" in caplog.text and "no library here" in caplog.text
    finally:
        zygote.stop()  # the next test may have one again


def test_a_zygote_that_died_is_replaced_and_the_log_says_so(caplog):
    first = _zygote_process()
    first.kill()
    first.wait()
    with caplog.at_level(logging.WARNING, logger="arena.isolation.zygote"):
        proc = BotProcess(list(resolve_bot("greedy").argv), LIMITS)
        proc.start()
        proc.send("sixtysix 1")
        assert proc.read_line(10) == b"ready greedy"
        proc.close()
    assert proc.via_zygote and _zygote_process().pid != first.pid
    assert "exited or stopped answering: starting another" in caplog.text


@pytest.mark.slow
def test_the_zygote_and_its_children_die_with_a_referee_killed_with_kill_9(tmp_path):
    script = (f"import sys, time; from arena.match.bot_process import BotProcess, Limits\n"
              f"p = BotProcess([sys.executable, {str(FIXTURES / 'bad_bot.py')!r}, 'hang', "
              f"{TAG!r}], Limits()); p.start(); print(p.via_zygote, flush=True); time.sleep(60)\n")
    referee = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                               env={**os.environ, zygote.ENV: "1", "TMPDIR": str(tmp_path)})
    try:
        assert referee.stdout is not None
        assert referee.stdout.readline().strip() == b"True"
        children = Path(f"/proc/{referee.pid}/task/{referee.pid}/children").read_text().split()
        zygotes = [int(c) for c in children
                   if b"zygote.py" in Path(f"/proc/{c}/cmdline").read_bytes()]
        assert len(zygotes) == 1
        # The bot itself, once its command line is its own (start() returns before that); the
        # referee's command line holds the same words (this script), so it is not counted.
        bot = f"{sys.executable} {FIXTURES / 'bad_bot.py'} hang"
        deadline = time.monotonic() + 30
        while not any(cmd.startswith(bot) for _, cmd in tagged_processes()):
            assert time.monotonic() < deadline, f"no bot: {tagged_processes()}"
            time.sleep(0.02)
    finally:
        referee.send_signal(signal.SIGKILL)
        referee.wait()
    deadline = time.monotonic() + 3
    while (tagged_processes() or Path(f"/proc/{zygotes[0]}").exists()) and \
            time.monotonic() < deadline:
        time.sleep(0.02)
    assert tagged_processes() == []
    assert not Path(f"/proc/{zygotes[0]}").exists() or \
        re.search(r"\) [ZX] ", Path(f"/proc/{zygotes[0]}/stat").read_text())


@pytest.mark.parametrize("source", [None, "def f():\n    raise ValueError('boom')\n\n\nf()\n"])
def test_a_failing_script_says_the_same_on_both_paths(tmp_path, monkeypatch, source):
    """Found by test_tournament_robust: a missing ``mybot.py`` showed the zygote's traceback,
    where ``python mybot.py`` says "can't open file" and exits 2."""
    script = tmp_path / ("bot.py" if source else "missing") / "bot.py"
    if source:
        script.parent.mkdir()
        script.write_text(source)
    said = {}
    for path in ("1", "0"):
        monkeypatch.setenv(zygote.ENV, path)
        log = tmp_path / f"stderr{path}.log"
        proc = BotProcess([sys.executable, str(script)], LIMITS, stderr_log=log)
        proc.start()
        assert proc.via_zygote is (path == "1")
        said[path] = (proc.close(), log.read_text())
    assert said["1"] == said["0"]
    assert said["1"][0] == (1 if source else 2)


_GREET_FROM_A_COPY = """
import json, sys
sys.path.insert(0, sys.argv[1])  # the copy's code first, as bench_tournament.py's baseline runner
from arena.entrants.bot_specs import resolve_bot
from arena.match.bot_process import BotProcess, Limits
from arena.isolation import zygote
from arena.isolation.limits import SandboxLimits

limits = Limits(decision_ms=5000, startup_ms=10000, max_line_bytes=1 << 15,
                sandbox=SandboxLimits(cpu_s=20, memory_mb=1024, processes=32))
proc = BotProcess(list(resolve_bot("random").argv), limits)
proc.start()
try:
    proc.send("sixtysix 1")
    print(json.dumps([proc.read_line(20).decode(), proc.via_zygote, zygote.__file__]))
finally:
    proc.close()
    zygote.stop()
"""


@pytest.mark.parametrize("forked", [True, False], ids=["zygote", "exec"])
def test_a_second_tree_run_with_this_venv_starts_its_own_bots_on_both_paths(tmp_path, forked):
    """A copy of the tree run with this checkout's interpreter (an A/B benchmark's baseline) runs
    the copy's bots whether it forks or execs them: the zygote once imported the bots, the SDK and
    the engine from the tree the venv's editable install names."""
    copy = tmp_path / "tree"
    root = Path(__file__).resolve().parents[2]
    for package in ("arena", "protocol", "bots"):
        shutil.copytree(root / package, copy / package,
                        ignore=shutil.ignore_patterns("__pycache__", "build", "target"))
    bot = copy / "bots" / "random_bot.py"
    bot.write_text(bot.read_text().replace('name = "random"', 'name = "random-of-the-copy"', 1))
    env = {**os.environ, zygote.ENV: "1" if forked else "0"}
    out = subprocess.run([sys.executable, "-c", _GREET_FROM_A_COPY, str(copy)], cwd=copy, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    import json

    ready, via_zygote, zygote_file = json.loads(out.stdout.strip().splitlines()[-1])
    assert Path(zygote_file).resolve().is_relative_to(copy.resolve())
    assert via_zygote is forked
    assert ready == "ready random-of-the-copy"
