"""A standing league (issue 19, arena/compete/league.py), in small pieces: a pair cut in half by a kill is
completed with its bot versions on the same deals (real bot processes, real SQLite files), a new
version replaces the old one, membership is read between rounds, the publish switch is atomic,
settings errors are one line. The whole league, end to end: test_league_acceptance.py."""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.entrants.bot_specs import build_c_bot
from arena.cli.main import app
from arena.compete.league_config import CONFIG_NAME, LeagueConfig, init_league, load_league_config
from arena.compete.league_members import current_members, set_membership
from arena.compete.league_store import pair_matches, read_ladder
from arena.compete.league import run_league
from arena.compete.league_publish import BUILDS, CURRENT, _switch, _write_league_page
from arena.report.snapshot import read_snapshot
from arena.match.records import read_record
from arena.entrants.registry import Registry
from arena.results.store import DB_NAME
from arena.types import ConfigError
from league_util import check_whole, read_store, write_settings

runner = CliRunner()


def test_a_pair_cut_in_half_is_completed_with_its_versions_on_the_same_deals(tmp_path):
    """As after a kill -9 between a pair's two matches: the store holds one, the pair's row says
    who played. Meanwhile the registered bot got a new version. The continued league plays the
    missing match with the version the pair started with, on the same cards (seats swapped), then
    a new pair with the new version, which has replaced the old one in the ladder; the old one's
    matches stay in the history and on the league page."""
    data = tmp_path / "data"
    league = tmp_path / "league"
    write_settings(league, name="halves", bots=["first-legal-c"], registered=True, workers=1)
    with Registry.open(data) as registry:
        registry.add("mine", "1111111111111111", (str(build_c_bot("first-legal-c")),), ".", None,
                     {}, {})
    run_league(league, data=data, max_pairs=1, publish=False)
    (first, second) = pair_matches("halves", 0, *read_store(league, "SELECT a, b FROM league_pairs")[0])
    db = sqlite3.connect(league / DB_NAME)
    with db:  # what a kill before the second match's commit leaves
        for table in ("deals", "seats", "matches"):
            db.execute(f"DELETE FROM {table} WHERE match_id = ?", (second.match_id,))
    db.close()
    os.unlink(league / "records" / f"{second.match_id}.jsonl")
    time.sleep(1.1)  # the registry orders versions by submission time, in seconds
    with Registry.open(data) as registry:
        registry.add("mine", "2222222222222222", (str(build_c_bot("sixtysix-c")),), ".", None,
                     {}, {})
    progress = run_league(league, data=data, max_pairs=1, publish=False)
    assert progress.pairs == 1 and progress.played == 3
    check_whole(league, "halves")
    assert sorted(read_store(league, "SELECT seat0, seat1 FROM matches WHERE pair_index = 0")) == \
        [("first-legal-c", "mine@11111111"), ("mine@11111111", "first-legal-c")]
    assert {a for pair in read_store(league, "SELECT a, b FROM matches m JOIN league_pairs p "
                                     "ON m.pair_index = p.pair_no WHERE pair_no = 1")
            for a in pair} == {"first-legal-c", "mine@22222222"}
    orders = [[d["order"] for d in read_record(league / "records" / f"{m.match_id}.jsonl").deal_starts]
              for m in (first, second)]
    shared = min(map(len, orders))
    assert shared >= 1 and orders[0][:shared] == orders[1][:shared]
    rows, counts = read_ladder(league, data)
    assert counts == {"matches": 4, "pairs": 2, "waiting": 0}
    assert [(r.name, r.active, r.matches) for r in rows if r.family == "mine"] == \
        [("mine@22222222", True, 2), ("mine@11111111", False, 2)]
    build = tmp_path / "build"
    build.mkdir()
    with read_snapshot(league / DB_NAME, hold_back=True) as snapshot:
        _write_league_page(snapshot.db, build, "halves", rows, counts)
    page = (build / "league.html").read_text()
    assert "<td>retired</td><td>mine</td><td><code>11111111</code></td>" in page
    assert (build / "league_history.svg").stat().st_size > 0


