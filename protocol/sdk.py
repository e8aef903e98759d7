"""The Python bot SDK: subclass ``Bot``, implement ``decide``, call ``run(bot)``.

Layered like an engine driver: ``run`` does the I/O (read a line, write a line, flush);
``BotSession`` is the dialect (greeting, requests, hooks) and touches no stream, so a whole match
can be scripted in a test or played in-process; ``BotView`` (view.py) keeps what the bot has seen.

::

    from protocol import Bot, run

    class FirstBot(Bot):
        name = "first"

        def decide(self, view, legal):
            return legal[0]

    if __name__ == "__main__":
        run(FirstBot())

A bot plays two-player matches unless it says more: set ``player_counts = (2, 3, 4)`` (and perhaps
``profiles``) or override ``supports``. To a three- or four-player greeting it cannot play, the SDK
answers ``decline does not support <profile>`` (PROTOCOL.md §9) instead of ``ready``.

The SDK never corrects a bot: an action that the request did not list is logged and sent as it is,
and the referee judges it (by default the bot forfeits: PROTOCOL.md §5). Logging goes to stderr,
which the referee keeps; stdout carries only the protocol.
"""

from __future__ import annotations

import io
import sys
from typing import Any, BinaryIO, Callable, TextIO, cast

from arena.game import CARDS, CLAIM, CLOSE, EXCHANGE, PASS, Action, Card, Suit
from arena.game.actions import MARRY_ACTIONS, PLAY_ACTIONS
from protocol.codec import MAX_LINE_BYTES, PROTOCOL_VERSION, decode_from_referee, encode
from protocol.messages import (EVENT_TYPES, MATCH_END_REASONS, SETTLE_REASONS, ActionReply, Claim,
                               Close, DealStart, Decline, Draw, Event, Exchange, Hello, Marriage,
                               MatchEnd, MatchStart, Played, Player, Ready, RefereeMessage,
                               Request, RulesLine, Settle, Trick, Unknown, Who)
from protocol.view import PROFILES, BotView, _profile_texts


def _log():  # noqa: ANN202 - a logging.Logger
    """The SDK's logger, imported on first use: ``logging`` costs ~8 ms of every bot's start-up and
    the SDK only logs when something is wrong."""
    import logging

    return logging.getLogger("protocol.sdk")


class Bot:
    """A bot. Set ``name`` (1 to 64 characters from ``A-Z a-z 0-9 _ . + -``) and implement
    ``decide``. The hooks are optional; each receives the view already updated."""

    name: str = "bot"
    player_counts: tuple[int, ...] = (2,)
    """The numbers of players the bot plays with (PROTOCOL.md §9): two only unless it says more."""
    profiles: frozenset[str] | None = None
    """The profiles it plays; None: every profile with one of ``player_counts``."""

    def supports(self, profile: str, players: int) -> bool:
        """Does the bot play ``profile`` with ``players`` players? Asked at an N-seat greeting; a
        bot that answers no declines the match cleanly instead of playing it."""
        return players in self.player_counts and (self.profiles is None or profile in self.profiles)

    def decide(self, view: BotView, legal: tuple[Action, ...]) -> Action:
        """The answer to a request: one of ``legal`` (the decision point is ``view.decision``)."""
        raise NotImplementedError("a Bot must implement decide(view, legal)")

    def on_match_start(self, view: BotView) -> None:
        """After the ``match`` and ``rules`` lines: ``view.rules``, ``view.seat`` etc. are set."""

    def on_deal_start(self, view: BotView) -> None:
        """After a ``deal`` line: the hand, trump and up-card are set."""

    def on_event(self, view: BotView, event: Event) -> None:
        """After each event of a deal (played, trick, marriage, exchange, close, draw, claim)."""

    def on_deal_end(self, view: BotView, settle: Settle) -> None:
        """After a ``settle`` line: the only time totals are shown."""

    def on_match_end(self, view: BotView, end: MatchEnd) -> None:
        """After ``match_end``; the SDK then stops reading."""


