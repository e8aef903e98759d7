"""What every test shares: the sandbox level the suite's bots run at, chosen once, and a check that
no test changes it for the tests after it.

The arena refuses to run bots below the level asked for (default ``isolated``, which needs root).
The suite runs its bots, the arena's own and its test fixtures, at the strongest level the machine
gives unless ``ARENA_ISOLATION`` says otherwise; tests that need a level skip without it
(``test_sandbox*.py``). This file is loaded by pytest's main process before it starts the xdist
workers, so the level is probed once and every worker inherits it: probed in each worker, one
worker on a loaded machine could end up at another level than the rest.
"""

from __future__ import annotations

import os
from typing import Iterator

import pytest

from arena.isolation import levels, probe
from arena.isolation.limits import PER_PROCESS_ENV
from sandbox_level import Asked

_CHOSEN_BY = "the environment"
if not os.environ.get(levels.ISOLATION_ENV) and not os.environ.get("ARENA_SANDBOX"):
    os.environ[levels.ISOLATION_ENV] = probe.best_level()
    _CHOSEN_BY = "the strongest this machine gives"
# As a normal user without a cgroup per bot, `namespaces` refuses a memory_mb it cannot hold as a
# bot's total unless told a cap per process will do (issue 29): the suite's bots are the arena's
# own, its fixtures and the kits' bots (whose runtimes' flags are there for that cap), and the
# tests that mean the caps say which they need. The refusal itself is tested with a clean
# environment (test_namespaces_without_a_cgroup_refuses_...).
os.environ.setdefault(PER_PROCESS_ENV, "1")


def pytest_report_header() -> str:
    level = os.environ.get(levels.ISOLATION_ENV) or "limits (ARENA_SANDBOX)"
    return f"bots run at the sandbox level: {level} ({_CHOSEN_BY})"


@pytest.fixture(autouse=True)
def _sandbox_level_unchanged() -> Iterator[None]:
    """Fails the test that leaves another sandbox level asked for than it found
    (``sandbox_level.py`` says how that happened), after putting it back, so that only the
    culprit fails and not every test after it in the same worker."""
    before = Asked.now()
    yield
    after = Asked.now()
    if after != before:
        before.restore()
        pytest.fail(f"this test changed the sandbox level asked for, from {before} to {after}: "
                    "run the command inside sandbox_level.kept()")
