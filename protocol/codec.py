"""Text <-> messages for protocol version 1 (PROTOCOL.md). Pure: no I/O, no clocks.

``encode`` writes any message as one line (without its ``\\n``). ``decode_from_referee`` is what a
bot (the SDK) reads: strict for every word version 1 defines, ``Unknown`` for any other first word.
``decode_from_bot`` is what the referee reads, and it is stricter still: the answer must be exactly
``ready <name>`` or exactly one action token written as the request listed it.

Whatever the input, decoding returns a message or raises ``ProtocolError``: garbage from a bot must
become a recorded fault, never a crash of the referee.
"""

from __future__ import annotations

import re
from typing import Callable, Literal, overload

from arena.game import CARDS, Action, Card, Suit
from arena.game.actions import CLAIM, CLOSE, EXCHANGE, MARRY_ACTIONS, PASS, PLAY_ACTIONS
from protocol.messages import (MAX_PLAYERS, NAME_RE, ActionReply, BotMessage, Claim, Clock, Close,
                               DealStart, Decline, Draw, Exchange, Fault, Hello, Marriage, MatchEnd,
                               MatchStart, Message, Played, Player, Ready, RefereeMessage, Request,
                               RulesLine, Settle, Trick, Unknown, Who)

PROTOCOL_NAME = "sixtysix"
PROTOCOL_VERSION = 1
MAX_LINE_BYTES = 1024
"""A line holds at most this many bytes, not counting its ``\\n`` (PROTOCOL.md §1): a bot line
longer than that is the fault ``line_too_long``."""

_SHOW = 60  # characters of an offending line quoted in a reason; the record keeps the whole line


class ProtocolError(ValueError):
    """A line that breaks the protocol. ``fault`` is the PROTOCOL.md §5 word the referee records
    (``malformed`` or ``line_too_long`` from the codec); ``reason`` says what is wrong in words."""

    def __init__(self, reason: str, fault: Fault | str = Fault.MALFORMED,
                 line: str | bytes | None = None):
        self.fault = Fault(fault)
        self.reason = reason
        self.line = line
        super().__init__(f"{self.fault}: {reason}")


def _show(text: str) -> str:
    return repr(text if len(text) <= _SHOW else text[:_SHOW] + "...")


# -- encoding ------------------------------------------------------------------------------------


def _pair(pair: tuple[int, ...]) -> str:
    """A pair (mine, theirs), or with three or four players one number per side (PROTOCOL.md §9)."""
    return " ".join(map(str, pair))


def _encode(msg: Message) -> str:
    match msg:
        case Hello(version, players, profile):
            if profile is None:
                return f"{PROTOCOL_NAME} {version}"
            return f"{PROTOCOL_NAME} {version} players {players} profile {profile}"
        case MatchStart(match_id, profile, target, seat, opponent, decision_ms, players, names):
            if opponent is not None:
                return (f"match {match_id} profile {profile} target {target} seat {seat} "
                        f"opponent {opponent} decision_ms {decision_ms}")
            return (f"match {match_id} profile {profile} target {target} players {players} "
                    f"seat {seat} names {' '.join(names)} decision_ms {decision_ms}")
        case Clock(first_decision_ms, bank_ms):
            return f"clock first_decision_ms {first_decision_ms} bank_ms {bank_ms}"
        case RulesLine(flags):
            return " ".join(["rules", *(f"{name}={value}" for name, value in flags)])
        case DealStart(deal_no, dealer, upcard, stock, hand, score, pot):
            return (f"deal {deal_no} dealer {dealer} upcard {upcard} stock {stock} "
                    f"hand {' '.join(map(str, hand))} score {_pair(score)} pot {pot}")
        case Request(decision, actions):
            return f"{decision}? {' '.join(map(str, actions))}"
        case Played(who, card):
            return f"played {who} {card}"
        case Trick(who, led, followed, more):
            if more:
                return f"trick {who} {led} {followed} {' '.join(map(str, more))}"
            return f"trick {who} {led} {followed}"
        case Marriage(who, suit, points):
            return f"marriage {who} {suit} {points}"
        case Exchange(who, took, gave):
            return f"exchange {who} {took} {gave}"
        case Close(who):
            return f"close {who}"
        case Draw(who, card):
            return f"draw {who}" if card is None else f"draw {who} {card}"
        case Claim(who):
            return f"claim {who}"
        case Settle(winner, reason, points, awarded, totals, tricks, score, pot, dead):
            # ``winner or 'none'`` would write side 0 as none.
            line = (f"settle winner {'none' if winner is None else winner} reason {reason} "
                    f"points {points} awarded "
                    f"{_pair(awarded) if isinstance(awarded, tuple) else awarded} "
                    f"totals {_pair(totals)} tricks {_pair(tricks)} score {_pair(score)} pot {pot}")
            return f"{line} dead {' '.join(map(str, dead))}" if dead else line
        case MatchEnd(winner, reason, score, fault, offender):
            tail = "" if fault is None else f" fault {fault} by {offender}"
            return (f"match_end winner {'none' if winner is None else winner} reason {reason} "
                    f"score {_pair(score)}{tail}")
        case Unknown(line):
            return line
        case Ready(name):
            return f"ready {name}"
        case Decline(text):
            return f"decline {text}" if text else "decline"
        case ActionReply(action):
            return str(action)
    raise TypeError(f"not a protocol message: {msg!r}")


