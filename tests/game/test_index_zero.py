"""Rule cases where the value in play is index 0: the clubs suit, seat 0, the ace of clubs (card 0).

Mutation testing (issue 15) found that the engine's tests rarely put a zero where the code compares
with ``>= 0`` or ``> 0``: the up-card AC, a marriage in clubs, seat 0 dealing. Each test here is
named after the gap it closes; each also names the mutation it kills.
"""

from __future__ import annotations

import random

import pytest

from arena.game import CLAIM, Action, Card, DealState, Decision, EventKind, MatchState, observe, profile
from arena.game.scoring import SettleReason
from helpers import A, B, SIXTY_SIX, VU, deal, legal, order_for, play

AC = Card.parse("AC")
SIX_TRICKS = "AC 9S pass TC JS pass KC QS pass QC KS pass JC TS pass 9C AS pass"


# -- the up-card is AC (card index 0) ---------------------------------------------------------------

# Trump clubs, AC up. A wins trick 1 with AS and holds the exchange card 9C.
AC_UP = ("AS 9C TS KS QS JS", "9H TH KH QH JH 9D", "AC")


def test_exchange_allowed_when_the_up_card_is_the_ace_of_clubs() -> None:
    """§5.3 with the up-card at index 0 (kills ``n.up >= 0`` -> ``n.up > 0``)."""
    state = play(deal(*AC_UP), "AS 9H pass")
    assert "exchange" in legal(state)
    state = state.apply(Action.parse("exchange"))
    assert AC in state.hand(A) and state.up_card == Card.parse("9C")
    assert state.events()[-1].kind is EventKind.EXCHANGE


def test_ace_of_clubs_up_card_is_seen_counted_and_drawn_last() -> None:
    state = deal(*AC_UP)
    assert state.up_card == AC and state.stock_size == 12
    assert observe(state, B).up_card == AC
    assert state.stock_cards()[-1] == AC
    # A wins every phase-1 trick with spades; B discards hearts; B draws the up-card last (§5.2).
    state = play(state, "AS 9H pass TS TH pass KS KH pass QS QH pass JS JH pass")
    assert state.stock_size == 2 and state.up_card == AC
    state = play(state, "9C 9D pass")  # A leads the 9C; B plays 9D, A wins (trump)
    assert state.stock_size == 0 and state.up_card is None and state.stock_status == "exhausted"
    last = state.events()[-1]
    assert last.kind is EventKind.DRAW and last.seat == B and last.cards == (AC,) and last.value == 1
    assert AC in state.hand(B)


def test_up_card_ace_of_clubs_cannot_be_exchanged_before_a_trick() -> None:
    state = deal("9C AS TS KS QS JS", "9H TH KH QH JH 9D", "AC")
    assert "exchange" not in legal(state)


# -- seat 0 deals: seat 1 leads trick 1 -------------------------------------------------------------


def _dealer0(nondealer: str, dealer: str, up: str) -> DealState:
    state = DealState.new(SIXTY_SIX, 0, order_for(SIXTY_SIX, nondealer, dealer, up))
    assert state.leader == 1 and state.to_act == 1 and state.dealer == 0
    return state


def test_no_claim_on_the_first_lead_with_dealer_0() -> None:
    """§7.2: no window before trick 1 whoever deals (kills an initial window of 0 or the leader)."""
    state = _dealer0("AC TC KC QC JC 9C", "AS TS KS QS JS 9S", "9H")
    assert "claim" not in legal(state)
    with pytest.raises(ValueError, match="no claim window"):
        state.apply(CLAIM)


def test_claim_after_marriage_on_first_lead_with_dealer_0_is_wrong_and_pays_3() -> None:
    """Case 29 with the seats swapped: the dealer (seat 0) has no trick, so he scores 3."""
    state = _dealer0("KS QS AC TC JC 9C", "AS TS JS 9S KC QC", "9H")
    state = play(state, "marry:S claim")
    s = state.settlement
    assert s is not None
    assert (s.reason, s.winner, s.game_points, s.claimant) == (SettleReason.WRONG_CLAIM, 0, 3, 1)
    assert s.totals == (0, 0) and s.tricks == (0, 0) and s.last_trick_winner is None


def test_dealer_0_wins_trick_and_claim_window_is_his() -> None:
    state = _dealer0("9C TC KC QC JC 9D", "AC TS KS QS JS 9S", "9H")
    state = play(state, "9C AC")  # seat 0 (the dealer) wins trick 1
    assert state.to_act == 0 and "claim" in legal(state)
    state = state.apply(Action.parse("pass"))
    assert state.to_act == 0 and "claim" in legal(state)  # still his window at the lead


