"""One deal of Sixty-Six or Schnapsen as an immutable state (RULES.md §3-§7, §10).

``DealState.new(rules, dealer, order)`` deals; ``legal_actions()`` lists what the player to act may
do; ``apply(action)`` returns the next state or raises ``IllegalActionError`` naming the rule.
``apply_unchecked`` is the fast path for callers that took the action from ``legal_actions()``.

The state is omniscient (it holds every hand and the stock order): what a seat may see is computed
only by ``observe.observe()``.

Seats and sides are data (``Rules.players``, ``Rules.side_of``): hands are kept per seat, and every
other per-player figure (won cards, card points, tricks, marriage points) per *side*, which is the
seat itself with two or three players and a partnership with four (RULES.md §10.3). Two-player
code paths are the same code with two seats and two sides. Cards are kept as bit masks (see ``cards.py``), so the hot path is
integer arithmetic; a state is frozen once built (``__setattr__`` refuses), and ``apply`` builds the
next one by copying the fields into a fresh object, changing a few, and then freezing it.
"""

from __future__ import annotations

from typing import Callable, Iterator, Sequence

from arena.game import scoring
from arena.game.actions import (
    CLAIM,
    CLOSE,
    EXCHANGE,
    MARRY_ACTIONS,
    PASS,
    PLAY_ACTIONS,
    Action,
    ActionKind,
    Decision,
)
from arena.game.cards import (
    CARDS,
    LOW_MASK,
    SUIT_MASKS,
    Card,
    Rank,
    Suit,
    add_card,
    cards_of_mask,
    remove_card,
)
from arena.game.dealing import deal_layout
from arena.game.errors import IllegalActionError
from arena.game.events import Event, EventKind
from arena.game.rules import (
    ClaimMode,
    ClaimWindow,
    ExchangeWho,
    MarriageCredit,
    MarriageLeadCard,
    Phase2Follow,
    Rules,
)

OPEN, CLOSED, EXHAUSTED = 0, 1, 2
STOCK_STATES = ("open", "closed", "exhausted")

_LEAD, _FOLLOW, _AFTER, _XCLOSE, _BETWEEN, _OVER = (Decision.LEAD, Decision.FOLLOW,
                                                   Decision.AFTER_TRICK, Decision.CLOSE_EXCHANGE,
                                                   Decision.BETWEEN_TRICKS, Decision.OVER)
_PLAY, _MARRY, _EXCHANGE, _CLOSE, _CLAIM, _PASS = (ActionKind.PLAY, ActionKind.MARRY,
                                                   ActionKind.EXCHANGE, ActionKind.CLOSE,
                                                   ActionKind.CLAIM, ActionKind.PASS)
_SUIT_BASES = 0x01010101  # the lowest bit of each suit's byte
_NO_SUITS: tuple[int, ...] = ()


_Log = tuple["_Log", Event] | None  # events, newest last, as a linked list


def _put_pair(pair: tuple[int, ...], i: int, value: int) -> tuple[int, ...]:
    return (value, pair[1]) if i == 0 else (pair[0], value)


def _put_any(values: tuple[int, ...], i: int, value: int) -> tuple[int, ...]:
    return values[:i] + (value,) + values[i + 1:]


_PUTS = (_put_any, _put_any, _put_pair, _put_any, _put_any)
"""``_PUTS[len(values)](values, i, value)`` is ``values`` with item ``i`` replaced: per-seat and
per-side figures are tuples, and the hot paths pick the function once for the number of seats
(``rules.players``) or sides (``rules.sides``). Pairs are built directly (every two-player deal)."""


def _put(values: tuple[int, ...], i: int, value: int) -> tuple[int, ...]:
    """``values`` with item ``i`` replaced, off the hot path."""
    return _PUTS[len(values)](values, i, value)


