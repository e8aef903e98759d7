"""Engine facts -> the messages one seat receives: the one place mapping ``arena.game`` to the wire.

The referee sends exactly these; tests use them to drive bots without processes. Visibility is
decided by ``arena.game.observation`` (other seats' private draws arrive masked), never here.

Two players are named ``me``/``opp`` and per-player figures are pairs (mine, theirs) (PROTOCOL.md
§3-§7). Three or four players are named by seat number and per-side figures are lists, side 0
first (§9).
"""

from __future__ import annotations

from typing import Sequence

from arena.game import CARDS, Card, DealResult, DealState, EventKind, MatchOutcome, MatchState, Rules
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
    size = len("rules")
    for name, value in flags:
        # " name=value": the flags are ASCII (RulesLine checks it), so characters are bytes. Counted,
        # not encoded per flag: building a line per flag made this quadratic in the flags.
        word = len(name) + len(value) + 2
        if chunk and size + word > MAX_LINE_BYTES:
            lines.append(RulesLine(tuple(chunk)))
            chunk, size = [], len("rules")
        chunk.append((name, value))
        size += word
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


# -- lines, built directly ------------------------------------------------------------------------
# The referee's hot path: the same lines as ``encode`` of the messages above, byte for byte
# (tests/arena/test_referee.py compares them over whole random matches of every player count),
# without building and validating a message object per seat. The engine's facts need no
# validation, and none of these lines can come near MAX_LINE_BYTES (a request lists at most a
# hand and five more actions). Once-a-match lines (``hello``, ``match``, ``rules``, ``match_end``)
# keep the message path.

_CARD_TEXT: dict[Card, str] = {c: str(c) for c in CARDS}
_WHO_TWO = (("me", "opp"), ("opp", "me"))  # _WHO_TWO[seat][reader]: how ``reader`` names ``seat``


def _names(seat: int, players: int) -> Sequence[str]:
    """How each reader, in seat order, names ``seat`` (PROTOCOL.md §2; §9: by number)."""
    return _WHO_TWO[seat] if players == 2 else (str(seat),) * players


def event_lines(event: EngineEvent, players: int = 2) -> tuple[str | None, ...]:
    """``encode(event_message(event, reader, players))`` for every reader in seat order (``None``
    for the settle event, as there). A draw's card reaches only the drawer unless it was the
    face-up card (``observation.visible_event``: the one place that decides it)."""
    seat = event.seat
    kind = event.kind
    cards = event.cards
    if players == 2:  # the two commonest events, looked up: several a decision
        if kind is EventKind.PLAY:
            return _PLAYED_TWO[seat][cards[0].index]
        if kind is EventKind.DRAW:
            return _DRAWN_TWO[1 if event.value else 0][seat][cards[0].index]
    names = _names(seat, players)
    if kind is EventKind.DRAW:
        if event.value:  # public: the up-card
            card = _CARD_TEXT[cards[0]]
            return tuple([f"draw {who} {card}" for who in names])
        lines = [f"draw {who}" for who in names]
        visible = visible_event(event, seat).cards  # the drawer's own view
        if visible:
            lines[seat] += " " + _CARD_TEXT[visible[0]]
        return tuple(lines)
    if kind is EventKind.PLAY:
        card = _CARD_TEXT[cards[0]]
        return tuple([f"played {who} {card}" for who in names])
    if kind is EventKind.TRICK:
        shown = " ".join([_CARD_TEXT[c] for c in cards])
        return tuple([f"trick {who} {shown}" for who in names])
    if kind is EventKind.MARRIAGE:
        assert event.suit is not None
        tail = f"{str(event.suit)} {event.value}"
        return tuple([f"marriage {who} {tail}" for who in names])
    if kind is EventKind.EXCHANGE:
        tail = f"{_CARD_TEXT[cards[0]]} {_CARD_TEXT[cards[1]]}"
        return tuple([f"exchange {who} {tail}" for who in names])
    if kind is EventKind.CLOSE:
        assert players == 2  # closing is two-player only (RULES.md §10)
        return tuple([f"close {who}" for who in names])
    if kind is EventKind.CLAIM:
        return tuple([f"claim {who}" for who in names])
    return (None,) * players


# Two players: every ``played`` pair of lines and every ``draw`` pair (private, public) by the
# seat and the card's index, as event_lines above builds them for any number of players.
_PLAYED_TWO = tuple(tuple((f"played {names[0]} {c}", f"played {names[1]} {c}") for c in CARDS)
                    for names in _WHO_TWO)
_DRAWN_TWO = (
    tuple(tuple(tuple(f"draw {names[r]} {c}" if r == seat else f"draw {names[r]}" for r in (0, 1))
                for c in CARDS) for seat, names in enumerate(_WHO_TWO)),
    tuple(tuple((f"draw {names[0]} {c}", f"draw {names[1]} {c}") for c in CARDS)
          for names in _WHO_TWO))


def request_line(deal: DealState) -> str:
    """``encode(request(deal))``."""
    return f"{deal.decision.text}? {' '.join([a.text for a in deal.legal_actions()])}"


def deal_start_line(match: MatchState, seat: int) -> str:
    """``encode(deal_start(match, seat))``."""
    if match.rules.players != 2:
        return encode(deal_start(match, seat))
    deal = match.deal
    assert deal.up_card is not None
    hand = " ".join([_CARD_TEXT[c] for c in cards_of_mask(deal.hands[seat])])
    mine, theirs = _pair(match.game_points, seat)
    return (f"deal {match.deal_no} dealer {_WHO_TWO[match.dealer][seat]} upcard "
            f"{_CARD_TEXT[deal.up_card]} stock {deal.stock_size} hand {hand} score {mine} {theirs} "
            f"pot {match.pot}")


def settle_line(result: DealResult, seat: int, rules: Rules) -> str:
    """``encode(settle(result, seat, rules))``."""
    if rules.players != 2:
        return encode(settle(result, seat, rules))
    s = result.settlement
    other = 1 - seat
    winner = "none" if s.winner is None else _WHO_TWO[s.winner][seat]
    totals, tricks, score = s.totals, s.tricks, result.game_points_after
    return (f"settle winner {winner} reason {str(s.reason)} points {s.game_points} awarded "
            f"{result.awarded} totals {totals[seat]} {totals[other]} tricks {tricks[seat]} "
            f"{tricks[other]} score {score[seat]} {score[other]} pot {result.pot_after}")
