"""What happens in a deal, as a list of events (the public record, plus each player's own draws).

The state keeps every event it produced; ``observe()`` decides which of them a seat may see, and the
referee turns the visible ones into protocol messages. Totals never appear here: the only event that
carries them is the settlement, which comes after the deal has ended (RULES.md §3, mental count).
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from arena.game.cards import Card, Suit


class EventKind(StrEnum):
    PLAY = "play"          # seat played cards[0]
    TRICK = "trick"        # seat won the trick cards = (led, followed)
    MARRIAGE = "marriage"  # seat showed cards = (K, Q) of suit, worth value (20 or 40)
    EXCHANGE = "exchange"  # seat took cards[0] (the up-card) and gave cards[1] (the lowest trump)
    CLOSE = "close"        # seat closed the stock
    DRAW = "draw"          # seat drew cards[0]; value 1 when it was the face-up card (then public)
    CLAIM = "claim"        # seat claimed 66
    SETTLE = "settle"      # the deal ended; see the state's settlement


class Event(NamedTuple):
    kind: EventKind
    seat: int
    cards: tuple[Card, ...] = ()
    value: int = 0
    suit: Suit | None = None

    def is_private_draw(self) -> bool:
        """A draw whose card only the drawer may see."""
        return self.kind is EventKind.DRAW and not self.value

    def __str__(self) -> str:
        parts = [str(self.kind), f"seat={self.seat}"]
        if self.cards:
            parts.append(" ".join(str(c) for c in self.cards))
        if self.kind is EventKind.MARRIAGE:
            parts.append(str(self.value))
        return " ".join(parts)
