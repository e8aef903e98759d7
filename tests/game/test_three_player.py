"""Three-player Sixty-Six (RULES.md §10.2 and §10.4), one named case per rule.

Seat 2 deals in every scripted deal, so seat 0 (the dealer's left) receives the first cards and
leads trick 1; play goes 0 -> 1 -> 2 clockwise. Card-point arithmetic is written beside each script.
"""

from __future__ import annotations

import dataclasses

import pytest

from arena.game import CLAIM, PASS, Action, Card, DealState, EventKind, MatchState, observe
from arena.game.dealing import deal_layout
from arena.game.scoring import SettleReason
from helpers import THREE, cards, deal_n, legal, order_n, play, play_match

DEALER = 2

# Trump hearts (QH up; the exchange card is 7H). Seat 0 leads clubs and wins tricks 1-3 while the
# others discard: AC+8S+8D = 11, TC+9S+9D = 10, KC+JS+JD = 8, so seat 0 has 29 after trick 3.
# Draws (winner first, clockwise): 1: s0 AH s1 TH s2 KH; 2: s0 9H s1 8H s2 7H; 3: s0 JH s1 7D s2 QH.
BASE = (["AC TC KC QC JC 9C 8C", "AS TS KS QS JS 9S 8S", "AD TD KD QD JD 9D 8D"], DEALER, "QH",
        "AH TH KH 9H 8H 7H JH 7D", "7C 7S")
PHASE1 = "AC 8S 8D pass TC 9S 9D pass KC JS JD pass"

# Trump clubs (9C up; exchange card 7C). Seat 0 holds KC QC (the 40 marriage); the others hold
# nothing worth taking: the dead pile is QH JH.
MARRY = (["KC QC AS TS AH TH JD", "9S 8S 7S 9D 8D 7D QS", "9H 8H 7H KS JS QD KD"], DEALER, "9C",
         "AC TC JC 8C 7C AD TD KH", "QH JH")


def base() -> DealState:
    return deal_n(THREE, *BASE)


# -- the deal (§10.2, §10.4) -------------------------------------------------------------------------


def test_three_player_deal_has_7_each_a_dead_pile_of_2_and_a_9_card_stock() -> None:
    state = base()
    assert [len(state.hand(s)) for s in range(3)] == [7, 7, 7]
    assert state.stock_size == 9 and THREE.stock_size == 9 and THREE.dead_size == 2
    assert sorted(state.dead_pile()) == sorted(cards("7C 7S"))
    assert state.leader == 0 and state.to_act == 0  # the dealer's left leads trick 1


def test_three_player_canonical_mapping() -> None:
    """§10.4: p0-p2 dealer+1, p3-p5 dealer+2, p6-p8 dealer, p9-p12 dealer+1, p13-p16 dealer+2,
    p17-p20 dealer, p21-p22 dead pile, p23 up-card, p24-p31 the stock top first."""
    order = THREE.pack.cards  # canonical: AC TC KC QC JC 9C 8C 7C AS ...
    layout = deal_layout(THREE, order)
    idx = [c.index for c in order]

    def mask(positions: list[int]) -> int:
        return sum(1 << idx[p] for p in positions)

    assert layout.hands == (mask([0, 1, 2, 9, 10, 11, 12]), mask([3, 4, 5, 13, 14, 15, 16]),
                            mask([6, 7, 8, 17, 18, 19, 20]))
    assert layout.dead == mask([21, 22]) and layout.up_card == idx[23]
    assert layout.hidden_stock == tuple(idx[24:])
    for dealer in range(3):
        state = DealState.new(THREE, dealer, order)
        assert state.hands[(dealer + 1) % 3] == layout.hands[0]
        assert state.hands[dealer] == layout.hands[2]


def test_three_player_dealer_passes_clockwise() -> None:
    match = MatchState.new(THREE, seed=5, first_dealer=1)
    dealers = []
    while len(dealers) < 4:
        dealers.append(match.dealer)
        assert match.deal.leader == (match.dealer + 1) % 3
        for _ in range(3):
            match = match.apply([a for a in match.legal_actions() if a.kind == "play"][0])
        match = match.apply(CLAIM)  # a wrong claim: every deal ends after one trick
    assert dealers == [1, 2, 0, 1]


