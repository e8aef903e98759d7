"""The replay page in a real headless browser (Debian's chromium, one for the file, as
test_report_browser.py drives it): opened from disk, stepped with the keyboard (trick and deal),
switched to one seat's view, where the other hand is not in the DOM at all; screenshots are kept in
results/test-artifacts/ (docs/organisers/reports.md) for a person to look at.

The keys are pressed by a small script added to a copy of the page: it sends the page the same
keydown events a keyboard does, and writes what the page then shows into the DOM the test reads
back once the page has loaded (browser.py)."""

from __future__ import annotations

import html
import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from PIL import Image

from arena.match.bot_process import Limits
from arena.entrants.bot_specs import resolve_bot
from arena.game import profile
from arena.match.records import read_record
from arena.match.referee import BotSpec, MatchConfig, run_match
from arena.report.replay import page_data, write_replay_page
from test_report_browser import ARTIFACTS

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


def test_replay_page_steps_with_the_keyboard_and_hides_the_other_hand(pages, browser):
    page = pages["two"]
    data = page_data(read_record(page.with_suffix(".jsonl")))
    assert len(data["deals"]) >= 2
    count = len(data["deals"])
    probe = page.with_name("probe.html")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"),
                     encoding="utf-8")
    dom = browser.dump_dom(probe.as_uri())
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
def test_replay_screenshots(pages, browser, case, seat):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / f"replay-{case}-{'everything' if seat is None else f'seat-{seat}'}.png"
    shot.unlink(missing_ok=True)
    browser.screenshot(middle(pages[case], seat), shot, 1280, 800)
    with Image.open(shot) as image:
        assert image.size == (1280, 800)
        assert len(image.convert("RGB").getcolors(1 << 20) or []) > 100  # a page, not a blank


# -- a bot's stderr beside its decisions (issue 33 point 4) -------------------------------------

DEBUG_PROBE = """
<script>
window.addEventListener("load", () => {
  const press = (key) => document.dispatchEvent(new KeyboardEvent("keydown", {key, bubbles: true}));
  const blocks = () => [...document.querySelectorAll("#side div.debug")].map(b => ({
    seat: +b.dataset.seat, label: b.querySelector("p.facts").textContent,
    at: [...b.querySelectorAll(".debug-at")].map(p => p.textContent),
    text: [...b.querySelectorAll("pre.debug-lines")].map(p => p.textContent)}));
  const sent = () => (document.querySelector("#side pre.lines:not(.debug-lines)") || {}).textContent;
  // A bot's text that looks like markup must stay text: no element of it anywhere.
  const injected = () => document.querySelectorAll("#injected, #side b, #side script").length;
  const seen = {where: document.getElementById("where").textContent, seat0: blocks(),
                sent0: sent(), injected0: injected()};
  press("a");
  Object.assign(seen, {all: blocks(), injected_all: injected()});
  press("1");
  Object.assign(seen, {seat1: blocks(), sent1: sent(), where1: document.getElementById("where").textContent});
  press("ArrowLeft");
  seen.before1 = blocks();
  const out = document.createElement("pre");
  out.id = "browser-test";
  out.textContent = JSON.stringify(seen);
  document.body.appendChild(out);
});
</script>
"""


def test_a_bots_stderr_is_shown_beside_the_step_it_was_written_at(browser, tmp_path):
    """The issue's acceptance: a replay page of a match where the bots wrote to stderr shows their
    lines at the right step, in each seat's own view and, every seat's, in "everything"."""
    fixture = Path(__file__).parent / "fixtures" / "clock_bot.py"
    bots = [BotSpec(f"debug-{seat}", (sys.executable, str(fixture), "debug")) for seat in (0, 1)]
    record = tmp_path / "debug.jsonl"
    run_match(bots, MatchConfig(rules=profile("sixty_six"), seed=5, match_id="debug",
                                limits=Limits(decision_ms=400, startup_ms=3000)),
              record_path=record, log_dir=tmp_path / "logs")
    data = page_data(read_record(record))
    # The first step at which both bots decided: there each wrote its first request's lines.
    deal, step = next((d, f) for d in data["deals"] for f in range(len(d["frames"]))
                      if all(d["seen"][seat][f].get("debug") for seat in (0, 1)))
    expect = [["\n".join(e["lines"]) for e in deal["seen"][seat][step]["debug"]] for seat in (0, 1)]
    page = tmp_path / "debug.html"
    write_replay_page(read_record(record), page)
    page.write_text(page.read_text(encoding="utf-8").replace("</body>", DEBUG_PROBE + "</body>"),
                    encoding="utf-8")
    dom = browser.dump_dom(f"{page.as_uri()}#deal={deal['no']}&step={step}&seat=0")
    found = re.search(r'<pre id="browser-test">(.*?)</pre>', dom, re.S)
    assert found, "the page's load event never came (or the test script did not run)"
    seen = json.loads(html.unescape(found.group(1)))
    frame = deal["frames"][step]
    assert seen["where"].endswith("end of the deal" if frame["k"] == "end" else
                                  f"trick {frame['n'] + 1}")
    assert seen["where"].startswith(f"deal {deal['no']} of ") and seen["where1"] == seen["where"]
    # Seat 0's view: its own lines only, as written, at this step.
    assert [b["seat"] for b in seen["seat0"]] == [0]
    assert seen["seat0"][0]["text"] == expect[0]
    assert seen["seat0"][0]["label"] == "What debug-0 (seat 0) wrote to its stderr:"
    # The right step: each line it wrote quotes the request it was answering, and that request is
    # among the lines the referee sent it at this very step.
    for seat, view, sent in ((0, seen["seat0"], seen["sent0"]), (1, seen["seat1"], seen["sent1"])):
        quoted = [line.split(": ", 1)[1] for text in view[0]["text"] for line in text.split("\n")
                  if line.startswith("decision ")]
        assert quoted and all(f"> {request}" in sent.split("\n") for request in quoted), \
            (seat, quoted, sent)
    assert '<b id="injected">not bold</b> & <script>alert(1)</script>' in \
        "\n".join(seen["seat0"][0]["text"])
    assert seen["injected0"] == 0 and seen["injected_all"] == 0
    # Everything: every seat's block, each with its own lines.
    assert [(b["seat"], b["text"]) for b in seen["all"]] == [(0, expect[0]), (1, expect[1])]
    # Seat 1's view: its lines, never seat 0's; a step earlier, not these lines.
    assert [(b["seat"], b["text"]) for b in seen["seat1"]] == [(1, expect[1])]
    assert all(b["text"] != expect[1] for b in seen["before1"])
