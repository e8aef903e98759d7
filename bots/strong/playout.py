"""A fast playout policy over the engine's states, and the value of a world after a bot's option.

While the stock is open the tree is far too big to search in Python within a decision's time (six
tricks, each with two free card choices, draws, closes and marriages). So after the move being
judged, both players continue with a cheap rule of thumb on the engine's fast path
(``legal_actions`` + ``apply_unchecked``) until the stock is closed or exhausted; from there the
exact solver (``solver.py``) plays both sides perfectly. The rule of thumb reads the world it is
given, so a player may "see" the other's hand when closing; both sides do, so the bias is shared.
"""

from __future__ import annotations

from arena.game import CLAIM, CLOSE, EXCHANGE, PASS, Action, ActionKind, DealState, Decision
from arena.game.actions import PLAY_ACTIONS
from arena.game.cards import POINTS_BY_INDEX, SUIT_MASKS, Rank
from arena.game.rules import CLAIM_TARGET
from arena.game.state import OPEN
from bots.strong.solver import Endgame, Solver

_LEAD, _FOLLOW, _AFTER = Decision.LEAD, Decision.FOLLOW, Decision.AFTER_TRICK
_PLAY, _MARRY = ActionKind.PLAY, ActionKind.MARRY
_KQ = (1 << Rank.KING) | (1 << Rank.QUEEN)
_HIGH = 10  # a led card worth this much (an ace or a ten) is worth a trump


def world_value(state: DealState, solver: Solver) -> int:
    """The value of ``state`` for the solver's seat: the playout policy until the stock is closed
    or exhausted, then exact play."""
    while True:
        if state.settlement is not None:
            s = state.settlement
            return solver.payoff.value(s.winner, s.game_points)
        decision = state.decision
        if state.stock_state != OPEN and (decision is _FOLLOW or
                                          (decision is _LEAD and state.meld_suit < 0
                                           and not _claims(state))):
            return solver.value(Endgame.from_state(state))
        state = state.apply_unchecked(policy(state))


def value_keeping_the_close(state: DealState, solver: Solver) -> int:
    """The value of ``state`` for the solver's seat when it may still close later.

    The playout policy carries play to that seat's next lead with the stock open; there it takes
    the better of closing (then exact play) and playing on. An option that leaves closing for
    later is so valued as fairly as closing now, which the bot values exactly: with the policy's
    strict rule for closing alone (only a sure 66), every option but closing now would look worse
    than it is. Only the next lead gets this care: one extra search per world and option.
    """
    me = solver.payoff.me
    while (state.settlement is None and state.stock_state == OPEN
           and not (state.decision is _LEAD and state.to_act == me and state.meld_suit < 0
                    and CLOSE in state.legal_actions())):
        state = state.apply_unchecked(policy(state))
    value = world_value(state, solver)
    if state.settlement is None and state.stock_state == OPEN:
        value = max(value, world_value(state.apply_unchecked(CLOSE), solver))
    return value


def _claims(state: DealState) -> bool:
    return CLAIM in state.legal_actions() and state.total(state.to_act) >= CLAIM_TARGET


def policy(state: DealState) -> Action:
    """The rule of thumb: claim exactly at 66, always exchange, show the best marriage, close when
    the points in hand surely reach 66, lead cheap cards, win tricks worth winning cheaply."""
    legal = state.legal_actions()
    seat = state.to_act
    if CLAIM in legal and state.total(seat) >= CLAIM_TARGET:
        return CLAIM
    decision = state.decision
    if decision is _AFTER:
        return PASS
    if EXCHANGE in legal:
        return EXCHANGE
    if decision is _FOLLOW:
        return PLAY_ACTIONS[_follow(state, seat)]
    if decision is not _LEAD:
        return PASS  # a close-exchange or between-tricks point without the exchange card
    if state.meld_suit >= 0:
        # After a marriage: lead its queen (it costs less to lose), or its king if must.
        plays = [a for a in legal if a.kind is _PLAY]
        return plays[-1]
    marriages = [a for a in legal if a.kind is _MARRY]
    if marriages:
        return max(marriages, key=lambda a: a.index == state.trump)  # 40 before 20
    if CLOSE in legal and _close_is_sure(state, seat):
        return CLOSE
    return PLAY_ACTIONS[_lead(state, seat)]


def _marriage_part(state: DealState, hand: int, card: int) -> bool:
    rank = card & 7
    if rank != Rank.KING and rank != Rank.QUEEN:
        return False
    return (hand >> (card & ~7)) & _KQ == _KQ and (state.stock_state == OPEN or
                                                   state.rules.marriage_in_phase2)


def _cost(state: DealState, hand: int, card: int) -> int:
    """How much giving ``card`` away hurts: trumps most, then marriage halves, then points; among
    equals the stronger card (lower rank index) costs more."""
    cost = POINTS_BY_INDEX[card] * 8 + (7 - (card & 7))
    if card >> 3 == state.trump:
        cost += 1000
    if _marriage_part(state, hand, card):
        cost += 500
    return cost


def _cheapest(state: DealState, hand: int, mask: int) -> int:
    best, best_cost = -1, 1 << 30
    while mask:
        low = mask & -mask
        mask ^= low
        card = low.bit_length() - 1
        cost = _cost(state, hand, card)
        if cost < best_cost:
            best, best_cost = card, cost
    return best


def _lead(state: DealState, seat: int) -> int:
    return _cheapest(state, state.hands[seat], state.hands[seat])


def _follow(state: DealState, seat: int) -> int:
    hand = state.hands[seat]
    led = state.led
    trump = state.trump
    led_suit = led >> 3
    allowed = hand  # phase 1: anything (§5.2); the policy is used in phase 1 only
    same = allowed & SUIT_MASKS[led_suit] & ((1 << led) - 1)  # same suit, higher rank
    trumps = allowed & SUIT_MASKS[trump] if led_suit != trump else 0
    # Reaching 66 with this trick: win it as cheaply as possible.
    total = state.card_points[seat] + state.melds[seat] + state.pending[seat]
    if same or trumps:
        if total + POINTS_BY_INDEX[led] + 11 >= CLAIM_TARGET:
            winner = _cheapest(state, hand, same or trumps)
            if total + POINTS_BY_INDEX[led] + POINTS_BY_INDEX[winner] >= CLAIM_TARGET:
                return winner
        if same:
            card = _cheapest(state, hand, same)
            if not _marriage_part(state, hand, card):
                return card
        if trumps and POINTS_BY_INDEX[led] >= _HIGH:
            card = _cheapest(state, hand, trumps)
            if not _marriage_part(state, hand, card):
                return card
    return _cheapest(state, hand, allowed)


def _close_is_sure(state: DealState, seat: int) -> bool:
    """Close when the player's count plus the cards that win whatever the other holds reaches 66
    (the world is fully known here, and the other may take the up-card at the close)."""
    hand = state.hands[seat]
    other = state.hands[1 - seat] | (1 << state.up if state.up >= 0 else 0)
    trump = state.trump
    other_trumps = other & SUIT_MASKS[trump]
    sure = state.card_points[seat] + state.melds[seat] + state.pending[seat]
    mask = hand
    while mask:
        low = mask & -mask
        mask ^= low
        card = low.bit_length() - 1
        suit_other = other & SUIT_MASKS[card >> 3]
        if suit_other & ((1 << card) - 1):
            continue  # he holds a higher card of the suit
        if card >> 3 != trump and not suit_other and other_trumps:
            continue  # he is void and trumps it
        sure += POINTS_BY_INDEX[card]
    return sure >= CLAIM_TARGET

