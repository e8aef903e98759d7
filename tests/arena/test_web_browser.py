"""The website in a real browser (issue 32's point 8): Playwright for Python driving Debian's
chromium (``executable_path``: Playwright's own browser download is not reachable here) through
the real ``arena serve`` on a free loopback port: register, upload bots/example zipped through the
form, watch its status become active, find it in the leaderboard, open a replay; no page logs a
console error or a failed request."""

from __future__ import annotations

import os
import shutil
import signal
import time

import pytest

import web_archives as archives
from test_web_api import PASSWORD, competition
from test_web_serve import Served

CHROMIUM = shutil.which("chromium")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None and os.environ.get("CI") != "true",
                       reason="chromium is not installed (scripts/test installs Debian's chromium "
                       "when it runs as root with apt-get)"),
]
# As the report's browser test: no sandbox as root, no GPU, nothing from Google's services.
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def test_register_upload_watch_it_qualify_and_play_in_a_browser(tmp_path):
    from playwright.sync_api import sync_playwright

    assert CHROMIUM is not None, "CI=true: chromium must be installed (scripts/_chromium.sh)"
    bot_zip = tmp_path / "mybot.zip"
    bot_zip.write_bytes(archives.zip_folder())
    served = Served(competition(tmp_path / "comp", workers=1))
    problems: list[str] = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            try:
                page = browser.new_page()
                page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
                        if m.type == "error" else None)
                page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
                page.on("requestfailed", lambda r: problems.append(f"failed: {r.url}"))
                page.on("response", lambda r: problems.append(f"{r.status}: {r.url}")
                        if r.status >= 400 else None)
                url = served.url

                page.goto(url + "/")
                page.click("#register-link")
                page.fill("input[name=name]", "alice")
                page.fill("input[name=password]", PASSWORD)
                page.fill("input[name=repeat]", PASSWORD)
                page.click("button[type=submit]")
                page.wait_for_url(url + "/account")
                assert page.inner_text("#me") == "alice"

                page.fill("#upload-form input[name=name]", "mybot")
                page.set_input_files("#upload-form input[name=file]", str(bot_zip))
                page.click("#upload-form button[type=submit]")
                page.wait_for_url("**/uploads/*")
                seen = {page.inner_text("#upload-status")}
                # The page reloads itself until the build and qualification are done.
                page.wait_for_function(
                    "['active', 'rejected'].includes("
                    "document.getElementById('upload-status').textContent)",
                    timeout=180_000, polling=500)
                seen.add(page.inner_text("#upload-status"))
                assert page.inner_text("#upload-status") == "active", page.content()
                assert seen & {"queued", "building", "qualifying"}, seen
                assert "PASSED" in page.inner_text("#upload-log")

                # The leaderboard shows it once it has played: its rows are read again live.
                page.goto(url + "/")
                page.wait_for_selector("#leaderboard a[href='/bots/mybot']", timeout=180_000)
                page.click("#leaderboard a[href='/bots/mybot']")
                page.wait_for_url(url + "/bots/mybot")
                assert page.inner_text("#owner") == "alice"
                # Its matches are listed once their duplicate partner is stored too (the partner
                # is dealt the same cards), which on a loaded machine can come well after the
                # leaderboard's row; the bot's page is not live: read it again, as its author would.
                deadline = time.monotonic() + 180
                while page.query_selector("table.matches a[href^='/matches/']") is None:
                    assert time.monotonic() < deadline, "no match of mybot listed within 180 s"
                    time.sleep(2)
                    page.reload()
                page.click("table.matches td:first-child a")
                page.wait_for_selector("#match-data", state="attached")
                page.wait_for_function("document.getElementById('title').textContent.length > 0")
                assert "mybot" in page.inner_text("#title")

                page.goto(url + "/matches?bot=mybot")
                page.goto(url + "/account")
                page.click("#logout")
                page.wait_for_url(url + "/")
                assert page.locator("#login-link").count() == 1
            finally:
                browser.close()
    finally:
        served.http.close()
        served.proc.send_signal(signal.SIGTERM)
        served.proc.wait(30)
    assert not problems, problems
