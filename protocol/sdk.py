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
from typing import BinaryIO, TextIO, cast

from arena.game import Action
from protocol.codec import PROTOCOL_VERSION, decode_from_referee, encode
from protocol.messages import (EVENT_TYPES, ActionReply, DealStart, Decline, Event, Hello,
                               MatchEnd, MatchStart, Ready, RefereeMessage, Request, RulesLine,
                               Settle, Unknown)
from protocol.view import BotView


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
        Ready(bot.name)  # fail now, not at the greeting, on a name the referee would refuse
        self.bot = bot
        self.view = BotView()
        self.finished = False
        self._match_started = False

    def feed(self, line: str | bytes) -> str | None:
        """Handle one line from the referee. A ``ProtocolError`` means the referee and this SDK do
        not speak the same protocol; it is not caught: the bot stops with a traceback on stderr."""
        return self.handle(decode_from_referee(line))

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
            return encode(Ready(self.bot.name))
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
        if not isinstance(action, Action):
            raise TypeError(f"{type(self.bot).__name__}.decide returned {action!r}, not an Action "
                            "(use Action.parse('play:AS') or one of the legal actions)")
        if action not in request.actions:
            _log().warning("%s chose %s, which the %s? request did not list (%s); sent as it is: "
                           "the referee judges it", self.bot.name, action, request.decision,
                           " ".join(map(str, request.actions)))
        self.view.request = None  # answered
        return encode(ActionReply(action))


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
