"""What the strong bot knows about the current deal, beyond the SDK's ``BotView``.

``BotView`` already keeps the hand, the cards seen, who won what, the marriages shown and the mental
count. A search needs three more things, all kept here from the same messages:

- **The deal's history as actions** (``transcript``), so a sampled world can be replayed through the
  engine from a pack order (``sampler.py``): every action of both seats but the opponent's passes,
  which are not announced and which the replay infers. Each entry names the decision point it was
  taken at, read off the event order (a close right after a trick came before the draw, §4).
- **When the opponent first used each card he got privately** (dealt, or drawn face down), and
  when he drew face down: a replayed world must give him every card before he plays, shows or
  exchanges it.
- **What he cannot hold** (``opp_excluded``): once the stock is closed nothing is drawn any more,
  so a card he did not play when the follow rules (§6) made him play it stays out of his hand for
  the rest of the deal. (After the stock is exhausted his hand is known exactly anyway.)

Seats are the engine's (0 and 1), so a replayed world is the referee's own ``DealState`` when the
sampled cards happen to be the true ones (the tests check exactly that).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.game import CLAIM, CLOSE, EXCHANGE, Action, Card, Decision, Rank, Rules
from arena.game.cards import SUIT_MASKS
from arena.game.rules import Phase2Follow
from protocol import (Claim, Close, Draw, Event, Exchange, Marriage, Played, StockState,
                      Trick, Who)
from protocol.view import BotView

NEVER = 1 << 30
"""First-use time of a card still in the opponent's hand (after every event)."""

_DECISIONS = {d.text: d for d in Decision}


@dataclass(frozen=True)
class CloseFigures:
    """The close snapshot (RULES.md §3), as the bot saw it at the ``close`` event."""

    closer: int
    closer_tricks: int
    opp_tricks: int
    opp_total: int


@dataclass
class Step:
    """One action of the deal, at the decision point where it was taken."""

    seat: int
    decision: Decision
    action: Action


