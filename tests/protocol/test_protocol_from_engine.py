"""from_engine: the engine's facts as the lines each seat receives."""

from __future__ import annotations

from arena.game import Card, Event, EventKind, MatchOutcome, MatchState, profile
from protocol import Draw, Fault, MatchEnd, Who, encode
from protocol import from_engine

C = Card.parse


def test_draws_are_masked_for_the_opponent() -> None:
    hidden = Event(EventKind.DRAW, 1, (C("AS"),), 0)
    face_up = Event(EventKind.DRAW, 1, (C("9H"),), 1)
    assert from_engine.event_message(hidden, 1) == Draw(Who.ME, C("AS"))
    assert from_engine.event_message(hidden, 0) == Draw(Who.OPP)
    assert from_engine.event_message(face_up, 0) == Draw(Who.OPP, C("9H"))
    assert from_engine.event_message(Event(EventKind.SETTLE, 0), 0) is None


def test_deal_start_and_request_for_each_seat() -> None:
    state = MatchState.new(profile("sixty_six"), seed=11, first_dealer=0)
    for seat in (0, 1):
        deal = from_engine.deal_start(state, seat)
        assert deal.dealer is (Who.ME if seat == 0 else Who.OPP)
        assert deal.hand == tuple(state.deal.hand(seat)) and deal.stock == 12
    request = from_engine.request(state.deal)
    assert request.decision == "lead" and request.actions == state.deal.legal_actions()


def test_settle_pairs_are_mine_then_theirs() -> None:
    state = MatchState.new(profile("sixty_six"), seed=3)
    while not state.results:
        state = state.apply(state.legal_actions()[-1])
    result = state.results[0]
    s0, s1 = from_engine.settle(result, 0, state.rules), from_engine.settle(result, 1, state.rules)
    assert s0.totals == result.settlement.totals and s1.totals == s0.totals[::-1]
    assert s0.score == result.game_points_after and s1.score == s0.score[::-1]
    assert (s0.winner, s1.winner) in ((Who.ME, Who.OPP), (Who.OPP, Who.ME), (None, None))


def test_match_end_lines() -> None:
    target = MatchOutcome(winner=1, reason="target", game_points=(3, 7))  # type: ignore[arg-type]
    line = encode(from_engine.match_end(target, 0))
    assert line == "match_end winner opp reason target score 3 7"
    forfeit = MatchOutcome(winner=0, reason="forfeit", game_points=(1, 2),  # type: ignore[arg-type]
                           offender=1)
    assert from_engine.match_end(forfeit, 1, Fault.TIMEOUT) == MatchEnd(
        Who.OPP, "forfeit", (2, 1), Fault.TIMEOUT, Who.ME)
    tie = MatchOutcome(winner=None, reason="deal_limit",  # type: ignore[arg-type]
                       game_points=(4, 4))
    line = encode(from_engine.match_end(tie, 1))
    assert line == "match_end winner none reason deal_limit score 4 4"


def test_rules_lines_split_to_fit_and_a_view_adds_them_up(monkeypatch) -> None:
    # Today every profile fits one line; a smaller limit shows the split that new flags would need.
    from arena.game import profile as named_profile
    from protocol import from_engine as fe
    from protocol.codec import encode as encode_line
    from protocol.messages import MatchStart
    from protocol.view import BotView

    rules = named_profile("schnapsen").with_overrides({"match_target": 11})
    assert len(fe.rules_lines(rules)) == 1
    monkeypatch.setattr(fe, "MAX_LINE_BYTES", 200)
    lines = fe.rules_lines(rules)
    assert len(lines) > 3
    assert all(len(encode_line(line)) <= 200 for line in lines)
    assert [flag for line in lines for flag in line.flags] == \
        list(fe.RulesLine.from_rules(rules).flags)
    view = BotView()
    view.update(MatchStart("m1", "schnapsen", 11, 0, "other", 1000))
    for line in lines:
        view.update(line)
    assert view.rules == rules and view.rules_warnings == ()
