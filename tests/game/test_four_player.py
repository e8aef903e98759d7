"""Four-player Sixty-Six (RULES.md §10.3 and §10.4), one named case per rule.

Seat 3 deals in every scripted deal, so seat 0 leads trick 1; play goes 0 -> 1 -> 2 -> 3. Seats 0+2
are side 0, seats 1+3 side 1. Trump is hearts (KH up) unless stated; the exchange card is either 9H.
"""

from __future__ import annotations

import dataclasses

import pytest

from arena.game import CLAIM, PASS, Action, Card, DealState, EventKind, MatchState, observe
from arena.game.dealing import deal_layout
from arena.game.scoring import SettleReason
from helpers import FOUR, cards, deal_n, legal, order_n, play, play_match

DEALER = 3

# Seat 0 wins all five phase-1 tricks leading AC TC QC AS TS while the others follow low or discard:
#   1: AC 9C TC 9C = 21   2: TC 9S KC QC = 17   3: QC JS AD JC = 18   4: AS JD TD 9S = 23
#   5: TS 9D QS KS = 17   -> side 0 has 96 card points after phase 1.
# Draws (seat 0 first every round): s0 9H TH KH QH AH, s1 AS TS KS JS KD, s2 AH QH 9H JH QD,
# s3 TH JH AD TD and the up-card KH.
# Phase-2 hands: s0 KC 9D + 5 hearts; s1 KD KD QD AS TS KS JS (no clubs, no trumps);
# s2 AC JC AH QH 9H JH QD; s3 QS JD TH JH AD TD KH.
HANDS = ["AC TC KC QC AS TS 9D", "9C 9S JS JD QD KD 9D", "AC TC KC JC AD TD QS", "QC JC 9C 9S KS QS JD"]
STOCK = "9H AS AH TH TH TS QH JH KH KS 9H AD QH JS JH TD AH KD QD"
PHASE1 = "AC 9C TC 9C pass TC 9S KC QC pass QC JS AD JC pass AS JD TD 9S pass TS 9D QS KS pass"
# The same, but seat 2 plays out its clubs (AC TC JC KC) in phase 1 and keeps AD TD: void in clubs.
PHASE1_VOID = "AC 9C AC 9C pass TC 9S TC QC pass QC JS JC JC pass AS JD KC 9S pass TS 9D QS KS pass"


def base() -> DealState:
    return deal_n(FOUR, HANDS, DEALER, "KH", STOCK)


# -- the deal (§10.3, §10.4) -------------------------------------------------------------------------


def test_four_player_deal_7_each_and_a_20_card_stock_of_two_packs() -> None:
    state = base()
    assert [len(state.hand(s)) for s in range(4)] == [7] * 4
    assert state.stock_size == 20 and FOUR.stock_size == 20 and FOUR.dead_size == 0
    assert FOUR.pack.size == 48 and sorted(FOUR.pack.cards) == sorted(FOUR.pack.cards[:24] * 2)
    assert state.leader == 0 and FOUR.sides == 2 and FOUR.side_of == (0, 1, 0, 1)
    assert [FOUR.partner(s) for s in range(4)] == [2, 3, 0, 1]


def test_four_player_canonical_mapping() -> None:
    """§10.4: 3 then 4 cards to dealer+1, +2, +3 and the dealer (p0-p27), p28 up, p29-p47 stock."""
    order = FOUR.pack.cards
    layout = deal_layout(FOUR, order)
    idx = [c.index for c in order]

    def counted(positions: list[int]) -> list[Card]:
        return sorted(order[p] for p in positions)

    from arena.game.cards import cards_of_mask
    for k in range(4):
        got = sorted(cards_of_mask(layout.hands[k]))
        assert got == counted([3 * k, 3 * k + 1, 3 * k + 2] + [12 + 4 * k + j for j in range(4)])
    assert layout.up_card == idx[28] and layout.hidden_stock == tuple(idx[29:])


def test_four_player_double_pack_order_must_hold_each_card_twice() -> None:
    order = list(FOUR.pack.cards)
    order[0] = order[1]   # TC three times, AC once
    with pytest.raises(ValueError, match="exactly twice"):
        DealState.new(FOUR, 0, order)


