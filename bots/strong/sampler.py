"""Determinization: whole deals consistent with everything the bot has seen (``knowledge.py``).

The cards the bot cannot place (``BotView.unseen``) are split at random between the opponent's hand
and the stock. Each split is a *world*: a full-information deal in which the bot's options can be
searched exactly. Every world agrees with all public facts: the bot's own cards, every card played,
the marriages shown (their unplayed cards are in his hand), the up-card taken or drawn, and, once
the stock is closed, the suits and cards the follow rules (§6) showed he does not hold.

- While the stock is open a world is a ``DealState``, the engine's own, rebuilt by dealing a pack
  order that fits the world and replaying the deal's actions through the engine. The order gives
  the opponent each card before he first played, showed or exchanged it (sorting his private cards
  by first use does that whenever any order can), so the replay is the real history, and the
  searches that follow run on the engine's fast path (``apply_unchecked``).
- Once the stock is closed or exhausted a world is a solver ``Endgame``: nothing is drawn any more,
  only the two hands matter. After exhaustion there is exactly one world.
"""

from __future__ import annotations

import random

from arena.game import PASS, Card, DealState, Decision, IllegalActionError
from arena.game.cards import CARDS, indices_of_mask
from arena.game.rules import DealPattern, Rules
from bots.strong.knowledge import NEVER, Knowledge
from bots.strong.solver import Endgame
from protocol import BotView, StockState, Who


class WorldError(RuntimeError):
    """The bot's knowledge does not fit any deal: a bug in the bot, never the referee's doing."""


def _mask(cards: frozenset[Card] | tuple[Card, ...]) -> int:
    mask = 0
    for card in cards:
        mask |= card.bit
    return mask


