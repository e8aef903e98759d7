"""A command sent a signal at a chosen moment: SIGTERM, for the tests that check it unwinds cleanly;
SIGKILL, for those that check what the next command finds."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from typing import Callable, Mapping, Sequence


def signal_when(argv: Sequence[str], env: Mapping[str, str], ready: Callable[[], bool],
                sig: int = signal.SIGTERM) -> tuple[int, str, str]:
    """Run ``argv`` in a session of its own, send its process ``sig`` once ``ready()`` holds (the
    moment under test: a folder filled, a match begun), and return its exit status, stdout and
    stderr. Fails if it ends before that moment or not within 60 s of the start and 30 s of the
    signal; its whole process group is killed then."""
    proc = subprocess.Popen(list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(env), start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not ready():
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.02)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    return proc.returncode, out, err
