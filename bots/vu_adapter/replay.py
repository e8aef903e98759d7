"""One deal as the adapter saw it, replayed on the ``schnapsen`` package's engine.

The package's bots decide from a ``PlayerPerspective`` over a complete ``GameState``, history
included (``make_assumption`` keeps the opponent's cards that past tricks showed: a marriage's
queen, an exchanged jack). A bot of this arena knows only its own cards, so the adapter makes a
complete deal that agrees with everything it saw and replays the deal's moves on the package's
engine (``play_one_trick``, which checks each move against the package's rules):

- the package deals the 20 cards in one order: the first leader gets positions 0, 2, 4, 6, 8, the
  other 1, 3, 5, 7, 9, the stock is 10..19 with 19 face up (RULES.md §13); after each trick of the
  open stock the winner draws the top card and the loser the next;
- the adapter's own cards go where it got them: its hand, and each card it drew at the position it
  drew it from; the up-card at 19;
- each card the opponent showed (played, the queen of a marriage, the jack of an exchange) goes to
  one of the opponent's positions that he held by then: the earliest deadline first, so if any
  placement fits, this one does;
- every other position gets the remaining cards in a fixed order: filler. The package's bots never
  read it as knowledge: while the stock is open ``make_assumption`` deals those cards afresh, and
  once it is empty they are exactly the opponent's hand (the only cards left).

Every check the replay makes is one of the adapter's agreement checks (``Disagreement``): the
package must accept each move the referee accepted and give each trick the same winner.
"""

from __future__ import annotations

import types
from dataclasses import dataclass, field
from typing import Any

from arena.game import Card, Rank, Suit
from bots.vu_adapter.package import Cards
from protocol import Draw, Event, Exchange, Marriage, Played, Trick, Who

PACK = 20
HAND = 5
BOTTOM = 19          # the face-up card's position in the package's deal order
OPEN_TRICKS = 5      # tricks after which there is a draw: 10 cards in the stock, 2 a trick


class Disagreement(Exception):
    """The package's engine and the referee disagree (a move, a trick, a deal's result), or what
    the referee said cannot have happened. The adapter stops: it never plays on a guess."""


@dataclass
class TrickSeen:
    leader: Who
    led: Card
    married: bool                 # the lead came with a marriage (the package's Marriage move)
    followed: Card | None = None  # None while the trick is in progress
    winner: Who | None = None


@dataclass
class ExchangeSeen:
    who: Who
    took: Card
    gave: Card


