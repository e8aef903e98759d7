"""A heuristic bot that counts: the arena's reference opponent.

It keeps the mental count through the SDK's view, claims the moment its count reaches 66 in a claim
window (and never below), always exchanges, always shows its best marriage, closes only when the
cards in its hand guarantee 66, and plays cheaply: win a trick when it is cheap or worth it, else
throw the card worth least.

With three or four players (RULES.md §10) it plays ``bots.nseat.greedy_choice``: the same habits
for a side (claim exactly at the side's 66 or 101, load a partner's winning trick with points).
"""

from __future__ import annotations

from arena.game import CLAIM, CLOSE, EXCHANGE, PASS, Action, ActionKind, Card, Rank
from arena.game.cards import beats
from arena.game.rules import CLAIM_TARGET, MarriageLeadCard
from bots.nseat import ViewTracker, greedy_choice
from protocol import Bot, BotView, Event, StockState, run

HIGH_LEAD_POINTS = 10
"""A led card worth this much (an ace or a ten) is worth a trump in phase 1."""


class GreedyBot(Bot):
    name = "greedy"
    player_counts = (2, 3, 4)  # every profile (PROTOCOL.md §9: declared, so never declined)

    _nseat: ViewTracker | None = None  # made on first use: subclasses need not call __init__

    @property
    def nseat(self) -> ViewTracker:
        """What the seat saw in a three- or four-player match (bots/nseat.py)."""
        if self._nseat is None:
            self._nseat = ViewTracker()
        return self._nseat

    def on_match_start(self, view: BotView) -> None:
        self.nseat.match_start(view)

    def on_deal_start(self, view: BotView) -> None:
        self.nseat.deal_start(view)

    def on_event(self, view: BotView, event: Event) -> None:
        self.nseat.event(event)

    def decide(self, view: BotView, legal: tuple[Action, ...]) -> Action:
        if self.nseat.knowledge is not None:
            return greedy_choice(self.nseat.knowledge, legal)
        # The count is ours to keep (RULES.md §3): claim exactly when it reaches 66.
        if CLAIM in legal and view.my_points() >= CLAIM_TARGET:
            return CLAIM
        if EXCHANGE in legal:
            return EXCHANGE  # the up-card is never worse than the lowest trump
        if CLOSE in legal and close_is_sure(view):
            return CLOSE
        marriages = [a for a in legal if a.kind is ActionKind.MARRY and _may_marry(view, a)]
        if marriages:
            return max(marriages, key=lambda a: a.suit is view.trump)  # 40 before 20
        cards = [a.card for a in legal if a.card is not None]
        if not cards:
            return PASS if PASS in legal else legal[-1]
        if view.led is None:
            return Action.play(choose_lead(view, cards))
        return Action.play(choose_follow(view, view.led, cards))


# -- what is sure ----------------------------------------------------------------------------------


def sure_winner(view: BotView, card: Card, extra_opp: frozenset[Card] = frozenset()) -> bool:
    """Does ``card``, led now, win whatever the opponent holds and plays?

    Once the stock is exhausted his hand is known exactly and must obey the follow rules (RULES.md
    §6: follow suit, and trump only when void). Otherwise any card he might hold could be played
    against it, so only a card that nothing left can beat is sure.
    """
    trump = view.trump
    assert trump is not None
    opp = view.opp_possible | extra_opp
    if view.stock_state is StockState.EXHAUSTED and not extra_opp:
        same = [o for o in opp if o.suit is card.suit]
        if same:
            return all(o.rank > card.rank for o in same)  # a higher rank has a lower index
        return card.suit is trump or not any(o.suit is trump for o in opp)
    return not any(beats(o.index, card.index, int(trump)) for o in opp)


