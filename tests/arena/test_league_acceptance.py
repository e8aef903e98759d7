"""The standing league end to end (issue 19's acceptance): real bot processes, real SQLite files,
the real ``arena`` command in its own process. A league of three cheap bots runs; a fourth is
submitted with ``arena submit`` while it runs, plays and appears in the published page; SIGTERM
stops the league (and publishes); it continues with nothing lost or duplicated."""

from __future__ import annotations

import os
import re
import signal
import subprocess

import pytest
from typer.testing import CliRunner

from arena.entrants.bot_specs import build_c_bot
from arena.cli.main import app
from arena.compete.league import run_league
from arena.compete.league_publish import CURRENT
from arena.report.archive import records_in
from league_util import ARENA, WAIT_S, check_whole, read_store, wait_for, write_settings

runner = CliRunner()


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
    if "did not finish" in out.strip().splitlines()[-1]:  # the stop's publish, bounded in time
        made = subprocess.run([*ARENA, "league", "publish", str(league), "--data", str(data)],
                              capture_output=True, text=True, timeout=WAIT_S)
        assert made.returncode == 0, made.stdout + made.stderr
    # The stop published: the new bot is on the report and the league page, behind `current`.
    public = league / "public"
    assert (public / CURRENT).is_symlink()
    index = (public / CURRENT / "index.html").read_text()
    assert newbie in index
    assert '<a href="league.html">' in index  # the report leads to the ladder, and back
    page = (public / CURRENT / "league.html").read_text()
    assert re.search(r"<td>newbie(&nbsp;<span class=\"mark\"[^>]*>\?</span>)?</td>\s*<td><code>"
                     + newbie.partition("@")[2], page) and 'href="index.html"' in page
    assert (public / CURRENT / "league_history.svg").is_file()
    stored = set(r[0] for r in read_store(league, "SELECT match_id FROM matches"))
    assert before <= stored
    # Only whole pairs are published: a match whose partner (same deals) is still to be played
    # would show its cards (arena.report.public.waiting_for_partner).
    per_set: dict[str, set[str]] = {}
    for match_id, deal_set in read_store(league, "SELECT match_id, deal_set FROM matches"):
        per_set.setdefault(deal_set, set()).add(match_id)
    whole = {m for ids in per_set.values() if len(ids) == 2 for m in ids}
    published = {r.removeprefix("records/").removesuffix(".jsonl")
                 for r in records_in(public / CURRENT)}  # loose or packed
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