@dataclass
class DealSeen:
    """What the adapter saw of one deal, in the package's terms."""

    first_leader: Who
    hand: tuple[Card, ...]
    upcard: Card
    steps: list[TrickSeen | ExchangeSeen] = field(default_factory=list)
    my_draws: list[Card] = field(default_factory=list)
    opp_bottom_draw: Card | None = None   # the face-up card, when the opponent drew it last
    marriage: tuple[Who, Suit] | None = None  # shown, its card not yet played

    # -- events --------------------------------------------------------------------------------

    def see(self, event: Event) -> None:
        """Fold one event of the deal in (PROTOCOL.md §4.2)."""
        if isinstance(event, Marriage):
            self.married(_who(event.who), event.suit)
        elif isinstance(event, Played):
            self.played(_who(event.who), event.card)
        elif isinstance(event, Trick):
            self.trick(_who(event.who), event.led, event.followed)
        elif isinstance(event, Exchange):
            self.exchanged(_who(event.who), event.took, event.gave)
        elif isinstance(event, Draw):
            self.drew(_who(event.who), event.card)
        else:  # close, claim: vu_compat has neither (no closing, automatic claims)
            raise Disagreement(f"an event the package has no counterpart of: {event}")

    def current(self) -> TrickSeen | None:
        """The trick in progress, if any."""
        last = self.steps[-1] if self.steps else None
        return last if isinstance(last, TrickSeen) and last.winner is None else None

    def married(self, who: Who, suit: Suit) -> None:
        if self.current() is not None or self.marriage is not None:
            raise Disagreement(f"a marriage by {who} in the middle of a trick")
        self.marriage = (who, suit)

    def played(self, who: Who, card: Card) -> None:
        trick = self.current()
        if trick is None:
            married = self.marriage is not None
            if married:
                assert self.marriage is not None
                if self.marriage != (who, card.suit) or card.rank is not Rank.KING:
                    # vu_compat: marriage_lead_card = king_only, as the package's Marriage move.
                    raise Disagreement(f"{who} led {card} after showing the marriage "
                                       f"{self.marriage[1]}: the package leads its king")
                self.marriage = None
            self.steps.append(TrickSeen(who, card, married))
        elif trick.followed is None and who is not trick.leader:
            trick.followed = card
        else:
            raise Disagreement(f"{who} played {card} out of turn")

    def trick(self, winner: Who, led: Card, followed: Card) -> None:
        trick = self.current()
        if trick is None or (trick.led, trick.followed) != (led, followed):
            raise Disagreement(f"a trick {led} {followed} that was not played")
        trick.winner = winner

    def exchanged(self, who: Who, took: Card, gave: Card) -> None:
        if self.current() is not None or self.marriage is not None:
            raise Disagreement(f"an exchange by {who} in the middle of a trick")
        self.steps.append(ExchangeSeen(who, took, gave))

    def drew(self, who: Who, card: Card | None) -> None:
        if who is Who.ME:
            assert card is not None
            self.my_draws.append(card)
        elif card is not None:
            self.opp_bottom_draw = card

    # -- the deal, complete --------------------------------------------------------------------

    def tricks(self) -> list[TrickSeen]:
        return [s for s in self.steps if isinstance(s, TrickSeen) and s.winner is not None]

    def pack_order(self) -> list[Card]:
        """A deal order for the package that agrees with everything seen (the module says how)."""
        me_first = self.first_leader is Who.ME
        mine = list(range(0 if me_first else 1, 2 * HAND, 2))
        theirs = list(range(1 if me_first else 0, 2 * HAND, 2))
        release = dict.fromkeys(theirs, 0)  # the trick index from which the opponent holds a slot
        deck: list[Card | None] = [None] * PACK
        deck[BOTTOM] = self.upcard
        for slot, card in zip(mine, self.hand, strict=True):
            deck[slot] = card
        draws = iter(self.my_draws)
        for k, trick in enumerate(self.tricks()[:OPEN_TRICKS]):
            top, second = 10 + 2 * k, 10 + 2 * k + 1
            my_slot, their_slot = (top, second) if trick.winner is Who.ME else (second, top)
            if their_slot != BOTTOM:
                release[their_slot] = k + 1
            drawn = next(draws, None)
            if drawn is None:
                break  # the deal ended at this trick, before the draw (an automatic claim)
            if my_slot != BOTTOM:  # the face-up card: at 19 already, or the exchanged jack
                deck[my_slot] = drawn
        if next(draws, None) is not None:
            raise Disagreement("more draws than tricks of the open stock")
        self._place_opponent_cards(deck, release)
        rest = iter(sorted(set(self._pack()) - set(c for c in deck if c is not None),
                           key=lambda c: c.index))
        order = [c if c is not None else next(rest) for c in deck]
        if len(set(order)) != PACK:
            raise Disagreement("the cards seen do not make one 20-card pack")
        return order

    def _pack(self) -> list[Card]:
        return [Card(s, r) for s in Suit for r in (Rank.ACE, Rank.TEN, Rank.KING, Rank.QUEEN,
                                                   Rank.JACK)]

    def _opponent_needs(self) -> list[tuple[int, Card]]:
        """Each card the opponent held before the stock gave it to him openly, with the index of the
        trick by which he held it, in order."""
        needs: list[tuple[int, Card]] = []
        seen: set[Card] = {self.upcard}  # the face-up card is at 19, whoever ends up with it
        t = 0

        def need(card: Card) -> None:
            free = card is self.opp_bottom_draw and t >= OPEN_TRICKS
            if card not in seen and not free:
                needs.append((t, card))
            seen.add(card)

        for step in self.steps:
            if isinstance(step, ExchangeSeen):
                if step.who is Who.OPP:
                    need(step.gave)
                continue
            if step.leader is Who.OPP:
                need(step.led)
                if step.married:
                    need(Card(step.led.suit, Rank.QUEEN))
            elif step.followed is not None:
                need(step.followed)
            if step.winner is not None:
                t += 1
        if self.marriage is not None and self.marriage[0] is Who.OPP:
            need(Card(self.marriage[1], Rank.QUEEN))
            need(Card(self.marriage[1], Rank.KING))
        return needs

    def _place_opponent_cards(self, deck: list[Card | None], release: dict[int, int]) -> None:
        free = sorted(release, key=lambda slot: (release[slot], slot))
        for deadline, card in self._opponent_needs():
            slot = next((s for s in free if release[s] <= deadline), None)
            if slot is None:
                raise Disagreement(f"the opponent played {card} by trick {deadline + 1}, but no "
                                   "card he could have held by then is left")
            free.remove(slot)
            deck[slot] = card


