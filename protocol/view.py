"""What a bot has seen of its match, kept up to date from the referee's messages (bot side).

``BotView.update(message)`` folds one decoded message into the view; the SDK calls it for every line
before it asks the bot anything. The view holds only what the messages said, plus what follows from
them by the rules (the stock size, which cards are still unseen, which marriages count). It never
knows more than the bot was told: the referee sends no totals during a deal (RULES.md §3, the mental
count), so ``my_points()`` is the bot counting for itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Callable, Mapping

from arena.game import PROFILES, Action, Card, Rank, Rules, RulesError, Suit
from arena.game.rules import FLAG_FIELDS, MarriageCredit
from protocol.messages import (Claim, Clock, Close, DealStart, Draw, Exchange, Hello, Marriage, MatchEnd,
                               MatchStart, Played, RefereeMessage, Request, RulesLine, Settle,
                               Trick, Unknown, Who)
from protocol.messages import Player

DEFAULT_RULES = PROFILES["sixty_six"]


class StockState(StrEnum):
    """RULES.md §0.3: the stock is open (phase 1), then closed or exhausted (phase 2)."""

    OPEN = "open"
    CLOSED = "closed"
    EXHAUSTED = "exhausted"


@dataclass(frozen=True, slots=True)
class ShownMarriage:
    """A marriage as the bot saw it, and whether its points count yet (RULES.md §5.4)."""

    who: Player
    suit: Suit
    points: int
    credited: bool


def rules_from_line(profile: str, flags: Mapping[str, str]) -> tuple[Rules, tuple[str, ...]]:
    """The rules of a ``match`` + ``rules`` pair, and warnings for what had to be ignored.

    A newer referee may list flags this engine does not know (PROTOCOL.md §8) or use a profile name
    it has never heard of. A bot cannot refuse to read the line, so it keeps every flag it
    understands and says on stderr what it dropped; a bot that must not guess can check the
    warnings and exit.
    """
    if profile in PROFILES:
        # The usual line lists exactly its profile's flags: then the profile is the answer, with
        # no flag coerced (that took ~0.4 ms of a bot's CPU per match).
        texts = _profile_texts(profile)
        if all(texts.get(name) == value for name, value in flags.items()):
            return PROFILES[profile], ()
    warnings = []
    known = {}
    for name, value in flags.items():
        if name in FLAG_FIELDS:
            known[name] = value
        else:
            warnings.append(f"unknown rules flag {name}={value} ignored")
    base = profile
    if profile not in PROFILES:
        warnings.append(f"unknown profile {profile!r}: its flags are applied to sixty_six")
        base = "sixty_six"
    try:
        return Rules.from_dict({"profile": base, **known}), tuple(warnings)
    except RulesError as err:
        warnings.append(f"rules line not usable ({err}); playing by the {base} profile")
        return PROFILES[base], tuple(warnings)


_PROFILE_FLAG_TEXTS: dict[str, dict[str, str]] = {}


def _profile_texts(profile: str) -> dict[str, str]:
    """Every flag of a known profile as the rules line writes it (``true``/``false``, numbers and
    names as text: ``RulesLine.from_rules``), made once per profile and process."""
    texts = _PROFILE_FLAG_TEXTS.get(profile)
    if texts is None:
        rules = PROFILES[profile]
        texts = {}
        for name in FLAG_FIELDS:
            value = getattr(rules, name)
            texts[name] = ("true" if value else "false") if isinstance(value, bool) else str(value)
        _PROFILE_FLAG_TEXTS[profile] = texts
    return texts


@dataclass(slots=True)
class _Shown:
    who: Player
    suit: Suit
    points: int
    tricks_before: int  # the declarer's side's tricks when shown (next_trick_after_meld)


_SEATS: dict[int, tuple[Player, ...]] = {2: (Who.ME, Who.OPP), 3: (0, 1, 2), 4: (0, 1, 2, 3)}
_SIDES: dict[int, tuple[Player, ...]] = {2: (Who.ME, Who.OPP), 3: (0, 1, 2), 4: (0, 1)}
"""``seats`` and ``sides_keys`` by number of players, for the per-deal reset."""


def _take(cards: list[Card], card: Card) -> None:
    """One copy of ``card`` out of ``cards``, if there is one (two packs: a card may be there twice)."""
    if card in cards:  # not try/except: an opponent's card is mostly not known, and raising is dear
        cards.remove(card)


class BotView:
    """Everything a bot has been told, organised. Attributes are maintained by ``update()``; read
    them, do not assign them.

    Two players (PROTOCOL.md §3-§7): players are ``Who.ME``/``Who.OPP`` and pairs are
    ``(mine, theirs)``. Three or four players (§9): players are seat numbers, a *side* is a seat
    (three players) or a partnership (four: seats 0+2 are side 0, 1+3 side 1), and per-side tuples
    are in side order, side 0 first. ``me``, ``my_side``, ``seats`` and ``side_of`` hide the
    difference for code that serves both.
    """

    def __init__(self) -> None:
        self._reset_match()

    def _reset_match(self) -> None:
        # The match (PROTOCOL.md §3, §9).
        self.match_id: str | None = None
        self.profile: str | None = None
        self.target = 0
        self.seat: int | None = None
        self.players = 2
        self.names: tuple[str, ...] = ()       # every seat's name in seat order (§9 only)
        self.opponent: str | None = None       # two players only
        self.decision_ms = 0
        # PROTOCOL.md §6: the first decision's limit and the match's time bank (the clock line;
        # without one, the first decision has decision_ms and there is no bank).
        self.first_decision_ms = 0
        self.bank_ms = 0
        self.rules: Rules = DEFAULT_RULES
        self.rules_warnings: tuple[str, ...] = ()
        self._rule_flags: dict[str, str] = {}
        self.score: tuple[int, ...] = (0, 0)  # (mine, theirs), or per side with three or four
        self.pot = 0
        self.last_settle: Settle | None = None
        self.match_end: MatchEnd | None = None
        self._reset_deal()

    def _reset_deal(self) -> None:
        self.deal_no = 0
        self.dealer: Player | None = None
        self.trump: Suit | None = None
        self.upcard: Card | None = None        # the face-up card under an open stock
        self.stock_bottom: Card | None = None  # the bottom card, known even once face down
        self.stock_size = 0                    # the up-card included (PROTOCOL.md §4)
        self.stock_state = StockState.OPEN
        self.closer: Player | None = None
        self.exchanged_by: Player | None = None
        self.claimed_by: Player | None = None
        self.leader: Player | None = None      # who leads the current (or next) trick
        self.led: Card | None = None           # the card led to the current trick
        self.trick_no = 0                      # tricks completed
        self.last_trick_winner: Player | None = None
        self.request: Request | None = None    # the request being answered, if any
        self.deal_over = False
        self.dead_pile: tuple[Card, ...] = ()  # three players: shown by the settle line (§9)
        self._hand: list[Card] = []            # a list: with two packs a card may be held twice
        self._played_cards: list[Card] = []
        seats = _SEATS.get(self.players) or self.seats
        sides = _SIDES.get(self.players) or self.sides_keys
        self._played_by: dict[Player, list[Card]] = {p: [] for p in seats}
        self._table: list[tuple[Player, Card]] = []
        self._tricks_seen: list[tuple[Player, tuple[Card, ...]]] = []
        self._won: dict[Player, list[Card]] = {s: [] for s in sides}
        self._tricks: dict[Player, int] = dict.fromkeys(sides, 0)
        self._shown: list[_Shown] = []
        self._known: dict[Player, list[Card]] = {p: [] for p in seats}
        self._hand_sizes: dict[Player, int] = dict.fromkeys(seats, 0)

    # -- seats and sides ---------------------------------------------------------------------------

    @property
    def nseat(self) -> bool:
        """Three or four players (PROTOCOL.md §9)."""
        return self.players != 2

    @property
    def me(self) -> Player:
        """How the lines name the reader: ``Who.ME``, or its seat number with more players."""
        if self.players == 2:
            return Who.ME
        assert self.seat is not None
        return self.seat

    @property
    def seats(self) -> tuple[Player, ...]:
        """Every player as the lines name them: (ME, OPP), or the seat numbers in order."""
        return (Who.ME, Who.OPP) if self.players == 2 else tuple(range(self.players))

    @property
    def sides(self) -> int:
        """How many sides score: 2 with two or four players, 3 with three (RULES.md §10)."""
        return 2 if self.players in (2, 4) else 3

    @property
    def sides_keys(self) -> tuple[Player, ...]:
        """Every side as ``points()`` takes it: (ME, OPP), or the side numbers in order."""
        return (Who.ME, Who.OPP) if self.players == 2 else tuple(range(self.sides))

    def side_of(self, player: Player) -> Player:
        """The side ``player`` scores for: itself with two or three players, its partnership
        (seat mod 2) with four."""
        if isinstance(player, Who):
            return player
        return player % self.sides

    @property
    def my_side(self) -> Player:
        return self.side_of(self.me)

    @property
    def partner(self) -> int | None:
        """The seat opposite (four players), else None."""
        if self.players != 4 or self.seat is None:
            return None
        return (self.seat + 2) % 4

    @property
    def opponents(self) -> tuple[Player, ...]:
        """The players of every other side."""
        mine = self.my_side
        return tuple(p for p in self.seats if self.side_of(p) != mine)

    @property
    def claim_target(self) -> int:
        """The card points a side needs to claim: 66, or 101 with four players (the rules line)."""
        return self.rules.claim_target

    def _next(self, player: Player) -> Player:
        if isinstance(player, Who):
            return player.other
        return (player + 1) % self.players

    # -- folding messages in ----------------------------------------------------------------------

    def update(self, msg: RefereeMessage) -> None:
        """Fold one referee message into the view."""
        fold = _FOLD.get(type(msg))
        if fold is None:  # a subclass of a message type
            fold = next((f for t, f in _FOLD.items() if isinstance(msg, t)), _ignore)
        fold(self, msg)

    # One method per event, taking the event's fields: the SDK's fast path calls these straight
    # from the words of a line, without building the message when no hook wants it.

    def _played(self, who: Player, card: Card) -> None:
        self._played_cards.append(card)
        self._played_by[who].append(card)
        self._hand_sizes[who] -= 1
        if who == (Who.ME if self.players == 2 else self.me):
            _take(self._hand, card)
        else:
            _take(self._known[who], card)
        if not self._table:
            self.led, self.leader = card, who
        self._table.append((who, card))

    def _trick(self, who: Player, cards: tuple[Card, ...]) -> None:
        side = self.side_of(who)
        self._won[side] += cards
        self._tricks[side] += 1
        self._tricks_seen.append((who, cards))
        self.trick_no += 1
        self.leader = self.last_trick_winner = who  # the winner leads next (RULES.md §4)
        self.led = None
        self._table = []

    def _marriage(self, who: Player, suit: Suit, points: int) -> None:
        self._shown.append(_Shown(who, suit, points, self._tricks[self.side_of(who)]))
        if who != self.me:
            # Both cards were shown; the declarer holds them until it plays them.
            known = self._known[who]
            for shown in (Card(suit, Rank.KING), Card(suit, Rank.QUEEN)):
                if shown not in known:  # two packs: perhaps the very card already known
                    known.append(shown)

    def _exchange(self, who: Player, took: Card, gave: Card) -> None:
        held = self._hand if who == self.me else self._known[who]
        _take(held, gave)
        held.append(took)
        self.stock_bottom = gave
        # At a close (DP-X) the card goes under a stock that is already face down.
        self.upcard = gave if self.stock_state is StockState.OPEN else None
        self.exchanged_by = who

    def _close(self, who: Player) -> None:
        self.closer = who
        self.stock_state = StockState.CLOSED
        self.upcard = None  # turned face down (RULES.md §5.5); stock_bottom stays known

    def _claim(self, who: Player) -> None:
        self.claimed_by = who

    def _settle(self, msg: Settle) -> None:
        self.last_settle = msg
        self.score, self.pot = msg.score, msg.pot
        self.dead_pile = msg.dead
        self.deal_over = True
        self.request = None

    def _match_start(self, msg: MatchStart) -> None:
        self._reset_match()  # a new match forgets the old one
        self.match_id, self.profile, self.target = msg.match_id, msg.profile, msg.target
        self.seat, self.opponent, self.decision_ms = msg.seat, msg.opponent, msg.decision_ms
        self.first_decision_ms = msg.decision_ms
        self.players, self.names = msg.players, msg.names
        self.score = (0,) * self.sides
        # The profile's flags until the rules line (which lists them all) says otherwise.
        self.rules = PROFILES.get(msg.profile, DEFAULT_RULES)
        self._reset_deal()

    def _clock(self, msg: Clock) -> None:
        self.first_decision_ms, self.bank_ms = msg.first_decision_ms, msg.bank_ms

    def _rules_line(self, msg: RulesLine) -> None:
        # Several rules lines may come (PROTOCOL.md §3); their flags add up.
        self._rule_flags.update(msg.flags)
        self.rules, self.rules_warnings = rules_from_line(self.profile or "sixty_six",
                                                          self._rule_flags)

    def _match_end(self, msg: MatchEnd) -> None:
        self.match_end = msg
        self.score = msg.score
        self.request = None

    def _start_deal(self, msg: DealStart) -> None:
        self._deal(msg.deal_no, msg.dealer, msg.upcard, msg.stock, msg.hand, msg.score, msg.pot)

    def _deal(self, deal_no: int, dealer: Player, upcard: Card, stock: int,
              hand: tuple[Card, ...], score: tuple[int, ...], pot: int) -> None:
        self._reset_deal()
        self.deal_no, self.dealer = deal_no, dealer
        self.trump = upcard.suit
        self.upcard = self.stock_bottom = upcard
        self.stock_size = stock
        self._hand = list(hand)
        # Everyone is dealt as many (RULES.md §2, §10).
        self._hand_sizes = dict.fromkeys(self._hand_sizes, len(hand))
        self.score, self.pot = score, pot
        # The non-dealer leads to trick 1 (RULES.md §2.5); with more players the dealer's left
        # (the next seat, §10.4).
        self.leader = self._next(dealer)

    def _draw(self, who: Player, card: Card | None) -> None:
        # Each draw takes one card; the up-card is in the count and is drawn last (RULES.md §5.2).
        self.stock_size -= 1
        self._hand_sizes[who] += 1
        if who == self.me:
            assert card is not None
            self._hand.append(card)
        elif card is not None:
            self._known[who].append(card)  # the face-up card: public
        # With two packs the twin of the bottom card can be drawn from the top: only the last draw
        # takes the face-up card there.
        if card is not None and card is self.stock_bottom and self.rules.pack.copies == 1:
            self.upcard = self.stock_bottom = None
        if self.stock_size <= 0:
            self.stock_size = 0
            self.upcard = self.stock_bottom = None
            self.stock_state = StockState.EXHAUSTED

    # -- what the bot holds and has seen -----------------------------------------------------------

    @property
    def hand(self) -> tuple[Card, ...]:
        """My cards, by suit and strongest first (a card held twice is listed twice)."""
        return tuple(sorted(self._hand))

    @property
    def played(self) -> tuple[Card, ...]:
        """Every card played this deal, in order (every player)."""
        return tuple(self._played_cards)

    def played_by(self, player: Player) -> tuple[Card, ...]:
        """The cards ``player`` played this deal, in order (e.g. the partner's)."""
        return tuple(self._played_by[player])

    @property
    def table(self) -> tuple[tuple[Player, Card], ...]:
        """The current trick so far: (player, card) in the order played, the led card first."""
        return tuple(self._table)

    @property
    def tricks(self) -> tuple[tuple[Player, tuple[Card, ...]], ...]:
        """The tricks completed this deal: (winner, its cards in the order played)."""
        return tuple(self._tricks_seen)

    @property
    def to_play(self) -> Player | None:
        """Who plays the next card of the current trick (None once the deal is over)."""
        if self.deal_over or self.leader is None:
            return None
        if not self._table:
            return self.leader
        return self._next(self._table[-1][0])

    def won_by(self, side: Player) -> tuple[Card, ...]:
        """The cards in ``side``'s tricks (every card of a trick is public)."""
        return tuple(self._won[side])

    @property
    def won_by_me(self) -> tuple[Card, ...]:
        """The cards in my side's tricks."""
        return tuple(self._won[self.my_side])

    @property
    def won_by_opp(self) -> tuple[Card, ...]:
        """The cards in the other sides' tricks."""
        mine = self.my_side
        return tuple(c for side in self.sides_keys if side != mine for c in self._won[side])

    @property
    def tricks_won(self) -> tuple[int, ...]:
        """(mine, theirs) with two players; tricks per side, side 0 first, with more."""
        return tuple(self._tricks[side] for side in self.sides_keys)

    @property
    def marriages(self) -> tuple[ShownMarriage, ...]:
        """Marriages shown this deal, in order, with whether each counts yet."""
        return tuple(ShownMarriage(m.who, m.suit, m.points, self._credited(m)) for m in self._shown)

    def known_cards(self, player: Player) -> tuple[Card, ...]:
        """Cards ``player`` certainly holds: a shown marriage's cards not yet played, the up-card it
        took by exchanging, the face-up card it drew (my own hand for me)."""
        if player == self.me:
            return self.hand
        return tuple(sorted(self._known[player]))

    @property
    def opp_known(self) -> frozenset[Card]:
        """Cards the opponent certainly holds (two players; with more, every other player's)."""
        me = self.me
        return frozenset(c for p, cards in self._known.items() if p != me for c in cards)

    def unseen_counts(self) -> dict[Card, int]:
        """How many copies of each card I know nothing about: in other hands, the stock, or (three
        players) the dead pile. Two packs (four players) hold every card twice."""
        counts = dict.fromkeys(self.rules.pack.cards, 0)
        for card in self.rules.pack.cards:
            counts[card] += 1
        me = self.me
        seen = self._hand + self._played_cards + [c for p, cards in self._known.items() if p != me
                                            for c in cards] + list(self.dead_pile)
        if self.stock_bottom is not None:
            seen.append(self.stock_bottom)
        for card in seen:
            if counts.get(card, 0) > 0:
                counts[card] -= 1
        return {card: n for card, n in counts.items() if n}

    @property
    def unseen(self) -> frozenset[Card]:
        """Cards of the pack I know nothing about (at least one copy of each): in the other hands
        or in the stock (or, three players, the dead pile)."""
        return frozenset(self.unseen_counts())

    @property
    def opp_possible(self) -> frozenset[Card]:
        """Cards the opponent may hold. Once the stock is exhausted this is exactly his hand (two
        players; with more, what any other player may hold)."""
        return self.opp_known | self.unseen

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """Every player's number of cards in hand, in ``seats`` order."""
        return tuple(self._hand_sizes[p] for p in self.seats)

    @property
    def opp_hand_size(self) -> int:
        """The opponent's cards in hand (with more players: the next seat's)."""
        return self._hand_sizes[self._next(self.me)]

    @property
    def phase(self) -> int:
        """1 while the stock is open, 2 once it is closed or exhausted (RULES.md §0.3)."""
        return 1 if self.stock_state is StockState.OPEN else 2

    @property
    def decision(self) -> str | None:
        return self.request.decision if self.request is not None else None

    @property
    def legal(self) -> tuple[Action, ...]:
        return self.request.actions if self.request is not None else ()

    # -- the mental count --------------------------------------------------------------------------

    def _credited(self, m: _Shown) -> bool:
        """RULES.md §5.4 (§10.3 for a side): a marriage counts once its declarer's side has a trick
        (any trick by default; a trick won after showing it with
        marriage_credit=next_trick_after_meld)."""
        tricks = self._tricks[self.side_of(m.who)]
        if self.rules.marriage_credit is MarriageCredit.NEXT_TRICK_AFTER_MELD:
            return tricks > m.tricks_before
        return tricks > 0

    def _last_trick_bonus(self, side: Player) -> int:
        """RULES.md §7.1: the last trick of a deal played out with the stock exhausted, never closed
        (a closed stock stays closed, so an exhausted one was never closed)."""
        played_out = (self.stock_state is StockState.EXHAUSTED and not self._hand
                      and not self._table and self.trick_no > 0)
        winner = self.last_trick_winner
        if not played_out or winner is None or self.side_of(winner) != side:
            return 0
        return self.rules.last_trick_bonus

    def points(self, side: Player) -> int:
        """``side``'s total by RULES.md §7.1 (§10: partners pool theirs), from what was shown: every
        won card is public. ``side`` is ``Who`` with two players, a side number with more."""
        cards = sum(c.points for c in self._won[side])
        melds = sum(m.points for m in self._shown
                    if self.side_of(m.who) == side and self._credited(m))
        return cards + melds + self._last_trick_bonus(side)

    def my_points(self) -> int:
        """My side's total: card points of my (and my partner's) tricks, credited marriages, the
        last-trick bonus. A claim is correct at ``claim_target`` or more."""
        return self.points(self.my_side)

    def opp_points_known(self) -> int:
        """The opponent's total as far as it is known (it is exactly known: all of it is public).
        With three players: the best of the two others."""
        mine = self.my_side
        return max(self.points(side) for side in self.sides_keys if side != mine)

    def pending_marriage_points(self, side: Player | None = None) -> int:
        """Marriage points shown by ``side`` (default: mine) that will count once it wins a trick."""
        side = self.my_side if side is None else side
        return sum(m.points for m in self._shown
                   if self.side_of(m.who) == side and not self._credited(m))

    def __repr__(self) -> str:
        return (f"<BotView deal={self.deal_no} trump={self.trump} stock={self.stock_size}/"
                f"{self.stock_state} hand={' '.join(map(str, self.hand))} "
                f"points={self.my_points()}-{self.opp_points_known()}>")


def _ignore(view: BotView, msg: RefereeMessage) -> None:
    pass


def _set_request(view: BotView, msg: Request) -> None:
    view.request = msg


_FOLD: dict[type, Callable[[BotView, Any], None]] = {
    Played: lambda view, msg: view._played(msg.who, msg.card),
    Trick: lambda view, msg: view._trick(msg.who, msg.cards),
    Draw: lambda view, msg: view._draw(msg.who, msg.card),
    Marriage: lambda view, msg: view._marriage(msg.who, msg.suit, msg.points),
    Exchange: lambda view, msg: view._exchange(msg.who, msg.took, msg.gave),
    Close: lambda view, msg: view._close(msg.who),
    Claim: lambda view, msg: view._claim(msg.who),
    Request: _set_request,
    DealStart: BotView._start_deal,
    Settle: BotView._settle,
    MatchStart: BotView._match_start,
    Clock: BotView._clock,
    RulesLine: BotView._rules_line,
    MatchEnd: BotView._match_end,
    Hello: _ignore,
    Unknown: _ignore,
}
"""How each message type folds into the view (a dict: a ``match`` over fifteen class patterns
tried them in turn for every line)."""
