"""The report's rules page (issue 31 point 5: the report's pages link to the rules where they cite
one): every citation the code makes has its section on the page, a replay page links its citations
there, bot text stays text, and a real forfeit's reason is a link in a real browser."""

from __future__ import annotations

import html
import re
import shutil
import sys
import uuid
from pathlib import Path

import pytest

from arena.entrants.bot_specs import resolve_bot
from arena.game import profile
from arena.match.bot_process import Limits
from arena.match.referee import BotSpec, MatchConfig, run_match
from arena.report.replay import write_replays
from arena.report.rules_page import (CITATION, RULES_PAGE, link_citations, render_rules,
                                     rules_source, write_rules_page)

ROOT = Path(__file__).resolve().parents[2]
BAD_BOT = Path(__file__).parent / "fixtures" / "bad_bot.py"
SESSION = uuid.uuid4().hex  # marks this file's bad bots for the leftover-process check


def ids(page: str) -> set[str]:
    return set(re.findall(r'id="([^"]+)"', page))


def test_every_section_the_code_cites_has_its_anchor_on_the_rules_page():
    source = rules_source()
    assert source == ROOT / "docs" / "RULES.md"
    anchors = ids(render_rules(source.read_text(encoding="utf-8")))
    cited: dict[str, set[str]] = {}
    for path in [*ROOT.glob("arena/**/*.py"), *ROOT.glob("arena/**/*.j2"),
                 *ROOT.glob("arena/**/*.js"), *ROOT.glob("protocol/*.py")]:
        for section in CITATION.findall(path.read_text(encoding="utf-8")):
            cited.setdefault(section, set()).add(str(path.relative_to(ROOT)))
    assert len(cited) > 15  # the engine's reasons, the report's notes, the narration
    missing = {s: sorted(where) for s, where in cited.items() if f"s{s}" not in anchors}
    assert missing == {}, f"cited sections the rules page has no anchor for: {missing}"


def test_a_numbered_heading_gets_its_anchor_and_raw_html_stays_text():
    page = render_rules("## 7. Claiming\n\n### 7.1 A total\n\ntext <script>x()</script>\n\n"
                        "## Appendix A. Seeds\n")
    assert '<h2 id="s7">7. Claiming</h2>' in page
    assert '<h3 id="s7.1">7.1 A total</h3>' in page
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "<h2>Appendix A. Seeds</h2>" in page


def test_citations_become_links_and_the_text_around_them_is_escaped():
    text = '<img src=x onerror=alert(1)> played 9H (RULES.md §5.4); see RULES.md §11 row 23'
    linked = str(link_citations(text, "../rules.html"))
    assert '<a href="../rules.html#s5.4">RULES.md §5.4</a>' in linked
    assert '<a href="../rules.html#s11">RULES.md §11</a> row 23' in linked
    assert "<img" not in linked and "&lt;img src=x" in linked
    assert "<a" not in str(link_citations(text, None))


@pytest.fixture(scope="module")
def forfeit(tmp_path_factory) -> tuple[Path, Path]:
    """A report folder holding the rules page and the replay page of a real match that a bot
    forfeited by playing a card it does not hold (RULES.md §4)."""
    folder = tmp_path_factory.mktemp("rules-links")
    bad = BotSpec("bad-illegal", (sys.executable, str(BAD_BOT), "illegal", SESSION))
    record = folder / "records" / "m.jsonl"
    record.parent.mkdir()
    result = run_match([resolve_bot("c-counter"), bad],
                       MatchConfig(rules=profile("sixty_six"), seed=2, match_id="m",
                                   limits=Limits(decision_ms=400, startup_ms=3000)),
                       record_path=record, log_dir=folder / "logs")
    assert result.fault == "illegal_action" and "(RULES.md §4)" in result.detail
    out = folder / "report"
    rules = write_rules_page(out)
    assert rules == RULES_PAGE
    pages = write_replays([("records/m.jsonl", record)], out, rules=rules)
    return out, out / pages["records/m.jsonl"]


def test_a_replay_page_in_a_report_points_at_the_rules_page(forfeit):
    out, page = forfeit
    text = page.read_text(encoding="utf-8")
    assert '<meta name="sixtysix-rules" content="../rules.html">' in text
    assert '<a href="../rules.html#s7.1">RULES.md §7.1</a>' in text  # the page's own help
    assert {"s4", "s7.1"} <= ids((out / RULES_PAGE).read_text(encoding="utf-8"))
    # Without a rules page (an installation without docs/), no link to nothing.
    alone = write_replays([("records/m.jsonl", read_record_path(out))], out / "alone")
    lone = (out / "alone" / alone["records/m.jsonl"]).read_text(encoding="utf-8")
    assert '<meta name="sixtysix-rules"' not in lone and 'href="../rules.html' not in lone


def read_record_path(out: Path) -> Path:
    return out.parent / "records" / "m.jsonl"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed "
                    "(scripts/test installs Debian's chromium when it runs as root with apt-get)")
def test_a_forfeits_reason_is_a_link_to_its_rule_in_a_real_browser(forfeit, tmp_path):
    from browser import chromium  # one page: a chromium of its own costs no more than a shared one

    _, page = forfeit
    dom = chromium(tmp_path, "--virtual-time-budget=5000", "--dump-dom", page.as_uri())
    outcome = re.search(r'<p class="outcome" id="outcome">(.*?)</p>', dom, re.S)
    assert outcome, dom[:2000]
    assert "bad-illegal forfeits (illegal_action" in html.unescape(outcome.group(1))
    assert '<a href="../rules.html#s4">RULES.md §4</a>' in outcome.group(1)
