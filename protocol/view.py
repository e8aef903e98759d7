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
from typing import Mapping

from arena.game import PROFILES, Action, Card, Rank, Rules, RulesError, Suit
from arena.game.rules import FLAG_FIELDS, MarriageCredit
from protocol.messages import (Claim, Close, DealStart, Draw, Exchange, Hello, Marriage, MatchEnd,
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


@dataclass(slots=True)
class _Shown:
    who: Player
    suit: Suit
    points: int
    tricks_before: int  # the declarer's tricks when shown (marriage_credit=next_trick_after_meld)


class BotView:
    """Everything a bot has been told, organised. Attributes are maintained by ``update()``; read
    them, do not assign them. Pairs are ``(mine, theirs)``."""

    def __init__(self) -> None:
        self._reset_match()

    def _reset_match(self) -> None:
        # The match (PROTOCOL.md §3).
        self.match_id: str | None = None
        self.profile: str | None = None
        self.target = 0
        self.seat: int | None = None
        self.opponent: str | None = None
        self.decision_ms = 0
        self.rules: Rules = DEFAULT_RULES
        self.rules_warnings: tuple[str, ...] = ()
        self._rule_flags: dict[str, str] = {}
        self.score: tuple[int, ...] = (0, 0)
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
        self.closer: Who | None = None
        self.exchanged_by: Player | None = None
        self.claimed_by: Player | None = None
        self.leader: Player | None = None         # who leads the current (or next) trick
        self.led: Card | None = None           # the card led to the current trick
        self.trick_no = 0                      # tricks completed
        self.last_trick_winner: Player | None = None
        self.request: Request | None = None    # the request being answered, if any
        self.deal_over = False
        self._hand: set[Card] = set()
        self._played: list[Card] = []
        self._won: dict[Player, list[Card]] = {Who.ME: [], Who.OPP: []}
        self._tricks: dict[Player, int] = {Who.ME: 0, Who.OPP: 0}
        self._shown: list[_Shown] = []
        self._opp_known: set[Card] = set()

    # -- folding messages in ----------------------------------------------------------------------

    def update(self, msg: RefereeMessage) -> None:
        """Fold one referee message into the view."""
        match msg:
            case Played(who, card):
                self._played.append(card)
                (self._hand if who is Who.ME else self._opp_known).discard(card)
                if self.led is None:
                    self.led, self.leader = card, who
            case Trick(who=who):
                self._won.setdefault(who, []).extend(msg.cards)
                self._tricks[who] = self._tricks.get(who, 0) + 1
                self.trick_no += 1
                self.leader = self.last_trick_winner = who  # the winner leads next (RULES.md §4)
                self.led = None
            case Draw(who, card):
                self._draw(who, card)
            case Marriage(who, suit, points):
                self._shown.append(_Shown(who, suit, points, self._tricks.get(who, 0)))
                if who is Who.OPP:
                    # Both cards were shown; he holds them until he plays them.
                    self._opp_known |= {Card(suit, Rank.KING), Card(suit, Rank.QUEEN)}
            case Exchange(who, took, gave):
                if who is Who.ME:
                    self._hand.discard(gave)
                    self._hand.add(took)
                else:
                    self._opp_known.discard(gave)
                    self._opp_known.add(took)
                self.stock_bottom = gave
                # At a close (DP-X) the card goes under a stock that is already face down.
                self.upcard = gave if self.stock_state is StockState.OPEN else None
                self.exchanged_by = who
            case Close(who):
                self.closer = who
                self.stock_state = StockState.CLOSED
                self.upcard = None  # turned face down (RULES.md §5.5); stock_bottom stays known
            case Claim(who):
                self.claimed_by = who
            case Request():
                self.request = msg
            case DealStart():
                self._start_deal(msg)
            case Settle(score=score, pot=pot):
                self.last_settle = msg
                self.score, self.pot = score, pot
                self.deal_over = True
                self.request = None
            case MatchStart():
                self._reset_match()  # a new match forgets the old one
                self.match_id, self.profile, self.target = msg.match_id, msg.profile, msg.target
                self.seat, self.opponent, self.decision_ms = msg.seat, msg.opponent, msg.decision_ms
                # The profile's flags until the rules line (which lists them all) says otherwise.
                self.rules = PROFILES.get(msg.profile, DEFAULT_RULES)
            case RulesLine():
                # Several rules lines may come (PROTOCOL.md §3); their flags add up.
                self._rule_flags.update(msg.as_dict())
                self.rules, self.rules_warnings = rules_from_line(self.profile or "sixty_six",
                                                                  self._rule_flags)
            case MatchEnd(score=score):
                self.match_end = msg
                self.score = score
                self.request = None
            case Hello() | Unknown():
                pass

    def _start_deal(self, msg: DealStart) -> None:
        self._reset_deal()
        self.deal_no, self.dealer = msg.deal_no, msg.dealer
        self.trump = msg.upcard.suit
        self.upcard = self.stock_bottom = msg.upcard
        self.stock_size = msg.stock
        self._hand = set(msg.hand)
        self.score, self.pot = msg.score, msg.pot
        self.leader = msg.dealer.other if isinstance(msg.dealer, Who) else None  # the non-dealer leads to trick 1 (RULES.md §2.5)

    def _draw(self, who: Player, card: Card | None) -> None:
        # Each draw takes one card; the up-card is in the count and is drawn last (RULES.md §5.2).
        self.stock_size -= 1
        if who is Who.ME:
            assert card is not None
            self._hand.add(card)
        elif card is not None:
            self._opp_known.add(card)  # the face-up card: public
        if card is not None and card is self.stock_bottom:
            self.upcard = self.stock_bottom = None
        if self.stock_size <= 0:
            self.stock_size = 0
            self.upcard = self.stock_bottom = None
            self.stock_state = StockState.EXHAUSTED

    # -- what the bot holds and has seen -----------------------------------------------------------

    @property
    def hand(self) -> tuple[Card, ...]:
        """My cards, by suit and strongest first."""
        return tuple(sorted(self._hand))

    @property
    def played(self) -> tuple[Card, ...]:
        """Every card played this deal, in order (both players)."""
        return tuple(self._played)

    @property
    def won_by_me(self) -> tuple[Card, ...]:
        return tuple(self._won[Who.ME])

    @property
    def won_by_opp(self) -> tuple[Card, ...]:
        return tuple(self._won[Who.OPP])

    @property
    def tricks_won(self) -> tuple[int, int]:
        return self._tricks[Who.ME], self._tricks[Who.OPP]

    @property
    def marriages(self) -> tuple[ShownMarriage, ...]:
        """Marriages shown this deal, in order, with whether each counts yet."""
        return tuple(ShownMarriage(m.who, m.suit, m.points, self._credited(m)) for m in self._shown)

    @property
    def opp_known(self) -> frozenset[Card]:
        """Cards the opponent certainly holds: a shown marriage's cards not yet played, the up-card
        he took by exchanging, the face-up card he drew."""
        return frozenset(self._opp_known)

    @property
    def unseen(self) -> frozenset[Card]:
        """Cards of the pack I know nothing about: in the opponent's hand or in the stock."""
        known = self._hand | self._opp_known | set(self._played)
        if self.stock_bottom is not None:
            known.add(self.stock_bottom)
        return frozenset(c for c in self.rules.pack.cards if c not in known)

    @property
    def opp_possible(self) -> frozenset[Card]:
        """Cards the opponent may hold. Once the stock is exhausted this is exactly his hand."""
        return self.opp_known | self.unseen

    @property
    def opp_hand_size(self) -> int:
        # Hands are equal between tricks; during a trick the leader is one card short.
        if self.led is None:
            return len(self._hand)
        return len(self._hand) - 1 if self.leader is Who.OPP else len(self._hand) + 1

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
        """RULES.md §5.4: a marriage counts once its declarer has a trick (any trick by default;
        a trick won after showing it with marriage_credit=next_trick_after_meld)."""
        tricks = self._tricks[m.who]
        if self.rules.marriage_credit is MarriageCredit.NEXT_TRICK_AFTER_MELD:
            return tricks > m.tricks_before
        return tricks > 0

    def _last_trick_bonus(self, who: Who) -> int:
        """RULES.md §7.1: the last trick of a deal played out with the stock exhausted, never closed
        (a closed stock stays closed, so an exhausted one was never closed)."""
        played_out = (self.stock_state is StockState.EXHAUSTED and not self._hand
                      and self.led is None and self.trick_no > 0)
        return self.rules.last_trick_bonus if played_out and self.last_trick_winner is who else 0

    def points(self, who: Who) -> int:
        """``who``'s total by RULES.md §7.1, from what was shown: every won card is public."""
        cards = sum(c.points for c in self._won[who])
        melds = sum(m.points for m in self._shown if m.who is who and self._credited(m))
        return cards + melds + self._last_trick_bonus(who)

    def my_points(self) -> int:
        """My total: card points of my tricks, my credited marriages, the last-trick bonus."""
        return self.points(Who.ME)

    def opp_points_known(self) -> int:
        """The opponent's total as far as it is known (it is exactly known: all of it is public)."""
        return self.points(Who.OPP)

    def pending_marriage_points(self, who: Who = Who.ME) -> int:
        """Marriage points shown by ``who`` that will count once he wins a trick."""
        return sum(m.points for m in self._shown if m.who is who and not self._credited(m))

    def __repr__(self) -> str:
        return (f"<BotView deal={self.deal_no} trump={self.trump} stock={self.stock_size}/"
                f"{self.stock_state} hand={' '.join(map(str, self.hand))} "
                f"points={self.my_points()}-{self.opp_points_known()}>")
