"""Hostile bots against the sandbox: each ends in its documented forfeit, and leaves nothing behind.

Every bot is a real process (``fixtures/bad_bot.py``). The dangerous ones (fork bomb, memory hog,
huge file) check for themselves that the limit they would run into is in place, and hang instead
if it is not, so a broken sandbox fails these tests without hurting the machine.
"""

from __future__ import annotations

import os
import socket
import sys
import time
import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from arena.bot_process import BotFault, BotProcess, Limits
from arena.bot_specs import resolve_bot
from arena.game import profile
from arena.referee import BotSpec, MatchConfig, run_match
from arena.sandbox import UID_BASE, UID_COUNT, SandboxLimits, support

BAD_BOT = Path(__file__).parent / "fixtures" / "bad_bot.py"
TAG = uuid.uuid4().hex  # marks this module's bots (and everything they fork) in /proc
TIGHT = SandboxLimits(cpu_s=5, memory_mb=512, processes=32, file_mb=8, open_files=64)
LIMITS = Limits(decision_ms=500, startup_ms=5000, sandbox=TIGHT)

isolated = pytest.mark.skipif(support().mode != "isolated",
                              reason=f"needs the full sandbox (root on Linux): {support().reason}")
namespaces = pytest.mark.skipif(support().mode == "limits",
                                reason=f"needs Linux namespaces: {support().reason}")


def tagged_processes() -> list[tuple[int, str]]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if TAG.encode() in cmdline:
            found.append((int(entry), cmdline.replace(b"\0", b" ").decode(errors="replace")))
    return found


def sandbox_user_processes() -> list[int]:
    """Processes running as one of the sandbox's user ids."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            uid = os.stat(f"/proc/{entry}").st_uid
        except OSError:
            continue
        if UID_BASE <= uid < UID_BASE + UID_COUNT:
            found.append(int(entry))
    return found


@pytest.fixture(scope="module", autouse=True)
def nothing_left_behind():
    yield
    assert tagged_processes() == []


def bad(mode: str, *extra: str) -> BotSpec:
    return BotSpec(f"bad-{mode}", (sys.executable, str(BAD_BOT), mode, TAG, *extra))


def play(bots, tmp_path: Path, limits: Limits = LIMITS, seed: int = 3):
    config = MatchConfig(rules=profile("sixty_six"), seed=seed, match_id="h", limits=limits)
    return run_match(bots, config, record_path=tmp_path / "m.jsonl", log_dir=tmp_path / "logs")


# mode, fault, words of the detail, words of the bot's stderr log: the documented forfeit of each
# hostile bot (README, "Hostile bots").
HOSTILE = [
    ("loop", "timeout", "no answer within 500 ms", ""),
    ("hang", "timeout", "no answer within 500 ms", ""),
    ("exit_at_start", "exit", "exited with status 3", ""),
    ("exit_mid_deal", "exit", "exited with status 0", ""),
    ("garbage", "malformed", "UTF-8", ""),
    ("no_newline", "timeout", "5 bytes of an unfinished line", ""),
    ("stdout_burst", "malformed", "", ""),
    ("stderr_endless", "timeout", "no answer within 500 ms", "eeee"),
    pytest.param("fork_bomb", "timeout", "no answer within 500 ms", "", marks=isolated),
    ("memory_hog", "exit", "exited with status 1", "MemoryError"),
    ("orphan", "exit", "exited with status 0", ""),
    # Python ignores SIGXFSZ, so the write fails instead (a C bot is killed: see below).
    ("huge_file", "exit", "exited with status 1", "File too large"),
]


@pytest.mark.parametrize("mode,fault,detail,stderr", HOSTILE)
def test_a_hostile_bot_forfeits_and_leaves_nothing(tmp_path, mode, fault, detail, stderr):
    # A bot that should time out gets a short limit; the others a long one, so that a loaded
    # machine cannot turn their fault into a timeout.
    limits = LIMITS if fault == "timeout" else replace(LIMITS, decision_ms=5000)
    result = play([bad(mode), resolve_bot("greedy")], tmp_path, limits)
    assert (result.reason, result.offender, result.fault) == ("forfeit", 0, fault), result.detail
    assert detail in result.detail
    assert stderr in (tmp_path / "logs" / "h.seat0.stderr.log").read_text(errors="replace")
    if support().mode != "limits":
        assert tagged_processes() == []  # checked at once: close() waits for the namespace to end


@pytest.mark.parametrize("command,detail", [
    ("exec head -c 100000000 /dev/zero > big", "killed by SIGXFSZ: file size limit of 8 MB"),
    ("while :; do :; done", "killed by SIGXCPU: CPU time limit of 1 s"),
])
def test_a_limit_that_kills_is_named(command, detail):
    limits = Limits(sandbox=SandboxLimits(cpu_s=1, file_mb=8))
    proc = BotProcess(["sh", "-c", command], limits)
    proc.start()
    try:
        with pytest.raises(BotFault) as caught:
            proc.read_line(10)
    finally:
        proc.close()
    assert caught.value.fault == "exit" and detail in caught.value.detail


def test_a_fork_bomb_is_held_at_the_process_limit(tmp_path):
    if support().mode != "isolated":
        pytest.skip(f"needs the full sandbox (root on Linux): {support().reason}")
    proc = BotProcess(bad("fork_bomb").argv, LIMITS)
    proc.start()
    try:
        proc.send("sixtysix 1")
        assert proc.read_line(5).startswith(b"ready")
        proc.send("lead? play:AS play:TS")
        time.sleep(0.5)  # the bomb has long reached the limit by now
        counts = [len(tagged_processes()) for _ in range(5)]
    finally:
        proc.close(grace_s=0)
    assert 1 < max(counts) <= TIGHT.processes + 2  # the bot's processes, plus the launcher's two
    assert tagged_processes() == [] and sandbox_user_processes() == []


def test_a_setsid_child_dies_with_the_bot_that_played_on(tmp_path):
    # The child leaves the process group, so killpg alone would miss it: the namespace does not.
    result = play([bad("orphan_quiet"), resolve_bot("greedy")], tmp_path)
    assert result.reason == "target"
    if support().mode == "limits":
        pytest.skip("without a PID namespace a setsid'd child outlives the match")
    assert tagged_processes() == []


@namespaces
def test_a_bot_has_no_network(tmp_path):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.settimeout(0.2)
        port = listener.getsockname()[1]
        result = play([bad("network", str(port)), resolve_bot("greedy")], tmp_path)
        with pytest.raises(TimeoutError):
            listener.accept()  # nobody came
    assert (result.fault, result.offender) == ("exit", 0)
    log = (tmp_path / "logs" / "h.seat0.stderr.log").read_text()
    assert "Network is unreachable" in log


def test_a_stdout_burst_costs_the_referee_no_memory(tmp_path):
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    play([bad("stdout_burst"), resolve_bot("greedy")], tmp_path)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 50 * 1024  # KiB


def test_an_endless_stderr_flood_keeps_one_mebibyte(tmp_path):
    play([bad("stderr_endless"), resolve_bot("greedy")], tmp_path)
    assert (tmp_path / "logs" / "h.seat0.stderr.log").stat().st_size < (1 << 20) + 200