class _Fields:
    """The fields of a deal. Mutable only while ``DealState`` builds a new state."""

    __slots__ = (
        "rules", "trump", "xcard", "dealer",
        "hands",         # per seat: counted mask (cards.LOW_MASK) of the cards in hand
        "married",       # two packs: per seat, kings and queens in hand already shown in a
                         # marriage (§10.4); () with a single pack, where a shown pair never returns
        "dead",          # the dead pile (§10.2), counted for nobody
        "stock",         # face-down stock, top first (fixed for the deal; ``drawn`` advances)
        "drawn",         # cards taken from ``stock`` so far
        "up",            # index of the up-card at the bottom of the stock, -1 once drawn
        "stock_state",   # OPEN, CLOSED or EXHAUSTED
        "won",           # per side: counted mask of the cards in its tricks
        "card_points",   # per side: card points of the won cards
        "tricks",        # per side: tricks won (a trick can be worth 0: RULES.md §3)
        "melds",         # per side: marriage points credited
        "pending",       # per side: marriage points declared but not yet credited (§5.4)
        "marriages",     # ((seat, suit, points, trick_no), ...) in order of declaration
        "exchanged_by",  # seat that exchanged this deal, -1 if none
        "closer",        # seat that closed, -1 if none
        "snapshot",      # figures at the close (scoring.CloseSnapshot) or None
        "decision", "to_act", "leader",
        "led",           # index of the card led to the current trick, -1 before the lead
        "table",         # Cards played to the current trick, in order ((): none yet)
        "best",          # the card now winning the current trick, -1 before the lead
        "best_seat",     # the seat that played it
        "meld_suit",     # suit of the marriage declared on this lead, -1 if none
        "window",        # seat whose claim window is open (§7.2), -1 if none
        "last_winner",   # winner of the last completed trick, -1 before trick 1
        "trick_no",      # tricks completed
        "log",           # events as a linked list: (previous_log, event) or None
        "settlement",    # scoring.DealSettlement once the deal is over
        "_legal",        # cache of legal_actions()
    )
    # The types of the slots above, for readers and mypy (annotations make no class attributes).
    rules: Rules
    trump: int
    xcard: int
    dealer: int
    hands: tuple[int, ...]
    married: tuple[int, ...]
    dead: int
    stock: tuple[int, ...]
    drawn: int
    up: int
    stock_state: int
    won: tuple[int, ...]
    card_points: tuple[int, ...]
    tricks: tuple[int, ...]
    melds: tuple[int, ...]
    pending: tuple[int, ...]
    marriages: tuple[tuple[int, int, int, int], ...]
    exchanged_by: int
    closer: int
    snapshot: scoring.CloseSnapshot | None
    decision: Decision
    to_act: int
    leader: int
    led: int
    table: tuple[Card, ...]
    best: int
    best_seat: int
    meld_suit: int
    window: int
    last_winner: int
    trick_no: int
    log: _Log
    settlement: scoring.DealSettlement | None
    _legal: tuple[Action, ...] | None


