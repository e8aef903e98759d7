"""The messages of protocol version 1 (PROTOCOL.md) as small frozen value types.

Each message is the decoded form of exactly one line: ``codec.encode`` writes it, the ``decode_*``
functions read it, and ``decode(encode(m)) == m`` for every message. Constructors check the facts a
line must respect (a seat is 0 or 1, a marriage is worth 20 or 40, ...), so a message that exists
can always be written; a bad value is a ``ValueError`` naming the field.

Cards, suits and actions are the engine's own types (``arena.game``): their text forms are the wire
forms (``TH``, ``H``, ``play:TH``).
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


def _check_count(value: object, field: str, least: int = 0) -> None:
    # bool is an int subclass; a True where a count belongs is always a bug.
    _check(isinstance(value, int) and not isinstance(value, bool) and value >= least,
           f"{field} must be a whole number >= {least}, not {value!r}")


def _check_pair(value: object, field: str) -> None:
    _check(isinstance(value, tuple) and len(value) == 2, f"{field} must be a pair (mine, theirs)")
    assert isinstance(value, tuple)
    for part in value:
        _check_count(part, field)


def _check_card(value: object, field: str) -> None:
    _check(isinstance(value, Card), f"{field} must be a Card, not {value!r}")


def _check_name(value: object, field: str) -> None:
    _check(isinstance(value, str) and NAME_RE.fullmatch(value) is not None,
           f"{field} must be 1 to 64 characters from A-Z a-z 0-9 _ . + -, not {value!r}")


def _check_word(value: object, field: str) -> None:
    _check(isinstance(value, str) and WORD_RE.fullmatch(value) is not None,
           f"{field} must be a non-empty word of printable ASCII without spaces, not {value!r}")


def _who(value: object, field: str = "who") -> Who:
    if isinstance(value, str) and value in ("me", "opp"):
        return Who(value)
    raise ValueError(f"{field} must be 'me' or 'opp', not {value!r}")


def _set(obj: object, field: str, value: object) -> None:
    # Frozen dataclasses: normalising a field in __post_init__ needs object.__setattr__.
    object.__setattr__(obj, field, value)


# -- referee to bot: set-up ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello:
    """``sixtysix <version>``: the greeting (PROTOCOL.md §3)."""

    version: int = 1

    def __post_init__(self) -> None:
        _check_count(self.version, "version", 1)


@dataclass(frozen=True, slots=True)
class MatchStart:
    """``match <id> profile <p> target <n> seat <0|1> opponent <name> decision_ms <ms>``."""

    match_id: str
    profile: str
    target: int
    seat: int
    opponent: str
    decision_ms: int

    def __post_init__(self) -> None:
        _check_word(self.match_id, "match_id")
        _check_word(self.profile, "profile")
        _check_count(self.target, "target", 1)
        _check(self.seat in (0, 1) and type(self.seat) is int,
               f"seat must be 0 or 1, not {self.seat!r}")
        _check_name(self.opponent, "opponent")
        _check_count(self.decision_ms, "decision_ms", 1)


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
    """``deal <n> dealer <who> upcard <card> stock <k> hand <card>... score <m> <t> pot <p>``."""

    deal_no: int
    dealer: Who
    upcard: Card
    stock: int
    hand: tuple[Card, ...]
    score: tuple[int, int]
    pot: int

    def __post_init__(self) -> None:
        _check_count(self.deal_no, "deal_no", 1)
        _set(self, "dealer", _who(self.dealer, "dealer"))
        _check_card(self.upcard, "upcard")
        # The up-card is part of the stock (PROTOCOL.md §4), so a deal always starts with one.
        _check_count(self.stock, "stock", 1)
        _check(isinstance(self.hand, tuple) and len(self.hand) > 0,
               "hand must be a non-empty tuple")
        for card in self.hand:
            _check_card(card, "every card of hand")
        _check(len(set(self.hand)) == len(self.hand), "hand lists a card twice")
        _check(self.upcard not in self.hand, "the up-card cannot be in the hand")
        _check_pair(self.score, "score")
        _check_count(self.pot, "pot")


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

    who: Who
    card: Card

    def __post_init__(self) -> None:
        _set(self, "who", _who(self.who))
        _check_card(self.card, "card")


@dataclass(frozen=True, slots=True)
class Trick:
    """``trick <who> <led> <followed>``: ``who`` won the trick."""

    who: Who
    led: Card
    followed: Card

    def __post_init__(self) -> None:
        _set(self, "who", _who(self.who))
        _check_card(self.led, "led")
        _check_card(self.followed, "followed")
        _check(self.led is not self.followed, "a trick holds two different cards")


@dataclass(frozen=True, slots=True)
class Marriage:
    """``marriage <who> <suit> <points>``: the king and queen of ``suit`` were shown."""

    who: Who
    suit: Suit
    points: int

    def __post_init__(self) -> None:
        _set(self, "who", _who(self.who))
        _check(isinstance(self.suit, Suit), f"suit must be a Suit, not {self.suit!r}")
        _check(self.points in MARRIAGE_POINTS and type(self.points) is int,
               f"a marriage is worth 20 or 40, not {self.points!r}")


@dataclass(frozen=True, slots=True)
class Exchange:
    """``exchange <who> <took> <gave>``: ``who`` took the up-card and put the lowest trump under."""

    who: Who
    took: Card
    gave: Card

    def __post_init__(self) -> None:
        _set(self, "who", _who(self.who))
        _check_card(self.took, "took")
        _check_card(self.gave, "gave")
        _check(self.took is not self.gave, "an exchange swaps two different cards")


@dataclass(frozen=True, slots=True)
class Close:
    """``close <who>``: the stock is closed."""

    who: Who

    def __post_init__(self) -> None:
        _set(self, "who", _who(self.who))


@dataclass(frozen=True, slots=True)
class Draw:
    """``draw me <card>``, ``draw opp`` (hidden) or ``draw opp <card>`` (the face-up card)."""

    who: Who
    card: Card | None = None

    def __post_init__(self) -> None:
        _set(self, "who", _who(self.who))
        if self.card is not None:
            _check_card(self.card, "card")
        _check(self.who is Who.OPP or self.card is not None, "a bot always sees the card it draws")


@dataclass(frozen=True, slots=True)
class Claim:
    """``claim <who>``: ``who`` claimed 66; the deal ends at once."""

    who: Who

    def __post_init__(self) -> None:
        _set(self, "who", _who(self.who))


@dataclass(frozen=True, slots=True)
class Settle:
    """``settle winner <who|none> reason <r> points <g> awarded <a> totals <m> <t> tricks <m> <t>
    score <m> <t> pot <p>``: the end of a deal (PROTOCOL.md §4.3)."""

    winner: Who | None
    reason: str
    points: int
    awarded: int
    totals: tuple[int, int]
    tricks: tuple[int, int]
    score: tuple[int, int]
    pot: int

    def __post_init__(self) -> None:
        if self.winner is not None:
            _set(self, "winner", _who(self.winner, "winner"))
        _check(self.reason in SETTLE_REASONS,
               f"reason must be one of {', '.join(sorted(SETTLE_REASONS))}, not {self.reason!r}")
        _check_count(self.points, "points")
        _check_count(self.awarded, "awarded")
        _check_pair(self.totals, "totals")
        _check_pair(self.tricks, "tricks")
        _check_pair(self.score, "score")
        _check_count(self.pot, "pot")


@dataclass(frozen=True, slots=True)
class MatchEnd:
    """``match_end winner <who|none> reason <target|forfeit|deal_limit> score <m> <t>
    [fault <fault> by <who>]``. Only a ``deal_limit`` end with equal scores has no winner."""

    winner: Who | None
    reason: str
    score: tuple[int, int]
    fault: Fault | None = None
    offender: Who | None = None

    def __post_init__(self) -> None:
        _check(self.reason in MATCH_END_REASONS,
               f"reason must be one of {', '.join(sorted(MATCH_END_REASONS))}, not {self.reason!r}")
        if self.winner is None:
            _check(self.reason == _MatchEndReason.DEAL_LIMIT,
                   "only a match stopped at the deal limit has no winner")
        else:
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
            _set(self, "offender", _who(self.offender, "offender"))
            _check(self.reason == _MatchEndReason.FORFEIT, "only a forfeit names a fault")


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


@dataclass(frozen=True, slots=True)
class ActionReply:
    """``<action>``: the answer to a request."""

    action: Action

    def __post_init__(self) -> None:
        _check(isinstance(self.action, Action), f"not an Action: {self.action!r}")


EVENT_TYPES = (Played, Trick, Marriage, Exchange, Close, Draw, Claim)

Event = Union[Played, Trick, Marriage, Exchange, Close, Draw, Claim]
"""The events of a deal (PROTOCOL.md §4.2)."""

RefereeMessage = Union[Hello, MatchStart, RulesLine, DealStart, Request, Played, Trick, Marriage,
                       Exchange, Close, Draw, Claim, Settle, MatchEnd, Unknown]
BotMessage = Union[Ready, ActionReply]
Message = Union[RefereeMessage, BotMessage]

KNOWN_REFEREE_WORDS: frozenset[str] = frozenset(
    {"sixtysix", "match", "rules", "deal", "played", "trick", "marriage", "exchange", "close",
     "draw", "claim", "settle", "match_end"} | {f"{d}?" for d in REQUEST_DECISIONS})
"""First words of the referee's lines in version 1; any other first word is an ``Unknown`` line."""
