"""Debian's chromium for the browser tests of the report and replay pages: one headless chromium a
test file (the module fixture ``browser`` in conftest.py), driven through Playwright for Python as
test_web_browser.py drives it, rather than a chromium started from the command line for every
page. Each start cost some 1.4 s of CPU (3 to 4 s of wall time at a load of 13); the report's
browser test started 17 and the replay page's 4.

What a test sees is what ``chromium --dump-dom`` and ``--screenshot`` gave: the page's DOM as
serialized after its load event (the tests' probe scripts write their findings into it from that
event), and a screenshot of a window of the given size. Every page is opened from ``file://`` in a
fresh document (``about:blank`` first: an address that differs only in its ``#`` part would
otherwise not load the page again, and its load event would not come)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

CHROMIUM = shutil.which("chromium")
# The flags this machine needs (no sandbox as root, no GPU) and those that keep Chromium off the
# network: without them it tries Google's services at every start.
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]
TIMEOUT_MS = 60_000  # as the command line's was: a page that takes longer fails its test


def launched(playwright):  # a playwright.sync_api.Playwright; returns its chromium Browser
    """Debian's chromium, headless, started through Playwright (its own download is not used)."""
    assert CHROMIUM is not None  # the files that use it skip without chromium
    return playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, timeout=TIMEOUT_MS)


class Browser:
    """One chromium and one tab, opened again for every page; what each page wrote to its console
    (any message) or threw is kept in ``console`` until the next page is opened."""

    def __init__(self, page) -> None:  # a playwright.sync_api.Page
        self._page = page
        self.console: list[str] = []
        page.on("console", lambda m: self.console.append(f"console {m.type}: {m.text}"))
        page.on("pageerror", lambda e: self.console.append(f"page error: {e}"))
        page.set_default_timeout(TIMEOUT_MS)

    def _open(self, url: str, width: int, height: int) -> None:
        self._page.goto("about:blank")
        self.console.clear()
        self._page.set_viewport_size({"width": width, "height": height})
        self._page.goto(url, wait_until="load")

    def dump_dom(self, url: str) -> str:
        """The document at ``url`` once loaded, serialized (``chromium --dump-dom``)."""
        self._open(url, 800, 600)  # the command line's default window
        return self._page.content()

    def screenshot(self, url: str, path: Path, width: int, height: int) -> None:
        """A PNG of ``url`` in a window of ``width`` x ``height`` at ``path``
        (``chromium --window-size=W,H --screenshot=PATH``)."""
        self._open(url, width, height)
        self._page.screenshot(path=str(path))


def chromium(tmp_path: Path, *args: str, timeout: float = 60) -> str:
    """Chromium run once from the command line, to completion in its own process group; on a
    timeout the whole group is ended, so no renderer or GPU process outlives the test. (For a
    file that opens a single page: the ``browser`` fixture's start costs as much as this.)"""
    assert CHROMIUM is not None
    proc = subprocess.Popen([CHROMIUM, "--headless", *FLAGS,
                             f"--user-data-dir={tmp_path / 'chromium-profile'}", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    assert proc.returncode == 0, err[-2000:]
    return out
