"""The strong bot's search over the last phase-1 tricks is exact: on random positions of real deals
with a few cards left in the stock it gives every option the value of a plain minimax over the
engine's own states (validating ``apply``, every legal action, no pruning), with the exact solver
(checked against the engine by test_strong_solver.py) once the stock is closed or exhausted."""

from __future__ import annotations

import random

import pytest

from arena.game import CLAIM, EXCHANGE, ActionKind, DealState, Decision, Rules, profile
from arena.game import shuffled_order
from arena.game.rules import CLAIM_TARGET
from arena.game.state import OPEN
from bots.strong.lookahead import Lookahead
from bots.strong.solver import Endgame, Payoff, Solver


def brute_force(state: DealState, solver: Solver) -> int:
    """Minimax over every legal action in phase 1, but two choices fixed as the search fixes them
    for both players: a claim the moment one may (never a wrong one), an exchange whenever one
    may. A king may be led without its marriage here: the search never does that, and this shows
    it loses nothing by it."""
    payoff = solver.payoff
    if state.is_over:
        s = state.settlement
        assert s is not None
        return payoff.value(s.winner, s.game_points)
    seat = state.to_act
    legal = state.legal_actions()
    can_claim = CLAIM in legal and state.total(seat) >= CLAIM_TARGET
    if state.stock_state != OPEN and (state.decision is Decision.FOLLOW or (
            state.decision is Decision.LEAD and state.meld_suit < 0 and not can_claim)):
        return solver.value(Endgame.from_state(state))
    if can_claim:
        return brute_force(state.apply(CLAIM), solver)
    if EXCHANGE in legal:
        return brute_force(state.apply(EXCHANGE), solver)
    values = [brute_force(state.apply(a), solver) for a in legal if a is not CLAIM]
    return max(values) if seat == payoff.me else min(values)


def random_late_position(rules: Rules, rng: random.Random, stock: int) -> DealState:
    """A deal played at random to a phase-1 lead or follow with at most ``stock`` cards left in
    the stock and the choice between several cards."""
    while True:
        state = DealState.new(rules, rng.randrange(2), shuffled_order(rules, rng.randrange(10**9), 1))
        while not state.is_over and state.stock_state == OPEN:
            legal = state.legal_actions()
            if (state.stock_size <= stock and state.decision in (Decision.LEAD, Decision.FOLLOW)
                    and state.meld_suit < 0 and EXCHANGE not in legal
                    and not (CLAIM in legal and state.total(state.to_act) >= CLAIM_TARGET)):
                return state
            choices = [a for a in legal if a is not CLAIM or state.total(state.to_act) >= CLAIM_TARGET]
            state = state.apply_unchecked(rng.choice(choices))


@pytest.mark.parametrize("rules_name", ["vu_compat", "sixty_six", "schnapsen"])
def test_lookahead_agrees_with_brute_force_on_late_phase1_positions(rules_name: str) -> None:
    rng = random.Random(f"lookahead/{rules_name}")
    rules = profile(rules_name)
    for i in range(24):
        state = random_late_position(rules, rng, stock=2 if i % 4 else 4)
        me = rng.randrange(2)
        payoff = (Payoff.game_points(me) if i % 2 else
                  Payoff.for_match(me, (rng.randrange(7), rng.randrange(7)), rng.randrange(3), 7))
        solver = Solver(rules, payoff)
        look = Lookahead(solver)
        for action in state.legal_actions():
            if action is CLAIM:
                continue
            after = state.apply(action)
            assert look.value(after) == brute_force(after, solver), f"{state!r} {action} {payoff}"
        best = max if state.to_act == me else min
        assert look.value(state) == best(brute_force(state.apply(a), solver)
                                         for a in state.legal_actions() if a is not CLAIM)


def test_one_lookahead_values_many_positions_of_its_world() -> None:
    """The tables (phase 1's and the solver's) are kept for a whole world and filled with bounds
    under ever other windows: every position two moves on from a late decision, in a shuffled
    order, through one ``Lookahead``, gets the plain minimax's value."""
    rng = random.Random("lookahead/tables")
    for rules_name in ("vu_compat", "sixty_six"):
        rules = profile(rules_name)
        for _ in range(3):
            state = random_late_position(rules, rng, stock=4)
            solver = Solver(rules, Payoff.game_points(rng.randrange(2)))
            later = []
            for action in state.legal_actions():
                if action is CLAIM:
                    continue
                after = state.apply(action)
                later.append(after)
                if not after.is_over:
                    later.extend(after.apply(a) for a in after.legal_actions() if a is not CLAIM)
            rng.shuffle(later)
            look = Lookahead(solver)
            for position in later:
                assert look.value(position) == brute_force(position, solver), f"{position!r}"


