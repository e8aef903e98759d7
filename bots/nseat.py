"""Three- and four-player play for the bundled bots (RULES.md §10, PROTOCOL.md §9).

``SeatKnowledge`` is what one seat has seen of an N-seat deal, folded from the deal's events exactly
as a bot receives them (a ``played``, ``trick``, ``marriage``, ``exchange``, ``draw`` or ``claim``
line is one ``arena.game.Event``); it keeps the side's mental count (§10.3: partners pool their
points), the public history of actions (so a sampler can replay the deal in a world it imagines),
and what each other seat has shown of its hand (shown marriages, voids in phase 2).

``greedy_choice`` is the N-seat strategy of the greedy bot, ``play_local_match`` an in-process match
between N-seat policies on the engine (no processes): the benchmark and the bots' tests use it.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Protocol, Sequence

from arena.game import CLAIM, EXCHANGE, PASS, Action, ActionKind, Card, Event, EventKind, Rank, \
    Rules, Suit
from arena.game.cards import beats

if TYPE_CHECKING:
    from protocol.view import BotView

HIGH_TRICK_POINTS = 10
"""A trick worth this much (an ace or a ten on the table) is worth a trump in phase 1."""


@dataclass
class Held:
    """A card a seat is known to have held at some moment (it played or showed it)."""

    card: Card
    rounds: int   # draw rounds completed by then: the card came from the hand dealt or these draws


@dataclass
class DrawSlot:
    """One card taken from the stock: ``position`` in the hidden stock (top = 0), or -1 for the
    up-card slot (the last card drawn, RULES.md §10.2/§10.3)."""

    seat: int
    round: int
    position: int
    card: Card | None   # known when the reader drew it or it was the face-up card


@dataclass
class SeatKnowledge:
    """What ``seat`` has seen of the current deal. Feed it ``start_deal`` and then every event."""

    rules: Rules
    seat: int
    dealer: int = 0
    trump: Suit = Suit.CLUBS
    upcard: Card | None = None          # face up under the stock; None once drawn
    first_upcard: Card | None = None    # the card turned up at the deal (the up slot's card)
    stock: int = 0                      # cards in the stock, the up-card included
    hand: list[Card] = field(default_factory=list)
    initial_hand: tuple[Card, ...] = ()
    history: list[Action] = field(default_factory=list)   # every public action, in order
    table: list[tuple[int, Card]] = field(default_factory=list)
    best: tuple[int, Card] | None = None  # (seat, card) now winning the trick
    card_points: list[int] = field(default_factory=list)  # per side
    tricks: list[int] = field(default_factory=list)       # per side
    pending: list[int] = field(default_factory=list)      # per side: marriages not yet credited
    melds: list[int] = field(default_factory=list)        # per side: credited marriages
    bonus: list[int] = field(default_factory=list)        # per side: the last-trick 10
    trick_no: int = 0
    rounds: int = 0                     # draw rounds completed (phase 1 tricks drawn after)
    draws: list[DrawSlot] = field(default_factory=list)
    played: Counter[Card] = field(default_factory=Counter)
    held: dict[int, list[Held]] = field(default_factory=dict)        # seat -> cards it had
    known_now: dict[int, Counter[Card]] = field(default_factory=dict)
    """seat -> cards it holds for sure: a shown marriage's cards, the up-card it took by exchanging
    or drew face up (those come from the up slot, not from its own slots of the deal)."""
    forbidden: dict[int, list[tuple[Suit, int]]] = field(default_factory=dict)
    """seat -> (suit, below): the seat holds no card of ``suit`` with a rank index below ``below``
    (8 = the whole suit). Learnt in phase 2 from the follow rule (RULES.md §6, §10.2)."""
    claimed_by: int | None = None

    # -- set-up ------------------------------------------------------------------------------------

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def side(self) -> int:
        return self.rules.side_of[self.seat]

    @property
    def target(self) -> int:
        return self.rules.claim_target

    @property
    def partner(self) -> int | None:
        return self.rules.partner(self.seat)

    def start_deal(self, dealer: int, hand: Sequence[Card], upcard: Card, stock: int) -> None:
        sides = self.rules.sides
        self.dealer, self.trump, self.upcard, self.first_upcard = dealer, upcard.suit, upcard, upcard
        self.stock = stock
        self.hand = sorted(hand)
        self.initial_hand = tuple(self.hand)
        self.history = []
        self.table, self.best = [], None
        self.card_points, self.tricks = [0] * sides, [0] * sides
        self.pending, self.melds, self.bonus = [0] * sides, [0] * sides, [0] * sides
        self.trick_no = self.rounds = 0
        self.draws = []
        self.played = Counter()
        self.held = {s: [] for s in range(self.players)}
        self.known_now = {s: Counter() for s in range(self.players)}
        self.forbidden = {s: [] for s in range(self.players)}
        self.claimed_by = None

    # -- events ------------------------------------------------------------------------------------

    def feed(self, event: Event) -> None:
        """Fold one event (as the seat sees it: another seat's private draw has no card)."""
        kind, seat = event.kind, event.seat
        if kind is EventKind.PLAY:
            self._played(seat, event.cards[0])
        elif kind is EventKind.TRICK:
            self._trick(seat, event.cards)
        elif kind is EventKind.MARRIAGE:
            assert event.suit is not None
            self._marriage(seat, event.suit, event.value)
        elif kind is EventKind.EXCHANGE:
            self._exchange(seat, event.cards[0], event.cards[1])
        elif kind is EventKind.DRAW:
            self._draw(seat, event.cards[0] if event.cards else None)
        elif kind is EventKind.CLAIM:
            self.history.append(CLAIM)
            self.claimed_by = seat

    def _had(self, seat: int, card: Card) -> None:
        """``seat`` showed it holds ``card`` now: a new fact unless already known."""
        if seat == self.seat:
            return
        if self.known_now[seat][card] > 0:
            return
        self.held[seat].append(Held(card, self.rounds))
        self.known_now[seat][card] += 1

    def _played(self, seat: int, card: Card) -> None:
        self.history.append(Action.play(card))
        if self.stock == 0 and self.table and seat != self.seat:
            self._learn_from_follow(seat, card)
        self._had(seat, card)
        if seat == self.seat:
            self.hand.remove(card)
        else:
            self.known_now[seat][card] -= 1
        self.played[card] += 1
        if self.best is None or beats(card.index, self.best[1].index, int(self.trump)):
            self.best = (seat, card)
        self.table.append((seat, card))

    def _learn_from_follow(self, seat: int, card: Card) -> None:
        """Phase 2: what the follow rule (RULES.md §6, §10.2, §10.4) says about the follower's hand."""
        assert self.best is not None
        led = self.table[0][1]
        best_seat, best = self.best
        rules = self.rules
        free = not rules.must_beat_partner and rules.side_of[best_seat] == rules.side_of[seat]
        out = self.forbidden[seat]
        if card.suit is not led.suit:
            out.append((led.suit, 8))  # void in the led suit
            if not free and card.suit is not self.trump:
                # No trump that would have won: none at all, or none above a winning trump.
                out.append((self.trump, int(best.rank) if best.suit is self.trump else 8))
        elif not free and best.suit is led.suit and not beats(card.index, best.index, int(self.trump)):
            out.append((led.suit, int(best.rank)))  # followed without beating: nothing above it

    def _trick(self, seat: int, cards: Sequence[Card]) -> None:
        side = self.rules.side_of[seat]
        self.card_points[side] += sum(c.points for c in cards)
        self.tricks[side] += 1
        if self.pending[side]:
            self.melds[side] += self.pending[side]  # credited once the side has a trick (§10.3)
            self.pending[side] = 0
        self.trick_no += 1
        self.table, self.best = [], None
        if not self.hand and self.stock == 0:
            self.bonus[side] += self.rules.last_trick_bonus  # §7.1, §10.4: before the final window

    def _marriage(self, seat: int, suit: Suit, points: int) -> None:
        self.history.append(Action.marry(suit))
        for rank in (Rank.KING, Rank.QUEEN):
            self._had(seat, Card(suit, rank))
        side = self.rules.side_of[seat]
        if self.tricks[side]:
            self.melds[side] += points
        else:
            self.pending[side] += points

    def _exchange(self, seat: int, took: Card, gave: Card) -> None:
        self.history.append(EXCHANGE)
        self._had(seat, gave)
        if seat == self.seat:
            self.hand.remove(gave)
            self.hand.append(took)
            self.hand.sort()
        else:
            self.known_now[seat][gave] -= 1
            self.known_now[seat][took] += 1
        self.upcard = gave

    def _draw(self, seat: int, card: Card | None) -> None:
        players = self.players
        drawn = len(self.draws)
        total = self.rules.stock_size
        position = -1 if drawn == total - 1 else drawn
        self.draws.append(DrawSlot(seat, self.trick_no, position, card))
        self.stock -= 1
        if seat == self.seat:
            assert card is not None
            self.hand.append(card)
            self.hand.sort()
        elif card is not None:
            self.known_now[seat][card] += 1  # the face-up card: public, and not from seat's slots
        if position == -1:
            self.upcard = None
        if len(self.draws) % players == 0:
            self.rounds += 1

    # -- the mental count --------------------------------------------------------------------------

    def points(self, side: int) -> int:
        """A side's total by RULES.md §7.1 from what was shown (every won card is public)."""
        return self.card_points[side] + self.melds[side] + self.bonus[side]

    def my_points(self) -> int:
        """My side's total: mine and my partner's tricks and credited marriages."""
        return self.points(self.side)

    @property
    def phase(self) -> int:
        return 1 if self.stock > 0 else 2

    @property
    def led(self) -> Card | None:
        return self.table[0][1] if self.table else None

    def unseen(self) -> Counter[Card]:
        """Copies of each card the reader has not seen played, in hand or shown."""
        out = Counter(self.rules.pack.cards)
        out.subtract(self.played)
        out.subtract(self.hand)
        for seat in range(self.players):
            out.subtract(self.known_now[seat])
        if self.upcard is not None:
            out[self.upcard] -= 1
        return +out

    def is_top(self, card: Card) -> bool:
        """Can no card still out beat ``card`` led now (the other copy of it cannot: the first of
        two identical cards wins, §10.3)? Trumps beat any plain card, so a plain card is top only
        when nobody else can hold a trump either."""
        unseen = self.unseen()
        for other, count in unseen.items():
            if count > 0 and beats(other.index, card.index, int(self.trump)):
                return False
        return True


# -- the greedy strategy -----------------------------------------------------------------------------


def _marriage_part(k: SeatKnowledge, card: Card) -> bool:
    if card.rank not in (Rank.KING, Rank.QUEEN) or k.phase == 2:
        return False
    partner = Card(card.suit, Rank.QUEEN if card.rank is Rank.KING else Rank.KING)
    return partner in k.hand


def _cost(k: SeatKnowledge, card: Card) -> tuple[int, ...]:
    """How much we lose by giving ``card`` away: trumps and marriage halves last, then points."""
    return (card.suit is k.trump, _marriage_part(k, card), card.points, -int(card.rank))


def greedy_choice(k: SeatKnowledge, legal: Sequence[Action]) -> Action:
    """RULES.md §10: claim exactly at the side's target; exchange; marry (40 first); lead cheaply or
    cash a sure winner; follow by winning cheaply, loading a partner's winning card, or ducking."""
    if CLAIM in legal and k.my_points() >= k.target:
        return CLAIM
    if EXCHANGE in legal:
        return EXCHANGE  # the up-card is never worse than the lowest trump
    marriages = [a for a in legal if a.kind is ActionKind.MARRY]
    if marriages:
        return max(marriages, key=lambda a: a.suit is k.trump)
    cards = [a.card for a in legal if a.card is not None]
    if not cards:
        return PASS if PASS in legal else legal[-1]
    if not k.table:
        return Action.play(_lead(k, cards))
    return Action.play(_follow(k, cards))


def _lead(k: SeatKnowledge, cards: list[Card]) -> Card:
    if k.phase == 2:
        tops = [c for c in cards if k.is_top(c)]
        if tops:
            return max(tops, key=lambda c: (c.points, c.suit is not k.trump))
    plain = [c for c in cards if c.suit is not k.trump and not _marriage_part(k, c)]
    # A lone ace keeps the lead in phase 1 less often with more seats: lead low instead.
    return min(plain or cards, key=lambda c: _cost(k, c))


def _follow(k: SeatKnowledge, cards: list[Card]) -> Card:
    assert k.best is not None
    best_seat, best = k.best
    trump = int(k.trump)
    last = len(k.table) == k.players - 1
    partner_wins = k.partner is not None and best_seat == k.partner
    if partner_wins and (last or k.is_top(best)):
        # Load the partner's winning trick with points, trumps last (a §10.3 side pools them).
        return max(cards, key=lambda c: (c.suit is not k.trump, c.points, int(c.rank)))
    winning = [c for c in cards if beats(c.index, best.index, trump)]
    table_points = sum(c.points for _, c in k.table)
    if winning and not partner_wins:
        # Win in suit before trumping, keep marriages, and use the weakest card that does it;
        # a card that seats still to play can beat is worth it only when it is cheap.
        cheapest = min(winning, key=lambda c: (c.suit is k.trump and best.suit is not k.trump,
                                               _marriage_part(k, c), -int(c.rank)))
        if last or k.phase == 2 or k.is_top(cheapest):
            if cheapest.suit is not k.trump or best.suit is k.trump \
                    or table_points >= HIGH_TRICK_POINTS or k.phase == 2 or \
                    k.my_points() + table_points + cheapest.points >= k.target:
                return cheapest
        elif cheapest.suit is not k.trump and cheapest.points < HIGH_TRICK_POINTS:
            return cheapest
    return min(cards, key=lambda c: _cost(k, c))


# -- an in-process match -----------------------------------------------------------------------------


class Policy(Protocol):
    def decide(self, k: SeatKnowledge, legal: Sequence[Action]) -> Action: ...


@dataclass
class FunctionPolicy:
    choose: Callable[[SeatKnowledge, Sequence[Action]], Action]

    def decide(self, k: SeatKnowledge, legal: Sequence[Action]) -> Action:
        return self.choose(k, legal)


GREEDY = FunctionPolicy(greedy_choice)


@dataclass
class RandomPolicy:
    rng: random.Random

    def decide(self, k: SeatKnowledge, legal: Sequence[Action]) -> Action:
        return self.rng.choice(list(legal))


@dataclass
class LocalResult:
    game_points: tuple[int, ...]   # per side
    winner: int | None
    deals: int
    wrong_claims: int              # claims below the target, by any seat
    missed_claims: int             # windows at the target let pass, by any seat


def play_local_match(rules: Rules, policies: Sequence[Policy], seed: int | str,
                     first_dealer: int = 0, max_deals: int = 200,
                     orders: Sequence[Sequence[Card]] | None = None) -> LocalResult:
    """One match on the engine, each seat deciding from its own ``SeatKnowledge`` only (the
    events it may see: ``observation.visible_event``). Counts wrong and missed claims."""
    from arena.game import MatchState
    from arena.game.observation import visible_event

    if len(policies) != rules.players:
        raise ValueError(f"{rules.name} needs {rules.players} policies")
    match = MatchState.new(rules, seed, first_dealer, orders=orders)
    seats = [SeatKnowledge(rules, s) for s in range(rules.players)]
    wrong = missed = 0
    while not match.is_over:
        if match.deal_no > max_deals:
            match = match.stop_at_deal_limit()
            break
        deal, deal_no = match.deal, match.deal_no
        for s, k in enumerate(seats):
            k.start_deal(deal.dealer, deal.hand(s), _first_upcard(deal), deal.stock_size)
        seen = 0
        while True:
            events = deal.events()
            for event in events[seen:]:
                for s, k in enumerate(seats):
                    k.feed(visible_event(event, s))
            seen = len(events)
            if deal.is_over:
                break
            seat = deal.to_act
            legal = deal.legal_actions()
            action = policies[seat].decide(seats[seat], legal)
            if CLAIM in legal:
                reached = deal.total(rules.side_of[seat]) >= rules.claim_target
                wrong += action == CLAIM and not reached
                missed += action != CLAIM and reached
            match = match.apply(action)
            if match.is_over or match.deal_no != deal_no:
                final = match.results[-1].final
                assert final is not None
                deal = final
            else:
                deal = match.deal
    outcome = match.outcome
    assert outcome is not None
    return LocalResult(match.game_points, outcome.winner, len(match.results), wrong, missed)


def _first_upcard(deal: object) -> Card:
    from arena.game import DealState

    assert isinstance(deal, DealState)
    up = deal.up_card
    assert up is not None  # a fresh deal: the up-card lies under the stock
    return up


# -- from the SDK's messages -------------------------------------------------------------------------


def engine_event(msg: object) -> Event | None:
    """An N-seat event line (PROTOCOL.md §9) as the engine event it reports, as the seat saw it."""
    from protocol.messages import Claim, Draw, Exchange, Marriage, Played, Trick

    match msg:
        case Played(who, card):
            return Event(EventKind.PLAY, int(who), (card,))
        case Trick(who, led, followed, more):
            return Event(EventKind.TRICK, int(who), (led, followed, *more))
        case Draw(who, card):
            return Event(EventKind.DRAW, int(who), (card,) if card is not None else ())
        case Marriage(who, suit, points):
            return Event(EventKind.MARRIAGE, int(who), (Card(suit, Rank.KING), Card(suit, Rank.QUEEN)),
                         points, suit)
        case Exchange(who, took, gave):
            return Event(EventKind.EXCHANGE, int(who), (took, gave))
        case Claim(who):
            return Event(EventKind.CLAIM, int(who))
    return None


class ViewTracker:
    """Keeps a ``SeatKnowledge`` from the SDK's hooks in a three- or four-player match (None in a
    two-player one, where the bots' own two-player code runs)."""

    def __init__(self) -> None:
        self.knowledge: SeatKnowledge | None = None

    def match_start(self, view: BotView) -> None:
        nseat = view.players > 2 and view.seat is not None
        self.knowledge = SeatKnowledge(view.rules, view.seat) if nseat and view.seat is not None \
            else None

    def deal_start(self, view: BotView) -> None:
        k = self.knowledge
        if k is not None:
            assert view.upcard is not None and view.dealer is not None
            k.start_deal(int(view.dealer), view.hand, view.upcard, view.stock_size)

    def event(self, msg: object) -> None:
        if self.knowledge is not None:
            event = engine_event(msg)
            if event is not None:
                self.knowledge.feed(event)