# -- dead pile, drawing, up-card (§10.2) -------------------------------------------------------------


def _play_out(state: DealState) -> DealState:
    """Play every trick with the first legal card, never claiming."""
    while not state.is_over:
        plays = [a for a in state.legal_actions() if a.kind == "play"]
        state = state.apply(plays[0] if plays else PASS)
    return state


def test_three_player_dead_pile_never_counted() -> None:
    """The 2 dead cards count for nobody: a played-out deal shares 120 - their points + 10."""
    s = _play_out(base()).settlement
    assert s is not None and sum(s.totals) == 120 + 10  # the dead 7C 7S are worth 0
    # The same deal with AH and TS (21 points) dead; 7S and 7C take their places.
    worth_21 = deal_n(THREE, ["AC TC KC QC JC 9C 8C", "AS 7S KS QS JS 9S 8S", "AD TD KD QD JD 9D 8D"],
                      DEALER, "QH", "7C TH KH 9H 8H 7H JH 7D", "AH TS")
    over = _play_out(worth_21)
    assert over.settlement is not None and sum(over.settlement.totals) == 120 - 21 + 10
    won = [c for side in range(3) for c in over.won_cards(side)]
    assert len(won) == 30 and Card.parse("AH") not in won and Card.parse("TS") not in won


def test_three_player_dead_pile_hidden_until_the_deal_is_over() -> None:
    state = base()
    assert all(observe(state, seat).dead_pile == () for seat in range(3))
    over = play(state, "AC 8S 8D claim")  # 11 < 66: a wrong claim ends the deal
    assert sorted(observe(over, 1).dead_pile) == sorted(cards("7C 7S"))


def test_three_player_every_player_draws_winner_first_clockwise() -> None:
    state = play(base(), "AC 8S 8D pass")
    draws = [(e.seat, str(e.cards[0])) for e in state.events() if e.kind is EventKind.DRAW]
    assert draws == [(0, "AH"), (1, "TH"), (2, "KH")]
    assert state.stock_size == 6


def test_three_player_last_drawer_of_phase_1_takes_the_up_card() -> None:
    state = play(base(), PHASE1)
    last = [e for e in state.events() if e.kind is EventKind.DRAW][-3:]
    assert [(e.seat, str(e.cards[0]), e.value) for e in last] == [(0, "JH", 0), (1, "7D", 0), (2, "QH", 1)]
    assert state.stock_size == 0 and state.stock_status == "exhausted" and state.phase == 2


def test_three_player_up_card_goes_to_the_last_of_a_round_won_by_seat_1() -> None:
    # Trick 3 is won by seat 1 trumping KC with 8H: draws go 1, 2, 0 and seat 0 takes the QH.
    state = play(base(), "AC 8S 8D pass TC 9S 9D pass KC 8H JD pass")
    last = [e for e in state.events() if e.kind is EventKind.DRAW][-3:]
    assert [(e.seat, str(e.cards[0]), e.value) for e in last] == [(1, "JH", 0), (2, "7D", 0), (0, "QH", 1)]
    assert Card.parse("QH") in state.hand(0) and state.leader == 1


# -- tricks and phase 2 (§10.2 trick winner, §6 generalised) -----------------------------------------


PH1 = "AC 8S 8D pass "   # after trick 1 seat 1 holds TH and seat 2 KH (trumps)


@pytest.mark.parametrize("script,winner,points", [
    ("AC 8S 8D", 0, 11),               # nobody follows clubs or trumps: the led card wins
    ("AC 8S AD", 0, 22),               # a higher plain card of another suit never wins
    (PH1 + "TC TH 9D", 1, 20),         # a trump beats the led suit
    (PH1 + "TC 9S KH", 2, 14),         # the last player's trump wins
    (PH1 + "TC TH KH", 1, 24),         # two trumps: the higher (TH outranks KH) wins
])
def test_three_player_trick_winner(script: str, winner: int, points: int) -> None:
    state = play(base(), script)
    trick = [e for e in state.events() if e.kind is EventKind.TRICK][-1]
    assert trick.seat == winner and len(trick.cards) == 3
    assert state.card_points[winner] == points + (11 if winner == 0 and script.startswith(PH1) else 0)


