"""What one seat may see of a deal: the one place that computes it (RULES.md §3).

An ``Observation`` holds the seat's own hand, the public facts (trump, up-card while face up, stock
size and state, every card played, trick winners, marriages shown, exchanges, who closed) and the
events the seat may see, with the opponent's draws masked. During a deal it holds **no point total**
of either player: the mental count is the bot's job. Totals appear only in the settlement, once the
deal is over.

With three or four players (RULES.md §10) the same fields hold: figures that belong to a side
(``tricks_won``) are per side, ``hand_sizes`` gives every seat's hand, ``partner`` names the partner
with four players, ``table`` the cards of the current trick so far, and the dead pile of the
three-player deal is shown only once the deal is over.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.game.actions import Action, Decision
from arena.game.cards import CARDS, Card, Suit, cards_of_mask
from arena.game.events import Event, EventKind
from arena.game.scoring import DealSettlement
from arena.game.state import OPEN, STOCK_STATES, DealState


@dataclass(frozen=True)
class Observation:
    seat: int
    profile: str
    dealer: int
    trump: Suit
    up_card: Card | None                 # face-up card under the stock; None once drawn or closed
    stock_size: int                      # cards left in the stock, the up-card included
    stock_state: str                     # "open", "closed" or "exhausted"
    closer: int | None
    exchanged_by: int | None
    hand: tuple[Card, ...]
    opponent_hand_size: int              # the next seat's (the opponent's, with two players)
    trick_no: int                        # tricks completed
    leader: int
    led: Card | None                     # the card led to the current trick, if any
    my_turn: bool
    decision: Decision | None            # only when it is this seat's turn
    legal_actions: tuple[Action, ...]    # only when it is this seat's turn
    tricks_won: tuple[int, ...]          # per side; public (every trick is seen)
    marriages: tuple[tuple[int, Suit, int], ...]  # (seat, suit, points) as shown
    events: tuple[Event, ...]            # everything this seat has seen, in order
    settlement: DealSettlement | None    # only once the deal is over: totals appear here
    players: int = 2
    side: int = 0                        # the side this seat plays for (the seat, unless 4 players)
    partner: int | None = None           # four players: the seat opposite
    hand_sizes: tuple[int, ...] = ()     # every seat's number of cards in hand
    table: tuple[Card, ...] = ()         # the current trick so far, in the order played
    dead_pile: tuple[Card, ...] = ()     # three players: shown once the deal is over (§10.2)

    @property
    def opponent(self) -> int:
        """The other seat (two players)."""
        return 1 - self.seat

    def won_cards(self, seat: int) -> tuple[Card, ...]:
        """Cards in ``seat``'s tricks, from the trick events (public: every card was played face up)."""
        return tuple(c for e in self.events if e.kind is EventKind.TRICK and e.seat == seat
                     for c in e.cards)


def visible_event(event: Event, seat: int) -> Event:
    """The event as ``seat`` sees it: another player's private draw shows no card."""
    if event.kind is EventKind.DRAW and event.seat != seat and not event.value:
        return Event(EventKind.DRAW, event.seat)
    return event


def observe(state: DealState, seat: int) -> Observation:
    """What ``seat`` may see of ``state``."""
    rules = state.rules
    players = rules.players
    if not isinstance(seat, int) or not 0 <= seat < players:
        raise ValueError(f"seat must be from 0 to {players - 1}, not {seat!r}")
    my_turn = state.to_act == seat
    return Observation(
        seat=seat,
        profile=state.rules.name,
        dealer=state.dealer,
        trump=Suit(state.trump),
        up_card=CARDS[state.up] if state.up >= 0 and state.stock_state == OPEN else None,
        stock_size=state.stock_size,
        stock_state=STOCK_STATES[state.stock_state],
        closer=state.closer if state.closer >= 0 else None,
        exchanged_by=state.exchanged_by if state.exchanged_by >= 0 else None,
        hand=tuple(cards_of_mask(state.hands[seat])),
        opponent_hand_size=state.hands[rules.next_seat[seat]].bit_count(),
        trick_no=state.trick_no,
        leader=state.leader,
        led=CARDS[state.led] if state.led >= 0 else None,
        my_turn=my_turn,
        decision=state.decision if my_turn else None,
        legal_actions=state.legal_actions() if my_turn else (),
        tricks_won=state.tricks,
        marriages=tuple((s, Suit(suit), pts) for s, suit, pts, _ in state.marriages),
        events=tuple(visible_event(e, seat) for e in state.events()),
        settlement=state.settlement,
        players=players,
        side=rules.side_of[seat],
        partner=rules.partner(seat),
        hand_sizes=tuple(h.bit_count() for h in state.hands),
        table=state.table,
        dead_pile=tuple(cards_of_mask(state.dead)) if state.settlement is not None else (),
    )
