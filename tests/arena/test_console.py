"""Text from bots is data, never markup (issue 14): bot names, answers, fault details and stderr
with Rich markup, control characters and very long lines, through real bot processes in
``arena play -v``, ``arena replay`` and ``arena submit``, and the helpers of ``arena.console``."""

from __future__ import annotations

import sys
import textwrap

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.console import MAX_SHOWN, safe, visible

runner = CliRunner()

# A tiny bot, as a stranger would write it: it greets, writes hostile text to stderr, then answers
# its first request with whatever it was given (argv[1], with \\e meaning ESC; "long": a line of
# 908 characters, which as an argument would be too long a file name for the arena's path checks).
NOISY_BOT = textwrap.dedent("""\
    import sys
    answer = sys.argv[1].replace("\\\\e", "\\x1b")
    if answer == "long":
        answer = "[debug] " + "x" * 900
    sys.stderr.write("E" * 1000 + "\\n[/bold] stderr oops\\n[debug] thinking\\n"
                     "\\x1b[2Jcleared\\x07\\n")
    sys.stderr.flush()
    for line in sys.stdin:
        word = line.split()[0] if line.split() else ""
        if word == "sixtysix":
            print("ready noisy", flush=True)
        elif word.endswith("?"):
            print(answer, flush=True)
    """)
# A name with markup and an ANSI escape in it: bots started by command are named after their file.
EVIL_STEM = "evil\x1b[31m[bold]bot"


@pytest.fixture
def arena_data(tmp_path, monkeypatch):
    """The arena's data folder for this test (open_folder lives under results/, which must then
    not be the data folder the sandbox hides)."""
    data = tmp_path / "data"
    monkeypatch.setenv("ARENA_DATA", str(data))
    return data


def noisy_bot(folder, stem: str = "noisy") -> str:
    path = folder / f"{stem}.py"
    path.write_text(NOISY_BOT, encoding="utf-8")
    path.chmod(0o644)
    return str(path)


def no_raw_controls(text: str) -> None:
    """Nothing a bot wrote reaches the terminal as a control character (Rich itself adds no
    escapes: the runner is not a terminal)."""
    bad = [c for c in text if (ord(c) < 32 and c != "\n") or 0x7f <= ord(c) < 0xa0]
    assert bad == [], bad


# -- the helpers --------------------------------------------------------------------------------

@pytest.mark.parametrize("raw, shown", [
    ("plain words", "plain words"),
    ("[/bold] oops", "[/bold] oops"),
    ("\x1b[2J", "\\x1b[2J"),
    ("over\rwrite", "over\\rwrite"),
    ("tab\there", "tab\\there"),
    ("bell\x07 del\x7f c1\x9b", "bell\\x07 del\\x7f c1\\x9b"),
    ("abc\u202eevil", "abc\\u202eevil"),         # a bidirectional override reorders the line
    ("line\u2028sep", "line\\u2028sep"),
    ("lone \udcff surrogate", "lone \\udcff surrogate"),
    ("émoji 👍🏽 and ZWJ 👨\u200d👩", "émoji 👍🏽 and ZWJ 👨\u200d👩"),
])
def test_control_characters_are_made_visible(raw, shown):
    assert visible(raw) == shown


def test_long_text_is_cut_with_a_marker():
    text = visible("y" * 5000)
    assert text.startswith("y" * MAX_SHOWN) and text.endswith(f"… [{5000 - MAX_SHOWN} more "
                                                              "characters cut]")
    assert visible("y" * 5000, limit=None) == "y" * 5000


@pytest.mark.parametrize("raw", ["[/bold] oops", "[debug] thinking", "[bold red]x[/]", "back\\",
                                 ":thumbs_up: [link=http://x]y[/link]", "a\\[b]"])
def test_safe_text_prints_exactly_as_written(raw):
    from rich.console import Console

    console = Console(highlight=False, emoji=False, width=200, force_terminal=False)
    with console.capture() as captured:
        console.print(f"[bold]before[/] {safe(raw)} after")
        console.print(f"[bold]{safe(raw)}[/]")
    assert captured.get().replace("\u200b", "") == f"before {raw} after\n{raw}\n"


# -- the commands, with real bot processes ------------------------------------------------------