class DealState(_Fields):
    """An immutable snapshot of one deal. See the module docstring."""

    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"DealState is immutable (tried to set {name}); use apply()")

    def __reduce__(self) -> tuple[object, tuple[tuple[object, ...]]]:
        # Pickle (results cross process boundaries in tournaments) would set attributes one by one,
        # which a frozen state refuses: rebuild through the same path as apply() instead.
        return (_rebuild, (tuple(getattr(self, name) for name in _Fields.__slots__),))

    def __delattr__(self, name: str) -> None:
        # Without this, ``del state.hands`` empties a slot of a "frozen" state (STYLE.md habit 2).
        raise AttributeError(f"DealState is immutable (tried to delete {name})")

    # -- construction -----------------------------------------------------------------------------

    @staticmethod
    def new(rules: Rules, dealer: int, order: Sequence[Card]) -> DealState:
        """Deal ``order`` (a permutation of the pack, first card dealt first) with ``dealer`` dealing."""
        players = rules.players
        if not isinstance(dealer, int) or not 0 <= dealer < players:
            raise ValueError(f"dealer must be a seat from 0 to {players - 1}, not {dealer!r}")
        layout = deal_layout(rules, order)
        n = object.__new__(_Fields)
        n.rules = rules
        pack = rules.pack
        n.trump = layout.up_card >> 3
        n.xcard = pack.exchange_indices[n.trump]
        n.dealer = dealer
        first = (-dealer - 1) % players  # the hand of seat 0 (layout.hands begins left of the dealer)
        n.hands = layout.hands[first:] + layout.hands[:first]
        n.married = (0,) * players if pack.copies > 1 else ()
        n.dead = layout.dead
        n.stock = layout.hidden_stock
        n.drawn = 0
        n.up = layout.up_card
        n.stock_state = OPEN
        n.won = n.card_points = n.tricks = n.melds = n.pending = (0,) * rules.sides
        n.marriages = ()
        n.exchanged_by = n.closer = -1
        n.snapshot = None
        # The non-dealer leads to the first trick (§2.5); with more players, the dealer's left (§10.4).
        n.leader = rules.next_seat[dealer]
        n.led = n.best = n.best_seat = n.meld_suit = n.window = n.last_winner = -1
        n.table = ()
        n.trick_no = 0
        n.log = None
        n.settlement = None
        n._legal = None
        _begin_lead(n)
        n.__class__ = DealState
        return n  # type: ignore[return-value]

    def _derive(self) -> _Fields:
        n = object.__new__(_Fields)
        n.rules = self.rules
        n.trump = self.trump
        n.xcard = self.xcard
        n.dealer = self.dealer
        n.hands = self.hands
        n.married = self.married
        n.dead = self.dead
        n.stock = self.stock
        n.drawn = self.drawn
        n.up = self.up
        n.stock_state = self.stock_state
        n.won = self.won
        n.card_points = self.card_points
        n.tricks = self.tricks
        n.melds = self.melds
        n.pending = self.pending
        n.marriages = self.marriages
        n.exchanged_by = self.exchanged_by
        n.closer = self.closer
        n.snapshot = self.snapshot
        n.decision = self.decision
        n.to_act = self.to_act
        n.leader = self.leader
        n.led = self.led
        n.table = self.table
        n.best = self.best
        n.best_seat = self.best_seat
        n.meld_suit = self.meld_suit
        n.window = self.window
        n.last_winner = self.last_winner
        n.trick_no = self.trick_no
        n.log = self.log
        n.settlement = self.settlement
        n._legal = None
        return n

    # -- queries ----------------------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.decision is _OVER

    @property
    def trump_suit(self) -> Suit:
        return Suit(self.trump)

    @property
    def up_card(self) -> Card | None:
        """The card at the bottom of the stock (face up only while the stock is open)."""
        return CARDS[self.up] if self.up >= 0 else None

    @property
    def stock_size(self) -> int:
        """Cards left in the stock, the up-card included (RULES.md §0.3)."""
        return _stock_size(self)

    @property
    def stock_status(self) -> str:
        return STOCK_STATES[self.stock_state]

    @property
    def phase(self) -> int:
        """1 while the stock is open, 2 once it is exhausted or closed (RULES.md §0.3)."""
        return 1 if self.stock_state == OPEN else 2

    @property
    def players(self) -> int:
        return len(self.hands)

    def side_of(self, seat: int) -> int:
        """The side ``seat`` plays for: the seat itself, or its partnership with four players."""
        return self.rules.side_of[seat]

    def hand(self, seat: int) -> list[Card]:
        return cards_of_mask(self.hands[seat])

    def won_cards(self, side: int) -> list[Card]:
        """Cards in the tricks of ``side`` (= the seat, with two or three players)."""
        return cards_of_mask(self.won[side])

    def dead_pile(self) -> list[Card]:
        return cards_of_mask(self.dead)

    def trick_cards(self) -> list[Card]:
        """The cards played to the current trick so far, in order."""
        return list(self.table)

    def stock_cards(self) -> list[Card]:
        """The stock, top first, the up-card last."""
        rest = [CARDS[i] for i in self.stock[self.drawn:]]
        return rest + [CARDS[self.up]] if self.up >= 0 else rest

    def total(self, side: int) -> int:
        """Card points + credited marriages + last-trick bonus of ``side`` (RULES.md §7.1; the seat
        itself with two or three players). Omniscient: the referee uses it to settle claims; no
        seat ever sees it during a deal."""
        return scoring.total(self, side)

    def events(self) -> list[Event]:
        return self.events_after(None)

    def events_after(self, earlier: DealState | None) -> list[Event]:
        """The events since ``earlier``, a state this one was reached from in the same deal (None:
        from the deal's start), oldest first. A caller that follows a deal move by move reads only
        what is new, where ``events()`` walks the whole deal each time."""
        stop = earlier.log if earlier is not None else None
        out = []
        node = self.log
        while node is not stop:
            if node is None:
                raise ValueError("events_after: not an earlier state of this deal")
            node, event = node
            out.append(event)
        out.reverse()
        return out

    def __repr__(self) -> str:
        return (f"<DealState trick={self.trick_no} {self.decision.text} seat={self.to_act} "
                f"trump={Suit(self.trump)} stock={self.stock_size}/{self.stock_status} "
                f"hands={' | '.join(' '.join(map(str, self.hand(s))) for s in range(self.players))}>")

    # -- legal actions ----------------------------------------------------------------------------

    def legal_actions(self) -> tuple[Action, ...]:
        """Everything the player to act may do now, in a fixed order (RULES.md §4)."""
        legal = self._legal
        if legal is None:
            legal = _compute_legal(self)
            object.__setattr__(self, "_legal", legal)
        return legal

    def is_legal(self, action: Action) -> bool:
        return action in self.legal_actions()

    # -- transitions ------------------------------------------------------------------------------

    def apply(self, action: Action) -> DealState:
        """The state after ``action`` by the player to act; ``IllegalActionError`` if not allowed."""
        if action not in self.legal_actions():
            raise IllegalActionError(*_why_illegal(self, action), action=action)
        return self.apply_unchecked(action)

    def apply_unchecked(self, action: Action) -> DealState:
        """Fast path: ``action`` must come from ``legal_actions()``; it is not checked again."""
        n = self._derive()
        kind = action.kind
        seat = self.to_act
        if kind is _PLAY:
            if self.decision is _LEAD:
                _lead(n, seat, action.index)
            else:
                _follow(n, seat, action.index)
        elif kind is _PASS:
            if self.decision is _AFTER:
                _after_trick_pass(n)
            else:  # DP-X or DP-B declined: the leader's turn
                n.decision, n.to_act = _LEAD, n.leader
        elif kind is _CLAIM:
            _log(n, _event(EventKind.CLAIM, seat))
            scoring.settle_claim(n, seat)
        elif kind is _EXCHANGE:
            _exchange(n, seat)
        elif kind is _CLOSE:
            _close(n, seat)
        else:
            _marry(n, seat, action.index)
        n.__class__ = DealState
        return n  # type: ignore[return-value]


    def forfeit(self, offender: int) -> DealState:
        """The deal ends with ``offender`` forfeiting it: illegal_move_policy = forfeit_deal (§11 row
        34). Forfeiting the whole match is the match's business (``MatchState.forfeit``)."""
        if self.is_over:
            raise ValueError("the deal is already over")
        n = self._derive()
        scoring.settle_forfeit(n, offender)
        n.__class__ = DealState
        return n  # type: ignore[return-value]


