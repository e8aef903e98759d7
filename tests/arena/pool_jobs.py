"""The job function for tests of ``arena.compete.pool``: a spawned worker imports it by this module's name
(``tests/arena`` is on the path the pool hands its workers)."""

from __future__ import annotations

import os


def play(job: int | tuple[str, int]) -> int:
    """A number: twice it. (marker, n): n, but job 0 kills its worker the first time it is played
    (the marker file says whether it was)."""
    if isinstance(job, int):
        return job * 2
    marker, value = job
    if value == 0 and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(9)
    return value


def play_or_die(job: tuple[str | None, int, int]) -> int:
    """(marker, value, poison): value, but the job whose value is ``poison`` kills its worker: the
    first time only with a marker file, every time without one (marker None)."""
    marker, value, poison = job
    if value == poison and (marker is None or not os.path.exists(marker)):
        if marker is not None:
            open(marker, "w").close()
        os._exit(9)
    return value


def nap(job: float) -> float:
    """Sleeps ``job`` seconds (at least): a job whose length is known from below."""
    import time

    time.sleep(job)
    return job


def timed(job: tuple[int, float]) -> tuple[int, int, float, float]:
    """(key, seconds): sleeps that long; returns (key, this worker's pid, start, end) in wall-clock
    seconds."""
    import time

    key, seconds = job
    start = time.time()
    time.sleep(seconds)
    return key, os.getpid(), start, time.time()
