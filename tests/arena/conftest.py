"""Fixtures shared by the arena tests: the session check that no process a test started outlives
the suite, a folder anyone may read, the tournament folders of the report's tests (a real one,
and a synthetic one of thirty bots), and one headless chromium a file for the browser tests."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

import pytest

import synthetic_store
from browser import Browser, launched
from arena.compete.tournament import load_config, run_tournament
from bot_procs import ENV_TAG, TAG, processes_of

# Every process the suite starts inherits the tag (bots get the sandbox's environment instead, and
# are found through their referee): the check below then sees this session's processes only, not
# those of another arena running on the machine.
os.environ[ENV_TAG] = TAG


BAD_BOT = Path(__file__).parent / "fixtures" / "bad_bot.py"
OPEN = Path(__file__).resolve().parents[2] / ".test-open"


def _left_over() -> list[tuple[int, str]]:
    """This session's processes, less multiprocessing's resource tracker: a spawned pool starts
    one per process that ends with it (the tests run tournaments in this process)."""
    out = []
    for pid in processes_of(TAG):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            ppid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if ppid == os.getpid() and "multiprocessing.resource_tracker" in cmdline:
            continue
        out.append((pid, cmdline))
    return out


@pytest.fixture(scope="session", autouse=True)
def no_bot_outlives_the_suite():
    yield
    deadline = time.monotonic() + 2  # the kernel may still be ending a namespace killed just now
    while _left_over() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _left_over() == [], "processes started by the test session outlived it"


@pytest.fixture
def open_folder():
    """A folder anyone may enter, for files anyone may read: only the sandbox can protect them.
    It is not under /tmp (a bot has a /tmp of its own), nor under results/: `arena play` makes
    that the data folder, where no bot may be given a path (in a checkout where it had run, four
    tests failed). It is in the checkout's git-ignored .test-open/."""
    OPEN.mkdir(exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix="test-open-", dir=OPEN))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path)


@pytest.fixture(scope="session")
def real_tournament(tmp_path_factory) -> Path:
    """A real round robin: three bundled bots and one that crashes at its first request (every
    match of it is a forfeit for the fault 'exit')."""
    out = tmp_path_factory.mktemp("report") / "real"
    crash = f"{sys.executable} {BAD_BOT} crash"
    run_tournament(load_config(None, {"name": "real", "bots": ["greedy", "random", "c-counter", crash],
                                      "matches_per_pairing": 2, "seed": 11, "workers": 2,
                                      "output": str(out)}))
    return out


@pytest.fixture(scope="session")
def thirty_bots(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report") / "thirty"
    out.mkdir()
    synthetic_store.fill(out / "results.sqlite", bots=30)
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One headless chromium for the test file (browser.py), ended after its last test."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = launched(playwright)
        try:
            yield Browser(chromium.new_page())
        finally:
            chromium.close()
