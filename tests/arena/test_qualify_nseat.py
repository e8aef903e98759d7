"""Qualification of bots that declare the variants they play (issue 15): the manifest's
``profiles``, the matches of each declared three- or four-player profile, and a decline of a
declared profile failing qualification. Bots are real processes (``fixtures/nseat_bot.py``); the
registry is a real SQLite file under a temporary data folder."""

from __future__ import annotations

import shutil
import sys
import uuid
from pathlib import Path

import pytest

from arena.match.bot_process import Limits
from arena.entrants.manifest import TWO_PLAYER_PROFILES, ManifestError, parse_manifest
from arena.entrants.qualify import ExitFault, qualify
from arena.entrants.registry import Registry
from arena.entrants.submit import submit
from arena.types import BotSpec

NSEAT_BOT = Path(__file__).parent / "fixtures" / "nseat_bot.py"
LIMITS = Limits(decision_ms=1000, startup_ms=5000)
SESSION = uuid.uuid4().hex


def nbot(mode: str, name: str) -> BotSpec:
    return BotSpec(name, (sys.executable, str(NSEAT_BOT), mode, SESSION))


# -- the manifest's profiles --------------------------------------------------------------------

def test_a_manifest_without_profiles_declares_the_two_player_ones():
    manifest = parse_manifest({"name": "a", "command": "x"})
    assert manifest.profiles == TWO_PLAYER_PROFILES == ("sixty_six", "schnapsen", "vu_compat")
    assert manifest.to_dict()["profiles"] == list(TWO_PLAYER_PROFILES)


def test_a_manifest_declares_three_player():
    manifest = parse_manifest({"name": "a", "command": "x",
                               "profiles": ["sixty_six", "three_player"]})
    assert manifest.profiles == ("sixty_six", "three_player")


@pytest.mark.parametrize("value,message", [
    (["five_player"], "unknown profile(s) 'five_player'"),
    ("three_player", "must be a non-empty list of profile names"),
    ([], "must be a non-empty list"),
    (["three_player", "three_player"], "lists a profile twice"),
    ([3], "must be a non-empty list"),
], ids=["unknown", "not_a_list", "empty", "twice", "not_names"])
def test_bad_profiles_are_refused_naming_the_key(value, message):
    with pytest.raises(ManifestError, match="bot.toml: profiles") as caught:
        parse_manifest({"name": "a", "command": "x", "profiles": value})
    assert message in str(caught.value)


# -- qualification ------------------------------------------------------------------------------

@pytest.mark.slow
def test_a_bot_declaring_three_player_plays_it_from_every_seat_and_passes(tmp_path):
    report = qualify(nbot("play", "cand"), LIMITS, matches=2, work=tmp_path,
                     profiles=("sixty_six", "three_player"), opponent=nbot("play", "opp"))
    assert report.passed, report.lines()
    three = [m for m in report.matches if m.get("profile") == "three_player"]
    assert [m["seat"] for m in three] == [0, 1, 2]
    assert all(m["outcome"].startswith(("won", "lost")) for m in three), three
    assert len(report.matches) == 5  # two two-player matches, then three
    assert any("three_player, seat 2" in line for line in report.lines())


@pytest.mark.slow
def test_a_bot_declaring_four_player_plays_both_sides(tmp_path):
    report = qualify(nbot("play", "cand"), LIMITS, matches=2, work=tmp_path,
                     profiles=("four_player",), opponent=nbot("play", "opp"))
    assert report.passed, report.lines()
    assert [(m.get("profile"), m["seat"]) for m in report.matches][2:] == \
        [("four_player", 0), ("four_player", 1)]


def test_declining_a_declared_profile_fails_qualification(tmp_path):
    report = qualify(nbot("decline", "cand"), LIMITS, matches=1, work=tmp_path,
                     profiles=("sixty_six", "three_player"), opponent=nbot("play", "opp"))
    assert not report.passed
    failure = report.failure
    assert failure is not None
    assert (failure.fault, failure.profile, failure.seat) == (ExitFault.DECLINED, "three_player", 0)
    assert "cand does not support three_player (no partners here)" in failure.detail
    assert "< decline no partners here" in failure.transcript
    assert any("declined" in line and "three_player" in line for line in report.lines())


