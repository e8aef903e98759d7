"""One ``--data DIR`` option (or ``$ARENA_DATA``) for every command that names bots: a bot submitted
into a data folder is found by name by ``play``, ``tournament``, ``bots`` and ``replay`` (issue 14).

End to end: real ``arena`` processes, a real registry in a temporary data folder, real matches.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "bots" / "example"

pytestmark = pytest.mark.slow


def arena(*args: str, cwd: Path, data_env: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run the ``arena`` command line in ``cwd``; ``$ARENA_DATA`` is ``data_env`` or unset."""
    env = {k: v for k, v in os.environ.items() if k != "ARENA_DATA"}
    if data_env is not None:
        env["ARENA_DATA"] = str(data_env)
    return subprocess.run([sys.executable, "-m", "arena.cli.main", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=240)


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    """A data folder holding one submitted bot, ``example``."""
    work = tmp_path_factory.mktemp("data-option")
    folder = work / "data"
    done = arena("submit", str(EXAMPLE), "--matches", "2", "--decision-ms", "2000",
                 "--data", str(folder), cwd=work)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (folder / "registry" / "registry.sqlite").is_file()
    return folder


def registered_version(data: Path) -> str:
    with sqlite3.connect(data / "registry" / "registry.sqlite") as db:
        return str(db.execute("SELECT version FROM bots WHERE name = 'example'").fetchone()[0])


def test_bots_list_and_show_find_the_bot_by_flag_and_by_environment(data, tmp_path) -> None:
    for flag, env in ((["--data", str(data)], None), ([], data)):
        listed = arena("bots", "list", *flag, cwd=tmp_path, data_env=env)
        assert listed.returncode == 0 and "example" in listed.stdout, listed.stderr
        shown = arena("bots", "show", "example", *flag, cwd=tmp_path, data_env=env)
        assert shown.returncode == 0 and registered_version(data) in shown.stdout, shown.stderr


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_play_finds_a_submitted_bot_and_replay_finds_its_record(data, tmp_path, how) -> None:
    flag = ["--data", str(data)] if how == "flag" else []
    env = data if how == "environment" else None
    played = arena("play", "example", "random", "--seed", "5", *flag, cwd=tmp_path, data_env=env)
    assert played.returncode == 0, played.stdout + played.stderr
    # The record goes into the data folder, not into results/ under the working folder.
    assert not (tmp_path / "results").exists()
    records = sorted((data / "play").glob("*-example-vs-random-play-seeded.jsonl"))
    assert records, played.stdout
    header = json.loads(records[-1].read_text().splitlines()[0])
    assert header["bots"][0]["name"] == "example"
    # A record path relative to the data folder, as `arena play` writes it, replays.
    replayed = arena("replay", str(records[-1].relative_to(data)), *flag, cwd=tmp_path,
                     data_env=env)
    assert replayed.returncode == 0, replayed.stderr
    assert "example vs random" in replayed.stdout


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_a_tournament_finds_a_submitted_bot_and_stores_its_version(data, tmp_path, how) -> None:
    flag = ["--data", str(data)] if how == "flag" else []
    env = data if how == "environment" else None
    name = f"data-{how}"
    run = arena("tournament", "--no-report", "-b", "example", "-b", "random", "-n", "2", "--workers", "1",
                "--name", name, *flag, cwd=tmp_path, data_env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    db_path = data / name / "results.sqlite"  # the output defaults to DATA/<name>
    with sqlite3.connect(db_path) as db:
        bots = dict(db.execute("SELECT name, version FROM bots").fetchall())
        played = db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    assert bots["example"] == registered_version(data) and played == 2


def test_without_the_data_folder_the_name_is_unknown_in_one_line(data, tmp_path) -> None:
    empty = tmp_path / "empty"
    played = arena("play", "example", "random", "--data", str(empty), cwd=tmp_path)
    assert played.returncode == 2
    assert "unknown bot 'example'" in played.stderr
    assert "Traceback" not in played.stderr and len(played.stderr.strip().splitlines()) == 1
    run = arena("tournament", "--no-report", "-b", "example", "-b", "random", "-n", "2", "--data", str(empty),
                cwd=tmp_path)
    assert run.returncode == 2 and "unknown bot 'example'" in run.stderr, run.stderr


def test_a_submitted_bot_plays_itself_with_its_own_files(data, tmp_path) -> None:
    # Both seats get a renamed copy of the spec; a copy that dropped the registered folder left
    # the bot without its files, and every such match was a no contest.
    played = arena("play", "example", "example", "--data", str(data), cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    assert "wins the match" in played.stdout and "forfeit" not in played.stdout, played.stdout
