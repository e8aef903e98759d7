"""The messages of protocol version 1 (PROTOCOL.md) as small frozen value types.

Each message is the decoded form of exactly one line: ``codec.encode`` writes it, the ``decode_*``
functions read it, and ``decode(encode(m)) == m`` for every message. Constructors check the facts a
line must respect (a seat is 0 or 1, a marriage is worth 20 or 40, ...), so a message that exists
can always be written; a bad value is a ``ValueError`` naming the field.

Cards, suits and actions are the engine's own types (``arena.game``): their text forms are the wire
forms (``TH``, ``H``, ``play:TH``).

Two players are named relative to the reader (``Who``: ``me``/``opp``); with three or four players
(PROTOCOL.md §9) every player is a seat number and every per-side figure a list of one number per
side. The same message types carry both forms: a ``who`` is a ``Player`` (``Who | int``), and which
form a message has follows from its values (a ``Who`` or a seat number; a pair or a list per side).
Two-player messages keep exactly the types and text they had before §9.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Union

from arena.game import Action, Card, Rules, SettleReason, Suit
from arena.game.match import MatchEnd as _MatchEndReason  # the message below takes the name


class Who(StrEnum):
    """Every message names players relative to its reader (PROTOCOL.md §2)."""

    ME = "me"
    OPP = "opp"

    @staticmethod
    def of(seat: int, reader: int) -> Who:
        """How ``reader`` refers to ``seat``."""
        return Who.ME if seat == reader else Who.OPP

    @property
    def other(self) -> Who:
        return Who.OPP if self is Who.ME else Who.ME

    def __repr__(self) -> str:
        return f"Who.{self.name}"


Player = Union[Who, int]
"""How a line names a player: ``Who`` with two players, a seat number with three or four."""

MAX_PLAYERS = 4
N_SEAT_PLAYERS: tuple[int, ...] = (3, 4)
"""Player counts of PROTOCOL.md §9 (two players are §3-§7)."""
SIDE_COUNTS: tuple[int, ...] = (2, 3)
"""Sides of an N-seat match: 3 with three players, 2 partnerships with four."""


class Fault(StrEnum):
    """What a bot did wrong (PROTOCOL.md §5). Also the ``fault`` word of ``match_end``."""

    TIMEOUT = "timeout"
    ILLEGAL_ACTION = "illegal_action"
    MALFORMED = "malformed"
    UNSOLICITED = "unsolicited"
    LINE_TOO_LONG = "line_too_long"
    EXIT = "exit"

    def __repr__(self) -> str:
        return f"Fault.{self.name}"


REQUEST_DECISIONS: tuple[str, ...] = ("lead", "follow", "after_trick", "close_exchange",
                                      "between_tricks")
"""The decision points a request may name (PROTOCOL.md §4.1), in RULES.md §4 order."""

SETTLE_REASONS: frozenset[str] = frozenset(str(r) for r in SettleReason)
MATCH_END_REASONS: frozenset[str] = frozenset(str(r) for r in _MatchEndReason)
MARRIAGE_POINTS: frozenset[int] = frozenset({20, 40})

NAME_RE = re.compile(r"[A-Za-z0-9_.+\-]{1,64}")
"""A bot name (PROTOCOL.md §3)."""
_NOT_NAME_RE = re.compile(r"[^A-Za-z0-9_.+\-]+")


def wire_name(text: str) -> str:
    """``text`` made into a valid bot name (e.g. a display name taken from a file name, for the
    ``opponent`` field): other characters become ``_``, and it is cut to 64 characters."""
    return _NOT_NAME_RE.sub("_", text)[:64] or "bot"


WORD_RE = re.compile(r"[!-~]+")
"""A word: printable ASCII without spaces (match ids, profile names, flag values)."""
FLAG_RE = re.compile(r"[a-z][a-z0-9_]*")
"""A rules flag name (RULES.md §11 names are snake_case)."""


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(message)


# The checks below build their message only when they fail: every line a bot reads is checked, and an
# f-string with a repr() per field cost more than the decoding itself.


def _check_count(value: object, field: str, least: int = 0) -> None:
    # bool is an int subclass; a True where a count belongs is always a bug.
    if not (type(value) is int and value >= least):
        raise ValueError(f"{field} must be a whole number >= {least}, not {value!r}")


def _check_pair(value: object, field: str) -> None:
    _check(isinstance(value, tuple) and len(value) == 2, f"{field} must be a pair (mine, theirs)")
    assert isinstance(value, tuple)
    for part in value:
        _check_count(part, field)


def _check_per_side(value: object, field: str, sides: int) -> None:
    if not (isinstance(value, tuple) and len(value) == sides):
        raise ValueError(f"{field} must list one number per side ({sides}), not {value!r}")
    for part in value:
        _check_count(part, field)


def _check_sides(value: object, field: str) -> int:
    """The number of sides of an N-seat per-side list (PROTOCOL.md §9: 3 with three players, 2 with
    four)."""
    if not (isinstance(value, tuple) and len(value) in SIDE_COUNTS):
        raise ValueError(f"{field} must list one number per side (2 or 3 sides), not {value!r}")
    return len(value)


def _check_copies(cards: tuple[Card, ...], field: str, copies: int) -> None:
    """No card more often than the packs hold it (two packs with four players: RULES.md §10.3)."""
    seen: dict[Card, int] = {}
    for card in cards:
        seen[card] = seen.get(card, 0) + 1
        if seen[card] > copies:
            raise ValueError(f"{field} lists {card} {'twice' if copies == 1 else 'three times'}"
                             + ("" if copies == 1 else " (two packs hold every card twice)"))


def _check_card(value: object, field: str) -> None:
    if type(value) is not Card:
        raise ValueError(f"{field} must be a Card, not {value!r}")


def _check_name(value: object, field: str) -> None:
    if not (isinstance(value, str) and NAME_RE.fullmatch(value) is not None):
        raise ValueError(f"{field} must be 1 to 64 characters from A-Z a-z 0-9 _ . + -, not "
                         f"{value!r}")


def _check_word(value: object, field: str) -> None:
    if not (isinstance(value, str) and WORD_RE.fullmatch(value) is not None):
        raise ValueError(f"{field} must be a non-empty word of printable ASCII without spaces, "
                         f"not {value!r}")


def _who(value: object, field: str = "who") -> Who:
    if isinstance(value, str) and value in ("me", "opp"):
        return Who(value)
    raise ValueError(f"{field} must be 'me' or 'opp', not {value!r}")


def _is_seat(value: object) -> bool:
    return type(value) is int and 0 <= value < MAX_PLAYERS


def _player(value: object, field: str = "who") -> Player:
    """A ``Who`` (two players) or a seat number 0-3 (PROTOCOL.md §9)."""
    if _is_seat(value):
        return value  # type: ignore[return-value]
    if isinstance(value, str) and value in ("me", "opp"):
        return Who(value)
    raise ValueError(f"{field} must be 'me' or 'opp' (a seat number 0-{MAX_PLAYERS - 1} with more "
                     f"players), not {value!r}")


def _side(value: object, field: str, sides: int) -> int:
    _check(type(value) is int and 0 <= value < sides,
           f"{field} must be a side number 0-{sides - 1}, not {value!r}")
    return value  # type: ignore[return-value]


def _seats_of(sides: int) -> int:
    """Seats at a table with ``sides`` sides, N-seat only: 3 sides are 3 seats, 2 sides are the two
    partnerships of four players (PROTOCOL.md §9)."""
    return 3 if sides == 3 else 4


def _set(obj: object, field: str, value: object) -> None:
    # Frozen dataclasses: normalising a field in __post_init__ needs object.__setattr__.
    object.__setattr__(obj, field, value)


# -- referee to bot: set-up ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello:
    """``sixtysix <version>``: the greeting (PROTOCOL.md §3); with three or four players
    ``sixtysix <version> players <n> profile <profile>`` (§9), which a bot may ``decline``."""

    version: int = 1
    players: int = 2
    profile: str | None = None

    def __post_init__(self) -> None:
        _check_count(self.version, "version", 1)
        if self.players == 2 and type(self.players) is int:
            _check(self.profile is None, "a two-player greeting names no profile")
            return
        _check(self.players in N_SEAT_PLAYERS and type(self.players) is int,
               f"players must be 2, 3 or 4, not {self.players!r}")
        _check_word(self.profile, "profile")

    @property
    def is_nseat(self) -> bool:
        return self.players != 2


@dataclass(frozen=True, slots=True)
class MatchStart:
    """``match <id> profile <p> target <n> seat <0|1> opponent <name> decision_ms <ms>``; with three or
    four players (§9) ``match <id> profile <p> target <n> players <n> seat <k> names <name>...
    decision_ms <ms>``: then ``players`` is 3 or 4, ``names`` every seat's name in seat order and
    ``opponent`` is None."""

    match_id: str
    profile: str
    target: int
    seat: int
    opponent: str | None
    decision_ms: int
    players: int = 2
    names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _check_word(self.match_id, "match_id")
        _check_word(self.profile, "profile")
        _check_count(self.target, "target", 1)
        if self.players == 2 and type(self.players) is int:
            _check(self.seat in (0, 1) and type(self.seat) is int,
                   f"seat must be 0 or 1, not {self.seat!r}")
            _check_name(self.opponent, "opponent")
            _check(self.names == (), "a two-player match names its opponent, not names")
        else:
            _check(self.players in N_SEAT_PLAYERS and type(self.players) is int,
                   f"players must be 2, 3 or 4, not {self.players!r}")
            _check(type(self.seat) is int and 0 <= self.seat < self.players,
                   f"seat must be 0 to {self.players - 1}, not {self.seat!r}")
            _check(self.opponent is None, "a match of more than two players has names, no opponent")
            _check(isinstance(self.names, tuple) and len(self.names) == self.players,
                   f"names must list every seat's name ({self.players}), not {self.names!r}")
            for name in self.names:
                _check_name(name, "every name of names")
        _check_count(self.decision_ms, "decision_ms", 1)

    @property
    def is_nseat(self) -> bool:
        return self.players != 2


@dataclass(frozen=True, slots=True)
class Clock:
    """``clock first_decision_ms <ms> bank_ms <ms>`` (PROTOCOL.md §6): the limit of the bot's first
    decision and its time bank for the match. Sent after ``match`` only when either differs from
    the plain limit (a first decision of ``decision_ms``, no bank); a bot that ignores it, as every
    bot ignores a line it does not know, still plays within ``decision_ms`` each decision."""

    first_decision_ms: int
    bank_ms: int

    def __post_init__(self) -> None:
        _check_count(self.first_decision_ms, "first_decision_ms", 1)
        _check_count(self.bank_ms, "bank_ms", 0)


@dataclass(frozen=True, slots=True)
class RulesLine:
    """``rules <flag>=<value> ...``: every flag in force, in RULES.md §11 names (PROTOCOL.md §3)."""

    flags: tuple[tuple[str, str], ...]

    def __post_init__(self) -> None:
        _check(isinstance(self.flags, tuple), "flags must be a tuple of (name, value) pairs")
        seen = set()
        for pair in self.flags:
            _check(isinstance(pair, tuple) and len(pair) == 2,
                   f"not a (name, value) pair: {pair!r}")
            name, value = pair
            _check(isinstance(name, str) and FLAG_RE.fullmatch(name) is not None,
                   f"flag names are snake_case words, not {name!r}")
            _check_word(value, f"value of flag {name}")
            _check(name not in seen, f"flag {name} is listed twice")
            seen.add(name)

    @staticmethod
    def from_rules(rules: Rules) -> RulesLine:
        """The line the referee sends for ``rules``: booleans as ``true``/``false``."""
        return RulesLine(tuple((name, _flag_text(value)) for name, value in rules.to_dict(compact=True).items()
                               if name != "name"))

    def as_dict(self) -> dict[str, str]:
        return dict(self.flags)


def _flag_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# -- referee to bot: a deal ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DealStart:
    """``deal <n> dealer <who> upcard <card> stock <k> hand <card>... score <m> <t> pot <p>``; with
    three or four players (§9) the dealer is a seat and ``score`` one number per side, side 0 first.
    With four players (two packs) the hand may hold a card twice."""

    deal_no: int
    dealer: Player
    upcard: Card
    stock: int
    hand: tuple[Card, ...]
    score: tuple[int, ...]
    pot: int

    def __post_init__(self) -> None:
        _check_count(self.deal_no, "deal_no", 1)
        _set(self, "dealer", _player(self.dealer, "dealer"))
        _check_card(self.upcard, "upcard")
        # The up-card is part of the stock (PROTOCOL.md §4), so a deal always starts with one.
        _check_count(self.stock, "stock", 1)
        _check(isinstance(self.hand, tuple) and len(self.hand) > 0,
               "hand must be a non-empty tuple")
        for card in self.hand:
            _check_card(card, "every card of hand")
        if isinstance(self.dealer, Who):
            _check(len(set(self.hand)) == len(self.hand), "hand lists a card twice")
            _check(self.upcard not in self.hand, "the up-card cannot be in the hand")
            _check_pair(self.score, "score")
        else:
            sides = _check_sides(self.score, "score")
            _check_per_side(self.score, "score", sides)
            _check(self.dealer < _seats_of(sides),
                   f"dealer must be a seat 0-{_seats_of(sides) - 1}, not {self.dealer}")
            # Three players: one pack. Four players (two sides): two packs, every card twice.
            copies = 1 if sides == 3 else 2
            _check_copies(self.hand + (self.upcard,), "hand and upcard", copies)

    @property
    def is_nseat(self) -> bool:
        return not isinstance(self.dealer, Who)


@dataclass(frozen=True, slots=True)
class Request:
    """``<decision>? <action> ...``: the bot answers with one of ``actions`` (PROTOCOL.md §4.1)."""

    decision: str
    actions: tuple[Action, ...]

    def __post_init__(self) -> None:
        _check(self.decision in REQUEST_DECISIONS,
               f"decision must be one of {', '.join(REQUEST_DECISIONS)}, not {self.decision!r}")
        _check(isinstance(self.actions, tuple) and len(self.actions) > 0,
               "a request lists at least one action")
        for action in self.actions:
            _check(isinstance(action, Action), f"not an Action: {action!r}")
        _check(len(set(self.actions)) == len(self.actions), "a request lists an action twice")


@dataclass(frozen=True, slots=True)
class Played:
    """``played <who> <card>``: a card was led or followed."""

    who: Player
    card: Card

    def __post_init__(self) -> None:
        _set(self, "who", _player(self.who))
        _check_card(self.card, "card")


@dataclass(frozen=True, slots=True)
class Trick:
    """``trick <who> <led> <followed>``: ``who`` won the trick. With three or four players (§9)
    ``trick <seat> <c_1> ... <c_n>``: ``more`` holds the cards after the second, in the order
    played; ``cards`` is the whole trick."""

    who: Player
    led: Card
    followed: Card
    more: tuple[Card, ...] = ()

    def __post_init__(self) -> None:
        _set(self, "who", _player(self.who))
        _check_card(self.led, "led")
        _check_card(self.followed, "followed")
        if isinstance(self.who, Who):
            _check(self.more == (), "a two-player trick holds two cards")
            _check(self.led is not self.followed, "a trick holds two different cards")
            return
        _check(isinstance(self.more, tuple) and len(self.more) in (1, 2),
               f"a trick of three or four players holds 3 or 4 cards, not {self.more!r} more")
        for card in self.more:
            _check_card(card, "every card of the trick")
        players = 2 + len(self.more)
        _check(self.who < players, f"who must be a seat 0-{players - 1}, not {self.who}")
        # Three players use one pack; four use two, so a card may come twice (RULES.md §10.3).
        _check_copies(self.cards, "a trick", 1 if players == 3 else 2)

    @property
    def cards(self) -> tuple[Card, ...]:
        """The cards of the trick in the order played (the led card first)."""
        return (self.led, self.followed) + self.more


@dataclass(frozen=True, slots=True)
class Marriage:
    """``marriage <who> <suit> <points>``: the king and queen of ``suit`` were shown."""

    who: Player
    suit: Suit
    points: int

    def __post_init__(self) -> None:
        _set(self, "who", _player(self.who))
        _check(isinstance(self.suit, Suit), f"suit must be a Suit, not {self.suit!r}")
        _check(self.points in MARRIAGE_POINTS and type(self.points) is int,
               f"a marriage is worth 20 or 40, not {self.points!r}")


@dataclass(frozen=True, slots=True)
class Exchange:
    """``exchange <who> <took> <gave>``: ``who`` took the up-card and put the lowest trump under."""

    who: Player
    took: Card
    gave: Card

    def __post_init__(self) -> None:
        _set(self, "who", _player(self.who))
        _check_card(self.took, "took")
        _check_card(self.gave, "gave")
        # Also with two packs: an up-card that is itself the lowest trump is never exchanged (§5.3).
        _check(self.took is not self.gave, "an exchange swaps two different cards")


@dataclass(frozen=True, slots=True)
class Close:
    """``close <who>``: the stock is closed (two players only: N-seat profiles have no closing)."""

    who: Who

    def __post_init__(self) -> None:
        _set(self, "who", _who(self.who))


@dataclass(frozen=True, slots=True)
class Draw:
    """``draw me <card>``, ``draw opp`` (hidden) or ``draw opp <card>`` (the face-up card); with
    three or four players ``draw <seat> [<card>]`` (§9: the card is shown to its drawer, and to
    everyone when it is the face-up card)."""

    who: Player
    card: Card | None = None

    def __post_init__(self) -> None:
        _set(self, "who", _player(self.who))
        if self.card is not None:
            _check_card(self.card, "card")
        _check(self.who is not Who.ME or self.card is not None,
               "a bot always sees the card it draws")


@dataclass(frozen=True, slots=True)
class Claim:
    """``claim <who>``: ``who`` claimed 66 (101 with four players) for its side; the deal ends at
    once."""

    who: Player

    def __post_init__(self) -> None:
        _set(self, "who", _player(self.who))


@dataclass(frozen=True, slots=True)
class Settle:
    """``settle winner <who|none> reason <r> points <g> awarded <a> totals <m> <t> tricks <m> <t>
    score <m> <t> pot <p>``: the end of a deal (PROTOCOL.md §4.3).

    With three or four players (§9) the winner is a side number (or None), ``awarded`` is a tuple
    with one number per side (the carried pot included), as are ``totals``, ``tricks`` and
    ``score`` (side 0 first), and ``dead`` holds the two dead-pile cards of a three-player deal."""

    winner: Player | None
    reason: str
    points: int
    awarded: int | tuple[int, ...]
    totals: tuple[int, ...]
    tricks: tuple[int, ...]
    score: tuple[int, ...]
    pot: int
    dead: tuple[Card, ...] = ()

    def __post_init__(self) -> None:
        _check(self.reason in SETTLE_REASONS,
               f"reason must be one of {', '.join(sorted(SETTLE_REASONS))}, not {self.reason!r}")
        _check_count(self.points, "points")
        if isinstance(self.awarded, tuple):
            sides = _check_sides(self.awarded, "awarded")
            _check_per_side(self.awarded, "awarded", sides)
            if self.winner is not None:
                _set(self, "winner", _side(self.winner, "winner", sides))
            _check_per_side(self.totals, "totals", sides)
            _check_per_side(self.tricks, "tricks", sides)
            _check_per_side(self.score, "score", sides)
            _check(isinstance(self.dead, tuple) and len(self.dead) in ((0, 2) if sides == 3 else (0,)),
                   f"dead must be the two dead-pile cards (three players only), not {self.dead!r}")
            for card in self.dead:
                _check_card(card, "every card of dead")
            _check_copies(self.dead, "dead", 1)
        else:
            if self.winner is not None:
                _set(self, "winner", _who(self.winner, "winner"))
            _check_count(self.awarded, "awarded")
            _check_pair(self.totals, "totals")
            _check_pair(self.tricks, "tricks")
            _check_pair(self.score, "score")
            _check(self.dead == (), "a two-player deal has no dead pile")
        _check_count(self.pot, "pot")

    @property
    def is_nseat(self) -> bool:
        return isinstance(self.awarded, tuple)


@dataclass(frozen=True, slots=True)
class MatchEnd:
    """``match_end winner <who|none> reason <target|forfeit|deal_limit> score <m> <t>
    [fault <fault> by <who>]``. Only a ``deal_limit`` end with equal scores has no winner.

    With three or four players (§9) the winner is a side number, ``score`` one number per side and
    the offender a seat; a three-player forfeit has no winner (two players remain)."""

    winner: Player | None
    reason: str
    score: tuple[int, ...]
    fault: Fault | None = None
    offender: Player | None = None

    def __post_init__(self) -> None:
        _check(self.reason in MATCH_END_REASONS,
               f"reason must be one of {', '.join(sorted(MATCH_END_REASONS))}, not {self.reason!r}")
        nseat = (_is_seat(self.winner) or _is_seat(self.offender)
                 or (isinstance(self.score, tuple) and len(self.score) == 3))
        if nseat:
            sides = _check_sides(self.score, "score")
            _check_per_side(self.score, "score", sides)
            if self.winner is not None:
                _set(self, "winner", _side(self.winner, "winner", sides))
        else:
            if self.winner is not None:
                _set(self, "winner", _who(self.winner, "winner"))
            _check_pair(self.score, "score")
        _check((self.fault is None) == (self.offender is None),
               "fault and offender go together (fault <fault> by <who>)")
        if self.fault is not None:
            try:
                _set(self, "fault", Fault(self.fault))
            except ValueError:
                raise ValueError(f"fault must be one of {', '.join(Fault)}, not {self.fault!r}") \
                    from None
            if nseat:
                seats = _seats_of(len(self.score))
                _check(_is_seat(self.offender) and self.offender < seats,  # type: ignore[operator]
                       f"offender must be a seat 0-{seats - 1}, not {self.offender!r}")
            else:
                _set(self, "offender", _who(self.offender, "offender"))
            _check(self.reason == _MatchEndReason.FORFEIT, "only a forfeit names a fault")
        if self.winner is None:
            # A tie at the deal limit; and a three-player forfeit, where two players remain.
            _check(self.reason == _MatchEndReason.DEAL_LIMIT
                   or (self.reason == _MatchEndReason.FORFEIT and len(self.score) == 3),
                   "only a match stopped at the deal limit (or a three-player forfeit) has no winner")

    @property
    def is_nseat(self) -> bool:
        return not isinstance(self.winner, Who) and not isinstance(self.offender, Who) and (
            self.winner is not None or self.offender is not None or len(self.score) == 3)


@dataclass(frozen=True, slots=True)
class Unknown:
    """A line whose first word version 1 does not define: informational, and bots ignore it
    (PROTOCOL.md §1, §8). Kept whole so that it can be logged or re-sent unchanged."""

    line: str

    def __post_init__(self) -> None:
        _check(isinstance(self.line, str), "line must be text")
        _check("\n" not in self.line and "\r" not in self.line, "a line holds no line break")
        first = self.line.split(" ", 1)[0]
        _check(first != "", "a line starts with a word")
        _check(first not in KNOWN_REFEREE_WORDS, f"{first!r} is a known word, not an unknown one")


# -- bot to referee ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ready:
    """``ready <name>``: the answer to the greeting."""

    name: str

    def __post_init__(self) -> None:
        _check_name(self.name, "name")


DECLINE_TEXT_RE = re.compile(r"[ -~]*")
"""The text of a ``decline``: printable ASCII (spaces included)."""


@dataclass(frozen=True, slots=True)
class Decline:
    """``decline [<text>]``: the bot does not play the variant the N-seat greeting named (PROTOCOL.md
    §9). Never an answer to the two-player greeting."""

    text: str = ""

    def __post_init__(self) -> None:
        _check(isinstance(self.text, str) and DECLINE_TEXT_RE.fullmatch(self.text) is not None,
               f"text must be printable ASCII, not {self.text!r}")
        # One line of single-spaced words, as every line (PROTOCOL.md §1).
        _check(self.text == "" or "" not in self.text.split(" "),
               f"text must be words separated by single spaces, not {self.text!r}")


@dataclass(frozen=True, slots=True)
class ActionReply:
    """``<action>``: the answer to a request."""

    action: Action

    def __post_init__(self) -> None:
        _check(isinstance(self.action, Action), f"not an Action: {self.action!r}")


EVENT_TYPES = (Played, Trick, Marriage, Exchange, Close, Draw, Claim)

Event = Union[Played, Trick, Marriage, Exchange, Close, Draw, Claim]
"""The events of a deal (PROTOCOL.md §4.2)."""

RefereeMessage = Union[Hello, MatchStart, Clock, RulesLine, DealStart, Request, Played, Trick, Marriage,
                       Exchange, Close, Draw, Claim, Settle, MatchEnd, Unknown]
BotMessage = Union[Ready, Decline, ActionReply]
Message = Union[RefereeMessage, BotMessage]

KNOWN_REFEREE_WORDS: frozenset[str] = frozenset(
    {"sixtysix", "match", "clock", "rules", "deal", "played", "trick", "marriage", "exchange", "close",
     "draw", "claim", "settle", "match_end"} | {f"{d}?" for d in REQUEST_DECISIONS})
"""First words of the referee's lines in version 1; any other first word is an ``Unknown`` line."""
