"""The referee with three and four bot processes (PROTOCOL.md §9, RULES.md §10, issue 15).

Every bot here is a real subprocess: ``fixtures/nseat_bot.py``, written from the wire format alone
(no SDK), plays random legal actions or misbehaves in one chosen way at its first request.
"""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import pytest

from arena.match.bot_process import Limits
from arena.game import EventKind, profile
from arena.game.cards import cards_of_mask
from arena.game.dealing import deal_layout
from arena.match.records import read_record, replay_record
from arena.match.referee import MatchConfig, run_match
from arena.types import BotSpec, Fault, MatchEnding
from protocol import from_engine
from protocol.codec import encode

NSEAT_BOT = Path(__file__).parent / "fixtures" / "nseat_bot.py"
FAST = Limits(decision_ms=400, startup_ms=5000)
SESSION = uuid.uuid4().hex  # marks this session's bots for the leftover check


def nbot(mode: str = "play", name: str | None = None) -> BotSpec:
    return BotSpec(name or f"n-{mode}", (sys.executable, str(NSEAT_BOT), mode, SESSION))


def play(bots, tmp_path: Path, profile_name: str, seed: int = 5, limits: Limits = FAST):
    config = MatchConfig(rules=profile(profile_name), seed=seed, match_id="t", limits=limits)
    record = tmp_path / "match.jsonl"
    return run_match(bots, config, record_path=record, log_dir=tmp_path / "logs"), record


def _seat_lines(record: Path, seat: int, direction: str = "out") -> list[str]:
    return [m["line"] for m in read_record(record).messages
            if m["seat"] == seat and m["dir"] == direction]


# -- whole matches ------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("profile_name,players", [("three_player", 3), ("four_player", 4)])
def test_an_nseat_match_is_played_to_the_target_and_replays_exactly(tmp_path, profile_name,
                                                                   players):
    bots = [nbot(name=f"p{seat}") for seat in range(players)]
    result, record = play(bots, tmp_path, profile_name)
    rules = profile(profile_name)
    assert result.reason is MatchEnding.TARGET, result.detail
    assert len(result.seats) == players and len(result.game_points) == rules.sides
    assert result.winner is not None and result.game_points[result.winner] >= rules.match_target
    assert all(s.decision_ms for s in result.seats), "every seat was asked to act"

    rec = read_record(record)
    state = replay_record(rec)
    assert state.outcome is not None and state.game_points == result.game_points
    assert state.outcome.winner == result.winner
    assert [r.settlement for r in state.results] == [r.settlement for r in result.deals]
    assert [r.order for r in state.results] == [r.order for r in result.deals]
    assert rec.result is not None and rec.result["winner"] == result.winner

    # Every seat's transcript is exactly what from_engine makes of the replayed match for it.
    for seat in range(players):
        lines = _seat_lines(record, seat)
        assert lines[0] == f"sixtysix 1 players {players} profile {profile_name}"
        assert lines[1].startswith(f"match t profile {profile_name} target 7 players {players} "
                                   f"seat {seat} names p0 p1 ")
        deal_lines = [l for l in lines if l.startswith("deal ")]
        settles = [l for l in lines if l.startswith("settle ")]
        assert len(deal_lines) == len(settles) == len(state.results)
        for result_, line in zip(state.results, settles):
            assert line == encode(from_engine.settle(result_, seat, rules))
        assert lines[-1] == encode(from_engine.match_end(state.outcome, seat, players=players))


@pytest.mark.slow
def test_four_player_tricks_have_four_cards_and_sides_score_together(tmp_path):
    result, record = play([nbot(name=f"p{s}") for s in range(4)], tmp_path, "four_player", seed=9)
    assert result.reason is MatchEnding.TARGET
    first = result.deals[0]
    assert first.final is not None
    tricks = [e for e in first.final.events() if e.kind is EventKind.TRICK]
    assert tricks and all(len(e.cards) == 4 for e in tricks)
    assert sum(first.settlement.tricks) == 12 and len(first.settlement.totals) == 2
    assert any(l.startswith("trick ") and len(l.split()) == 6 for l in _seat_lines(record, 3))


# -- what each seat sees ------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("profile_name,players", [("three_player", 3), ("four_player", 4)])
def test_a_seat_sees_its_own_hand_and_draws_and_no_other_hidden_card(tmp_path, profile_name,
                                                                     players):
    result, record = play([nbot(name=f"p{s}") for s in range(players)], tmp_path, profile_name)
    rules = profile(profile_name)
    for seat in range(players):
        lines = _seat_lines(record, seat)
        deal_lines = [l for l in lines if l.startswith("deal ")]
        for deal_result, line in zip(result.deals, deal_lines):
            layout = deal_layout(rules, deal_result.order)
            hand = cards_of_mask(layout.hand_of(seat, deal_result.dealer, players))
            words = line.split()
            shown = words[words.index("hand") + 1:words.index("score")]
            assert shown == [str(c) for c in hand]
        # Another seat's draw shows a card only when it is the face-up card (PROTOCOL.md §9).
        up_cards = {l.split()[5] for l in deal_lines}
        for line in lines:
            words = line.split()
            if words[0] == "draw" and words[1] != str(seat) and len(words) == 3:
                assert words[2] in up_cards, line
        # The dead pile is revealed with the settlement only (three players).
        if players == 3:
            assert all(" dead " in l for l in lines if l.startswith("settle "))


# -- faults: every one a forfeit; four players: the offender's side loses --------------------------

