"""The report page in a real headless browser (Debian's chromium): every image loads, the
leaderboard has one row per bot, and a screenshot is kept for a person to look at.

One chromium serves the whole file (the ``browser`` fixture, browser.py): it loads a copy of the
page that carries a small test script (it records, once the page has loaded, what the browser made
of the images and the table) and reads the DOM back, then takes a screenshot of the page itself.
Nothing is served: the page is opened from ``file://``, as a user opening it from disk would.
"""

from __future__ import annotations

import html
import json
import re
import sqlite3
from pathlib import Path

import pytest
from PIL import Image

import synthetic_store
from arena.report import publish, write_report
from arena.report.charts import CHARTS
from browser import CHROMIUM, Browser

# Screenshots a person may want to look at; git-ignored, like everything under results/.
ARTIFACTS = Path(__file__).resolve().parents[2] / "results" / "test-artifacts"
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (scripts/test installs "
                       "Debian's chromium when it runs as root with apt-get)"),
]
PROBE = """
<script>
window.addEventListener("load", () => {
  const images = [...document.images].map(i => ({src: i.getAttribute("src"), complete: i.complete,
                                                 width: i.naturalWidth, height: i.naturalHeight}));
  const rows = document.querySelectorAll("#leaderboard tbody tr").length;
  const los = document.querySelectorAll("#los-matrix tbody tr").length;
  const settings = document.getElementById("settings").getBoundingClientRect().top + window.scrollY;
  const out = document.createElement("pre");
  out.id = "browser-test";
  out.textContent = JSON.stringify({images, rows, los, charts_end: Math.ceil(settings)});
  document.body.appendChild(out);
});
</script>
"""


def look(page: Path, browser: Browser) -> dict:
    """What the browser made of the page: its images and the leaderboard's rows."""
    probe = page.with_name("browser-test.html")  # beside the page: the same relative links
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"),
                     encoding="utf-8")
    try:
        dom = browser.dump_dom(probe.as_uri())
    finally:
        probe.unlink()
    found = re.search(r'<pre id="browser-test">(.*?)</pre>', dom, re.S)
    assert found, "the page's load event never came (or the test script did not run)"
    return json.loads(html.unescape(found.group(1)))


@pytest.fixture(scope="module")
def seated(tmp_path_factory) -> dict[str, Path]:
    """Three- and four-player tournaments (synthetic stores of five bots, issue 16)."""
    folders = {}
    for case, players in (("three", 3), ("four", 4)):
        folder = tmp_path_factory.mktemp(case)
        synthetic_store.fill_seated(folder / "results.sqlite", players, SEATED_BOTS, deal_sets=1,
                                    flaky=SEATED_BOTS[-1])
        folders[case] = folder
    return folders


SEATED_BOTS = ["alpha", "beta", "gamma", "delta", "epsilon"]


