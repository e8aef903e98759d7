"""The strong bot with three or four players (RULES.md §10): determinized sampling and playouts.

The two-player strong bot (``bot.py``, ``planner.py``, ...) is untouched; with more seats it plays
this way instead:

1. **Sample** a whole deal consistent with everything the seat saw (``sample_world``): its own hand
   and draws, the up-card, every card played and who played it, shown marriages and exchanges, the
   draw order of phase 1 (a card a seat played after round ``r`` came from its hand or its first
   ``r`` draws), the voids and "could not beat" facts of phase 2, and with four players the two
   copies of every card. The dead pile of three players is unseen and sampled like the stock. The
   sample is then checked by replaying the deal's public history on the engine: a world in which
   some seat's past play would have been illegal is thrown away. **Inference from the play**
   (``likely_world``): on that replay, each card an opponent played where the greedy strategy
   (``greedy_card``, the model of the opponents; a partner is most often this bot, and left out)
   would have played another is a miss; a world is kept with probability ``MISS_WEIGHT`` per miss,
   else another is drawn (``MODEL_TRIES`` in all, then the one with the fewest misses). A seat
   that plays greedily thus shows what it holds: a low lead says it has no lower plain card, a duck
   says it had no cheap winner.
2. **Play out** every candidate card in each world with the greedy strategy for every seat
   (``greedy_rollout_choice``: ``greedy_card``, the bundled greedy bot's card read off the engine's
   ``DealState``, and ``rollout_choice`` for claims, the exchange and marriages), and score the end
   of the deal for the side: game points won minus the opponents', card points as a small
   tie-break.
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
from arena.game.cards import CARDS, LOW_MASK, NUM_CARD_INDICES, RANK_POINTS, beats
from arena.game.errors import IllegalActionError
from arena.game.rules import DealPattern
from arena.game.state import DealState
from bots.nseat import HIGH_TRICK_POINTS, SeatKnowledge, greedy_choice


@dataclass(frozen=True)
class Budget:
    """What one decision may spend; the caller (``StrongBot``, ``bench_nseat.py``) sets the
    seconds from the limit the referee announced, as for two players (``BUDGET_FRACTION``)."""
    worlds: int = 24        # sampled deals per decision
    seconds: float = 10.0   # and no more time than this


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


def greedy_rollout_choice(state: DealState) -> Action:
    """The greedy strategy itself in a playout: ``greedy_card`` at the trick decisions,
    ``rollout_choice`` for the rest (claims, the exchange, marriages, the claim window)."""
    if state.decision is Decision.LEAD or state.decision is Decision.FOLLOW:
        card = greedy_card(state)
        if card is not None:
            return Action.play(card)
    return rollout_choice(state)


def playout_value(state: DealState, side: int) -> float:
    """Play ``state`` to the end of the deal with ``greedy_rollout_choice`` for every seat; the side's
    game points minus the opponents' average, card points as a tie-break."""
    while not state.is_over:
        state = state.apply_unchecked(greedy_rollout_choice(state))
    settlement = state.settlement
    assert settlement is not None
    awards = settlement.awards
    totals = settlement.totals
    others = len(awards) - 1
    theirs = (sum(awards) - awards[side]) / others
    their_points = (sum(totals) - totals[side]) / others
    return awards[side] - theirs + (totals[side] - their_points) / 1000


# -- what the other seats' play says about their hands -------------------------------------------


def _unseen_mask(state: DealState, seat: int) -> int:
    """The cards ``seat`` cannot see in ``state`` (any copy): the other hands, the dead pile and
    the face-down stock; what the greedy strategy calls unseen (``SeatKnowledge.unseen``)."""
    mask = state.dead
    for other, hand in enumerate(state.hands):
        if other != seat:
            mask |= hand
    for index in state.stock[state.drawn:]:
        mask |= 1 << index
    return (mask | (mask >> NUM_CARD_INDICES)) & LOW_MASK


def _is_top(card: int, unseen: int, trump: int) -> bool:
    """``SeatKnowledge.is_top`` on the world: no unseen card beats ``card`` led now."""
    suit, rank = card >> 3, card & 7
    if (unseen >> (suit * 8)) & ((1 << rank) - 1):
        return False
    return suit == trump or not (unseen >> (trump * 8)) & 0xFF


