"""Helpers for the engine tests: build an exact deal from hands, and play a compact action script.

A scripted deal names both hands, the up-card and the top of the stock; every card not named goes to
the bottom of the stock in the pack's canonical order. The order is then laid out by the canonical
mapping of RULES.md §2.4 for the profile's deal pattern, so ``DealState.new`` deals exactly those hands.
Seat 0 is the non-dealer ("A", who leads trick 1) and seat 1 the dealer ("B") unless stated.

A script is a space-separated list of wire actions, where a bare card ("AS") means ``play:AS``:
``"marry:S KS AS pass"`` = A declares spades and leads the king, B plays the ace, B passes at DP-W.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from arena.game import Action, Card, DealState, MatchState, Rules, profile
from arena.game.rules import DealPattern

A, B = 0, 1
"""Seat 0 is the non-dealer in every scripted deal (dealer = seat 1), so A leads trick 1."""

SIXTY_SIX = profile("sixty_six")
SCHNAPSEN = profile("schnapsen")
VU = profile("vu_compat")


def cards(text: str | Iterable[str]) -> list[Card]:
    words = text.split() if isinstance(text, str) else list(text)
    return [Card.parse(w) for w in words]


def order_for(rules: Rules, nondealer: str, dealer: str, up: str, stock: str = "") -> tuple[Card, ...]:
    """The pack order that deals these hands by RULES.md §2.4. ``stock`` is the top of the hidden
    stock (drawn first); the remaining cards follow in canonical pack order."""
    nd, dl, top = cards(nondealer), cards(dealer), cards(stock)
    upc = Card.parse(up)
    h = rules.hand_size
    if len(nd) != h or len(dl) != h:
        raise ValueError(f"hands must hold {h} cards: {nondealer!r} / {dealer!r}")
    named = nd + dl + [upc] + top
    if len(set(named)) != len(named):
        raise ValueError(f"a card is named twice: {' '.join(map(str, named))}")
    rest = [c for c in rules.pack.cards if c not in named]
    hidden = top + rest
    pattern = rules.deal_pattern
    if pattern is DealPattern.THREE_THREE:
        order = nd[0:3] + dl[0:3] + nd[3:6] + dl[3:6] + [upc] + hidden
    elif pattern is DealPattern.THREE_UP_TWO:
        order = nd[0:3] + dl[0:3] + [upc] + nd[3:5] + dl[3:5] + hidden
    else:  # vu_alternate: single cards, non-dealer first; the up-card is the last card
        order = [c for pair in zip(nd, dl) for c in pair] + hidden + [upc]
    if len(order) != rules.deck_size:
        raise ValueError(f"{len(order)} cards laid out for a {rules.deck_size}-card pack")
    return tuple(order)


def deal(nondealer: str, dealer: str, up: str, stock: str = "", rules: Rules = SIXTY_SIX) -> DealState:
    """A fresh deal with seat 1 dealing: seat 0 holds ``nondealer``, seat 1 holds ``dealer``."""
    state = DealState.new(rules, B, order_for(rules, nondealer, dealer, up, stock))
    # The layout must give exactly the hands asked for; a wrong helper would make every case moot.
    assert set(state.hand(A)) == set(cards(nondealer)), state
    assert set(state.hand(B)) == set(cards(dealer)), state
    assert state.up_card == Card.parse(up)
    return state


def actions(script: str) -> list[Action]:
    out = []
    for word in script.split():
        out.append(Action.play(word) if len(word) == 2 else Action.parse(word))
    return out


def play(state: DealState, script: str) -> DealState:
    """Apply every action of ``script`` (validated). A failure names the step, for readable errors."""
    for i, action in enumerate(actions(script)):
        try:
            state = state.apply(action)
        except Exception as err:  # pragma: no cover - only reached when a scenario is wrong
            raise AssertionError(f"step {i} ({action}) of {script!r} failed at {state!r}: {err}") from err
    return state


def play_match(match: MatchState, script: str) -> MatchState:
    for i, action in enumerate(actions(script)):
        try:
            match = match.apply(action)
        except Exception as err:  # pragma: no cover
            raise AssertionError(f"step {i} ({action}) of {script!r} failed at {match.deal!r}: {err}") \
                from err
    return match


def legal(state: DealState) -> set[str]:
    return {str(a) for a in state.legal_actions()}


def texts(items: Sequence[object]) -> list[str]:
    return [str(x) for x in items]


# -- three and four players (RULES.md §10) -----------------------------------------------------------

THREE = profile("three_player")
FOUR = profile("four_player")


def order_n(rules: Rules, hands: Sequence[str], dealer: int, up: str, stock: str = "",
            dead: str = "") -> tuple[Card, ...]:
    """The pack order that deals ``hands[seat]`` to each seat when ``dealer`` deals, by the
    canonical mapping of RULES.md §10.4 (3 then 4 cards to each player from the dealer's left, the
    dead pile, the up-card, the stock). ``stock`` is the top of the hidden stock; the cards not
    named follow in canonical pack order (each card twice with the double pack)."""
    n = rules.players
    by_seat = [cards(h) for h in hands]
    if len(by_seat) != n or any(len(h) != rules.hand_size for h in by_seat):
        raise ValueError(f"{n} hands of {rules.hand_size} cards needed: {hands!r}")
    dead_cards, top, upc = cards(dead), cards(stock), Card.parse(up)
    if len(dead_cards) != rules.dead_size:
        raise ValueError(f"the dead pile holds {rules.dead_size} cards, not {dead!r}")
    rest = list(rules.pack.cards)
    for card in [c for h in by_seat for c in h] + dead_cards + [upc] + top:
        rest.remove(card)  # ValueError: a card named more often than the pack holds it
    positions = [by_seat[(dealer + 1 + k) % n] for k in range(n)]
    order = [c for h in positions for c in h[:3]] + [c for h in positions for c in h[3:]]
    order += dead_cards + [upc] + top + rest
    assert len(order) == rules.deck_size
    return tuple(order)


def deal_n(rules: Rules, hands: Sequence[str], dealer: int, up: str, stock: str = "",
           dead: str = "") -> DealState:
    state = DealState.new(rules, dealer, order_n(rules, hands, dealer, up, stock, dead))
    for seat, hand in enumerate(hands):
        assert sorted(state.hand(seat)) == sorted(cards(hand)), state
    assert state.up_card == Card.parse(up)
    return state
