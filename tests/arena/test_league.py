"""A standing league (issue 19, arena/league.py): real bot processes, real SQLite files, the real
``arena`` command in its own process.

The acceptance test starts a league of three cheap bots, submits a fourth while it runs, sees it
play and appear in the published page, stops the league with SIGTERM, continues it, and checks that
nothing was lost or duplicated. The other tests are small: a pair cut in half by a kill is completed
on the same deals, membership is read between rounds, the publish switch is atomic, settings
errors are one line."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.bot_specs import build_c_bot
from arena.cli import app
from arena.league import (CONFIG_NAME, LeagueConfig, current_members, init_league,
                          league_pairs, load_league_config, pair_matches, read_ladder, run_league,
                          set_membership)
from arena.league_publish import BUILDS, CURRENT, _switch, _write_league_page
from arena.records import read_record
from arena.registry import Registry
from arena.store import DB_NAME
from arena.types import ConfigError

ARENA = [sys.executable, "-m", "arena.cli"]
WAIT_S = 120      # a loaded 2-core machine is slow to start Python processes
runner = CliRunner()


def write_settings(folder: Path, **settings: object) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    lines = [f"{key} = {json.dumps(value)}" for key, value in settings.items()]
    (folder / CONFIG_NAME).write_text("\n".join(lines) + "\n")


def read_store(folder: Path, sql: str, args: tuple[object, ...] = ()) -> list[tuple]:
    try:
        db = sqlite3.connect(f"file:{folder / DB_NAME}?mode=ro", uri=True, timeout=30)
    except sqlite3.OperationalError:  # not created yet
        return []
    try:
        return db.execute(sql, args).fetchall()
    except sqlite3.OperationalError:  # its tables not created yet
        return []
    finally:
        db.close()


def wait_for(what: str, check, proc: subprocess.Popen | None = None, timeout: float = WAIT_S):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"the league ended (status {proc.returncode}) before {what}:\n{out}\n{err}")
        time.sleep(0.2)
    pytest.fail(f"timed out waiting for {what}")


def check_whole(folder: Path, name: str) -> list[str]:
    """Every stored pair complete, on one deal set, with its records; match ids unique. Returns
    the stored match ids."""
    ids = [row[0] for row in read_store(folder, "SELECT match_id FROM matches")]
    assert len(ids) == len(set(ids))
    db = sqlite3.connect(f"file:{folder / DB_NAME}?mode=ro", uri=True)
    try:
        pairs = league_pairs(db, name)
    finally:
        db.close()
    assert [p.pair_no for p in pairs] == list(range(len(pairs)))  # numbered without a gap
    assert all(len(p.stored) == 2 for p in pairs), [p for p in pairs if len(p.stored) != 2]
    assert set(ids) == {i for p in pairs for i in p.stored}
    for pair in pairs:
        sets = read_store(folder, "SELECT DISTINCT deal_set FROM matches WHERE pair_index = ? "
                          "AND match_id LIKE 'L%'", (pair.pair_no,))
        assert len(sets) == 1
    for (record,) in read_store(folder, "SELECT record FROM matches"):
        assert (folder / record).is_file()
    return ids


@pytest.mark.slow
def test_a_league_takes_a_submitted_bot_while_it_runs_and_continues_after_sigterm(tmp_path):
    data = tmp_path / "data"
    league = tmp_path / "league"
    write_settings(league, name="acceptance", bots=["first-legal-c", "c-counter", "first-legal"],
                   registered=True, workers=2, publish_every=0)
    proc = subprocess.Popen([*ARENA, "league", str(league), "--data", str(data)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        wait_for("a pair", lambda: len(read_store(league, "SELECT 1 FROM matches")) >= 2, proc)
        # A fourth bot is submitted with arena submit while the league runs (registered = true).
        program = build_c_bot("first-legal-c")
        submitted = subprocess.run([*ARENA, "submit", str(program), "--name", "newbie", "--data",
                                    str(data), "--matches", "2"], capture_output=True, text=True,
                                   timeout=WAIT_S)
        assert submitted.returncode == 0, submitted.stdout + submitted.stderr
        newbie = wait_for("the new bot's matches", lambda: read_store(
            league, "SELECT DISTINCT bot FROM seats WHERE bot LIKE 'newbie@%'"), proc)[0][0]
        before = set(r[0] for r in read_store(league, "SELECT match_id FROM matches"))
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=WAIT_S)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 128 + signal.SIGTERM, out + err
    assert "stopped:" in err and "newbie" in out and "joined the ladder" in out
    # The stop published: the new bot is on the report and the league page, behind `current`.
    public = league / "public"
    assert (public / CURRENT).is_symlink()
    index = (public / CURRENT / "index.html").read_text()
    assert newbie in index
    page = (public / CURRENT / "league.html").read_text()
    assert "<td>newbie</td><td>" + newbie.partition("@")[2] in page
    assert (public / CURRENT / "league_history.svg").is_file()
    stored = set(r[0] for r in read_store(league, "SELECT match_id FROM matches"))
    assert before <= stored
    # Only whole pairs are published: a match whose partner (same deals) is still to be played
    # would show its cards (arena.report.public.waiting_for_partner).
    per_set: dict[str, set[str]] = {}
    for match_id, deal_set in read_store(league, "SELECT match_id, deal_set FROM matches"):
        per_set.setdefault(deal_set, set()).add(match_id)
    whole = {m for ids in per_set.values() if len(ids) == 2 for m in ids}
    published = {p.stem for p in (public / CURRENT / "records").iterdir()}
    assert published == whole, (published ^ whole)

    # Continued (in this process, not publishing again: each publish draws the report's charts):
    # what was cut off is completed first, then one more pair; nothing lost or doubled.
    progress = run_league(league, data=data, max_pairs=1, publish=False)
    assert progress.pairs == 1
    ids = check_whole(league, "acceptance")
    assert stored <= set(ids) and len(ids) >= len(stored) + 2
    status = runner.invoke(app, ["league", "status", str(league), "--data", str(data)])
    assert status.exit_code == 0, status.output
    assert "newbie" in status.output and f"{len(ids)} matches" in status.output


def test_a_pair_cut_in_half_is_completed_with_its_versions_on_the_same_deals(tmp_path):
    """As after a kill -9 between a pair's two matches: the store holds one, the pair's row says
    who played. Meanwhile the registered bot got a new version. The continued league plays the
    missing match with the version the pair started with, on the same cards (seats swapped), then
    a new pair with the new version, which has replaced the old one in the ladder; the old one's
    matches stay in the history and on the league page."""
    data = tmp_path / "data"
    league = tmp_path / "league"
    write_settings(league, name="halves", bots=["first-legal-c"], registered=True, workers=2)
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
    _write_league_page(league, build, "halves", rows, counts)
    page = (build / "league.html").read_text()
    assert "<td>retired</td><td>mine</td><td>11111111</td>" in page
    assert (build / "league_history.svg").stat().st_size > 0


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
    unknown = runner.invoke(app, ["league", "remove", str(league), "nobody", *data])
    assert unknown.exit_code == 2 and "not in the league" in unknown.output
    no_league = runner.invoke(app, ["league", "status", str(tmp_path / "none"), *data])
    assert no_league.exit_code == 2 and "league.toml is missing" in no_league.output
    (league / CONFIG_NAME).write_text('bots = "greedy"\n')
    wrong = runner.invoke(app, ["league", "status", str(league), *data])
    assert wrong.exit_code == 2 and "must be a list" in wrong.output
    assert "Traceback" not in wrong.output
    (league / CONFIG_NAME).write_text('profile = "three_player"\n')
    with pytest.raises(ConfigError, match="two-player profiles"):
        load_league_config(league)


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
