"""The strong bot's solver is exact: on random end positions of real deals it gives every move the
value that a plain minimax over the engine's own states gives (no pruning, no table, the engine's
settlement of RULES.md §7), in every profile, for plain game points and for match payoffs."""

from __future__ import annotations

import random

import pytest

from arena.game import CLAIM, Action, ActionKind, DealState, Decision, Rules, profile, shuffled_order
from arena.game.rules import CLAIM_TARGET
from arena.game.state import OPEN
from bots.strong.solver import Endgame, Payoff, Solver

MAX_CARDS = 4  # cards in the hand of the player to act: small enough for brute force


def brute_force(state: DealState, payoff: Payoff) -> int:
    """Minimax over every legal action but a wrong claim (nobody gains by one... but the bot
    never makes one anyway). The bot claims the moment it can (its promise); the opponent may
    claim or play on, and may show a marriage or not: the solver decides those by itself."""
    if state.is_over:
        s = state.settlement
        return payoff.value(s.winner, s.game_points)
    seat = state.to_act
    legal = state.legal_actions()
    can_claim = CLAIM in legal and state.total(seat) >= CLAIM_TARGET
    if can_claim and seat == payoff.me:
        return brute_force(state.apply(CLAIM), payoff)
    values = [brute_force(state.apply(a), payoff) for a in legal if a is not CLAIM or can_claim]
    return max(values) if seat == payoff.me else min(values)


def random_end_position(rules: Rules, rng: random.Random) -> DealState:
    """A deal played at random (claims mostly skipped, so more deals reach phase 2) to a phase-2
    lead or follow with few cards left."""
    while True:
        state = DealState.new(rules, rng.randrange(2), shuffled_order(rules, rng.randrange(10**9), 1))
        while not state.is_over:
            legal = state.legal_actions()
            if (state.stock_state != OPEN and state.decision in (Decision.LEAD, Decision.FOLLOW)
                    and state.hands[state.to_act].bit_count() <= MAX_CARDS
                    and not (CLAIM in legal and state.total(state.to_act) >= CLAIM_TARGET)):
                return state
            choices = [a for a in legal if a is not CLAIM or
                       (state.total(state.to_act) >= CLAIM_TARGET and rng.random() < 0.3)]
            state = state.apply_unchecked(rng.choice(choices))


def brute_force_of_play(state: DealState, play: Action, payoff: Payoff) -> int:
    """The value of leading or following ``play``. At a lead, showing its marriage first is the
    other way to play it (and then claiming instead, if the marriage reached 66): the player to
    act takes the best of these, as the solver's move "lead this card" means."""
    value = brute_force(state.apply(play), payoff)
    better = max if state.to_act == payoff.me else min
    for marry in state.legal_actions():
        if marry.kind is ActionKind.MARRY and play.card is not None and marry.suit is play.card.suit:
            melded = state.apply(marry)
            if play not in melded.legal_actions():
                continue  # not a card of the marriage that may be led
            if CLAIM in melded.legal_actions() and melded.total(melded.to_act) >= CLAIM_TARGET:
                claimed = brute_force(melded.apply(CLAIM), payoff)
                if state.to_act == payoff.me:
                    return claimed  # the bot claims the moment it can
                value = better(value, claimed)
            value = better(value, brute_force(melded.apply(play), payoff))
    return value


@pytest.mark.parametrize("rules_name", ["sixty_six", "schnapsen", "vu_compat"])
def test_solver_agrees_with_brute_force_on_random_end_positions(rules_name: str) -> None:
    rng = random.Random(f"solver/{rules_name}")
    positions = 0
    for i in range(120):
        state = random_end_position(profile(rules_name), rng)
        me = rng.randrange(2)
        payoff = (Payoff.game_points(me) if i % 2 else
                  Payoff.for_match(me, (rng.randrange(7), rng.randrange(7)), rng.randrange(3), 7))
        solver = Solver(state.rules, payoff)
        plays = [a for a in state.legal_actions() if a.kind is ActionKind.PLAY]
        restricted = [a.index for a in plays] if state.meld_suit >= 0 else None
        values = solver.values(Endgame.from_state(state), restricted)
        expected = {a.index: brute_force_of_play(state, a, payoff) for a in plays}
        assert values == expected, f"{state!r} payoff {payoff}"
        best = max if (state.to_act == me) else min
        assert solver.value(Endgame.from_state(state)) == best(expected.values())
        positions += 1
    assert positions == 120


def test_solver_with_overridden_flags() -> None:
    """Flags that change the follow rule, marriages or §7's settlement: the solver reads each as
    the engine does."""
    rng = random.Random("flags")
    overrides = [{"end_without_claim": "higher_total"}, {"closer_tier_basis": "at_close"},
                 {"close_fail_three_if": "always"}, {"opponent_out_after_close": "two"},
                 {"phase2_follow": "follow_only"}, {"undeclared_66_voids_claim": True},
                 {"schwarz_test": "zero_points"}, {"marriage_in_phase2": True}]
    for flags in overrides:
        rules = profile("sixty_six").with_overrides(flags)
        for _ in range(15):
            state = random_end_position(rules, rng)
            me = rng.randrange(2)
            payoff = Payoff.game_points(me)
            plays = [a for a in state.legal_actions() if a.kind is ActionKind.PLAY]
            restricted = [a.index for a in plays] if state.meld_suit >= 0 else None
            values = Solver(rules, payoff).values(Endgame.from_state(state), restricted)
            assert values == {a.index: brute_force_of_play(state, a, payoff) for a in plays}, flags