def test_play_verbose_shows_markup_controls_and_long_answers_as_data(open_folder, arena_data,
                                                                      tmp_path):
    bot = noisy_bot(open_folder, EVIL_STEM)
    record = tmp_path / "m.jsonl"
    result = runner.invoke(app, ["play", f"python3 {bot} '[/bold] oops'", "random", "-v",
                                 "--record", str(record)])
    assert result.exit_code == 0, result.output
    assert result.exception is None
    out = result.output
    no_raw_controls(out)
    shown_name = "evil\\x1b[31m[bold]bot"
    assert f"{shown_name}  <- [/bold] oops" in out or f"{shown_name} <- [/bold] oops" in out
    assert f"random wins by forfeit: {shown_name} malformed" in out
    assert "[/bold] oops" in out.split("wins by forfeit")[1]  # the detail quotes the answer

    # The record replays: the omniscient view and the seat's transcript print it as data too.
    replay = runner.invoke(app, ["replay", str(record)])
    assert replay.exit_code == 0 and replay.exception is None, replay.output
    no_raw_controls(replay.output)
    assert f"random wins: {shown_name} forfeits (malformed: " in replay.output
    seat = runner.invoke(app, ["replay", str(record), "--seat", "0"])
    assert seat.exit_code == 0 and seat.exception is None, seat.output
    assert "< [/bold] oops" in seat.output and f"{shown_name} (seat 0)" in seat.output


def test_play_keeps_the_brackets_of_a_long_answer(open_folder, arena_data, tmp_path):
    bot = noisy_bot(open_folder)
    result = runner.invoke(app, ["play", "random", f"python3 {bot} long", "-v",
                                 "--record", str(tmp_path / "m.jsonl")])
    assert result.exit_code == 0 and result.exception is None, result.output
    answer = next(line for line in result.output.splitlines() if "noisy" in line and "<- [debug]"
                  in line)
    # (The record keeps the start of an overlong line: the terminal shows at most that.)
    assert "<- [debug] xxxx" in answer and len(answer) < MAX_SHOWN + 100
    assert "malformed ([debug] xxx" in result.output or "'[debug] xxx" in result.output


def test_submit_cuts_a_very_long_line_of_build_output(open_folder, arena_data):
    folder = open_folder / "builds-noisily"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "noisy"\nversion = "1"\ncommand = "python3 bot.py"\n'
                                     'build = "python3 build.py"\n', encoding="utf-8")
    (folder / "bot.py").write_text("", encoding="utf-8")
    (folder / "build.py").write_text(
        'import sys\nprint("[/bold] " + "B" * 5000)\nprint("\\x1b]0;title\\x07[debug] done")\n'
        "sys.exit(3)\n", encoding="utf-8")
    for path in [folder, *folder.iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    result = runner.invoke(app, ["submit", str(folder)])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    out = result.output
    no_raw_controls(out)
    long_line = next(line for line in out.splitlines() if "BBBB" in line)
    assert long_line == "  [/bold] " + "B" * (MAX_SHOWN - len("[/bold] ")) + \
        f"… [{5008 - MAX_SHOWN} more characters cut]"
    assert "  \\x1b]0;title\\x07[debug] done" in out
    assert "rejected: the build (python3 build.py) failed" in out


def test_an_ansi_answer_never_reaches_the_terminal(open_folder, arena_data, tmp_path):
    bot = noisy_bot(open_folder)
    result = runner.invoke(app, ["play", f"python3 {bot} '\\e[2Jplay:AS'", "random", "-v",
                                 "--record", str(tmp_path / "m.jsonl")])
    assert result.exit_code == 0 and result.exception is None, result.output
    no_raw_controls(result.output)
    assert "<- \\x1b[2Jplay:AS" in result.output


def test_submit_failure_report_shows_answers_and_stderr_as_data(open_folder, arena_data):
    bot = noisy_bot(open_folder)
    result = runner.invoke(app, ["submit", f"{sys.executable} {bot} '[/bold] oops'", "--name",
                                 "junk", "--matches", "1"])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    out = result.output
    no_raw_controls(out)
    assert "qualification of junk: FAILED" in out
    assert "    < [/bold] oops" in out and "offending line: '[/bold] oops'" in out
    assert "rejected: qualification failed in match 1: malformed: " in out
    assert "[/bold] oops" in out.split("rejected:")[1]
    # The end of its stderr: markup kept whole, control characters visible, the long line cut.
    assert "    [/bold] stderr oops" in out and "    [debug] thinking" in out
    assert "    \\x1b[2Jcleared\\x07" in out
    assert "    " + "E" * 200 in out and "E" * 201 not in out  # qualify.py keeps 200 of a line


def test_errors_keep_their_line_breaks_and_show_other_controls(capsys):
    from arena.console import error

    error("workers cannot run this tournament:\n  a [/bold] problem\x1b[2J\n  another")
    assert capsys.readouterr().err == ("error: workers cannot run this tournament:\n"
                                       "  a [/bold] problem\\x1b[2J\n  another\n")
