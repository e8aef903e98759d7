"""Where a match's time goes, for ``scripts/bench_tournament.py`` (issue 34): the set-up of the
bots' sandboxes, their start, the referee's play, the teardown, and the coordinator's store.

Off unless ``ARENA_PHASES`` names a file. Then each match, in whichever worker plays it, appends
one JSON line of its phases in milliseconds, and the coordinator one line per commit. The switch
is read once per match (``clock()``), never on a decision's path; the bot processes time their
own start and end (``BotProcess.times``) with two clock reads a phase, too few to matter.
One ``write`` of a line shorter than a pipe's buffer to an ``O_APPEND`` file: the lines of two
workers do not interleave.
"""

from __future__ import annotations

import json
import os
import time
from typing import Iterable, Mapping

ENV = "ARENA_PHASES"

# A match's phases, in the order they happen (a bot's own ones are summed over its seats).
SANDBOX_SETUP = "sandbox set-up"   # its folder, uid lease, cgroup (Sandbox())
SPAWN = "bot spawn"                # the zygote's fork or the exec of the launcher
READY = "bot ready"                # from the spawns to the last bot's ready line
PLAY = "play"                      # the referee's play, as MatchResult.play_ms
TEARDOWN = "teardown"              # from the result to every bot gone and its sandbox removed
EXIT = "teardown: bot exit"        # stdin closed until the process was waited for
FINISH = "teardown: sandbox empty"  # the launcher's report, the namespace's PID 1 gone
REMOVE = "teardown: sandbox removal"  # folder, lease, cgroup (Sandbox.close)
STORE = "store"                    # the coordinator's commit, per match


class Clock:
    """One match's phases, each the time since the previous ``lap``."""

    def __init__(self, path: str):
        self.path = path
        self.ns: dict[str, int] = {}
        self._last = time.perf_counter_ns()

    def lap(self, phase: str) -> None:
        now = time.perf_counter_ns()
        self.ns[phase] = self.ns.get(phase, 0) + now - self._last
        self._last = now

    def add(self, times: Iterable[Mapping[str, int]]) -> None:
        """The bots' own phases (``BotProcess.times``), summed over the seats."""
        for one in times:
            for phase, ns in one.items():
                self.ns[phase] = self.ns.get(phase, 0) + ns

    def write(self, **extra: object) -> None:
        write(self.path, {**{k: v / 1e6 for k, v in self.ns.items()}, **extra})


def clock() -> Clock | None:
    """A clock for this match when the benchmark asked for one, else None."""
    path = os.environ.get(ENV)
    return Clock(path) if path else None


def write(path: str, line: Mapping[str, object]) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        os.write(fd, (json.dumps(line) + "\n").encode())
    finally:
        os.close(fd)


def read(path: str) -> list[dict[str, float]]:
    """The lines written so far (the benchmark's side)."""
    try:
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []
