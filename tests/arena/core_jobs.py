"""The job function for ``test_pool_cores.py``: a spawned worker imports it by this module's name
(``tests/arena`` is on the path the pool hands its workers)."""

from __future__ import annotations

import os
import subprocess


def cores(job: int) -> tuple[int, list[int], str]:
    """The worker's PID, its cores, and the cores a process it starts may use (as the kernel
    lists them: what a bot started by the worker or its zygote inherits)."""
    child = subprocess.run(["cat", "/proc/self/status"], capture_output=True, text=True,
                           check=True).stdout
    allowed = next(line.split(":", 1)[1].strip() for line in child.splitlines()
                   if line.startswith("Cpus_allowed_list:"))
    return os.getpid(), sorted(os.sched_getaffinity(0)), allowed