def _rebuild(values: tuple[object, ...]) -> DealState:
    n = object.__new__(_Fields)
    for name, value in zip(_Fields.__slots__, values):
        setattr(n, name, value)
    n.__class__ = DealState
    return n  # type: ignore[return-value]


# -- transitions on the mutable copy -----------------------------------------------------------------

def _stock_size(n: _Fields) -> int:
    """Cards left in the stock, the up-card (or the card turned down on a closed stock) included."""
    return len(n.stock) - n.drawn + (n.up >= 0)


def _log(n: _Fields, event: Event) -> None:
    n.log = (n.log, event)


_tuple_new = tuple.__new__
_PLAY_EVENT, _TRICK_EVENT, _DRAW_EVENT = EventKind.PLAY, EventKind.TRICK, EventKind.DRAW


def _event(kind: EventKind, seat: int, cards: tuple[Card, ...] = (), value: int = 0,
           suit: Suit | None = None) -> Event:
    # Event(...) goes through NamedTuple's Python-level __new__; this is the same tuple, built
    # directly, on the hot path (several events per trick).
    return _tuple_new(Event, (kind, seat, cards, value, suit))


def _begin_lead(n: _Fields) -> None:
    """The next trick begins: the non-leader's between-tricks exchange point, then DP-L. (The
    between-tricks exchange is a two-player flag: rules.py refuses it with more players.)"""
    n.led = n.meld_suit = -1
    if n.rules.exchange_who is ExchangeWho.BETWEEN_TRICKS and _exchange_open(n, 1 - n.leader):
        n.decision, n.to_act = _BETWEEN, 1 - n.leader
    else:
        n.decision, n.to_act = _LEAD, n.leader


def _unmarry(n: _Fields, seat: int, card: int) -> None:
    """``seat`` played ``card``: with two packs, of two identical cards in hand the one shown in a
    marriage leaves first, so the other stays free for a new marriage (§10.4; the choice most
    favourable to the player)."""
    married = n.married[seat]
    if married & (1 << card):
        n.married = _put(n.married, seat, remove_card(married, card))


