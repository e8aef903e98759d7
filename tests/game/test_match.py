"""Match structure (RULES.md §8), the carry-over pot (§7.6), forfeits (§11 row 34), the seeded
shuffle (§2.2) and the canonical deal mappings (§2.4)."""

from __future__ import annotations

import random

import pytest

from arena.game import (CLAIM, PASS, ActionKind, Decision, EventKind, MatchState, deal_layout, profile,
                        replay, replay_states, shuffled_order)
from arena.game.cards import cards_of_mask
from arena.game.rules import Rules
from arena.game.scoring import SettleReason
from arena.game.state import DealState
from helpers import A, B, SCHNAPSEN, SIXTY_SIX, VU, order_for, play, play_match

# The non-dealer holds KS QS: "marry:S claim" is a wrong claim before trick 1, so the dealer scores 3.
MARRY_CLAIM = order_for(SIXTY_SIX, "KS QS AC TC JC 9C", "AS TS JS 9S KC QC", "9H")


def quick_wrong_claim(m: MatchState) -> MatchState:
    """End the current deal fast: one trick, then its winner claims (wrongly: one trick is < 66),
    so the trick's loser, who has no trick, scores 3 (§7.3)."""
    plays = [a for a in m.legal_actions() if a.kind is ActionKind.PLAY]
    m = m.apply(plays[0])
    plays = [a for a in m.legal_actions() if a.kind is ActionKind.PLAY]
    m = m.apply(plays[0])
    assert m.deal.decision is Decision.AFTER_TRICK
    return m.apply(m.legal_actions()[0])  # CLAIM comes first at DP-W


def play_to_draw(m: MatchState) -> MatchState:
    """Play a deal out without closing or claiming: under draw_carry that is always a draw (§7.5)."""
    deal_no = m.deal_no
    for _ in range(200):
        if m.deal_no != deal_no or m.is_over:
            return m
        legal = m.legal_actions()
        plays = [a for a in legal if a.kind is ActionKind.PLAY]
        m = m.apply(plays[0] if plays else PASS)
    raise AssertionError("deal did not end")


# -- dealer rotation ---------------------------------------------------------------------------------


@pytest.mark.parametrize("first", [A, B])
def test_dealer_alternates(first: int) -> None:
    m = MatchState.new(SIXTY_SIX, seed=11, first_dealer=first)
    dealers = [m.dealer]
    while not m.is_over:
        assert m.deal.leader == 1 - m.dealer  # the non-dealer leads to trick 1 (§2.5)
        m = quick_wrong_claim(m)
        dealers.append(m.dealer)
    played = [r.dealer for r in m.results]
    assert played == [first if i % 2 == 0 else 1 - first for i in range(len(played))]


@pytest.mark.parametrize("flag,expected", [("winner_deals", lambda w: w), ("loser_deals", lambda w: 1 - w)])
def test_next_dealer_flag(flag: str, expected) -> None:
    m = MatchState.new(SIXTY_SIX.with_overrides({"next_dealer": flag}), seed=5)
    while not m.is_over:
        m = quick_wrong_claim(m)
    assert len(m.results) >= 3
    for prev, nxt in zip(m.results, m.results[1:]):
        assert nxt.dealer == expected(prev.settlement.winner)
    winners = {r.settlement.winner for r in m.results}
    assert winners == {0, 1}, "the seed should give both players a deal, so the flag is really tested"


@pytest.mark.parametrize("after_draw,same", [("alternate", False), ("same_dealer", True)])
def test_dealer_after_draw(after_draw: str, same: bool) -> None:
    # winner_deals, so that "alternate after a draw" is not just the default rotation.
    rules = SIXTY_SIX.with_overrides({"next_dealer": "winner_deals", "dealer_after_draw": after_draw})
    m = MatchState.new(rules, seed=2, first_dealer=B)
    m = play_to_draw(m)
    assert m.results[-1].settlement.reason is SettleReason.DRAW
    assert m.dealer == (B if same else A)
    m = play_to_draw(m)
    assert m.dealer == B


