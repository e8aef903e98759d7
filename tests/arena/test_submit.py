"""Submitting bots: manifests, the build, qualification, the registry, and the CLI around them.

Bots are real processes (the example bot, ``fixtures/bad_bot.py``, a C bot built at submission)
and the registry is a real SQLite file under a temporary data folder.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.isolation import cgroups
from arena.match.bot_process import Limits
from arena.entrants.bot_specs import resolve_bot
from arena.cli.main import app
from arena.entrants.manifest import ManifestError, load_manifest, parse_manifest
from arena.entrants.registry import Registry, content_hash
from arena.isolation.limits import SandboxLimits
from arena.isolation.probe import support
from arena.entrants.submit import submit
from arena.compete.tournament import load_config, run_tournament
from bot_procs import TAG, tagged_processes
from signal_at import signal_when

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "bots" / "example"
FIRST_LEGAL_C = ROOT / "bots" / "minimal" / "first_legal.c"
BAD_BOT = Path(__file__).parent / "fixtures" / "bad_bot.py"
CLOCK_BOT = Path(__file__).parent / "fixtures" / "clock_bot.py"
QUICK = Limits(decision_ms=500, startup_ms=3000,
               sandbox=SandboxLimits(cpu_s=10, memory_mb=512, processes=32, file_mb=8,
                                     open_files=64))
# For bots that fault by themselves: a loaded machine must not turn their fault into a timeout.
PATIENT = replace(QUICK, decision_ms=5000)
runner = CliRunner()


@pytest.fixture
def data(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("ARENA_DATA", str(folder))
    return folder


def bot_folder(tmp_path: Path, manifest: str, files: dict[str, str] | None = None) -> Path:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.toml").write_text(manifest)
    for name, text in (files or {}).items():
        (folder / name).write_text(text)
    return folder


# -- the manifest -----------------------------------------------------------------------------------

BAD_MANIFESTS = [
    ("missing_command", {"name": "a"}, "missing key(s) command"),
    ("unknown_key", {"name": "a", "command": "x", "colour": "red"}, "unknown key(s) colour"),
    ("bad_name", {"name": "a b", "command": "x"}, "name must be 1 to 64 characters"),
    ("long_name", {"name": "a" * 65, "command": "x"}, "name must be 1 to 64 characters"),
    ("not_a_string", {"name": "a", "command": ["x"]}, "command must be a string"),
    ("empty_command", {"name": "a", "command": "  "}, "command is empty"),
    ("unsplittable", {"name": "a", "command": "x 'y"}, "cannot split command"),
    ("workdir_escapes", {"name": "a", "command": "x", "workdir": "../other"}, "workdir must be"),
    ("workdir_absolute", {"name": "a", "command": "x", "workdir": "/etc"}, "workdir must be"),
]


@pytest.mark.parametrize("data,message", [b[1:] for b in BAD_MANIFESTS],
                         ids=[b[0] for b in BAD_MANIFESTS])
def test_a_bad_manifest_is_refused_naming_the_key(data, message):
    with pytest.raises(ManifestError, match="bot.toml") as caught:
        parse_manifest(data)
    assert message in str(caught.value)


def test_a_manifest_round_trips_its_fields():
    manifest = parse_manifest({"name": "m", "command": "python3 bot.py --fast", "version": "2",
                               "workdir": "src", "build": "make all", "language": "python",
                               "author": "Ann"})
    assert manifest.command == ("python3", "bot.py", "--fast")
    assert manifest.argv()[0] == sys.executable  # python3 is the arena's Python (the SDK)
    assert parse_manifest(manifest.to_dict()) == manifest


def test_a_folder_without_a_manifest_or_with_bad_toml_is_refused(tmp_path):
    with pytest.raises(ManifestError, match="has no bot.toml"):
        load_manifest(tmp_path)
    (tmp_path / "bot.toml").write_text("name = ")
    with pytest.raises(ManifestError, match="not valid TOML"):
        load_manifest(tmp_path)


def test_the_content_hash_follows_the_files_and_skips_caches(tmp_path):
    folder = bot_folder(tmp_path, 'name = "h"\ncommand = "x"\n', {"a.py": "1"})
    first = content_hash(folder)
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "a.pyc").write_text("cache")
    assert content_hash(folder) == first
    (folder / "a.py").write_text("2")
    assert content_hash(folder) != first
    (folder / "a.py").write_text("1")
    (folder / "a.py").chmod(0o755)
    assert content_hash(folder) != first  # the executable bit is part of a bot


# -- submitting -------------------------------------------------------------------------------------

def test_a_good_bot_is_registered_once_and_a_changed_one_is_a_new_version(tmp_path, data):
    first = submit(str(EXAMPLE), limits=QUICK, matches=2)
    assert first.status == "registered", first.reason
    assert first.report is not None and first.report.passed
    again = submit(str(EXAMPLE), limits=QUICK, matches=2)
    assert again.status == "unchanged" and again.version == first.version
    changed = tmp_path / "changed"
    shutil.copytree(EXAMPLE, changed)
    (changed / "bot.py").write_text((changed / "bot.py").read_text() + "\n# tuned\n")
    second = submit(str(changed), limits=QUICK, matches=2)
    assert second.status == "registered" and second.version != first.version
    with Registry.open(data) as registry:
        assert [b.version for b in registry.versions("example")] == [second.version,
                                                                     first.version]
        assert registry.find("example").version == second.version
        assert registry.find("example", first.version[:6]).version == first.version
    # The registered copy is what runs: the submitted folder may change or go.
    shutil.rmtree(changed)
    assert resolve_bot("example").folder is not None
    assert resolve_bot(f"example@{first.version}").version == first.version


def test_a_bundled_name_cannot_be_taken(data):
    outcome = submit(f"{sys.executable} {BAD_BOT} hang", name="greedy", limits=QUICK)
    assert outcome.status == "rejected" and "bundled bot" in outcome.reason


def test_a_command_needs_a_name(data):
    outcome = submit(f"{sys.executable} {BAD_BOT} hang", limits=QUICK)
    assert outcome.status == "rejected" and "--name" in outcome.reason


@pytest.mark.skipif(not (shutil.which("cc") or shutil.which("gcc")), reason="no C compiler")
def test_a_bot_is_built_in_the_sandbox_at_submission(tmp_path, data):
    folder = bot_folder(tmp_path, 'name = "built"\nbuild = "cc -O2 -o bot first_legal.c"\n'
                        'command = "./bot"\nlanguage = "c"\n')
    shutil.copy(FIRST_LEGAL_C, folder / "first_legal.c")
    outcome = submit(str(folder), limits=QUICK, matches=2)
    assert outcome.status == "registered", (outcome.reason, outcome.build_output)
    assert outcome.bot is not None and (outcome.bot.folder / "bot").is_file()
    assert not (folder / "bot").exists()  # the build ran on a copy


def test_a_failing_build_is_rejected_with_its_output(tmp_path, data):
    folder = bot_folder(tmp_path, 'name = "broken"\nbuild = "sh -c \'echo missing header; '
                        'exit 3\'"\ncommand = "./bot"\n')
    outcome = submit(str(folder), limits=QUICK)
    assert outcome.status == "rejected"
    assert "failed: exited with status 3" in outcome.reason
    assert "missing header" in outcome.build_output
    with Registry.open(data) as registry:
        assert registry.newest() == []


# What qualification says of each hostile bot: the fault and words of the reason.
CAPPED = support().mode != "limits" and cgroups.available() is None
HOSTILE_SUBMISSIONS = [
    ("loop", "timeout: no answer within 500 ms"),
    ("hang", "timeout: no answer within 500 ms"),
    ("no_ready", "timeout: no 'ready' within the start-up limit"),
    ("exit_at_start", "exit: closed its output; exited with status 3"),
    ("exit_mid_deal", "exit: closed its output; exited with status 0"),
    ("garbage", "malformed"),
    ("no_newline", "timeout: no answer within 500 ms (5 bytes of an unfinished line)"),
    ("long_line", "line_too_long"),
    ("stdout_burst", "malformed"),
    ("stderr_endless", "timeout"),
    # With a cgroup per bot (cgroups.py) these are killed at the cap, which the reason names.
    ("fork_bomb", "exit: closed its output; killed by signal SIGKILL: process limit of" if CAPPED
     else "timeout"),
    ("memory_hog", "exit: closed its output; killed by signal SIGKILL: memory limit of" if CAPPED
     else "exit: closed its output; exited with status 1"),
    ("orphan", "exit"),
    ("orphan_quiet", "left_running: 1 process(es) it started were still running"),
    ("huge_file", "exit: closed its output; exited with status 1"),
    ("network", "exit: closed its output; exited with status 1"),
    ("illegal", "illegal_action"),
    ("linger", "no_exit: still running 1 s after match_end"),
]


@pytest.mark.parametrize("mode,reason", HOSTILE_SUBMISSIONS, ids=[h[0] for h in HOSTILE_SUBMISSIONS])
def test_a_hostile_bot_is_rejected_with_a_clear_reason(data, mode, reason):
    if support().mode != "isolated" and mode in ("fork_bomb", "orphan_quiet", "linger", "orphan"):
        pytest.skip(f"needs the full sandbox: {support().reason}")
    limits = QUICK if reason.startswith("timeout") else PATIENT
    vouch = " capped" if CAPPED and mode in ("fork_bomb", "memory_hog") else ""
    outcome = submit(f"{sys.executable} {BAD_BOT} {mode} {TAG} 9{vouch}", name=f"bad-{mode}",
                     limits=limits, matches=2)
    assert outcome.status == "rejected"
    assert reason in outcome.reason
    assert outcome.report is not None
    text = "\n".join(outcome.report.lines())
    assert "FAILED" in text and "rule: " in text
    with Registry.open(data) as registry:
        assert registry.find(f"bad-{mode}") is None


def test_a_rejection_report_shows_the_exchange_and_the_stderr(data):
    outcome = submit(f"{sys.executable} {BAD_BOT} crash {TAG}", name="crash", limits=PATIENT)
    text = "\n".join(outcome.report.lines())
    assert "> sixtysix 1" in text and "< ready bad-crash" in text
    assert "RuntimeError: bad bot crashed on purpose" in text  # the end of its stderr


# -- the command line -------------------------------------------------------------------------------

def test_cli_submit_list_show_remove(data):
    result = runner.invoke(app, ["submit", str(EXAMPLE), "--decision-ms", "500", "--matches", "2"])
    assert result.exit_code == 0, result.output
    assert "qualification of example: PASSED" in result.output
    assert "registered: example version" in result.output
    listed = runner.invoke(app, ["bots", "list"])
    assert listed.exit_code == 0 and listed.output.startswith("example ")
    shown = runner.invoke(app, ["bots", "show", "example"])
    assert "command: " in shown.output and "qualified: seat 0" in shown.output
    removed = runner.invoke(app, ["bots", "remove", "example"])
    assert removed.exit_code == 0 and "removed example" in removed.output
    assert runner.invoke(app, ["bots", "show", "example"]).exit_code == 2


def test_cli_submit_of_a_hostile_bot_exits_1_with_the_reason(data):
    result = runner.invoke(app, ["submit", f"{sys.executable} {BAD_BOT} garbage {TAG}",
                                 "--name", "junk", "--decision-ms", "500"])
    assert result.exit_code == 1
    assert "rejected: qualification failed in match 1: malformed" in result.output
    assert "offending line" in result.output


def test_a_submission_stopped_by_sigterm_leaves_no_temporary_folder(tmp_path, data):
    """The web site's upload queue stops a submission with SIGTERM (upload_queue.end_group): it
    must unwind as Ctrl-C does, not die with the qualification's folder left in the temp dir."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    status, out, err = signal_when(
        [sys.executable, "-m", "arena", "submit", f"{sys.executable} {CLOCK_BOT} slow_each 300",
         "--name", "slowpoke", "--decision-ms", "5000"],
        {**os.environ, "TMPDIR": str(scratch), "COLUMNS": "300"},
        # mid-match: the bot takes 300 ms a decision
        lambda: bool(list(scratch.glob("sixtysix-qualify-*/qualify-1.jsonl"))))
    assert status == 128 + signal.SIGTERM, out + err
    assert "stopped by SIGTERM: the submission of" in err and "did not finish" in err
    assert "Traceback" not in out + err
    assert not list(scratch.glob("sixtysix-qualify-*"))
    assert runner.invoke(app, ["bots", "show", "slowpoke"]).exit_code == 2  # not registered


