"""The bundled C bot, ``c-counter``: the C starter kit's sample bot (kits/c, written from PROTOCOL.md
alone), built by bots/c/Makefile with the machine's toolchain and played through the real referee.
Skips, saying why, where make or a C compiler is missing."""

from __future__ import annotations

import select
import shutil
import subprocess

import pytest

from arena.entrants.bot_specs import resolve_bot
from arena.game import CLAIM, Action, MatchState, profile
from arena.game.observation import visible_event
from bots.nseat import SeatKnowledge, greedy_choice
from protocol import from_engine
from protocol.codec import encode
from arena.match.referee import MatchConfig, run_match

TOOLCHAIN = shutil.which("make") and (shutil.which("cc") or shutil.which("gcc"))
pytestmark = pytest.mark.skipif(not TOOLCHAIN, reason="the C bot needs make and a C compiler "
                                "(cc or gcc) on PATH to be built; neither was found")


@pytest.mark.parametrize("profile_name", ["sixty_six", "schnapsen"])
@pytest.mark.parametrize("opponent", ["random", "greedy"])
@pytest.mark.parametrize("seat", [0, 1])
def test_c_bot_plays_full_matches_without_fault(profile_name, opponent, seat):
    bots = [resolve_bot(opponent), resolve_bot(opponent)]
    bots[seat] = resolve_bot("c-counter")
    for seed in range(3):
        result = run_match(bots, MatchConfig(rules=profile(profile_name), seed=seed,
                                             match_id=f"c{seed}"))
        assert result.reason == "target", (result.fault, result.detail)
        stats = result.seats[seat]
        # It counts for itself: never a claim below 66, never a window at 66 let pass.
        assert stats.wrong_claims == 0 and stats.missed_claims == 0


def test_minimal_c_bot_builds_and_plays():
    result = run_match([resolve_bot("first-legal-c"), resolve_bot("random")],
                       MatchConfig(rules=profile("sixty_six"), seed=1, match_id="m"))
    assert result.reason == "target"


# -- three and four players (PROTOCOL.md §9) ---------------------------------------------------------
#
# The C bot runs as a real process and reads real wire lines (protocol.from_engine + codec, what the
# referee sends); the other seats are the greedy bot's N-seat strategy in-process. A small harness of
# our own, written while the N-seat referee was being built on another branch: it checks every
# answer against the request's list and every claim against the engine's totals.


class _WireSeat:
    """One bot process at one seat: send lines, read one answer line with a time limit."""

    def __init__(self, argv: list[str]):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.sent: list[str] = []

    def send(self, msg) -> None:
        line = encode(msg)
        self.sent.append(line)
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def answer(self, timeout: float = 5.0) -> str:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        assert ready, f"no answer within {timeout}s after {self.sent[-1]!r}"
        line = self.proc.stdout.readline()
        assert line.endswith("\n"), f"the bot closed its output after {self.sent[-1]!r}"
        return line.rstrip("\n")

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=5)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