def test_three_player_phase2_must_trump_when_void_if_that_wins() -> None:
    # After phase 1 s0 holds QC JC 9C 8C AH 9H JH; s1 AS TS KS QS TH 8H 7D; s2 AD TD KD QD KH 7H QH.
    state = play(base(), PHASE1 + " QC")
    assert legal(state) == {"play:TH", "play:8H"}   # void in clubs: any trump wins
    state = play(state, "8H")
    assert legal(state) == {"play:KH", "play:QH"}   # only a trump above 8H wins; 7H would not


def test_three_player_phase2_no_under_trumping_obligation() -> None:
    state = play(base(), PHASE1 + " QC TH")
    # Seat 2 holds KH 7H QH, all below TH: he cannot win, so any card is allowed (§10.2).
    assert legal(state) == {f"play:{c}" for c in "AD TD KD QD KH 7H QH".split()}


def test_three_player_phase2_beat_the_winning_card_not_only_the_led_card() -> None:
    state = play(base(), PHASE1 + " JH")     # s0 leads a trump
    assert legal(state) == {"play:TH"}       # s1 must beat JH: TH does, 8H does not
    state = play(state, "TH")
    assert legal(state) == {"play:KH", "play:7H", "play:QH"}  # nothing beats TH: any heart


def test_three_player_phase1_is_free() -> None:
    state = play(base(), "AC")
    assert legal(state) == {f"play:{c}" for c in "AS TS KS QS JS 9S 8S".split()}


# -- exchange, closing, marriages (§10.2) ------------------------------------------------------------


# As MARRY, but seat 1 holds 8C (a trump) instead of QS and draws the exchange card 7C first.
EXCH = (["KC QC AS TS AH TH JD", "9S 8S 7S 9D 8D 7D 8C", "9H 8H 7H KS JS QD KD"], DEALER, "9C",
        "AC 7C JC QS TC AD TD KH", "QH JH")


def test_three_player_exchange_by_the_leader_only() -> None:
    state = play(deal_n(THREE, *EXCH), "TS 9S 9H pass AS")  # draws: s0 AC, s1 7C, s2 JC
    assert Card.parse("7C") in state.hand(1)
    assert "exchange" not in legal(state)                 # seat 1 follows: leader_only (§10.2)
    state = play(state, "8C 8H pass")                     # seat 1 trumps and wins trick 2
    assert state.to_act == 1 and state.stock_size == 3 and "exchange" in legal(state)
    state = state.apply(Action.parse("exchange"))
    assert Card.parse("9C") in state.hand(1) and state.up_card == Card.parse("7C")
    assert state.exchanged_by == 1


def test_three_player_has_no_closing() -> None:
    state = deal_n(THREE, *MARRY)
    assert "close" not in legal(state)
    with pytest.raises(ValueError, match="this profile has no closing"):
        state.apply(Action.parse("close"))
    state = play(state, "AS 9S 9H")
    assert legal(state) == {"claim", "pass"}


def test_three_player_marriage_credited_once_the_declarer_has_a_trick() -> None:
    pending = play(deal_n(THREE, *MARRY), "marry:C QC")
    assert pending.pending == (40, 0, 0) and pending.melds == (0, 0, 0)
    state = play(pending, "9S 9H")           # QC is the only trump: seat 0 wins, the 40 counts
    assert state.melds == (40, 0, 0) and state.pending == (0, 0, 0) and state.total(0) == 43


def test_three_player_marriage_only_in_phase_1() -> None:
    state = play(deal_n(THREE, *MARRY), "AS 9S 9H pass TS 8S 8H pass AH 7S 7H pass")
    assert state.phase == 2 and {"KC", "QC"} <= {str(c) for c in state.hand(0)}
    assert "marry:C" not in legal(state)


def test_three_player_only_the_leader_marries() -> None:
    state = play(deal_n(THREE, ["AS TS AH TH JD 9C 8C", "KC QC 9S 8S 7S 9D 8D", "9H 8H 7H KS JS QD KD"],
                        DEALER, "7D", "AC TC JC 7C QS AD TD KH", "QH JH"), "AS")
    assert "marry:C" not in legal(state)


