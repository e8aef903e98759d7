"""``arena check`` (issue 33 point 2): the bundled bots pass it, and each flaw of a bot is reported
as itself, with the line sent, the line received and the PROTOCOL.md section it breaks.

The bots are real processes in the sandbox: the bundled ones, and ``fixtures/flawed_bot.py``,
which plays as greedy does but for one flaw. The scripted situations themselves are checked
with the engine alone: each crafted deal deals what it says, and a claim window said to be forced
arises in every line of play (searched exhaustively).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

from arena.entrants.check import CheckError, check_bot
from arena.entrants.submit import submit
from arena.game import CLAIM, DealState, PROFILES, profile
from arena.match.bot_process import Limits
from arena.match.conformance import MESSAGE_KINDS, Severity, UNKNOWN_LINES
from arena.match.situations import arrange, scripted_action, situations
from bot_procs import TAG
from signal_at import signal_when

FLAWED = Path(__file__).parent / "fixtures" / "flawed_bot.py"
ARENA = [sys.executable, "-m", "arena"]


def flawed(mode: str) -> str:
    return f"python3 {FLAWED} {mode} {TAG}"


def has_c_compiler() -> bool:
    return shutil.which("make") is not None and (shutil.which("cc") or shutil.which("gcc"))


# -- the bundled bots ---------------------------------------------------------------------------------

@pytest.mark.parametrize("bot", ["greedy", "strong --budget-ms 20", "c-counter"])
def test_the_bundled_bots_that_count_pass(bot):
    if bot == "c-counter" and not has_c_compiler():
        pytest.skip("the C bot needs make and a C compiler")
    report = check_bot(bot)
    assert report.passed, "\n".join(report.lines())
    assert all(s.status == "passed" for s in report.situations), "\n".join(report.lines())


def test_random_passes_with_its_claims_ignored_and_is_told_of_them_otherwise():
    """The random bot claims at random on purpose: it keeps the protocol (no fault anywhere), and
    its wrong and missed claims are what the check reports of it, as failures by default."""
    lenient = check_bot("random", ignore_claims=True)
    assert lenient.passed, "\n".join(lenient.lines())
    strict = check_bot("random")
    kinds = {f.kind for f in strict.failures}
    assert kinds and kinds <= {"wrong_claim", "missed_claim"}, "\n".join(strict.lines())
    assert {f.kind for f in lenient.warnings} <= {"wrong_claim", "missed_claim", "slow"}


def test_the_battery_sends_every_kind_of_request_event_and_ending():
    report = check_bot("greedy")
    covered = set(report.covered())
    # What depends on how the bot plays a deal to its end (a draw, a close failed) may not come.
    optional = {"draw (face-up card)", "settle claim", "settle close_failed", "settle last_trick",
                "settle higher_total", "settle draw", "settle claim_against_close"}
    assert set(MESSAGE_KINDS) - optional <= covered, set(MESSAGE_KINDS) - optional - covered


# -- each flaw, reported as itself ----------------------------------------------------------------

Check = Callable[[str | None, str | None], bool]
CASES: list[tuple[str, tuple[str, ...], str, str, str, Check]] = [
    # mode, profiles, situation, kind, section, (sent, received)
    ("illegal_card", ("sixty_six",), "feed", "illegal_action", "§4.1",
     lambda s, r: s is not None and s.startswith("lead? ") and r is not None
     and r.startswith("play:") and r not in s.split()),
    ("never_claims", ("sixty_six",), "close_last_trick", "missed_claim", "§4.2",
     lambda s, r: s == "after_trick? claim pass" and r == "pass"),
    ("never_claims", ("four_player",), "four_player", "missed_claim", "§9.3",
     lambda s, r: s is not None and "claim" in s.split() and r not in (None, "claim")),
    ("wrong_claim", ("sixty_six",), "close_last_trick", "wrong_claim", "§4.2",
     lambda s, r: s == "after_trick? claim pass" and r == "claim"),
    ("unsolicited", ("sixty_six",), "feed", "unsolicited", "§1",
     lambda s, r: s is not None and s.startswith("lead? ") and r is not None
     and r.startswith("debug: answered")),
    ("slow", ("sixty_six",), "feed", "timeout", "§6",
     lambda s, r: s is not None and s.startswith("lead? ") and r is None),
    ("crash_at_start", ("sixty_six",), "feed", "exit", "§3",
     lambda s, r: s == "sixtysix 1" and r is None),
    ("garbage", ("sixty_six",), "feed", "malformed", "§4.1",
     lambda s, r: s is not None and s.startswith("lead? ") and r == "let me think"),
    ("strict_reader", ("sixty_six",), "unknown_lines", "exit", "§1",
     lambda s, r: s in UNKNOWN_LINES and r is None),
]


@pytest.mark.parametrize("mode, profiles, situation, kind, section, lines", CASES,
                         ids=[f"{c[0]}-{c[1][0]}" for c in CASES])
def test_a_flawed_bot_fails_with_the_section_it_breaks(mode, profiles, situation, kind, section,
                                                        lines):
    limits = Limits(decision_ms=400) if mode == "slow" else Limits()
    report = check_bot(flawed(mode), limits, profiles=profiles)
    text = "\n".join(report.lines())
    assert not report.passed, text
    assert {f.kind for f in report.failures} == {kind}, text  # the flaw, and nothing else
    found = next(s for s in report.situations if s.name == situation)
    assert found.status == "failed", text
    finding = next(f for f in found.findings if f.severity == Severity.FAILURE)
    assert finding.section == f"PROTOCOL.md {section}", text
    assert lines(finding.sent, finding.received), (finding.sent, finding.received)


def test_a_bot_that_cannot_start_is_tried_once_and_its_stderr_shown():
    report = check_bot(flawed("crash_at_start"), profiles=("sixty_six",))
    statuses = [s.status for s in report.situations]
    assert statuses[0] == "failed" and set(statuses[1:]) == {"not_run"}
    assert any("crashed at start, on purpose" in line for line in report.situations[0].stderr_tail)


def test_the_flawless_twin_passes():
    """The fixture without a flaw passes: each flaw above is the whole difference."""
    report = check_bot(flawed("fine"))
    assert report.passed, "\n".join(report.lines())


def test_what_a_bot_may_refuse_is_skipped_and_said(tmp_path):
    """PROTOCOL.md §3: a bot may refuse overridden rules by exiting; §9.1: a bot that does not
    play a variant declines it. Neither fails a command's check; a variant its manifest declares
    is another matter."""
    refusing = check_bot(flawed("no_overrides"), profiles=("sixty_six",))
    assert refusing.passed, "\n".join(refusing.lines())
    skipped = {s.name: s.note for s in refusing.situations if s.status == "skipped"}
    assert list(skipped) == ["between_tricks"] and "PROTOCOL.md §3" in skipped["between_tricks"]

    two = check_bot(flawed("two_players"), profiles=("sixty_six", "three_player"))
    assert two.passed, "\n".join(two.lines())
    assert {s.name for s in two.situations if s.status == "skipped"} == \
        {s.name for s in situations(("three_player",))}
    folder = tmp_path / "two"
    folder.mkdir()
    (folder / "bot.toml").write_text(f'name = "two"\ncommand = "python3 {FLAWED} two_players"\n'
                                     'profiles = ["sixty_six", "three_player"]\n')
    declared = check_bot(str(folder))
    assert {f.kind for f in declared.failures} == {"declined"}
    assert all(f.section == "PROTOCOL.md §9.1" for f in declared.failures)


def test_no_such_bot_is_a_check_error():
    with pytest.raises(CheckError, match="unknown bot"):
        check_bot("no-such-bot-anywhere")


# -- the command line -------------------------------------------------------------------------------

def arena(*args: str, data: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ARENA_DATA": str(data), "COLUMNS": "1000"}
    return subprocess.run([*ARENA, *args], capture_output=True, text=True, env=env, timeout=300)


def test_the_json_report_parses_and_says_what_the_text_says(tmp_path):
    as_json = arena("check", flawed("garbage"), "--profile", "sixty_six", "--format", "json",
                    data=tmp_path)
    as_text = arena("check", flawed("garbage"), "--profile", "sixty_six", data=tmp_path)
    assert as_json.returncode == as_text.returncode == 1, as_json.stderr + as_text.stderr
    report = json.loads(as_json.stdout)
    assert report["format"] == "sixtysix-check" and report["passed"] is False
    assert [s["name"] for s in report["situations"]] == \
        [s.name for s in situations(("sixty_six",))]
    failures = [(s["name"], f) for s in report["situations"] for f in s["findings"]
                if f["severity"] == "failure"]
    assert report["failures"] == len(failures) > 0
    for name, f in failures:
        assert f["kind"] == "malformed" and f["section"] == "PROTOCOL.md §4.1"
        assert f["received"] == "let me think" and f["sent"].split()[0].endswith("?")
        # The same facts, in the text.
        assert f"FAIL {name} " in as_text.stdout
        assert f"sent:     > {f['sent']}" in as_text.stdout
        assert "received: < let me think" in as_text.stdout
    assert f"{report['failures']} failures" in as_text.stdout.splitlines()[0]


def test_a_passing_bot_exits_0_and_no_such_bot_exits_2_with_one_line(tmp_path):
    ok = arena("check", "greedy", "--profile", "schnapsen", data=tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "PASSED" in ok.stdout.splitlines()[0]
    missing = arena("check", "no-such-bot-anywhere", data=tmp_path)
    assert missing.returncode == 2
    assert missing.stdout == "" and len(missing.stderr.strip().splitlines()) == 1, missing.stderr
    assert "Traceback" not in missing.stderr


def test_a_check_stopped_by_sigterm_leaves_no_temporary_folder(tmp_path):
    """SIGTERM (`kill`, a supervisor) unwinds as Ctrl-C does: the bot ended, the check's folders
    (its records and the bot's stderr) removed, one line said; not the default action's death
    with them left in the temp dir."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    clock = Path(__file__).parent / "fixtures" / "clock_bot.py"
    status, out, err = signal_when(
        [*ARENA, "check", f"{sys.executable} {clock} slow_each 300 {TAG}", "--decision-ms", "5000"],
        {**os.environ, "ARENA_DATA": str(tmp_path / "data"), "TMPDIR": str(scratch),
         "COLUMNS": "300"},
        lambda: bool(list(scratch.glob("sixtysix-check-*/*"))))  # a situation is under way
    assert status == 128 + signal.SIGTERM, out + err
    assert "stopped by SIGTERM: the check of" in err and "did not finish" in err
    assert "Traceback" not in out + err
    assert not list(scratch.glob("sixtysix-check-*"))


# -- qualification ---------------------------------------------------------------------------------

def test_submit_rejects_a_bot_that_only_the_battery_catches(tmp_path):
    """Its matches against the random bot are clean (they never send a line of an unknown first
    word); the check's situation unknown_lines fails it, and qualification with it."""
    outcome = submit(flawed("strict_reader"), name="strict", data=tmp_path / "data",
                     matches=2)
    assert outcome.status == "rejected", outcome.reason
    failure = outcome.report.failure
    assert failure is not None and failure.rule.startswith("PROTOCOL.md §1")
    assert "unknown_lines" in failure.detail
    assert all("forfeit" not in m["outcome"] for m in outcome.report.matches)
    good = submit(flawed("fine"), name="fine", data=tmp_path / "data", matches=2)
    assert good.status == "registered", good.reason
    assert good.report.conformance["passed"] == len(situations(PROFILES_TWO)) > 0
    # A registered bot is checked by its name, in the profiles it declared (two-player ones).
    registered = check_bot("fine", data=tmp_path / "data")
    assert registered.passed and registered.bot == "fine"
    assert [s.name for s in registered.situations] == [s.name for s in situations(PROFILES_TWO)]


PROFILES_TWO = tuple(name for name, rules in PROFILES.items() if rules.players == 2)


# -- the situations, with the engine alone ---------------------------------------------------------

@pytest.mark.parametrize("name", sorted(PROFILES))
def test_arrange_deals_the_hands_it_is_given(name):
    rules = profile(name)
    rng = random.Random(name)
    for dealer in range(rules.players):
        pack = list(rules.pack.cards)
        rng.shuffle(pack)
        h = rules.hand_size
        hands = {seat: pack[seat * h:(seat + 1) * h] for seat in range(rules.players)}
        rest = pack[rules.players * h:]
        up, stock = rest[0], rest[1:4]
        order = arrange(rules, dealer, {s: " ".join(map(str, c)) for s, c in hands.items()},
                        str(up), " ".join(map(str, stock)))
        deal = DealState.new(rules, dealer, order)
        for seat, cards in hands.items():
            assert sorted(deal.hand(seat)) == sorted(cards)
        assert deal.up_card == up
        assert deal.stock_cards()[:3] == stock


@pytest.mark.parametrize("situation", [s for s in situations() if s.forced_claim],
                         ids=lambda s: s.name)
def test_a_forced_claim_window_arises_in_every_line_of_play(situation):
    """Every sequence of answers of the checked seat (claims left out: a claim ends the deal, and
    is judged where it is made) meets a request listing ``claim`` with its side's count at the
    target: a bot that never claims cannot pass."""
    rules = situation.rules
    side, target = rules.side_of[situation.seat], rules.claim_target
    paths = 0

    def every_line(deal: DealState) -> None:
        nonlocal paths
        while not deal.is_over and deal.to_act != situation.seat:
            seat = deal.to_act
            deal = deal.apply(scripted_action(
                situation.others[seat], deal.decision.text, deal.legal_actions(),
                deal.trump_suit, deal.trick_cards(), any(m[0] == seat for m in deal.marriages),
                deal.tricks[rules.side_of[seat]] > 0))
        assert not deal.is_over, "a line of play without the claim window"
        legal = deal.legal_actions()
        if CLAIM in legal and deal.total(side) >= target:
            paths += 1
            return
        for action in legal:
            if action is not CLAIM:
                every_line(deal.apply(action))

    every_line(DealState.new(rules, situation.dealer, situation.first_deal))
    assert paths > 100
