"""Engine facts -> the messages one seat receives: the one place mapping ``arena.game`` to the wire.

The referee sends exactly these; tests use them to drive bots without processes. Visibility is
decided by ``arena.game.observation`` (the opponent's private draws arrive masked), never here.
"""

from __future__ import annotations

from arena.game import DealResult, DealState, EventKind, MatchOutcome, MatchState, Rules
from arena.game.events import Event as EngineEvent
from arena.game.observation import visible_event
from protocol.codec import MAX_LINE_BYTES, encode
from protocol.messages import (Claim, Close, DealStart, Draw, Event, Exchange, Fault, Marriage,
                               MatchEnd, MatchStart, Played, Request, RulesLine, Settle, Trick, Who)


def _pair(pair: tuple[int, ...], seat: int) -> tuple[int, int]:
    """A per-seat pair as ``(mine, theirs)`` for ``seat``."""
    return pair[seat], pair[1 - seat]


def match_start(match_id: str, rules: Rules, seat: int, opponent: str,
                decision_ms: int) -> MatchStart:
    return MatchStart(match_id, rules.name, rules.match_target, seat, opponent, decision_ms)


def rules_lines(rules: Rules) -> tuple[RulesLine, ...]:
    """The ``rules`` lines for ``rules``: as few as fit, each within ``MAX_LINE_BYTES`` (today one;
    new flags within version 1 must never push a line over the limit, PROTOCOL.md §3)."""
    flags = RulesLine.from_rules(rules).flags
    lines: list[RulesLine] = []
    chunk: list[tuple[str, str]] = []
    for flag in flags:
        if chunk and len(encode(RulesLine(tuple(chunk + [flag])))) > MAX_LINE_BYTES:
            lines.append(RulesLine(tuple(chunk)))
            chunk = []
        chunk.append(flag)
    lines.append(RulesLine(tuple(chunk)))
    return tuple(lines)


def deal_start(match: MatchState, seat: int) -> DealStart:
    """The ``deal`` line of the match's current deal, before anything has happened in it."""
    deal = match.deal
    assert deal.up_card is not None
    return DealStart(match.deal_no, Who.of(match.dealer, seat), deal.up_card, deal.stock_size,
                     tuple(deal.hand(seat)), _pair(match.game_points, seat), match.pot)


def event_message(event: EngineEvent, seat: int) -> Event | None:
    """The event as ``seat`` receives it; ``None`` for the engine's settle event (the ``settle``
    line is built from the deal result by ``settle``)."""
    event = visible_event(event, seat)
    who = Who.of(event.seat, seat)
    kind = event.kind
    if kind is EventKind.PLAY:
        return Played(who, event.cards[0])
    if kind is EventKind.TRICK:
        return Trick(who, event.cards[0], event.cards[1])
    if kind is EventKind.DRAW:
        return Draw(who, event.cards[0] if event.cards else None)
    if kind is EventKind.MARRIAGE:
        assert event.suit is not None
        return Marriage(who, event.suit, event.value)
    if kind is EventKind.EXCHANGE:
        return Exchange(who, event.cards[0], event.cards[1])
    if kind is EventKind.CLOSE:
        return Close(who)
    if kind is EventKind.CLAIM:
        return Claim(who)
    return None


def request(deal: DealState) -> Request:
    """The request for the player to act (``deal.to_act``)."""
    return Request(deal.decision.text, deal.legal_actions())


def settle(result: DealResult, seat: int) -> Settle:
    s = result.settlement
    winner = None if s.winner is None else Who.of(s.winner, seat)
    return Settle(winner, str(s.reason), s.game_points, result.awarded, _pair(s.totals, seat),
                  _pair(s.tricks, seat), _pair(result.game_points_after, seat), result.pot_after)


def match_end(outcome: MatchOutcome, seat: int, fault: Fault | None = None) -> MatchEnd:
    """The ``match_end`` line; ``fault`` is the protocol fault of a forfeit (the engine only knows
    who forfeited, not which fault it was)."""
    offender = None
    if fault is not None:
        assert outcome.offender is not None
        offender = Who.of(outcome.offender, seat)
    winner = None if outcome.winner is None else Who.of(outcome.winner, seat)
    return MatchEnd(winner, str(outcome.reason), _pair(outcome.game_points, seat), fault, offender)