class Replayer:
    """Replays a ``DealSeen`` on the package's engine: the state before the current decision."""

    def __init__(self, vu: types.SimpleNamespace):
        self.vu = vu
        self.cards = Cards(vu)
        self.engine = vu.game.SchnapsenGamePlayEngine()
        game = vu.game

        class Scripted(game.Bot):  # type: ignore[name-defined]
            """Plays the given moves in order (the package's engine asks the leader again after
            an exchange)."""

            def __init__(self, *moves: Any) -> None:
                super().__init__()
                self.moves = list(moves)

            def get_move(self, perspective: Any, leader_move: Any) -> Any:
                if not self.moves:
                    raise Disagreement("the package's engine asked for a move the deal did not have")
                return self.moves.pop(0)

        self.Scripted = Scripted

    def move(self, card: Card, married: bool = False) -> Any:
        game = self.vu.game
        vu_card = self.cards.to_vu[card]
        if married:
            return game.Marriage(self.cards.to_vu[Card(card.suit, Rank.QUEEN)], vu_card)
        return game.RegularMove(vu_card)

    def state(self, deal: DealSeen) -> tuple[Any, bool, int]:
        """The package's state after the deal's completed steps, whether the adapter leads in it,
        and how many tricks were checked (each one's winner against the referee's)."""
        game = self.vu.game
        order = [self.cards.to_vu[c] for c in deal.pack_order()]
        state = game.GameState(
            leader=game.BotState(implementation=self.Scripted(), hand=game.Hand(order[0:10:2])),
            follower=game.BotState(implementation=self.Scripted(), hand=game.Hand(order[1:10:2])),
            talon=game.Talon(order[10:]), previous=None)
        me_leader = deal.first_leader is Who.ME
        checked = 0
        for step in deal.steps:
            leading = Who.ME if me_leader else Who.OPP
            if isinstance(step, ExchangeSeen):
                if step.who is not leading:
                    raise Disagreement(f"{step.who} exchanged while {leading} leads: the package "
                                       "lets only the leader exchange")
                jack = self.cards.to_vu[step.gave]
                state = self._play(state, self.Scripted(game.TrumpExchange(jack)), self.Scripted(),
                                   f"exchange {step.gave} by {step.who}")
                if self.cards.from_vu.get(state.previous.trick.trump_card) != step.took:
                    raise Disagreement(f"the exchange took {step.took}; the package's up-card "
                                       "was another")
                continue
            if step.winner is None:
                break  # the trick in progress: the decision is inside it
            if step.leader is not leading or step.followed is None:
                raise Disagreement(f"{step.leader} led while {leading} leads")
            state = self._play(state, self.Scripted(self.move(step.led, step.married)),
                               self.Scripted(self.move(step.followed)),
                               f"trick {step.led} {step.followed}")
            leader_won = state.previous.leader_remained_leader
            if (step.winner is step.leader) != leader_won:
                raise Disagreement(f"trick {step.led} {step.followed}: won by {step.winner} here, "
                                   "by the other player on the package's engine")
            me_leader = step.winner is Who.ME
            checked += 1
        return state, me_leader, checked

    def _play(self, state: Any, leader: Any, follower: Any, what: str) -> Any:
        try:
            return self.engine.play_one_trick(state, leader, follower)
        except Disagreement:
            raise
        except Exception as err:  # the package says "illegal move" with a bare Exception
            raise Disagreement(f"{what}: the package's engine refused it ({err})") from err

    def actions(self, moves: Any) -> set[str]:
        """The package's moves as this protocol's action texts (PROTOCOL.md §2)."""
        return {self.action(m) for m in moves}

    def action(self, move: Any) -> str:
        if move.is_trump_exchange():
            return "exchange"
        if move.is_marriage():
            return f"marry:{self.cards.suit_from_vu[move.suit].char}"
        return f"play:{self.cards.from_vu[move.card]}"


def _who(player: object) -> Who:
    if not isinstance(player, Who):
        raise Disagreement("a seat number: the package plays two players only")
    return player