def encode(msg: Message) -> str:
    """The line for ``msg``, without the ``\\n``. Raises ``ProtocolError`` (``line_too_long``) for a
    message too long to send, e.g. a very long match id."""
    line = _encode(msg)
    size = len(line.encode("utf-8"))
    if size > MAX_LINE_BYTES:
        raise ProtocolError(f"{type(msg).__name__} would make a line of {size} bytes "
                            f"(the limit is {MAX_LINE_BYTES} plus the newline)",
                            Fault.LINE_TOO_LONG, line)
    return line


# -- line framing ----------------------------------------------------------------------------------


def _line_text(line: str | bytes) -> str:
    """The text of one line: UTF-8 checked, one trailing ``\\n`` and then one ``\\r`` removed."""
    if isinstance(line, (bytes, bytearray)):
        raw = bytes(line)
        body = raw[:-1] if raw.endswith(b"\n") else raw
        if len(body) > MAX_LINE_BYTES:
            raise ProtocolError(f"line of {len(body)} bytes (the limit is {MAX_LINE_BYTES} plus "
                                "the newline)", Fault.LINE_TOO_LONG, raw)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            bad = raw[err.start:err.start + 1]
            raise ProtocolError(f"not valid UTF-8 (byte {err.start}: {bad!r})", Fault.MALFORMED,
                                raw) from err
    elif isinstance(line, str):
        text = line
        try:
            size = len(text.encode("utf-8"))
        except UnicodeEncodeError as err:
            # Only a str that never came from UTF-8 bytes (a lone surrogate) gets here.
            raise ProtocolError(f"not valid UTF-8 text (character {err.start})", Fault.MALFORMED,
                                line) from err
        size -= text.endswith("\n")
        if size > MAX_LINE_BYTES:
            raise ProtocolError(f"line of {size} bytes (the limit is {MAX_LINE_BYTES} plus the "
                                "newline)", Fault.LINE_TOO_LONG, line)
    else:
        raise ProtocolError(f"expected a line of text, got {type(line).__name__}")
    if text.endswith("\n"):
        text = text[:-1]
    if text.endswith("\r"):
        text = text[:-1]  # PROTOCOL.md §1: a \r before the \n is tolerated and dropped
    if "\n" in text or "\r" in text:
        raise ProtocolError(f"line break inside the line: {_show(text)}", Fault.MALFORMED, line)
    return text


# -- decoding the referee's lines ------------------------------------------------------------------

# Exact wire forms, looked up instead of parsed (enum calls and Card.parse are slow in a bot's loop).
_CARD_WORDS: dict[str, Card] = {str(c): c for c in CARDS}
_SUIT_WORDS: dict[str, Suit] = {s.char: s for s in Suit}
_WHO_WORDS: dict[str, Player] = {w.value: w for w in Who}
_WHO_WORDS.update({str(seat): seat for seat in range(MAX_PLAYERS)})  # PROTOCOL.md §9: seat numbers
_COUNT_RE = re.compile(r"0|[1-9][0-9]*")  # int() would also take "+1", " 1", "1_0" and "١"