def test_a_build_left_by_a_submission_killed_with_kill_9_goes_with_the_next(tmp_path, data):
    """The build's folder is in the registry, named with the submitting process's PID
    (temp_folders.py): nothing removes it after kill -9, the next submission does."""
    folder = bot_folder(tmp_path, 'name = "sleepy"\nbuild = "python3 -c \'import time; '
                        'time.sleep(60)\'"\ncommand = "./bot"\n')
    building = data / "registry" / "staging"
    status, _, err = signal_when(
        [sys.executable, "-m", "arena", "submit", str(folder)], os.environ,
        lambda: bool(list(building.glob("sixtysix-staging-*/bot.src"))), sig=signal.SIGKILL)
    assert status == -signal.SIGKILL, err
    left = list(building.iterdir())
    assert len(left) == 1 and left[0].name.startswith("sixtysix-staging-"), left
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "bot.toml").write_text('name = "broken"\nbuild = "sh -c \'exit 3\'"\n'
                                     'command = "./bot"\n')
    assert submit(str(broken), limits=QUICK).status == "rejected"
    assert list(building.iterdir()) == []


def test_cli_refuses_a_bad_limit(data):
    result = runner.invoke(app, ["submit", str(EXAMPLE), "--limit", "gpu=1"])
    assert result.exit_code == 2 and "unknown sandbox limit(s): gpu" in result.output