# -- a marriage in clubs (suit 0) -------------------------------------------------------------------

CLUBS_KQ = ("KC QC AS TS JS 9S", "AH TH KH QH JH 9D", "9C")   # trump clubs: the marriage is worth 40
CLUBS_KQ_PLAIN = ("KC QC AS TS JS 9S", "AH TH KH QH JH 9D", "9H")


def test_clubs_marriage_on_first_lead_offers_claim_and_its_two_cards_only() -> None:
    state = play(deal(*CLUBS_KQ), "marry:C")
    assert legal(state) == {"claim", "play:KC", "play:QC"}
    event = state.events()[-1]
    assert event.kind is EventKind.MARRIAGE and event.value == 40 and str(event.suit) == "C"
    assert state.marriages == ((A, 0, 40, 0),)


def test_no_claim_after_clubs_marriage_when_claim_after_meld_is_off() -> None:
    """§11 row 13 (kills ``meld_suit >= 0`` -> ``> 0`` in the claim check)."""
    rules = SIXTY_SIX.with_overrides({"claim_after_meld": False})
    state = play(deal(*CLUBS_KQ_PLAIN, rules=rules), "marry:C")
    assert legal(state) == {"play:KC", "play:QC"}


def test_no_close_and_no_second_marriage_after_a_clubs_marriage() -> None:
    state = play(deal("KC QC KS QS JS 9S", "AH TH KH QH JH 9D", "9H"), "marry:C")
    assert "close" not in legal(state) and "marry:S" not in legal(state)
    with pytest.raises(ValueError, match="one marriage"):
        state.apply(Action.parse("marry:S"))


def test_clubs_marriage_pending_until_a_trick_then_credited() -> None:
    state = play(deal(*CLUBS_KQ_PLAIN), "marry:C QC AH")  # B wins with AH (trump)
    assert state.pending == (20, 0) and state.melds == (0, 0)
    state = play(state, "pass 9D AS")  # B leads 9D; AS is another plain suit: the leader wins
    assert state.tricks == (0, 2)
    state = play(deal(*CLUBS_KQ_PLAIN), "marry:C KC 9D")
    assert state.melds == (20, 0) and state.total(A) == 24


# -- close_before_first_trick = false ---------------------------------------------------------------

SKEL = ("AC TC KC QC JC 9C", "AS TS KS QS JS 9S", "9H")


def test_close_before_first_trick_false_still_allows_closing_after_trick_1() -> None:
    """§11 row 18 only forbids the close before trick 1 (kills ``trick_no > 0`` -> ``> 1``)."""
    rules = SIXTY_SIX.with_overrides({"close_before_first_trick": False})
    state = deal(*SKEL, rules=rules)
    assert "close" not in legal(state)
    after = play(state, "AC 9S")
    assert legal(after) == {"claim", "close", "pass"}   # before the draw (stock 12 >= 4)
    at_lead = play(after, "pass")
    assert "close" in legal(at_lead)
    closed = at_lead.apply(Action.parse("close"))
    assert closed.stock_status == "closed" and closed.closer == A


# -- end_without_claim = higher_total: ties and schwarz ---------------------------------------------

# A wins every trick: spades discarded in phase 1; A draws AH TH KH QH JH AD, B TD KD QD JD 9D and 9H.
ALL_MINE = ("AC TC KC QC JC 9C", "AS TS KS QS JS 9S", "9H", "AH TD TH KD KH QD QH JD JH 9D AD")
ALL_MINE_SCRIPT = SIX_TRICKS + " AH 9H pass AD 9D pass TH TD pass KH KD pass QH QD pass JH JD pass"


@pytest.mark.parametrize("end,reason,winner,points", [
    ("higher_total", SettleReason.HIGHER_TOTAL, A, 3),
    ("draw_carry", SettleReason.DRAW, None, 0),
    ("last_trick_wins_1", SettleReason.LAST_TRICK, A, 1),
])
def test_played_out_schwarz(end: str, reason: SettleReason, winner: int | None, points: int) -> None:
    rules = SIXTY_SIX.with_overrides({"end_without_claim": end})
    state = play(deal(*ALL_MINE, rules=rules), ALL_MINE_SCRIPT)
    s = state.settlement
    assert s is not None
    assert (s.reason, s.winner, s.game_points) == (reason, winner, points)
    assert s.totals == (130, 0) and s.tricks == (12, 0)


