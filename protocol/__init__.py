"""The Sixty-Six Arena wire protocol, version 1 (PROTOCOL.md), and the Python bot SDK.

Data flow: ``messages`` (the value types) <-> ``codec`` (text, pure) ; ``from_engine`` (what the
referee sends, from ``arena.game``) ; ``view`` (what a bot has seen) ; ``sdk`` (the bot's loop) ;
``local`` (whole matches between in-process bots, for bots' tests and benchmarks).
"""

from protocol.codec import (MAX_LINE_BYTES, PROTOCOL_NAME, PROTOCOL_VERSION, ProtocolError,
                            decode_from_bot, decode_from_referee, encode)
from protocol.messages import (REQUEST_DECISIONS, ActionReply, BotMessage, Claim, Clock, Close,
                               DealStart,
                               Decline, Draw, Event, Exchange, Fault, Hello, Marriage, MatchEnd,
                               MatchStart, Message, Played, Player, Ready, RefereeMessage, Request,
                               RulesLine, Settle, Trick, Unknown, Who, wire_name)
from protocol.sdk import Bot, BotSession, run
from protocol.view import BotView, ShownMarriage, StockState

__all__ = [
    "MAX_LINE_BYTES", "PROTOCOL_NAME", "PROTOCOL_VERSION", "REQUEST_DECISIONS", "ActionReply",
    "Bot", "BotMessage", "BotSession", "BotView", "Claim", "Clock", "Close", "DealStart", "Decline", "Draw",
    "Event",
    "Exchange", "Fault", "Hello", "Marriage", "MatchEnd", "MatchStart", "Message", "Played", "Player",
    "ProtocolError", "Ready", "RefereeMessage", "Request", "RulesLine", "Settle", "ShownMarriage",
    "StockState", "Trick", "Unknown", "Who", "decode_from_bot", "decode_from_referee", "encode",
    "run", "wire_name",
]