# -- tournaments with registered and hostile bots ---------------------------------------------------

def test_a_tournament_plays_registered_bots_and_stores_their_version(tmp_path, data):
    registered = submit(str(EXAMPLE), limits=QUICK, matches=2)
    config = load_config(None, {"bots": ["example", "random"], "name": "r",
                                "matches_per_pairing": 2, "workers": 1,
                                "output": str(tmp_path / "r"), "sandbox": {"cpu_s": 20}})
    db_path = run_tournament(config)
    db = sqlite3.connect(db_path)
    assert db.execute("SELECT version FROM bots WHERE name = 'example'").fetchone() == \
        (registered.version,)
    assert db.execute("SELECT count(*) FROM matches WHERE reason = 'target'").fetchone() == (2,)
    stored = load_config(None, {**config.to_dict(), "output": str(tmp_path / "r")})
    assert stored.sandbox == {"cpu_s": 20}  # the limits are part of the tournament's settings


@pytest.mark.skipif(support().mode != "isolated", reason="needs the full sandbox (root on Linux)")
def test_a_registered_bot_cannot_read_the_tournament_database(tmp_path, data, open_folder):
    import json

    out = open_folder / "spied"  # an --output outside the data folder, readable by anyone
    folder = bot_folder(tmp_path, f'name = "spy"\ncommand = "python3 {BAD_BOT} spy {TAG}"\n',
                        {"paths": f"{out / 'results.sqlite'}\n{out / 'tournament.toml'}"})
    assert submit(str(folder), limits=PATIENT, matches=2).status == "registered"
    config = load_config(None, {"bots": ["spy", "random"], "name": "s", "matches_per_pairing": 2,
                                "workers": 1, "output": str(out)})
    out.mkdir(mode=0o755)
    (out / "tournament.toml").write_text("seed = 1  # a file anyone may read, but for the sandbox")
    db_path = run_tournament(config)
    db_path.chmod(0o644)
    logs = sorted((out / "logs").glob("*.stderr.log"))
    spied = [json.loads(log.read_text().split("SPY ", 1)[1].splitlines()[0])
             for log in logs if "SPY " in log.read_text()]
    assert len(spied) == 2
    for report in spied:
        assert list(report["read"].values()) == [False, False], report["read"]