# -- the pot ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("accumulates,points,pots", [
    (True, 1, [1, 2, 3, 0]), (False, 1, [1, 1, 1, 0]), (True, 0, [0, 0, 0, 0])])
def test_carry_pot(accumulates: bool, points: int, pots: list[int]) -> None:
    rules = SIXTY_SIX.with_overrides({"draw_carry_accumulates": accumulates, "draw_carry_points": points})
    m = MatchState.new(rules, seed=8)
    for _ in range(3):
        m = play_to_draw(m)
    m = quick_wrong_claim(m)  # a penalty award takes the pot too (§7.6 "whatever the reason")
    assert [r.pot_after for r in m.results] == pots
    last = m.results[-1]
    assert last.settlement.reason is SettleReason.WRONG_CLAIM and last.settlement.game_points == 3
    assert last.awarded == 3 + pots[2]
    assert m.game_points[last.settlement.winner] == last.awarded and m.pot == 0
    m = quick_wrong_claim(m)
    assert m.results[-1].awarded == 3  # reset: nothing left to carry


def test_schnapsen_has_no_draws() -> None:
    """§9: a played-out Schnapsen deal goes to the last-trick winner, so the pot never fills."""
    m = play_to_draw(MatchState.new(SCHNAPSEN, seed=4))
    r = m.results[-1]
    assert r.settlement.reason is SettleReason.LAST_TRICK and r.settlement.game_points == 1
    assert r.settlement.winner == r.settlement.last_trick_winner and m.pot == 0


# -- the end of a match -------------------------------------------------------------------------------


@pytest.mark.parametrize("target", [7, 3, 12])
def test_match_ends_at_target(target: int) -> None:
    m = MatchState.new(SIXTY_SIX.with_overrides({"match_target": target}), seed=21)
    while not m.is_over:
        assert max(m.game_points) < target
        m = quick_wrong_claim(m)
    assert m.outcome is not None
    w = m.outcome.winner
    assert m.game_points[w] >= target > m.game_points[1 - w]
    assert m.outcome.game_points == m.game_points and m.outcome.reason == "target"
    assert m.game_points == tuple(sum(r.awarded for r in m.results if r.settlement.winner == s)
                                  for s in (0, 1))
    assert m.legal_actions() == ()
    with pytest.raises(ValueError):
        m.apply(PASS)
    with pytest.raises(ValueError):
        m.forfeit(0, "late")


@pytest.mark.parametrize("shutout_double,next_dealer,value,points", [
    (True, "winner_deals", 2, (0, 9)),    # 9-0: a shut-out counts double
    (False, "winner_deals", 1, (0, 9)),
    (True, "alternate", 1, (6, 9)),       # not a shut-out
])
def test_shutout_double(shutout_double: bool, next_dealer: str, value: int, points: tuple) -> None:
    rules = SIXTY_SIX.with_overrides({"shutout_double": shutout_double, "next_dealer": next_dealer})
    m = MatchState.new(rules, first_dealer=B, orders=[MARRY_CLAIM] * 6)
    while not m.is_over:
        m = play_match(m, "marry:S claim")  # the dealer scores 3 each deal
    assert m.outcome is not None
    assert (m.outcome.winner, m.outcome.value, m.game_points) == (B, value, points)


# -- forfeits -------------------------------------------------------------------------------------------


def test_forfeit_match() -> None:
    m = quick_wrong_claim(MatchState.new(SIXTY_SIX, seed=1))
    before = m.game_points
    m = m.forfeit(A, "played AS, not in hand", illegal_action=True)
    assert m.is_over and m.outcome is not None
    assert (m.outcome.winner, m.outcome.reason, m.outcome.offender) == (B, "forfeit", A)
    assert m.outcome.detail == "played AS, not in hand" and m.game_points == before


