"""A starter bot for the Sixty-Six Arena, in Python: the SDK speaks the protocol and keeps the count.

It plays every profile (two, three and four players). Each request it answers in this order:

1. claim the moment its side's count reaches the target (66, or 101 with four players), and never
   below it: a wrong claim loses the deal;
2. take the up-card whenever an exchange is offered (it is never worse than the lowest trump);
3. show a marriage (the trump one, worth 40, first);
4. play a card: when following, the cheapest card that wins the trick if one does, else the
   cheapest card; when leading, the cheapest card, a trump last;
5. otherwise pass (never a close: closing needs a plan, which is yours to write).

Its name is the one in ``bot.toml``, read at start, so that renaming the bot is one edit there.
Run the tests with ``python3 -m pytest`` in this folder; check it with ``arena check .``.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from arena.game import CLAIM, CLOSE, EXCHANGE, PASS, Action, ActionKind, Card
from arena.game.cards import beats
from protocol import Bot, BotView, run

MANIFEST = Path(__file__).resolve().with_name("bot.toml")


def manifest_name() -> str:
    with open(MANIFEST, "rb") as fh:
        return str(tomllib.load(fh)["name"])


class StarterBot(Bot):
    player_counts = (2, 3, 4)  # the SDK declines no variant (PROTOCOL.md §9.1)

    def __init__(self, name: str = "starter"):
        self.name = name

    def decide(self, view: BotView, legal: tuple[Action, ...]) -> Action:
        # The referee never tells a bot its points (the mental count): the view counts them.
        if CLAIM in legal and view.my_points() >= view.claim_target:
            return CLAIM
        if EXCHANGE in legal:
            return EXCHANGE
        marriages = [a for a in legal if a.kind is ActionKind.MARRY]
        if marriages:
            return max(marriages, key=lambda a: a.suit is view.trump)
        cards = [a.card for a in legal if a.card is not None]
        if cards:
            return Action.play(choose_card(view, cards))
        if PASS in legal:
            return PASS
        # Only a claim below the target, or a close, is left: neither is a good idea, but one of
        # the offered actions must be the answer.
        return next((a for a in legal if a is not CLAIM and a is not CLOSE), legal[-1])


def cost(view: BotView, card: Card) -> tuple[bool, int, int]:
    """What giving ``card`` away costs: a trump most, then its points, then its rank."""
    return (card.suit is view.trump, card.points, -int(card.rank))


def winning(view: BotView, card: Card) -> bool:
    """Does ``card`` beat every card on the table (the current trick)?"""
    assert view.trump is not None
    best = view.table[0][1]
    for _, played in view.table[1:]:
        if beats(played.index, best.index, int(view.trump)):
            best = played
    return beats(card.index, best.index, int(view.trump))


def choose_card(view: BotView, cards: list[Card]) -> Card:
    if view.table:  # following: win as cheaply as possible, else throw the cheapest card
        winners = [c for c in cards if winning(view, c)]
        return min(winners or cards, key=lambda c: cost(view, c))
    return min(cards, key=lambda c: cost(view, c))


if __name__ == "__main__":
    run(StarterBot(manifest_name()))