def _lead(n: _Fields, seat: int, card: int) -> None:
    rules = n.rules
    hand = n.hands[seat]
    high = 1 << (card + 32)  # cards.remove_card, inlined: this is the hot path
    n.hands = _PUTS[rules.players](n.hands, seat, hand ^ high if hand & high else hand ^ (1 << card))
    if n.married:
        _unmarry(n, seat, card)
    played = CARDS[card]
    n.led = n.best = card
    n.best_seat = seat
    n.table = (played,)
    n.window = -1  # the claim window closes with the lead (RULES.md §7.2)
    n.log = (n.log, _tuple_new(Event, (_PLAY_EVENT, seat, n.table, 0, None)))  # _log(_event()), inlined
    n.decision, n.to_act = _FOLLOW, rules.next_seat[seat]


def _follow(n: _Fields, seat: int, card: int) -> None:
    rules = n.rules
    hand = n.hands[seat]
    high = 1 << (card + 32)  # cards.remove_card, inlined
    n.hands = _PUTS[rules.players](n.hands, seat, hand ^ high if hand & high else hand ^ (1 << card))
    if n.married:
        _unmarry(n, seat, card)
    # RULES.md §5.1 against the card now winning (cards.beats, inlined): the same suit and a higher
    # rank, or a trump on a plain card. Of two identical cards the first one played stays ahead
    # (§10.3), since the comparison is strict.
    best = n.best
    if (card < best) if card >> 3 == best >> 3 else (card >> 3 == n.trump):
        n.best, n.best_seat = card, seat
    played = CARDS[card]
    table = n.table + (played,)
    n.log = (n.log, _tuple_new(Event, (_PLAY_EVENT, seat, (played,), 0, None)))
    if len(table) < rules.players:
        n.table = table
        n.decision, n.to_act = _FOLLOW, rules.next_seat[seat]
        return
    winner = n.best_seat
    side = rules.side_of[winner]
    won = n.won[side]
    points = n.card_points[side]
    for c in table:
        bit = c.bit  # cards.add_card, inlined
        won = won | (bit << 32) if won & bit else won | bit
        points += c.points
    put = _PUTS[rules.sides]
    n.won = put(n.won, side, won)
    n.card_points = put(n.card_points, side, points)
    n.tricks = put(n.tricks, side, n.tricks[side] + 1)
    if n.pending[side]:
        # A marriage becomes effective once its declarer's side wins a trick (§5.4, §10.3; with
        # next_trick_after_meld every marriage is pending until this moment).
        n.melds = put(n.melds, side, n.melds[side] + n.pending[side])
        n.pending = put(n.pending, side, 0)
    n.trick_no += 1
    n.leader = n.window = n.last_winner = winner
    n.log = (n.log, _tuple_new(Event, (_TRICK_EVENT, winner, table, 0, None)))
    # The lead's own facts end with the trick, whichever decision point comes next (a close at DP-W
    # goes straight to the next lead).
    n.led = n.best = n.best_seat = n.meld_suit = -1
    n.table = ()
    if rules.claim_mode is ClaimMode.AUTO_AFTER_TRICK and scoring.total(n, side) >= rules.claim_target:
        scoring.settle_claim(n, winner)  # VU: the deal ends as soon as the winner has 66 (§13)
        return
    if rules.claim_mode is ClaimMode.EXPLICIT or _can_close_before_draw(n):
        n.decision, n.to_act = _AFTER, winner  # DP-W
    else:
        _after_trick_pass(n)


def _after_trick_pass(n: _Fields) -> None:
    """DP-W passed: the deal ends if the hands are empty, else the draw and the next lead."""
    if not n.hands[n.last_winner]:  # after a trick every hand holds as many cards
        scoring.settle_hands_exhausted(n)
        return
    if n.stock_state == OPEN:
        # The winner first, then clockwise (RULES.md §5.2; §10.2-§10.3 with more players).
        rules = n.rules
        put = _PUTS[rules.players]
        for seat in rules.draw_orders[n.last_winner]:
            _draw(n, seat, put)
        if _stock_size(n) == 0:
            n.stock_state = EXHAUSTED
    _begin_lead(n)


