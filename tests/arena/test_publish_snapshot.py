"""One publish, one state of the store (issue 29, point 6).

A publish read the store twice, the match list and then the deal sets still waiting for a match,
while the tournament went on committing: a page said "3 waiting" beside two matches held back, a
published set lacked its last match although it was stored, and the bot pages showed the score and
ending of the matches held back. Now a build is read from one snapshot (``report.snapshot``) without
the matches held back, and its pages agree with each other. Real tournaments and real bot
processes: one run by ``arena tournament`` in a process of its own while the test publishes it
again and again, and one into which a real writer commits a match between the reads.
"""

from __future__ import annotations

import html.parser
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import arena.report
from arena.compete.league_config import load_league_config
from arena.compete.league_store import read_ladder
from arena.compete.league import run_league
from arena.compete.league_publish import PAGE, publish_league
from arena.report import ReportError, publish
from arena.report.archive import records_in
from arena.report.public import waiting_for_partner
from arena.results.store import DB_NAME, connect_read_only
from arena.compete.tournament import load_config, run_tournament
from league_util import write_settings
from synthetic_store import fill_seated

pytestmark = pytest.mark.slow

ARENA = [sys.executable, "-m", "arena.cli.main"]
_WAITING = re.compile(r"(\d+) match(?:es)? waiting for their duplicate partner")
_PLAYED = re.compile(r"(\d+)(?: of \d+)? matches played")
_PER_MATCH = ("deals", "seats", "matches")


