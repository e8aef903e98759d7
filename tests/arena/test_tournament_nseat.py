"""Three- and four-player tournaments end to end (issue 16), as test_tournament.py and test_cluster.py
check two-player ones: real bot processes (the N-seat fixture bot, written from the wire format
alone), a real SQLite file, the real CLI process, a real Dask scheduler and workers."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.match.records import read_record, replay_record
from arena.compete.schedule import partnership_groups, three_player_sets
from arena.compete.tournament import ConfigError, load_config, run_tournament

ARENA = [sys.executable, "-m", "arena.cli.main"]
FIXTURES = Path(__file__).parent / "fixtures"
NSEAT = f"{sys.executable} {FIXTURES / 'nseat_bot.py'}"
PARTNER = f"{sys.executable} {FIXTURES / 'nseat_partner.py'}"
# Three bots: with four players each is doubled against the other two (a bot partners itself).
BOTS = [f"{NSEAT} play", f"{NSEAT} counter", f"{PARTNER} counter"]
NAMES = ["nseat_bot", "nseat_bot-2", "nseat_partner"]
PROFILES = {3: "three_player", 4: "four_player"}
runner = CliRunner()


def outcome(db_path: Path) -> dict[str, list]:
    """Everything a tournament stored but its timings, every side's figures included."""
    db = sqlite3.connect(db_path)
    try:
        return {
            "matches": db.execute(
                "SELECT match_id, sched_order, seat0, seat1, deal_set, first_dealer, pair_index, "
                "swapped, winner, reason, points0, points1, offender, fault, detail, record, "
                "players FROM matches ORDER BY sched_order").fetchall(),
            "deals": db.execute("SELECT * FROM deals ORDER BY match_id, deal_no").fetchall(),
            "seats": db.execute("SELECT match_id, seat, bot, correct_claims, wrong_claims, "
                                "missed_claims, decisions, declined FROM seats "
                                "ORDER BY match_id, seat").fetchall(),
            "sides": db.execute("SELECT * FROM sides ORDER BY match_id, side").fetchall(),
            "deal_sides": db.execute("SELECT * FROM deal_sides ORDER BY match_id, deal_no, side")
            .fetchall(),
            "bots": db.execute("SELECT * FROM bots ORDER BY name").fetchall(),
            "tournament": db.execute("SELECT name, config FROM tournament").fetchall(),
        }
    finally:
        db.close()


def settings(tmp_path: Path, players: int, folder: str, **kw: object) -> dict[str, object]:
    # Three bots at a four-player table: each partners itself, which must be asked for.
    return {"name": f"n{players}", "bots": BOTS, "profile": PROFILES[players], "deal_sets": 2,
            "seed": 4, "workers": 2, "output": str(tmp_path / folder),
            "allow_self_partner": players == 4, **kw}


def self_partner_flag(players: int) -> list[str]:
    return ["--allow-self-partner"] if players == 4 else []


def schedule(players: int, sets: int = 2):
    make = three_player_sets if players == 3 else partnership_groups
    return make(f"n{players}", NAMES, sets)


@pytest.fixture(scope="module", params=[3, 4], ids=["three", "four"])
def played(request, tmp_path_factory) -> tuple[int, Path, Path]:
    """The same tournament run with one worker and with two (12 matches each); the tests below
    and the kill and cluster tests compare against these runs."""
    players = request.param
    tmp_path = tmp_path_factory.mktemp(f"nseat{players}")
    one = run_tournament(load_config(None, settings(tmp_path, players, "w1", workers=1)))
    two = run_tournament(load_config(None, settings(tmp_path, players, "w2", workers=2)))
    return players, one, two


def test_the_store_holds_exactly_the_scheduled_matches_each_replaying(played):
    players, _, db_path = played
    stored = outcome(db_path)
    expected = schedule(players)
    assert len(expected) == 12
    assert [m[0] for m in stored["matches"]] == [s.match_id for s in expected]
    assert all(m[9] == "target" and m[16] == players for m in stored["matches"])
    seats: dict[str, list[str]] = {}
    for match_id, seat, bot, *_ in stored["seats"]:
        seats.setdefault(match_id, []).append(bot)
    assert seats == {s.match_id: list(s.seats) for s in expected}
    for match_id, record in [(m[0], m[15]) for m in stored["matches"]]:
        rec = read_record(db_path.parent / record)
        assert rec.header["match_id"] == match_id
        replay_record(rec)  # the record replays to the stored result
    # Every seating of a deal set is dealt the same cards: the same first dealer and the same
    # label (deal_keys.py), only the seats differ; the next set has its own.
    sets = {(m[4], m[5]) for m in stored["matches"]}
    assert len(sets) == 2
    # Whole matches: every match has every side's points and every deal its sides' figures.
    sides = 3 if players == 3 else 2
    assert len(stored["sides"]) == sides * 12
    assert len(stored["deal_sides"]) == sides * len(stored["deals"])


def test_one_or_two_workers_give_identical_results_and_ratings(played):
    _, one, two = played
    assert outcome(one) == outcome(two)
    boards = [runner.invoke(app, ["leaderboard", str(db.parent), "--format", "csv"]).output
              for db in (one, two)]
    assert boards[0] == boards[1]
    assert boards[0].splitlines()[0] == ("rank,bot,mu,sigma,conservative,matches,win_pct,"
                                         "score_pct,points_per_deal,forfeits,declined,wins,draws,"
                                         "losses,score_low,score_high,elo,elo_low,elo_high,"
                                         "los_above,separated")
    assert all(name in boards[0] for name in NAMES)
    assert (two.parent / "report" / "index.html").is_file() is False  # the API writes no report
    done = runner.invoke(app, ["report", str(two.parent)])
    assert done.exit_code == 0 and (two.parent / "report" / "index.html").is_file()