def test_forfeit_deal_scores_3_and_goes_on() -> None:
    rules = SIXTY_SIX.with_overrides({"illegal_move_policy": "forfeit_deal"})
    m = play_to_draw(MatchState.new(rules, seed=1))  # a pot of 1 is waiting
    m = m.forfeit(B, "revoke", illegal_action=True)
    assert not m.is_over and m.deal_no == 3
    r = m.results[-1]
    assert (r.settlement.reason, r.settlement.winner, r.settlement.game_points, r.awarded) == \
        (SettleReason.FORFEIT, A, 3, 4)


def test_forfeit_deal_policy_still_ends_match_for_other_faults() -> None:
    """forfeit_deal is about illegal actions only; a timeout or crash still loses the match."""
    rules = SIXTY_SIX.with_overrides({"illegal_move_policy": "forfeit_deal"})
    m = MatchState.new(rules, seed=1).forfeit(A, "timeout")
    assert m.is_over and m.outcome is not None and m.outcome.reason == "forfeit"


def test_deal_forfeit_on_settled_deal_refused() -> None:
    finished = play(DealState.new(SIXTY_SIX, B, MARRY_CLAIM), "marry:S claim")
    assert finished.settlement is not None and finished.settlement.reason is SettleReason.WRONG_CLAIM
    with pytest.raises(ValueError, match="already over"):
        finished.forfeit(A)


# -- seeded shuffle (§2.2) ------------------------------------------------------------------------------


@pytest.mark.parametrize("rules", [SIXTY_SIX, SCHNAPSEN, SIXTY_SIX.with_overrides({"deck_size": 32})],
                         ids=["24", "20", "32"])
def test_shuffled_order_determinism(rules: Rules) -> None:
    a = shuffled_order(rules, 1234, 1)
    assert a == shuffled_order(rules, 1234, 1)
    assert sorted(a) == sorted(rules.pack.cards) and len(a) == rules.deck_size
    assert a != shuffled_order(rules, 1234, 2)
    assert a != shuffled_order(rules, 1235, 1)
    assert shuffled_order(rules, "tournament-7", 3) == shuffled_order(rules, "tournament-7", 3)


def test_shuffled_order_documented_stream() -> None:
    """The replay contract (dealing.py): Random("sixtysix/<seed>/<deal_no>") shuffling the pack in
    canonical order (suits C S H D, strongest rank first). Rebuilt here independently."""
    canonical = [r + s for s in "CSHD" for r in "ATKQJ9"]
    for seed, deal_no in [(0, 1), (42, 7), ("abc", 2)]:
        expected = list(canonical)
        random.Random(f"sixtysix/{seed}/{deal_no}").shuffle(expected)
        assert [str(c) for c in shuffled_order(SIXTY_SIX, seed, deal_no)] == expected


@pytest.mark.parametrize("name", ["schnapsen", "sixty_six", "three_player", "four_player"])
def test_shuffled_order_is_random_shuffle(name: str) -> None:
    """shuffled_order writes random.shuffle's algorithm out (speed): the same order as
    random.shuffle itself for every pack (20, 24, 32 and the 48-card double pack), many seeds."""
    rules = profile(name)
    for seed in [*range(150), "x", "tournament-7"]:
        expected = list(rules.pack.cards)
        random.Random(f"sixtysix/{seed}/3").shuffle(expected)
        assert shuffled_order(rules, seed, 3) == tuple(expected)


def test_match_deals_come_from_the_seed() -> None:
    m = MatchState.new(SIXTY_SIX, seed=99)
    while not m.is_over:
        m = quick_wrong_claim(m)
    for r in m.results:
        assert r.order == shuffled_order(SIXTY_SIX, 99, r.deal_no)


def test_explicit_orders_run_out() -> None:
    """A match on explicit orders that goes on past them says so (the next deal is dealt as soon as
    one is settled, unless the match is over)."""
    m = play_match(MatchState.new(SIXTY_SIX, first_dealer=B, orders=[MARRY_CLAIM]), "marry:S")
    with pytest.raises(ValueError, match="only 1 orders"):
        m.apply(CLAIM)


# -- canonical mappings (§2.4) ------------------------------------------------------------------------


def idx(order, positions):
    return {order[i] for i in positions}