@pytest.mark.parametrize("case", ["real", "thirty", "published", "three", "four"])
def test_report_page_in_a_real_browser(case, real_tournament, thirty_bots, seated, browser,
                                       tmp_path):
    """(``published``: the folder ``arena publish`` writes, on its own, as a static host has it.
    ``three`` and ``four``: tournaments of three and four players.)"""
    folder = {"real": real_tournament, "thirty": thirty_bots, "published": real_tournament,
              **seated}[case]
    page = publish(folder, tmp_path / "site") if case == "published" else write_report(folder)
    bots = {"thirty": 30, "three": 5, "four": 5}.get(case, 4)
    seen = look(page, browser)
    assert sorted(i["src"] for i in seen["images"]) == sorted(f"{c}.png" for c in CHARTS)
    for image in seen["images"]:
        assert image["complete"] and image["width"] > 0 and image["height"] > 0, image
    assert seen["rows"] == seen["los"] == bots  # and the likelihood-of-superiority matrix (issue 17)
    # The screenshot shows the leaderboard and the five charts (the page down to the settings).
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / f"report-{case}.png"
    shot.unlink(missing_ok=True)
    height = min(seen["charts_end"], 16000)
    browser.screenshot(page.as_uri(), shot, 1280, height)
    with Image.open(shot) as image:
        assert image.size == (1280, height)
        assert len(image.convert("RGB").getcolors(1 << 20) or []) > 100  # a page, not a blank
    # The leaderboard's first bot leads to its page, which lists each of its matches.
    first = re.search(r'<td><a href="(bots/[^"]+)">', page.read_text(encoding="utf-8")).group(1)
    dom = browser.dump_dom((page.parent / first).as_uri())
    body = re.search(r'<table id="matches-table">.*?<tbody>(.*?)</tbody>', dom, re.S).group(1)
    if case in seated:
        # Each match it played, once: every seating of each group it belongs to (schedule.py).
        name = re.search(r"<h1>\d+\. (.*?)</h1>", dom).group(1)
        with sqlite3.connect(folder / "results.sqlite") as db:
            played = db.execute("SELECT COUNT(DISTINCT match_id) FROM seats WHERE bot = ?",
                                (html.unescape(name),)).fetchone()[0]
        assert played == {"three": 36, "four": 24}[case]  # in C(4,2) groups of 3, C(4,3) of 4
        assert body.count("<tr>") == played
        if case == "four":
            assert '<table id="partners">' in dom and '<table id="partner-table">' in \
                page.read_text(encoding="utf-8")
    else:
        assert body.count("<tr>") == (bots - 1) * 2  # two matches against each other bot


LEAGUE_PROBE = """
<script>
window.addEventListener("load", () => {
  const images = [...document.images].map(i => ({src: i.getAttribute("src"), complete: i.complete,
                                                 width: i.naturalWidth, height: i.naturalHeight}));
  const rows = (id) => document.querySelectorAll(`#${id} tbody tr`).length;
  const out = document.createElement("pre");
  out.id = "browser-test";
  out.textContent = JSON.stringify({images, ladder: rows("ladder"), recent: rows("recent"),
                                    versions: rows("versions"),
                                    height: Math.ceil(document.body.scrollHeight)});
  document.body.appendChild(out);
});
</script>
"""


def test_league_page_in_a_real_browser(browser, tmp_path):
    """The league page (issue 30): it loads from disk with its chart, no console message, a row
    per bot of the ladder, per latest match and per version; a screenshot is kept."""
    from arena.compete.league_store import read_ladder
    from arena.report.league_page import PAGE, write_league_page
    from arena.report.snapshot import read_snapshot
    from synthetic_league import synthetic_league

    league = tmp_path / "league"
    bots = ["alpha", "beta", "gamma", "mine@11111111", "mine@22222222", "random", "first-legal",
            "greedy"]
    path = synthetic_league(league, bots, pairs=120, active=["random", "first-legal", "greedy"],
                            open_pairs=2)
    build = tmp_path / "build"
    build.mkdir()
    with read_snapshot(path, hold_back=True) as snapshot:
        rows, counts = read_ladder(league, tmp_path / "data", db=snapshot.db)
        write_league_page(snapshot.db, build, "synthetic", rows, counts)
    page = build / PAGE
    probe = page.with_name("browser-test.html")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", LEAGUE_PROBE + "</body>"),
                     encoding="utf-8")
    dom = browser.dump_dom(probe.as_uri())
    # Whatever the page writes to its console (an error, a failed script), of any level.
    assert browser.console == []
    found = re.search(r'<pre id="browser-test">(.*?)</pre>', dom, re.S)
    assert found, "the page's load event never came (or the test script did not run)"
    seen = json.loads(html.unescape(found.group(1)))
    assert [i["src"] for i in seen["images"]] == ["league_history.svg"]  # one format (charts.SINGLE)
    assert all(i["complete"] and i["width"] > 0 for i in seen["images"])
    assert (seen["ladder"], seen["recent"], seen["versions"]) == (3, 20, len(bots))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "league.png"
    shot.unlink(missing_ok=True)
    height = min(seen["height"], 16000)
    browser.screenshot(page.as_uri(), shot, 1280, height)
    with Image.open(shot) as image:
        assert image.size == (1280, height)
        assert len(image.convert("RGB").getcolors(1 << 20) or []) > 100  # a page, not a blank