def test_four_player_a_hand_may_hold_both_copies() -> None:
    state = deal_n(FOUR, ["AC AC TC TC KC KC QC", "9C 9S JS JD QD KD 9D", "AD AD TD TD KD QD QS",
                          "QC JC JC 9C 9S KS QS"], DEALER, "KH")
    assert [str(c) for c in state.hand(0)] == ["AC", "AC", "TC", "TC", "KC", "KC", "QC"]
    # One action per card text (and the club marriage KC+QC).
    assert [str(a) for a in state.legal_actions()] == ["marry:C", "play:AC", "play:TC", "play:KC", "play:QC"]
    state = play(state, "AC")
    assert [str(c) for c in state.hand(0)] == ["AC", "TC", "TC", "KC", "KC", "QC"]


# -- tricks: the first of two identical cards wins (§10.3) -------------------------------------------


def test_four_player_first_of_two_identical_cards_wins() -> None:
    state = play(base(), "AC 9C AC 9C")
    trick = [e for e in state.events() if e.kind is EventKind.TRICK][-1]
    assert trick.seat == 0 and [str(c) for c in trick.cards] == ["AC", "9C", "AC", "9C"]
    assert state.card_points == (22, 0) and state.tricks == (1, 0)


def test_four_player_first_identical_card_wins_for_the_other_side_too() -> None:
    # Seat 1 plays the first QD on a led 9D; seat 3 repeats it later: seat 1's stays ahead.
    state = deal_n(FOUR, ["9D AC TC KC QC AS TS", "QD 9C 9S JS JD KD 9D", "AD TD KC JC AC TC QS",
                          "QD QC JC 9C 9S KS QS"], DEALER, "KH")
    state = play(state, "9D QD TD QD")   # TD outranks QD: seat 2 wins for side 0
    assert [e for e in state.events() if e.kind is EventKind.TRICK][-1].seat == 2
    state = deal_n(FOUR, ["9D AC TC KC QC AS TS", "QD 9C 9S JS JD KD 9D", "JD AD KC JC AC TC QS",
                          "QD QC JC 9C 9S KS QS"], DEALER, "KH")
    state = play(state, "9D QD JD QD")
    assert [e for e in state.events() if e.kind is EventKind.TRICK][-1].seat == 1


def test_four_player_phase2_identical_card_does_not_beat() -> None:
    state = play(base(), PHASE1 + " 9D")      # s1 must beat 9D: KD or QD
    assert legal(state) == {"play:KD", "play:QD"}
    state = play(state, "QD")
    assert legal(state) == {"play:QD"}        # seat 2's QD cannot beat seat 1's: follow suit


# -- drawing and the up-card (§10.3) ----------------------------------------------------------------


def test_four_player_draws_winner_first_and_fourth_drawer_takes_the_up_card() -> None:
    state = play(base(), PHASE1)
    draws = [(e.seat, str(e.cards[0]), e.value) for e in state.events() if e.kind is EventKind.DRAW]
    assert len(draws) == 20 and [d[0] for d in draws] == [0, 1, 2, 3] * 5
    assert draws[-1] == (3, "KH", 1) and all(v == 0 for _, _, v in draws[:-1])
    assert state.stock_status == "exhausted" and state.phase == 2 and state.trick_no == 5
    assert state.card_points == (96, 0) and state.tricks == (5, 0)


# -- phase 2 and the partner (§10.4 must_beat_partner) -----------------------------------------------


@pytest.mark.parametrize("must_beat,expected", [(True, {"AC"}), (False, {"AC", "JC"})])
def test_four_player_beating_a_partners_winning_card(must_beat: bool, expected: set[str]) -> None:
    rules = FOUR.with_overrides({"must_beat_partner": must_beat})
    state = play(deal_n(rules, HANDS, DEALER, "KH", STOCK), PHASE1 + " KC")
    assert legal(state) == {f"play:{c}" for c in "KD QD AS TS KS JS".split()}  # s1: void, no trump
    state = play(state, "JS")   # seat 0's KC still wins: seat 2 is his partner
    assert legal(state) == {f"play:{c}" for c in expected}