# -- claims (§10.2: 66, for the claimant alone) ------------------------------------------------------

# MARRY: trick 1 s0 marry:C KC (4 + 40); trick 2 AS (11); trick 3 TS + 7S + 7H (10) = 65,
# or TS + 7S + JS (12) = 67. Draws: 1: s0 AC s1 TC s2 JC; 2: s0 8C s1 7C s2 AD; 3: s0 TD s1 KH s2 9C.
TO_65 = "marry:C KC 9S 9H pass AS 8S 8H pass TS 7S 7H"
TO_67 = "marry:C KC 9S 9H pass AS 8S 8H pass TS 7S JS"


def test_three_player_correct_claim_against_two_schwarz_opponents_scores_3() -> None:
    state = play(deal_n(THREE, *MARRY), TO_67 + " claim")
    s = state.settlement
    assert s is not None and state.total(0) == 67
    assert (s.reason, s.winner, s.game_points, s.claimant) == (SettleReason.CLAIM, 0, 3, 0)
    assert s.awards == (3, 0, 0) and s.tricks == (3, 0, 0)


def test_three_player_claim_with_65_is_wrong_and_pays_each_opponent_2() -> None:
    state = play(deal_n(THREE, *MARRY), TO_65 + " claim")
    s = state.settlement
    assert s is not None and s.totals == (65, 0, 0)
    assert (s.reason, s.winner, s.game_points, s.claimant) == (SettleReason.WRONG_CLAIM, None, 0, 0)
    assert s.awards == (0, 2, 2) and not s.is_draw and s.scorers == (1, 2)


def _figures(state: DealState, points: tuple[int, int, int], tricks: tuple[int, int, int]) -> DealState:
    """The same real state with other card points and tricks per seat (for the tier table)."""
    n = state._derive()
    n.card_points, n.tricks = points, tricks
    n.__class__ = DealState
    return n  # type: ignore[return-value]


@pytest.mark.parametrize("points,tricks,expected", [
    ((70, 0, 0), (3, 0, 0), 3),      # neither opponent has a trick
    ((70, 0, 20), (3, 0, 1), 2),     # one without a trick, the other below 33: both below 33
    ((70, 32, 18), (3, 1, 1), 2),
    ((70, 33, 0), (3, 1, 0), 1),     # one opponent at 33: no schneider, though the other is schwarz
    ((66, 40, 14), (3, 2, 1), 1),
])
def test_three_player_claim_tiers(points: tuple[int, int, int], tricks: tuple[int, int, int],
                                  expected: int) -> None:
    state = play(deal_n(THREE, *MARRY), "AS 9S 9H")   # s0's claim window is open
    state = _figures(state, points, tricks).apply(CLAIM)
    assert state.settlement is not None
    assert (state.settlement.winner, state.settlement.game_points) == (0, expected)


def test_three_player_claim_only_in_the_winners_window() -> None:
    state = play(deal_n(THREE, *MARRY), "AS 9S 9H pass AH")
    assert "claim" not in legal(state)  # seat 1 follows: no window
    with pytest.raises(ValueError, match="no claim window"):
        state.apply(CLAIM)


# -- played out (§10.2: highest total, a tie for highest is a draw) ---------------------------------


def test_three_player_played_out_highest_total_wins_with_last_trick_10() -> None:
    state = _play_out(base())
    s = state.settlement
    assert s is not None and s.reason is SettleReason.HIGHER_TOTAL
    assert sum(s.totals) == 130 and s.last_trick_winner is not None
    top = max(s.totals)
    assert s.totals.count(top) == 1 and s.winner == s.totals.index(top)
    assert s.awards[s.winner] == s.game_points >= 1


