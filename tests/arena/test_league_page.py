"""A league's ladder as ``league status`` and the league page show it (issue 30 point 6): the same
figures as the report's (from the ratings the league keeps, and from a recompute where they do not
fit the store), the status command's three formats, the page's rank moves and replay links, and
the history chart drawn forward. A real league plays first; larger leagues are synthetic
(synthetic_league.py), written into the real schema."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import shutil
import sqlite3
from dataclasses import replace

from typer.testing import CliRunner

from arena.cli.main import app
from arena.compete.league_store import read_ladder
from arena.compete.league import run_league
from arena.results.league_ladder import (FIELDS, LEVEL, SETTLED_MATCHES, SETTLED_SIGMA,
                                         kept_replay, read_figures, settle)
from arena.compete.league_publish import publish_league
from arena.compete.league_config import load_league_config
from arena.results.rating_replay import rate
from arena.report.league_page import (LADDER_JSON, PAGE, history_lines, recent_matches,
                                      write_chart, write_league_page)
from arena.report.replay import replay_name
from arena.report.snapshot import read_snapshot
from arena.results.ratings import leaderboard as ratings_leaderboard
from arena.results.ratings import rating_history
from arena.results.stats import LEVEL as STATS_LEVEL
from arena.results.stats import leaderboard
from arena.results.store import DB_NAME, connect_read_only
from league_util import write_settings
from synthetic_league import sql, synthetic_league

runner = CliRunner()
BOTS = ["alpha", "beta", "gamma", "delta", "mine@11111111", "mine@22222222"]


def same_as_the_report(rows, db: sqlite3.Connection) -> None:
    """Every row's rating exactly the report's, and its W-D-L, matches and score interval."""
    board = leaderboard(db).set_index("bot")
    assert {r.name for r in rows if r.matches} == set(board.index[board["matches"] > 0])
    for row in rows:
        if row.name not in board.index:
            continue
        theirs = board.loc[row.name]
        assert (row.mu, row.sigma) == (theirs["mu"], theirs["sigma"]), row.name  # to the last bit
        assert (row.matches, row.wins, row.draws, row.losses) == \
            (theirs["matches"], theirs["wins"], theirs["draws"], theirs["losses"]), row.name
        for mine, report in ((row.score, "score_pct"), (row.score_low, "score_low"),
                             (row.score_high, "score_high")):
            assert math.isclose(mine, theirs[report], abs_tol=1e-9) or \
                (math.isnan(mine) and math.isnan(theirs[report])), (row.name, report)


def test_the_ladder_of_a_played_league_is_the_reports_kept_or_held_back(tmp_path):
    """A real league: its kept ratings (league_ratings, written with each match) give exactly the
    report's figures, for the store as it is and for a publish's snapshot that holds back a pair
    half stored."""
    league, data = tmp_path / "league", tmp_path / "data"
    write_settings(league, name="kept", bots=["first-legal-c", "c-counter", "random"], workers=1,
                   max_deals=20)
    run_league(league, data=data, max_pairs=6, publish=False)
    assert sql(league / DB_NAME, "SELECT through, matches FROM league_rated") == [(12, 12)]
    rows, counts = read_ladder(league, data)
    assert counts == {"matches": 12, "pairs": 6, "waiting": 0}
    db = connect_read_only(league / DB_NAME)
    try:
        same_as_the_report(rows, db)
    finally:
        db.close()
    # As a kill between a pair's two matches leaves it: the kept ratings stop below that pair.
    sql(league / DB_NAME, "DELETE FROM matches WHERE sched_order = 11")
    sql(league / DB_NAME, "UPDATE league_rated SET through = 10, matches = 10")
    sql(league / DB_NAME, "DELETE FROM league_ratings")  # (the rest as settled below pair 5)
    with sqlite3.connect(league / DB_NAME, isolation_level=None) as db:
        db.execute("BEGIN IMMEDIATE")
        db.execute("UPDATE league_rated SET through = 0, matches = 0")
        settle(db, 10)
        db.execute("COMMIT")
    rows, counts = read_ladder(league, data)
    assert counts == {"matches": 11, "pairs": 6, "waiting": 1}
    with read_snapshot(league / DB_NAME, hold_back=True) as snapshot:
        held, _ = read_ladder(league, data, db=snapshot.db)
        assert sum(r.matches for r in held) == 2 * 10
        same_as_the_report(held, snapshot.db)


def test_kept_ratings_are_used_where_they_fit_and_recomputed_where_they_do_not(tmp_path):
    path = synthetic_league(tmp_path / "league", BOTS, pairs=150, open_pairs=4)
    db = connect_read_only(path)
    try:
        every = db.execute("SELECT sched_order, seat0, seat1, winner FROM matches").fetchall()
        ratings, _ = read_figures(db)
        assert {b: (r.pi, r.tau) for b, r in ratings.items()} == \
            {b: (r.pi, r.tau) for b, r in rate(every)[0].items()}  # to the last bit
    finally:
        db.close()
    # Settled in steps (as matches come) or at once: the same table.
    once = sql(path, "SELECT * FROM league_ratings ORDER BY bot")
    with sqlite3.connect(path, isolation_level=None) as db:
        db.execute("BEGIN IMMEDIATE")
        db.execute("UPDATE league_rated SET through = 0, matches = 0")
        db.execute("DELETE FROM league_ratings")
        for through in range(0, 2 * 146 + 1, 2):
            settle(db, through)
        db.execute("COMMIT")
    assert sql(path, "SELECT * FROM league_ratings ORDER BY bot") == once
    # The table is read, not recomputed: a kept rating that fits the store is what status says.
    sql(path, "UPDATE league_ratings SET tau = tau + 1 WHERE bot = 'alpha'")
    db = connect_read_only(path)
    try:
        assert read_figures(db)[0]["alpha"].mu != rate(every)[0]["alpha"].mu
    finally:
        db.close()
    # A store changed by hand (a match taken out below `through`) no longer fits: recomputed.
    sql(path, "DELETE FROM matches WHERE sched_order = 4")
    db = connect_read_only(path)
    try:
        left = db.execute("SELECT sched_order, seat0, seat1, winner FROM matches").fetchall()
        assert {b: r.mu for b, r in read_figures(db)[0].items()} == \
            {b: r.mu for b, r in rate(left)[0].items()}
        same_as_the_report(read_ladder(tmp_path / "league", tmp_path / "data", db=db)[0], db)
    finally:
        db.close()
    assert LEVEL == STATS_LEVEL


def _full_replay(db: sqlite3.Connection) -> tuple[dict, list]:
    every = db.execute("SELECT sched_order, seat0, seat1, winner FROM matches").fetchall()
    ratings, history = rate(every, start={})  # from the first match, no cache
    return {b: (r.mu, r.sigma) for b, r in ratings.items()}, \
        [(p.order, p.bot, p.mu, p.sigma) for p in history]


def _report_replay(db: sqlite3.Connection) -> tuple[dict, list]:
    board = ratings_leaderboard(db)
    history = rating_history(db)
    return {b: (m, s) for b, m, s in zip(board["bot"], board["mu"], board["sigma"])}, \
        list(history.itertuples(index=False, name=None))


def test_a_report_continues_the_rating_history_the_league_keeps(tmp_path):
    # Issue 30: a first publish of a league of 10,000 matches spent seconds replaying TrueSkill
    # from the first match; the running league keeps every change with its ratings.
    path = synthetic_league(tmp_path / "league", BOTS, pairs=150, open_pairs=4)
    db = connect_read_only(path)
    try:
        through, _, kept = kept_replay(db)
        assert 0 < through < db.execute("SELECT MAX(sched_order) FROM matches").fetchone()[0]
        assert len(kept) > 2 * 100
        assert _report_replay(db) == _full_replay(db)  # to the last bit, kept part and after it
    finally:
        db.close()
    # Read, not recomputed: a changed kept point is what the report shows.
    sql(path, "UPDATE league_rating_history SET mu = mu + 1 WHERE rowid = "
              "(SELECT MIN(rowid) FROM league_rating_history)")
    db = connect_read_only(path)
    try:
        assert _report_replay(db)[1][0][2] == _full_replay(db)[1][0][2] + 1
    finally:
        db.close()
    # Kept in steps, as a league stores match after match, or at once: the same rows.
    sql(path, "UPDATE league_rating_history SET mu = mu - 1 WHERE rowid = "
              "(SELECT MIN(rowid) FROM league_rating_history)")
    once = sql(path, "SELECT sched_order, bot, mu, sigma FROM league_rating_history ORDER BY rowid")
    with sqlite3.connect(path, isolation_level=None) as writer:
        writer.execute("BEGIN IMMEDIATE")
        for table in ("league_ratings", "league_rated", "league_rating_history", "league_history"):
            writer.execute(f"DELETE FROM {table}")
        for step in range(0, through + 1, 2):
            settle(writer, step)
        writer.execute("COMMIT")
    assert sql(path, "SELECT sched_order, bot, mu, sigma FROM league_rating_history "
                     "ORDER BY rowid") == once
    # A store from before the history (ratings kept, no history): replayed in full, and made
    # again by a league's start (settle's check), history and ratings from the first match.
    sql(path, "DELETE FROM league_history")
    db = connect_read_only(path)
    try:
        assert kept_replay(db) is None
        assert _report_replay(db) == _full_replay(db)
    finally:
        db.close()
    with sqlite3.connect(path, isolation_level=None) as writer:
        writer.execute("BEGIN IMMEDIATE")
        settle(writer, through + 1)  # a match stored: the history is not continued from nothing
        assert writer.execute("SELECT COUNT(*) FROM league_history").fetchone()[0] == 0
        settle(writer, through + 1, check=True)
        writer.execute("COMMIT")
    db = connect_read_only(path)
    try:
        assert kept_replay(db) is not None
        assert _report_replay(db) == _full_replay(db)
    finally:
        db.close()
    # A store changed by hand below the kept part: replayed in full.
    sql(path, "DELETE FROM matches WHERE sched_order = 4")
    db = connect_read_only(path)
    try:
        assert kept_replay(db) is None
        assert _report_replay(db) == _full_replay(db)
    finally:
        db.close()


def test_league_status_prints_a_table_json_and_csv_with_the_same_fields(tmp_path):
    league, data = tmp_path / "league", ["--data", str(tmp_path / "data")]
    synthetic_league(league, [*BOTS, "random"], pairs=40, active=["random"], open_pairs=1)
    table = runner.invoke(app, ["league", "status", str(league), *data])
    assert table.exit_code == 0, table.output
    assert "79 matches in 40 duplicate pairs; 1 pair(s) waiting" in table.output
    assert re.search(r"^  1\?? random ", table.output, re.M) and "retired" in table.output
    as_json = runner.invoke(app, ["league", "status", str(league), "--format", "json", *data])
    assert as_json.exit_code == 0, as_json.output
    ladder = json.loads(as_json.output)
    assert (ladder["matches"], ladder["pairs"], ladder["waiting"]) == (79, 40, 1)
    as_csv = runner.invoke(app, ["league", "status", str(league), "-f", "csv", *data])
    assert as_csv.exit_code == 0, as_csv.output
    lines = list(csv.DictReader(io.StringIO(as_csv.output)))
    assert tuple(lines[0]) == FIELDS and [tuple(b) for b in ladder["bots"]] == [FIELDS] * 7
    assert [b["name"] for b in ladder["bots"]] == [line["name"] for line in lines]
    rows, _ = read_ladder(league, tmp_path / "data")
    assert [b["name"] for b in ladder["bots"]] == [r.name for r in rows]
    for bot, line, row in zip(ladder["bots"], lines, rows):
        assert bot["rank"] == (1 if row.name == "random" else None)
        assert (bot["wins"], bot["draws"], bot["losses"], bot["matches"]) == \
            (row.wins, row.draws, row.losses, row.matches)
        assert bot["provisional"] == (row.matches < SETTLED_MATCHES or row.sigma > SETTLED_SIGMA)
        assert str(bot["wins"]) == line["wins"] and str(bot["mu"]) == line["mu"]
        assert bot["score"] is None if math.isnan(row.score) else \
            bot["score"] == round(row.score, 2) and line["score"] == str(bot["score"])
        assert bot["joined"] == "2026-11-28T10:00:00Z"
        line = next(x for x in table.output.splitlines() if f" {row.family} " in x and
                    (row.version or "-") in x)
        assert f"{row.wins}-{row.draws}-{row.losses}" in line
    wrong = runner.invoke(app, ["league", "status", str(league), "--format", "yaml", *data])
    assert wrong.exit_code == 2 and "unknown format 'yaml'" in wrong.output
    assert "Traceback" not in wrong.output



def test_league_status_says_a_damaged_store_in_one_line(tmp_path):
    """Status does not scan every page first (most of its second on a large store): a damaged
    page it reads is said as the scan says it, one line, exit 2, never a traceback."""
    path = synthetic_league(tmp_path / "league", BOTS, pairs=400, open_pairs=0)
    size = path.stat().st_size
    with open(path, "r+b") as fh:  # every page after the first few: the tables' own pages
        page = 4096
        for offset in range(8 * page, size - page, page):
            fh.seek(offset + 100)
            fh.write(b"\xff" * 200)
    data = ["--data", str(tmp_path / "data")]
    result = runner.invoke(app, ["league", "status", str(tmp_path / "league"), *data])
    assert result.exit_code == 2, result.output
    assert "is damaged" in result.output and "restore it from a backup" in result.output
    assert "Traceback" not in result.output

def test_the_history_chart_draws_each_line_forward_one_point_per_pair(tmp_path):
    """Both matches of a pair were drawn at one x, a vertical stroke per pair: with the diagonals
    between pairs they read as lines running back and forth. Now one point per pair, x rising."""
    path = synthetic_league(tmp_path / "league", BOTS, pairs=80, open_pairs=0)
    db = connect_read_only(path)
    try:
        rows, _ = read_ladder(tmp_path / "league", tmp_path / "data", db=db)
        rows = [replace(r, active=True) for r in rows]  # every family in the chart
        history = rating_history(db)
        unit_of = dict(db.execute("SELECT sched_order, pair_index FROM matches"))
        lines = history_lines(history, rows, unit_of, shown=10)
        figure = write_chart(db, tmp_path, rows)
    finally:
        db.close()
    assert {version for _, version, _, _ in lines} == set(BOTS)
    for _, version, x, y in lines:
        assert x == sorted(set(x)) and len(x) == len(y)  # strictly rising: one point per pair
        mine = history[history["bot"] == version]
        assert y[-1] == mine["mu"].iloc[-1]  # the line ends at the rating after its last match
    drawn = [line for line in figure.axes[0].lines if len(line.get_xdata()) > 1]
    assert len(drawn) == len(BOTS)
    for line in drawn:
        x = list(line.get_xdata())
        assert x == sorted(set(x))
    assert (tmp_path / "league_history.svg").stat().st_size > 0


def test_the_page_shows_moves_provisional_marks_and_links_what_the_build_holds(tmp_path):
    league = tmp_path / "league"
    path = synthetic_league(league, [*BOTS, "random", "first-legal"], pairs=60,
                            active=["random", "first-legal"], open_pairs=0)
    first, second = tmp_path / "b1", tmp_path / "b2"
    for build in (first, second):
        build.mkdir()
    with read_snapshot(path, hold_back=True) as snapshot:
        rows, counts = read_ladder(league, tmp_path / "data", db=snapshot.db)
        write_league_page(snapshot.db, first, "synthetic", rows, counts)
    page = (first / PAGE).read_text(encoding="utf-8")
    assert "Moves are shown from the next build on" in page
    ranks = {b["name"]: b["rank"] for b in json.loads((first / LADDER_JSON).read_text())["bots"]}
    assert sorted(r for r in ranks.values() if r) == [1, 2]
    # The two bots of the ladder swap places in the next build: its page says who moved.
    upper = min((n for n in ranks if ranks[n]), key=lambda n: ranks[n])
    lower = next(n for n in ranks if ranks[n] == 2)
    sql(path, "UPDATE league_ratings SET tau = pi * (SELECT tau / pi FROM league_ratings "
              "WHERE bot = ?) + pi WHERE bot = ?", upper, lower)
    # The latest matches: a replay where the build holds one, else the record, else nothing.
    with read_snapshot(path, hold_back=True) as snapshot:
        latest = snapshot.db.execute("SELECT record FROM matches ORDER BY sched_order DESC "
                                     "LIMIT 3").fetchall()
        (replay, record, neither) = [r for (r,) in latest]
        for target, name in ((second / replay_name(replay), "replay"), (second / record, "rec")):
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(name)
        rows, counts = read_ladder(league, tmp_path / "data", db=snapshot.db)
        write_league_page(snapshot.db, second, "synthetic", rows, counts, previous=first)
        recent = recent_matches(snapshot.db, second, {})
    page = (second / PAGE).read_text(encoding="utf-8")
    ladder = re.search(r'<table id="ladder">.*?<tbody>(.*?)</tbody>', page, re.S).group(1)
    assert re.search(rf"<td class=\"n won\">▲1</td>\s*<td>{re.escape(lower)}", ladder)
    assert re.search(rf"<td class=\"n lost\">▼1</td>\s*<td>{re.escape(upper)}", ladder)
    assert [m["kind"] for m in recent[:3]] == ["replay", "record", ""]
    assert recent[0]["href"] == replay_name(replay) and recent[2]["href"] is None
    assert f'<a href="{replay_name(replay)}">replay</a>' in page
    assert f'<a href="{record}">record</a>' in page
    assert len(re.findall(r"<tr>", page.split('<table id="recent">')[1].split("</table>")[0])) == 1 + 20
    # Provisional: every synthetic bot of few matches carries the mark, and the page says why.
    assert 'title="provisional: the rating has not settled yet">?</span>' in ladder
    assert f"fewer than {SETTLED_MATCHES}" in page


def test_a_publish_writes_the_page_and_the_next_one_compares_ranks(tmp_path):
    """Through publish_league: each build has league.json, and the second build's page compares
    with the first (a build seeded from the current one does not keep the old page's files)."""
    league, data = tmp_path / "league", tmp_path / "data"
    write_settings(league, name="moves", bots=["first-legal-c", "c-counter"], workers=1,
                   max_deals=20)
    run_league(league, data=data, max_pairs=2, publish=False)
    config = load_league_config(league)
    first = publish_league(league, config, data).parent.resolve()
    assert "Moves are shown from the next build on" in (first / PAGE).read_text()
    second = publish_league(league, config, data).parent.resolve()
    assert first != second
    page = (second / PAGE).read_text()
    assert "since the previous build" in page and "<td class=\"n undecided\">–</td>" in page
    links = re.findall(r'<a href="(replays/[^"]+)">replay</a>', page)
    assert len(links) == 4 and all((second / link).is_file() for link in links)
    shutil.rmtree(first, ignore_errors=True)


def test_a_match_without_a_winner_moves_no_rating_in_the_report_either(tmp_path):
    """pandas read the winner column of a store holding a NULL as floats, NULL as NaN, and the
    report's replay took NaN (not None) for a win of seat 1: its ratings then differed from the
    league's, which leave a tie at the deal limit unrated (RULES.md §8)."""
    from arena.results.ratings import leaderboard as ratings_leaderboard

    path = synthetic_league(tmp_path / "league", BOTS, pairs=100)
    db = connect_read_only(path)
    try:
        every = db.execute("SELECT sched_order, seat0, seat1, winner FROM matches").fetchall()
        assert any(w is None for *_, w in every)
        board = ratings_leaderboard(db).set_index("bot")
    finally:
        db.close()
    assert {b: board.loc[b, "mu"] for b in BOTS} == {b: r.mu for b, r in rate(every)[0].items()}


def test_league_status_imports_no_pandas():
    """pandas takes most of a second to import, as long as league status may take in all."""
    import subprocess
    import sys

    code = "import sys, arena.compete.league, arena.cli.league; print('pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_starting_league_continues_its_ladder_from_the_kept_ratings(tmp_path):
    # Its start replayed every match (57 s at 100,000); the kept ratings give the same ladder.
    from arena.compete.league import Ladder

    path = synthetic_league(tmp_path / "league", BOTS, pairs=150, open_pairs=4)
    db = connect_read_only(path)
    try:
        assert kept_replay(db) is not None
        kept = Ladder.from_store(db)
    finally:
        db.close()
    sql(path, "UPDATE league_rated SET matches = matches + 1")  # no longer fits: replayed
    db = connect_read_only(path)
    try:
        replayed = Ladder.from_store(db)
    finally:
        db.close()
    assert {b: (r.pi, r.tau) for b, r in kept.ratings.items()} == \
        {b: (r.pi, r.tau) for b, r in replayed.ratings.items()}
    assert kept.matches == replayed.matches and sum(kept.matches.values()) == 2 * (2 * 150 - 4)
    # ... and the kept ones are read: a changed kept rating is the ladder's.
    sql(path, "UPDATE league_rated SET matches = matches - 1")
    sql(path, "UPDATE league_ratings SET tau = tau + 1 WHERE bot = 'alpha'")
    db = connect_read_only(path)
    try:
        assert Ladder.from_store(db).ratings["alpha"].mu != replayed.ratings["alpha"].mu
    finally:
        db.close()