@pytest.mark.parametrize("rules,nd,dl,up,stock", [
    (SIXTY_SIX, [0, 1, 2, 6, 7, 8], [3, 4, 5, 9, 10, 11], 12, range(13, 24)),
    (SCHNAPSEN, [0, 1, 2, 7, 8], [3, 4, 5, 9, 10], 6, range(11, 20)),
    (VU, [0, 2, 4, 6, 8], [1, 3, 5, 7, 9], 19, range(10, 19)),
    (SIXTY_SIX.with_overrides({"deck_size": 32}), [0, 1, 2, 6, 7, 8], [3, 4, 5, 9, 10, 11], 12, range(13, 32)),
], ids=["sixty_six_3_3", "schnapsen_3_up_2", "vu_alternate", "deck32_3_3"])
def test_canonical_mapping(rules: Rules, nd: list[int], dl: list[int], up: int, stock: range) -> None:
    order = shuffled_order(rules, 7, 1)
    layout = deal_layout(rules, order)
    assert set(cards_of_mask(layout.nondealer)) == idx(order, nd)
    assert set(cards_of_mask(layout.dealer)) == idx(order, dl)
    assert layout.up_card == order[up].index
    assert layout.hidden_stock == tuple(order[i].index for i in stock)  # top (drawn first) first
    for dealer in (A, B):
        state = DealState.new(rules, dealer, order)
        assert set(state.hand(1 - dealer)) == idx(order, nd)
        assert set(state.hand(dealer)) == idx(order, dl)
        assert state.up_card == order[up] and state.trump_suit is order[up].suit
        assert state.stock_cards() == [order[i] for i in stock] + [order[up]]
        assert state.to_act == 1 - dealer  # the non-dealer leads (§2.5)


def test_first_draw_takes_the_top_of_the_stock() -> None:
    order = shuffled_order(SIXTY_SIX, 3, 1)
    state = DealState.new(SIXTY_SIX, B, order)
    while state.trick_no == 0 or state.decision is not Decision.LEAD:
        plays = [a for a in state.legal_actions() if a.kind is ActionKind.PLAY]
        state = state.apply(plays[0] if plays else PASS)
    draws = [e for e in state.events() if e.kind is EventKind.DRAW]
    winner = state.leader
    assert [(e.seat, e.cards[0]) for e in draws] == [(winner, order[13]), (1 - winner, order[14])]


def test_bad_orders_refused() -> None:
    order = list(shuffled_order(SIXTY_SIX, 1, 1))
    with pytest.raises(ValueError, match="exactly once"):
        DealState.new(SIXTY_SIX, A, order[:-1])                      # a card short
    with pytest.raises(ValueError, match="exactly once"):
        DealState.new(SIXTY_SIX, A, order[:-1] + order[:1])          # a card twice
    schnapsen = list(shuffled_order(SCHNAPSEN, 1, 1))
    nine = next(c for c in order if c.rank.char == "9")
    with pytest.raises(ValueError, match="exactly once"):
        DealState.new(SCHNAPSEN, A, schnapsen[:-1] + [nine])         # a 9 is not in the 20-card pack
    with pytest.raises(ValueError, match="dealer"):
        DealState.new(SIXTY_SIX, 2, order)
    with pytest.raises(ValueError, match="first_dealer"):
        MatchState.new(SIXTY_SIX, first_dealer=-1)


def test_states_and_results_pickle_round_trip():
    # Tournament workers send match results (which hold the settled deals) through pickle.
    import pickle
    import random

    from arena.game import MatchState, profile as named

    rng = random.Random(5)
    state = MatchState.new(named("sixty_six"), seed=5)
    while not state.is_over:
        legal = state.legal_actions()
        state = state.apply(legal[rng.randrange(len(legal))])
    copy = pickle.loads(pickle.dumps(state))
    assert copy.results == state.results and copy.outcome == state.outcome
    for mine, theirs in zip(copy.results, state.results):
        assert mine.final.events() == theirs.final.events()
        assert mine.final.hands == theirs.final.hands and mine.final.settlement == theirs.final.settlement
    with pytest.raises(AttributeError):
        copy.deal.hands = (0, 0)