def test_a_members_file_made_but_not_yet_written_is_read_as_no_members(tmp_path):
    """``arena league add`` makes ``members.sqlite`` (private) before its tables: a running league
    that read it in between ended with "no such table: members" (status 2), in the suite once.
    Read then, it holds no members yet; the next read (every second) sees the row."""
    from arena.compete.league_members import MEMBERS_NAME, membership, rating_reset_requests

    league = tmp_path / "league"
    init_league(league)
    sqlite3.connect(league / MEMBERS_NAME).close()  # the file, empty, as _write makes it first
    assert membership(league) == {} and rating_reset_requests(league) == []
    set_membership(league, "greedy", "greedy", "in")
    assert membership(league) == {"greedy": ("greedy", "in")}


def test_membership_is_the_settings_plus_added_less_removed(tmp_path):
    league = tmp_path / "league"
    init_league(league)
    config = load_league_config(league)
    names = lambda: [m.family for m in current_members(league, config, tmp_path / "data")[0]]
    assert names() == ["first-legal", "random"]
    set_membership(league, "greedy", "greedy", "in")
    set_membership(league, "random", "random", "out")
    assert names() == ["first-legal", "greedy"]
    set_membership(league, "random", "random", "in")
    assert names() == ["first-legal", "greedy", "random"]
    # A command that names the league's folder (its store holds the deal key) never joins.
    set_membership(league, "spy", f"/bin/cat {league / DB_NAME}", "in")
    members, problems = current_members(league, config, tmp_path / "data")
    assert "spy" not in [m.family for m in members] and "cat" not in [m.family for m in members]
    assert any("may not see" in line for line in problems), problems


def test_a_new_version_of_a_registered_bot_replaces_the_old_one_in_the_ladder(tmp_path):
    """The registry is read between rounds: a bot's newest version is its member; a pinned
    NAME@VERSION stays. (Registered directly: qualification is arena submit's, tested there.)"""
    data = tmp_path / "data"
    league = tmp_path / "league"
    write_settings(league, bots=["random"], registered=True)
    config = load_league_config(league)
    program = str(build_c_bot("first-legal-c"))
    with Registry.open(data) as registry:
        registry.add("mine", "1111111111111111", (program,), ".", None, {}, {})
    assert [m.name for m in current_members(league, config, data)[0]] == ["mine@11111111", "random"]
    time.sleep(1.1)  # the registry's order is by submission time, in seconds
    with Registry.open(data) as registry:
        registry.add("mine", "2222222222222222", (program, "--v2"), ".", None, {}, {})
    members = current_members(league, config, data)[0]
    assert [m.name for m in members] == ["mine@22222222", "random"]
    assert members[0].family == "mine" and members[0].spec.argv[-1] == "--v2"
    pinned = replace(config, registered=False, bots=("random", "mine@1111"))
    assert [m.name for m in current_members(league, pinned, data)[0]] == ["mine@11111111", "random"]