class BotSession:
    """One bot's side of one match, without I/O: ``feed`` it each referee line and send back what it
    returns (a line without its ``\\n``, or ``None`` when the line needs no answer)."""

    def __init__(self, bot: Bot):
        # Fail now, not at the greeting, on a name the referee would refuse.
        self._ready = encode(Ready(bot.name))
        self.bot = bot
        self.view = BotView()
        self.finished = False
        self._match_started = False
        # Event messages are built only for a bot that looks at them (see _fast).
        self._events_hooked = (type(bot).on_event is not Bot.on_event
                               or "on_event" in getattr(bot, "__dict__", ()))

    def feed(self, line: str | bytes) -> str | None:
        """Handle one line from the referee. A ``ProtocolError`` means the referee and this SDK do
        not speak the same protocol; it is not caught: the bot stops with a traceback on stderr."""
        fast = _fast(self, line)
        if fast is None:
            return self.handle(decode_from_referee(line))
        return fast[0](self, *fast[1:])

    def handle(self, msg: RefereeMessage) -> str | None:
        if isinstance(msg, Unknown):
            return None  # PROTOCOL.md §1: informational lines of a later version 1
        if isinstance(msg, Hello):
            if msg.version != PROTOCOL_VERSION:
                # PROTOCOL.md §3: a bot that does not support the version should exit.
                _log().error("the referee speaks protocol version %d; this SDK speaks %d: exiting",
                             msg.version, PROTOCOL_VERSION)
                self.finished = True
                return None
            if msg.is_nseat and not self.bot.supports(msg.profile or "", msg.players):
                self.finished = True  # the referee closes our input and the match is not played
                return encode(Decline(f"does not support {msg.profile}"))
            return self._ready
        view, bot = self.view, self.bot
        view.update(msg)
        if isinstance(msg, Request):
            return self._answer(msg)
        if isinstance(msg, EVENT_TYPES):
            bot.on_event(view, msg)
        elif isinstance(msg, DealStart):
            self._start_match()  # a referee that skipped the rules line still starts the match
            bot.on_deal_start(view)
        elif isinstance(msg, Settle):
            bot.on_deal_end(view, msg)
        elif isinstance(msg, RulesLine):
            for warning in view.rules_warnings:
                _log().warning("%s", warning)
            self._start_match()
        elif isinstance(msg, MatchStart):
            self._match_started = False
        elif isinstance(msg, MatchEnd):
            bot.on_match_end(view, msg)
            self.finished = True
        return None

    def _start_match(self) -> None:
        if not self._match_started:
            self._match_started = True
            self.bot.on_match_start(self.view)

    def _answer(self, request: Request) -> str:
        action = self.bot.decide(self.view, request.actions)
        if isinstance(action, Action) and action in request.actions:
            self.view.request = None  # answered
            return action.text  # a listed action: its wire form, short and checked
        if not isinstance(action, Action):
            raise TypeError(f"{type(self.bot).__name__}.decide returned {action!r}, not an Action "
                            "(use Action.parse('play:AS') or one of the legal actions)")
        _log().warning("%s chose %s, which the %s? request did not list (%s); sent as it is: "
                       "the referee judges it", self.bot.name, action, request.decision,
                       " ".join(map(str, request.actions)))
        self.view.request = None  # answered
        return encode(ActionReply(action))

    # -- the fast path's handlers: what handle() does for each message, from its fields ----------

    def _fast_ready(self) -> str:
        return self._ready

    def _fast_event(self, fold: Callable[..., None], build: Callable[..., Event],
                    *fields: object) -> None:
        fold(self.view, *fields)
        if self._events_hooked:
            self.bot.on_event(self.view, build(*fields))
        return None

    def _fast_request(self, request: Request) -> str:
        self.view.request = request
        return self._answer(request)

    def _fast_deal(self, *fields: object) -> None:
        self.view._deal(*fields)  # type: ignore[arg-type]
        self._start_match()  # a referee that skipped the rules line still starts the match
        self.bot.on_deal_start(self.view)
        return None

    def _fast_settle(self, settle: Settle) -> None:
        self.view._settle(settle)
        self.bot.on_deal_end(self.view, settle)
        return None

    def _fast_rules(self, flags: list[tuple[str, str]], profile: str) -> None:
        view = self.view
        view._rule_flags.update(flags)
        view.rules, view.rules_warnings = PROFILES[profile], ()
        self._start_match()
        return None