class _Words:
    """A cursor over the words after a line's first word, raising ``ProtocolError`` with a reason
    that names the message and what was expected."""

    def __init__(self, first: str, rest: list[str]):
        self.first = first
        self.rest = rest
        self.pos = 0

    def error(self, reason: str) -> ProtocolError:
        return ProtocolError(f"{self.first}: {reason}")

    def more(self) -> bool:
        return self.pos < len(self.rest)

    def peek(self) -> str | None:
        return self.rest[self.pos] if self.more() else None

    def word(self, what: str) -> str:
        pos = self.pos
        if pos >= len(self.rest):  # more(), inlined: the hot path of every decode
            raise self.error(f"missing {what}")
        self.pos = pos + 1
        return self.rest[pos]

    def keyword(self, expected: str) -> None:
        word = self.word(f"'{expected}'")
        if word != expected:
            raise self.error(f"expected '{expected}', got {_show(word)}")

    def count(self, what: str) -> int:
        word = self.word(what)
        if not _COUNT_RE.fullmatch(word):
            raise self.error(f"{what} must be a whole number, got {_show(word)}")
        return int(word)

    def card(self, what: str = "card") -> Card:
        word = self.word(what)
        card = _CARD_WORDS.get(word)  # the exact wire form: a bot decodes several per request
        if card is not None:
            return card
        try:
            card = Card.parse(word)
        except ValueError:
            raise self.error(f"{what} must be a card such as TH or 9C, got {_show(word)}") from None
        if str(card) != word:
            raise self.error(f"{what} must be written {card}, got {_show(word)}")
        return card

    def suit(self, what: str = "suit") -> Suit:
        word = self.word(what)
        suit = _SUIT_WORDS.get(word)
        if suit is None:
            raise self.error(f"{what} must be one of C S H D, got {_show(word)}")
        return suit

    def who(self, what: str = "who") -> Player:
        word = self.word(what)
        who = _WHO_WORDS.get(word)
        if who is None:
            raise self.error(f"{what} must be 'me' or 'opp' (a seat number 0-{MAX_PLAYERS - 1} with "
                             f"more players), got {_show(word)}")
        return who

    def who_or_none(self, what: str) -> Player | None:
        if self.peek() == "none":
            self.pos += 1
            return None
        return self.who(f"{what} (me, opp or none; a number with more players)")

    def counts_until(self, what: str, keyword: str | None) -> tuple[int, ...]:
        """Whole numbers up to ``keyword`` (or the end of the line): a list per side (§9)."""
        out = []
        while self.more() and self.peek() != keyword:
            out.append(self.count(what))
        if not out:
            raise self.error(f"missing {what}")
        return tuple(out)

    def fault(self) -> Fault:
        word = self.word("fault")
        try:
            return Fault(word)
        except ValueError:
            raise self.error(f"fault must be one of {', '.join(Fault)}, got {_show(word)}") \
                from None

    def pair(self, what: str) -> tuple[int, int]:
        return self.count(f"{what} (mine)"), self.count(f"{what} (theirs)")

    def action(self) -> Action:
        word = self.word("action")
        return _action(word, self.error)

    def end(self) -> None:
        if self.more():
            extra = " ".join(self.rest[self.pos:])
            raise self.error(f"unexpected words at the end: {_show(extra)}")


def _action(word: str, error: Callable[[str], ProtocolError]) -> Action:
    """An action token written exactly in its wire form (``play:as`` parses; it is not the wire
    form)."""
    try:
        action = Action.parse(word)
    except ValueError:
        raise error(f"not an action: {_show(word)} (expected play:<card>, marry:<suit>, exchange, "
                    "close, claim or pass)") from None
    if action.text != word:
        raise error(f"action must be written exactly {action.text}, got {_show(word)}")
    return action


def _hello(w: _Words) -> Hello:
    version = w.count("version")
    if not w.more():
        return Hello(version)
    w.keyword("players")  # PROTOCOL.md §9: the N-seat greeting
    players = w.count("players")
    w.keyword("profile")
    return Hello(version, players, w.word("profile"))


def _match(w: _Words) -> MatchStart:
    match_id = w.word("match id")
    w.keyword("profile")
    profile = w.word("profile")
    w.keyword("target")
    target = w.count("target")
    if w.peek() == "players":  # PROTOCOL.md §9
        w.pos += 1
        players = w.count("players")
        w.keyword("seat")
        seat = w.count("seat")
        w.keyword("names")
        names = []
        while w.more() and w.peek() != "decision_ms":
            names.append(w.word("name"))
        w.keyword("decision_ms")
        return MatchStart(match_id, profile, target, seat, None, w.count("decision_ms"), players,
                          tuple(names))
    w.keyword("seat")
    seat = w.count("seat")
    w.keyword("opponent")
    opponent = w.word("opponent name")
    w.keyword("decision_ms")
    return MatchStart(match_id, profile, target, seat, opponent, w.count("decision_ms"))


def _clock(w: _Words) -> Clock:
    w.keyword("first_decision_ms")
    first = w.count("first_decision_ms")
    w.keyword("bank_ms")
    return Clock(first, w.count("bank_ms"))


