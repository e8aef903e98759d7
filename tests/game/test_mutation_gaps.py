"""Rule cases that mutation testing of the whole of arena/game (issue 15, ``scripts/mutation.sh``)
showed no test pinned down. Each test names the rule it checks and the kind of mutant it kills; the
expected values come from RULES.md, not from the engine's output.
"""

from __future__ import annotations

import pytest

from arena.game import (PROFILES, Action, Card, DealState, Decision, Event, EventKind, Rules, Suit, load_rules,
                        profile)
from arena.game.cards import indices_of_mask
from arena.game.dealing import deal_layout, shuffled_order
from arena.game.observation import observe
from arena.game.rules import FLAG_FIELDS, RulesError, flag_section
from arena.game.scoring import SettleReason
from helpers import A, B, SIXTY_SIX, THREE, VU, deal, deal_n, legal, play

# -- vu_compat: the automatic claim at exactly 66 (RULES.md §13, §11 row 23) ------------------------

# Trump diamonds (KD up). A leads AS AH TD TC and B throws TS TH JD JC under them (phase 1: no
# obligation, §5.2): 21 + 21 + 12 + 12 = 66 card points after trick 4, 54 after trick 3.
VU_66 = ("AS AH TD TC QS", "TS TH JD JC KS", "KD")
THREE_TRICKS = "AS TS AH TH TD JD"


def test_vu_compat_no_auto_claim_below_66() -> None:
    """54 card points after trick 3: the deal goes on (the auto-claim needs 66, §7.3)."""
    state = play(deal(*VU_66, rules=VU), THREE_TRICKS)
    assert not state.is_over
    assert state.total(A) == 54 and state.to_act == A


def test_vu_compat_auto_claims_at_exactly_66() -> None:
    """§13: the trick winner with 66 ends the deal at once, exactly 66 included (kills the
    auto-claim's ``>= claim_target`` -> ``> claim_target``). B has no trick and no card point: with
    schwarz_test = zero_points that is schwarz, 3 game points (§7.3)."""
    state = play(deal(*VU_66, rules=VU), THREE_TRICKS + " TC JC")
    assert state.is_over
    s = state.settlement
    assert s is not None
    assert (s.reason, s.winner, s.claimant, s.game_points, s.totals) == (SettleReason.CLAIM, A, A, 3, (66, 0))
    # The deal ends with the fourth trick: no draw and no lead follow it.
    kinds = [e.kind for e in state.events()]
    assert kinds[-2:] == [EventKind.TRICK, EventKind.SETTLE]
    assert state.events()[-1] == Event(EventKind.SETTLE, A, (), 3)  # winner's side, game points, no cards


def test_vu_compat_auto_claim_by_seat_1() -> None:
    """The same deal with the hands swapped: the dealer (seat 1) reaches 66 and is the claimant."""
    # A leads low cards into B's aces and tens: B wins every trick and then leads the rest.
    state = deal("TS TH JD JC KS", "AS AH TD TC QS", "KD", rules=VU)
    state = play(state, "TS AS AH TH TD JD TC JC")
    assert state.is_over
    s = state.settlement
    assert s is not None and isinstance(state, DealState)
    assert (s.reason, s.winner, s.claimant, s.totals) == (SettleReason.CLAIM, B, B, (0, 66))


# -- arena rules show: where each flag is defined ----------------------------------------------------


def test_flag_sections_name_section_10_4_for_the_n_player_flags() -> None:
    """claim_target and must_beat_partner come from RULES.md §10.4 (§11 row 35 is only
    ``players``); every other flag is its §11 row."""
    assert flag_section("claim_target") == "§10.4"
    assert flag_section("must_beat_partner") == "§10.4"
    assert flag_section("players") == "§11.35"
    assert flag_section("deck_size") == "§11.1"
    assert flag_section("illegal_move_policy") == "§11.34"
    for name, f in FLAG_FIELDS.items():
        if name not in ("claim_target", "must_beat_partner"):
            assert flag_section(name) == f"§11.{f.metadata['row']}"