def test_played_out_tie_under_higher_total_is_a_draw() -> None:
    from test_edge_cases import PLAYED_OUT_34, SCRIPT_34

    rules = SIXTY_SIX.with_overrides({"end_without_claim": "higher_total"})
    state = play(PLAYED_OUT_34.start({"end_without_claim": "higher_total"}), SCRIPT_34 + " pass")
    s = state.settlement
    assert s is not None and rules.end_without_claim == "higher_total"
    assert (s.reason, s.winner, s.game_points, s.totals) == (SettleReason.DRAW, None, 0, (65, 65))


def test_played_out_higher_total_beats_by_one_tier() -> None:
    from test_edge_cases import PLAYED_OUT_35, SCRIPT_35

    state = play(PLAYED_OUT_35.start({"end_without_claim": "higher_total"}), SCRIPT_35 + " pass")
    s = state.settlement
    assert s is not None
    assert (s.reason, s.winner, s.game_points, s.totals) == (SettleReason.HIGHER_TOTAL, B, 1, (60, 70))


def test_higher_total_seat_0_wins_with_schneider() -> None:
    """Seat 0 the winner (kills ``0 if t0 > t1 else 1`` turned around) and a 2-point schneider."""
    rules = SIXTY_SIX.with_overrides({"end_without_claim": "higher_total", "schneider_below": 66})
    from test_edge_cases import PLAYED_OUT_33, SCRIPT_33

    state = play(PLAYED_OUT_33.start({"end_without_claim": "higher_total", "schneider_below": 66}),
                 SCRIPT_33 + " pass")
    s = state.settlement
    assert s is not None and rules.schneider_below == 66
    assert (s.reason, s.winner, s.game_points, s.totals) == (SettleReason.HIGHER_TOTAL, A, 2, (70, 60))


# -- vu_compat: one deal is the whole match ---------------------------------------------------------


def test_vu_compat_match_ends_after_one_deal_even_for_one_game_point() -> None:
    """§13 "single deal": a 1-point deal ends the match too (kills match_target 1 -> 2)."""
    assert VU.match_target == 1
    one_point = 0
    for seed in range(30):
        rng = random.Random(seed)
        m = MatchState.new(VU, seed=seed)
        while not m.is_over:
            legal_now = m.legal_actions()
            m = m.apply(legal_now[rng.randrange(len(legal_now))])
        assert len(m.results) == 1 and m.outcome is not None
        result = m.results[0]
        assert m.outcome.winner == result.settlement.winner
        assert m.game_points[result.settlement.winner] == result.awarded >= 1
        one_point += result.awarded == 1
    assert one_point > 0


def test_profiles_are_distinct_objects_with_their_names() -> None:
    for name in ("sixty_six", "schnapsen", "vu_compat"):
        assert profile(name).name == name


# -- the last-trick bonus when the last card led is AC (card index 0) -------------------------------

# ALL_MINE, but seat 0 keeps AC for the very last lead: he wins every trick.
AC_LAST = ("TC 9S pass KC JS pass QC QS pass JC KS pass 9C TS pass JH AS pass "
           "AH 9H pass TH TD pass KH KD pass QH QD pass AD JD pass AC")


def test_last_trick_bonus_only_once_the_last_trick_is_complete_when_ac_is_led() -> None:
    """§7.1: the 10 is for winning the last trick; with AC (index 0) on the table it is not won yet
    (kills ``n.led < 0`` -> ``<= 0`` / ``< 1`` in the bonus test)."""
    state = play(deal(*ALL_MINE), AC_LAST)
    assert state.led == 0 and state.hand(A) == [] and state.stock_status == "exhausted"
    assert state.total(A) == state.card_points[0] == 120 - 11   # AC not yet won, no bonus yet
    state = state.apply(Action.play("9D"))
    assert state.total(A) == 120 + 10


def test_match_defaults_seed_0_and_dealer_0() -> None:
    m = MatchState.new(SIXTY_SIX)
    same = MatchState.new(SIXTY_SIX, seed=0, first_dealer=0)
    assert (m.seed, m.first_dealer, m.dealer, m.order) == (0, 0, 0, same.order)
    assert MatchState.new(SIXTY_SIX, first_dealer=1).first_dealer == 1


@pytest.mark.parametrize("rules,bad", [(SIXTY_SIX, 2), (SIXTY_SIX, -1), (profile("three_player"), 3),
                                       (profile("four_player"), 4)])
