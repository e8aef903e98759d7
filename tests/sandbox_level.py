"""The sandbox level a test process asks for, kept as it was around code that may change it.

An ``arena`` command run in the test's own process (typer's ``CliRunner``) with ``--isolation``,
or ``arena demo``, which asks for the strongest level there is, asks for its level for the whole
process (``probe.set_isolation``: the module's choice and
``ARENA_ISOLATION``), as a command should: its workers inherit it. Left so, every later test in
that xdist worker ran its bots at that level: ``limits`` as root, or ``isolated``, which a normal
user does not have, so that tests failed or passed by which file a worker happened to run first.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

from arena.isolation import levels, probe


@dataclass(frozen=True)
class Asked:
    """What this process asks for: ``ARENA_ISOLATION`` and ``probe.set_isolation``'s choice."""

    env: str | None
    requested: str | None

    @staticmethod
    def now() -> Asked:
        return Asked(os.environ.get(levels.ISOLATION_ENV), probe._requested)

    def restore(self) -> None:
        """Ask for this again; the next ``probe.support()`` probes for it."""
        if self.env is None:
            os.environ.pop(levels.ISOLATION_ENV, None)
        else:
            os.environ[levels.ISOLATION_ENV] = self.env
        probe._requested = self.requested
        probe._support = None


@contextmanager
def kept() -> Iterator[Asked]:
    """Runs the block, then asks again for what was asked before it, if the block changed it."""
    before = Asked.now()
    try:
        yield before
    finally:
        if Asked.now() != before:
            before.restore()