@pytest.mark.parametrize("must_beat,expected", [
    (True, {"AH", "QH", "9H", "JH"}),                   # void in clubs: trump the partner's KC
    (False, {"AD", "TD", "AH", "QH", "9H", "JH", "QD"}),  # void: any card over a partner's winner
])
def test_four_player_void_behind_a_partners_winning_card(must_beat: bool, expected: set[str]) -> None:
    rules = FOUR.with_overrides({"must_beat_partner": must_beat})
    state = play(deal_n(rules, HANDS, DEALER, "KH", STOCK), PHASE1_VOID + " KC JS")
    assert not any(c.suit == 0 for c in state.hand(2))
    assert legal(state) == {f"play:{c}" for c in expected}


def test_four_player_must_beat_an_opponents_winning_card_either_way() -> None:
    for flag in (True, False):
        rules = FOUR.with_overrides({"must_beat_partner": flag})
        state = play(deal_n(rules, HANDS, DEALER, "KH", STOCK), PHASE1 + " KC JS AC")
        # Seat 3 is void in clubs and seat 2's AC (an opponent's) wins: he must trump.
        assert legal(state) == {"play:TH", "play:JH", "play:KH"}


def test_four_player_trump_led_identical_nine_does_not_beat() -> None:
    state = play(base(), PHASE1 + " 9H JS")   # seat 1 has no hearts: any card
    assert legal(state) == {"play:AH", "play:QH", "play:JH"}   # 9H does not beat 9H


# -- exchange (§10.4) --------------------------------------------------------------------------------


def test_four_player_exchange_by_the_leader_with_either_nine() -> None:
    state = play(base(), "AC 9C TC 9C pass")   # seat 0 drew 9H
    assert "exchange" in legal(state)
    state = state.apply(Action.parse("exchange"))
    assert Card.parse("KH") in state.hand(0) and state.up_card == Card.parse("9H")
    assert "exchange" not in legal(state)       # once per deal


def test_four_player_follower_never_exchanges() -> None:
    # After three tricks seat 2 holds 9H (drawn in round 3), his side has tricks and the stock is
    # open, but he follows: leader_only (§10.4).
    state = play(base(), PHASE1.split(" pass AS")[0] + " pass AS JD")
    assert state.to_act == 2 and Card.parse("9H") in state.hand(2) and state.stock_status == "open"
    assert state.tricks[0] == 3 and "exchange" not in legal(state)
    with pytest.raises(ValueError, match="exchange"):
        state.apply(Action.parse("exchange"))


def test_four_player_no_exchange_when_the_up_card_is_a_trump_nine() -> None:
    # Seat 0 holds one 9H and the other is the up-card: nothing to exchange (§10.4).
    state = deal_n(FOUR, [h.replace("9D", "9H") if i == 0 else h for i, h in enumerate(HANDS)],
                   DEALER, "9H", "9D AS AH TH TH TS QH JH KH KS KH AD QH JS JH TD AH KD QD")
    state = play(state, "AC 9C TC 9C pass")
    assert Card.parse("9H") in state.hand(0) and state.up_card == Card.parse("9H")
    assert "exchange" not in legal(state)


def test_four_player_has_no_closing() -> None:
    state = base()
    assert "close" not in legal(state)
    assert legal(play(state, "AC 9C TC 9C")) == {"claim", "pass"}


# -- marriages (§10.3, §10.4) ------------------------------------------------------------------------

MARRIAGE = ["KS QS AC TC KC QC 9D", "9S JS JD QD KD 9D 9C", "AS AC TC KC JC AD TD",
            "9S QC JC 9C TS QS JD"]


def test_four_player_marriage_needs_a_trick_of_the_side() -> None:
    state = play(deal_n(FOUR, MARRIAGE, DEALER, "KH", "KS"), "marry:S")
    assert state.pending == (20, 0)
    # The partner (seat 2) takes the trick with AS: the side has a trick, the 20 counts.
    state = play(state, "QS 9S AS 9S")
    assert state.melds == (20, 0) and state.pending == (0, 0)
    assert state.total(0) == 3 + 11 + 20 and state.tricks == (1, 0)


def test_four_player_marriage_stays_pending_while_the_other_side_wins() -> None:
    state = play(deal_n(FOUR, MARRIAGE, DEALER, "KH", "KS"), "marry:S QS JS JC TS")  # seat 3's TS wins
    assert state.pending == (20, 0) and state.melds == (0, 0) and state.tricks == (0, 1)
    assert state.total(0) == 0


