"""A match as readable text, deal by deal, trick by trick (the omniscient view).

Used by ``arena demo``, ``arena play`` and ``arena replay``. It reads only the engine's events and
settlements, so what it prints is exactly what happened in the engine. The lines are Rich markup for
``arena.console``: bot names and fault details come from bots, so they pass through ``safe``.

``names`` are the seats' names. Winners and side figures are per side (RULES.md §10): with two or
three players a side is a seat, with four a partnership, named after both its bots ("A+C",
``side_names``). Figures are joined with "-": ``totals 70-50`` (two sides), ``35-47-38`` (three).
"""

from __future__ import annotations

from typing import Iterable, Iterator, Sequence

from arena.console import safe
from arena.game import DealResult, EventKind, MatchEnd, MatchOutcome, Suit
from arena.game.cards import CARDS, Card, cards_of_mask
from arena.game.dealing import deal_layout
from arena.types import DealEnding, MatchEnding, MatchResult

SUIT_SYMBOLS = {Suit.CLUBS: "♣", Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦"}

REASON_TEXT = {
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


def _figures(values: Sequence[int]) -> str:
    return "-".join(str(v) for v in values)


def side_names(names: Sequence[str], players: int | None = None) -> tuple[str, ...]:
    """Each side's name: the seat's own with two or three players; with four, the partners' names
    joined with "+" (seats 0+2 and 1+3, RULES.md §10.3). ``players`` defaults to ``len(names)``."""
    players = players or len(names)
    if players != 4:
        return tuple(names)
    return f"{names[0]}+{names[2]}", f"{names[1]}+{names[3]}"


def _scored(result: DealResult, sides: Sequence[str]) -> str:
    """Who scored in the deal: one side (the carried pot included), several (a three-player wrong
    claim pays each opponent, RULES.md §10.2), or nobody."""
    s = result.settlement
    if s.winner is not None:
        return f"{sides[s.winner]} +{result.awarded}"
    scorers = s.scorers
    if scorers:
        return ", ".join(f"{sides[side]} +{s.awards[side]}" for side in scorers)
    return "nobody"


def narrate_deal(result: DealResult, names: Sequence[str]) -> Iterator[str]:
    """Lines describing one settled deal: the hands as dealt, each trick (2, 3 or 4 cards, who
    played what, who won it), marriages, exchanges, claims, and the settlement per side."""
    names = [safe(n) for n in names]
    deal = result.final
    assert deal is not None, "a result slimmed for another process has no deal to narrate"
    rules = deal.rules
    players = rules.players
    sides = side_names(names, players)
    layout = deal_layout(rules, result.order)
    if layout.hands:
        start_hands = {seat: layout.hand_of(seat, result.dealer, players) for seat in range(players)}
    else:
        start_hands = {result.dealer: layout.dealer, 1 - result.dealer: layout.nondealer}
    width = max(len(n) for n in names)
    yield (f"Deal {result.deal_no}: {names[result.dealer]} deals, trump "
           f"{SUIT_SYMBOLS[Suit(deal.trump)]} (up-card {CARDS[layout.up_card]})")
    # In playing order: left of the dealer first, the dealer last (RULES.md §10.4).
    for k in range(1, players + 1):
        seat = (result.dealer + k) % players
        yield f"  {names[seat]:<{width}}  {_cards(cards_of_mask(start_hands[seat]))}"
    if layout.dead:
        yield f"  {'dead':<{width}}  {_cards(cards_of_mask(layout.dead))}"
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
            yield f"      {who} claims {rules.claim_target}"
    s = result.settlement
    totals = f"totals {_figures(s.totals)}, tricks {_figures(s.tricks)}"
    if s.winner is None and not s.scorers:
        outcome = f"no score, pot now {result.pot_after}"
    elif s.winner is None:
        outcome = f"{_scored(result, sides)}; pot now {result.pot_after}"
    else:
        pot = f" (with {result.awarded - s.game_points} carried)" if result.awarded > s.game_points \
            else ""
        outcome = f"{sides[s.winner]} +{result.awarded}{pot}"
    if players > 2:
        totals = f"{totals} ({' - '.join(sides)})"
    score = _figures(result.game_points_after)
    yield f"  => {REASON_TEXT[s.reason]}: {outcome}; {totals}; match {score}"


def narrate_outcome(outcome: MatchOutcome, names: Sequence[str]) -> str:
    names = [safe(n) for n in names]
    sides = side_names(names)
    points = _figures(outcome.game_points)
    if outcome.reason == MatchEnd.DEAL_LIMIT:
        winner = "nobody wins" if outcome.winner is None else f"{sides[outcome.winner]} wins"
        return f"the deal limit ended the match: {winner}, game points {points}"
    if outcome.reason == MatchEnd.FORFEIT:
        offender = names[outcome.offender or 0]
        if outcome.winner is None:  # three players: two remain, nobody wins alone (§10.4)
            return (f"nobody wins the match: {offender} forfeits ({safe(outcome.detail)}); "
                    f"game points {points}")
        return (f"{sides[outcome.winner]} wins the match: {offender} forfeits "
                f"({safe(outcome.detail)}); game points {points}")
    assert outcome.winner is not None  # the target is reached by one side alone
    double = " (a shut-out, counts double)" if outcome.value == 2 else ""
    return f"{sides[outcome.winner]} wins the match {points}{double}"


def deal_line(result: DealResult, names: Sequence[str],
              sides: Sequence[str] | None = None) -> str:
    """One line for a settled deal (``arena play``); ``sides`` names the sides when not
    ``side_names(names)``."""
    names = [safe(n) for n in names]
    s = result.settlement
    who = _scored(result, [safe(n) for n in sides] if sides else side_names(names))
    if who != "nobody" and s.winner is None:
        who = who.replace(", ", " ")
    by = f" by {names[s.claimant]}" if s.claimant is not None else ""
    return (f"Deal {result.deal_no:>2}: {who:<16} {REASON_TEXT[s.reason]}{by}; totals "
            f"{_figures(s.totals)}, tricks {_figures(s.tricks)}; match "
            f"{_figures(result.game_points_after)}")


def match_line(result: "MatchResult", names: Sequence[str],
               sides: Sequence[str] | None = None) -> str:
    """One line for a match result (``arena play``)."""
    names = [safe(n) for n in names]
    sides = [safe(n) for n in sides] if sides else side_names(names)
    points = _figures(result.game_points)
    if result.reason == MatchEnding.DEAL_LIMIT:
        winner = "nobody wins" if result.winner is None else f"{sides[result.winner]} wins"
        return f"the deal limit ended the match: {winner}, game points {points}"
    if result.reason == MatchEnding.DECLINED:
        return f"not played: {safe(result.detail)}"
    if result.reason == MatchEnding.FORFEIT and result.offender is not None:
        winner = "nobody wins (two players remain)" if result.winner is None \
            else f"{sides[result.winner]} wins by forfeit"
        return (f"{winner}: {names[result.offender]} {safe(result.fault)} "
                f"({safe(result.detail)}); game points {points}")
    if result.winner is None:
        return f"no contest: {safe(result.detail)}"
    return f"{sides[result.winner]} wins the match {points}"
