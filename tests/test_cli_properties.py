"""A property of the whole command line: whatever arguments, option values and files it is given,
``arena`` ends with one of its own statuses (0, 1 or 2), never a traceback, and nothing already
stored changes (issue 28, point 6; README: bad input gets one clear error line).

Hypothesis draws, for every command ``arena --help`` lists (each subcommand of ``rules``, ``bots``
and ``league`` too), a subset of its options and arguments with values from pools: bot names and
commands, counts around their limits, odd text (markup, control characters, a long line), and
paths to small files of every awkward kind: empty, binary, one huge line, a symlink, a dangling
symlink, a symlink loop, a folder where a file is expected, a file where a folder is expected, a
path under a file, an unreadable file. (Run as root, "unreadable" means nothing: root reads
every file. The file is still drawn; it only tests something as a normal user. No FIFO: a command
that reads a path a user gave blocks on a FIFO as ``cat`` does, which is no fault.) The pools
also name the stored data: a tournament stored once per module in a data folder, its database,
its records, and a record of ``arena play``. Every file under the folder is hashed before the
examples and compared after each one.

The commands run in this process (Typer's runner, exceptions not caught: a traceback fails the
example), so most examples take milliseconds. Those that play matches are bounded: ``--no-report``,
one pair at most for ``sprt`` and ``league``, one qualifying match for ``submit``, ``demo
--one-match`` only (the full demo is a round robin of five bots), and never ``report --serve``
(it serves until stopped).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from typer.main import get_command
from typer.testing import CliRunner

import sandbox_level
from arena.cli.main import app

ROOT = Path(__file__).resolve().parents[1]

IS_ROOT = os.geteuid() == 0
FIRST_LEGAL = ROOT / "bots" / "minimal" / "first_legal.py"

settings.register_profile(
    "cli", max_examples=int(os.environ.get("ARENA_CLI_EXAMPLES", "30")), deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    derandomize=False)


# -- the playground: stored data and awkward files -------------------------------------------------

@pytest.fixture(scope="module")
def playground(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder to run in: data/ holds a stored tournament (data/t) and a play record; beside it,
    the awkward files. The working folder is this folder while the module runs."""
    base = tmp_path_factory.mktemp("cli-properties")
    data = base / "data"
    env = {**os.environ, "ARENA_DATA": str(data)}
    for args in (["tournament", "-b", "random", "-b", "first-legal", "-n", "2", "-o",
                  str(data / "t"), "--no-report"],
                 ["play", "random", "greedy", "--seed", "1", "--record",
                  str(data / "play" / "m.jsonl")]):
        done = subprocess.run([sys.executable, "-m", "arena", *args], env=env, cwd=base,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
    records = sorted((data / "t" / "records").rglob("*.jsonl"))
    assert records
    shutil.copy(records[0], base / "record.jsonl")
    (base / "empty").write_bytes(b"")
    (base / "binary").write_bytes(bytes(range(256)) + os.urandom(512))
    (base / "huge").write_text("x" * 2_000_000)  # one line of 2 MB, no newline
    (base / "rules.toml").write_text("match_target = 11\n")
    (base / "bad.toml").write_text("match_target = [\n")
    (base / "dir").mkdir()
    (base / "link").symlink_to(base / "record.jsonl")
    (base / "dangling").symlink_to(base / "nowhere")
    (base / "loop").symlink_to(base / "loop")
    (base / "unreadable").write_text("secret\n")
    (base / "unreadable").chmod(0)
    STORED[base] = set(stored(base))
    old = Path.cwd()
    os.chdir(base)
    try:
        yield base
    finally:
        os.chdir(old)
        (base / "unreadable").chmod(0o600)


STORED: dict[Path, set[str]] = {}  # the playground's files when the module began


def stored(base: Path) -> dict[str, str]:
    """Every file and link of the stored data and the inputs, with a hash of what it holds."""
    found = {}
    for path in sorted(base.rglob("*")):
        rel = str(path.relative_to(base))
        if path.is_symlink():
            found[rel] = "link:" + os.readlink(path)
        elif path.name.endswith(("-wal", "-shm", "-journal", ".lock")):
            continue  # SQLite's side files, any reader may touch; a folder's lock, any run takes
        elif path.is_file():
            try:
                found[rel] = _digest(path)
            except PermissionError:  # as a normal user, "unreadable"
                found[rel] = "unreadable"
    return found


def _digest(path: Path) -> str:
    """A hash of what a file holds: of a SQLite database, its rows and schema (a transaction that
    changes nothing still rewrites the header's change counter); of any other file, its bytes."""
    if path.suffix == ".sqlite":
        db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
        try:
            return hashlib.sha256("\n".join(db.iterdump()).encode()).hexdigest()
        finally:
            db.close()
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- what is drawn ------------------------------------------------------------------------------------

PATHS = ["data", "data/t", "data/t/results.sqlite", "data/t/records", "data/play",
         "data/play/m.jsonl", "play/m.jsonl", "t", "record.jsonl", "empty", "binary", "huge",
         "rules.toml", "bad.toml", "dir", "link", "dangling", "loop", "unreadable", "empty/x",
         "missing", "missing/deeper", "new-out", "/dev/null", ".", ""]
BOTS = ["random", "greedy", "first-legal", "strong", "no-such-bot", "example",
        "python3 /nonexistent/bot.py", f"{sys.executable} {FIRST_LEGAL}", "", " ", "random@1",
        str(ROOT / "bots" / "example"), "dir", "empty", "sh -c 'exit 3'"]
TEXTS = ["", " ", "x", "[/bold] oops", "\x1b[2J", "é\u202e", "-", "--", "a" * 300, "sixty_six",
         "three_player", "four_player", "schnapsen", "nope", "tcp://127.0.0.1:1", "isolated",
         "limits", "namespaces", "csv", "json", "markdown", "table", "cpu_s=1", "memory_mb=-1",
         "cpu_s", "=", "bad name!"]
COUNTS = [-2, -1, 0, 1, 2, 3]
MILLIS = [-1, 0, 1, 200]
FLOATS = ["-1", "0", "0.05", "0.5", "1", "10", "nan", "inf", "-inf", "1e400"]
INTS = ["-1", "0", "1", "7", "4294967296", "x"]

# The kind of each parameter, by its name (a name used twice for different things by command).
KINDS: dict[str, Any] = {
    "data": st.sampled_from(PATHS), "record": st.sampled_from(PATHS),
    "rules_file": st.sampled_from(PATHS), "html": st.sampled_from(["new.html", *PATHS]),
    "output": st.sampled_from(PATHS), "resume": st.sampled_from(PATHS),
    "config_file": st.sampled_from(PATHS), "folder": st.sampled_from(PATHS),
    "out": st.sampled_from(["new-site", *PATHS]),
    "bots": st.lists(st.sampled_from(BOTS), max_size=5), "bot": st.sampled_from(BOTS),
    "new": st.sampled_from(BOTS), "base": st.sampled_from(BOTS),
    "bot_name": st.sampled_from(["random", "example", "example@1", "@", "", "no-such"]),
    "matches": st.sampled_from(COUNTS), "matches_per_pairing": st.sampled_from(COUNTS),
    "rounds": st.sampled_from(COUNTS), "max_pairs": st.sampled_from(COUNTS),
    "pairs": st.sampled_from(COUNTS), "workers": st.sampled_from(COUNTS),
    "seat": st.sampled_from(COUNTS), "first_dealer": st.sampled_from([-1, 0, 1, 3, 4]),
    "decision_ms": st.sampled_from(MILLIS), "startup_ms": st.sampled_from(MILLIS),
    "bank_ms": st.sampled_from(MILLIS), "first_decision_ms": st.sampled_from(MILLIS),
    "output_format": st.sampled_from(TEXTS),
    "lang": st.sampled_from(["python", "java", "js", "c", "cobol", "", "../kits", *TEXTS[:4]]),
    "elo0": st.sampled_from(FLOATS), "elo1": st.sampled_from(FLOATS),
    "alpha": st.sampled_from(FLOATS), "beta": st.sampled_from(FLOATS),
    "publish_every": st.sampled_from(FLOATS), "seed": st.sampled_from(INTS),
    "port": st.sampled_from(["-1", "0", "70000"]),
    "name": st.sampled_from(TEXTS), "profile": st.sampled_from(TEXTS),
    "fmt": st.sampled_from(TEXTS), "cluster": st.sampled_from(TEXTS),
    "isolation": st.sampled_from(TEXTS), "limit": st.sampled_from(TEXTS),
}
BY_COMMAND: dict[tuple[str, str], Any] = {
    ("submit", "target"): st.sampled_from([*BOTS, *PATHS]),
    ("play", "target"): st.sampled_from(["-1", "0", "1", "1000000"]),
    ("rules show", "profile"): st.sampled_from(TEXTS),
}
# Never drawn: what would run until stopped, or play a full round robin.
LEFT_OUT = {("report", "serve")}
# Given when not drawn: what bounds a command that plays matches.
BOUNDS = {"tournament": ["--no-report"], "sprt": ["--no-report", "--max-pairs", "1"],
          "league run": ["--pairs", "1", "--publish-every", "0"], "demo": ["--one-match"],
          "submit": ["--matches", "1"], "check": ["--profile", "schnapsen"]}


def _commands() -> dict[str, Any]:
    found = {}

    def walk(command: Any, path: tuple[str, ...]) -> None:
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                walk(sub, (*path, name))
        else:
            found[" ".join(path)] = command
    walk(get_command(app), ())
    return found


COMMANDS = _commands()


@st.composite
def command_lines(draw: st.DrawFn, command: str) -> list[str]:
    """The words after ``arena``: the command, some of its arguments, some of its options."""
    words = command.split()
    options: list[str] = []
    for param in COMMANDS[command].params:
        if param.name == "help" or (command, param.name) in LEFT_OUT:
            continue
        if param.param_type_name == "argument":
            if not draw(st.integers(0, 9)):  # mostly given: a missing one is a dull example
                continue
            value = draw(BY_COMMAND.get((command, param.name), KINDS.get(param.name)))
            words += [str(v) for v in value] if isinstance(value, list) else [str(value)]
            continue
        if not draw(st.booleans()):
            continue
        if param.is_flag:
            options.append(draw(st.sampled_from([*param.opts, *param.secondary_opts])))
            continue
        kind = BY_COMMAND.get((command, param.name), KINDS.get(param.name))
        assert kind is not None, f"no values for arena {command} {param.opts[0]}"
        for value in draw(st.lists(kind, min_size=1, max_size=3 if param.multiple else 1)):
            options += [draw(st.sampled_from(param.opts)), str(value)]
    bounds = [w for w in BOUNDS.get(command, [])]
    return [*words, *options, *bounds]


def check(playground: Path, args: list[str]) -> None:
    # What was there when the module began is what must stay: what earlier examples made (a
    # league one of them started, say) is theirs to change. Compared around each example, so
    # that the example that changed something is the one named.
    before = stored(playground)
    if args[:2] == ["league", "run"]:
        code, output = _league(playground, args)
    else:
        with sandbox_level.kept():  # --isolation asks for its level for this whole process
            result = CliRunner().invoke(app, args, catch_exceptions=False,
                                        env={"ARENA_DATA": str(playground / "data"),
                                             "COLUMNS": "200"})
        code, output = result.exit_code, result.output
    assert "Traceback" not in output, output
    assert code in (0, 1, 2), (code, output)
    after = stored(playground)
    changed = {path for path in STORED[playground] if after.get(path) != before.get(path)}
    assert not changed, f"arena {' '.join(args)} changed stored files: {sorted(changed)}"


LEAGUE_S = 30.0  # how long a league may run before a Ctrl-C ends it


def _league(playground: Path, args: list[str]) -> tuple[int, str]:
    """``arena league run``, in a process of its own: a league whose bots cannot start waits for
    bots to join (as it should: a standing league takes them in while it runs), so it is given
    ``LEAGUE_S`` and then a Ctrl-C, after which 130 counts as a clean end."""
    proc = subprocess.Popen([sys.executable, "-m", "arena", *args], cwd=playground,
                            env={**os.environ, "ARENA_DATA": str(playground / "data"),
                                 "COLUMNS": "200"},
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=LEAGUE_S)
        return proc.returncode, output
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGINT)
        output, _ = proc.communicate(timeout=60)
        # (-SIGINT: it came as the interpreter was ending, its handlers gone: as 130 to a shell)
        return (0 if proc.returncode in (130, -signal.SIGINT) else proc.returncode), output
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()