def close_is_sure(view: BotView) -> bool:
    """Close only when the count plus sure winners reaches 66 (RULES.md §7.4: a failed close costs
    2 or 3). After the close we keep the lead and play the sure winners one after another; each
    brings at least its own points, and a claim window follows each one."""
    # The opponent may take the up-card at the close (DP-X), so count it as his.
    bottom = frozenset({view.stock_bottom}) if view.stock_bottom is not None else frozenset()
    winners = [c for c in view.hand if sure_winner(view, c, bottom)]
    if not winners:
        return False
    bound = view.my_points() + view.pending_marriage_points() + sum(c.points for c in winners)
    return bound >= CLAIM_TARGET


def _may_marry(view: BotView, action: Action) -> bool:
    """Show a marriage, except in phase 2 (on the closing lead, or in Schnapsen) when neither of its
    cards is a sure winner: the marriage must then be led, and losing that trick could cost a close
    made on the promise of sure winners."""
    if view.phase == 1:
        return True
    assert action.suit is not None
    leads = (Rank.KING,) if view.rules.marriage_lead_card is MarriageLeadCard.KING_ONLY \
        else (Rank.KING, Rank.QUEEN)
    return any(sure_winner(view, Card(action.suit, rank)) for rank in leads)


# -- which card ------------------------------------------------------------------------------------


def _marriage_part(view: BotView, card: Card) -> bool:
    """A king or queen whose partner is in hand: keep it while a marriage can still be shown."""
    if card.rank not in (Rank.KING, Rank.QUEEN):
        return False
    if view.phase == 2 and not view.rules.marriage_in_phase2:
        return False
    partner = Card(card.suit, Rank.QUEEN if card.rank is Rank.KING else Rank.KING)
    return partner in view.hand


def _cheapest(view: BotView, cards: list[Card]) -> Card:
    """The card we lose least by giving away: not a trump, not half of a marriage, few points, and
    among equals the weakest."""
    return min(cards, key=lambda c: (c.suit is view.trump, _marriage_part(view, c), c.points,
                                     -int(c.rank)))


def _weakest(cards: list[Card]) -> Card:
    return max(cards, key=lambda c: int(c.rank))


def _count_if_won(view: BotView, *cards: Card) -> int:
    """My count after winning a trick of ``cards``: pending marriages count once we win one."""
    return view.my_points() + view.pending_marriage_points() + sum(c.points for c in cards)


def choose_lead(view: BotView, cards: list[Card]) -> Card:
    winners = [c for c in cards if sure_winner(view, c)]
    richest = max(winners, key=lambda c: (c.points, -int(c.rank)), default=None)
    if richest is not None and (view.phase == 2 or _count_if_won(view, richest) >= CLAIM_TARGET):
        # In phase 2 a sure winner keeps the lead and the claim window; in phase 1 it is spent only
        # when it wins the deal.
        return richest
    return _cheapest(view, cards)


def choose_follow(view: BotView, led: Card, cards: list[Card]) -> Card:
    trump = view.trump
    assert trump is not None
    winning = [c for c in cards if beats(c.index, led.index, int(trump))]
    if winning:
        # Prefer winning in suit to trumping, keep marriages, and use the weakest card that does it.
        cheapest_win = min(winning, key=lambda c: (c.suit is trump and led.suit is not trump,
                                                  _marriage_part(view, c), -int(c.rank)))
        if _count_if_won(view, led, cheapest_win) >= CLAIM_TARGET:
            return cheapest_win
        if view.phase == 2:
            return cheapest_win  # the follow rules already chose which cards may be played
        in_suit = [c for c in winning if c.suit is led.suit and not _marriage_part(view, c)]
        if in_suit:
            return _weakest(in_suit)
        if led.points >= HIGH_LEAD_POINTS and led.suit is not trump:
            trumps = [c for c in winning if c.suit is trump and not _marriage_part(view, c)]
            if trumps:
                return _weakest(trumps)
    return _cheapest(view, cards)


def main() -> None:
    run(GreedyBot())


if __name__ == "__main__":
    main()