def _draw(n: _Fields, seat: int, put: Callable[[tuple[int, ...], int, int], tuple[int, ...]]) -> None:
    if n.drawn < len(n.stock):
        card = n.stock[n.drawn]
        n.drawn += 1
        public = 0
    else:
        card, n.up, public = n.up, -1, 1  # the up-card is drawn last, in view of both (§5.2)
    hand = n.hands[seat]
    bit = 1 << card  # cards.add_card, inlined
    n.hands = put(n.hands, seat, hand | (bit << 32) if hand & bit else hand | bit)
    n.log = (n.log, _tuple_new(Event, (_DRAW_EVENT, seat, (CARDS[card],), public, None)))


def _exchange(n: _Fields, seat: int) -> None:
    took, gave = n.up, n.xcard
    n.hands = _put(n.hands, seat, add_card(remove_card(n.hands[seat], gave), took))
    n.up = gave
    n.exchanged_by = seat
    _log(n, _event(EventKind.EXCHANGE, seat, (CARDS[took], CARDS[gave])))
    if n.decision is _XCLOSE or n.decision is _BETWEEN:
        n.decision, n.to_act = _LEAD, n.leader


def _close(n: _Fields, seat: int) -> None:
    # Closing exists only with two players (RULES.md §10: rules.py refuses close_enabled for more).
    n.closer = seat
    n.stock_state = CLOSED
    n.snapshot = scoring.snapshot_at_close(n, seat)
    _log(n, _event(EventKind.CLOSE, seat))
    opp = 1 - seat
    # DP-X (RULES.md §5.3): offered whenever its public conditions hold, whether or not the
    # opponent holds the exchange card, so that being asked reveals nothing to the closer.
    if n.rules.exchange_on_opponent_close and n.exchanged_by < 0 and n.up != n.xcard and \
            _stock_size(n) >= n.rules.exchange_min_stock:
        n.decision, n.to_act = _XCLOSE, opp
    else:
        n.decision, n.to_act = _LEAD, seat


def _marry(n: _Fields, seat: int, suit: int) -> None:
    points = 40 if suit == n.trump else 20
    side = n.rules.side_of[seat]
    if n.rules.marriage_credit is MarriageCredit.ONCE_ANY_TRICK and n.tricks[side]:
        n.melds = _put(n.melds, side, n.melds[side] + points)
    else:
        n.pending = _put(n.pending, side, n.pending[side] + points)
    n.marriages = n.marriages + ((seat, suit, points, n.trick_no),)
    n.meld_suit = suit
    base = suit * 8
    if n.rules.pack.copies > 1:
        # Two packs: each physical king and queen is in at most one marriage (§10.4).
        n.married = _put(n.married, seat,
                         add_card(add_card(n.married[seat], base + Rank.KING), base + Rank.QUEEN))
    _log(n, _event(EventKind.MARRIAGE, seat, (CARDS[base + Rank.KING], CARDS[base + Rank.QUEEN]),
                  points, Suit(suit)))


# -- legality ----------------------------------------------------------------------------------------

def _exchange_open(n: _Fields, seat: int) -> bool:
    """Public conditions for ``seat`` to exchange at a normal decision point (RULES.md §5.3)."""
    rules = n.rules
    return (n.stock_state == OPEN and n.exchanged_by < 0 and n.up >= 0 and n.up != n.xcard
            and _stock_size(n) >= rules.exchange_min_stock
            and (n.tricks[rules.side_of[seat]] > 0 or not rules.exchange_requires_trick))


def _can_close_before_draw(n: _Fields) -> bool:
    rules = n.rules
    return (rules.close_enabled and rules.close_before_draw and n.stock_state == OPEN
            and n.closer < 0 and _stock_size(n) >= rules.close_pre_draw_min_stock)


def _can_close_at_lead(n: _Fields) -> bool:
    rules = n.rules
    return (rules.close_enabled and n.stock_state == OPEN and n.closer < 0 and n.meld_suit < 0
            and _stock_size(n) >= rules.close_min_stock
            and (n.trick_no > 0 or rules.close_before_first_trick))


def _marriage_suits(n: _Fields, seat: int) -> Sequence[int]:
    rules = n.rules
    if n.meld_suit >= 0:
        return []  # one marriage per lead (RULES.md §5.4)
    if n.stock_state != OPEN and not rules.marriage_in_phase2 and not (
            rules.marriage_on_closing_lead and n.closer == seat and n.snapshot is not None
            and n.snapshot.trick_no == n.trick_no):
        return []
    if rules.marriage_requires_prior_trick and not n.tricks[rules.side_of[seat]]:
        return []
    hand = n.hands[seat]
    married = n.married[seat] if n.married else 0
    if married:
        # Cards held more often than shown in marriages (counted masks, cards.LOW_MASK).
        free = hand & ~married
        hand = (free | (free >> 32)) & LOW_MASK
    pairs = (hand >> Rank.KING) & (hand >> Rank.QUEEN) & _SUIT_BASES  # bit 8s: suit s holds K and Q
    if not pairs:
        return _NO_SUITS
    return [s for s in range(4) if (pairs >> (s * 8)) & 1]


