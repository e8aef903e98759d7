"""Three- and four-player tournaments without playing (issue 16): the store's schema 3 and the upgrade
of schema-2 stores, the settings' -n, the multi-team leaderboard and partner table, and the report,
on stores filled through the real ``Store`` API (synthetic_store.fill_seated). Real N-seat matches
end to end are in test_tournament_nseat.py."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import synthetic_store
from arena.cli.main import app
from arena.results.ratings import ENV, leaderboard, partner_table, rate_ranked, ranks_of, rating_history
from arena.report import write_report
from arena.report.charts import CHARTS, build_charts
from arena.report.data import read_report_data
from arena.compete.schedule import partnership_groups, three_player_sets
from arena.results.store import SCHEMA_VERSION, Store, StoreError, connect_read_only
from arena.compete.tournament import ConfigError, load_config, run_tournament, schedule_of
from arena.types import MatchEnding, MatchResult, SeatStats

runner = CliRunner()
THREE = ["alpha", "beta", "gamma", "delta"]
FOUR = ["alpha", "beta", "gamma", "delta", "eps"]


def sql(path: Path, query: str, *args) -> list[tuple]:
    db = sqlite3.connect(path)
    try:
        return db.execute(query, args).fetchall()
    finally:
        db.close()


def board(path: Path) -> pd.DataFrame:
    db = connect_read_only(path)
    try:
        return leaderboard(db)
    finally:
        db.close()


@pytest.fixture(scope="module")
def seated(tmp_path_factory) -> dict[int, Path]:
    """A finished synthetic tournament folder per player count; 'delta' forfeits now and then."""
    folders = {}
    for players, names in ((3, THREE), (4, FOUR)):
        folder = tmp_path_factory.mktemp(f"seated{players}")
        synthetic_store.fill_seated(folder / "results.sqlite", players, names, deal_sets=2,
                                    flaky="delta")
        folders[players] = folder
    return folders


# -- the store -------------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [3, 4])
def test_every_seat_and_side_of_an_nseat_match_is_stored(seated, players):
    db = seated[players] / "results.sqlite"
    sides = 3 if players == 3 else 2
    matches = sql(db, "SELECT match_id, players, seat0, seat1, points0, points1 FROM matches")
    assert matches and all(m[1] == players for m in matches)
    for match_id, _, seat0, seat1, points0, points1 in matches:
        seats = sql(db, "SELECT seat, bot FROM seats WHERE match_id = ? ORDER BY seat", match_id)
        assert [s[0] for s in seats] == list(range(players))
        assert (seats[0][1], seats[1][1]) == (seat0, seat1)
        side_points = sql(db, "SELECT side, points FROM sides WHERE match_id = ? ORDER BY side",
                          match_id)
        assert [s[0] for s in side_points] == list(range(sides))
        assert (side_points[0][1], side_points[1][1]) == (points0, points1)
        # The match's points are the sum of what each side scored in each deal.
        per_side = dict(sql(db, "SELECT side, SUM(awarded) FROM deal_sides WHERE match_id = ? "
                                "GROUP BY side", match_id))
        assert [per_side.get(k, 0) for k in range(sides)] == [p for _, p in side_points]


def test_a_result_with_the_wrong_number_of_seats_is_refused_and_nothing_stored(tmp_path):
    entry = three_player_sets("t", ["a", "b", "c"], 1)[0]
    store = Store.open(tmp_path / "results.sqlite")
    store.register_bots([(n, [n], "") for n in "abc"])
    result = MatchResult(entry.match_id, 0, MatchEnding.TARGET, (7, 0), (), (SeatStats("a"),
                                                                             SeatStats("b")))
    with pytest.raises(StoreError, match="3 seats scheduled but 2"):
        store.record_match(entry, result)
    assert store.finished_ids() == set()
    store.close()


def test_a_declined_match_is_stored_and_rates_nobody(tmp_path):
    path = tmp_path / "results.sqlite"
    schedule = three_player_sets("t", ["a", "b", "c"], 1)
    store = Store.open(path)
    store.begin_tournament("t", {"name": "t", "bots": ["a", "b", "c"], "profile": "three_player",
                                 "rules": {}, "deal_sets": 1})
    store.register_bots([(n, [n], "") for n in "abc"])
    for entry in schedule:
        declining = entry.seats.index("c")
        store.record_match(entry, MatchResult(
            entry.match_id, None, MatchEnding.DECLINED, (0, 0, 0), (),
            tuple(SeatStats(n) for n in entry.seats), declined=(declining,),
            detail="c does not support three_player"))
    store.close()
    assert sql(path, "SELECT bot, SUM(declined) FROM seats GROUP BY bot ORDER BY bot") == \
        [("a", 0), ("b", 0), ("c", 6)]
    table = board(path).set_index("bot")
    assert list(table["matches"]) == [0, 0, 0] and table.loc["c", "declined"] == 6
    assert (table["mu"] == ENV.mu).all() and (table["sigma"] == ENV.sigma).all()
    data = read_report_data(connect_read_only(path))
    assert int(data.mistakes.loc["c", "declined"]) == 6
    page = write_report(tmp_path).parent / "bots" / "c.html"
    assert "it declined the variant" in page.read_text()


def schema_2(path: Path) -> None:
    """Make a schema-3 store what an arena before N-seat tournaments wrote: schema 2."""
    db = sqlite3.connect(path)
    db.executescript("ALTER TABLE matches DROP COLUMN players; ALTER TABLE seats DROP COLUMN "
                     "declined; DROP TABLE sides; DROP TABLE deal_sides; "
                     "UPDATE meta SET value = '2' WHERE key = 'schema_version';")
    db.close()


def outcome(path: Path) -> tuple[list, list, list]:
    columns = ("match_id, sched_order, seat0, seat1, deal_set, first_dealer, pair_index, swapped, "
               "winner, reason, points0, points1, offender, fault, detail, record")
    return (sql(path, f"SELECT {columns} FROM matches ORDER BY sched_order"),
            sql(path, "SELECT * FROM deals ORDER BY match_id, deal_no"),
            sql(path, "SELECT match_id, seat, bot, correct_claims, wrong_claims, missed_claims "
                      "FROM seats ORDER BY match_id, seat"))


def test_a_schema_2_store_is_read_as_it_is_and_resumes_into_schema_3(tmp_path):
    settings = {"name": "old", "bots": ["random", "greedy"], "matches_per_pairing": 4, "seed": 5,
                "workers": 1}
    whole = run_tournament(load_config(None, {**settings, "output": str(tmp_path / "whole")}))
    old = run_tournament(load_config(None, {**settings, "output": str(tmp_path / "old")}))
    # An interrupted run of an older arena: schema 2 and the last two matches missing.
    db = sqlite3.connect(old)
    last = [r[0] for r in db.execute("SELECT match_id FROM matches ORDER BY sched_order DESC "
                                     "LIMIT 2")]
    for table in ("deals", "seats", "matches"):
        db.executemany(f"DELETE FROM {table} WHERE match_id = ?", [(m,) for m in last])
    db.commit()
    db.close()
    schema_2(old)
    before = old.read_bytes()
    table = board(old)  # a reader takes it as it is ...
    assert list(table["matches"]) == [2, 2]
    for command in (["leaderboard", str(old.parent)], ["report", str(old.parent)]):
        done = runner.invoke(app, command)
        assert done.exit_code == 0, done.output
    assert old.read_bytes() == before  # ... and changes nothing
    stored = outcome(old)
    # A resumed run brings it to schema 3 (nothing stored changes) and plays what is missing.
    run_tournament(load_config(None, {**settings, "output": str(tmp_path / "old")}), resume=True)
    assert sql(old, "SELECT value FROM meta WHERE key = 'schema_version'") == \
        [(str(SCHEMA_VERSION),)]
    resumed = outcome(old)
    assert all(set(part) >= set(kept) for part, kept in zip(resumed, stored))
    assert resumed == outcome(whole)
    assert sql(old, "SELECT DISTINCT players FROM matches") == [(2,)]
    pd.testing.assert_frame_equal(board(old), board(whole))


# -- settings: -n ----------------------------------------------------------------------------------

def test_n_is_deal_sets_for_nseat_profiles_and_matches_per_pairing_for_two():
    three = load_config(None, {"bots": THREE, "profile": "three_player", "matches_per_pairing": 3})
    assert three.deal_sets == 3 and "matches_per_pairing" not in three.to_dict()
    assert three.to_dict()["deal_sets"] == 3
    assert load_config(None, {"bots": THREE, "profile": "four_player",
                              "allow_self_partner": True}).deal_sets == 1
    two = load_config(None, {"bots": THREE, "matches_per_pairing": 6})
    assert two.deal_sets is None and "deal_sets" not in two.to_dict()
    # Resuming reads the stored settings back as they were.
    again = load_config(None, three.to_dict())
    assert again.to_dict() == three.to_dict()


def test_nseat_settings_mistakes_are_clear(tmp_path):
    toml = tmp_path / "t.toml"
    toml.write_text('bots = ["a", "b", "c"]\nprofile = "three_player"\nmatches_per_pairing = 4\n')
    with pytest.raises(ConfigError, match="give deal_sets"):
        load_config(toml, {})
    with pytest.raises(ConfigError, match="deal_sets is for three- and four-player"):
        load_config(None, {"bots": THREE, "deal_sets": 2})
    with pytest.raises(ConfigError, match="at least three bots"):
        load_config(None, {"bots": ["a", "b"], "profile": "three_player"})
    with pytest.raises(ConfigError, match="deal_sets .* must be a whole number >= 1"):
        load_config(None, {"bots": THREE, "profile": "three_player", "deal_sets": 0})
    done = runner.invoke(app, ["tournament", "-b", "random", "-b", "greedy", "--profile",
                               "three_player", "-o", str(tmp_path / "x")])
    assert done.exit_code == 2 and "at least three bots" in done.stderr
    assert done.exception is None or isinstance(done.exception, SystemExit)


@pytest.mark.parametrize("profile,bots,expected", [
    ("three_player", 3, 6), ("three_player", 5, 60), ("four_player", 2, 2), ("four_player", 3, 6),
    ("four_player", 4, 6), ("four_player", 6, 90)])
def test_what_a_schedule_costs_as_the_readme_says(profile, bots, expected):
    names = [f"b{i}" for i in range(bots)]
    config = load_config(None, {"bots": names, "profile": profile, "allow_self_partner": True})
    from arena.compete.tournament import rules_of
    assert len(schedule_of(config, rules_of(config), names)) == expected
    two = load_config(None, {"bots": names})
    assert len(schedule_of(two, rules_of(two), names)) == 4 * bots * (bots - 1) // 2


# -- ratings and the leaderboard -------------------------------------------------------------------

@pytest.mark.parametrize("players", [3, 4])
def test_ratings_replay_the_store_in_schedule_order_with_the_multi_team_model(seated, players):
    path = seated[players] / "results.sqlite"
    db = connect_read_only(path)
    try:
        table = leaderboard(db).set_index("bot")
        history = rating_history(db)
    finally:
        db.close()
    # The same ratings from rate_ranked fed by hand from the store's rows.
    games = []
    for match_id, order, winner, offender in sql(path, "SELECT match_id, sched_order, winner, "
                                                       "offender FROM matches"):
        seats = [b for (b,) in sql(path, "SELECT bot FROM seats WHERE match_id = ? ORDER BY seat",
                                   match_id)]
        points = tuple(p for (p,) in sql(path, "SELECT points FROM sides WHERE match_id = ? "
                                               "ORDER BY side", match_id))
        if players == 3:
            teams = tuple((b,) for b in seats)
            side = offender
        else:
            teams = ((seats[0], seats[2]), (seats[1], seats[3]))
            side = None if offender is None else offender % 2
        games.append((order, teams, ranks_of(players, points, winner, side)))
    ratings, _ = rate_ranked(games[::-1])
    for bot, rating in ratings.items():
        assert table.loc[bot, "mu"] == pytest.approx(rating.mu)
        assert table.loc[bot, "sigma"] == pytest.approx(rating.sigma)
    last = history.groupby("bot").last()
    assert dict(last["mu"]) == pytest.approx(dict(table["mu"]))


@pytest.mark.parametrize("players", [3, 4])
def test_the_leaderboard_is_the_same_whatever_order_matches_were_stored_in(tmp_path, seated,
                                                                           players):
    # The same results stored in reverse order: the same table, to the last digit.
    source = seated[players] / "results.sqlite"
    copy = tmp_path / "results.sqlite"
    db = sqlite3.connect(copy, isolation_level=None)
    db.execute("ATTACH ? AS src", (str(source),))
    db.execute("BEGIN")
    for (ddl,) in db.execute("SELECT sql FROM src.sqlite_master WHERE type = 'table'").fetchall():
        db.execute(ddl)
    for (name,) in db.execute("SELECT name FROM src.sqlite_master WHERE type = 'table'").fetchall():
        db.execute(f"INSERT INTO {name} SELECT * FROM src.{name} ORDER BY rowid DESC")
    db.execute("COMMIT")
    db.execute("DETACH src")
    db.close()
    pd.testing.assert_frame_equal(board(copy), board(source))


@pytest.mark.parametrize("players", [3, 4])
def test_leaderboard_figures_are_the_stores(seated, players):
    path = seated[players] / "results.sqlite"
    table = board(path).set_index("bot")
    sides = 3 if players == 3 else 2
    for bot in table.index:
        rows = sql(path, "SELECT DISTINCT m.match_id, s.seat, m.winner, m.offender FROM seats s "
                         "JOIN matches m USING (match_id) WHERE s.bot = ?", bot)
        by_match: dict[str, list] = {}
        for match_id, seat, winner, offender in rows:
            by_match.setdefault(match_id, []).append((seat, winner, offender))
        side = {m: (s[0][0] % 2 if players == 4 else s[0][0]) for m, s in by_match.items()}
        assert table.loc[bot, "matches"] == len(by_match)
        wins = sum(s[0][1] == side[m] for m, s in by_match.items())
        assert table.loc[bot, "win_pct"] == pytest.approx(100 * wins / len(by_match))
        forfeits = sum(any(seat == off for seat, _, off in s) for s in by_match.values())
        assert table.loc[bot, "forfeits"] == forfeits
        shares = []
        awarded = []
        for match_id in by_match:
            points = [p for (p,) in sql(path, "SELECT points FROM sides WHERE match_id = ? "
                                              "ORDER BY side", match_id)]
            shares.append(points[side[match_id]] / sum(points) if sum(points) else 1 / sides)
            awarded += [a for (a,) in sql(path, "SELECT awarded FROM deal_sides WHERE match_id = ? "
                                                "AND side = ?", match_id, side[match_id])]
        assert table.loc[bot, "score_pct"] == pytest.approx(100 * sum(shares) / len(shares))
        assert table.loc[bot, "points_per_deal"] == pytest.approx(sum(awarded) / len(awarded))
    assert table.loc["delta", "forfeits"] > 0


def test_the_partner_table_counts_every_partnership(seated):
    path = seated[4] / "results.sqlite"
    db = connect_read_only(path)
    try:
        partners = partner_table(db)
    finally:
        db.close()
    # Five bots: every pair partners in 2 of the 3 splits of each of the C(3,2)=3 groups holding
    # both ... counted from the schedule itself.
    expected: dict[tuple[str, str], int] = {}
    for entry in partnership_groups("synthetic", FOUR, 2):
        s = entry.seats
        for a, b in ((s[0], s[2]), (s[2], s[0]), (s[1], s[3]), (s[3], s[1])):
            expected[(a, b)] = expected.get((a, b), 0) + 1
    got = {(r.bot, r.partner): r.matches for r in partners.itertuples()}
    assert got == expected
    # Symmetric: a and b have the same record together.
    pairs = partners.set_index(["bot", "partner"])
    for (a, b), row in pairs.iterrows():
        assert (row["wins"], row["losses"]) == tuple(pairs.loc[(b, a), ["wins", "losses"]])


def test_a_bot_partnering_itself_is_one_player_weighted_twice(tmp_path):
    path = tmp_path / "results.sqlite"
    schedule = synthetic_store.fill_seated(path, 4, ["a", "b"], deal_sets=2,
                                           strength={"a": 2.0, "b": -2.0})
    assert all(e.seats[0] == e.seats[2] and e.seats[1] == e.seats[3] for e in schedule)
    table = board(path).set_index("bot")
    assert list(table["matches"].sort_index()) == [4, 4]
    assert table.loc["a", "mu"] > ENV.mu > table.loc["b", "mu"]
    db = connect_read_only(path)
    try:
        partners = partner_table(db)
    finally:
        db.close()
    assert {(r.bot, r.partner) for r in partners.itertuples()} == {("a", "a"), ("b", "b")}


def test_two_player_stores_keep_their_leaderboard_columns(tmp_path):
    synthetic_store.fill(tmp_path / "results.sqlite", bots=4)
    assert list(board(tmp_path / "results.sqlite").columns) == [
        "rank", "bot", "mu", "sigma", "conservative", "matches", "win_pct", "points_per_deal",
        "forfeits"]


# -- the report ------------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [3, 4])
def test_report_head_to_head_is_results_against_each_opponent_in_the_same_match(seated, players):
    path = seated[players] / "results.sqlite"
    data = read_report_data(connect_read_only(path))
    names = THREE if players == 3 else FOUR
    schedule = (three_player_sets if players == 3 else partnership_groups)("synthetic", names, 2)
    assert data.scheduled == len(schedule) == data.played
    met: dict[tuple[str, str], int] = {}
    for entry in schedule:
        for k, a in enumerate(entry.seats):
            for j, b in enumerate(entry.seats):
                if (k - j) % (2 if players == 4 else players):  # on different sides
                    met[(a, b)] = met.get((a, b), 0) + 1
    _, count = data.score_matrix()
    for (a, b), n in met.items():
        assert count.loc[a, b] == n, (a, b)
    score, _ = data.score_matrix()
    for a in names:
        for b in names:
            if a != b:  # a's score against b and b's against a add up to 100
                assert score.loc[a, b] + score.loc[b, a] == pytest.approx(100)
    assert data.deal_count == sql(path, "SELECT COUNT(*) FROM deals")[0][0]
    # Outcomes: each bot's deals, its side's results; a deal counts once per bot.
    per_bot = sql(path, "SELECT s.bot, COUNT(*) FROM deals d JOIN (SELECT DISTINCT match_id, bot "
                        "FROM seats) s USING (match_id) GROUP BY s.bot")
    assert dict(per_bot) == {b: int(n) for b, n in data.outcomes.sum(axis=1).items()}


@pytest.mark.parametrize("players", [3, 4])
def test_report_pages_for_nseat(seated, players):
    folder = seated[players]
    page = write_report(folder)
    text = page.read_text()
    names = THREE if players == 3 else FOUR
    leaderboard_rows = re.search(r'<table id="leaderboard">.*?<tbody>(.*?)</tbody>', text, re.S)
    assert leaderboard_rows.group(1).count("<tr>") == len(names)
    assert "score %" in text
    assert ('id="partner-table"' in text) == (players == 4)
    for chart in CHARTS:
        assert (page.parent / f"{chart}.png").stat().st_size > 5000
    # Every match is listed on each of its bots' pages once, linked to its record.
    ids = {m for (m,) in sql(folder / "results.sqlite", "SELECT match_id FROM matches")}
    for bot in names:
        bot_page = (page.parent / "bots" / f"{bot}.html").read_text()
        body = re.search(r'<table id="matches-table">.*?<tbody>(.*?)</tbody>', bot_page, re.S)
        rows = re.findall(r'<a href="\.\./\.\./records/([^"]+)\.jsonl">', body.group(1))
        mine = {m for (m,) in sql(folder / "results.sqlite",
                                  "SELECT DISTINCT match_id FROM seats WHERE bot = ?", bot)}
        assert sorted(rows) == sorted(mine) and mine <= ids
        assert ('id="partners"' in bot_page) == (players == 4)


def test_charts_draw_for_nseat_and_say_what_a_cell_means(seated):
    data = read_report_data(connect_read_only(seated[3] / "results.sqlite"))
    figures = build_charts(data)
    note = figures["head_to_head"]._supxlabel.get_text()  # noqa: SLF001 - the figure's own note
    assert "different sides" in note


@pytest.mark.parametrize("case,args,expected", [
    # (reason, winner side, points, side, claimant's side, points awarded, claim by this bot)
    ("3p wrong claim, the claimant", ("wrong_claim", None, 2, 1, 1, 4, True), "lost: own wrong claim"),
    ("3p wrong claim, an opponent", ("wrong_claim", None, 2, 0, 1, 4, True),
     "won on opponent's mistake"),
    ("4p wrong claim by the partner", ("wrong_claim", 1, 2, 0, 0, 2, False),
     "lost: partner's wrong claim"),
    ("4p wrong claim by itself", ("wrong_claim", 1, 2, 0, 0, 2, True), "lost: own wrong claim"),
    ("4p wrong claim, the other side", ("wrong_claim", 1, 2, 1, 0, 2, False),
     "won on opponent's mistake"),
    ("3p claim, a third side", ("claim", 2, 2, 0, 2, 2, False), "lost"),
    ("3p claim, the claimant", ("claim", 2, 2, 2, 2, 2, True), "won by claim for 2"),
    ("nobody scores", ("higher_total", None, 0, 0, None, 0, True), "drawn"),
])
def test_a_deal_ending_is_seen_from_each_side(case, args, expected):
    from arena.report.data import seated_deal_ending
    *rest, own = args
    assert seated_deal_ending(*rest, own_claim=own) == expected, case


def test_the_leaderboard_command_shows_partners_with_four_players(seated):
    four = runner.invoke(app, ["leaderboard", str(seated[4])])
    three = runner.invoke(app, ["leaderboard", str(seated[3])])
    assert four.exit_code == three.exit_code == 0
    assert "with each partner" in four.output and "with each partner" not in three.output
    assert "score_pct" in three.output and "declined" in three.output
    csv = runner.invoke(app, ["leaderboard", str(seated[4]), "--format", "csv"]).output
    assert len(csv.splitlines()) == len(FOUR) + 1  # csv and json: the one table