# -- the fast path -------------------------------------------------------------------------------
#
# Most of a bot's CPU per decision went to decoding lines into checked messages and to folding
# them in (issue 18). ``_fast`` reads the usual two-player lines straight from tables of the wire
# forms, checks what the message constructors check, and hands the fields to the session; a
# message is built only where the bot gets it (a request, a settle, match_end; events only for a
# bot with ``on_event``), without its constructor's checks, which were just made. Anything else
# (another version, three or four players, a line that is not exactly as PROTOCOL.md writes it,
# a value out of range) returns None and goes the full way (``decode_from_referee``), which
# decodes it or raises the same ``ProtocolError`` as ever: the fast path only ever agrees with
# it (tests/protocol/test_protocol_sdk.py compares them over many lines).

_CARD: dict[str, Card] = {str(c): c for c in CARDS}
_SUIT: dict[str, Suit] = {s.char: s for s in Suit}
_WHO: dict[str, Who] = {"me": Who.ME, "opp": Who.OPP}
_WINNER: dict[str, Who | None] = {"me": Who.ME, "opp": Who.OPP, "none": None}
_ACTION: dict[str, Action] = {a.text: a for a in (*PLAY_ACTIONS, *MARRY_ACTIONS, EXCHANGE, CLOSE,
                                                  CLAIM, PASS)}
_MARRIAGE_POINTS = {"20": 20, "40": 40}
_new = object.__new__
_setattr = object.__setattr__


def _count(word: str) -> int:
    """A whole number as PROTOCOL.md writes it (no sign, no leading zero); ValueError otherwise."""
    if word.isdigit() and word.isascii() and (word[0] != "0" or len(word) == 1):
        return int(word)
    raise ValueError(word)


def _made(cls: type, **fields: object) -> Any:
    """A message whose fields were checked already (frozen: set through object.__setattr__)."""
    msg: Any = _new(cls)
    for name, value in fields.items():
        _setattr(msg, name, value)
    return msg


def _played(who: Player, card: Card) -> Played:
    return _made(Played, who=who, card=card)


def _trick(who: Player, cards: tuple[Card, ...]) -> Trick:
    return _made(Trick, who=who, led=cards[0], followed=cards[1], more=())


def _draw(who: Player, card: Card | None) -> Draw:
    return _made(Draw, who=who, card=card)


def _marriage(who: Player, suit: Suit, points: int) -> Marriage:
    return _made(Marriage, who=who, suit=suit, points=points)


def _exchange(who: Player, took: Card, gave: Card) -> Exchange:
    return _made(Exchange, who=who, took=took, gave=gave)


def _close(who: Player) -> Close:
    return _made(Close, who=who)


def _claim(who: Player) -> Claim:
    return _made(Claim, who=who)


