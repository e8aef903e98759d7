"""A tournament never hangs, leaks processes or corrupts a record; files give clear errors (issue 14).

Everything here is real: the `arena` command as a subprocess, its spawned workers, sandboxed bots,
SQLite files, signals. Processes are counted by a tag each test gives the processes it starts
(``bot_procs.processes_of``), so another arena running on the machine does not disturb the count.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.match.records import read_record, replay_record
from arena.results.store import APPLICATION_ID
from arena.compete.tournament import load_config, run_tournament
from bot_procs import ENV_TAG, processes_of
from signal_at import signal_when

ARENA = [sys.executable, "-m", "arena.cli.main"]
FIRST_LEGAL = Path(__file__).resolve().parents[2] / "bots" / "minimal" / "first_legal.py"
IS_ROOT = os.geteuid() == 0
runner = CliRunner()


def arena(*args: str) -> tuple[int, str]:
    """The CLI in this process (quicker than a new interpreter, where signals play no part): its
    exit status and output; a traceback would be an exception other than SystemExit."""
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        f"traceback: {result.exception!r}\n{result.output}"
    return result.exit_code, result.output


def tagged_env(tag: str) -> dict[str, str]:
    return {**os.environ, ENV_TAG: tag}


def quick_bots(tag: str) -> list[str]:
    """Three fast bots carrying ``tag`` in their command lines (first_legal.py ignores arguments)."""
    return [f"python3 {FIRST_LEGAL} {tag}", f"python3 {FIRST_LEGAL} {tag} b",
            f"python3 {FIRST_LEGAL} {tag} c"]


def bot_flags(bots: list[str]) -> list[str]:
    return [arg for bot in bots for arg in ("-b", bot)]


def wait_gone(tag: str, timeout_s: float) -> list[int]:
    deadline = time.monotonic() + timeout_s
    while (left := processes_of(tag)) and time.monotonic() < deadline:
        time.sleep(0.02)
    return left


def assert_store_whole(folder: Path) -> int:
    """Every stored match has its deals and seats, and its record replays to the same deals."""
    db = sqlite3.connect(f"file:{folder / 'results.sqlite'}?mode=ro", uri=True)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        matches = db.execute("SELECT match_id, record, reason FROM matches").fetchall()
        for match_id, record, reason in matches:
            deals = db.execute("SELECT deal_no, winner, awarded FROM deals WHERE match_id = ? "
                               "ORDER BY deal_no", (match_id,)).fetchall()
            assert db.execute("SELECT COUNT(*) FROM seats WHERE match_id = ?",
                              (match_id,)).fetchone()[0] == 2
            state = replay_record(read_record(folder / record))
            assert [(r.deal_no, r.settlement.winner, r.awarded) for r in state.results] == deals
            assert reason != "target" or state.is_over
        return len(matches)
    finally:
        db.close()


# -- stopping ------------------------------------------------------------------------------------

def interrupt_once(out: Path, signum: signal.Signals, anchor: str, delay_s: float,
                   workers: int) -> tuple:
    """Start a piped tournament, send ``signum`` ``delay_s`` after ``anchor`` (the folder lock:
    the bots passed the pre-flight; or the first match record: matches are being played and
    stored), and check how it ended. Returns (exit status, matches stored)."""
    tag = uuid.uuid4().hex
    proc = subprocess.Popen(
        ARENA + ["tournament", "--no-report", *bot_flags(quick_bots(tag)), "-n", "12", "-w", str(workers), "--name",
                 out.name, "-o", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=tagged_env(tag))
    try:
        mark = out / "tournament.lock" if anchor == "lock" else out / "records"
        deadline = time.monotonic() + 30
        while not (mark.exists() and (anchor == "lock" or any(mark.iterdir()))):
            if proc.poll() is not None or time.monotonic() >= deadline:
                proc.kill()
                pytest.fail(f"{out.name} did not start: {proc.communicate()[1].decode()}")
            time.sleep(0.005)
        time.sleep(delay_s)
        proc.send_signal(signum)
        sent = time.monotonic()
        try:
            _, stderr = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{out.name}: no exit within 5 s of {signum.name}")
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    text = stderr.decode()
    assert "Traceback" not in text, text
    # 2 s is the requirement; the margin is for a shared machine, where even exiting the
    # interpreter can take half a second. Far beyond a core's share of work (a load of 16 on 2
    # cores took 3.5 s) only the 5 s above holds: a stop that hangs still fails there.
    busy = os.getloadavg()[0] > 4 * (os.cpu_count() or 1)
    assert busy or took < 3.0, f"{out.name}: {took:.1f} s to stop"
    assert wait_gone(tag, 2.0) == [], f"{out.name}: processes left"
    if not (out / "results.sqlite").exists():  # stopped between the lock and the first write
        assert proc.returncode == 128 + signum and "stopped before anything was stored" in text
        return signum.name, anchor, workers, round(delay_s, 2), proc.returncode, 0, round(took, 2)
    stored = assert_store_whole(out)
    # It came after the last match: the run ended (0), or the signal's default action ended it
    # once the tournament had given its handlers back (-signum, every match stored; seen once,
    # beside another arena).
    if proc.returncode in (0, -signum) or "the tournament in" in text:
        assert stored == 36 and "stopped:" not in text
    else:
        assert proc.returncode == 128 + signum, (proc.returncode, text)
        assert f"stopped: {stored} of 36 matches stored; resume with: arena tournament " \
               f"--resume {out}" in text, text
    return signum.name, anchor, workers, round(delay_s, 2), proc.returncode, stored, round(took, 2)


# The moments, as (anchor, delay in s). A run of 36 matches by quick bots stores its first match
# a few hundredths of a second after its lock, and its last some 0.5 s after it on an idle machine
# (0.2 s for 12 matches, since matches are committed in groups: issue 18); the table takes ~0.6 s
# more. The delays land in distinct windows of it (seen in the outcomes printed below), later ones
# on a busy machine:
# - lock + 0.0: between the lock and the store's creation and schema (the window in which a stop
#   once left an empty results.sqlite that --resume could not read; see test_store.py);
# - record + 0.05, lock + 0.1, 0.3 and record + 0.35: matches under way, some stored ("stopped: k
#   of 36 matches stored; resume with: ...");
# - lock + 0.5, record + 0.65: as the last matches are stored and the pool closes (CI saw a stop
#   there leave a worker alive and the run hung at exit);
# - lock + 0.7, 0.9 and record + 0.95: after the last match, while the table is written ("the
#   tournament in ...", all 36 stored).
# Each of the 8 pairs (SIGINT or SIGTERM) x (1 or 2 workers) meets both anchors. 20 random delays
# (the test's first form, test_int_or_term_at_20_random_moments_of_a_piped_run_stops_cleanly) hit
# these same windows twice over at twice the cost.
MOMENTS = [("lock", 0.0), ("lock", 0.1), ("record", 0.05), ("record", 0.65), ("lock", 0.3),
           ("lock", 0.5), ("record", 0.35), ("record", 0.95), ("lock", 0.7), ("lock", 0.9)]


@pytest.mark.slow
def test_int_or_term_at_10_moments_of_a_piped_run_stops_cleanly(tmp_path):
    """Observed: `timeout -s INT 4 arena tournament ... | cat` hung at exit in 4 of 10 tries, and
    workers outlived their coordinator. Two runs at a time, to stay within a minute."""
    from concurrent.futures import ThreadPoolExecutor

    started = time.monotonic()
    plans = [(tmp_path / f"run{i}", (signal.SIGINT, signal.SIGTERM)[i % 2], anchor, delay_s,
              1 + i // 4 % 2) for i, (anchor, delay_s) in enumerate(MOMENTS)]
    with ThreadPoolExecutor(2) as pool:
        outcomes = list(pool.map(lambda plan: interrupt_once(*plan), plans))
    print(f"{time.monotonic() - started:.0f} s; signal, anchor, workers, delay, exit status, "
          "matches stored, seconds to stop:", outcomes)
    assert any(o[5] > 0 for o in outcomes), "no stop landed after a stored match"


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_workers_and_bots_end_when_the_coordinator_alone_dies(tmp_path, signum):
    """Observed: after `kill -9` or `kill -TERM` of the coordinator alone, both workers stayed
    alive forever with parent 1."""
    tag = uuid.uuid4().hex
    out = tmp_path / "t"
    bots = [f"python3 {FIRST_LEGAL} {tag}", f"{sys.executable} {FIRST_LEGAL.parent.parent.parent}"
            f"/tests/arena/fixtures/bad_bot.py slow {tag}"]
    proc = subprocess.Popen(ARENA + ["tournament", "--no-report", *bot_flags(bots), "-n", "6", "-w", "2", "-o",
                                     str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=tagged_env(tag))
    deadline = time.monotonic() + 30
    records = out / "records"
    while not (records.exists() and any(records.iterdir())):  # matches are under way
        assert time.monotonic() < deadline and proc.poll() is None, "the run did not start"
        time.sleep(0.05)
    time.sleep(0.5)
    assert len(processes_of(tag)) >= 4  # workers and bots (the slow bot keeps them busy)
    os.kill(proc.pid, signum)  # the coordinator only, not its process group
    proc.wait(timeout=5)
    assert wait_gone(tag, 2.0) == []
    assert_store_whole(out)
    if signum == signal.SIGTERM:
        return  # the resume below is the same after either death
    result = subprocess.run(ARENA + ["tournament", "--no-report", "--resume", str(out), "-w", "2"],
                            capture_output=True, text=True, env=tagged_env(tag), timeout=120)
    assert result.returncode == 0, result.stderr
    assert assert_store_whole(out) == 6


def _children(parent: int) -> list[int]:
    """The live processes whose parent is ``parent``, from each one's /proc/PID/stat."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent and fields[0] != "Z":
            found.append(int(entry.name))
    return found