def test_league_commands_add_remove_and_refuse_bad_input_in_one_line(tmp_path):
    league = tmp_path / "league"
    data = ["--data", str(tmp_path / "data")]
    assert runner.invoke(app, ["league", "init", str(league)]).exit_code == 0
    added = runner.invoke(app, ["league", "add", str(league), "greedy", *data])
    assert added.exit_code == 0, added.output
    removed = runner.invoke(app, ["league", "remove", str(league), "random", *data])
    assert removed.exit_code == 0, removed.output
    config = load_league_config(league)
    assert [m.family for m in current_members(league, config, tmp_path / "data")[0]] == \
        ["first-legal", "greedy"]
    typo = runner.invoke(app, ["league", "add", str(league), "greddy", *data])
    assert typo.exit_code == 2 and "no bot named 'greddy'" in typo.output
    unknown = runner.invoke(app, ["league", "remove", str(league), "nobody", *data])
    assert unknown.exit_code == 2 and "not in the league" in unknown.output
    no_league = runner.invoke(app, ["league", "status", str(tmp_path / "none"), *data])
    assert no_league.exit_code == 2 and "league.toml is missing" in no_league.output
    (league / CONFIG_NAME).write_text('bots = "greedy"\n')
    wrong = runner.invoke(app, ["league", "status", str(league), *data])
    assert wrong.exit_code == 2 and "must be a list" in wrong.output
    assert "Traceback" not in wrong.output
    (league / CONFIG_NAME).write_text('affinity = "yes"\n')
    with pytest.raises(ConfigError, match='affinity.*must be true, false or "auto"'):
        load_league_config(league)
    for value in ('"auto"', "true", "false"):
        (league / CONFIG_NAME).write_text(f"affinity = {value}\n")
        expected = {"true": True, "false": False}.get(value, "auto")
        assert load_league_config(league).affinity == expected
    (league / CONFIG_NAME).write_text('profile = "five_player"\n')
    with pytest.raises(ConfigError, match="five_player"):
        load_league_config(league)
    for profile in ("three_player", "four_player"):  # groups (test_league_groups.py)
        (league / CONFIG_NAME).write_text(f'profile = "{profile}"\n')
        assert load_league_config(league).profile == profile


def test_publishing_switches_current_in_one_rename_and_keeps_two_builds(tmp_path):
    """`current` always names a whole build: the new link is made beside it and renamed over it;
    the build it replaced stays (a request may be reading it), older ones go."""
    builds = tmp_path / BUILDS

    def build(n: str) -> Path:
        (builds / n).mkdir(parents=True)
        (builds / n / "index.html").write_text(n)
        return builds / n

    assert _switch(tmp_path, build("000001")) is None
    assert (tmp_path / CURRENT / "index.html").read_text() == "000001"
    inode = os.lstat(tmp_path / CURRENT).st_ino
    assert _switch(tmp_path, build("000002")) == builds / "000001"
    assert (tmp_path / CURRENT / "index.html").read_text() == "000002"
    assert os.lstat(tmp_path / CURRENT).st_ino != inode  # a new link, renamed in: never missing
    assert os.readlink(tmp_path / CURRENT) == "builds/000002"  # relative: the folder may move
    build("000003")
    (builds / ".000004.publishing-1").mkdir()  # an interrupted publish's leftovers
    assert _switch(tmp_path, builds / "000003") == builds / "000002"
    assert sorted(p.name for p in builds.iterdir()) == ["000002", "000003"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_league_config_defaults_are_the_examples():
    example = LeagueConfig()
    assert example.publish_every == 300 and example.settings()["league"] is True


@pytest.mark.timeout(120)
def test_a_bot_that_cannot_start_at_first_is_tried_again_and_joins(tmp_path, monkeypatch):
    """A version whose first start fails (here: it exits before its greeting for the first few
    seconds, as a bot on a machine too loaded to start it in time would fail) is not left out for
    the rest of the run: it is tried again, and joins. Before, it waited out the run, and a
    league of two waited for a second bot for ever."""
    import sys

    from arena.compete import league as league_module

    monkeypatch.setattr(league_module, "RETRY_FIRST_S", 0.5)
    bad_bot = Path(__file__).parent / "fixtures" / "bad_bot.py"
    late = f"{sys.executable} {bad_bot} late_start {time.time() + 2:.3f}"
    league = tmp_path / "league"
    write_settings(league, name="late", bots=["random", late], workers=1, max_deals=2)
    told: list[str] = []
    progress = run_league(league, data=tmp_path / "data", max_pairs=1, publish=False,
                          on_progress=lambda p: told.append(p.event) if p.event else None)
    failed = [line for line in told if "cannot start and does not join now" in line]
    assert failed and "tried again in 0.5 s" in failed[0]
    assert progress.pairs == 1 and progress.played == 2
    assert told.index(failed[0]) < next(i for i, line in enumerate(told)
                                        if "joined the ladder" in line and "bad_bot" in line)
    assert len({row[0] for row in read_store(league, "SELECT bot FROM seats")}) == 2