class _Tables(html.parser.HTMLParser):
    """The text of every cell of every table with an id: {id: [[cell, ...], ...]} (body rows)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self._table: str | None = None
        self._in_body = False
        self._row: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table" and dict(attrs).get("id"):
            self._table = dict(attrs)["id"]
            self.tables[self._table] = []
        elif tag == "tbody":
            self._in_body = True
        elif tag == "tr" and self._table and self._in_body:
            self._row = []
        elif tag == "td" and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "tbody":
            self._in_body = False
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def tables(page: Path) -> dict[str, list[list[str]]]:
    parser = _Tables()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.tables


def deal_sets(folder: Path) -> dict[str, str]:
    """{match id: deal set} of every match stored in ``folder`` now."""
    db = sqlite3.connect(f"file:{folder / DB_NAME}?mode=ro", uri=True, timeout=30)
    try:
        return dict(db.execute("SELECT match_id, deal_set FROM matches"))
    finally:
        db.close()


def check_build(out: Path, later: dict[str, str], stored_before: int = 0,
                every_replay: bool = True) -> tuple[set[str], int]:
    """That the two-player tournament published in ``out`` agrees with itself and with the store
    it was read from; ``later``: the store's {match id: deal set} after the publish (a superset
    of what it read), ``stored_before``: how many matches it held before. ``every_replay``: each
    match has its replay page (a league's build has some: report.prune). Returns the matches
    published and how many the pages say wait."""
    index = out / "index.html"
    text = index.read_text(encoding="utf-8")
    found = _WAITING.search(text)
    waiting = int(found.group(1)) if found else 0
    # Loose, or packed by closed blocks (a league's build: report/archive.py).
    records = {Path(r).stem for r in records_in(out)}
    replays = {p.stem for p in (out / "replays").glob("*.html")}
    listed: set[str] = set()
    per_page = []
    for page in (out / "bots").glob("*.html"):
        page_text = page.read_text(encoding="utf-8")
        found = _WAITING.search(page_text)
        assert (int(found.group(1)) if found else 0) == waiting, page.name
        rows = [r for r in tables(page)["matches-table"] if len(r) > 1]
        ids = {r[1].split(" ")[0] for r in rows}
        assert len(ids) == len(rows), page.name
        listed |= ids
        # The bot's figures count the matches its page lists.
        matches = int(re.search(r"of (\d+) matches won", page_text).group(1))
        wdl = re.search(r'<div id="stat-wdl"><b>(\d+)–(\d+)–(\d+)</b>', page_text)
        assert matches == len(rows) == sum(int(n) for n in wdl.groups()), page.name
        per_page.append(matches)
    # Each match a page lists has its record (and replay), and none is listed without them: a
    # match held back is on no page.
    assert listed == records and replays <= records
    assert replays == records or not every_replay
    assert int(_PLAYED.search(text).group(1)) == len(records)
    # Every published deal set is whole: both matches of each duplicate pair.
    assert set(records) <= set(later)
    by_set: dict[str, set[str]] = {}
    for match_id, deal_set in later.items():
        by_set.setdefault(deal_set, set()).add(match_id)
    for match_id in records:
        assert by_set[later[match_id]] <= records, f"{match_id}'s deal set is published in part"
    # What wait is what the store held at the snapshot that is not published: between what it
    # held before and after.
    assert stored_before <= len(records) + waiting <= len(later)
    # Per bot, the leaderboard's matches are its wins, draws and losses, as on its page.
    leaderboard = tables(index)["leaderboard"]
    assert leaderboard
    for row in leaderboard:
        wins, draws, losses = (int(n) for n in row[6].split("–"))
        assert int(row[5]) == wins + draws + losses, row
    assert sorted(int(row[5]) for row in leaderboard) == sorted(per_page)
    # Nothing of a match not published shows on any page: not its id (beside its score and
    # ending on a bot's page), not a record or replay.
    unpublished = set(later) - records
    for page in out.rglob("*.html"):
        page_text = page.read_text(encoding="utf-8")
        assert not [m for m in unpublished if m in page_text], page
    return records, waiting


def _tournament_bot_rows(out: Path) -> dict[str, int]:
    """{bot: matches} as the leaderboard of ``out`` counts them."""
    return {row[1].split("\xa0")[-1].strip(): int(row[5])
            for row in tables(out / "index.html")["leaderboard"]}


def test_publishing_a_running_tournament_gives_builds_that_agree_with_themselves(tmp_path):
    """`arena tournament` in a process of its own, published again and again while it runs."""
    folder, data, out = tmp_path / "t", tmp_path / "data", tmp_path / "site"
    # One worker plays the schedule in order, the two matches of a duplicate pair one after the
    # other: while the second is played, the first is stored and must be held back.
    tournament = subprocess.Popen(
        [*ARENA, "tournament", "-b", "c-counter", "-b", "first-legal-c", "-b", "random",
         "--rounds", "25", "--workers", "1", "-o", str(folder), "--data", str(data),
         "--no-report"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=tmp_path)
    builds = []
    try:
        while tournament.poll() is None:
            if not (folder / DB_NAME).is_file():
                time.sleep(0.05)
                continue
            # Publish the moment a pair is half stored, if that comes soon (it does, half the
            # time): the build that has something to hold back is the one that tells.
            deadline = time.monotonic() + 5
            while len(deal_sets(folder)) % 2 == 0 and time.monotonic() < deadline \
                    and tournament.poll() is None:
                time.sleep(0.02)
            before = len(deal_sets(folder))
            try:
                publish(folder, out)  # the same folder each time, as a site is republished
            except ReportError as err:  # before the bots are registered: nothing to report
                assert "holds no bots" in str(err) or "no tournament" in str(err), err
                continue
            builds.append(check_build(out, deal_sets(folder), before))
    finally:
        if tournament.poll() is None:
            tournament.kill()
        _, err = tournament.communicate()
    assert tournament.returncode == 0, err.decode(errors="replace")
    assert len(builds) >= 2 and any(waiting for _, waiting in builds), \
        [(len(records), waiting) for records, waiting in builds]
    # Once the tournament is over, nothing waits.
    publish(folder, out)
    records, waiting = check_build(out, deal_sets(folder))
    assert waiting == 0 and len(records) == 3 * 2 * 25


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    """Two duplicate pairs of c-counter against first-legal-c, played by real bots."""
    out = tmp_path_factory.mktemp("snapshot") / "cheap"
    run_tournament(load_config(None, {"name": "cheap", "bots": ["c-counter", "first-legal-c"],
                                      "matches_per_pairing": 4, "workers": 1,
                                      "output": str(out)}))
    return out


def _take_out_last(folder: Path) -> tuple[str, str, dict[str, list[tuple]]]:
    """Delete the last match from the store in ``folder`` as a kill before its commit leaves it;
    returns its id, its partner's and its rows (to store it later as the tournament would)."""
    db = sqlite3.connect(folder / DB_NAME)
    try:
        last, deal_set = db.execute("SELECT match_id, deal_set FROM matches "
                                    "ORDER BY sched_order DESC LIMIT 1").fetchone()
        partner = db.execute("SELECT match_id FROM matches WHERE deal_set = ? AND match_id != ?",
                             (deal_set, last)).fetchone()[0]
        rows = {t: db.execute(f"SELECT * FROM {t} WHERE match_id = ?", (last,)).fetchall()
                for t in _PER_MATCH}
        with db:
            for table in _PER_MATCH:
                db.execute(f"DELETE FROM {table} WHERE match_id = ?", (last,))
    finally:
        db.close()
    return last, partner, rows


def _store(folder: Path, rows: dict[str, list[tuple]]) -> None:
    """Commit a match's rows in one transaction, as ``Store`` does, from a connection of its own."""
    db = sqlite3.connect(folder / DB_NAME, timeout=30)
    try:
        with db:
            for table in reversed(_PER_MATCH):  # the match before its deals and seats
                for row in rows[table]:
                    db.execute(f"INSERT INTO {table} VALUES ({', '.join('?' * len(row))})", row)
    finally:
        db.close()


def test_a_match_held_back_shows_nowhere_and_the_counts_leave_it_out(finished, tmp_path):
    running = tmp_path / "running"
    shutil.copytree(finished, running, ignore=shutil.ignore_patterns("report"))
    last, partner, _ = _take_out_last(running)
    out = tmp_path / "site"
    publish(running, out)
    records, waiting = check_build(out, deal_sets(running))
    assert waiting == 1 and partner not in records and len(records) == 2
    # Each bot played three matches that are stored, and its figures count the two published.
    assert _tournament_bot_rows(out) == {"c-counter": 2, "first-legal-c": 2}
    for page in (out / "bots").glob("*.html"):
        assert partner not in page.read_text(encoding="utf-8")


def test_a_match_stored_between_the_reads_of_a_publish_changes_nothing_it_shows(
        finished, tmp_path, monkeypatch):
    """The partner of the held-back match is committed by another connection at the moment a
    publish has read the match list (the old code then read the waiting sets again and saw it):
    the build must still be one state of the store, the partner published with neither half nor
    both."""
    running = tmp_path / "running"
    shutil.copytree(finished, running, ignore=shutil.ignore_patterns("report"))
    last, partner, rows = _take_out_last(running)
    read = arena.report.read_report_data
    committed = []

    def read_then_store(db):  # noqa: ANN001, ANN202
        data = read(db)
        if not committed:
            _store(running, rows)
            committed.append(True)
        return data

    monkeypatch.setattr(arena.report, "read_report_data", read_then_store)
    out = tmp_path / "site"
    publish(running, out)
    assert committed and last in deal_sets(running)
    records, waiting = check_build(out, deal_sets(running), stored_before=3)
    assert waiting == 1 and len(records) == 2 and not {partner, last} & records
    # The next publish reads the store as it is now: both halves of the pair, nothing waits.
    monkeypatch.undo()
    publish(running, out)
    records, waiting = check_build(out, deal_sets(running))
    assert waiting == 0 and {partner, last} <= records


def test_a_league_build_counts_the_same_matches_on_every_page(tmp_path):
    """The league's ladder, its chart and the report of one build come from one snapshot: a pair
    half stored counts on none of them."""
    league = tmp_path / "league"
    write_settings(league, name="snap", bots=["first-legal-c", "c-counter"], workers=1)
    run_league(league, data=tmp_path / "data", max_pairs=2, publish=False)
    last, partner, _ = _take_out_last(league)
    index = publish_league(league, load_league_config(league), tmp_path / "data")
    build = index.parent
    records, waiting = check_build(build, deal_sets(league))
    assert waiting == 1 and len(records) == 2
    page = (build / PAGE).read_text(encoding="utf-8")
    assert "2 matches in 2 duplicate pairs" in page and "1 pair(s) waiting" in page
    ladder = table_rows(build / PAGE, "ladder")
    assert sorted(int(r[8]) for r in ladder) == [2, 2]  # the ladder: each bot's 2 published
    assert _tournament_bot_rows(build) == {"c-counter": 2, "first-legal-c": 2}
    # read_ladder alone (the status command) reads the whole store, the held-back match too.
    _, counts = read_ladder(league, tmp_path / "data")
    assert counts["matches"] == 3


def table_rows(page: Path, table: str) -> list[list[str]]:
    """The cells of each body row of the table ``table`` (its id) of ``page``."""
    text = page.read_text(encoding="utf-8")
    body = text.split(f'<table id="{table}">')[1].split("</table>")[0].split("<tbody>")[1]
    return [re.findall(r"<td[^>]*>(.*?)</td>", row, re.S) for row in body.split("<tr")[1:]]


def test_a_snapshot_stays_as_it_was_read_while_the_store_goes_on(finished, tmp_path):
    """The snapshot itself: read once, it does not see a match committed after it, as two reads of
    the store (the old publish's) do; and it holds neither the deal key nor the match held back."""
    from arena.report.snapshot import read_snapshot  # here: the tests above run on older code too

    running = tmp_path / "running"
    shutil.copytree(finished, running, ignore=shutil.ignore_patterns("report"))
    last, partner, rows = _take_out_last(running)
    with read_snapshot(running / DB_NAME, hold_back=True) as snapshot:
        first = connect_read_only(running / DB_NAME)  # the old publish's first read...
        try:
            listed = {m for (m,) in first.execute("SELECT match_id FROM matches")}
        finally:
            first.close()
        _store(running, rows)  # ...a tournament commits...
        second = connect_read_only(running / DB_NAME)  # ...and its second read
        try:
            assert waiting_for_partner(second) == frozenset() and last not in listed
        finally:
            second.close()
        assert snapshot.held_back == {partner}
        ids = {m for (m,) in snapshot.db.execute("SELECT match_id FROM matches")}
        assert ids == listed - {partner}
        for table in ("deals", "seats"):
            assert not snapshot.db.execute(f"SELECT 1 FROM {table} WHERE match_id IN (?, ?)",
                                           (partner, last)).fetchall()
        assert snapshot.db.execute("SELECT COUNT(*) FROM deal_key").fetchone() == (0,)
    with read_snapshot(running / DB_NAME, hold_back=True) as later:
        assert later.held_back == frozenset()
        assert later.db.execute("SELECT COUNT(*) FROM matches").fetchone() == (4,)


def test_a_three_player_set_half_stored_is_held_back_with_its_sides(tmp_path):
    """Three players: a deal set is six seatings; five stored, all five wait, and their sides and
    deal sides are not in the snapshot either."""
    folder = tmp_path / "three"
    folder.mkdir()
    schedule = fill_seated(folder / DB_NAME, 3, ["a", "b", "c"], deal_sets=2)
    last = schedule[-1].match_id
    db = sqlite3.connect(folder / DB_NAME)
    with db:
        for table in ("deal_sides", "sides", "deals", "seats", "matches"):
            db.execute(f"DELETE FROM {table} WHERE match_id = ?", (last,))
    db.close()
    waiting = {m.match_id for m in schedule[6:-1]}
    out = tmp_path / "site"
    publish(folder, out)
    assert "5 matches waiting for their duplicate partner" in (out / "index.html").read_text()
    assert _tournament_bot_rows(out) == {"a": 6, "b": 6, "c": 6}
    for page in out.rglob("*.html"):
        assert not [m for m in waiting if m in page.read_text(encoding="utf-8")], page
    from arena.report.snapshot import read_snapshot

    with read_snapshot(folder / DB_NAME, hold_back=True) as snapshot:
        assert snapshot.held_back == waiting
        for table in ("matches", "deals", "seats", "sides", "deal_sides"):
            held = snapshot.db.execute(f"SELECT COUNT(*) FROM {table} WHERE match_id IN "
                                       f"({', '.join('?' * len(waiting))})", sorted(waiting))
            assert held.fetchone() == (0,), table


def test_builds_published_while_a_league_plays_agree_with_themselves(tmp_path):
    """`arena league` in a process of its own publishing every second while it plays: each build
    read while it runs (copied the moment it is current: the league removes old builds) counts
    the same matches on every page, the league's page included, and each bot's matches are its
    wins, draws and losses."""
    from arena.compete.league_publish import CURRENT

    league, data = tmp_path / "league", tmp_path / "data"
    write_settings(league, name="live", bots=["first-legal-c", "c-counter", "first-legal"],
                   workers=2, publish_every=1)
    proc = subprocess.Popen([*ARENA, "league", str(league), "--data", str(data)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    seen: dict[str, int] = {}  # build name -> matches it shows
    try:
        deadline = time.monotonic() + 300
        while len(seen) < 3 and time.monotonic() < deadline and proc.poll() is None:
            current = league / "public" / CURRENT
            build = current.resolve() if current.is_symlink() else None
            if build is None or build.name in seen:
                time.sleep(0.1)
                continue
            copy = tmp_path / f"copy-{build.name}"
            try:
                shutil.copytree(build, copy)
            except (OSError, shutil.Error):  # removed under us by a later switch: the next one
                continue
            records, waiting = check_build(copy, deal_sets(league), every_replay=False)
            ladder = (copy / PAGE).read_text(encoding="utf-8")
            assert f"{len(records)} matches" in ladder, (len(records), ladder[:2000])
            leaderboard = {row[1].split("\xa0")[-1].strip(): int(row[5])
                           for row in tables(copy / "index.html")["leaderboard"]}
            assert sum(leaderboard.values()) == 2 * len(records)
            seen[build.name] = len(records)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    assert len(seen) >= 3 and max(seen.values()) > 0, (seen, out[-2000:], err[-2000:])
