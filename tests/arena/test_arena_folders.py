"""Issue 29, points 1 and 2: no bot is given a path into ANY arena folder, and every folder and file
the arena writes is private to its user, so a bot running as a user of its own cannot read them.

Real processes throughout: ``fixtures/path_spy.py`` plays first-legal while it tries to read the
paths among its arguments (and in a file ``paths`` beside it) and says what it found on stderr;
``arena`` runs as a real command line; the stores are real SQLite files.
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from arena.isolation import launcher, levels, probe
from arena.arena_folders import MARKER, folders_looked_up_once, holder, private_folder
from arena.match.bot_process import BotProcess, Limits
from arena.entrants.bot_specs import BotSpecError, check_bot_paths, resolve_bot
from arena.entrants.preflight import PreflightError, preflight
from arena.isolation.limits import SandboxLimits
from arena.results.store import Store
from arena.types import BotSpec
from bot_procs import TAG

SPY = Path(__file__).parent / "fixtures" / "path_spy.py"
FIRST_LEGAL = Path(__file__).resolve().parents[2] / "bots" / "minimal" / "first_legal.py"
ARENA = [sys.executable, "-m", "arena.cli.main"]
ROOT = os.geteuid() == 0
STRONG = "isolated" if ROOT else "namespaces"
# The system's Python where there is one: a bot of the `limits` level runs as a user of its own on
# the host's files, and the arena's interpreter may sit under /root, which that user cannot enter.
SYSTEM_PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
LIMITS = Limits(decision_ms=5000, startup_ms=10000,
                sandbox=SandboxLimits(cpu_s=20, memory_mb=1024, processes=32, workdir_mb=16))


@pytest.fixture
def world():
    """A folder every user may enter (``tmp_path`` is 0700, which would hide everything from a bot
    by itself): a spy's own folder, and another arena's tournament as an older version left it
    (folders 0755, ``results.sqlite`` 0644, a deal key in it), so that only the arena's refusal,
    or the sandbox, keeps a bot out."""
    base = Path(tempfile.mkdtemp(prefix=f"sixtysix-test-folders-{TAG[:8]}-"))
    try:
        base.chmod(0o755)
        spy = base / "spy"
        spy.mkdir(mode=0o755)
        shutil.copy(SPY, spy / "spy.py")
        (spy / "spy.py").chmod(0o644)
        other = base / "other" / "results" / "t3"
        store = Store.open(other / "results.sqlite")
        store.set_deal_key(b"k" * 32)
        store.close()
        for path in [base / "other", *(base / "other").rglob("*")]:
            if path.name != MARKER:
                path.chmod(0o755 if path.is_dir() else 0o644)
        (other / "results.sqlite").chmod(0o644)
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def arena(*args: str, cwd: Path, level: str = STRONG) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, levels.ISOLATION_ENV: level}
    env.pop("ARENA_DATA", None)
    return subprocess.run([*ARENA, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=240)


def spied(text: str) -> dict[str, str]:
    """What the spy said it read: {path: first bytes or error}, the last saying of each."""
    found = {}
    for line in text.splitlines():
        if line.startswith("SPY "):
            path, _, said = line[4:].partition(" ")
            found[path] = said
    return found


# -- point 1: another tournament's store through a command argument, at the default level -------

@pytest.mark.parametrize("level", [STRONG, "limits"])
def test_a_tournament_refuses_a_bot_given_another_tournaments_store(world, level):
    """``cd X && arena tournament -b first-legal -b "python3 spy.py /other/results/t3/results.sqlite"``
    read the other tournament's whole store, deal key and all, at the default level (issue 29);
    it is refused now at every level, before any bot runs or anything is written."""
    x = world / "x"
    x.mkdir()
    target = world / "other" / "results" / "t3" / "results.sqlite"
    # first-legal as the issue ran it; under the system's Python at `limits`, whose leased user
    # may not reach the arena's own interpreter.
    first = "first-legal" if level != "limits" else f"{SYSTEM_PYTHON} {FIRST_LEGAL}"
    done = arena("tournament", "-b", first, "-b", f"{SYSTEM_PYTHON} {world / 'spy' / 'spy.py'} "
                 f"{target} {TAG}", "-n", "2", "--name", "t", cwd=x, level=level)
    read = {path: said for log in (x / "results" / "t" / "logs").glob("*.log")
            for path, said in spied(log.read_text()).items()}
    assert "SQLite format" not in read.get(str(target), ""), "the spy read the other store"
    assert done.returncode == 2, done.stdout + done.stderr
    assert "a folder of the arena that bots may not see" in done.stderr
    assert str(target.parent) in done.stderr
    assert "Traceback" not in done.stderr
    assert not (x / "results" / "t" / "results.sqlite").exists()


def test_arena_submit_refuses_a_command_given_another_tournaments_store(world):
    """The same command through ``arena submit ... --data X/data`` was accepted (and its
    qualification ran the spy); now it is turned down, and nothing is registered."""
    x = world / "x"
    x.mkdir()
    target = world / "other" / "results" / "t3" / "results.sqlite"
    done = arena("submit", f"{SYSTEM_PYTHON} {world / 'spy' / 'spy.py'} {target} {TAG}",
                 "--name", "spy", "--matches", "2", "--data", str(x / "data"), cwd=x)
    assert done.returncode != 0, done.stdout + done.stderr
    said = " ".join((done.stdout + done.stderr).split())  # the console wraps long lines
    assert "a folder of the arena that bots may not see" in said
    registry = x / "data" / "registry" / "registry.sqlite"
    if registry.exists():
        with sqlite3.connect(registry) as db:
            assert db.execute("SELECT count(*) FROM bots").fetchone()[0] == 0


def test_arena_play_and_league_add_refuse_a_path_into_any_arena_folder(world):
    x = world / "x"
    x.mkdir()
    command = f"{SYSTEM_PYTHON} {world / 'spy' / 'spy.py'} --db={world / 'other'}/results/t3 {TAG}"
    played = arena("play", "first-legal", command, "--data", str(x / "data"), cwd=x)
    assert played.returncode == 2, played.stdout + played.stderr
    assert "a folder of the arena that bots may not see" in played.stderr
    assert "SPY" not in played.stdout + played.stderr
    assert arena("league", "init", str(x / "league"), cwd=x).returncode == 0
    added = arena("league", "add", str(x / "league"), command, "--name", "spy", cwd=x)
    assert added.returncode != 0, added.stdout + added.stderr
    assert "bots may not see" in " ".join((added.stdout + added.stderr).split())
    assert not (x / "league" / "members.sqlite").exists()


def test_the_preflight_refuses_a_spec_into_an_arena_folder_whoever_made_it(world):
    """A script (or a cluster's worker) that builds its own BotSpec passes no command-line check:
    the pre-flight refuses it before it starts."""
    spec = BotSpec("spy", (SYSTEM_PYTHON, str(world / "spy" / "spy.py"),
                           str(world / "other" / "results" / "t3" / "results.sqlite"), TAG))
    with pytest.raises(PreflightError, match="a folder of the arena that bots may not see"):
        preflight([spec], LIMITS)


def test_the_sandbox_never_shows_a_bot_an_arena_folder_named_in_its_arguments(world):
    """Below every check, the allow-list: a bot started directly (no check at all) with another
    tournament's store as an argument finds nothing at that path in its root. The old allow-list
    bound the argument's folder, store included, into the bot's root."""
    if probe.support().mode == "limits":
        pytest.skip("only the namespaced levels build a root for the bot")
    target = world / "other" / "results" / "t3" / "results.sqlite"
    proc = BotProcess([SYSTEM_PYTHON, str(world / "spy" / "spy.py"), str(target), TAG], LIMITS,
                      stderr_log=world / "spy.log")
    proc.start()
    try:
        proc.send("sixtysix 1")
        assert proc.read_line(20).startswith(b"ready")
    finally:
        proc.close()
    assert spied((world / "spy.log").read_text())[str(target)] == "error FileNotFoundError"


def test_arena_folders_are_recognised_by_their_mark_and_their_older_layouts(tmp_path):
    marked = private_folder(tmp_path / "site", "published")
    old_tournament = tmp_path / "old" / "t1"
    (old_tournament / "records").mkdir(parents=True)
    (old_tournament / "results.sqlite").write_bytes(b"")
    old_data = tmp_path / "olddata"
    (old_data / "registry").mkdir(parents=True)
    (old_data / "registry" / "registry.sqlite").write_bytes(b"")
    league = tmp_path / "league"
    league.mkdir()
    (league / "members.sqlite").write_bytes(b"")
    assert holder(str(marked / "records" / "x.jsonl")) == str(marked.resolve())  # need not exist
    assert holder(str(old_tournament / "records" / "m.jsonl")) == str(old_tournament.resolve())
    assert holder(str(old_data / "t9" / "results.sqlite")) == str(old_data.resolve())
    assert holder(str(league / "logs")) == str(league.resolve())
    (tmp_path / "bot").mkdir()
    assert holder(str(tmp_path / "bot" / "main.py")) is None  # the control: a bot's own folder
    assert holder(str(tmp_path / "bot"), also=[str(tmp_path / "bot")]) == str(tmp_path / "bot")
    link = tmp_path / "bot" / "shortcut"
    link.symlink_to(old_tournament)
    assert holder(str(link / "results.sqlite")) == str(old_tournament.resolve())
    for arg in (str(link), f"--db={old_data}", str(marked)):
        with pytest.raises(BotSpecError, match="bots may not see"):
            check_bot_paths(BotSpec("b", (sys.executable, str(SPY), arg)), [])
    cache = launcher.cache_folder()
    with pytest.raises(BotSpecError, match="bots may not see"):
        resolve_bot(f"{sys.executable} {SPY} {cache}/sandbox-launch")



def test_one_pass_looks_at_each_folder_once_and_keeps_nothing_after(tmp_path, monkeypatch):
    """A league reads its members' paths in one pass (``folders_looked_up_once``): 200 bots whose
    paths share their parents looked at the same folders 30,000 times. Within the pass a folder is
    looked at once; after it, a folder marked meanwhile is seen (a pass is one reading)."""
    bots = tmp_path / "bots"
    paths = [str(bots / f"bot-{i}" / "main") for i in range(20)]
    looked: list[str] = []
    real_lexists = os.path.lexists
    monkeypatch.setattr(os.path, "lexists", lambda p: looked.append(p) or real_lexists(p))
    for path in paths:
        assert holder(path) is None
    without = len(looked)
    looked.clear()
    with folders_looked_up_once():
        assert [holder(path) for path in paths] == [None] * len(paths)
        assert holder(paths[0]) is None
    within = len(looked)
    assert len(set(looked)) == within, "a folder was looked at twice in one pass"
    assert within < without / 3, (within, without)  # each path's own two folders stay
    with folders_looked_up_once():
        assert holder(paths[0]) is None
    private_folder(bots, "published")  # marked after those passes: the next one sees it
    with folders_looked_up_once():
        assert holder(paths[0]) == str(bots.resolve())
    assert holder(paths[1]) == str(bots.resolve())

# -- point 2: the arena's files are private to its user ----------------------------------------

def _modes(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): f"{stat.S_IMODE(p.stat().st_mode):04o}"
            for p in [folder, *folder.rglob("*")] if not p.is_symlink()}


def test_every_folder_and_file_a_tournament_writes_is_private_whatever_the_umask(tmp_path):
    from arena.compete.tournament import load_config, run_tournament

    old = os.umask(0o002)  # as permissive as a user may set it
    try:
        out = tmp_path / "data" / "t"
        run_tournament(load_config(None, {"name": "t", "bots": ["first-legal", "random"],
                                          "matches_per_pairing": 2, "workers": 1,
                                          "output": "", "data": str(tmp_path / "data")}))
    finally:
        os.umask(old)
    modes = _modes(tmp_path / "data")
    assert modes["t/results.sqlite"] == "0600"
    assert any(name.startswith("t/records/") for name in modes)
    assert any(name.startswith("t/logs/") for name in modes)
    loose = {name: mode for name, mode in modes.items()
             if mode not in ("0700", "0600") and name != f"t/{MARKER}"}
    assert loose == {}
    assert (tmp_path / "data" / MARKER).is_file() and (out / MARKER).is_file()


def test_a_store_an_older_version_left_readable_is_tightened_when_opened(tmp_path, caplog):
    folder = tmp_path / "t"
    first = Store.open(folder / "results.sqlite")  # held open: its -wal and -shm stay
    try:
        assert {p.name for p in folder.iterdir()} >= {"results.sqlite-wal", "results.sqlite-shm"}
        for path in [folder, *folder.iterdir()]:  # as an older version left them
            path.chmod(0o755 if path.is_dir() else 0o644)
        with caplog.at_level(logging.WARNING, logger="arena.folders"):
            Store.open(folder / "results.sqlite", create=False).close()
            private_folder(folder, "tournament")
        for name in ("results.sqlite", "results.sqlite-wal", "results.sqlite-shm"):
            assert stat.S_IMODE((folder / name).stat().st_mode) == 0o600, name
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    finally:
        first.close()
    said = [r.getMessage() for r in caplog.records]
    assert len([s for s in said if "results.sqlite was readable" in s]) == 1
    assert len([s for s in said if f"{folder} was readable" in s]) == 1


@pytest.mark.skipif(not ROOT, reason="as a normal user a `limits` bot runs as that user, who may "
                    "read the arena's files: the level does not defend them (docs/organisers/isolation.md)")
def test_at_limits_as_root_a_bot_cannot_read_its_own_running_match(world, monkeypatch):
    """Point 2: at ``--isolation limits`` as root a bot runs on the machine's files as a leased
    user id; it read its own running match's record (every hand) and the store, whose folders
    were 0755 and files 0644. The paths reach it in a file beside its script, not as arguments
    (which are refused)."""
    from arena.compete.tournament import load_config, run_tournament

    monkeypatch.setenv(levels.ISOLATION_ENV, "limits")
    monkeypatch.setattr(probe, "_requested", None)
    monkeypatch.setattr(probe, "_support", None)
    out = world / "data" / "t"
    watched = [out / "results.sqlite", out / "results.sqlite-wal", out / "records", out / "logs",
               out / "tournament.log", world / "data"]
    (world / "spy" / "paths").write_text("\n".join(map(str, watched)) + "\n")
    (world / "spy" / "paths").chmod(0o644)
    try:
        run_tournament(load_config(None, {
            # Two spies: the arena's own interpreter (first-legal's) may be out of a leased user's reach.
            "name": "t", "bots": [f"{SYSTEM_PYTHON} {world / 'spy' / 'spy.py'} {TAG}"] * 2,
            "matches_per_pairing": 2, "workers": 1, "output": "", "data": str(world / "data")}))
    finally:
        probe._support = None
    logs = sorted((out / "logs").glob("*.log"))
    assert logs, sorted((out / "logs").iterdir())
    seen: dict[str, str] = {}
    for log in logs:
        seen.update(spied(log.read_text()))
    assert seen, "the spy said nothing"
    assert str(out / "results.sqlite") in seen or str(world / "data") in seen
    assert {path: said for path, said in seen.items() if not said.startswith("error")} == {}


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_a_device_named_as_a_record_or_store_keeps_its_mode(tmp_path):
    """Regression: as root, ``arena play --record /dev/null`` (drawn by the command line's property
    test) made the machine's /dev/null 0600, and every other user's programs failed to open it.
    Only regular files and folders are tightened; a device here is a null device of our own."""
    from arena.arena_folders import open_private, tighten

    device = tmp_path / "null"
    os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    device.chmod(0o666)
    os.close(open_private(device, os.O_WRONLY))
    tighten(device)
    assert stat.S_IMODE(device.stat().st_mode) == 0o666


def test_a_fifo_beside_a_store_keeps_its_mode(tmp_path):
    from arena.arena_folders import tighten

    fifo = tmp_path / "results.sqlite-wal"
    os.mkfifo(fifo)
    fifo.chmod(0o666)
    (tmp_path / "results.sqlite").write_text("")
    tighten(tmp_path / "results.sqlite", ["-wal"])
    assert stat.S_IMODE(fifo.stat().st_mode) == 0o666