# -- cards, actions, events, layouts: helpers other parts of the arena rely on ----------------------


def test_indices_of_mask_lists_every_card_index_from_0_up() -> None:
    """The card indices of a set of cards, lowest first, index 0 (AC) included."""
    mask = (1 << 0) | (1 << 7) | (1 << 8) | (1 << 31)
    assert list(indices_of_mask(mask)) == [0, 7, 8, 31]
    assert list(indices_of_mask(1)) == [0]
    assert list(indices_of_mask(0)) == []


def test_marry_takes_a_suit_or_its_text() -> None:
    for suit in Suit:
        assert Action.marry(suit.char) is Action.marry(suit) is Action.parse(f"marry:{suit.char}")
    assert Action.marry("C").suit is Suit.CLUBS


def test_event_text_and_private_draws() -> None:
    """Each event's text form; a draw is private unless it was the face-up card (§5.2)."""
    ks, qs = Card.parse("KS"), Card.parse("QS")
    assert str(Event(EventKind.MARRIAGE, 0, (ks, qs), 20, Suit.SPADES)) == "marriage seat=0 KS QS 20"
    assert str(Event(EventKind.TRICK, 1, (ks, qs))) == "trick seat=1 KS QS"
    assert str(Event(EventKind.CLOSE, 0)) == "close seat=0"
    assert str(Event(EventKind.DRAW, 1, (ks,), 1)) == "draw seat=1 KS"
    assert Event(EventKind.DRAW, 0, (ks,)).is_private_draw()
    assert not Event(EventKind.DRAW, 0, (ks,), 1).is_private_draw()
    assert not Event(EventKind.PLAY, 0, (ks,)).is_private_draw()


def test_layout_hand_of_each_seat() -> None:
    """§2.4 / §10.4: ``hands`` runs clockwise from the dealer's left, the dealer's hand last."""
    layout = deal_layout(THREE, shuffled_order(THREE, 5, 1))
    for dealer in range(3):
        assert layout.hand_of(dealer, dealer, 3) == layout.hands[-1]
        assert layout.hand_of((dealer + 1) % 3, dealer, 3) == layout.hands[0]
        assert layout.hand_of((dealer + 2) % 3, dealer, 3) == layout.hands[1]
    # The two named hands: the dealer's left (who leads trick 1) and the dealer's, as with two.
    assert (layout.nondealer, layout.dealer) == (layout.hands[0], layout.hands[2])
    assert len({layout.nondealer, layout.hands[1], layout.dealer}) == 3
    two = deal_layout(SIXTY_SIX, shuffled_order(SIXTY_SIX, 5, 1))
    assert two.hand_of(0, 1, 2) == two.nondealer and two.hand_of(1, 1, 2) == two.dealer
    assert two.hand_of(1, 0, 2) == two.nondealer and two.hand_of(0, 0, 2) == two.dealer


def test_observation_won_cards_per_seat() -> None:
    state = play(deal("AS 9C TS KS QS JS", "9H TH KH QH JH 9D", "AC"), "AS 9H pass")
    view = observe(state, B)
    assert view.won_cards(A) == (Card.parse("AS"), Card.parse("9H"))
    assert view.won_cards(B) == ()


# -- rules: plain values, rebuilding, the default profile ------------------------------------------


def test_to_dict_holds_plain_values() -> None:
    """Records, TOML and the protocol's rules line get str/int/bool, never enum members."""
    for rules in PROFILES.values():
        for key, value in rules.to_dict().items():
            assert type(value) in (str, int, bool), (key, value)


def test_from_dict_base_profile() -> None:
    assert Rules.from_dict({}) == profile("sixty_six")
    assert Rules.from_dict({"profile": "schnapsen"}) == profile("schnapsen")
    assert Rules.from_dict({"name": "vu_compat"}) == profile("vu_compat")
    # "profile" wins over "name", and a leftover name is not taken for a flag.
    assert Rules.from_dict({"profile": "schnapsen", "name": "sixty_six", "match_target": 5}) == \
        profile("schnapsen").with_overrides({"match_target": 5})