def _rules(w: _Words) -> RulesLine:
    flags = []
    while w.more():
        word = w.word("flag")
        name, sep, value = word.partition("=")
        if not sep:
            raise w.error(f"{_show(word)} is not <flag>=<value>")
        flags.append((name, value))
    return RulesLine(tuple(flags))


def _deal(w: _Words) -> DealStart:
    deal_no = w.count("deal number")
    w.keyword("dealer")
    dealer = w.who("dealer")
    w.keyword("upcard")
    upcard = w.card("upcard")
    w.keyword("stock")
    stock = w.count("stock")
    w.keyword("hand")
    hand = []
    while w.more() and w.peek() != "score":
        hand.append(w.card("card of the hand"))
    w.keyword("score")
    score = w.pair("score") if isinstance(dealer, Who) else w.counts_until("score", "pot")
    w.keyword("pot")
    return DealStart(deal_no, dealer, upcard, stock, tuple(hand), score, w.count("pot"))


def _request(w: _Words) -> Request:
    actions = []
    while w.more():
        actions.append(w.action())
    return Request(w.first[:-1], tuple(actions))


def _played(w: _Words) -> Played:
    return Played(w.who(), w.card())


def _trick(w: _Words) -> Trick:
    who = w.who()
    led, followed = w.card("led card"), w.card("followed card")
    if isinstance(who, Who):
        return Trick(who, led, followed)
    more = []
    while w.more():  # PROTOCOL.md §9: a trick of 3 or 4 cards
        more.append(w.card("card of the trick"))
    return Trick(who, led, followed, tuple(more))


def _marriage(w: _Words) -> Marriage:
    return Marriage(w.who(), w.suit(), w.count("points"))


def _exchange(w: _Words) -> Exchange:
    return Exchange(w.who(), w.card("card taken"), w.card("card given"))


def _close(w: _Words) -> Close:
    who = w.who()
    if not isinstance(who, Who):  # RULES.md §10: closing is two-player only
        raise w.error(f"who must be 'me' or 'opp' (nobody closes with more players), got {who}")
    return Close(who)


def _draw(w: _Words) -> Draw:
    who = w.who()
    return Draw(who, w.card() if w.more() else None)


def _claim(w: _Words) -> Claim:
    return Claim(w.who())


def _settle(w: _Words) -> Settle:
    w.keyword("winner")
    winner = w.who_or_none("winner")
    w.keyword("reason")
    reason = w.word("reason")
    w.keyword("points")
    points = w.count("points")
    w.keyword("awarded")
    if isinstance(winner, Who):
        awarded: int | tuple[int, ...] = w.count("awarded")
    else:
        # ``winner none`` is both forms: one number is two players, one per side is §9.
        listed = w.counts_until("awarded", "totals")
        awarded = listed[0] if winner is None and len(listed) == 1 else listed
    totals: tuple[int, ...]
    tricks: tuple[int, ...]
    score: tuple[int, ...]
    if not isinstance(awarded, tuple):
        w.keyword("totals")
        totals = w.pair("totals")
        w.keyword("tricks")
        tricks = w.pair("tricks")
        w.keyword("score")
        score = w.pair("score")
        w.keyword("pot")
        return Settle(winner, reason, points, awarded, totals, tricks, score, w.count("pot"))
    w.keyword("totals")
    totals = w.counts_until("totals", "tricks")
    w.keyword("tricks")
    tricks = w.counts_until("tricks", "score")
    w.keyword("score")
    score = w.counts_until("score", "pot")
    w.keyword("pot")
    pot = w.count("pot")
    dead: tuple[Card, ...] = ()
    if w.more():
        w.keyword("dead")  # three players: the dead pile, revealed now (§9)
        dead = (w.card("dead card"), w.card("dead card"))
    return Settle(winner, reason, points, awarded, totals, tricks, score, pot, dead)


def _match_end(w: _Words) -> MatchEnd:
    w.keyword("winner")
    winner = w.who_or_none("winner")
    w.keyword("reason")
    reason = w.word("reason")
    w.keyword("score")
    score = w.counts_until("score", "fault")
    if not w.more():
        return MatchEnd(winner, reason, score)
    w.keyword("fault")
    fault = w.fault()
    w.keyword("by")
    return MatchEnd(winner, reason, score, fault, w.who("offender"))


_PARSERS: dict[str, Callable[[_Words], RefereeMessage]] = {
    PROTOCOL_NAME: _hello, "match": _match, "clock": _clock, "rules": _rules, "deal": _deal, "played": _played,
    "trick": _trick, "marriage": _marriage, "exchange": _exchange, "close": _close, "draw": _draw,
    "claim": _claim, "settle": _settle, "match_end": _match_end,
    "lead?": _request, "follow?": _request, "after_trick?": _request, "close_exchange?": _request,
    "between_tricks?": _request,
}


