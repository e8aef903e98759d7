"""A match as readable text, deal by deal, trick by trick (the omniscient view).

Used by ``arena demo``, ``arena play`` and ``arena replay``. It reads only the engine's events and
settlements, so what it prints is exactly what happened in the engine. The lines are Rich markup for
``arena.console``: bot names and fault details come from bots, so they pass through ``safe``.
"""

from __future__ import annotations

from typing import Iterable, Iterator, Sequence

from arena.console import safe
from arena.game import DealResult, EventKind, MatchEnd, MatchOutcome, Suit
from arena.game.cards import CARDS, Card, cards_of_mask
from arena.game.dealing import deal_layout
from arena.types import DealEnding, MatchEnding, MatchResult

SUIT_SYMBOLS = {Suit.CLUBS: "♣", Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦"}

_REASON_TEXT = {
    DealEnding.CLAIM: "correct claim",
    DealEnding.WRONG_CLAIM: "wrong claim",
    DealEnding.CLOSE_FAILED: "failed close",
    DealEnding.CLAIM_AGAINST_CLOSE: "claim against the closer",
    DealEnding.LAST_TRICK: "last trick wins",
    DealEnding.HIGHER_TOTAL: "higher total",
    DealEnding.DRAW: "drawn deal",
    DealEnding.FORFEIT: "forfeit (illegal action)",
}


def _cards(cards: Iterable[Card]) -> str:
    return " ".join(str(c) for c in cards)


def narrate_deal(result: DealResult, names: Sequence[str]) -> Iterator[str]:
    """Lines describing one settled deal."""
    names = [safe(n) for n in names]
    deal = result.final
    assert deal is not None, "a result slimmed for another process has no deal to narrate"
    layout = deal_layout(deal.rules, result.order)
    start_hands = {result.dealer: layout.dealer, 1 - result.dealer: layout.nondealer}
    width = max(len(n) for n in names)
    yield (f"Deal {result.deal_no}: {names[result.dealer]} deals, trump "
           f"{SUIT_SYMBOLS[Suit(deal.trump)]} (up-card {CARDS[layout.up_card]})")
    for seat in (1 - result.dealer, result.dealer):
        yield f"  {names[seat]:<{width}}  {_cards(cards_of_mask(start_hands[seat]))}"
    trick_no = 0
    line: list[str] = []
    for event in deal.events():
        who = names[event.seat] if event.seat >= 0 else ""
        kind = event.kind
        if kind is EventKind.PLAY:
            line.append(f"{who} {event.cards[0]}")
        elif kind is EventKind.TRICK:
            trick_no += 1
            yield f"  {trick_no:>2}. {', '.join(line)}  -> {who}"
            line = []
        elif kind is EventKind.MARRIAGE:
            assert event.suit is not None  # a marriage event names its suit
            line.append(f"{who} shows {SUIT_SYMBOLS[event.suit]} marriage ({event.value})")
        elif kind is EventKind.EXCHANGE:
            yield f"      {who} exchanges {event.cards[1]} for {event.cards[0]}"
        elif kind is EventKind.CLOSE:
            yield f"      {who} closes the stock"
        elif kind is EventKind.CLAIM:
            yield f"      {who} claims 66"
    s = result.settlement
    totals = f"totals {s.totals[0]}-{s.totals[1]}, tricks {s.tricks[0]}-{s.tricks[1]}"
    if s.winner is None:
        outcome = f"no score, pot now {result.pot_after}"
    else:
        pot = f" (with {result.awarded - s.game_points} carried)" if result.awarded > s.game_points \
            else ""
        outcome = f"{names[s.winner]} +{result.awarded}{pot}"
    score = f"{result.game_points_after[0]}-{result.game_points_after[1]}"
    yield f"  => {_REASON_TEXT[s.reason]}: {outcome}; {totals}; match {score}"


def narrate_outcome(outcome: MatchOutcome, names: Sequence[str]) -> str:
    names = [safe(n) for n in names]
    points = f"{outcome.game_points[0]}-{outcome.game_points[1]}"
    if outcome.reason == MatchEnd.DEAL_LIMIT:
        winner = "nobody wins" if outcome.winner is None else f"{names[outcome.winner]} wins"
        return f"the deal limit ended the match: {winner}, game points {points}"
    assert outcome.winner is not None  # only the deal limit ends a match without a winner
    if outcome.reason == MatchEnd.FORFEIT:
        return (f"{names[outcome.winner]} wins the match: {names[outcome.offender or 0]} forfeits "
                f"({safe(outcome.detail)}); game points {points}")
    double = " (a shut-out, counts double)" if outcome.value == 2 else ""
    return f"{names[outcome.winner]} wins the match {points}{double}"


def deal_line(result: DealResult, names: Sequence[str]) -> str:
    """One line for a settled deal (``arena play``)."""
    names = [safe(n) for n in names]
    s = result.settlement
    who = "nobody" if s.winner is None else f"{names[s.winner]} +{result.awarded}"
    by = f" by {names[s.claimant]}" if s.claimant is not None else ""
    return (f"Deal {result.deal_no:>2}: {who:<16} {_REASON_TEXT[s.reason]}{by}; totals "
            f"{s.totals[0]}-{s.totals[1]}, tricks {s.tricks[0]}-{s.tricks[1]}; match "
            f"{result.game_points_after[0]}-{result.game_points_after[1]}")


def match_line(result: "MatchResult", names: Sequence[str]) -> str:
    """One line for a match result (``arena play``)."""
    names = [safe(n) for n in names]
    points = f"{result.game_points[0]}-{result.game_points[1]}"
    if result.reason == MatchEnding.DEAL_LIMIT:
        winner = "nobody wins" if result.winner is None else f"{names[result.winner]} wins"
        return f"the deal limit ended the match: {winner}, game points {points}"
    if result.winner is None:
        return f"no contest: {safe(result.detail)}"
    if result.reason == MatchEnding.FORFEIT:
        assert result.offender is not None
        return (f"{names[result.winner]} wins by forfeit: {names[result.offender]} "
                f"{safe(result.fault)} ({safe(result.detail)}); game points {points}")
    return f"{names[result.winner]} wins the match {points}"