def test_four_player_each_physical_king_and_queen_in_one_marriage_only() -> None:
    # Seat 0 marries KS QS, leads KS and wins; he then draws the second KS (top of the stock), but
    # his QS was shown already: no new spade marriage.
    state = play(deal_n(FOUR, MARRIAGE, DEALER, "KH", "KS"), "marry:S KS 9S JC 9S pass")
    assert sorted(str(c) for c in state.hand(0) if c.suit == 1) == ["KS", "QS"]
    assert "marry:S" not in legal(state)


def test_four_player_two_kings_and_two_queens_make_two_marriages() -> None:
    hands = ["KS KS QS QS AC TC 9D", "9S JS JD QD KD 9D 9C", "AS AC TC KC JC AD TD",
             "9S QC JC 9C TS KC JD"]
    state = play(deal_n(FOUR, hands, DEALER, "KH"), "marry:S KS 9S JC 9S pass")
    assert "marry:S" in legal(state)       # KS + QS, both not shown yet
    state = play(state, "marry:S QS JS AC TS pass")   # seat 3's TS takes the QS
    assert [m[:3] for m in state.marriages] == [(0, 1, 20), (0, 1, 20)]
    # Both cards left in his hand were shown: KS (second marriage) and QS (first).
    from arena.game.cards import cards_of_mask
    assert sorted(map(str, cards_of_mask(state.married[0]))) == ["KS", "QS"]
    assert sorted(str(c) for c in state.hand(0) if c.suit == 1) == ["KS", "QS"]


# -- claims for a side: 101 and the 50 boundary (§10.3) ----------------------------------------------


def _figures(state: DealState, points: tuple[int, int], tricks: tuple[int, int]) -> DealState:
    """The same real state with other card points and tricks per side (for the tier table)."""
    n = state._derive()
    n.card_points, n.tricks = points, tricks
    n.__class__ = DealState
    return n  # type: ignore[return-value]


@pytest.mark.parametrize("points,tricks,reason,winner,gp", [
    ((101, 0), (3, 0), SettleReason.CLAIM, 0, 3),          # the other side has no trick
    ((101, 50), (3, 2), SettleReason.CLAIM, 0, 2),         # 50 x 2 < 101: schneider
    ((101, 51), (3, 2), SettleReason.CLAIM, 0, 1),         # 51 x 2 > 101
    ((120, 119), (6, 5), SettleReason.CLAIM, 0, 1),
    ((100, 20), (3, 2), SettleReason.WRONG_CLAIM, 1, 2),   # 100 < 101: the other side scores 2
    ((100, 0), (3, 0), SettleReason.WRONG_CLAIM, 1, 2),    # flat 2, tricks or not (§10.4)
])
def test_four_player_claim_tiers(points: tuple[int, int], tricks: tuple[int, int], reason: SettleReason,
                                 winner: int, gp: int) -> None:
    state = play(base(), "AC 9C TC 9C")     # seat 0's claim window
    s = _figures(state, points, tricks).apply(CLAIM).settlement
    assert s is not None and (s.reason, s.winner, s.game_points, s.claimant) == (reason, winner, gp, 0)
    assert s.awards == tuple(gp if side == winner else 0 for side in (0, 1))


def test_four_player_partner_claims_for_the_side() -> None:
    # Seat 2 wins trick 1 and claims: the side's points (his partner's included) are what count.
    state = play(deal_n(FOUR, MARRIAGE, DEALER, "KH", "KS"), "marry:S QS 9S AS 9S")
    assert state.to_act == 2 and "claim" in legal(state)
    state = _figures(state, (81, 0), (1, 0))   # + the credited 20 = 101
    s = state.apply(CLAIM).settlement
    assert s is not None and s.totals == (101, 0)
    assert (s.reason, s.winner, s.game_points, s.claimant) == (SettleReason.CLAIM, 0, 3, 2)


def test_four_player_only_the_trick_winner_may_claim() -> None:
    state = play(deal_n(FOUR, MARRIAGE, DEALER, "KH", "KS"), "marry:S QS 9S AS 9S pass")
    assert state.to_act == 2    # seat 2 leads; his partner seat 0 has no window
    state = play(state, "AD")
    assert state.to_act == 3 and "claim" not in legal(state)