def _parse(session: BotSession, w: list[str]) -> tuple[Any, ...] | None:
    """The handler and fields for the words of a usual two-player line, or None."""
    first, n = w[0], len(w)
    if first[-1] == "?":
        decision = first[:-1]
        if n < 2 or decision not in _DECISIONS:
            return None
        actions = tuple([_ACTION[word] for word in w[1:]])
        if len(set(actions)) != len(actions):
            return None
        return BotSession._fast_request, _made(Request, decision=decision, actions=actions)
    if first == "played":
        if n != 3:
            return None
        return BotSession._fast_event, BotView._played, _played, _WHO[w[1]], _CARD[w[2]]
    if first == "trick":
        led, followed = _CARD[w[2]], _CARD[w[3]]
        if n != 4 or led is followed:
            return None
        return BotSession._fast_event, BotView._trick, _trick, _WHO[w[1]], (led, followed)
    if first == "draw":
        who = _WHO[w[1]]
        if n == 3:
            return BotSession._fast_event, BotView._draw, _draw, who, _CARD[w[2]]
        if n != 2 or who is Who.ME:
            return None
        return BotSession._fast_event, BotView._draw, _draw, who, None
    if first == "deal":
        # deal <n> dealer <who> upcard <card> stock <k> hand <card>... score <m> <t> pot <p>
        if (n < 15 or w[2] != "dealer" or w[4] != "upcard" or w[6] != "stock" or w[8] != "hand"
                or w[-5] != "score" or w[-2] != "pot"):
            return None
        upcard = _CARD[w[5]]
        hand = tuple([_CARD[word] for word in w[9:-5]])
        if len(set(hand)) != len(hand) or upcard in hand:
            return None
        deal_no, stock = _count(w[1]), _count(w[7])
        if deal_no < 1 or stock < 1:
            return None
        return (BotSession._fast_deal, deal_no, _WHO[w[3]], upcard, stock, hand,
                (_count(w[-4]), _count(w[-3])), _count(w[-1]))
    if first == "settle":
        # settle winner <w> reason <r> points <g> awarded <a> totals <m> <t> tricks <m> <t>
        # score <m> <t> pot <p>
        if (n != 20 or w[1] != "winner" or w[3] != "reason" or w[5] != "points"
                or w[7] != "awarded" or w[9] != "totals" or w[12] != "tricks" or w[15] != "score"
                or w[18] != "pot" or w[4] not in SETTLE_REASONS):
            return None
        return BotSession._fast_settle, _made(
            Settle, winner=_WINNER[w[2]], reason=w[4], points=_count(w[6]), awarded=_count(w[8]),
            totals=(_count(w[10]), _count(w[11])), tricks=(_count(w[13]), _count(w[14])),
            score=(_count(w[16]), _count(w[17])), pot=_count(w[19]), dead=())
    if first == "close":
        if n != 2:
            return None
        return BotSession._fast_event, BotView._close, _close, _WHO[w[1]]
    if first == "claim":
        if n != 2:
            return None
        return BotSession._fast_event, BotView._claim, _claim, _WHO[w[1]]
    if first == "marriage":
        if n != 4:
            return None
        return (BotSession._fast_event, BotView._marriage, _marriage, _WHO[w[1]], _SUIT[w[2]],
                _MARRIAGE_POINTS[w[3]])
    if first == "exchange":
        took, gave = _CARD[w[2]], _CARD[w[3]]
        if n != 4 or took is gave:
            return None
        return BotSession._fast_event, BotView._exchange, _exchange, _WHO[w[1]], took, gave
    if first == "sixtysix":
        if n != 2 or w[1] != "1":
            return None
        return (BotSession._fast_ready,)
    if first == "rules":
        view = session.view
        profile = view.profile or "sixty_six"
        if view._rule_flags or profile not in PROFILES or view.rules is not PROFILES[profile]:
            return None
        # Only the line that lists the profile's own flags: those names and values are valid
        # (RulesLine's checks), and the rules are the profile (rules_from_line).
        texts = _profile_texts(profile)
        flags = [word.partition("=")[::2] for word in w[1:]]
        if any(texts.get(name) != value for name, value in flags):
            return None
        if len({name for name, _ in flags}) != len(flags):
            return None
        return BotSession._fast_rules, flags, profile
    return None


_DECISIONS = frozenset(("lead", "follow", "after_trick", "close_exchange", "between_tricks"))


def _fast(session: BotSession, line: str | bytes) -> tuple[Any, ...] | None:
    """What ``feed`` does with ``line`` by the fast path, or None for the full way."""
    try:
        text = line.decode() if type(line) is bytes else line
    except UnicodeDecodeError:
        return None
    if type(text) is not str or not text.isascii():
        return None
    if text[-1:] == "\n":
        text = text[:-1]
    if len(text) > MAX_LINE_BYTES:
        return None
    if text[-1:] == "\r":  # PROTOCOL.md §1: a \r before the \n is tolerated and dropped
        text = text[:-1]
    if "\n" in text or "\r" in text or not text:
        return None
    words = text.split(" ")
    if "" in words:
        return None
    try:
        return _parse(session, words)
    except (KeyError, ValueError, IndexError):
        return None  # not the usual form: the full decoder says what is wrong, or reads it


def _write(outfile: TextIO | BinaryIO, line: str) -> None:
    if isinstance(outfile, (io.RawIOBase, io.BufferedIOBase)):
        outfile.write((line + "\n").encode("utf-8"))
    else:
        cast(TextIO, outfile).write(line + "\n")
    outfile.flush()  # PROTOCOL.md §1: a line in a buffer has not been sent, and the clock runs


def run(bot: Bot, infile: TextIO | BinaryIO | None = None,
        outfile: TextIO | BinaryIO | None = None) -> BotView:
    """Play one match on ``infile``/``outfile`` (default: standard input and output) until
    ``match_end`` or the end of the input. Returns the final view."""
    source = infile if infile is not None else sys.stdin.buffer  # bytes: UTF-8 is checked here
    sink = outfile if outfile is not None else sys.stdout
    session = BotSession(bot)
    while not session.finished:
        line = source.readline()
        if not line:
            break  # the referee closed our input: the match is over for us
        reply = session.feed(line)
        if reply is not None:
            try:
                _write(sink, reply)
            except BrokenPipeError:
                break  # the referee has gone; nobody is left to answer
    return session.view