def greedy_card(state: DealState) -> Card | None:
    """The card ``bots.nseat.greedy_choice`` would play at ``state``'s trick decision, computed on
    the world (what the seat would know is read off it: its hand, the table, the counts, the cards
    it cannot see). None where the greedy choice is not a card (a claim, exchange or marriage
    comes first there). The model of the other seats for inference (``model_misses``) and every
    seat's policy in the playouts: hot, so it works on card indices (suit = index >> 3, rank =
    index & 7, 0 the strongest)."""
    legal = state.legal_actions()
    rules = state.rules
    seat = state.to_act
    cards = []
    for a in legal:
        kind = a.kind
        if kind is ActionKind.PLAY:
            cards.append(a.card.index)  # type: ignore[union-attr]
        elif kind is ActionKind.MARRY or kind is ActionKind.EXCHANGE:
            return None
        elif kind is ActionKind.CLAIM and state.total(rules.side_of[seat]) >= rules.claim_target:
            return None
    if not cards:
        return None
    trump = state.trump
    phase2 = state.stock_state != 0
    held = state.hands[seat]
    held = (held | (held >> NUM_CARD_INDICES)) & LOW_MASK

    def marriage_part(c: int) -> bool:
        # A king (rank 2) or queen (3) whose other half is in the hand, in phase 1.
        rank = c & 7
        return not phase2 and (rank == 2 or rank == 3) and bool(held >> (c ^ 1) & 1)

    def cost(c: int) -> tuple[bool, bool, int, int]:
        return (c >> 3 == trump, marriage_part(c), RANK_POINTS[c & 7], -(c & 7))

    unseen = _unseen_mask(state, seat)
    if state.led < 0:
        if phase2:
            tops = [c for c in cards if _is_top(c, unseen, trump)]
            if tops:
                return CARDS[max(tops, key=lambda c: (RANK_POINTS[c & 7], c >> 3 != trump))]
        plain = [c for c in cards if c >> 3 != trump and not marriage_part(c)]
        return CARDS[min(plain or cards, key=cost)]
    best, best_seat = state.best, state.best_seat
    last = len(state.table) == rules.players - 1
    partner = rules.partner(seat)
    partner_wins = partner is not None and best_seat == partner
    if partner_wins and (last or _is_top(best, unseen, trump)):
        return CARDS[max(cards, key=lambda c: (c >> 3 != trump, RANK_POINTS[c & 7], c & 7))]
    winning = [c for c in cards if beats(c, best, trump)]
    best_trump = best >> 3 == trump
    if winning and not partner_wins:
        table_points = sum(c.points for c in state.table)
        cheapest = min(winning, key=lambda c: (c >> 3 == trump and not best_trump,
                                               marriage_part(c), -(c & 7)))
        in_suit = cheapest >> 3 != trump
        points = RANK_POINTS[cheapest & 7]
        if last or phase2 or _is_top(cheapest, unseen, trump):
            if in_suit or best_trump or table_points >= HIGH_TRICK_POINTS or phase2 or \
                    state.total(rules.side_of[seat]) + table_points + points >= rules.claim_target:
                return CARDS[cheapest]
        elif in_suit and points < HIGH_TRICK_POINTS:
            return CARDS[cheapest]
    return CARDS[min(cards, key=cost)]


MODEL_TRIES = 4
"""Candidate worlds drawn for each world kept (``likely_world``)."""
MISS_WEIGHT = 0.1
"""The chance a world keeps per past card another seat played that the greedy strategy would not
have played in it: the model is soft, since the other seats need not play greedily."""


def model_misses(rules: Rules, dealer: int, order: Sequence[Card], history: Sequence[Action],
                 me: int, seats: Sequence[int] | None = None) -> tuple[DealState, int]:
    """``replay``, counting the cards the other seats (``seats``; default all but ``me``) played
    where ``greedy_card`` would have played another. Raises IllegalActionError as ``replay``."""
    state = DealState.new(rules, dealer, order)
    misses = 0
    for action in history:
        if state.decision is Decision.AFTER_TRICK and action is not CLAIM:
            state = state.apply(PASS)
        seat = state.to_act
        if action.kind is ActionKind.PLAY and seat != me and (seats is None or seat in seats) \
                and state.meld_suit < 0:
            if sum(a.kind is ActionKind.PLAY for a in state.legal_actions()) > 1:
                model = greedy_card(state)
                misses += model is not None and model != action.card
        state = state.apply(action)
    return state, misses


def likely_world(k: SeatKnowledge, rng: random.Random, at_window: bool = False,
                 tries: int = MODEL_TRIES, miss_weight: float = MISS_WEIGHT,
                 seats: Sequence[int] | None = None) -> DealState | None:
    """A world drawn as ``sample_world`` draws one, then kept with probability ``miss_weight`` to
    the power of its ``model_misses`` (rejection sampling: worlds in which the other seats' play
    looks like what they would have done are kept more often); after ``tries`` candidates none
    kept, the one with the fewest misses. None when no consistent world was found."""
    best: DealState | None = None
    fewest = -1
    for _ in range(tries):
        for _ in range(20):
            order = sample_order(k, rng)
            if order is None:
                continue
            try:
                world, misses = model_misses(k.rules, k.dealer, order, k.history, k.seat, seats)
            except IllegalActionError:
                continue
            break
        else:
            break
        if world.decision is Decision.AFTER_TRICK and not at_window:
            world = world.apply(PASS)
        if misses == 0 or rng.random() < miss_weight ** misses:
            return world
        if best is None or misses < fewest:
            best, fewest = world, misses
    return best


# -- the decision -----------------------------------------------------------------------------------


def _modelled(k: SeatKnowledge) -> list[int]:
    """The seats whose play ``likely_world`` reads with the greedy model: the opponents. A partner
    is left out: with four players it is most often this bot too, whose searched cards the greedy
    model calls misses (the strong pair took 0.740 of 8 deal sets' game points so, 0.673 with the
    partner modelled)."""
    partner = k.partner
    return [s for s in range(k.players) if s != k.seat and s != partner]


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
        world = likely_world(k, rng, seats=_modelled(k))
        if world is None:
            break
        assert world.to_act == k.seat, "the sampled world disagrees about whose turn it is"
        values = []
        for action in plays:
            if worlds and time.monotonic() > deadline:
                break
            values.append(playout_value(world.apply_unchecked(action), k.side))
        if len(values) < len(plays):
            break  # a loaded machine: this world is dropped rather than the limit overrun
        worlds += 1
        for i, value in enumerate(values):
            totals[i] += value
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


__all__ = ["Budget", "Layout", "NSeatPlanner", "decide", "greedy_card", "greedy_rollout_choice",
           "layout_positions", "likely_world", "model_misses", "playout_value", "replay",
           "rollout_choice", "sample_order", "sample_world", "CARDS"]