@dataclass
class Knowledge:
    """The current deal as this bot knows it. ``start`` at each ``deal`` line, then ``event`` for
    every event and ``mine`` for every answer the bot sends."""

    rules: Rules
    me: int
    dealer: int = 0
    upcard: Card | None = None          # the up-card as dealt (the engine's order holds it)
    initial_hand: int = 0               # my six (or five) cards as dealt, a mask
    transcript: list[Step] = field(default_factory=list)
    stock_slots: list[tuple[int, int]] = field(default_factory=list)
    """Face-down draws in stock order: (seat, card index), card -1 for the opponent's."""
    opp_first_use: dict[int, int] = field(default_factory=dict)
    """Cards the opponent got privately and has played, shown or given, with the first time."""
    opp_draw_times: list[int] = field(default_factory=list)
    opp_public: int = 0                 # cards he got in view of both: the up-card (draw, exchange)
    opp_excluded: int = 0               # cards he cannot hold any more (phase-2 follows)
    close: CloseFigures | None = None
    my_meld_suit: int = -1              # a marriage I showed on the current lead, until I lead
    time: int = 0
    _last: type | None = None           # the kind of the previous event (for decision contexts)

    @property
    def opp(self) -> int:
        return 1 - self.me

    def seat_of(self, who: Who | int) -> int:
        if not isinstance(who, Who):
            return who  # a seat number (PROTOCOL.md §9: three or four players)
        return self.me if who is Who.ME else self.opp

    # -- folding in what happens -------------------------------------------------------------------

    def start(self, view: BotView) -> None:
        """A new deal (called with the view already updated by the ``deal`` line)."""
        assert view.dealer is not None
        self.rules = view.rules
        self.dealer = self.seat_of(view.dealer)
        self.upcard = view.upcard
        self.initial_hand = _mask(view.hand)
        self.transcript = []
        self.stock_slots = []
        self.opp_first_use = {}
        self.opp_draw_times = []
        self.opp_public = 0
        self.opp_excluded = 0
        self.close = None
        self.my_meld_suit = -1
        self.time = 0
        self._last = None

    def mine(self, decision: str, action: Action) -> None:
        """The bot answered ``action`` at ``decision`` (the request's word)."""
        self.transcript.append(Step(self.me, _DECISIONS[decision], action))

    def event(self, view: BotView, event: Event) -> None:
        """One event, with ``view`` already updated by it."""
        self.time += 1
        t = self.time
        opp = self.opp
        match event:
            case Played(Who.OPP, card):
                # The view records the lead first: if he follows, the led card is mine.
                following = view.leader is Who.ME
                decision = Decision.FOLLOW if following else Decision.LEAD
                self.transcript.append(Step(opp, decision, Action.play(card)))
                self._used(card, t)
                if following and view.stock_state is not StockState.OPEN and view.led is not None:
                    self._learn_from_follow(view.led, card)
            case Played(Who.ME, _):
                self.my_meld_suit = -1
            case Marriage(who, suit, _):
                if who is Who.OPP:
                    self.transcript.append(Step(opp, Decision.LEAD, Action.marry(suit)))
                    self._used(Card(suit, Rank.KING), t)
                    self._used(Card(suit, Rank.QUEEN), t)
                else:
                    self.my_meld_suit = int(suit)
            case Exchange(Who.OPP, took, gave):
                self.transcript.append(Step(opp, self._opp_exchange_point(view), EXCHANGE))
                self._used(gave, t)
                self.opp_public |= took.bit
            case Close(who):
                seat = self.seat_of(who)
                if who is Who.OPP:
                    # A close right after his trick, before any draw, was at DP-W (§4).
                    point = Decision.AFTER_TRICK if self._last is Trick else Decision.LEAD
                    self.transcript.append(Step(opp, point, CLOSE))
                mine, theirs = view.tricks_won
                closer_tricks, other_tricks = (mine, theirs) if who is Who.ME else (theirs, mine)
                other_total = view.opp_points_known() if who is Who.ME else view.my_points()
                self.close = CloseFigures(seat, closer_tricks, other_tricks, other_total)
            case Draw(Who.ME, card):
                # The last draw takes the bottom card, which is public and no face-down slot; the
                # view has already counted this draw, so the last one leaves the stock empty.
                if card is not None and view.stock_size > 0:
                    self.stock_slots.append((self.me, card.index))
            case Draw(Who.OPP, card):
                if card is None:
                    self.stock_slots.append((opp, -1))
                    self.opp_draw_times.append(t)
                else:
                    self.opp_public |= card.bit  # the face-up card, drawn last
            case Claim(Who.OPP):
                point = Decision.AFTER_TRICK if self._last is Trick else Decision.LEAD
                self.transcript.append(Step(opp, point, CLAIM))
        self._last = type(event)

    def _opp_exchange_point(self, view: BotView) -> Decision:
        if self._last is Close:
            return Decision.CLOSE_EXCHANGE  # I just closed (DP-X)
        if view.led is not None:
            return Decision.FOLLOW          # I have led; he exchanges before following
        if view.leader is Who.OPP:
            return Decision.LEAD
        return Decision.BETWEEN_TRICKS

    def _used(self, card: Card, t: int) -> None:
        if not self.opp_public & card.bit and card.index not in self.opp_first_use:
            self.opp_first_use[card.index] = t

    def _learn_from_follow(self, led: Card, played: Card) -> None:
        """RULES.md §6: what his follow to my lead says about the cards he did not have."""
        suit_mask = SUIT_MASKS[led.suit]
        trump = self.upcard.suit if self.upcard is not None else None
        strict = self.rules.phase2_follow is Phase2Follow.STRICT
        if played.suit is led.suit:
            if strict and played.index > led.index:
                # He followed below the led card: he had nothing of the suit that beats it.
                self.opp_excluded |= suit_mask & ((1 << led.index) - 1)
            return
        self.opp_excluded |= suit_mask  # void in the led suit
        if strict and trump is not None and played.suit is not trump:
            self.opp_excluded |= SUIT_MASKS[trump]  # and, not trumping, void in trumps

    # -- what follows ----------------------------------------------------------------------------

    def opp_hidden_count(self, view: BotView) -> int:
        """How many of his cards I cannot name."""
        return view.opp_hand_size - len(view.opp_known)


def _mask(cards: tuple[Card, ...] | list[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= card.bit
    return mask
