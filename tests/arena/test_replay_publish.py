"""Replay pages in the report and the published folder (issue 17), on a real tournament of the two
C bots: every match in each bot's list links its replay page; a published page is made from the
published record; and publishing a running tournament withholds the records and replays of every
deal set that still has a match to play (its cards would tell the bots still to play them what
they will be dealt)."""

from __future__ import annotations

import html.parser
import shutil
import sqlite3
from pathlib import Path

import pytest

from arena.report import publish, write_report
from arena.report.public import waiting_for_partner
from arena.report.replay import source_key
from arena.results.store import connect_read_only
from arena.compete.tournament import load_config, run_tournament

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def tournament(tmp_path_factory) -> Path:
    """Two deal sets of c-counter against first-legal-c: four matches, two duplicate pairs."""
    out = tmp_path_factory.mktemp("replay-publish") / "cheap"
    run_tournament(load_config(None, {"name": "cheap", "bots": ["c-counter", "first-legal-c"],
                                      "matches_per_pairing": 4, "workers": 1,
                                      "output": str(out)}))
    return out


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.links += [v for k, v in attrs if k == "href" and v is not None]


def links(page: Path) -> list[str]:
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.links


def stored(folder: Path) -> dict[str, str]:
    with sqlite3.connect(folder / "results.sqlite") as db:
        return dict(db.execute("SELECT match_id, record FROM matches"))


def replays_linked(report: Path) -> set[Path]:
    """The replay pages the bots' pages link, each checked to exist inside ``report``."""
    found = set()
    for page in (report / "bots").glob("*.html"):
        for link in links(page):
            if "replays/" in link:
                target = (page.parent / link).resolve()
                assert target.is_file() and target.is_relative_to(report.resolve()), link
                found.add(target)
    return found


def test_the_report_links_a_replay_page_for_every_match(tournament):
    index = write_report(tournament)
    report = index.parent
    matches = stored(tournament)
    assert len(matches) == 4
    assert replays_linked(report) == {(report / "replays" / f"{m}.html").resolve()
                                      for m in matches}
    for page in (report / "bots").glob("*.html"):
        rows = page.read_text(encoding="utf-8").split('<table id="matches-table">')[1]
        assert rows.count('class="replay"') == 4  # each bot played all four
    # Each page leads back to the report.
    assert links(report / "replays" / f"{sorted(matches)[0]}.html")[0] == "../index.html"


def test_a_running_tournament_publishes_no_deals_still_in_play(tournament, tmp_path):
    # The tournament as it stood while the last match was still being played: stored without it
    # (its record, partly written, is on disk but not in the database).
    running = tmp_path / "running"
    shutil.copytree(tournament, running, ignore=shutil.ignore_patterns("report"))
    with sqlite3.connect(running / "results.sqlite") as db:
        last, deal_set = db.execute("SELECT match_id, deal_set FROM matches "
                                    "ORDER BY sched_order DESC LIMIT 1").fetchone()
        partner = db.execute("SELECT match_id FROM matches WHERE deal_set = ? AND match_id != ?",
                             (deal_set, last)).fetchone()[0]
        for table in ("deals", "seats", "matches"):
            db.execute(f"DELETE FROM {table} WHERE match_id = ?", (last,))
    db.close()
    out = tmp_path / "site"
    index = publish(running, out)
    published = {p.stem for p in (out / "records").glob("*.jsonl")}
    pages = {p.stem for p in (out / "replays").glob("*.html")}
    # The first deal set is complete and public; the second's finished match waits for its
    # partner, and nothing anywhere in the folder shows its cards or links its record.
    assert published == pages == set(stored(running)) - {partner} and len(pages) == 2
    assert "1 match waiting for their duplicate partner" in index.read_text(encoding="utf-8")
    for page in [index, *(out / "bots").glob("*.html")]:
        assert not [link for link in links(page) if partner in link], page.name
    assert not [f for f in out.rglob("*") if partner in f.name or last in f.name]
    # Each page made from the published record (public.py), not from the private one.
    for match_id in pages:
        record = (out / "records" / f"{match_id}.jsonl").read_bytes()
        page = (out / "replays" / f"{match_id}.html").read_text(encoding="utf-8")
        assert f'<meta name="sixtysix-replay" content="{source_key(record, "rules.html")}">' in page
        assert str(tournament) not in page and "/bots/c/build" not in page
    # Once the partner is stored, nothing waits.
    for folder, waiting in ((running, {partner}), (tournament, set())):
        db = connect_read_only(folder / "results.sqlite")
        try:
            assert waiting_for_partner(db) == waiting
        finally:
            db.close()