@pytest.mark.slow
def test_a_worker_killed_mid_match_is_replaced_and_its_match_played_again(tmp_path):
    """Observed: a dead pool worker broke the whole pool (BrokenProcessPool, a traceback)."""
    tag = uuid.uuid4().hex
    out = tmp_path / "t"
    bots = [f"python3 {FIRST_LEGAL} {tag}", f"{sys.executable} {FIRST_LEGAL.parent.parent.parent}"
            f"/tests/arena/fixtures/bad_bot.py slow {tag}"]
    proc = subprocess.Popen(ARENA + ["tournament", "--no-report", *bot_flags(bots), "-n", "4", "-w", "2", "-o",
                                     str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=tagged_env(tag))
    deadline = time.monotonic() + 30
    records = out / "records"
    while not (records.exists() and any(records.iterdir())):
        assert time.monotonic() < deadline and proc.poll() is None, "the run did not start"
        time.sleep(0.05)
    # The coordinator's children, not the tagged processes: a worker is not dumpable (issue 29),
    # so a normal user cannot read its environment and its tag; its stat and command line, yes.
    workers = [pid for pid in _children(proc.pid)
               if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()]
    assert workers
    os.kill(workers[0], signal.SIGKILL)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr.decode()
    assert assert_store_whole(out) == 4
    assert "died (signal SIGKILL)" in (out / "tournament.log").read_text()
    assert wait_gone(tag, 2.0) == []


# -- one coordinator per folder ---------------------------------------------------------------------

def test_a_second_run_on_a_locked_folder_is_refused_naming_the_holder(finished, tmp_path):
    """Observed: two --resume runs of one folder at once: a traceback (UNIQUE constraint failed)
    and 2 of 60 match records corrupted."""
    from arena.compete.folder_lock import FolderLock

    out = copy_of(finished, tmp_path)
    before = (out / "results.sqlite").read_bytes()
    with FolderLock(out):  # as a running coordinator holds it (flock: even in this process)
        code, output = arena("tournament", "--no-report", "--resume", str(out))
    assert code == 2
    assert f"process {os.getpid()}" in output and "in use by another" in output
    assert (out / "results.sqlite").read_bytes() == before


def test_resume_refuses_flags_that_change_the_tournament_and_accepts_run_time_ones(finished,
                                                                                  tmp_path):
    out = copy_of(finished, tmp_path)
    code, output = arena("tournament", "--resume", str(out), "-b", "random", "-n", "4", "--seed",
                         "9", "--name", "x", "--profile", "schnapsen", "--limit", "cpu_s=5",
                         "--decision-ms", "5")
    assert code == 2
    for flag in ("--bot", "--matches", "--seed", "--name", "--profile", "--limit", "--decision-ms"):
        assert flag in output
    code, output = arena("tournament", "--no-report", "--resume", str(out), "--workers", "1")
    assert code == 0, output


# -- bots that cannot start -------------------------------------------------------------------------

def test_a_bot_that_cannot_start_stops_the_tournament_before_anything_is_stored(tmp_path):
    """Observed: the README's settings file ("python3 /home/me/mybot.py", a file that does not
    exist) ran 120 matches, 80 forfeited by that bot, and exited 0."""
    out = tmp_path / "t"
    missing = tmp_path / "no-such-dir" / "mybot.py"
    result = subprocess.run(ARENA + ["tournament", "--no-report", "-b", "greedy", "-b", f"python3 {missing}",
                                     "-b", "random", "-o", str(out)],
                            capture_output=True, text=True)
    assert result.returncode == 2, result.stderr
    assert "bot 'mybot'" in result.stderr and "did not start" in result.stderr
    assert "No such file or directory" in result.stderr  # the end of its stderr
    assert "Traceback" not in result.stderr
    assert not (out / "results.sqlite").exists()


def test_a_bot_that_does_not_greet_is_refused(tmp_path):
    bad_bot = Path(__file__).parent / "fixtures" / "bad_bot.py"
    out = tmp_path / "t"
    result = subprocess.run(ARENA + ["tournament", "--no-report", "-b", "random", "-b",
                                     f"{sys.executable} {bad_bot} bad_ready", "-o", str(out)],
                            capture_output=True, text=True)
    assert result.returncode == 2 and "bad_bot" in result.stderr and "malformed" in result.stderr
    assert not (out / "results.sqlite").exists()


def test_a_stop_during_the_start_up_check_leaves_no_temporary_folder(tmp_path):
    """Observed: SIGTERM while the workers checked the bots left a ``sixtysix-preflight-*`` folder
    in /tmp each time. A worker is ended at once (pool.py), so a folder of its own was never
    removed; the folder is now the coordinator's."""
    tag = uuid.uuid4().hex
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    silent = tmp_path / "silent.py"
    silent.write_text("import time\ntime.sleep(60)\n")  # never greets: its check waits
    status, _, err = signal_when(
        ARENA + ["tournament", "--no-report", "-b", f"python3 {FIRST_LEGAL} {tag}", "-b",
                 f"python3 {silent} {tag}", "-n", "2", "-w", "2", "-o", str(tmp_path / "t")],
        {**tagged_env(tag), "TMPDIR": str(tmp)},
        lambda: len(list(tmp.glob("sixtysix-preflight-*/*.stderr.log"))) >= 2)  # both under check
    assert status == 128 + signal.SIGTERM, err
    assert "Traceback" not in err
    assert list(tmp.glob("sixtysix-preflight-*")) == []
    assert wait_gone(tag, 5.0) == []


def test_a_folder_left_by_an_arena_killed_with_kill_9_goes_with_the_next_arena(tmp_path):
    """A kill -9 during the start-up check leaves its ``sixtysix-preflight-*`` folder (nothing is
    left to remove it); the next arena command that makes a temporary folder removes it, as its
    owner no longer runs (temp_folders.py)."""
    tag = uuid.uuid4().hex
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    silent = tmp_path / "silent.py"
    silent.write_text("import time\ntime.sleep(60)\n")  # never greets: its check waits
    env = {**tagged_env(tag), "TMPDIR": str(tmp)}
    status, _, _ = signal_when(
        ARENA + ["tournament", "--no-report", "-b", f"python3 {FIRST_LEGAL} {tag}", "-b",
                 f"python3 {silent} {tag}", "-n", "2", "-w", "2", "-o", str(tmp_path / "t")],
        env, lambda: len(list(tmp.glob("sixtysix-preflight-*/*.stderr.log"))) >= 2,
        sig=signal.SIGKILL)
    assert status == -signal.SIGKILL
    assert wait_gone(tag, 10.0) == []
    left = list(tmp.glob("sixtysix-preflight-*"))
    assert len(left) == 1, left
    played = subprocess.run(ARENA + ["play", f"python3 {FIRST_LEGAL} {tag}",
                                     f"python3 {FIRST_LEGAL} {tag} b", "--data",
                                     str(tmp_path / "data")],
                            env=env, capture_output=True, text=True, timeout=120)
    assert played.returncode == 0, played.stderr
    assert not left[0].exists()
    assert list(tmp.glob("sixtysix-*")) == []


def test_a_bot_in_a_private_folder_runs_or_is_refused_with_the_reason(tmp_path):
    """Observed: a script directly inside a 0700 folder (what mktemp -d makes) forfeited every
    match when bots run as other users (root's sandbox), in silence."""
    folder = tmp_path / "private"
    folder.mkdir(mode=0o700)
    shutil.copy(FIRST_LEGAL, folder / "bot.py")
    out = tmp_path / "t"
    result = subprocess.run(ARENA + ["tournament", "--no-report", "-b", "random", "-b", f"python3 {folder}/bot.py",
                                     "-n", "2", "-o", str(out)], capture_output=True, text=True)
    if result.returncode == 0:
        assert assert_store_whole(out) == 2
        board = sqlite3.connect(out / "results.sqlite").execute(
            "SELECT COUNT(*) FROM matches WHERE reason = 'forfeit'").fetchone()[0]
        assert board == 0
    else:
        assert result.returncode == 2
        assert "is in a folder only its owner can read (mode 0700)" in result.stderr
        assert f"chmod o+rx {folder}" in result.stderr
        assert not (out / "results.sqlite").exists()


# -- settings files ---------------------------------------------------------------------------------

@pytest.mark.parametrize("content,words", [
    (b'bots = ["random", "greedy"]\noutput = 7\n', ["'output'", "7"]),
    (b'bots = "greedy"\n', ["'bots'", "a list"]),
    (b'bots = ["random", 3]\n', ["'bots'"]),
    (b'bots = ["random", "greedy"]\nseed = "x"\n', ["'seed'", "whole number"]),
    (b'bots = ["random", "greedy"]\nrules = 5\n', ["'rules'", "table"]),
    (b'bots = ["random", "greedy"]\nmatches_per_pairing = true\n', ["'matches_per_pairing'"]),
    (b'bots = ["random", "greedy"]\ncolour = "red"\n', ["colour", "unknown setting"]),
    (b'bots = ["random", "greedy"]\n[rules]\nmatch_target = "many"\n', ["match_target"]),
    (bytes(range(256)) * 4, ["not a text file"]),
    (b'bots = ["random", "greedy"\n', ["not valid TOML"]),
])
def test_a_bad_settings_file_is_one_clear_line_naming_file_and_key(tmp_path, monkeypatch, content,
                                                                  words):
    """Observed: `output = 7` and a binary file were tracebacks or did not name the file;
    `bots = "greedy"` was reported as `unknown bot 'g'`."""
    settings = tmp_path / "t.toml"
    settings.write_bytes(content)
    monkeypatch.chdir(tmp_path)  # no -o (it would override the file's output): results/ is here
    code, output = arena("tournament", str(settings))
    assert code == 2
    lines = output.replace(str(settings), "FILE").strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "FILE" in lines[0], output
    for word in words:
        assert word in lines[-1]
    assert not (tmp_path / "results").exists()


# -- files: clear errors, nothing lost --------------------------------------------------------------

@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    """A finished tournament of two bots, four matches (the database has several pages)."""
    out = tmp_path_factory.mktemp("finished") / "t"
    run_tournament(load_config(None, {"bots": ["random", "greedy"], "matches_per_pairing": 4,
                                      "workers": 2, "output": str(out)}))
    return out


def copy_of(folder: Path, where: Path) -> Path:
    target = where / folder.name
    shutil.copytree(folder, target)
    return target


def test_the_arena_marks_its_databases(finished):
    db = sqlite3.connect(finished / "results.sqlite")
    assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    db.close()


def test_resume_on_another_programs_sqlite_file_leaves_it_untouched(tmp_path):
    """Observed: --resume on another program's SQLite file added the arena's six tables to it."""
    folder = tmp_path / "foreign"
    folder.mkdir()
    db = sqlite3.connect(folder / "results.sqlite")
    db.execute("CREATE TABLE notes (text TEXT)")
    db.execute("INSERT INTO notes VALUES ('mine')")
    db.commit()
    db.close()
    before = (folder / "results.sqlite").read_bytes()
    for command in (["tournament", "--resume", str(folder)], ["leaderboard", str(folder)],
                    ["report", str(folder)]):
        code, output = arena(*command)
        assert code == 2, (command, output)
        assert "not a results database of this arena" in output
    assert (folder / "results.sqlite").read_bytes() == before
    assert sorted(p.name for p in folder.iterdir()) == ["results.sqlite"]


@pytest.mark.parametrize("damage", ["empty", "truncated", "junk_in_the_middle"])
def test_a_damaged_database_is_named_with_what_to_do(finished, tmp_path, damage):
    """Observed: leaderboard on a truncated or empty database printed a traceback, and on one with
    junk in the middle exited 0 silently."""
    folder = copy_of(finished, tmp_path)
    path = folder / "results.sqlite"
    data = path.read_bytes()
    assert len(data) >= 8 * 4096, "the test needs a database of several pages"
    if damage == "empty":
        path.write_bytes(b"")
    elif damage == "truncated":
        path.write_bytes(data[:len(data) // 2 + 100])
    else:
        middle = len(data) // 2 // 4096 * 4096
        path.write_bytes(data[:middle] + os.urandom(4096 * 2) + data[middle + 4096 * 2:])
    for command in (["leaderboard", str(folder)], ["report", str(folder)],
                    ["tournament", "--resume", str(folder)]):
        code, output = arena(*command)
        output = output.replace("\n", "")
        assert code == 2, (command, output)
        assert str(path) in output
        assert "empty" in output or "damaged" in output
        assert "new folder" in output or "backup" in output


def test_a_database_in_a_read_only_folder_can_be_read(finished, tmp_path):
    """Observed: a database in a read-only folder could not be read (WAL needs -shm), and the
    message said it was "not a usable results database"."""
    folder = copy_of(finished, tmp_path)
    shutil.rmtree(folder / "report", ignore_errors=True)
    if IS_ROOT:  # root ignores folder modes: a read-only mount, as a CD or a shared export
        mounted = subprocess.run(["mount", "--bind", "-o", "ro", str(folder), str(folder)],
                                 capture_output=True)
        if mounted.returncode != 0:
            pytest.skip(f"cannot bind-mount read-only: {mounted.stderr.decode().strip()}")
        subprocess.run(["mount", "-o", "remount,bind,ro", str(folder)], check=True)
    else:
        folder.chmod(0o555)
    try:
        assert not list(folder.glob("*-shm"))
        code, output = arena("leaderboard", str(folder), "-f", "csv")
        assert code == 0, output
        assert "greedy" in output and "random" in output
    finally:
        if IS_ROOT:
            subprocess.run(["umount", str(folder)], check=True)
        else:
            folder.chmod(0o755)


@pytest.mark.slow
def test_a_full_disk_ends_with_a_clear_message_and_resume_completes_afterwards(tmp_path):
    """Observed: a full disk ended in a traceback with nothing in the log."""
    if not IS_ROOT:
        pytest.skip("mounting a small file system needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)],
                             capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {mounted.stderr.decode().strip()}")
    try:
        out = disk / "t"
        filler = disk / "filler"
        # Leave room for the database's first pages and some records, not for the whole run.
        free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
        filler.write_bytes(b"\0" * (free - 300_000))
        result = subprocess.run(ARENA + ["tournament", "--no-report", "-b", "random", "-b", "greedy", "-b",
                                         "first-legal", "-n", "8", "-w", "2", "-o", str(out)],
                                capture_output=True, text=True, timeout=180)
        assert result.returncode == 1, (result.stdout, result.stderr)
        assert "Traceback" not in result.stderr and "Logging error" not in result.stderr
        assert "is full" in result.stderr and f"arena tournament --resume {out}" in result.stderr
        stored = assert_store_whole(out)
        assert stored < 24
        filler.unlink()
        result = subprocess.run(ARENA + ["tournament", "--no-report", "--resume", str(out), "-w", "2"],
                                capture_output=True, text=True, timeout=180)
        assert result.returncode == 0, result.stderr
        assert assert_store_whole(out) == 24
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)