def test_tournament_limits_come_from_the_file_and_flags(tmp_path):
    settings = tmp_path / "t.toml"
    settings.write_text('bots = ["random", "greedy"]\n[sandbox]\ncpu_s = 30\nmemory_mb = 900\n')
    config = load_config(settings, {"sandbox": {"memory_mb": 1000}})
    assert dict(config.sandbox) == {"cpu_s": 30, "memory_mb": 1000}
    from arena.compete.tournament import ConfigError

    with pytest.raises(ConfigError, match="sandbox limit cpu_s must be a whole number"):
        load_config(None, {"bots": ["random", "greedy"], "sandbox": {"cpu_s": -1}})


@pytest.mark.slow
def test_a_tournament_with_hostile_bots_completes_and_the_store_stays_intact(tmp_path, data):
    # Not "network": without a network it exits at the greeting, so the tournament's pre-flight
    # refuses it before any match (test_tournament_robust.py covers bots that cannot start).
    hostile = ["fork_bomb", "memory_hog", "orphan_quiet", "stdout_burst", "loop"]
    if support().mode != "isolated":
        hostile.remove("fork_bomb")
    if support().mode == "limits":
        hostile.remove("orphan_quiet")  # its child would outlive the test
    vouch = " capped" if CAPPED else ""
    bots = ["greedy", "random",
            *(f"{sys.executable} {BAD_BOT} {mode} {TAG} 9{vouch}" for mode in hostile)]
    config = load_config(None, {"bots": bots, "name": "hostile", "matches_per_pairing": 2,
                                "workers": 2, "decision_ms": 500, "output": str(tmp_path / "h"),
                                "sandbox": replace(QUICK.sandbox).to_dict()})
    db_path = run_tournament(config)
    db = sqlite3.connect(db_path)
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    mode_of = {name: json.loads(argv)[2] for name, argv in
               db.execute("SELECT name, command FROM bots WHERE name LIKE 'bad_bot%'")}
    assert sorted(mode_of.values()) == sorted(hostile)
    pairings = len(bots) * (len(bots) - 1) // 2
    assert db.execute("SELECT count(*) FROM matches").fetchone() == (2 * pairings,)
    # Every match of a hostile bot against a good one is that bot's forfeit, except orphan_quiet's,
    # which plays correctly (its child is killed with it) and may win or lose.
    rows = db.execute("SELECT seat0, seat1, reason, offender, fault FROM matches").fetchall()
    for seat0, seat1, reason, offender, fault in rows:
        names = (seat0, seat1)
        for seat, name in enumerate(names):
            other = names[1 - seat]
            if mode_of.get(name, "orphan_quiet") != "orphan_quiet" and other in ("greedy", "random"):
                assert (reason, offender) == ("forfeit", seat), (names, reason, fault)
    leaderboard = runner.invoke(app, ["leaderboard", str(tmp_path / "h"), "--format", "csv"])
    assert leaderboard.exit_code == 0 and "greedy" in leaderboard.output
    assert tagged_processes() == []
