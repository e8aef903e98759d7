"""Property tests for three and four players (RULES.md §10), over random legal play (hypothesis):
every deal terminates, cards are conserved (each card twice in the double pack), a deal played out
shares 120 or 240 card points (less the dead pile) plus the last trick's 10, what a seat observes is
unchanged when the cards it has not seen change, and a match replays exactly.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from arena.game import (CLAIM, Action, Card, DealState, EventKind, IllegalActionError, MatchState,
                        observe, profile, replay, shuffled_order)
from arena.game.cards import cards_of_mask
from arena.game.rules import Rules

VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("three_player", {}),
    ("three_player", {}),
    ("four_player", {}),
    ("four_player", {}),
    ("four_player", {"must_beat_partner": False}),
    ("three_player", {"wrong_claim_award": "two_or_three", "end_without_claim": "draw_carry"}),
    ("four_player", {"wrong_claim_award": "mirror", "end_without_claim": "last_trick_wins_1",
                     "marriage_credit": "next_trick_after_meld"}),
    ("three_player", {"claim_mode": "auto_after_trick", "schwarz_test": "zero_points",
                      "undeclared_66_voids_claim": True, "marriage_in_phase2": True}),
    ("four_player", {"phase2_follow": "follow_only", "claim_window": "on_lead_any_time",
                     "marriage_requires_prior_trick": True, "exchange_min_stock": 4}),
]

variants = st.sampled_from(VARIANTS).map(lambda v: profile(v[0]).with_overrides(v[1]))
seeds = st.integers(min_value=0, max_value=2**32 - 1)
styles = st.sampled_from(["uniform", "sensible", "sensible", "no_claim"])
PROPERTY = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def choose(state: DealState, rng: random.Random, style: str) -> Action:
    legal = state.legal_actions()
    if style == "uniform":
        return rng.choice(legal)
    rules = state.rules
    if CLAIM in legal and style == "sensible" and \
            state.total(rules.side_of[state.to_act]) >= rules.claim_target and rng.random() < 0.85:
        return CLAIM
    options = [a for a in legal if a is not CLAIM]
    return rng.choice(options)


def max_actions(rules: Rules) -> int:
    # Per trick at most an exchange, a marriage, the lead, every follow and DP-W.
    tricks = (rules.deck_size - rules.dead_size) // rules.players
    return tricks * (rules.players + 4) + 2


def play_out(state: DealState, rng: random.Random, style: str) -> tuple[list[DealState], list[Action]]:
    states, taken = [state], []
    while not state.is_over:
        assert len(taken) <= max_actions(state.rules), f"no end after {len(taken)} actions: {state!r}"
        action = choose(state, rng, style)
        state = state.apply(action)
        states.append(state)
        taken.append(action)
    return states, taken


def places(state: DealState) -> list[Card]:
    """Every card where the state keeps it: hands, won piles, stock, dead pile, the current trick."""
    out = [c for seat in range(state.players) for c in state.hand(seat)]
    out += [c for side in range(state.rules.sides) for c in state.won_cards(side)]
    return out + state.stock_cards() + state.dead_pile() + state.trick_cards()


@settings(PROPERTY, max_examples=120)
@given(rules=variants, seed=seeds, dealer=st.integers(0, 3), style=styles, rng_seed=seeds)
def test_nseat_random_play_ends_and_conserves_cards(rules: Rules, seed: int, dealer: int, style: str,
                                                    rng_seed: int) -> None:
    dealer %= rules.players
    rng = random.Random(rng_seed)
    state = DealState.new(rules, dealer, shuffled_order(rules, seed, 1))
    pack = Counter(rules.pack.cards)
    pack_points = sum(c.points * n for c, n in pack.items())
    assert pack_points == 120 * rules.pack.copies   # 120 in one pack, 240 in two
    steps = 0
    while True:
        assert Counter(places(state)) == pack, f"cards not conserved at {state!r}"
        if state.decision.text == "lead" and not state.table:
            assert len({len(state.hand(s)) for s in range(rules.players)}) == 1  # equal hands
            assert state.stock_size % rules.players == 0 or state.stock_status != "open"
        if state.is_over:
            break
        before = (state.hands, state.won, state.table, state.decision, tuple(state.events()))
        action = choose(state, rng, style)
        nxt = state.apply(action)
        assert (state.hands, state.won, state.table, state.decision, tuple(state.events())) == before
        state = nxt
        steps += 1
        assert steps <= max_actions(rules)
    s = state.settlement
    assert s is not None and state.legal_actions() == () and len(s.totals) == rules.sides
    dead_points = sum(c.points for c in state.dead_pile())
    won_points = sum(c.points for side in range(rules.sides) for c in state.won_cards(side))
    assert sum(state.card_points) == won_points
    left = [c for seat in range(rules.players) for c in state.hand(seat)] + state.stock_cards()
    assert won_points + dead_points + sum(c.points for c in left) == pack_points
    if not left and s.claimant is None:
        # Played out: every card but the dead pile was won, and the last trick's 10 was paid.
        assert sum(s.totals) - sum(state.melds) == pack_points - dead_points + rules.last_trick_bonus
        assert sum(s.tricks) == (rules.deck_size - rules.dead_size) // rules.players


@settings(PROPERTY, max_examples=60)
@given(rules=variants, seed=seeds, dealer=st.integers(0, 3), style=styles, rng_seed=seeds)
def test_nseat_observations_hold_no_totals_and_only_own_cards(rules: Rules, seed: int, dealer: int,
                                                              style: str, rng_seed: int) -> None:
    dealer %= rules.players
    states, _ = play_out(DealState.new(rules, dealer, shuffled_order(rules, seed, 1)),
                         random.Random(rng_seed), style)
    for state in states:
        for seat in range(rules.players):
            obs = observe(state, seat)
            assert obs.hand == tuple(state.hand(seat))
            assert obs.legal_actions == (state.legal_actions() if state.to_act == seat else ())
            assert (obs.settlement is not None) == state.is_over
            assert bool(obs.dead_pile) == (state.is_over and rules.dead_size > 0)
            for e in obs.events:
                if e.kind is EventKind.DRAW and e.seat != seat and not e.value:
                    assert e.cards == ()


def _reorder(order: tuple[Card, ...], pool: list[Card], rng: random.Random) -> tuple[Card, ...]:
    """``order`` with the cards of ``pool`` (a multiset) shuffled among positions holding them."""
    wanted = Counter(pool)
    positions = []
    for i, c in enumerate(order):
        if wanted[c] > 0:
            wanted[c] -= 1
            positions.append(i)
    shuffled = [order[i] for i in positions]
    rng.shuffle(shuffled)
    out = list(order)
    for i, c in zip(positions, shuffled):
        out[i] = c
    return tuple(out)


@settings(PROPERTY, max_examples=150)
@given(rules=variants, seed=seeds, dealer=st.integers(0, 3), seat=st.integers(0, 3), style=styles,
       cut=st.floats(0, 1), rng_seed=seeds)
def test_nseat_observation_blind_to_hidden_cards(rules: Rules, seed: int, dealer: int, seat: int,
                                                 style: str, cut: float, rng_seed: int) -> None:
    """Replay the same actions on a deal where every card ``seat`` has not seen (the other hands, the
    dead pile and the stock not yet drawn) is permuted: while the actions stay legal, ``seat`` sees
    the same thing."""
    dealer %= rules.players
    seat %= rules.players
    rng = random.Random(rng_seed)
    order = shuffled_order(rules, seed, 1)
    states, taken = play_out(DealState.new(rules, dealer, order), rng, style)
    k = int(cut * len(taken))
    states, taken = states[:k + 1], taken[:k]
    now = states[-1]
    assume(not now.is_over)  # the settlement (and the dead pile) reveal everything
    # Every card text the seat knows a copy of stays put (with two packs the other copy could be
    # anywhere); the rest is hidden from it, every copy, and is permuted.
    known = {c for e in observe(now, seat).events for c in e.cards} | set(states[0].hand(seat))
    known.add(states[0].up_card)
    others = [c for s in range(rules.players) if s != seat for c in now.hand(s)]
    undrawn = now.stock_cards()[:-1] if now.up >= 0 else now.stock_cards()
    pool = [c for c in others + undrawn + now.dead_pile() if c not in known]
    alt = DealState.new(rules, dealer, _reorder(order, pool, rng))
    assume(any(alt.hand(s) != states[0].hand(s) for s in range(rules.players) if s != seat)
           or alt.stock_cards() != states[0].stock_cards() or alt.dead_pile() != states[0].dead_pile())
    compared = 0
    for i, action in enumerate(taken + [None]):
        assert observe(alt, seat) == observe(states[i], seat), f"step {i}: {taken[:i]}"
        compared += 1
        if action is None:
            break
        try:
            alt = alt.apply(action)
        except IllegalActionError:
            assert states[i].to_act != seat   # only another seat's move can depend on moved cards
            break
    assume(compared > 1)


@settings(PROPERTY, max_examples=30)
@given(rules=variants, seed=seeds, first_dealer=st.integers(0, 3), style=styles, rng_seed=seeds)
def test_nseat_replay_reproduces_the_match(rules: Rules, seed: int, first_dealer: int, style: str,
                                           rng_seed: int) -> None:
    first_dealer %= rules.players
    rng = random.Random(rng_seed)
    m = MatchState.new(rules, seed, first_dealer)
    taken: list[Action] = []
    while not m.is_over and len(m.results) < 8:
        action = choose(m.deal, rng, style)
        m = m.apply(action)
        taken.append(action)
    for r in (replay(rules, seed, taken, first_dealer),
              replay(rules, "ignored", [str(a) for a in taken], first_dealer,
                     orders=[d.order for d in m.results] + [m.order])):
        assert r.results == m.results
        assert (r.game_points, r.pot, r.outcome, r.deal_no, r.dealer) == \
            (m.game_points, m.pot, m.outcome, m.deal_no, m.dealer)
        assert r.deal.events() == m.deal.events()
    assert len(m.game_points) == rules.sides
    assert [r.dealer for r in m.results] == [(first_dealer + i) % rules.players
                                             for i in range(len(m.results))]
    assert all(len(cards_of_mask(h)) <= rules.hand_size for h in m.deal.hands)