class Sampler:
    """Draws worlds for the decision at hand. Build one per decision (what is known is fixed)."""

    def __init__(self, view: BotView, know: Knowledge, rng: random.Random):
        self.view = view
        self.know = know
        self.rng = rng
        self.rules: Rules = know.rules
        self.me = know.me
        self.hidden = know.opp_hidden_count(view)
        self.opp_known = _mask(view.opp_known)
        self.my_hand = _mask(view.hand)
        self.unseen = sorted(c.index for c in view.unseen)
        # Cards he may hold: unseen, and not ruled out by his phase-2 follows.
        self.allowed = [i for i in self.unseen if not (know.opp_excluded >> i) & 1]
        if len(self.unseen) < self.hidden:
            raise WorldError(f"{self.hidden} unknown opponent cards but only {len(self.unseen)} "
                             "unseen cards")

    # -- phase 2 ------------------------------------------------------------------------------------

    def endgame(self, meld_now: bool = False, opp_cards: list[int] | None = None) -> Endgame:
        """A phase-2 world at the bot's current decision (a lead, or a follow to the opponent's
        card). ``meld_now``: the request offers a marriage on this lead (the closing lead).
        ``opp_cards`` fixes the opponent's unknown cards instead of sampling them (tests)."""
        view, know = self.view, self.know
        if opp_cards is None:
            allowed = self.allowed
            if len(allowed) < self.hidden:
                raise WorldError(f"the opponent holds {self.hidden} unknown cards but only "
                                 f"{len(allowed)} cards fit what he showed")
            opp_cards = self.rng.sample(allowed, self.hidden)
        opp_hand = self.opp_known
        for i in opp_cards:
            opp_hand |= 1 << i
        me = self.me
        hands = (self.my_hand, opp_hand) if me == 0 else (opp_hand, self.my_hand)
        totals = _seats(me, view.my_points(), view.opp_points_known())
        pending = _seats(me, view.pending_marriage_points(Who.ME),
                         view.pending_marriage_points(Who.OPP))
        tricks = _seats(me, *view.tricks_won)
        leader = know.seat_of(view.leader) if view.leader is not None else me
        led = view.led.index if view.led is not None and view.leader is Who.OPP else -1
        close = know.close
        return Endgame(
            trump=int(view.trump) if view.trump is not None else 0, hands=hands, totals=totals,
            pending=pending, tricks=tricks, leader=leader, led=led,
            exhausted=view.stock_state is StockState.EXHAUSTED,
            closer=close.closer if close else -1,
            snap_closer_tricks=close.closer_tricks if close else 0,
            snap_opp_tricks=close.opp_tricks if close else 0,
            snap_opp_total=close.opp_total if close else 0,
            meld_now=meld_now, meld_done=know.my_meld_suit >= 0)

    # -- phase 1 ------------------------------------------------------------------------------------

    def deal(self, checked: bool = False, opp_cards: list[int] | None = None,
             stock_rest: list[int] | None = None) -> DealState:
        """A phase-1 world as the engine's state at the bot's current decision.

        ``opp_cards`` and ``stock_rest`` (the opponent's unknown cards, and the stock still to be
        drawn, top first, without its bottom card) fix the world instead of sampling it: the tests
        pass the true cards and compare the result with the referee's state. ``checked`` replays
        with the engine's validating ``apply``.
        """
        know, rules = self.know, self.rules
        if opp_cards is None:
            pool = list(self.unseen)
            self.rng.shuffle(pool)
            opp_cards, stock_rest = pool[:self.hidden], pool[self.hidden:]
        assert stock_rest is not None
        # His privately received cards, ordered by the moment he first needed each: the earliest
        # ones were dealt to him, the later ones fill his face-down draws in turn.
        private = sorted(know.opp_first_use.items(), key=lambda item: item[1])
        private += [(card, NEVER) for card in opp_cards]
        hand_size = rules.hand_size
        draws = len(know.opp_draw_times)
        if len(private) != hand_size + draws:
            raise WorldError(f"the opponent received {len(private)} cards privately, expected "
                             f"{hand_size} dealt + {draws} drawn face down")
        opp_initial = [card for card, _ in private[:hand_size]]
        opp_drawn = iter(private[hand_size:])
        stock: list[int] = []
        for seat, card in know.stock_slots:
            if seat == self.me:
                stock.append(card)
            else:
                drawn, _ = next(opp_drawn)
                stock.append(drawn)
        stock += stock_rest
        up = know.upcard
        assert up is not None
        mine = list(indices_of_mask(know.initial_hand))
        nondealer, dealer = (opp_initial, mine) if know.dealer == self.me else (mine, opp_initial)
        order = _pack_order(rules, nondealer, dealer, up.index, stock)
        state = DealState.new(rules, know.dealer, [CARDS[i] for i in order])
        return self._replay(state, checked)

    def _replay(self, state: DealState, checked: bool) -> DealState:
        me = self.me
        try:
            for step in self.know.transcript:
                while not (state.to_act == step.seat and state.decision is step.decision):
                    state = self._opp_pass(state, checked)
                state = state.apply(step.action) if checked else state.apply_unchecked(step.action)
            while state.to_act != me:
                state = self._opp_pass(state, checked)
        except IllegalActionError as err:
            raise WorldError(f"replaying the deal failed: {err}") from err
        request = self.view.decision
        if request is not None and state.decision.text != request:
            raise WorldError(f"replayed to {state.decision.text}, but the request is {request}")
        return state

    def _opp_pass(self, state: DealState, checked: bool) -> DealState:
        """The opponent's turn at a point where he did nothing visible: he passed."""
        if state.to_act == self.me or state.decision in (Decision.LEAD, Decision.FOLLOW,
                                                         Decision.OVER):
            raise WorldError(f"the replay is at {state.decision.text} for seat {state.to_act}, "
                             "which the deal's events do not explain")
        return state.apply(PASS) if checked else state.apply_unchecked(PASS)


def _seats(me: int, mine: int, theirs: int) -> tuple[int, int]:
    return (mine, theirs) if me == 0 else (theirs, mine)


def _pack_order(rules: Rules, nondealer: list[int], dealer: list[int], up: int,
                stock: list[int]) -> list[int]:
    """A pack order that ``dealing.deal_layout`` deals into these hands, up-card and stock (the
    inverse of RULES.md §2.4's mapping, for each deal pattern)."""
    pattern = rules.deal_pattern
    n, d = list(nondealer), list(dealer)
    if pattern is DealPattern.THREE_THREE:
        return n[:3] + d[:3] + n[3:] + d[3:] + [up] + stock
    if pattern is DealPattern.THREE_UP_TWO:
        return n[:3] + d[:3] + [up] + n[3:] + d[3:] + stock
    alternate = [card for pair in zip(n, d) for card in pair]  # vu_alternate: singles, up-card last
    return alternate + stock + [up]