def test_load_rules_defaults_to_sixty_six() -> None:
    assert load_rules() == profile("sixty_six")
    assert load_rules(overrides={"match_target": 3}).match_target == 3


@pytest.mark.parametrize("text,needle", [("play:ZZ", "not a card: 'ZZ'"), ("play:A:S", "not a card: 'A:S'"),
                                         ("marry:Q", "not a suit: 'Q'"), ("marry:", "not a suit: ''"),
                                         ("exchange:C", "not an action: 'exchange:C'")])
def test_action_parse_names_the_bad_part(text: str, needle: str) -> None:
    """A malformed wire action says which part is wrong: the card, the suit, or the action."""
    with pytest.raises(ValueError, match=needle):
        Action.parse(text)


# -- observe (RULES.md §3): the public facts of a seat's view ---------------------------------------


def test_observation_public_facts_and_masked_draws() -> None:
    """Trump, dealer, profile and stock size are public; the other seat's draw shows no card (§3)."""
    state = play(deal("AS 9C TS KS QS JS", "9H TH KH QH JH 9D", "AC", stock="AD KD"), "AS 9H pass")
    view = observe(state, B)
    assert (view.profile, view.dealer, view.trump, view.stock_size) == ("sixty_six", B, Suit.CLUBS, 10)
    draws = [e for e in view.events if e.kind is EventKind.DRAW]
    assert draws == [Event(EventKind.DRAW, A), Event(EventKind.DRAW, B, (Card.parse("KD"),))]
    mine = [e for e in observe(state, A).events if e.kind is EventKind.DRAW]
    assert mine == [Event(EventKind.DRAW, A, (Card.parse("AD"),)), Event(EventKind.DRAW, B)]


@pytest.mark.parametrize("seat", [2, -1, "0", None])
def test_observe_refuses_a_seat_that_is_not_at_the_table(seat: object) -> None:
    state = deal("AS 9C TS KS QS JS", "9H TH KH QH JH 9D", "AC")
    with pytest.raises(ValueError, match="seat must be from 0 to 1"):
        observe(state, seat)  # type: ignore[arg-type]


# -- three players, phase 2: over-trumping with AC (card index 0) -----------------------------------

# Trump clubs (7C up, also the exchange card). Seat 0 holds the hearts and leads them through
# phase 1 while seat 1 discards spades and seat 2 diamonds. Draws (winner first, clockwise):
# 1: s0 TC s1 8C s2 AC; 2: s0 KC s1 7D s2 7S; 3: s0 QC s1 JC s2 the up-card 7C. Dead pile 9C 7H.
# Phase-2 hands: s0 QH JH 9H 8H TC KC QC; s1 AS TS KS QS 8C 7D JC; s2 AD TD KD QD AC 7S 7C.
AC_OVER = (["AH TH KH QH JH 9H 8H", "AS TS KS QS JS 9S 8S", "AD TD KD QD JD 9D 8D"], 2, "7C",
           "TC 8C AC KC 7D 7S QC JC", "9C 7H")
AC_OVER_PHASE1 = "AH 8S 8D pass TH 9S 9D pass KH JS JD pass"


def test_three_player_void_follower_must_over_trump_with_the_ace_of_clubs() -> None:
    """§10.2 / §6: void in the led suit behind a trump that wins, a player must play a higher trump
    if he has one; here the only one is AC, card index 0 (kills ``(1 << best) - 1`` -> ``- 2``, which
    drops AC from the trumps that beat)."""
    state = play(deal_n(THREE, *AC_OVER), AC_OVER_PHASE1)
    assert state.stock_status == "exhausted" and state.total(0) == 29
    assert sorted(map(str, state.hand(2))) == sorted("AD TD KD QD AC 7S 7C".split())
    state = play(state, "QH")
    assert legal(state) == {"play:8C", "play:JC"}   # void in hearts: any trump wins
    state = play(state, "8C")
    assert legal(state) == {"play:AC"}              # only AC beats 8C; 7C would not win