def _may_claim_at_lead(n: _Fields, seat: int) -> bool:
    rules = n.rules
    if rules.claim_mode is not ClaimMode.EXPLICIT:
        return False
    if n.window == seat or rules.claim_window is ClaimWindow.ON_LEAD_ANY_TIME:
        return True
    return n.meld_suit >= 0 and rules.claim_after_meld  # right after a marriage (§7.2)


def follow_mask(n: _Fields, seat: int) -> int:
    """Cards the follower may play (RULES.md §6, generalised for 3 and 4 players in §10)."""
    hand = n.hands[seat] & LOW_MASK
    if n.stock_state == OPEN:
        return hand  # phase 1: no obligation (§5.2)
    led = n.led
    best = n.best
    rules = n.rules
    same = hand & SUIT_MASKS[led >> 3]
    if rules.phase2_follow is Phase2Follow.FOLLOW_ONLY:
        return same or hand
    # must_beat_partner = false (§10.4): a partner's winning card need not be beaten.
    free = not rules.must_beat_partner and rules.side_of[n.best_seat] == rules.side_of[seat]
    if same:
        if free or best >> 3 != led >> 3:
            return same  # a trump already wins the trick: no card of the led suit can beat it
        # Lower index = higher rank: the cards of the led suit above the winning card.
        return (same & ((1 << best) - 1)) or same
    if free:
        return hand
    trumps = hand & SUIT_MASKS[n.trump]
    if best >> 3 == n.trump:
        trumps &= (1 << best) - 1  # only a higher trump wins; no obligation to under-trump (§10.2)
    return trumps or hand  # with two players any trump beats a plain lead


# Play actions for every subset of one suit's 8 card slots: a hand's plays are four table lookups
# (one per suit byte) joined, in card-index order, with no per-hand cache to miss.
_SUIT_PLAYS: tuple[tuple[tuple[Action, ...], ...], ...] = tuple(
    tuple(tuple(PLAY_ACTIONS[suit * 8 + r] for r in range(8) if (byte >> r) & 1) for byte in range(256))
    for suit in range(4))
_C_PLAYS, _S_PLAYS, _H_PLAYS, _D_PLAYS = _SUIT_PLAYS


def _plays(mask: int) -> tuple[Action, ...]:
    return (_C_PLAYS[mask & 255] + _S_PLAYS[(mask >> 8) & 255] + _H_PLAYS[(mask >> 16) & 255]
            + _D_PLAYS[mask >> 24])


_CLAIM_PASS = (CLAIM, PASS)
_CLAIM_CLOSE_PASS = (CLAIM, CLOSE, PASS)
_CLOSE_PASS = (CLOSE, PASS)
_PASS_ONLY = (PASS,)
_EXCHANGE_PASS = (EXCHANGE, PASS)


def _compute_legal(n: _Fields) -> tuple[Action, ...]:
    decision = n.decision
    seat = n.to_act
    rules = n.rules
    hand = n.hands[seat] & LOW_MASK if seat >= 0 else 0
    holds_x = (hand >> n.xcard) & 1
    if decision is _FOLLOW:
        plays = _plays(hand if n.stock_state == OPEN else follow_mask(n, seat))  # §5.2: phase 1 is free
        if holds_x and rules.exchange_who is ExchangeWho.LEADER_OR_FOLLOWER and _exchange_open(n, seat):
            return (EXCHANGE,) + plays
        return plays
    if decision is _LEAD:
        if n.meld_suit >= 0:
            base = n.meld_suit * 8
            card_mask = (1 << (base + Rank.KING))
            if rules.marriage_lead_card is MarriageLeadCard.KING_OR_QUEEN:
                card_mask |= 1 << (base + Rank.QUEEN)
            plays = _plays(card_mask & hand)
            return (CLAIM,) + plays if _may_claim_at_lead(n, seat) else plays
        out: list[Action] = []
        if holds_x and _exchange_open(n, seat):
            out.append(EXCHANGE)
        if _can_close_at_lead(n):
            out.append(CLOSE)
        suits = _marriage_suits(n, seat)
        if suits:
            out.extend([MARRY_ACTIONS[s] for s in suits])
        if _may_claim_at_lead(n, seat):
            out.append(CLAIM)
        return tuple(out) + _plays(hand)
    if decision is _AFTER:
        if rules.claim_mode is ClaimMode.EXPLICIT:
            return _CLAIM_CLOSE_PASS if _can_close_before_draw(n) else _CLAIM_PASS
        return _CLOSE_PASS if _can_close_before_draw(n) else _PASS_ONLY
    if decision is _XCLOSE or decision is _BETWEEN:
        return _EXCHANGE_PASS if holds_x else _PASS_ONLY
    return ()


