"""End-to-end checks of the ``arena`` command line, through Typer's runner and the installed script."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import sandbox_level
from arena.cli.main import app
from arena.game.rules import FLAG_FIELDS

runner = CliRunner()


def test_help_lists_the_commands():
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in ("demo", "rules"):
        assert command in result.output


@pytest.mark.parametrize("profile", ["sixty_six", "schnapsen", "vu_compat"])
def test_rules_show_prints_every_flag(profile):
    result = runner.invoke(app, ["rules", "show", profile])
    assert result.exit_code == 0, result.output
    for name in FLAG_FIELDS:
        assert f" {name} " in result.output, name


def test_rules_show_labels_each_flag_with_the_section_that_defines_it():
    lines = runner.invoke(app, ["rules", "show", "four_player"]).output.splitlines()
    label = {line.split()[1]: line.split()[0] for line in lines[1:] if line.strip()}
    assert label["deck_size"] == "§11.1" and label["players"] == "§11.35"
    # §10.4 introduces these two; §11 row 35 is `players` alone.
    assert label["claim_target"] == label["must_beat_partner"] == "§10.4"


def test_rules_show_values_differ_between_profiles():
    schnapsen = runner.invoke(app, ["rules", "show", "schnapsen"]).output
    line = next(l for l in schnapsen.splitlines() if " deck_size " in l)
    assert "= 20" in line


def test_rules_show_toml_round_trips_as_an_override_file(tmp_path):
    toml_text = runner.invoke(app, ["rules", "show", "schnapsen", "--toml"]).output
    path = tmp_path / "rules.toml"
    path.write_text(toml_text.replace("match_target = 7", "match_target = 11"))
    result = runner.invoke(app, ["rules", "show", "-r", str(path)])
    assert result.exit_code == 0, result.output
    line = next(l for l in result.output.splitlines() if " match_target " in l)
    assert "= 11" in line
    assert "rules profile schnapsen" in result.output


def test_rules_show_bad_flag_value_is_a_clear_error(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('wrong_claim_award = "sometimes"\n')
    result = runner.invoke(app, ["rules", "show", "-r", str(path)])
    assert result.exit_code == 2
    assert "wrong_claim_award" in result.output and "two_or_three" in result.output


def test_rules_show_unknown_profile_is_a_clear_error():
    result = runner.invoke(app, ["rules", "show", "nope"])
    assert result.exit_code == 2
    assert "unknown rules profile 'nope'" in result.output


@pytest.mark.parametrize("profile", ["sixty_six", "schnapsen"])
def test_demo_plays_a_full_match(profile):
    result = runner.invoke(app, ["demo", "--one-match", "--seed", "5", "--profile", profile])
    assert result.exit_code == 0, result.output
    assert "Deal 1:" in result.output
    assert "wins the match" in result.output


def test_demo_is_deterministic_for_a_seed():
    first = runner.invoke(app, ["demo", "--one-match", "--seed", "11"]).output
    second = runner.invoke(app, ["demo", "--one-match", "--seed", "11"]).output
    assert first == second


def test_installed_console_script_runs():
    script = shutil.which("arena", path=str(__import__("pathlib").Path(sys.executable).parent))
    if script is None:
        pytest.skip("the arena console script is not installed next to this Python")
    out = subprocess.run([script, "rules", "list"], capture_output=True, text=True, check=True)
    assert "schnapsen" in out.stdout


def test_play_prints_a_reproducible_match(tmp_path):
    runs = []
    for name in ("a", "b"):
        result = runner.invoke(app, ["play", "random", "greedy", "--seed", "7",
                                     "--record", str(tmp_path / f"{name}.jsonl")])
        assert result.exit_code == 0, result.output
        assert "wins the match" in result.output and "Deal  1:" in result.output
        runs.append([l for l in result.output.splitlines() if l.startswith("Deal")])
    assert runs[0] == runs[1]


def test_play_resolves_relative_script_paths(tmp_path, monkeypatch):
    bots_dir = __import__("pathlib").Path(__file__).resolve().parents[1] / "bots" / "minimal"
    monkeypatch.chdir(bots_dir)
    result = runner.invoke(app, ["play", f"{sys.executable} first_legal.py", "random", "--seed", "3",
                                 "--record", str(tmp_path / "r.jsonl")])
    assert result.exit_code == 0, result.output
    assert "forfeit" not in result.output


def test_play_takes_sandbox_limits(tmp_path):
    """``--limit`` as tournament, check and submit take it: a bot that spins at its first request
    is stopped by the CPU limit of 1 s asked for, long before its 60 s to decide."""
    spinner = f"{sys.executable} {Path(__file__).parent / 'arena' / 'fixtures' / 'bad_bot.py'} loop"
    result = runner.invoke(app, ["play", spinner, "random", "--limit", "cpu_s=1",
                                 "--decision-ms", "60000", "--record", str(tmp_path / "r.jsonl")])
    assert result.exit_code == 0, result.output
    assert "CPU time limit of 1 s" in result.output, result.output
    result = runner.invoke(app, ["play", "random", "greedy", "--limit", "cpu_s=x"])
    assert result.exit_code == 2
    assert result.output.strip() == "error: a limit is KEY=NUMBER, like cpu_s=60, not 'cpu_s=x'"


def test_play_unknown_bot_is_a_clear_error():
    result = runner.invoke(app, ["play", "no-such-bot", "random"])
    assert result.exit_code == 2
    assert "unknown bot 'no-such-bot'" in result.output


def test_replay_prints_the_match_and_a_seat_view(tmp_path):
    record = tmp_path / "m.jsonl"
    assert runner.invoke(app, ["play", "greedy", "random", "--seed", "4", "--record",
                               str(record)]).exit_code == 0
    omniscient = runner.invoke(app, ["replay", str(record)])
    assert omniscient.exit_code == 0 and "Deal 1:" in omniscient.output
    seat = runner.invoke(app, ["replay", str(record), "--seat", "1"])
    assert seat.exit_code == 0 and "> deal 1 " in seat.output and "< ready random" in seat.output


def test_replay_of_a_corrupt_record_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("this is not json\n")
    result = runner.invoke(app, ["replay", str(bad)])
    assert result.exit_code == 2 and "not a JSON line" in result.output


def test_demo_runs_a_small_tournament_and_prints_the_leaderboard(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with sandbox_level.kept():  # the demo asks for the strongest level there is, for the process
        result = runner.invoke(app, ["demo", "--matches", "2"])
    assert result.exit_code == 0, result.output
    assert "rank" in result.output and "greedy" in result.output and "results: results/demo-" in result.output
    folders = list((tmp_path / "results").glob("demo-*"))
    assert len(folders) == 1 and (folders[0] / "results.sqlite").is_file()
    # The demo says where its report page is, and the page is there.
    assert f"report: {Path('results') / folders[0].name / 'report' / 'index.html'}" in result.output
    assert (folders[0] / "report" / "index.html").is_file()


# -- three and four players (issue 15) ------------------------------------------------------------

NSEAT_BOT = Path(__file__).parent / "arena" / "fixtures" / "nseat_bot.py"


def _nseat_cmd(path: Path = NSEAT_BOT, mode: str = "play") -> str:
    return f"{sys.executable} {path} {mode}"


@pytest.mark.slow
def test_play_with_three_bots_plays_three_player_and_replays_each_seat(tmp_path):
    record = tmp_path / "m3.jsonl"
    result = runner.invoke(app, ["play", _nseat_cmd(), _nseat_cmd(), _nseat_cmd(), "--seed", "3",
                                 "--record", str(record)])
    assert result.exit_code == 0, result.output
    assert "Deal  1:" in result.output and "wins the match" in result.output
    assert "nseat_bot-2: claims" in result.output
    header = record.read_text().splitlines()[0]
    assert '"name":"three_player"' in header
    omniscient = runner.invoke(app, ["replay", str(record)])
    assert omniscient.exit_code == 0, omniscient.output
    assert "nseat_bot-0 vs nseat_bot-1 vs nseat_bot-2" in omniscient.output
    assert "  dead " in omniscient.output and "wins the match" in omniscient.output
    seat2 = runner.invoke(app, ["replay", str(record), "--seat", "2"])
    assert seat2.exit_code == 0, seat2.output
    assert "> match play-seeded profile three_player target 7 players 3 seat 2 " in seat2.output
    shown = seat2.output.splitlines()[1:]
    from arena.match.records import read_record

    mine = [m for m in read_record(record).messages if m["seat"] == 2]
    assert len(shown) == len(mine) and all(l[:2] in ("> ", "< ") for l in shown)
    # Seat 2 sees no card another seat drew from the stock, only the face-up one (PROTOCOL.md §9).
    up_cards = {l.split()[6] for l in shown if l.startswith("> deal ")}
    others_draws = [l.split() for l in shown if l.startswith("> draw ") and l.split()[2] != "2"]
    assert others_draws and all(len(w) == 3 or w[3] in up_cards for w in others_draws)
    bad = runner.invoke(app, ["replay", str(record), "--seat", "3"])
    assert bad.exit_code == 2
    assert "--seat 3 is not a seat of this match: it has seats 0 to 2" in bad.output


@pytest.mark.slow
def test_play_with_four_bots_seats_partners_a_and_c_against_b_and_d(tmp_path):
    other = NSEAT_BOT.with_name("nseat_partner.py")
    record = tmp_path / "m4.jsonl"
    result = runner.invoke(app, ["play", _nseat_cmd(), _nseat_cmd(other), _nseat_cmd(),
                                 _nseat_cmd(other), "--seed", "5", "--record", str(record)])
    assert result.exit_code == 0, result.output
    # Sides are named by both their bots, without the seat numbers that tell equal names apart.
    assert "nseat_bot+nseat_bot" in result.output and "nseat_partner+nseat_partner" in result.output
    assert "wins the match" in result.output
    replayed = runner.invoke(app, ["replay", str(record)])
    assert replayed.exit_code == 0, replayed.output
    assert "nseat_bot-0+nseat_bot-2 vs nseat_partner-1+nseat_partner-3" in replayed.output
    assert runner.invoke(app, ["replay", str(record), "--seat", "3"]).exit_code == 0


def test_play_profile_that_does_not_fit_the_number_of_bots_is_a_clear_error():
    cmd = _nseat_cmd()
    result = runner.invoke(app, ["play", cmd, cmd, cmd, "--profile", "sixty_six"])
    assert result.exit_code == 2
    assert "profile sixty_six is for 2 players, but 3 bots were given" in result.output
    result = runner.invoke(app, ["play", cmd, cmd, "--profile", "four_player"])
    assert result.exit_code == 2 and "four_player is for 4 players, but 2 bots" in result.output
    result = runner.invoke(app, ["play", *[cmd] * 5])
    assert result.exit_code == 2 and "needs 2, 3 or 4 bots" in result.output
    result = runner.invoke(app, ["play", cmd, cmd, cmd, "--first-dealer", "3"])
    assert result.exit_code == 2 and "--first-dealer must be a seat from 0 to 2" in result.output
    assert "Traceback" not in result.output


def test_play_refuses_a_bundled_bot_that_does_not_declare_the_variant():
    result = runner.invoke(app, ["play", "first-legal-c", "random", "random"])
    assert result.exit_code == 2
    assert "first-legal-c does not support three_player" in result.output


def test_bundled_bots_declare_known_profiles():
    from arena.entrants.bot_specs import bundled_names
    from arena.game import PROFILES
    from bots import BUNDLED_PROFILES

    assert set(BUNDLED_PROFILES) == set(bundled_names())
    assert all(set(p) <= set(PROFILES) for p in BUNDLED_PROFILES.values())


def test_a_three_player_tournament_of_two_bots_is_refused(tmp_path):
    # (Issue 16 made three- and four-player tournaments; three seats still need three bots.)
    result = runner.invoke(app, ["tournament", "-b", "random", "-b", "greedy", "--profile",
                                 "three_player", "-o", str(tmp_path / "t")])
    assert result.exit_code == 2
    assert "three_player is for three players: a tournament needs at least three bots" \
        in result.output
    assert not (tmp_path / "t" / "results.sqlite").exists()


def test_play_with_a_bot_that_declines_says_so_and_the_record_replays(tmp_path):
    record = tmp_path / "d.jsonl"
    result = runner.invoke(app, ["play", _nseat_cmd(mode="decline"), _nseat_cmd(), _nseat_cmd(),
                                 "--record", str(record)])
    assert result.exit_code == 2, result.output  # nothing was played: not a result
    assert "not played: nseat_bot-0 does not support three_player (no partners here)" in \
        result.output
    assert "forfeit" not in result.output
    replayed = runner.invoke(app, ["replay", str(record)])
    assert replayed.exit_code == 0 and "not played: nseat_bot-0 does not support" in replayed.output


# -- every option's default, and the names cutechess and fastchess users type (issue 17) ----------

def _commands(command, path=()):
    """Every command of the Typer app with its path of names (``bots list``, ``rules show``...)."""
    if hasattr(command, "commands"):  # a group (Typer ships its own copy of click's classes)
        for name, sub in command.commands.items():
            yield from _commands(sub, (*path, name))
    else:
        yield path, command


def _option_rows(path) -> dict[str, str]:
    """Each option's row of ``arena PATH --help``, by its first name (a terminal wide enough that
    no row wraps)."""
    output = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "1000"}).output
    rows = {}
    for line in output.splitlines():
        words = line.strip("│ *").split()  # "*": Typer's mark of a required option
        if words and words[0].startswith("--"):
            rows[words[0].split(",")[0]] = line
    return rows


def test_every_commands_help_shows_each_options_default():
    from typer.main import get_command

    commands = dict(_commands(get_command(app)))
    for wanted in [("tournament",), ("play",), ("sprt",), ("report",), ("publish",),
                   ("leaderboard",), ("submit",), ("replay",), ("demo",), ("bots", "list"),
                   ("bots", "show"), ("bots", "remove"), ("rules", "show"), ("rules", "list")]:
        assert wanted in commands, wanted
    missing = []
    for path, command in commands.items():
        rows = _option_rows(path)
        for param in command.params:
            if param.param_type_name != "option" or param.name == "help":
                continue
            if param.is_flag and param.default is False and not param.secondary_opts:
                continue  # a bare flag is off unless given: there is no value to show
            if param.required:
                continue  # given every time (arena new --lang): there is no default to show
            row = rows[param.opts[0]]
            if param.default is not None:
                shown = "[default: " in row  # Typer renders a real default value itself
            else:
                shown = "default" in row.lower()  # the help says what happens without it
            if not shown:
                missing.append(f"arena {' '.join(path)} {param.opts[0]}")
    assert missing == []


def test_workers_answer_to_concurrency_and_pairs_to_rounds():
    from typer.main import get_command

    commands = dict(_commands(get_command(app)))
    names = {path: {name for p in command.params for name in p.opts}
             for path, command in commands.items()}
    for path in [("tournament",), ("sprt",)]:
        assert {"--workers", "-w", "--concurrency", "--rounds"} <= names[path], path


def test_tournament_rounds_are_duplicate_pairs_or_deal_sets(monkeypatch, tmp_path):
    # run_tournament is stood in for: what is checked is only the settings the flags give it.
    import arena.compete.tournament as tournament_module

    seen = []

    def capture(config, **kwargs):
        seen.append(config)
        raise tournament_module.ConfigError("captured")

    monkeypatch.setattr(tournament_module, "run_tournament", capture)
    out = str(tmp_path / "t")
    two = runner.invoke(app, ["tournament", "-b", "greedy", "-b", "random", "--rounds", "3",
                              "--concurrency", "1", "-o", out])
    assert two.exit_code == 2 and "captured" in two.output, two.output
    assert seen[-1].matches_per_pairing == 6 and seen[-1].deal_sets is None
    assert seen[-1].workers == 1
    three = runner.invoke(app, ["tournament", "-b", "greedy", "-b", "random", "-b", "strong",
                                "--profile", "three_player", "--rounds", "2", "-o", out])
    assert three.exit_code == 2 and "captured" in three.output, three.output
    assert seen[-1].deal_sets == 2
    both = runner.invoke(app, ["tournament", "-b", "greedy", "-b", "random", "--rounds", "3",
                               "-n", "6", "-o", out])
    assert both.exit_code == 2 and "not both" in both.output
    assert len(seen) == 2
