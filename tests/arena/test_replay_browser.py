"""The replay page in a real headless browser (Debian's chromium, as test_report_browser.py drives
it): opened from disk, stepped with the keyboard (trick and deal), switched to one seat's view,
where the other hand is not in the DOM at all; screenshots are kept in results/test-artifacts/
(docs/organisers/reports.md) for a person to look at.

Chromium runs from the command line only, so the keys are pressed by a small script added to a
copy of the page: it sends the page the same keydown events a keyboard does, and writes what the
page then shows into the DOM that ``--dump-dom`` prints."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import pytest
from PIL import Image

from arena.match.bot_process import Limits
from arena.entrants.bot_specs import resolve_bot
from arena.game import profile
from arena.match.records import read_record
from arena.match.referee import MatchConfig, run_match
from arena.report.replay import page_data, write_replay_page
from test_report_browser import ARTIFACTS, chromium

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed "
                       "(scripts/test installs Debian's chromium when it runs as root with apt-get)"),
]

PROBE = """
<script>
window.addEventListener("load", () => {
  const press = (key) => document.dispatchEvent(new KeyboardEvent("keydown", {key, bubbles: true}));
  const where = () => document.getElementById("where").textContent;
  const seen = {start: where()};
  press("ArrowRight"); press("ArrowRight");
  seen.two_tricks = where();
  press("ArrowLeft");
  seen.back_one = where();
  press("ArrowDown");
  seen.next_deal = where();
  const faces = (seat) => [...document.querySelectorAll(`.seat[data-seat="${seat}"] .card:not(.back)`)]
    .map(c => c.title);
  seen.all_view = {seat0: faces(0), seat1: faces(1)};
  press("1");
  seen.seat_view = {seat0: faces(0), seat1: faces(1),
                    backs0: document.querySelectorAll('.seat[data-seat="0"] .card.back').length,
                    cards: [...document.querySelectorAll(".card")].map(c => c.title).filter(Boolean),
                    text: document.getElementById("board").textContent,
                    where: where(), hash: location.hash};
  press("a");
  seen.back_to_all = document.querySelectorAll('.seat[data-seat="0"] .card:not(.back)').length;
  const out = document.createElement("pre");
  out.id = "browser-test";
  out.textContent = JSON.stringify(seen);
  document.body.appendChild(out);
});
</script>
"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    """Two real matches of the C bots (two and four players) and their pages."""
    folder = tmp_path_factory.mktemp("replay-browser")
    out = {}
    for name, rules, bots in (("two", "sixty_six", ["c-counter", "first-legal-c"]),
                              ("four", "four_player", ["c-counter", "first-legal", "c-counter",
                                                       "first-legal"])):
        record = folder / f"{name}.jsonl"
        run_match([resolve_bot(b) for b in bots],
                  MatchConfig(rules=profile(rules), seed=5, match_id=name,
                              limits=Limits(decision_ms=400, startup_ms=3000)),
                  record_path=record, log_dir=folder / "logs")
        write_replay_page(read_record(record), folder / f"{name}.html")
        out[name] = folder / f"{name}.html"
    return out


def test_replay_page_steps_with_the_keyboard_and_hides_the_other_hand(pages, tmp_path):
    page = pages["two"]
    data = page_data(read_record(page.with_suffix(".jsonl")))
    assert len(data["deals"]) >= 2
    count = len(data["deals"])
    probe = page.with_name("probe.html")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"),
                     encoding="utf-8")
    dom = chromium(tmp_path, "--virtual-time-budget=5000", "--dump-dom", probe.as_uri())
    found = re.search(r'<pre id="browser-test">(.*?)</pre>', dom, re.S)
    assert found, "the page's load event never came (or the test script did not run)"
    seen = json.loads(html.unescape(found.group(1)))
    assert seen["start"] == f"deal 1 of {count} · the deal"
    assert seen["two_tricks"] == f"deal 1 of {count} · trick 2"
    assert seen["back_one"] == f"deal 1 of {count} · trick 1"
    assert seen["next_deal"] == f"deal 2 of {count} · the deal"
    # Deal 2 as dealt: everything shows both hands; seat 1's view shows its own and card backs.
    hands = [h.split() for h in data["deals"][1]["frames"][0]["hands"]]
    assert sorted(seen["all_view"]["seat0"]) == sorted(hands[0])
    assert sorted(seen["all_view"]["seat1"]) == sorted(hands[1])
    view = seen["seat_view"]
    assert view["seat0"] == [] and view["backs0"] == len(hands[0])
    assert sorted(view["seat1"]) == sorted(hands[1])
    # Not hidden by style: no card of seat 0's hand is anywhere in the page's table or panel.
    assert not set(hands[0]) & set(view["cards"])
    assert not set(hands[0]) & set(re.findall(r"\b[AKQJT987][CSHD]\b", view["text"]))
    assert view["hash"] == "#deal=2&step=0&seat=1" and view["where"] == seen["next_deal"]
    assert seen["back_to_all"] == len(hands[0])


def middle(page: Path, seat: int | None = None) -> str:
    """The page's address at the middle trick of its longest deal (``seat``: in that seat's
    view)."""
    data = page_data(read_record(page.with_suffix(".jsonl")))
    deal = max(data["deals"], key=lambda d: len(d["frames"]))
    where = f"deal={deal['no']}&step={len(deal['frames']) // 2}"
    return page.as_uri() + "#" + where + (f"&seat={seat}" if seat is not None else "")


@pytest.mark.parametrize("case,seat", [("two", None), ("four", 2)],
                         ids=["two-everything", "four-seat-2"])
def test_replay_screenshots(pages, tmp_path, case, seat):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / f"replay-{case}-{'everything' if seat is None else f'seat-{seat}'}.png"
    shot.unlink(missing_ok=True)
    chromium(tmp_path, "--window-size=1280,800", f"--screenshot={shot}", middle(pages[case], seat))
    with Image.open(shot) as image:
        assert image.size == (1280, 800)
        assert len(image.convert("RGB").getcolors(1 << 20) or []) > 100  # a page, not a blank
