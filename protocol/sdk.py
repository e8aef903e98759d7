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

The limits of a match are in the view: ``view.decision_ms``, and from the ``clock`` line, when
the match has one, ``view.first_decision_ms`` (the first request's limit; otherwise
``decision_ms``) and ``view.bank_ms`` (the bot's time bank for the match; otherwise 0):
PROTOCOL.md §6. What a bot logs to stderr is shown to its author beside each decision in the
replay (§6.1).

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
from protocol.messages import (EVENT_TYPES, MATCH_END_REASONS, NAME_RE, REQUEST_DECISIONS,
                               SETTLE_REASONS, ActionReply, Claim,
                               Close, DealStart, Decline, Draw, Event, Exchange, Hello, Marriage,
                               MatchEnd, MatchStart, Played, Ready, RefereeMessage,
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
        reply = _fast(self, line)
        if reply is _FULL_WAY:
            return self.handle(decode_from_referee(line))
        return reply

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
_NUMBER: dict[str, int] = {str(n): n for n in range(256)}
"""Whole numbers as PROTOCOL.md writes them (no sign, no leading zero): every count of a usual
line. A larger one goes the full way."""
_FULL_WAY: Any = object()
"""What a reader returns for a line it leaves to ``decode_from_referee``, before it changed
anything."""
_new = object.__new__
_setattr = object.__setattr__


def _made(cls: type, **fields: object) -> Any:
    """A message whose fields were checked already (frozen: set through object.__setattr__)."""
    msg: Any = _new(cls)
    for name, value in fields.items():
        _setattr(msg, name, value)
    return msg


def _event(session: BotSession, cls: type, **fields: object) -> None:
    session.bot.on_event(session.view, _made(cls, **fields))


def _read_request(session: BotSession, w: list[str]) -> Any:
    try:
        actions = tuple(map(_ACTION.__getitem__, w[1:]))
    except KeyError:
        return _FULL_WAY
    if not actions or len(set(actions)) != len(actions):
        return _FULL_WAY
    request: Request = _made(Request, decision=w[0][:-1], actions=actions)
    session.view.request = request
    return session._answer(request)


def _read_played(session: BotSession, w: list[str]) -> Any:
    if len(w) != 3:
        return _FULL_WAY
    who, card = _WHO.get(w[1]), _CARD.get(w[2])
    if who is None or card is None:
        return _FULL_WAY
    session.view._played(who, card)
    if session._events_hooked:
        _event(session, Played, who=who, card=card)
    return None


def _read_trick(session: BotSession, w: list[str]) -> Any:
    if len(w) != 4:
        return _FULL_WAY
    who, led, followed = _WHO.get(w[1]), _CARD.get(w[2]), _CARD.get(w[3])
    if who is None or led is None or followed is None or led is followed:
        return _FULL_WAY
    session.view._trick(who, (led, followed))
    if session._events_hooked:
        _event(session, Trick, who=who, led=led, followed=followed, more=())
    return None


def _read_draw(session: BotSession, w: list[str]) -> Any:
    who = _WHO.get(w[1]) if len(w) in (2, 3) else None
    card = _CARD.get(w[2]) if len(w) == 3 else None
    if who is None or (card is None and (len(w) == 3 or who is Who.ME)):
        return _FULL_WAY  # a bot always sees the card it draws
    session.view._draw(who, card)
    if session._events_hooked:
        _event(session, Draw, who=who, card=card)
    return None


def _read_who(session: BotSession, w: list[str]) -> Any:
    """``close <who>`` and ``claim <who>``."""
    who = _WHO.get(w[1]) if len(w) == 2 else None
    if who is None:
        return _FULL_WAY
    if w[0] == "close":
        session.view._close(who)
        if session._events_hooked:
            _event(session, Close, who=who)
    else:
        session.view._claim(who)
        if session._events_hooked:
            _event(session, Claim, who=who)
    return None


def _read_marriage(session: BotSession, w: list[str]) -> Any:
    if len(w) != 4:
        return _FULL_WAY
    who, suit, points = _WHO.get(w[1]), _SUIT.get(w[2]), _MARRIAGE_POINTS.get(w[3])
    if who is None or suit is None or points is None:
        return _FULL_WAY
    session.view._marriage(who, suit, points)
    if session._events_hooked:
        _event(session, Marriage, who=who, suit=suit, points=points)
    return None


def _read_exchange(session: BotSession, w: list[str]) -> Any:
    if len(w) != 4:
        return _FULL_WAY
    who, took, gave = _WHO.get(w[1]), _CARD.get(w[2]), _CARD.get(w[3])
    if who is None or took is None or gave is None or took is gave:
        return _FULL_WAY
    session.view._exchange(who, took, gave)
    if session._events_hooked:
        _event(session, Exchange, who=who, took=took, gave=gave)
    return None


def _read_deal(session: BotSession, w: list[str]) -> Any:
    # deal <n> dealer <who> upcard <card> stock <k> hand <card>... score <m> <t> pot <p>
    if (len(w) < 15 or w[2] != "dealer" or w[4] != "upcard" or w[6] != "stock" or w[8] != "hand"
            or w[-5] != "score" or w[-2] != "pot"):
        return _FULL_WAY
    number = _NUMBER.get
    deal_no, dealer, upcard, stock = number(w[1]), _WHO.get(w[3]), _CARD.get(w[5]), number(w[7])
    mine, theirs, pot = number(w[-4]), number(w[-3]), number(w[-1])
    try:
        hand = tuple(map(_CARD.__getitem__, w[9:-5]))
    except KeyError:
        return _FULL_WAY
    if (not deal_no or dealer is None or upcard is None or not stock or mine is None
            or theirs is None or pot is None or len(set(hand)) != len(hand) or upcard in hand):
        return _FULL_WAY  # (deal_no and stock are at least 1)
    session.view._deal(deal_no, dealer, upcard, stock, hand, (mine, theirs), pot)
    session._start_match()  # a referee that skipped the rules line still starts the match
    session.bot.on_deal_start(session.view)
    return None


def _read_settle(session: BotSession, w: list[str]) -> Any:
    # settle winner <w> reason <r> points <g> awarded <a> totals <m> <t> tricks <m> <t>
    # score <m> <t> pot <p>
    if (len(w) != 20 or w[1] != "winner" or w[3] != "reason" or w[5] != "points"
            or w[7] != "awarded" or w[9] != "totals" or w[12] != "tricks" or w[15] != "score"
            or w[18] != "pot" or w[2] not in _WINNER or w[4] not in SETTLE_REASONS):
        return _FULL_WAY
    n = list(map(_NUMBER.get, (w[6], w[8], w[10], w[11], w[13], w[14], w[16], w[17], w[19])))
    if None in n:
        return _FULL_WAY
    settle: Settle = _made(Settle, winner=_WINNER[w[2]], reason=w[4], points=n[0], awarded=n[1],
                           totals=(n[2], n[3]), tricks=(n[4], n[5]), score=(n[6], n[7]),
                           pot=n[8], dead=())
    session.view._settle(settle)
    session.bot.on_deal_end(session.view, settle)
    return None


def _read_hello(session: BotSession, w: list[str]) -> Any:
    if len(w) != 2 or w[1] != "1":
        return _FULL_WAY
    return session._ready


def _count(word: str) -> int | None:
    """A whole number as PROTOCOL.md writes it, of any size; None for anything else."""
    number = _NUMBER.get(word)
    if number is None and word.isdigit() and word.isascii() and word[0] != "0":
        return int(word)
    return number


def _read_match(session: BotSession, w: list[str]) -> Any:
    # match <id> profile <p> target <n> seat <0|1> opponent <name> decision_ms <ms>
    if (len(w) != 12 or w[2] != "profile" or w[4] != "target" or w[6] != "seat"
            or w[8] != "opponent" or w[10] != "decision_ms" or w[7] not in ("0", "1")):
        return _FULL_WAY
    target, decision_ms = _count(w[5]), _count(w[11])
    # Words of printable ASCII (the line is ASCII and split at its spaces) and a bot name.
    if (not target or not decision_ms or not w[1].isprintable() or not w[3].isprintable()
            or NAME_RE.fullmatch(w[9]) is None):
        return _FULL_WAY
    start: MatchStart = _made(MatchStart, match_id=w[1], profile=w[3], target=target,
                              seat=int(w[7]), opponent=w[9], decision_ms=decision_ms, players=2,
                              names=())
    session.view._match_start(start)
    session._match_started = False
    return None


def _read_match_end(session: BotSession, w: list[str]) -> Any:
    # match_end winner <who|none> reason <r> score <m> <t>; one with a fault goes the full way
    if (len(w) != 8 or w[1] != "winner" or w[3] != "reason" or w[5] != "score"
            or w[2] not in _WINNER or w[4] not in MATCH_END_REASONS):
        return _FULL_WAY
    winner, mine, theirs = _WINNER[w[2]], _count(w[6]), _count(w[7])
    if mine is None or theirs is None or (winner is None and w[4] != "deal_limit"):
        return _FULL_WAY  # only a match stopped at the deal limit has no winner (two players)
    end: MatchEnd = _made(MatchEnd, winner=winner, reason=w[4], score=(mine, theirs), fault=None,
                          offender=None)
    session.view._match_end(end)
    session.bot.on_match_end(session.view, end)
    session.finished = True
    return None


def _read_rules(session: BotSession, w: list[str]) -> Any:
    """Only the line that lists its profile's own flags: those names and values are valid
    (RulesLine's checks), and the rules are the profile (rules_from_line)."""
    view = session.view
    profile = view.profile or "sixty_six"
    if view._rule_flags or profile not in PROFILES or view.rules is not PROFILES[profile]:
        return _FULL_WAY
    texts = _profile_texts(profile)
    flags = [word.partition("=")[::2] for word in w[1:]]
    if any(texts.get(name) != value for name, value in flags):
        return _FULL_WAY
    if len({name for name, _ in flags}) != len(flags):
        return _FULL_WAY
    view._rule_flags.update(flags)
    view.rules_warnings = ()
    session._start_match()
    return None


_READERS: dict[str, Callable[[BotSession, list[str]], Any]] = {
    "played": _read_played, "trick": _read_trick, "draw": _read_draw, "close": _read_who,
    "claim": _read_who, "marriage": _read_marriage, "exchange": _read_exchange,
    "deal": _read_deal, "settle": _read_settle, "sixtysix": _read_hello, "rules": _read_rules,
    "match": _read_match, "match_end": _read_match_end,
    **{f"{decision}?": _read_request for decision in REQUEST_DECISIONS},
}


def _fast(session: BotSession, line: str | bytes) -> Any:
    """What ``feed`` answers to ``line``, by the fast path; ``_FULL_WAY`` (and nothing done) for
    a line it leaves to the full decoder."""
    if type(line) is bytes:
        try:
            text = line.decode()
        except UnicodeDecodeError:
            return _FULL_WAY
    elif type(line) is str:
        text = line
    else:
        return _FULL_WAY
    if text[-1:] == "\n":
        text = text[:-1]
    if len(text) > MAX_LINE_BYTES or not text.isascii():  # ASCII: as many bytes as characters
        return _FULL_WAY
    if text[-1:] == "\r":  # PROTOCOL.md §1: a \r before the \n is tolerated and dropped
        text = text[:-1]
    if "\n" in text or "\r" in text:
        return _FULL_WAY
    words = text.split(" ")
    read = _READERS.get(words[0])
    if read is None or "" in words:
        return _FULL_WAY
    return read(session, words)


def _writer(outfile: TextIO | BinaryIO) -> Callable[[str], None]:
    """Writes one line and flushes it, on a text or a binary stream (looked at once, not per line)."""
    if isinstance(outfile, (io.RawIOBase, io.BufferedIOBase)):
        binary = cast(BinaryIO, outfile)

        def write(line: str) -> None:
            binary.write((line + "\n").encode("utf-8"))
            binary.flush()  # PROTOCOL.md §1: a line in a buffer has not been sent, and the clock runs
    else:
        text = cast(TextIO, outfile)

        def write(line: str) -> None:
            text.write(line + "\n")
            text.flush()
    return write


def run(bot: Bot, infile: TextIO | BinaryIO | None = None,
        outfile: TextIO | BinaryIO | None = None) -> BotView:
    """Play one match on ``infile``/``outfile`` (default: standard input and output) until
    ``match_end`` or the end of the input. Returns the final view."""
    source = infile if infile is not None else sys.stdin.buffer  # bytes: UTF-8 is checked here
    write = _writer(outfile if outfile is not None else sys.stdout)
    session = BotSession(bot)
    readline, feed = source.readline, session.feed
    while not session.finished:
        line = readline()
        if not line:
            break  # the referee closed our input: the match is over for us
        reply = feed(line)
        if reply is not None:
            try:
                write(reply)
            except BrokenPipeError:
                break  # the referee has gone; nobody is left to answer
    return session.view


# -- warming up a zygote ---------------------------------------------------------------------------

_WARM_UP_DEAL = (
    "deal 1 dealer opp upcard TH stock 12 hand AS KS QS 9H JC 9D score 0 0 pot 0",
    "lead? close marry:S play:JC play:AS play:KS play:QS play:9H play:9D",
    "marriage me S 20", "played me KS", "follow? play:AH play:JH", "played opp AH",
    "trick opp KS AH", "after_trick? claim close pass", "draw opp", "draw me 9C",
    "exchange opp TH JH", "played opp TD", "follow? play:AD play:9D", "played me 9D",
    "trick opp TD 9D", "close opp", "close_exchange? exchange pass", "between_tricks? pass",
    "draw opp JH", "played opp QH", "played me 9H", "trick opp QH 9H", "claim opp",
    "settle winner opp reason claim points 1 awarded 1 totals 66 40 tricks 3 2 score 0 1 pot 0",
)


class _WarmUpBot(Bot):
    name = "warm-up"

    def decide(self, view: BotView, legal: tuple[Action, ...]) -> Action:
        return legal[0]


def warm_up(rounds: int = 4) -> None:
    """Play a canned two-player dialogue through the SDK's hot path ``rounds`` times, on streams
    in memory: for a process that forks bots (``arena/isolation/zygote.py``), before it forks.

    A forked bot shares the zygote's pages until it writes them, and running code writes them:
    CPython 3.11 specialises a function's bytecode in place after its first few calls, and the
    allocator fills pools the zygote left half empty. A bot that ran the SDK's hot path first in
    its own process copied ~70 pages per match doing so (~1 ms of CPU, issue 18); warmed up once
    in the zygote, every bot it forks starts with that code specialised and those pages written.
    No state is kept but the SDK's caches of immutable tables (the profiles' flag texts)."""
    import os

    from protocol.from_engine import rules_lines

    dialogues = []
    for profile in ("sixty_six", "schnapsen", "vu_compat"):
        lines = ["sixtysix 1", f"match w profile {profile} target 7 seat 0 opponent w "
                 "decision_ms 1000", *map(encode, rules_lines(PROFILES[profile])),
                 *_WARM_UP_DEAL, "match_end winner opp reason target score 0 7"]
        dialogues.append("".join(line + "\n" for line in lines).encode())
    with open(os.devnull, "w") as sink:
        for _ in range(rounds):
            for dialogue in dialogues:
                run(_WarmUpBot(), io.BytesIO(dialogue), sink)
