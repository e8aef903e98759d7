"""Session checks for the arena tests: no process a test started outlives the suite."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import pytest

from bot_procs import sandbox_user_processes, tagged_processes


@pytest.fixture(scope="session", autouse=True)
def no_bot_outlives_the_suite():
    yield
    deadline = time.monotonic() + 2  # the kernel may still be ending a namespace killed just now
    while (tagged_processes() or sandbox_user_processes()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert tagged_processes() == [], "hostile bot processes outlived the test session"
    assert sandbox_user_processes() == [], "processes of sandbox users outlived the test session"


RESULTS = Path(__file__).resolve().parents[2] / "results"


@pytest.fixture
def open_folder():
    """A folder anyone may enter, for files anyone may read: only the sandbox can protect them.
    It is not under /tmp (a bot has a /tmp of its own) but under results/ (git-ignored), which the
    tests that use it do not make the data folder."""
    RESULTS.mkdir(exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix="test-open-", dir=RESULTS))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path)