def test_first_dealer_must_be_a_seat(rules, bad: int) -> None:  # noqa: ANN001
    top = rules.players - 1
    with pytest.raises(ValueError, match=f"^first_dealer must be a seat from 0 to {top}, not {bad}$"):
        MatchState.new(rules, first_dealer=bad)
    with pytest.raises(ValueError, match=f"^dealer must be a seat from 0 to {top}, not {bad}$"):
        DealState.new(rules, bad, rules.pack.cards)


def test_undeclared_66_draw_records_the_claimant() -> None:
    """§11 row 30: a correct claim against an undeclared 66 is a draw; the claim is still recorded."""
    rules = SIXTY_SIX.with_overrides({"undeclared_66_voids_claim": True})
    state = play(deal(*SKEL, rules=rules), "AC 9S")
    n = state._derive()
    n.card_points, n.tricks = (70, 66), (3, 3)
    n.__class__ = DealState
    s = n.apply(CLAIM).settlement  # type: ignore[attr-defined]
    assert s is not None and (s.reason, s.winner, s.claimant, s.game_points) == (SettleReason.DRAW, None, A, 0)


def test_is_legal_and_iter_states() -> None:
    from arena.game.state import iter_states

    state = deal(*SKEL)
    assert state.is_legal(Action.play("AC")) and not state.is_legal(Action.play("AS"))
    assert not state.is_legal(CLAIM)
    script = [Action.play("AC"), Action.play("9S"), Action.parse("pass")]
    states = list(iter_states(state, script))
    assert len(states) == 4 and states[0] is state
    assert states[-1].events() == play(state, "AC 9S pass").events()
    assert [s.trick_no for s in states] == [0, 0, 1, 1]
    with pytest.raises(ValueError):
        list(iter_states(state, [Action.play("AS")]))


def test_event_details_of_exchange_marriage_and_plays() -> None:
    state = play(deal(*AC_UP), "AS 9H pass exchange")
    ex = state.events()[-1]
    assert (ex.kind, ex.seat, ex.cards, ex.value) == (EventKind.EXCHANGE, A, (AC, Card.parse("9C")), 0)
    married = play(deal(*CLUBS_KQ), "marry:C").events()[-1]
    assert married.cards == (Card.parse("KC"), Card.parse("QC")) and married.seat == A
    for event in play(deal(*AC_UP), "AS 9H pass TS TH claim").events():
        if event.kind in (EventKind.PLAY, EventKind.TRICK, EventKind.CLAIM, EventKind.EXCHANGE):
            assert event.value == 0, event


def test_up_card_field_is_minus_1_once_drawn() -> None:
    state = play(deal(*AC_UP), "AS 9H pass TS TH pass KS KH pass QS QH pass JS JH pass 9C 9D pass")
    assert state.up == -1 and state.up_card is None


def test_no_close_exchange_point_after_seat_0_exchanged_and_closed() -> None:
    state = play(deal(*AC_UP), "AS 9H pass exchange close")
    assert state.exchanged_by == A and state.closer == A
    assert state.decision is Decision.LEAD and state.to_act == A   # B is not asked (§5.3: one exchange)


def test_close_exchange_point_offered_with_a_stock_of_exactly_2() -> None:
    state = play(deal("AC TC KC QC JC 9C", "AS TS KS QS JS 9S", "AH"),
                 "AC 9S pass TC JS pass KC QS pass QC KS pass JC TS pass")
    assert state.stock_size == 2 and "close" in legal(state)
    state = state.apply(Action.parse("close"))
    assert state.decision is Decision.CLOSE_EXCHANGE and state.to_act == B


def test_claim_window_survives_a_marriage_without_claim_after_meld() -> None:
    """claim_after_meld = false only removes the meld's own window: a leader who has just won a
    trick keeps his (§7.2)."""
    rules = SIXTY_SIX.with_overrides({"claim_after_meld": False})
    state = play(deal("KC QC AS TS JS 9S", "AH TH KH QH JH 9D", "9H", rules=rules), "AS 9D pass marry:C")
    assert state.to_act == A and legal(state) == {"claim", "play:KC", "play:QC"}


def test_illegal_action_error_names_the_action_and_derived_states_keep_the_dealer() -> None:
    state = deal(*SKEL)
    bad = Action.play("AS")
    with pytest.raises(ValueError) as info:
        state.apply(bad)
    assert info.value.action is bad  # type: ignore[attr-defined]
    assert play(state, "AC 9S pass").dealer == B and play(state, "AC").dealer == B
