"""The strong bot with three or four players (RULES.md §10): determinized sampling and playouts.

The two-player strong bot (``bot.py``, ``planner.py``, ...) is untouched; with more seats it plays
this way instead:

1. **Sample** a whole deal consistent with everything the seat saw (``sample_world``): its own hand
   and draws, the up-card, every card played and who played it, shown marriages and exchanges, the
   draw order of phase 1 (a card a seat played after round ``r`` came from its hand or its first
   ``r`` draws), the voids and "could not beat" facts of phase 2, and with four players the two
   copies of every card. The dead pile of three players is unseen and sampled like the stock. The
   sample is then checked by replaying the deal's public history on the engine: a world in which
   some seat's past play would have been illegal is thrown away.
2. **Play out** every candidate card in each world with a fast greedy policy for every seat
   (``rollout_choice``, on the engine's ``DealState``), and score the end of the deal for the side:
   game points won minus the opponents', card points as a small tie-break.
3. Play the card with the best average. Claims, exchanges and marriages are not searched: a claim
   is made exactly when the side's count reaches the target (never below), the exchange and the
   marriage are always taken.

The work per decision is bounded by a number of worlds (``Budget.worlds``) and by time (a share of
``decision_ms``); the benchmark fixes the number so that its result does not depend on machine load.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from arena.game import CLAIM, EXCHANGE, PASS, Action, ActionKind, Card, Decision, Rules
from arena.game.cards import CARDS, RANK_POINTS
from arena.game.errors import IllegalActionError
from arena.game.rules import DealPattern
from arena.game.state import DealState
from bots.nseat import SeatKnowledge, greedy_choice

TIME_SHARE = 0.4
"""Share of ``decision_ms`` the search may use: the rest is margin for start-up, the pipe and a
loaded machine (as the two-player bot's planner)."""


@dataclass(frozen=True)
class Budget:
    worlds: int = 24        # sampled deals per decision
    seconds: float = 10.0   # and no more time than this

    @staticmethod
    def for_decision_ms(decision_ms: int) -> Budget:
        return Budget(worlds=64, seconds=max(0.005, decision_ms * TIME_SHARE / 1000))


# -- where every card of a deal is dealt (RULES.md §10.4) -------------------------------------------


@dataclass(frozen=True)
class Layout:
    hands: tuple[tuple[int, ...], ...]  # per seat: positions in the pack order
    dead: tuple[int, ...]
    up: int
    stock: tuple[int, ...]              # the hidden stock, top first


def layout_positions(rules: Rules, dealer: int) -> Layout:
    """RULES.md §10.4: 3 cards to each seat clockwise from the dealer's left, then 4 to each; then
    the dead pile (three players), the up-card and the stock. ``arena.game.dealing.deal_layout``
    applies the same map to cards; this one names the positions (tested against it)."""
    if rules.deal_pattern is not DealPattern.THREE_FOUR:
        raise ValueError("only the three- and four-player deal is laid out here")
    n = rules.players
    hands = []
    for seat in range(n):
        k = (seat - dealer - 1) % n
        hands.append(tuple(range(3 * k, 3 * k + 3)) + tuple(range(3 * n + 4 * k, 3 * n + 4 * k + 4)))
    dealt = n * rules.hand_size
    up = dealt + rules.dead_size
    return Layout(tuple(hands), tuple(range(dealt, up)), up, tuple(range(up + 1, rules.deck_size)))


# -- sampling the hidden cards ----------------------------------------------------------------------


def _allowed(card: Card, rules: Sequence[tuple[object, int]]) -> bool:
    for suit, below in rules:
        if card.suit is suit and int(card.rank) < below:
            return False
    return True


def sample_order(k: SeatKnowledge, rng: random.Random) -> list[Card] | None:
    """A pack order consistent with what ``k.seat`` saw, or None when this try failed (the
    caller tries again). Replaying the history on it is the final check (``sample_world``)."""
    rules = k.rules
    layout = layout_positions(rules, k.dealer)
    assert k.first_upcard is not None
    order: list[Card | None] = [None] * rules.deck_size
    order[layout.up] = k.first_upcard
    pool = Counter(rules.pack.cards)
    pool[k.first_upcard] -= 1
    for pos, card in zip(layout.hands[k.seat], k.initial_hand):
        order[pos] = card
        pool[card] -= 1
    slots: dict[int, list[tuple[int, int]]] = {s: [(p, 0) for p in layout.hands[s]]
                                               for s in range(k.players) if s != k.seat}
    undrawn = set(layout.stock)
    for draw in k.draws:
        if draw.position < 0:
            continue  # the up slot: its card is fixed above
        pos = layout.stock[draw.position]
        undrawn.discard(pos)
        if draw.seat == k.seat:
            assert draw.card is not None
            order[pos] = draw.card
            pool[draw.card] -= 1
        else:
            slots[draw.seat].append((pos, draw.round))
    if any(v < 0 for v in pool.values()):
        return None
    # Cards each seat is known to have held go to slots it could have had them from: the hand
    # dealt, or a draw before the moment it showed them. Earliest first: their choices are nested.
    for seat, free in slots.items():
        for held in sorted(k.held[seat], key=lambda h: h.rounds):
            choices = [i for i, (_, r) in enumerate(free) if r <= held.rounds]
            if not choices or pool[held.card] <= 0:
                return None
            pos, _ = free.pop(rng.choice(choices))
            order[pos] = held.card
            pool[held.card] -= 1
    # The rest: the seats' unknown cards (which must respect what phase 2 showed of their hands),
    # then the dead pile and the stock not yet drawn.
    rest = list(pool.elements())
    rng.shuffle(rest)
    constrained = sorted(slots, key=lambda s: -len(k.forbidden[s]))
    for seat in constrained:
        rules_of_seat = k.forbidden[seat]
        for pos, _ in slots[seat]:
            for i, card in enumerate(rest):
                if _allowed(card, rules_of_seat):
                    order[pos] = rest.pop(i)
                    break
            else:
                return None
    for pos in sorted(undrawn) + list(layout.dead):
        order[pos] = rest.pop()
    if rest or any(c is None for c in order):
        return None
    return [c for c in order if c is not None]


def replay(rules: Rules, dealer: int, order: Sequence[Card], history: Sequence[Action]) -> DealState:
    """The deal dealt from ``order`` after the public ``history``; the claim passes the protocol
    does not show (an ``after_trick?`` answered ``pass``) are put back. Raises IllegalActionError
    when a past action is illegal in this world."""
    state = DealState.new(rules, dealer, order)
    for action in history:
        if state.decision is Decision.AFTER_TRICK and action is not CLAIM:
            state = state.apply(PASS)
        state = state.apply(action)
    return state


def sample_world(k: SeatKnowledge, rng: random.Random, tries: int = 20,
                 at_window: bool = False) -> DealState | None:
    """A deal state consistent with what ``k.seat`` saw, or None after ``tries`` failures. Unless
    ``at_window`` (the seat is answering ``after_trick?``), a claim window the history ends in was
    passed: the world moves on past it (the draws of phase 1 come after it)."""
    for _ in range(tries):
        order = sample_order(k, rng)
        if order is None:
            continue
        try:
            world = replay(k.rules, k.dealer, order, k.history)
        except IllegalActionError:
            continue
        if world.decision is Decision.AFTER_TRICK and not at_window:
            world = world.apply(PASS)
        return world
    return None


# -- the playout policy -----------------------------------------------------------------------------


def rollout_choice(state: DealState) -> Action:
    """A greedy move for whoever acts, straight from the engine state (fast: no knowledge kept).
    Inside a sampled world the side's total is what the seat would count, so claims are exact."""
    legal = state.legal_actions()
    if len(legal) == 1:
        return legal[0]
    rules = state.rules
    seat = state.to_act
    if CLAIM in legal and state.total(rules.side_of[seat]) >= rules.claim_target:
        return CLAIM
    if EXCHANGE in legal:
        return EXCHANGE
    trump = state.trump
    plays = []
    for a in legal:
        kind = a.kind
        if kind is ActionKind.MARRY:
            if a.suit == trump:
                return a
            plays.append(a)  # kept first: a plain marriage if no trump one follows
        elif kind is ActionKind.PLAY:
            plays.append(a)
    if plays and plays[0].kind is ActionKind.MARRY:
        return plays[0]
    if not plays:
        return PASS if PASS in legal else legal[0]
    if state.led < 0:
        if state.stock_state == 0:
            # Phase 1: lead the cheapest plain card.
            return min(plays, key=lambda a: _lead_cost(a.card, trump))  # type: ignore[arg-type]
        # Phase 2: cash the strongest card (aces and trumps first).
        return min(plays, key=lambda a: (a.card.index & 7, a.card.index >> 3 != trump))  # type: ignore[union-attr]
    best = state.best
    best_side = rules.side_of[state.best_seat]
    mine = rules.side_of[seat]
    last = len(state.table) == rules.players - 1
    if best_side == mine:
        if last:
            return max(plays, key=lambda a: (a.card.index >> 3 != trump,  # type: ignore[union-attr]
                                             RANK_POINTS[a.card.index & 7]))  # type: ignore[union-attr]
        return min(plays, key=lambda a: _lead_cost(a.card, trump))  # type: ignore[arg-type]
    best_suit = best >> 3
    winning = []
    for a in plays:
        c = a.card.index  # type: ignore[union-attr]
        if (c < best) if c >> 3 == best_suit else (c >> 3 == trump):
            winning.append(a)
    if winning:
        pick = min(winning, key=lambda a: (a.card.index >> 3 == trump,  # type: ignore[union-attr]
                                           -(a.card.index & 7)))  # type: ignore[union-attr]
        card = pick.card.index  # type: ignore[union-attr]
        table_points = sum(c.points for c in state.table)
        if card >> 3 != trump or best_suit == trump or table_points >= 10 or state.stock_state != 0:
            return pick
    return min(plays, key=lambda a: _lead_cost(a.card, trump))  # type: ignore[arg-type]


def _lead_cost(card: Card, trump: int) -> tuple[bool, int, int]:
    return (card.index >> 3 == trump, RANK_POINTS[card.index & 7], -(card.index & 7))


def playout_value(state: DealState, side: int) -> float:
    """Play ``state`` to the end of the deal with ``rollout_choice`` for every seat; the side's
    game points minus the opponents' average, card points as a tie-break."""
    while not state.is_over:
        state = state.apply_unchecked(rollout_choice(state))
    settlement = state.settlement
    assert settlement is not None
    awards = settlement.awards
    totals = settlement.totals
    others = len(awards) - 1
    theirs = (sum(awards) - awards[side]) / others
    their_points = (sum(totals) - totals[side]) / others
    return awards[side] - theirs + (totals[side] - their_points) / 1000


# -- the decision -----------------------------------------------------------------------------------


def decide(k: SeatKnowledge, legal: Sequence[Action], rng: random.Random, budget: Budget) -> Action:
    """The strong bot's choice with three or four players."""
    if CLAIM in legal and k.my_points() >= k.target:
        return CLAIM  # the count is exact: claim the moment it reaches the target (§10.2, §10.3)
    if EXCHANGE in legal or any(a.kind is ActionKind.MARRY for a in legal):
        return greedy_choice(k, legal)
    plays = list(dict.fromkeys(a for a in legal if a.kind is ActionKind.PLAY))
    if len(plays) <= 1:
        return plays[0] if plays else (PASS if PASS in legal else greedy_choice(k, legal))
    deadline = time.monotonic() + budget.seconds
    totals = [0.0] * len(plays)
    worlds = 0
    slowest = 0.0  # the longest world so far: one is not begun unless that much time is left
    while worlds < budget.worlds and (worlds == 0 or time.monotonic() + slowest < deadline):
        started = time.monotonic()
        world = sample_world(k, rng)
        if world is None:
            break
        assert world.to_act == k.seat, "the sampled world disagrees about whose turn it is"
        worlds += 1
        for i, action in enumerate(plays):
            totals[i] += playout_value(world.apply_unchecked(action), k.side)
        slowest = max(slowest, time.monotonic() - started)
    if worlds == 0:
        return greedy_choice(k, legal)  # no consistent world found: play the heuristic
    return plays[max(range(len(plays)), key=lambda i: totals[i])]


class NSeatPlanner:
    """Per-match state of the N-seat strong strategy: its generator and budget."""

    def __init__(self, seed: str | int, budget: Budget):
        self.rng = random.Random(seed)
        self.budget = budget

    def decide(self, k: SeatKnowledge, legal: Sequence[Action]) -> Action:
        return decide(k, legal, self.rng, self.budget)


__all__ = ["Budget", "Layout", "NSeatPlanner", "decide", "layout_positions", "playout_value",
           "replay", "rollout_choice", "sample_order", "sample_world", "CARDS"]