def _why_illegal(s: DealState, action: Action) -> tuple[str, str]:
    """A reason and the RULES.md section for an action that is not in ``legal_actions()``."""
    d = s.decision
    kind = action.kind
    if d is _OVER:
        return "the deal is over", "RULES.md §7"
    if kind is _PLAY:
        card = action.index
        if d not in (_LEAD, _FOLLOW):
            return f"no card is played at the {d.text} decision point", "RULES.md §4"
        if not (s.hands[s.to_act] >> card) & 1:
            return f"{action.card} is not in the hand of seat {s.to_act}", "RULES.md §4"
        if d is _LEAD:
            return (f"after declaring a marriage the leader must lead its "
                    f"{'king' if s.rules.marriage_lead_card is MarriageLeadCard.KING_ONLY else 'king or queen'}"
                    ), "RULES.md §5.4"
        return ("in phase 2 a follower must follow suit and beat the card now winning if he can, else "
                "trump if that wins (RULES.md §6)"), "RULES.md §6"
    if kind is _MARRY:
        if d is not _LEAD:
            return "only the leader may declare a marriage, before leading", "RULES.md §5.4"
        if s.meld_suit >= 0:
            return "only one marriage may be declared per lead", "RULES.md §5.4"
        if s.stock_state != OPEN and not s.rules.marriage_in_phase2:
            return "no marriage once the stock is exhausted or closed", "RULES.md §5.4"
        return f"a marriage needs the king and queen of {action.suit} in hand", "RULES.md §5.4"
    if kind is _CLAIM:
        if d in (_LEAD, _AFTER) and s.rules.claim_mode is not ClaimMode.EXPLICIT:
            return "claims are automatic in this profile", "RULES.md §11 row 23"
        return ("no claim window: a claim is allowed only between winning a trick and leading the next "
                "card, or right after declaring a marriage"), "RULES.md §7.2"
    if kind is _CLOSE:
        if not s.rules.close_enabled:
            return "this profile has no closing", "RULES.md §11 row 14"
        if d not in (_LEAD, _AFTER):
            return "only the player entitled to lead may close", "RULES.md §5.5"
        if s.closer >= 0 or s.stock_state != OPEN:
            return "the stock is not open", "RULES.md §5.5"
        if s.meld_suit >= 0:
            return "a close must come before the marriage on the same lead", "RULES.md §4"
        if d is _AFTER and not s.rules.close_before_draw:
            return "closing before the draw is not allowed in this profile", "RULES.md §5.5"
        return "the stock is too small to close now", "RULES.md §5.5"
    if kind is _EXCHANGE:
        if s.exchanged_by >= 0:
            return "only one exchange per deal", "RULES.md §5.3"
        if not (s.hands[s.to_act] >> s.xcard) & 1:
            return f"exchanging needs {CARDS[s.xcard]} in hand", "RULES.md §5.3"
        if s.stock_state != OPEN:
            return "no exchange once the stock is exhausted or closed", "RULES.md §5.3"
        if s.rules.exchange_requires_trick and not s.tricks[s.rules.side_of[s.to_act]]:
            return "an exchange needs a trick won in this deal", "RULES.md §5.3"
        return "an exchange is not allowed at this point", "RULES.md §5.3"
    return f"{action} is not allowed at the {d.text} decision point", "RULES.md §4"


def iter_states(state: DealState, actions: Sequence[Action]) -> Iterator[DealState]:
    """Every state reached by applying ``actions`` in turn (validated)."""
    yield state
    for action in actions:
        state = state.apply(action)
        yield state