def test_four_player_played_out_shares_240_plus_10() -> None:
    state = base()
    while not state.is_over:
        plays = [a for a in state.legal_actions() if a.kind == "play"]
        state = state.apply(plays[0] if plays else PASS)
    s = state.settlement
    assert s is not None and sum(s.totals) == 250 and sum(s.tricks) == 12
    if s.totals[0] == s.totals[1]:
        assert s.reason is SettleReason.DRAW
    else:
        assert s.reason is SettleReason.HIGHER_TOTAL and s.winner == (0 if s.totals[0] > s.totals[1] else 1)


# -- the match (§10.3: first side to 7; the pot goes with the other side's 2) -----------------------


def _match(**changes: object) -> MatchState:
    order = order_n(FOUR, HANDS, DEALER, "KH", STOCK)
    return dataclasses.replace(MatchState.new(FOUR, orders=[order] * 3, first_dealer=DEALER), **changes)


def test_four_player_wrong_claim_pays_the_other_side_with_the_pot() -> None:
    match = play_match(_match(pot=1), "AC 9C TC 9C claim")   # 22 < 101
    result = match.results[-1]
    assert result.settlement.winner == 1 and result.awarded == 2 + 1
    assert match.game_points == (0, 3) and match.pot == 0 and match.dealer == 0


def test_four_player_first_side_to_7_wins() -> None:
    match = play_match(_match(game_points=(0, 5)), "AC 9C TC 9C claim")
    assert match.game_points == (0, 7)
    assert match.outcome is not None and match.outcome.winner == 1 and match.outcome.reason == "target"


def test_four_player_forfeit_loses_for_the_offenders_side() -> None:
    match = _match()
    for offender, winner in ((0, 1), (1, 0), (2, 1), (3, 0)):
        out = match.forfeit(offender, "timeout")
        assert out.outcome is not None and out.outcome.winner == winner and out.outcome.offender == offender


def test_four_player_observation_names_the_partner_and_hides_other_hands() -> None:
    state = play(base(), "AC 9C")
    obs = observe(state, 2)
    assert obs.partner == 0 and obs.side == 0 and obs.players == 4
    assert obs.hand_sizes == (6, 6, 7, 7) and [str(c) for c in obs.table] == ["AC", "9C"]
    assert obs.tricks_won == (0, 0) and obs.my_turn
    assert sorted(obs.hand) == sorted(cards(HANDS[2]))


def test_four_player_exchange_with_both_nines_gives_one() -> None:
    hands = ["AC TC KC QC 9H 9H 9D"] + HANDS[1:]
    state = deal_n(FOUR, hands, DEALER, "KH", "AS AS AH TH TH TS QH JH KH KS TS AD QH JS JH TD AH KD QD")
    state = play(state, "AC 9C TC 9C pass")
    state = state.apply(Action.parse("exchange"))
    assert sorted(str(c) for c in state.hand(0) if c.suit == 2) == ["9H", "KH"]
    assert state.up_card == Card.parse("9H") and len(state.hand(0)) == 7


def test_four_player_identical_trump_does_not_over_trump() -> None:
    """Void in the led suit behind an opponent's QH, holding the other QH and a lower trump: neither
    wins (the first of identical cards stays ahead), so any card may be played (§10.2-§10.3)."""
    from arena.game.cards import mask_of
    state = play(base(), PHASE1 + " KC")
    n = state._derive()
    n.best, n.best_seat, n.to_act = Card.parse("QH").index, 1, 2
    n.table = (Card.parse("KC"), Card.parse("QH"))
    n.hands = n.hands[:2] + (mask_of(cards("QH 9H AD")),) + n.hands[3:]
    n.__class__ = DealState
    assert legal(n) == {"play:QH", "play:9H", "play:AD"}  # type: ignore[arg-type]


def test_four_player_married_cards_stay_married_when_another_card_is_played() -> None:
    from arena.game.cards import cards_of_mask
    state = play(deal_n(FOUR, MARRIAGE, DEALER, "KH", "KS"), "marry:S KS 9S JC 9S pass")
    assert cards_of_mask(state.married[0]) == [Card.parse("QS")]
    state = play(state, "AC")
    assert cards_of_mask(state.married[0]) == [Card.parse("QS")]
