"""Shuffling and dealing (RULES.md §2).

Chance is an input: the referee chooses a seed, and ``shuffled_order`` turns (seed, deal number) into
a permutation of the pack. ``deal_layout`` maps any permutation to hands, up-card and stock by the
canonical index mapping of §2.4, so tests can also inject an explicit order.
"""

from __future__ import annotations

import random
from typing import NamedTuple, Sequence

from arena.game.cards import Card
from arena.game.rules import DealPattern, Rules


class DealLayout(NamedTuple):
    nondealer: int              # bit mask of the hand of the player left of the dealer (leads first)
    dealer: int                 # bit mask of the dealer's hand
    up_card: int                # card index of the up-card (bottom of the stock)
    hidden_stock: tuple[int, ...]  # face-down stock, top (drawn first) to bottom
    hands: tuple[int, ...] = ()    # every hand, clockwise from the dealer's left; the dealer's last
    dead: int = 0                  # the dead pile (RULES.md §10.2), counted for nobody

    def hand_of(self, seat: int, dealer: int, players: int) -> int:
        """The hand dealt to ``seat`` when ``dealer`` deals."""
        return self.hands[(seat - dealer - 1) % players]


def shuffled_order(rules: Rules, seed: int | str, deal_no: int) -> tuple[Card, ...]:
    """The pack in the order it is dealt for deal ``deal_no`` (1-based) of a match seeded ``seed``.

    The stream is ``random.Random("sixtysix/<seed>/<deal_no>")`` shuffling the pack in canonical order
    (cards.Pack): string seeds are hashed with SHA-512 by CPython, so the order is the same on every
    platform and version. Records also store each deal's order, so a replay never depends on it.
    """
    cards = list(rules.pack.cards)
    # random.shuffle's own algorithm (CPython 3.11: Fisher-Yates from the top, each index drawn
    # by rejection from getrandbits), written out: its two Python-level calls per card cost as
    # much as the rest of a short deal. The same draws give the same order, which
    # tests/game/test_match.py checks against random.shuffle itself.
    getrandbits = random.Random(f"sixtysix/{seed}/{deal_no}").getrandbits
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]
    return tuple(cards)


def check_order(rules: Rules, order: Sequence[Card]) -> tuple[int, ...]:
    """Card indices of an explicit order, which must be a permutation of the profile's pack (each
    card twice in the 48-card double pack, RULES.md §10.3)."""
    indices = tuple([c.index for c in order])
    pack = rules.pack
    if sorted(indices) != pack.sorted_indices:  # the same cards, each as often as in the pack
        times = "exactly once" if pack.copies == 1 else "exactly twice"
        raise ValueError(f"a deal order must hold each card of the {pack.size}-card pack {times}; "
                         f"got {' '.join(str(c) for c in order)}")
    return indices


def deal_layout(rules: Rules, order: Sequence[Card]) -> DealLayout:
    """Hands, up-card and stock from a permutation (p[0] dealt first), by RULES.md §2.4 and §10.4.
    Hands are counted masks (``cards.LOW_MASK``): plain bit masks for the single packs."""
    p = check_order(rules, order)
    h = rules.hand_size
    if rules.deal_pattern is DealPattern.THREE_THREE:
        # 3 to the non-dealer, 3 to the dealer, 3 and 3 again; the 13th card is turned up.
        nondealer, dealer, up, rest = p[0:3] + p[6:9], p[3:6] + p[9:12], p[12], p[13:]
    elif rules.deal_pattern is DealPattern.THREE_UP_TWO:
        # Schnapsen (§9): 3 each, the up-card, then 2 each.
        nondealer, dealer, up, rest = p[0:3] + p[7:9], p[3:6] + p[9:11], p[6], p[11:]
    elif rules.deal_pattern is DealPattern.VU_ALTERNATE:
        # VU (§13): alternate single cards, the non-dealer (VU's leader) first; the last card of the
        # permutation is the up-card at the bottom of the talon.
        nondealer, dealer, up, rest = p[0:2 * h:2], p[1:2 * h:2], p[-1], p[2 * h:-1]
    else:
        # RULES.md §10.4: 3 to each player clockwise from the dealer's left, then 4 to each; then the
        # dead pile (three players), the up-card, and the stock on it.
        n = rules.players
        hands = tuple(_mask(p[3 * k:3 * k + 3] + p[3 * n + 4 * k:3 * n + 4 * k + 4]) for k in range(n))
        dealt = n * h
        dead = p[dealt:dealt + rules.dead_size]
        up_at = dealt + rules.dead_size
        return DealLayout(hands[0], hands[-1], p[up_at], p[up_at + 1:], hands, _mask(dead))
    nd, dl = _mask(nondealer), _mask(dealer)
    return DealLayout(nd, dl, up, rest, (nd, dl))


def _mask(indices: Sequence[int]) -> int:
    """A counted mask (``cards.LOW_MASK``) of card indices."""
    mask = 0
    for i in indices:
        bit = 1 << i  # cards.add_card, inlined: every deal of every match comes through here
        mask = mask | (bit << 32) if mask & bit else mask | bit
    return mask