def _play_wire_match(rules, c_seats, seed):
    """A whole match with the C bot at ``c_seats``; returns (outcome, wrong claims, missed claims)
    of the C bot's seats."""
    from arena.entrants.bot_specs import resolve_bot as _resolve

    argv = list(_resolve("c-counter").argv)
    procs = {s: _WireSeat(argv) for s in c_seats}
    knowledge = {s: SeatKnowledge(rules, s) for s in range(rules.players) if s not in c_seats}
    names = ["c-counter" if s in c_seats else "greedy" for s in range(rules.players)]
    wrong = missed = 0
    try:
        for s, p in procs.items():
            p.send(from_engine.hello(rules))
            assert p.answer() == "ready c-counter"
            p.send(from_engine.match_start(f"m{seed}", rules, s, names, 1000))
            for line in from_engine.rules_lines(rules):
                p.send(line)
        match = MatchState.new(rules, seed)
        while not match.is_over:
            deal_no, deal = match.deal_no, match.deal
            for s, p in procs.items():
                p.send(from_engine.deal_start(match, s))
            for s, k in knowledge.items():
                k.start_deal(deal.dealer, deal.hand(s), deal.up_card, deal.stock_size)
            seen = 0
            while True:
                events = deal.events()
                for event in events[seen:]:
                    for s, p in procs.items():
                        msg = from_engine.event_message(event, s, rules.players)
                        if msg is not None:
                            p.send(msg)
                    for s, k in knowledge.items():
                        k.feed(visible_event(event, s))
                seen = len(events)
                if deal.is_over or match.deal_no > 60:
                    break
                seat, legal = deal.to_act, deal.legal_actions()
                if seat in procs:
                    procs[seat].send(from_engine.request(deal))
                    action = Action.parse(procs[seat].answer())
                    assert action in legal, f"seat {seat} answered {action}, not in {legal}"
                    if CLAIM in legal:
                        reached = deal.total(rules.side_of[seat]) >= rules.claim_target
                        wrong += action == CLAIM and not reached
                        missed += action != CLAIM and reached
                else:
                    action = greedy_choice(knowledge[seat], legal)
                match = match.apply(action)
                deal = match.results[-1].final if match.is_over or match.deal_no != deal_no \
                    else match.deal
            if match.deal_no > 60 and not match.is_over:
                match = match.stop_at_deal_limit()
                break
            for s, p in procs.items():
                p.send(from_engine.settle(match.results[-1], s, rules))
        for s, p in procs.items():
            p.send(from_engine.match_end(match.outcome, s, players=rules.players))
        for p in procs.values():
            assert p.close() == 0
    finally:
        for p in procs.values():
            if p.proc.poll() is None:
                p.proc.kill()
                p.proc.wait()
    return match.outcome, wrong, missed


@pytest.mark.parametrize("profile_name,c_seats", [
    ("three_player", (0,)), ("three_player", (1, 2)),
    ("four_player", (0, 2)), ("four_player", (1,)), ("four_player", (0, 1, 2, 3)),
])
def test_c_bot_plays_nseat_matches_and_claims_at_the_side_target(profile_name, c_seats):
    rules = profile(profile_name)
    for seed in range(3):
        outcome, wrong, missed = _play_wire_match(rules, c_seats, seed)
        assert str(outcome.reason) == "target"
        # Its side's count is exact: never a claim below 66/101, never a window at it let pass.
        assert (wrong, missed) == (0, 0)


def test_c_bot_answers_the_nseat_greeting_ready():
    from arena.entrants.bot_specs import resolve_bot as _resolve

    p = _WireSeat(list(_resolve("c-counter").argv))
    p.send(from_engine.hello(profile("four_player")))
    assert p.sent[-1] == "sixtysix 1 players 4 profile four_player"
    assert p.answer() == "ready c-counter"
    assert p.close() == 0


@pytest.mark.slow
@pytest.mark.parametrize("profile_name,lineup", [
    ("three_player", ("c-counter", "greedy", "random")),
    ("three_player", ("strong", "c-counter", "greedy")),
    ("four_player", ("c-counter", "greedy", "c-counter", "greedy")),
    ("four_player", ("random", "c-counter", "greedy", "c-counter")),
])
def test_c_bot_plays_nseat_matches_through_the_referee(profile_name, lineup, tmp_path):
    """End to end: every seat a real process under the N-seat referee, the record replays."""
    from arena.match.bot_process import Limits
    from arena.match.records import read_record, replay_record

    bots = [resolve_bot(name) for name in lineup]
    record = tmp_path / "m.jsonl"
    # The strong bot thinks for 30% of the limit: 400 ms keeps the match short and leaves every bot
    # a wide margin on a busy machine.
    result = run_match(bots, MatchConfig(rules=profile(profile_name), seed=5, match_id="cn",
                                         limits=Limits(decision_ms=400)), record)
    assert str(result.reason) == "target", (result.fault, result.detail, result.line)
    for seat, name in enumerate(lineup):
        if name == "c-counter":
            stats = result.seats[seat]
            assert (stats.wrong_claims, stats.missed_claims) == (0, 0)
    assert replay_record(read_record(record)).game_points == result.game_points
