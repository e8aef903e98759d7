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