def test_a_profile_the_bot_did_not_declare_is_not_asked(tmp_path):
    report = qualify(nbot("decline", "cand"), LIMITS, matches=1, work=tmp_path,
                     profiles=TWO_PLAYER_PROFILES, opponent=nbot("play", "opp"))
    assert report.passed, report.lines()
    assert [m.get("profile") for m in report.matches] == [None]


def test_an_opponent_that_declines_fails_closed_without_blaming_the_bot(tmp_path):
    report = qualify(nbot("play", "cand"), LIMITS, matches=1, work=tmp_path,
                     profiles=("three_player",), opponent=nbot("decline", "opp"))
    assert report.failure is not None and report.failure.fault is ExitFault.NO_OPPONENT
    assert "not the bot's fault" in report.failure.rule


# -- submission: the registry keeps what the bot declares -----------------------------------------

def _folder(tmp_path: Path, mode: str, profiles: str | None) -> Path:
    folder = tmp_path / f"bot-{mode}"
    folder.mkdir()
    shutil.copy(NSEAT_BOT, folder / "bot.py")
    declared = f"profiles = {profiles}\n" if profiles else ""
    (folder / "bot.toml").write_text(f'name = "nb-{mode}"\ncommand = "python3 bot.py {mode}"\n'
                                     + declared)
    return folder


def test_submitting_a_bot_that_declines_a_declared_profile_is_rejected(tmp_path):
    outcome = submit(str(_folder(tmp_path, "decline", '["sixty_six", "three_player"]')),
                     data=tmp_path / "data", limits=LIMITS, matches=1)
    assert outcome.status == "rejected", outcome.reason
    assert "declined" in outcome.reason and "does not support three_player" in outcome.reason


def test_the_registry_keeps_the_declared_profiles_and_defaults_old_ones(tmp_path):
    data = tmp_path / "data"
    outcome = submit(str(_folder(tmp_path, "decline", None)), data=data, limits=LIMITS, matches=1)
    assert outcome.status == "registered", outcome.reason
    with Registry.open(data) as registry:
        bot = registry.find("nb-decline")
        assert bot is not None and bot.profiles == TWO_PLAYER_PROFILES
        # A row written before manifests had profiles reads as the two-player ones.
        old = registry.add("old", "v1", ("x",), ".", None, {"name": "old", "command": "x"}, {})
        assert old.profiles == TWO_PLAYER_PROFILES


def test_a_command_declares_its_variants_with_profile_on_the_command_line(tmp_path):
    from typer.testing import CliRunner

    from arena.cli.main import app

    data = tmp_path / "data"
    command = f"{sys.executable} {NSEAT_BOT} decline"
    result = CliRunner().invoke(app, ["submit", command, "--name", "nbd", "--profile",
                                      "three_player", "--data", str(data), "--matches", "1"])
    assert result.exit_code == 1, result.output
    assert "declined" in result.output and "nbd does not support three_player" in result.output
    # Without --profile the same command declares the two-player profiles, and is registered.
    result = CliRunner().invoke(app, ["submit", command, "--name", "nbd", "--data", str(data),
                                      "--matches", "1"])
    assert result.exit_code == 0, result.output
    with Registry.open(data) as registry:
        bot = registry.find("nbd")
        assert bot is not None and bot.profiles == TWO_PLAYER_PROFILES
    shown = CliRunner().invoke(app, ["bots", "show", "nbd", "--data", str(data)])
    assert shown.exit_code == 0 and "profiles: sixty_six, schnapsen, vu_compat" in shown.output
    bad = CliRunner().invoke(app, ["submit", command, "--name", "x", "--profile", "five_player",
                                   "--data", str(data)])
    assert bad.exit_code == 2 and "unknown profile(s) 'five_player'" in bad.output
    assert "Traceback" not in bad.output