@pytest.mark.parametrize("players", [3, 4])
def test_a_bot_that_declines_the_variant_stops_the_tournament_before_anything_runs(tmp_path,
                                                                                  players):
    bots = [*BOTS[:2], f"{NSEAT} decline"]
    with pytest.raises(ConfigError, match=f"'nseat_bot-3' does not support {PROFILES[players]} "
                                          r"\(no partners here\)"):
        run_tournament(load_config(None, settings(tmp_path, players, "d", bots=bots)))
    assert not (tmp_path / "d" / "results.sqlite").exists()
    done = runner.invoke(app, ["tournament", "--no-report", *[a for b in bots for a in ("-b", b)], "--profile",
                               PROFILES[players], *self_partner_flag(players),
                               "-o", str(tmp_path / "cli")])
    assert done.exit_code == 2 and f"does not support {PROFILES[players]}" in done.stderr
    assert done.exception is None or isinstance(done.exception, SystemExit)


def test_a_forfeiting_bot_is_rated_last_and_the_tournament_completes(tmp_path):
    bots = [*BOTS[:2], f"{NSEAT} illegal"]
    db_path = run_tournament(load_config(None, settings(tmp_path, 3, "f", bots=bots,
                                                        deal_sets=1)))
    with sqlite3.connect(db_path) as db:
        rows = db.execute("SELECT reason, winner, offender, fault FROM matches").fetchall()
    assert len(rows) == 6 and all(r[0] == "forfeit" and r[1] is None and r[3] for r in rows)
    table = runner.invoke(app, ["leaderboard", str(db_path.parent), "--format", "csv"]).output
    last = table.splitlines()[-1].split(",")
    assert last[1] == "nseat_bot-3" and last[9] == "6"  # forfeits


@pytest.mark.slow
def test_kill_9_then_resume_equals_an_uninterrupted_run(played, tmp_path):
    players, _, reference = played
    flags = ["--profile", PROFILES[players], "-n", "2", "--seed", "4", "-w", "2", "--name",
             f"n{players}", *[a for b in BOTS for a in ("-b", b)], *self_partner_flag(players)]
    killed = tmp_path / "killed"
    proc = subprocess.Popen(ARENA + ["tournament", "--no-report", *flags, "-o", str(killed)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    db_path = killed / "results.sqlite"
    deadline = time.monotonic() + 120
    stored = 0
    while time.monotonic() < deadline and stored < 1:  # the first match is committed at once,
        time.sleep(0.01)  # the next ones in groups: waiting for more could find the run over
        if db_path.exists():
            try:
                with sqlite3.connect(db_path) as db:
                    stored = db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
            except sqlite3.Error:
                pass
    os.killpg(proc.pid, signal.SIGKILL)  # the runner and its workers, mid-run
    proc.wait()
    partial = outcome(db_path)
    assert 1 <= len(partial["matches"]) < 12, "the kill should land mid-run"
    # Whole matches only: every stored match has all its seats and sides.
    ids = {m[0] for m in partial["matches"]}
    assert {s[0] for s in partial["sides"]} == ids
    assert len(partial["seats"]) == players * len(ids)
    result = subprocess.run(ARENA + ["tournament", "--resume", str(killed),
                                     *self_partner_flag(players)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    # The same as the uninterrupted run of the same settings (through the API: the same store).
    assert outcome(db_path) == outcome(reference)
    assert "score_pct" in result.stdout and (killed / "report" / "index.html").is_file()


@pytest.mark.slow
def test_the_same_seed_stores_the_same_results_locally_and_on_the_cluster(played, tmp_path):
    pytest.importorskip("distributed")
    from test_cluster import local_dask

    players, _, local = played
    with local_dask(tmp_path / "dask", workers=2) as (dask, _):
        remote = run_tournament(load_config(None, settings(tmp_path, players, "remote",
                                                           cluster=dask.address)))
    assert outcome(remote) == outcome(local)
    for record in sqlite3.connect(remote).execute("SELECT record FROM matches").fetchall():
        replay_record(read_record(remote.parent / record[0]))


def test_a_bot_partners_itself_only_when_asked_to(tmp_path):
    """Four players, fewer than four bots: each bot partners itself, and its two instances play
    one match at the same time: no sandbox stops them signalling their hands to each other (their
    CPU use, read in /proc/stat). Refused unless asked for (fail closed), by each run, as a
    weaker sandbox is: a resume asks again."""
    flags = ["tournament", "--no-report", *[a for b in BOTS for a in ("-b", b)], "--profile",
             "four_player", "-n", "1", "-w", "1", "-o", str(tmp_path / "t")]
    refused = runner.invoke(app, flags)
    assert refused.exit_code == 2 and "each bot would partner itself" in refused.stderr
    assert "--allow-self-partner" in refused.stderr and not (tmp_path / "t").exists()
    with pytest.raises(ConfigError, match="partner itself"):
        load_config(None, {"bots": BOTS[:2], "profile": "four_player"})
    done = runner.invoke(app, [*flags, "--allow-self-partner"])
    assert done.exit_code == 0, done.stderr
    resume = ["tournament", "--no-report", "--resume", str(tmp_path / "t")]
    refused = runner.invoke(app, resume)
    assert refused.exit_code == 2 and "--allow-self-partner" in refused.stderr
    resumed = runner.invoke(app, [*resume, "--allow-self-partner"])
    assert resumed.exit_code == 0, resumed.stderr
    # Four bots or more never partner themselves: nothing to ask.
    four = load_config(None, {"bots": ["a", "b", "c", "d"], "profile": "four_player"})
    assert not four.allow_self_partner and "allow_self_partner" not in four.to_dict()