def decode_from_referee(line: str | bytes) -> RefereeMessage:
    """The message of one referee line (what a bot reads). A line whose first word version 1 does
    not define is ``Unknown`` (bots ignore it); a known word with bad arguments is a
    ``ProtocolError``."""
    text = _line_text(line)
    if text == "":
        raise ProtocolError("empty line", line=line)
    first = text.split(" ", 1)[0]
    if first == "":
        raise ProtocolError(f"line starts with a space: {_show(text)}", line=line)
    parse = _PARSERS.get(first)
    if parse is None:
        return Unknown(text)
    words = text.split(" ")
    if "" in words:
        raise ProtocolError(f"words must be separated by single spaces: {_show(text)}", line=line)
    cursor = _Words(first, words[1:])
    try:
        msg = parse(cursor)
        cursor.end()
    except ProtocolError as err:
        err.line = line
        raise
    except ValueError as err:  # a message constructor refused a value
        raise ProtocolError(f"{first}: {err}", line=line) from err
    return msg


# -- decoding the bot's lines ----------------------------------------------------------------------


# Every action's answer line, bytes (from a bot's pipe) and text, looked up before any parsing:
# the referee decodes one per decision, and a well-behaved bot only ever writes these.
_ACTION_REPLIES: dict[str | bytes, ActionReply] = {
    form: ActionReply(action)
    for action in (*PLAY_ACTIONS, *MARRY_ACTIONS, EXCHANGE, CLOSE, CLAIM, PASS)
    for form in (action.text, action.text.encode("ascii"))}


@overload
def decode_from_bot(line: str | bytes, expect: Literal["ready"],
                    allow_decline: Literal[False] = False) -> Ready: ...
@overload
def decode_from_bot(line: str | bytes, expect: Literal["ready"],
                    allow_decline: bool) -> Ready | Decline: ...
@overload
def decode_from_bot(line: str | bytes, expect: Literal["action"]) -> ActionReply: ...


def decode_from_bot(line: str | bytes, expect: Literal["ready", "action"],
                    allow_decline: bool = False) -> BotMessage:
    """The message of one bot line (what the referee reads). ``expect`` says what the referee
    asked for: ``"ready"`` after the greeting, ``"action"`` after a request. Anything but exactly
    that is a ``ProtocolError`` with ``fault`` ``malformed`` (or ``line_too_long``).

    ``allow_decline`` (after the N-seat greeting of PROTOCOL.md §9 only) also accepts
    ``decline [<text>]`` as the answer to the greeting; otherwise a ``decline`` is malformed."""
    if expect == "action" and not isinstance(line, bytearray):  # (a bytearray is unhashable)
        reply = _ACTION_REPLIES.get(line)
        if reply is not None:  # the exact wire form of an action: nothing else to check
            return reply
    if expect not in ("ready", "action"):
        raise ValueError(f"expect must be 'ready' or 'action', not {expect!r}")  # a caller's bug
    if allow_decline and expect != "ready":
        raise ValueError("only the greeting may be declined")  # a caller's bug

    def error(reason: str) -> ProtocolError:
        return ProtocolError(reason, Fault.MALFORMED, line)

    text = _line_text(line)
    if text == "":
        raise error("empty line")
    if not text.isascii() or not text.isprintable():
        raise error(f"only printable ASCII is allowed in an answer: {_show(text)}")
    words = text.split(" ")
    if "" in words:
        raise error(f"words must be separated by single spaces, without leading or trailing "
                    f"spaces: {_show(text)}")
    if expect == "ready":
        if words[0] == "decline" and allow_decline:
            return Decline(" ".join(words[1:]))  # printable ASCII, single spaces: checked above
        if words[0] != "ready":
            raise error(f"expected 'ready <name>' in answer to the greeting, got {_show(text)}")
        if len(words) == 1:
            raise error("missing name after 'ready'")
        if len(words) > 2:
            raise error(f"a name is one word; extra words after it: {_show(' '.join(words[2:]))}")
        if not NAME_RE.fullmatch(words[1]):
            raise error(f"bad name {_show(words[1])}: 1 to 64 characters from A-Z a-z 0-9 _ . + -")
        return Ready(words[1])
    if len(words) > 1:
        raise error(f"an answer is exactly one action, got {len(words)} words: {_show(text)}")
    return ActionReply(_action(text, error))