def test_observation_shows_seat_0_as_exchanger_and_closer() -> None:
    """§3: who exchanged and who closed are public, seat 0 included (kills ``>= 0`` -> ``> 0`` and
    the fields left out); the stock is shown closed, its up-card no longer."""
    state = deal("AS 9C TS KS QS JS", "9H TH KH QH JH 9D", "AC")
    view = observe(state, B)
    assert (view.closer, view.exchanged_by, view.stock_state) == (None, None, "open")
    state = play(state, "AS 9H pass exchange close")
    for seat in (A, B):
        view = observe(state, seat)
        assert (view.closer, view.exchanged_by, view.stock_state, view.up_card) == (A, A, "closed", None)


def test_observation_of_the_follower_when_ac_is_led() -> None:
    """§3, what a seat sees: the card led (AC, index 0), the leader (seat 0), whose turn and which
    decision point, tricks completed, the other hand's size, marriages shown (clubs, suit 0)."""
    state = deal("AC TC KC QC JC 9C", "AS TS KS QS JS 9S", "AH")
    state = play(state, "AC")
    view = observe(state, B)
    assert (view.led, view.leader, view.trick_no, view.my_turn, view.decision) == \
        (Card.parse("AC"), A, 0, True, Decision.FOLLOW)
    assert view.opponent_hand_size == 5 and view.hand_sizes == (5, 6)
    assert view.table == (Card.parse("AC"),)
    other = observe(state, A)
    assert (other.my_turn, other.decision, other.legal_actions, other.led) == \
        (False, None, (), Card.parse("AC"))
    state = play(state, "9S pass marry:C")
    view = observe(state, B)
    assert view.marriages == ((A, Suit.CLUBS, 20),)
    assert (view.led, view.leader, view.trick_no, view.my_turn) == (None, A, 1, False)
    assert observe(state, A).decision is Decision.LEAD


def test_unknown_flag_suggests_the_flags_of_the_same_family() -> None:
    """A mistyped flag names the flags that begin with the same word (``close_...``)."""
    with pytest.raises(RulesError, match=r"did you mean close_enabled, close_before_draw, close_min_stock"):
        SIXTY_SIX.with_overrides({"close_minimum": 2})


def test_a_stock_of_exactly_one_card_per_player_is_a_deal() -> None:
    """Three players with 24 cards: 21 dealt, a stock of 3 (the up-card included), no dead pile:
    each player draws once after trick 1. Only a stock smaller than the table is refused."""
    rules = THREE.with_overrides({"deck_size": 24})
    assert (rules.stock_size, rules.dead_size) == (3, 0)
    state = DealState.new(rules, 2, shuffled_order(rules, 1, 1))
    assert state.stock_size == 3 and [len(state.hand(s)) for s in range(3)] == [7, 7, 7]
    with pytest.raises(RulesError, match="leaves no stock"):
        THREE.with_overrides({"deck_size": 20})


def test_unknown_flag_without_a_family_lists_the_known_flags_only() -> None:
    with pytest.raises(RulesError) as err:
        SIXTY_SIX.with_overrides({"zzz": 1})
    assert str(err.value).startswith("unknown rules flag 'zzz'; known flags: deck_size, hand_size,")


@pytest.mark.parametrize("value,ok", [(1, True), (1000, True), (0, False), (1001, False)])
def test_match_target_bounds_are_inclusive(value: int, ok: bool) -> None:
    """RULES.md §11 row 32 as the flag table allows it: a whole number from 1 to 1000, both ends in."""
    if ok:
        assert SIXTY_SIX.with_overrides({"match_target": str(value)}).match_target == value
    else:
        with pytest.raises(RulesError, match="a whole number from 1 to 1000"):
            SIXTY_SIX.with_overrides({"match_target": value})
