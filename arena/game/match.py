"""A match: deals to a game-point target (RULES.md §8), with the carry-over pot (§7.6).

Game points are kept per side (a seat, or a partnership with four players: §10.3).

``MatchState`` is immutable like ``DealState``: ``apply`` plays an action in the current deal and,
when that deal is settled, scores it and deals the next one. Deals come from the seed
(``dealing.shuffled_order``) or from explicit orders (tests). ``replay`` rebuilds a match exactly
from its seed, profile and action list.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Iterable, Iterator, Sequence

from arena.game.actions import Action
from arena.game.cards import Card
from arena.game.dealing import shuffled_order
from arena.game.rules import DealerAfterDraw, IllegalMovePolicy, NextDealer, Rules
from arena.game.scoring import DealSettlement
from arena.game.state import DealState


class MatchEnd(StrEnum):
    TARGET = "target"          # a player reached the match target
    FORFEIT = "forfeit"        # a player forfeited the match (illegal action, or any referee fault)
    DEAL_LIMIT = "deal_limit"  # the platform's cap on deals was reached (two bots that never claim
                               # draw every sixty_six deal, and the match would never end)


@dataclass(frozen=True)
class DealResult:
    deal_no: int
    dealer: int
    order: tuple[Card, ...]          # the pack as dealt, so the deal replays without the seed
    settlement: DealSettlement
    awarded: int                     # game points the single scorer scored, the carried pot included
    pot_after: int
    game_points_after: tuple[int, ...]
    # The settled deal with all its events; None once a result has been slimmed to cross a process
    # boundary (tournament workers send settlements, not whole deals).
    final: DealState | None = field(compare=False, repr=False)


@dataclass(frozen=True)
class MatchOutcome:
    # The winning side. None for a tie at the deal limit, and for a forfeit with three players
    # (two others remain; the match record names the offender).
    winner: int | None
    reason: MatchEnd
    game_points: tuple[int, ...]
    value: int = 1                   # 2 for a shut-out with shutout_double (§8)
    offender: int | None = None      # who forfeited
    detail: str = ""                 # why, for a forfeit


@dataclass(frozen=True)
class MatchState:
    rules: Rules
    seed: int | str
    first_dealer: int
    deal: DealState
    deal_no: int
    dealer: int
    order: tuple[Card, ...]
    game_points: tuple[int, ...] = (0, 0)
    pot: int = 0
    results: tuple[DealResult, ...] = ()
    outcome: MatchOutcome | None = None
    orders: tuple[tuple[Card, ...], ...] | None = None

    @staticmethod
    def new(rules: Rules, seed: int | str = 0, first_dealer: int = 0,
            orders: Iterable[Sequence[Card]] | None = None) -> MatchState:
        """A match whose deals come from ``seed``, or from ``orders`` (one pack order per deal)."""
        if not isinstance(first_dealer, int) or not 0 <= first_dealer < rules.players:
            raise ValueError(f"first_dealer must be a seat from 0 to {rules.players - 1}, "
                             f"not {first_dealer!r}")
        explicit = None if orders is None else tuple(tuple(o) for o in orders)
        order = _order(rules, seed, 1, explicit)
        return MatchState(rules=rules, seed=seed, first_dealer=first_dealer,
                          deal=DealState.new(rules, first_dealer, order), deal_no=1,
                          dealer=first_dealer, order=order, game_points=(0,) * rules.sides,
                          orders=explicit)

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    @property
    def to_act(self) -> int:
        return self.deal.to_act

    def legal_actions(self) -> tuple[Action, ...]:
        return () if self.outcome is not None else self.deal.legal_actions()

    def apply(self, action: Action) -> MatchState:
        if self.outcome is not None:
            raise ValueError("the match is over")
        return self._after(self.deal.apply(action))

    def apply_unchecked(self, action: Action) -> MatchState:
        return self._after(self.deal.apply_unchecked(action))

    def forfeit(self, offender: int, detail: str, illegal_action: bool = False) -> MatchState:
        """``offender`` broke a rule or the protocol. An illegal action under
        ``illegal_move_policy = forfeit_deal`` costs the deal (3 game points to the opponent) and the
        match goes on; everything else ends the match (RULES.md §11 row 34)."""
        if self.outcome is not None:
            raise ValueError("the match is over")
        if illegal_action and self.rules.illegal_move_policy is IllegalMovePolicy.FORFEIT_DEAL:
            return self._after(self.deal.forfeit(offender))
        # In a partnership the offender's side loses (issue 15); with three players nobody wins alone.
        others = self.rules.other_sides[self.rules.side_of[offender]]
        outcome = MatchOutcome(winner=others[0] if len(others) == 1 else None, reason=MatchEnd.FORFEIT,
                               game_points=self.game_points, offender=offender, detail=detail)
        return dataclasses.replace(self, outcome=outcome)

    def stop_at_deal_limit(self) -> MatchState:
        """End the match because the platform's cap on deals was reached (not a rule of the game:
        RULES.md has no limit, but a tournament must end). The game-point leader wins; equal game
        points leave the match without a winner."""
        if self.outcome is not None:
            raise ValueError("the match is over")
        winner = _sole_leader(self.game_points)
        return dataclasses.replace(self, outcome=MatchOutcome(winner=winner, reason=MatchEnd.DEAL_LIMIT,
                                                              game_points=self.game_points))

    def _moved(self, **changes: object) -> MatchState:
        """``dataclasses.replace(self, **changes)`` for the engine's own moves, whose values need
        no check: replace goes through ``__init__`` and cost as much as a move itself. The same
        frozen object, its fields copied and a few changed."""
        moved = object.__new__(MatchState)
        fields = moved.__dict__
        fields.update(self.__dict__)
        fields.update(changes)
        return moved

    def _after(self, deal: DealState) -> MatchState:
        settlement = deal.settlement
        if settlement is None:
            return self._moved(deal=deal)
        # RULES.md §7.6: the pot goes to whoever scores next, whatever the reason, then resets.
        rules = self.rules
        points = list(self.game_points)
        awarded = 0
        if settlement.is_draw:
            pot = self.pot + rules.draw_carry_points if rules.draw_carry_accumulates \
                else max(self.pot, rules.draw_carry_points)
        elif settlement.winner is not None:
            awarded = settlement.game_points + self.pot
            points[settlement.winner] += awarded
            pot = 0
        else:
            # Several sides score (a three-player wrong claim): the pot waits for a single scorer
            # (RULES.md §10.4).
            for side, award in enumerate(settlement.awards):
                points[side] += award
            pot = self.pot
        game_points = tuple(points)
        result = DealResult(self.deal_no, self.dealer, self.order, settlement, awarded, pot,
                            game_points, deal)
        results = self.results + (result,)
        # The match ends once exactly one side holds the highest score and it reaches the target;
        # equal highest scores play on (§10.4; with two players one side scores per deal, so the
        # first to the target wins, §8).
        leader = _sole_leader(game_points)
        if leader is not None and points[leader] >= rules.match_target:
            value = 2 if rules.shutout_double and not any(
                p for side, p in enumerate(points) if side != leader) else 1
            outcome = MatchOutcome(winner=leader, reason=MatchEnd.TARGET, game_points=game_points,
                                   value=value)
            return self._moved(deal=deal, game_points=game_points, pot=pot, results=results,
                               outcome=outcome)
        dealer = _next_dealer(rules, self.dealer, settlement)
        deal_no = self.deal_no + 1
        order = _order(rules, self.seed, deal_no, self.orders)
        return self._moved(deal=DealState.new(rules, dealer, order), deal_no=deal_no,
                           dealer=dealer, order=order, game_points=game_points, pot=pot,
                           results=results)


def _sole_leader(points: tuple[int, ...]) -> int | None:
    top = max(points)
    return points.index(top) if points.count(top) == 1 else None


def _next_dealer(rules: Rules, dealer: int, settlement: DealSettlement) -> int:
    """RULES.md §8, flag row 33; with more players the deal passes clockwise (§10.4; rules.py
    allows only ``next_dealer = alternate`` there)."""
    if settlement.is_draw:
        return dealer if rules.dealer_after_draw is DealerAfterDraw.SAME_DEALER else rules.next_seat[dealer]
    winner = settlement.winner
    if winner is None or rules.next_dealer is NextDealer.ALTERNATE:
        return rules.next_seat[dealer]
    if rules.next_dealer is NextDealer.WINNER_DEALS:
        return winner
    return 1 - winner  # loser_deals


def _order(rules: Rules, seed: int | str, deal_no: int,
           orders: tuple[tuple[Card, ...], ...] | None) -> tuple[Card, ...]:
    if orders is None:
        return shuffled_order(rules, seed, deal_no)
    if deal_no > len(orders):
        raise ValueError(f"the match needs deal {deal_no} but only {len(orders)} orders were given")
    return orders[deal_no - 1]


def replay_states(rules: Rules, seed: int | str, actions: Iterable[Action | str],
                  first_dealer: int = 0,
                  orders: Iterable[Sequence[Card]] | None = None) -> Iterator[MatchState]:
    """Every match state from the start, applying ``actions`` (validated) in turn."""
    state = MatchState.new(rules, seed, first_dealer, orders)
    yield state
    for action in actions:
        state = state.apply(Action.parse(action) if isinstance(action, str) else action)
        yield state


def replay(rules: Rules, seed: int | str, actions: Iterable[Action | str], first_dealer: int = 0,
           orders: Iterable[Sequence[Card]] | None = None) -> MatchState:
    """The match state reached by ``actions`` from the start: seed + profile + actions is a record."""
    state = None
    for state in replay_states(rules, seed, actions, first_dealer, orders):
        pass
    assert state is not None
    return state
