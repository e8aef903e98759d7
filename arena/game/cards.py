"""Cards, suits, ranks, points and packs (RULES.md §1).

Every card has a small integer index, ``suit * 8 + rank``, with ranks numbered from the strongest
(Ace = 0) to the weakest (Seven = 7). A set of cards is then a bit mask (``1 << index``), which is
what the game state stores: it makes "cards of a suit", "cards that beat X" and "is this card in the
hand" single integer operations. The typed API (``Card``) sits on top of those indices.

The text form (``AS``, ``TH``, ``9C``) is the one the wire protocol uses (RULES.md §1.1).
"""

from __future__ import annotations

from enum import IntEnum
from typing import Iterable, Iterator


class Suit(IntEnum):
    """The four suits. They have no order among themselves; only the trump suit is special."""

    CLUBS = 0
    SPADES = 1
    HEARTS = 2
    DIAMONDS = 3

    @property
    def char(self) -> str:
        return _SUIT_CHARS[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        # Exactly one character: str.index would also find "" and substrings such as "HD", which
        # made the wire text "marry:" parse as "marry:C" (the text forms are the protocol's, §1.1).
        try:
            if len(text) != 1:
                raise ValueError
            return cls(_SUIT_CHARS.index(text.upper()))
        except (ValueError, TypeError):
            raise ValueError(f"not a suit: {text!r} (expected one of C S H D)") from None

    def __str__(self) -> str:
        return self.char


class Rank(IntEnum):
    """Ranks, numbered from the strongest (RULES.md §1.1: A > 10 > K > Q > J > 9 > 8 > 7)."""

    ACE = 0
    TEN = 1
    KING = 2
    QUEEN = 3
    JACK = 4
    NINE = 5
    EIGHT = 6
    SEVEN = 7

    @property
    def char(self) -> str:
        return _RANK_CHARS[self]

    @property
    def points(self) -> int:
        return RANK_POINTS[self]

    @classmethod
    def parse(cls, text: str) -> Rank:
        try:
            if len(text) != 1:  # as Suit.parse: no "" or substrings of the rank chars
                raise ValueError
            return cls(_RANK_CHARS.index(text.upper()))
        except (ValueError, TypeError):
            raise ValueError(f"not a rank: {text!r} (expected one of A T K Q J 9 8 7)") from None

    def __str__(self) -> str:
        return self.char


_SUIT_CHARS = "CSHD"
_RANK_CHARS = "ATKQJ987"
RANK_POINTS = (11, 10, 4, 3, 2, 0, 0, 0)
"""Card points by rank index. Strength must be compared by rank index, never by points: 9, 8 and 7
are all worth 0 in the 32-card pack (RULES.md §1.1, implementation note)."""

NUM_CARD_INDICES = 32


class Card:
    """One card of the single packs (20, 24 or 32 cards). Instances are interned: compare with ``is``
    or ``==``, both work. ``Card.parse("TH")`` and ``str(card) == "TH"`` round-trip."""

    __slots__ = ("index", "suit", "rank", "points", "bit", "_text")

    index: int
    suit: Suit
    rank: Rank
    points: int
    bit: int
    _text: str

    def __new__(cls, suit: Suit, rank: Rank) -> Card:
        return CARDS[int(suit) * 8 + int(rank)]

    @classmethod
    def _make(cls, suit: Suit, rank: Rank) -> Card:
        card = object.__new__(cls)
        card.index = int(suit) * 8 + int(rank)
        card.suit = suit
        card.rank = rank
        card.points = RANK_POINTS[rank]
        card.bit = 1 << card.index
        card._text = rank.char + suit.char
        return card

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse the two-character form: rank (A T K Q J 9 8 7) then suit (C S H D)."""
        if not isinstance(text, str) or len(text) != 2:
            raise ValueError(f"not a card: {text!r} (expected rank+suit such as 'TH' or '9C')")
        try:
            return CARDS[int(Suit.parse(text[1])) * 8 + int(Rank.parse(text[0]))]
        except ValueError as err:
            raise ValueError(f"not a card: {text!r} ({err})") from err

    @staticmethod
    def from_index(index: int) -> Card:
        return CARDS[index]

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Card.parse({self._text!r})"

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (Card.from_index, (self.index,))

    def __lt__(self, other: Card) -> bool:
        # A stable display order: by suit, then strongest first.
        return self.index < other.index


CARDS: tuple[Card, ...] = tuple(Card._make(Suit(i // 8), Rank(i % 8)) for i in range(NUM_CARD_INDICES))

SUIT_MASKS: tuple[int, ...] = tuple(0xFF << (8 * s) for s in range(4))
"""Bit mask of every card index of a suit (whatever the pack)."""

POINTS_BY_INDEX: tuple[int, ...] = tuple(c.points for c in CARDS)


LOW_MASK = (1 << NUM_CARD_INDICES) - 1
"""The bits of the first copy of every card. With the 48-card double pack (RULES.md §10.3) a set of
cards is a *counted* mask: bit ``i`` says "at least one copy of card i", bit ``i + 32`` says "both
copies". The low 32 bits are then the set of distinct cards, so every rule that asks "which cards
may be played" reads them alone, and single packs never set a high bit."""

_POINTS_BY_BIT = POINTS_BY_INDEX + POINTS_BY_INDEX


def cards_of_mask(mask: int) -> list[Card]:
    """The cards of a bit mask, in index order (by suit, strongest first); a card held twice (a
    counted mask, see ``LOW_MASK``) is listed twice."""
    out = []
    if mask >> NUM_CARD_INDICES:
        out = cards_of_mask(mask >> NUM_CARD_INDICES)
        mask &= LOW_MASK
        out += cards_of_mask(mask)
        out.sort()
        return out
    while mask:
        low = mask & -mask
        out.append(CARDS[low.bit_length() - 1])
        mask ^= low
    return out


def add_card(mask: int, index: int) -> int:
    """A counted mask with one more copy of card ``index`` (see ``LOW_MASK``)."""
    bit = 1 << index
    return mask | (bit << NUM_CARD_INDICES) if mask & bit else mask | bit


def remove_card(mask: int, index: int) -> int:
    """A counted mask with one copy of card ``index`` fewer; the card must be in it."""
    high = 1 << (index + NUM_CARD_INDICES)
    return mask ^ high if mask & high else mask ^ (1 << index)


def card_count(mask: int) -> int:
    """How many cards a counted mask holds."""
    return mask.bit_count()


def indices_of_mask(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def mask_of(cards: Iterable[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= card.bit
    return mask


def mask_points(mask: int) -> int:
    """Card points of a set of cards (a counted mask counts a card held twice twice)."""
    total = 0
    while mask:
        low = mask & -mask
        total += _POINTS_BY_BIT[low.bit_length() - 1]
        mask ^= low
    return total


def beats(challenger: int, best: int, trump: int) -> bool:
    """Does card index ``challenger`` beat ``best`` (the card currently winning the trick)?

    RULES.md §5.1: same suit, the higher rank wins; a trump beats any plain card; a card of another
    plain suit never wins. Lower rank index means higher rank.
    """
    c_suit = challenger >> 3
    b_suit = best >> 3
    if c_suit == b_suit:
        return challenger < best
    return c_suit == trump


class Pack:
    """A pack: which ranks it holds, how many copies of each card, and which card is the exchange
    card (RULES.md §1.2). The 48-card pack of §10.3 is two 24-card packs: ``copies = 2``, and its
    sets of cards are counted masks (``LOW_MASK``).
    """

    __slots__ = ("size", "ranks", "exchange_rank", "exchange_indices", "cards", "mask", "copies",
                 "sorted_indices")

    def __init__(self, size: int, ranks: tuple[Rank, ...], copies: int = 1):
        self.size = size
        self.ranks = ranks
        self.copies = copies
        # The exchange card is the lowest trump of the pack: 9 (24, 48), J (20), 7 (32).
        self.exchange_rank = ranks[-1]
        # Canonical order, used by the seeded shuffle (RULES.md §2.4): suits C S H D, ranks strongest
        # first (the double pack: the first pack, then the second). Changing it changes every seeded
        # deal, so it is part of the replay contract.
        self.cards = tuple(Card(suit, rank) for suit in Suit for rank in ranks) * copies
        self.mask = mask_of(self.cards)  # the distinct cards
        self.sorted_indices = sorted(card.index for card in self.cards)
        # The exchange card's index for each trump suit (by the suit's number): DealState.new
        # looks it up once a deal, where building the card cost an enum call and a lookup.
        self.exchange_indices = tuple(Card(Suit(number), self.exchange_rank).index
                                      for number in range(len(Suit)))

    def exchange_card(self, trump: Suit) -> Card:
        return Card(trump, self.exchange_rank)

    def __repr__(self) -> str:
        return f"Pack({self.size})"


PACKS: dict[int, Pack] = {
    20: Pack(20, (Rank.ACE, Rank.TEN, Rank.KING, Rank.QUEEN, Rank.JACK)),
    24: Pack(24, (Rank.ACE, Rank.TEN, Rank.KING, Rank.QUEEN, Rank.JACK, Rank.NINE)),
    32: Pack(32, tuple(Rank)),
    48: Pack(48, (Rank.ACE, Rank.TEN, Rank.KING, Rank.QUEEN, Rank.JACK, Rank.NINE), copies=2),
}
