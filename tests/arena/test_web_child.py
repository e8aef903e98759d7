"""``python -m arena.web.child``: the server's children are sent SIGTERM when it dies, however it
dies (web/child.py). The server itself killed with kill -9 is test_web_serve.py's."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="PR_SET_PDEATHSIG is Linux's")

ROOT = Path(__file__).resolve().parents[2]


def test_a_child_is_sent_sigterm_when_its_parent_is_killed_with_kill_9(tmp_path):
    told = tmp_path / "told"
    child = ("import signal, sys, time\n"
             f"signal.signal(signal.SIGTERM, lambda *a: (open({str(told)!r}, 'w').close(), "
             "sys.exit(0)))\n"
             "print('ready', flush=True)\n"
             "time.sleep(60)\n")
    parent = ("import subprocess, sys, time\n"
              "from arena.web.child import guarded\n"
              "kid = subprocess.Popen(guarded([sys.executable, '-c', sys.argv[1]]),\n"
              "                       stdout=subprocess.PIPE, text=True)\n"
              "assert kid.stdout.readline() == 'ready\\n'\n"
              "print(kid.pid, flush=True)\n"
              "time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", parent, child], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        kid = int(proc.stdout.readline())
        assert not told.exists()
        proc.kill()
        proc.wait(10)
        deadline = time.monotonic() + 10
        while not told.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert told.exists(), "the child was not told its parent died"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    deadline = time.monotonic() + 10
    while Path(f"/proc/{kid}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(f"/proc/{kid}").exists()


def test_a_child_whose_parent_is_already_gone_never_runs_its_program(tmp_path):
    """Here the parent named is not ours (this test is): as if it had died before the request."""
    ran = tmp_path / "ran"
    done = subprocess.run([sys.executable, "-m", "arena.web.child", str(os.getpid() + 1),
                           sys.executable, "-c", f"open({str(ran)!r}, 'w').close()"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == -signal.SIGTERM, done.stderr
    assert not ran.exists()


@pytest.mark.parametrize("argv", [[], ["123"], ["abc", "/bin/true"]])
def test_a_wrong_command_line_says_how_to_call_it(argv):
    done = subprocess.run([sys.executable, "-m", "arena.web.child", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip() == "usage: python -m arena.web.child PARENT PROGRAM [ARG...]"