# -- what mutation testing found unpinned (issue 15) ----------------------------------------------------


def _finished_match() -> MatchState:
    m = MatchState.new(SIXTY_SIX.with_overrides({"match_target": 3}), seed=1)
    while not m.is_over:
        m = quick_wrong_claim(m)
    return m


def test_finished_match_offers_nothing_and_refuses_actions() -> None:
    m = _finished_match()
    assert m.legal_actions() == () and m.deal.is_over and m.deal.legal_actions() == ()
    with pytest.raises(ValueError, match="^the match is over$"):
        m.apply(CLAIM)
    with pytest.raises(ValueError, match="^the match is over$"):
        m.forfeit(A, "late")
    with pytest.raises(ValueError, match="^the match is over$"):
        m.stop_at_deal_limit()


def test_final_state_keeps_the_last_deal_pot_and_points() -> None:
    m = _finished_match()
    last = m.results[-1]
    assert m.deal is last.final and m.pot == last.pot_after == 0
    assert m.game_points == last.game_points_after == m.outcome.game_points  # type: ignore[union-attr]
    running = (0, 0)
    for r in m.results:
        points = list(running)
        points[r.settlement.winner] += r.awarded  # type: ignore[index]
        running = (points[0], points[1])
        assert r.game_points_after == running


def test_forfeit_outcome_keeps_the_game_points() -> None:
    m = quick_wrong_claim(MatchState.new(SIXTY_SIX, seed=1))
    out = m.forfeit(B, "timeout")
    assert out.outcome is not None and out.outcome.game_points == m.game_points != (0, 0)


def test_replay_defaults_to_dealer_0() -> None:
    m = MatchState.new(SIXTY_SIX, seed=4)
    taken = [m.legal_actions()[-1]]
    assert replay(SIXTY_SIX, 4, taken).deal.events() == m.apply(taken[0]).deal.events()
    assert replay(SIXTY_SIX, 4, taken).dealer == 0
    assert [s.dealer for s in replay_states(SIXTY_SIX, 4, taken)] == [0, 0]


@pytest.mark.parametrize("points,winner", [((3, 1), A), ((1, 3), B), ((2, 2), None)])
def test_stop_at_deal_limit(points: tuple[int, int], winner: int | None) -> None:
    import dataclasses

    m = dataclasses.replace(MatchState.new(SIXTY_SIX, seed=2), game_points=points)
    out = m.stop_at_deal_limit()
    assert out.outcome is not None and out.is_over and out.legal_actions() == ()
    assert (out.outcome.winner, out.outcome.reason, out.outcome.game_points) == (winner, "deal_limit", points)
    assert out.deal is m.deal and out.game_points == points


def test_forfeited_match_offers_nothing_though_its_deal_was_running() -> None:
    m = MatchState.new(SIXTY_SIX, seed=2)
    out = m.forfeit(A, "timeout")
    assert out.deal.legal_actions() != () and out.legal_actions() == ()


def test_match_won_with_the_pot_leaves_it_empty() -> None:
    m = play_to_draw(MatchState.new(SIXTY_SIX.with_overrides({"match_target": 3}), seed=1))
    assert m.pot == 1 and not m.is_over
    m = quick_wrong_claim(m)
    assert m.is_over and m.results[-1].awarded == 3 + 1 and m.pot == 0


def test_match_apply_unchecked_is_apply_without_the_check() -> None:
    checked = unchecked = MatchState.new(SIXTY_SIX, seed=6)
    while not checked.is_over and len(checked.results) < 3:
        action = checked.legal_actions()[0]
        checked, unchecked = checked.apply(action), unchecked.apply_unchecked(action)
        assert unchecked.deal.events() == checked.deal.events()
        assert (unchecked.game_points, unchecked.deal_no) == (checked.game_points, checked.deal_no)
    assert len(checked.results) == 3 and unchecked.results == checked.results