FAULTS = [
    ("hang", Fault.TIMEOUT),
    ("illegal", Fault.ILLEGAL_ACTION),
    ("junk", Fault.MALFORMED),
    ("unsolicited", Fault.UNSOLICITED),
    ("long_line", Fault.LINE_TOO_LONG),
    ("crash", Fault.EXIT),
    ("bad_ready", Fault.MALFORMED),
]


@pytest.mark.parametrize("mode,fault", FAULTS, ids=[f[0] for f in FAULTS])
def test_a_fault_in_a_four_player_match_loses_it_for_the_offenders_side(tmp_path, mode, fault):
    bots = [nbot(), nbot(mode), nbot(), nbot()]
    result, record = play(bots, tmp_path, "four_player")
    assert result.reason is MatchEnding.FORFEIT
    assert (result.offender, result.fault, result.winner) == (1, fault, 0)
    for seat in (0, 2, 3):
        end = _seat_lines(record, seat)[-1]
        assert end.startswith("match_end winner 0 reason forfeit score ")
        assert end.endswith(f" fault {fault} by 1")
    assert read_record(record).result["offender"] == 1


@pytest.mark.parametrize("mode,fault", [("crash", Fault.EXIT), ("illegal", Fault.ILLEGAL_ACTION)])
def test_a_fault_with_three_players_names_the_offender_and_nobody_wins(tmp_path, mode, fault):
    bots = [nbot(), nbot(), nbot(mode)]
    result, record = play(bots, tmp_path, "three_player")
    assert result.reason is MatchEnding.FORFEIT
    assert (result.offender, result.fault, result.winner) == (2, fault, None)
    assert len(result.game_points) == 3
    end = _seat_lines(record, 0)[-1]
    assert end.startswith("match_end winner none reason forfeit score ") and \
        end.endswith(f" fault {fault} by 2")
    assert read_record(record).result["winner"] is None


def test_a_wrong_claim_with_three_players_pays_each_opponent(tmp_path):
    result, record = play([nbot(), nbot("wrong_claim"), nbot()], tmp_path, "three_player")
    wrong = [r for r in result.deals if r.settlement.reason == "wrong_claim"]
    assert wrong, "the wrong claimer claimed below 66 at least once"
    s = wrong[0].settlement
    assert s.claimant == 1 and s.winner is None and s.awards == (2, 0, 2)
    assert result.seats[1].wrong_claims >= 1
    assert replay_record(read_record(record)).game_points == result.game_points


# -- declining a variant ------------------------------------------------------------------------

@pytest.mark.parametrize("mode,text", [("decline", " (no partners here)"), ("decline_bare", "")])
def test_a_bot_that_declines_ends_the_match_unplayed_without_a_forfeit(tmp_path, mode, text):
    bots = [nbot(name="a"), nbot(mode, name="b"), nbot(name="c")]
    result, record = play(bots, tmp_path, "three_player")
    assert result.reason is MatchEnding.DECLINED
    assert result.winner is None and result.offender is None and result.fault is None
    assert result.declined == (1,) and result.deals == ()
    assert result.detail == f"b does not support three_player{text}"
    # Every process was ended: the report of each says how it ended.
    assert all(s.sandbox is not None and s.sandbox.status is not None for s in result.seats)
    rec = read_record(record)
    assert rec.declines == [{"type": "decline", "seat": 1, "text": text.strip(" ()")}]
    assert rec.result is not None and rec.result["reason"] == "declined"
    assert not any(m["line"].startswith("match ") for m in rec.messages)


def test_decline_is_malformed_in_answer_to_the_two_player_greeting(tmp_path):
    # The fixture answers "ready" to "sixtysix 1"; a raw one-liner declines it anyway.
    decliner = BotSpec("d", (sys.executable, "-c",
                             "import sys; sys.stdin.readline(); print('decline', flush=True); "
                             "sys.stdin.read()", SESSION))
    result, _ = play([decliner, nbot()], tmp_path, "sixty_six")
    assert result.reason is MatchEnding.FORFEIT
    assert (result.offender, result.fault) == (0, Fault.MALFORMED)


def test_the_bot_count_must_match_the_profile(tmp_path):
    with pytest.raises(ValueError, match="three_player is for 3 players, not 2 bots"):
        play([nbot(), nbot()], tmp_path, "three_player")


# -- the mental count is per side ---------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("profile_name,players", [("three_player", 3), ("four_player", 4)])
def test_a_side_that_counts_its_points_claims_correctly(tmp_path, profile_name, players):
    """The counter adds its own and its partner's tricks and marriages, as PROTOCOL.md §9 says a bot
    must: its claims are correct (the engine checks them), and it misses no claim window."""
    bots = [nbot("counter", name=f"c{s}") for s in range(players)]
    result, record = play(bots, tmp_path, profile_name, seed=11)
    assert result.reason is MatchEnding.TARGET
    claims = [r for r in result.deals if r.settlement.claimant is not None]
    assert claims, "some deal ended with a claim"
    rules = profile(profile_name)
    for r in claims:
        s = r.settlement
        assert s.reason == "claim" and s.winner == rules.side_of[s.claimant]
        assert s.totals[s.winner] >= rules.claim_target
    assert sum(st.correct_claims for st in result.seats) == len(claims)
    assert all(st.wrong_claims == 0 and st.missed_claims == 0 for st in result.seats)
    assert replay_record(read_record(record)).game_points == result.game_points
