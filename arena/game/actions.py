"""Actions a player takes and the decision points at which he takes them (RULES.md §4).

Every action has one text form, the one the wire protocol uses: ``play:AS``, ``marry:H``,
``exchange``, ``close``, ``claim``, ``pass``. Instances are interned, so ``Action.parse(s) is
Action.parse(s)`` and membership tests against ``legal_actions()`` are identity checks.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum

from arena.game.cards import CARDS, NUM_CARD_INDICES, Card, Suit


class ActionKind(StrEnum):
    PLAY = "play"          # lead or follow a card
    MARRY = "marry"        # declare K+Q of a suit (RULES.md §5.4); the K or Q is led next
    EXCHANGE = "exchange"  # give the lowest trump, take the up-card (§5.3)
    CLOSE = "close"        # close the stock (§5.5)
    CLAIM = "claim"        # announce 66 (§7.2); ends the deal
    PASS = "pass"          # decline the options of a decision point (after a trick, at a close)


class Decision(IntEnum):
    """Decision points (RULES.md §4). The text form names them on the wire."""

    LEAD = 0            # DP-L: exchange, close, marry, claim, then lead
    FOLLOW = 1          # DP-F: exchange (default profile), then follow
    AFTER_TRICK = 2     # DP-W: the trick winner may claim, close before the draw, or pass
    CLOSE_EXCHANGE = 3  # DP-X: the closer's opponent may exchange at the moment of the close
    BETWEEN_TRICKS = 4  # exchange_who = between_tricks: the non-leader may exchange before the lead
    OVER = 5            # the deal is settled

    @property
    def text(self) -> str:
        return _DECISION_TEXT[self]

    def __str__(self) -> str:
        return self.text


_DECISION_TEXT = ("lead", "follow", "after_trick", "close_exchange", "between_tricks", "over")


class Action:
    """One action. Build with ``Action.play(card)``, ``Action.marry(suit)``, the constants
    ``EXCHANGE CLOSE CLAIM PASS``, or ``Action.parse(text)``."""

    __slots__ = ("kind", "card", "suit", "text", "index")

    kind: ActionKind
    card: Card | None
    suit: Suit | None
    text: str
    index: int  # card index for PLAY, suit for MARRY, -1 otherwise (the engine's fast path)

    @classmethod
    def _make(cls, kind: ActionKind, card: Card | None = None, suit: Suit | None = None) -> Action:
        action = object.__new__(cls)
        action.kind = kind
        action.card = card
        action.suit = suit
        if card is not None:
            action.text, action.index = f"{kind}:{card}", card.index
        elif suit is not None:
            action.text, action.index = f"{kind}:{suit}", int(suit)
        else:
            action.text, action.index = str(kind), -1
        return action

    @staticmethod
    def play(card: Card | str) -> Action:
        return PLAY_ACTIONS[(Card.parse(card) if isinstance(card, str) else card).index]

    @staticmethod
    def marry(suit: Suit | str) -> Action:
        return MARRY_ACTIONS[Suit.parse(suit) if isinstance(suit, str) else suit]

    @staticmethod
    def parse(text: str) -> Action:
        """Parse the wire form. Raises ``ValueError`` with the reason for anything else."""
        try:
            return _BY_TEXT[text]
        except (KeyError, TypeError):
            pass
        kind, sep, arg = str(text).partition(":")
        if kind == "play" and sep:
            return Action.play(Card.parse(arg))
        if kind == "marry" and sep:
            return Action.marry(Suit.parse(arg))
        raise ValueError(f"not an action: {text!r} (expected play:<card>, marry:<suit>, exchange, "
                         "close, claim or pass)")

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Action.parse({self.text!r})"

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Action.parse, (self.text,))


PLAY_ACTIONS: tuple[Action, ...] = tuple(Action._make(ActionKind.PLAY, card=CARDS[i])
                                         for i in range(NUM_CARD_INDICES))
MARRY_ACTIONS: tuple[Action, ...] = tuple(Action._make(ActionKind.MARRY, suit=s) for s in Suit)
EXCHANGE = Action._make(ActionKind.EXCHANGE)
CLOSE = Action._make(ActionKind.CLOSE)
CLAIM = Action._make(ActionKind.CLAIM)
PASS = Action._make(ActionKind.PASS)

_BY_TEXT: dict[str, Action] = {a.text: a for a in (*PLAY_ACTIONS, *MARRY_ACTIONS, EXCHANGE, CLOSE,
                                                    CLAIM, PASS)}
