"""from_engine with three and four players (PROTOCOL.md §9): seat numbers, per-side lists, the dead
pile at settle, and forfeits that name a seat."""

from __future__ import annotations

import random

import pytest

from arena.game import Card, Event, EventKind, MatchOutcome, MatchState, profile
from arena.game.match import MatchEnd as MatchEndReason
from protocol import Draw, Fault, Hello, MatchEnd, MatchStart, Played, Trick, encode
from protocol import from_engine

C = Card.parse


def _random_match(name: str, seed: int, deals: int = 1) -> MatchState:
    rng = random.Random(seed)
    state = MatchState.new(profile(name), seed=seed, first_dealer=seed % profile(name).players)
    while not state.is_over and len(state.results) < deals:
        state = state.apply(rng.choice(state.legal_actions()))
    return state


def test_hello_names_the_variant_only_with_more_players() -> None:
    assert encode(from_engine.hello(profile("sixty_six"))) == "sixtysix 1"
    assert from_engine.hello(profile("three_player")) == Hello(1, 3, "three_player")
    assert encode(from_engine.hello(profile("four_player"))) == \
        "sixtysix 1 players 4 profile four_player"


def test_match_start_names_every_seat() -> None:
    two = from_engine.match_start("m", profile("sixty_six"), 1, ["a", "b"], 1000)
    assert two == MatchStart("m", "sixty_six", 7, 1, "a", 1000)
    three = from_engine.match_start("m", profile("three_player"), 2, ["a", "b", "c"], 1000)
    assert encode(three) == ("match m profile three_player target 7 players 3 seat 2 names a b c "
                             "decision_ms 1000")
    with pytest.raises(ValueError, match="4 players need 4 names"):
        from_engine.match_start("m", profile("four_player"), 0, ["a", "b"], 1000)


@pytest.mark.parametrize("name, players, sides", [("three_player", 3, 3), ("four_player", 4, 2)])
def test_deal_start_per_seat(name: str, players: int, sides: int) -> None:
    state = MatchState.new(profile(name), seed=5, first_dealer=1)
    for seat in range(players):
        deal = from_engine.deal_start(state, seat)
        assert deal.dealer == 1 and deal.hand == tuple(state.deal.hand(seat))
        assert deal.score == (0,) * sides and len(deal.hand) == 7
        assert deal.stock == (9 if players == 3 else 20)


def test_draws_are_masked_for_every_other_seat() -> None:
    hidden = Event(EventKind.DRAW, 2, (C("AS"),), 0)
    face_up = Event(EventKind.DRAW, 2, (C("9H"),), 1)
    assert from_engine.event_message(hidden, 2, 3) == Draw(2, C("AS"))
    for seat in (0, 1):
        assert from_engine.event_message(hidden, seat, 3) == Draw(2)
        assert from_engine.event_message(face_up, seat, 3) == Draw(2, C("9H"))
    assert from_engine.event_message(Event(EventKind.PLAY, 3, (C("AS"),)), 0, 4) == Played(3, C("AS"))


@pytest.mark.parametrize("name", ["three_player", "four_player"])
def test_tricks_carry_every_card_in_play_order(name: str) -> None:
    state = _random_match(name, 3)
    players = state.rules.players
    final = state.results[0].final
    assert final is not None
    tricks = [e for e in final.events() if e.kind is EventKind.TRICK]
    assert tricks
    for event in tricks:
        msg = from_engine.event_message(event, 0, players)
        assert isinstance(msg, Trick) and msg.cards == event.cards and msg.who == event.seat
        assert len(msg.cards) == players


@pytest.mark.parametrize("seed", range(12))
def test_three_player_settle_shows_the_dead_pile_and_per_side_figures(seed: int) -> None:
    state = _random_match("three_player", seed)
    rules = state.rules
    result = state.results[0]
    assert result.final is not None
    settles = {from_engine.settle(result, seat, rules) for seat in range(3)}
    assert len(settles) == 1  # the same line for every seat
    msg = settles.pop()
    s = result.settlement
    assert msg.dead == tuple(result.final.dead_pile()) and len(msg.dead) == 2
    assert msg.totals == s.totals and msg.tricks == s.tricks
    assert msg.score == result.game_points_after and msg.pot == result.pot_after
    assert isinstance(msg.awarded, tuple)
    # The first deal: the scores are exactly what it awarded.
    assert msg.awarded == result.game_points_after
    assert msg.winner == s.winner
    # A slimmed result (no final state) shows the same dead pile, dealt again from its order.
    import dataclasses
    slim = dataclasses.replace(result, final=None)
    assert from_engine.settle(slim, 0, rules) == msg
    assert encode(msg).endswith(" dead " + " ".join(map(str, msg.dead)))


def test_a_three_player_wrong_claim_pays_every_opponent() -> None:
    # Find a deal that a wrong claim ends: claim at the first window.
    for seed in range(200):
        rng = random.Random(seed)
        state = MatchState.new(profile("three_player"), seed=seed)
        while not state.results:
            legal = state.legal_actions()
            claim = [a for a in legal if str(a) == "claim"]
            state = state.apply(claim[0] if claim else rng.choice(legal))
        if str(state.results[0].settlement.reason) == "wrong_claim":
            break
    else:
        pytest.fail("no wrong claim found")
    msg = from_engine.settle(state.results[0], 0, state.rules)
    assert msg.winner is None and msg.points == 2
    assert sorted(msg.awarded) == [0, 2, 2]  # type: ignore[arg-type]
    assert encode(msg).startswith("settle winner none reason wrong_claim points 2 awarded ")


@pytest.mark.parametrize("seed", range(6))
def test_four_player_settle_is_per_partnership(seed: int) -> None:
    state = _random_match("four_player", seed)
    result = state.results[0]
    msg = from_engine.settle(result, 3, state.rules)
    assert len(msg.totals) == 2 and msg.dead == ()
    assert msg.awarded == tuple(result.awarded if side == result.settlement.winner else 0
                                for side in (0, 1))


def test_match_end_with_more_players() -> None:
    three = MatchOutcome(winner=None, reason=MatchEndReason.FORFEIT, game_points=(3, 1, 2),
                         offender=1)
    msg = from_engine.match_end(three, 0, Fault.TIMEOUT, players=3)
    assert msg == MatchEnd(None, "forfeit", (3, 1, 2), Fault.TIMEOUT, 1)
    assert encode(msg) == "match_end winner none reason forfeit score 3 1 2 fault timeout by 1"
    four = MatchOutcome(winner=0, reason=MatchEndReason.FORFEIT, game_points=(3, 1), offender=3)
    assert encode(from_engine.match_end(four, 2, Fault.EXIT, players=4)) == \
        "match_end winner 0 reason forfeit score 3 1 fault exit by 3"
    target = MatchOutcome(winner=2, reason=MatchEndReason.TARGET, game_points=(3, 1, 7))
    assert encode(from_engine.match_end(target, 2, players=3)) == \
        "match_end winner 2 reason target score 3 1 7"