QUICK = ["rules list", "rules show", "bots list", "bots show", "bots remove", "replay",
         "leaderboard", "league init", "league add", "league remove", "league status", "demo"]
DRAWING = ["report", "publish", "league publish"]  # a valid example draws charts: seconds each
PLAYING = ["play", "tournament", "sprt", "league run", "submit", "check", "new"]  # plays, copies
# Not drawn: a valid example serves until stopped. tests/arena/test_web_serve.py runs it, bad
# settings and a busy port included.
SERVING = ["serve"]


def test_every_command_is_drawn():
    assert sorted(QUICK + DRAWING + PLAYING + SERVING) == sorted(COMMANDS), sorted(COMMANDS)


def _examples(share: float) -> settings:
    profile = settings.get_profile("cli")
    return settings(profile, max_examples=max(5, int(profile.max_examples * share)))


def _run(playground: Path, command: str, share: float) -> None:
    @_examples(share)
    @given(args=command_lines(command))
    def run(args: list[str]) -> None:
        check(playground, args)
    run()


@pytest.mark.parametrize("command", QUICK)
def test_a_command_ends_cleanly_on_any_input(playground, command):
    _run(playground, command, 1.0)


@pytest.mark.slow
@pytest.mark.parametrize("command", DRAWING + PLAYING)
def test_a_command_that_draws_or_plays_ends_cleanly_on_any_input(playground, command):
    # A fifth of the quick commands' examples (6 by default): each valid one draws charts or
    # plays matches for seconds, and the suite keeps to its few minutes on two cores.
    _run(playground, command, 0.2)
