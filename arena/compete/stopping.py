"""Stopping a long command on SIGINT or SIGTERM: ``stop_on_signals`` and the ``Stopped`` it raises.

Tournaments, leagues, SPRT runs, submissions, conformance checks and the served report run until
they finish, or until a person presses Ctrl-C or a supervisor (the web site's upload queue, a
service manager) sends SIGTERM. Left to Python, SIGTERM ends the process at once: no ``finally``
runs, so bot processes, temporary folders and waiting commits are left behind. Inside
``stop_on_signals`` both signals raise ``Stopped`` in the main thread instead, once, and the
command unwinds as it would from an error: its clean-up runs, and it exits with the status a
shell reports for the signal (``Stopped.exit_code``).
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Protocol


class Stopped(BaseException):
    """SIGINT or SIGTERM ended the command (like ``KeyboardInterrupt``, not an ``Exception``, so
    that no ``except Exception`` swallows it). A run's matches in flight were dropped; what it
    stored is whole. ``done`` and ``total``: the run's progress, when it has one."""

    def __init__(self, signum: int, done: int = 0, total: int = 0, out: Path | None = None):
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.signum = signum
        self.done = done
        self.total = total
        self.out = out

    @property
    def exit_code(self) -> int:
        return 128 + self.signum  # what a shell reports for a process ended by the signal


class _Counted(Protocol):
    """How far a run got (``tournament.Progress``), for the message a stop prints."""

    done: int
    total: int


class StopState:
    """What the signal handler reports: the run's progress and folder, once there are any."""

    progress: _Counted | None = None
    out: Path | None = None
    fired = False
    holding = False         # in a held_off() block: a signal waits for its end
    held: int | None = None  # the signal that waits

    @contextmanager
    def held_off(self) -> Iterator[None]:
        """A block that a stop signal does not cut in two: the signal takes effect at its end."""
        if self.holding:
            yield
            return
        self.holding = True
        try:
            yield
        finally:
            self.holding = False
        if self.held is not None:
            signum, self.held = self.held, None
            self.raise_stopped(signum)

    def raise_stopped(self, signum: int) -> None:
        p = self.progress
        raise Stopped(signum, p.done if p else 0, p.total if p else 0, self.out)


@contextmanager
def stop_on_signals() -> Iterator[StopState]:
    """SIGINT and SIGTERM raise ``Stopped`` in the main thread, once: a second signal while the
    command cleans up is ignored, so the clean-up (ending workers and bots, closing the store,
    removing temporary folders) always finishes. Outside the main thread (a library caller's
    thread) signals are left as they are."""
    state = StopState()
    if threading.current_thread() is not threading.main_thread():
        yield state
        return

    def handler(signum: int, frame: object) -> None:
        if state.fired:
            return
        state.fired = True
        if state.holding:
            state.held = signum
            return
        state.raise_stopped(signum)

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield state
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