def test_three_player_tie_for_highest_is_a_draw() -> None:
    """Equal highest totals after the last trick (its 10 included) are a draw (§10.2)."""
    state = play(deal_n(THREE, *MARRY), "AS 9S 9H")
    n = _figures(state, (40, 50, 30), (5, 3, 2))._derive()
    n.hands = (0, 0, 0)   # as if this had been the last trick of a deal played out
    n.stock_state = 2
    n.__class__ = DealState
    over = n.apply(PASS)  # type: ignore[attr-defined]
    s = over.settlement
    assert s is not None and s.totals == (50, 50, 30)  # seat 0: 40 + the last trick's 10
    assert s.reason is SettleReason.DRAW and s.is_draw and s.awards == (0, 0, 0)
    n = _figures(state, (41, 50, 30), (5, 3, 2))._derive()
    n.hands, n.stock_state, n.__class__ = (0, 0, 0), 2, DealState
    won = n.apply(PASS)  # type: ignore[attr-defined]
    assert won.settlement is not None and won.settlement.winner == 0
    assert won.settlement.game_points == 1 and won.settlement.totals == (51, 50, 30)


# -- the match (§10.2, §10.4) ------------------------------------------------------------------------


def _match(**changes: object) -> MatchState:
    """A match of MARRY deals (seat 2 deals first, so seat 0 leads and can claim wrongly)."""
    order = order_n(THREE, *MARRY)
    return dataclasses.replace(MatchState.new(THREE, orders=[order] * 3, first_dealer=DEALER), **changes)


WRONG = "AS 9S 9H claim"   # seat 0 claims with 11: each opponent scores 2


def test_three_player_match_ends_when_one_player_alone_reaches_7() -> None:
    match = play_match(_match(game_points=(0, 6, 3)), WRONG)
    assert match.game_points == (0, 8, 5)
    assert match.outcome is not None and match.outcome.winner == 1 and match.outcome.reason == "target"


def test_three_player_two_reach_7_at_once_with_equal_scores_play_on() -> None:
    match = play_match(_match(game_points=(0, 5, 5)), WRONG)
    assert match.game_points == (0, 7, 7)
    assert match.outcome is None and match.deal_no == 2   # an exact tie at 7 plays on
    assert match.dealer == 0                              # the deal passes clockwise


def test_three_player_two_reach_7_at_once_the_higher_wins() -> None:
    match = play_match(_match(game_points=(0, 6, 5)), WRONG)
    assert match.game_points == (0, 8, 7)
    assert match.outcome is not None and match.outcome.winner == 1


def test_three_player_carry_pot_waits_for_a_single_scorer() -> None:
    match = play_match(_match(pot=2), WRONG)             # two scorers: the pot stays
    result = match.results[-1]
    assert match.pot == 2 and result.awarded == 0 and result.pot_after == 2
    assert match.game_points == (0, 2, 2)


def test_three_player_correct_claim_takes_the_pot() -> None:
    match = play_match(_match(pot=2), TO_67 + " claim")
    assert match.results[-1].awarded == 3 + 2 and match.pot == 0 and match.game_points == (5, 0, 0)


def test_three_player_observation_shows_every_hand_size_and_the_trick_so_far() -> None:
    state = play(base(), "AC 8S")
    obs = observe(state, 2)
    assert obs.players == 3 and obs.side == 2 and obs.partner is None
    assert obs.hand_sizes == (6, 6, 7) and [str(c) for c in obs.table] == ["AC", "8S"]
    assert obs.my_turn and obs.tricks_won == (0, 0, 0)
    assert not hasattr(obs, "totals")


def test_three_player_forfeit_of_the_match_has_no_single_winner() -> None:
    out = _match(game_points=(1, 2, 3)).forfeit(1, "timeout")
    assert out.outcome is not None and out.outcome.winner is None and out.outcome.offender == 1
    assert out.outcome.reason == "forfeit" and out.outcome.game_points == (1, 2, 3)


def test_three_player_forfeit_deal_pays_3_to_each_other_player_and_the_pot_waits() -> None:
    rules = THREE.with_overrides({"illegal_move_policy": "forfeit_deal"})
    match = dataclasses.replace(MatchState.new(rules, orders=[order_n(THREE, *MARRY)] * 2,
                                               first_dealer=DEALER), pot=1)
    out = match.forfeit(0, "revoke", illegal_action=True)
    s = out.results[-1].settlement
    assert (s.reason, s.winner, s.game_points, s.awards) == (SettleReason.FORFEIT, None, 0, (0, 3, 3))
    assert out.game_points == (0, 3, 3) and out.pot == 1 and not out.is_over and out.deal_no == 2