@pytest.mark.parametrize("rules_name", ["vu_compat", "schnapsen"])
def test_lookahead_agrees_with_brute_force_with_six_cards_in_the_stock(rules_name: str) -> None:
    """The last three tricks of phase 1 (``LOOKAHEAD_STOCK`` = 6): more transpositions, and the
    search hands over at the last trick's follow twice per line."""
    rng = random.Random(f"lookahead/six/{rules_name}")
    rules = profile(rules_name)
    state = random_late_position(rules, rng, stock=6)
    while state.stock_size != 6:
        state = random_late_position(rules, rng, stock=6)
    solver = Solver(rules, Payoff.game_points(state.to_act))
    # The reference's endgames through a table of their own: it values each at a full window,
    # where a table changes no value, only the time.
    reference = Solver(rules, solver.payoff, keep_table=True)
    look = Lookahead(solver)
    for action in state.legal_actions():
        if action is not CLAIM:
            after = state.apply(action)
            assert look.value(after) == brute_force(after, reference), f"{state!r} {action}"


def test_a_window_gives_a_true_bound() -> None:
    """Regression: searched in narrow windows, one after another through the same ``Lookahead``
    (its table then holds the bounds of the earlier ones), a close's value came out at most 1
    where the exact one was 2: the solver's closing lead, which may show a marriage and so is
    searched move by move, went on past a cut-off with the window turned inside out, and the best
    of what came back was no bound at all. Fail-soft, a value below the window must bound the
    exact one from above, above it from below, and inside it be the exact one."""
    rng = random.Random("lookahead/windows")
    rules = profile("sixty_six")
    for _ in range(30):
        state = random_late_position(rules, rng, stock=4)
        solver = Solver(rules, Payoff.game_points(state.to_act))
        look = Lookahead(solver)
        for action in state.legal_actions():
            if action is CLAIM:
                continue
            after = state.apply(action)
            exact = Lookahead(solver).value(after)
            for alpha in range(exact - 2, exact + 2):
                got = look.value(after, alpha, alpha + 1)
                where = f"{state!r} {action} window ({alpha}, {alpha + 1})"
                if got <= alpha:
                    assert exact <= got, where
                elif got >= alpha + 1:
                    assert exact >= got, where


def test_lookahead_prunes() -> None:
    """Fewer phase-1 positions than a plain minimax visits: alpha-beta pays."""
    rng = random.Random("lookahead/nodes")
    rules = profile("vu_compat")
    state = random_late_position(rules, rng, stock=4)
    look = Lookahead(Solver(rules, Payoff.game_points(state.to_act)))
    look.value(state)
    plays = [a for a in state.legal_actions() if a.kind is ActionKind.PLAY]
    assert 0 < look.nodes < len(plays) ** 4


class Counted:
    """Counts the worlds the strong bot searched (``Lookahead`` built: one per world)."""

    def __init__(self) -> None:
        self.built = 0

    def __call__(self, solver: Solver) -> Lookahead:
        self.built += 1
        return Lookahead(solver)


@pytest.mark.parametrize("affordable", [True, False])
def test_worlds_are_searched_only_while_the_budget_holds_enough_of_them(affordable, monkeypatch):
    """With a generous budget every world of a late phase-1 decision is searched; when fewer than
    ``SEARCHED_WORLDS_MIN`` searched worlds would fit in the budget, only the first is, and the
    rest are played out (more worlds are still drawn)."""
    from bots.greedy_bot import GreedyBot
    from bots.strong import bot as strong
    from protocol_driver import play

    counted = Counted()
    monkeypatch.setattr(strong, "Lookahead", counted)
    monkeypatch.setattr(strong, "SEARCHED_WORLDS_MIN", 1 if affordable else 10 ** 9)
    worlds: list[int] = []
    real_choose = strong.choose

    def choose(*args, **kwargs):  # type: ignore[no-untyped-def]
        picked = real_choose(*args, **kwargs)
        worlds.append(picked.worlds)
        return picked
    monkeypatch.setattr(strong, "choose", choose)

    bot = strong.StrongBot(budget_ms=5000, max_worlds=6, seed="look")
    late: list[int] = []  # per decision with the stock at 4 or fewer: worlds searched, drawn

    real_open = bot._open_stock

    def open_stock(view, legal, budget):  # type: ignore[no-untyped-def]
        before, drawn = counted.built, len(worlds)
        action = real_open(view, legal, budget)
        if view.stock_size <= strong.LOOKAHEAD_STOCK and len(worlds) > drawn:
            late.append(counted.built - before)
            late.append(worlds[-1])
        return action
    monkeypatch.setattr(bot, "_open_stock", open_stock)
    play(profile("schnapsen"), (bot, GreedyBot()), seed=5, match_id="look")
    searched, drawn = late[0::2], late[1::2]
    assert len(searched) > 3
    if affordable:
        assert searched == drawn  # every world drawn was searched
    else:
        assert all(s == 1 for s in searched) and max(drawn) > 1
