"""Engine facts -> the messages one seat receives: the one place mapping ``arena.game`` to the wire.

The referee sends exactly these; tests use them to drive bots without processes. Visibility is
decided by ``arena.game.observation`` (other seats' private draws arrive masked), never here.

Two players are named ``me``/``opp`` and per-player figures are pairs (mine, theirs) (PROTOCOL.md
§3-§7). Three or four players are named by seat number and per-side figures are lists, side 0
first (§9).
"""

from __future__ import annotations

from typing import Sequence

from arena.game import Card, DealResult, DealState, EventKind, MatchOutcome, MatchState, Rules
from arena.game.cards import cards_of_mask
from arena.game.dealing import deal_layout
from arena.game.events import Event as EngineEvent
from arena.game.observation import visible_event
from protocol.codec import MAX_LINE_BYTES, encode
from protocol.messages import (Claim, Close, DealStart, Draw, Event, Exchange, Fault, Hello,
                               Marriage, MatchEnd, MatchStart, Played, Player, Request, RulesLine,
                               Settle, Trick, Who)


def _pair(pair: tuple[int, ...], seat: int) -> tuple[int, int]:
    """A per-seat pair as ``(mine, theirs)`` for ``seat``."""
    return pair[seat], pair[1 - seat]


def hello(rules: Rules) -> Hello:
    """The greeting: ``sixtysix 1``, or with three or four players the one that names the variant,
    so that a bot can decline it (PROTOCOL.md §9)."""
    if rules.players == 2:
        return Hello()
    return Hello(1, rules.players, rules.name)


def match_start(match_id: str, rules: Rules, seat: int, names: Sequence[str],
                decision_ms: int) -> MatchStart:
    """The ``match`` line for ``seat``; ``names`` are every seat's bot name in seat order."""
    if len(names) != rules.players:
        raise ValueError(f"{rules.players} players need {rules.players} names, not {len(names)}")
    if rules.players == 2:
        return MatchStart(match_id, rules.name, rules.match_target, seat, names[1 - seat],
                          decision_ms)
    return MatchStart(match_id, rules.name, rules.match_target, seat, None, decision_ms,
                      rules.players, tuple(names))


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
    if match.rules.players == 2:
        return DealStart(match.deal_no, Who.of(match.dealer, seat), deal.up_card, deal.stock_size,
                         tuple(deal.hand(seat)), _pair(match.game_points, seat), match.pot)
    return DealStart(match.deal_no, match.dealer, deal.up_card, deal.stock_size,
                     tuple(deal.hand(seat)), tuple(match.game_points), match.pot)


def event_message(event: EngineEvent, seat: int, players: int = 2) -> Event | None:
    """The event as ``seat`` receives it; ``None`` for the engine's settle event (the ``settle``
    line is built from the deal result by ``settle``)."""
    event = visible_event(event, seat)
    who: Player = Who.of(event.seat, seat) if players == 2 else event.seat
    kind = event.kind
    if kind is EventKind.PLAY:
        return Played(who, event.cards[0])
    if kind is EventKind.TRICK:
        cards = event.cards
        return Trick(who, cards[0], cards[1], tuple(cards[2:]))
    if kind is EventKind.DRAW:
        return Draw(who, event.cards[0] if event.cards else None)
    if kind is EventKind.MARRIAGE:
        assert event.suit is not None
        return Marriage(who, event.suit, event.value)
    if kind is EventKind.EXCHANGE:
        return Exchange(who, event.cards[0], event.cards[1])
    if kind is EventKind.CLOSE:
        assert isinstance(who, Who)  # closing is two-player only (RULES.md §10)
        return Close(who)
    if kind is EventKind.CLAIM:
        return Claim(who)
    return None


def request(deal: DealState) -> Request:
    """The request for the player to act (``deal.to_act``)."""
    return Request(deal.decision.text, deal.legal_actions())


def dead_pile(result: DealResult, rules: Rules) -> tuple[Card, ...]:
    """The dead pile of a three-player deal (RULES.md §10.2). A slimmed result has no final state,
    but its pack order deals the same layout again."""
    if rules.dead_size == 0:
        return ()
    if result.final is not None:
        return tuple(result.final.dead_pile())
    return tuple(cards_of_mask(deal_layout(rules, result.order).dead))


def settle(result: DealResult, seat: int, rules: Rules) -> Settle:
    s = result.settlement
    if rules.players == 2:
        winner = None if s.winner is None else Who.of(s.winner, seat)
        return Settle(winner, str(s.reason), s.game_points, result.awarded, _pair(s.totals, seat),
                      _pair(s.tricks, seat), _pair(result.game_points_after, seat),
                      result.pot_after)
    # PROTOCOL.md §9: the same line for every seat. ``points`` is the deal's worth to each scorer
    # (a three-player wrong claim pays each opponent the same); ``awarded`` adds the pot to the
    # single scorer's figure (with several scorers the pot waits: RULES.md §10.4).
    if s.winner is not None:
        awarded = tuple(result.awarded if side == s.winner else 0 for side in range(rules.sides))
        points = s.game_points
    else:
        awarded = tuple(s.awards) if s.awards else (0,) * rules.sides
        points = max(awarded)
    return Settle(s.winner, str(s.reason), points, awarded, tuple(s.totals), tuple(s.tricks),
                  tuple(result.game_points_after), result.pot_after, dead_pile(result, rules))


def match_end(outcome: MatchOutcome, seat: int, fault: Fault | None = None,
              players: int = 2) -> MatchEnd:
    """The ``match_end`` line; ``fault`` is the protocol fault of a forfeit (the engine only knows
    who forfeited, not which fault it was)."""
    if players != 2:
        # PROTOCOL.md §9: a side wins (none after a three-player forfeit); the offender is a seat.
        offender_seat = None
        if fault is not None:
            assert outcome.offender is not None
            offender_seat = outcome.offender
        return MatchEnd(outcome.winner, str(outcome.reason), tuple(outcome.game_points), fault,
                        offender_seat)
    offender = None
    if fault is not None:
        assert outcome.offender is not None
        offender = Who.of(outcome.offender, seat)
    winner = None if outcome.winner is None else Who.of(outcome.winner, seat)
    return MatchEnd(winner, str(outcome.reason), _pair(outcome.game_points, seat), fault, offender)
