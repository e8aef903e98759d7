"""Totals and the settlement of a deal (RULES.md §7, §10).

These functions read the fields of a deal state (``DealFields``: the part of ``state._Fields`` they
use, declared here so that this module need not import ``state``, which imports it); ``settle_*``
write the settlement into the state being built. The pseudocode of §7.7 is the model, with each flag of §11
applied where it changes the outcome. Totals, tricks and awards are per side (the seat itself with
two or three players, a partnership with four); "the opponent" of §7 is every other side.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple, Protocol

from arena.game.actions import Decision
from arena.game.events import Event, EventKind
from arena.game.rules import (
    CloseFailThreeIf,
    CloserTierBasis,
    EndWithoutClaim,
    OpponentOutAfterClose,
    Rules,
    SchwarzTest,
    WrongClaimAward,
)

_EXHAUSTED = 2  # state.EXHAUSTED (not imported: state imports this module)


class SettleReason(StrEnum):
    """How a deal ended."""

    CLAIM = "claim"                              # a correct claim (the closer's included)
    WRONG_CLAIM = "wrong_claim"                  # a claim below 66 by a player who had not closed
    CLOSE_FAILED = "close_failed"                # the closer claimed below 66, or never claimed
    CLAIM_AGAINST_CLOSE = "claim_against_close"  # the closer's opponent claimed correctly first
    LAST_TRICK = "last_trick"                    # played out: the last trick wins 1 (Schnapsen)
    HIGHER_TOTAL = "higher_total"                # played out: the higher total wins
    DRAW = "draw"                                # no game points; the pot grows (§7.6)
    FORFEIT = "forfeit"                          # illegal action under illegal_move_policy=forfeit_deal


class CloseSnapshot(NamedTuple):
    """Figures taken at the instant of closing (RULES.md §3)."""

    closer_tricks: int
    opp_tricks: int
    opp_total: int
    trick_no: int  # tricks completed when the stock was closed


@dataclass(frozen=True)
class DealSettlement:
    """The end of a deal: who scores how many game points (before any carried pot), and why.

    Sides are seats with two or three players and partnerships (0 = seats 0+2) with four. ``winner``
    is the one side that scores; when several score (a wrong claim with three players pays both
    opponents, §10.2) it is None and ``awards`` says who scores what."""

    reason: SettleReason
    winner: int | None          # the side that scores; None for a draw or several scorers
    game_points: int            # the winner's; 0 for a draw; the carried pot is added by the match
    claimant: int | None        # the seat that claimed, if the deal ended by a claim
    closer: int | None
    totals: tuple[int, ...]     # per side: card points + credited marriages + last-trick bonus
    tricks: tuple[int, ...]     # per side
    last_trick_winner: int | None  # a seat
    awards: tuple[int, ...] = ()   # per side: game points scored (before any carried pot)

    @property
    def is_draw(self) -> bool:
        return self.winner is None and not any(self.awards)

    @property
    def scorers(self) -> tuple[int, ...]:
        """The sides that score in this deal."""
        return tuple(side for side, points in enumerate(self.awards) if points)


class DealFields(Protocol):
    """The fields of a deal state (``state._Fields``) this module reads and, for ``settle_*``,
    writes: ``state._Fields`` has them all."""

    rules: Rules
    hands: tuple[int, ...]
    stock_state: int
    card_points: tuple[int, ...]
    tricks: tuple[int, ...]
    melds: tuple[int, ...]
    closer: int
    snapshot: CloseSnapshot | None
    decision: Decision
    to_act: int
    led: int
    window: int
    last_winner: int
    trick_no: int
    log: Any  # state._Log: (previous log, Event) or None
    settlement: DealSettlement | None


def total(n: DealFields, side: int) -> int:
    """RULES.md §7.1, for a side (§10.3: partners pool their points)."""
    points = n.card_points[side] + n.melds[side]
    last = n.last_winner
    if (last >= 0 and n.rules.side_of[last] == side and n.stock_state == _EXHAUSTED
            and not n.hands[last] and n.led < 0):
        points += n.rules.last_trick_bonus  # the last trick of a deal played out, never closed
    return points


def snapshot_at_close(n: DealFields, closer: int) -> CloseSnapshot:
    # Closing is two-player only (RULES.md §10; rules.py refuses it with more players).
    opp = 1 - closer
    return CloseSnapshot(n.tricks[closer], n.tricks[opp], total(n, opp), n.trick_no)


def _tier(n: DealFields, loser_tricks: int, loser_total: int) -> int:
    """1, 2 or 3 game points from the loser's figures (RULES.md §7.3)."""
    rules = n.rules
    if rules.schwarz_test is SchwarzTest.NO_TRICKS:
        schwarz = loser_tricks == 0
    else:
        schwarz = loser_total == 0
    if schwarz:
        return 3
    return 2 if loser_total < rules.schneider_below else 1


def _tier_over(n: DealFields, winner: int) -> int:
    """The winner's 1/2/3 against every other side (§10.2: 3 only if no opponent has a trick, 2 only
    if every opponent is below the schneider line)."""
    return min(_tier(n, n.tricks[o], total(n, o)) for o in n.rules.other_sides[winner])


def _close_fail_award(n: DealFields) -> int:
    """What the closer's opponent scores when the close fails (RULES.md §7.4, flag row 20)."""
    rule = n.rules.close_fail_three_if
    snap = n.snapshot
    assert snap is not None  # a close that fails was made: its snapshot was taken
    if rule is CloseFailThreeIf.OPP_NO_TRICK_AT_CLOSE:
        return 3 if snap.opp_tricks == 0 else 2
    if rule is CloseFailThreeIf.CLOSER_NO_TRICK_AT_CLOSE:
        return 3 if snap.closer_tricks == 0 else 2
    return 3 if rule is CloseFailThreeIf.ALWAYS else 2


def _wrong_claim_award(n: DealFields, opp: int) -> int:
    """What side ``opp``, an opponent of a wrong claimant, scores (RULES.md §7.3 and §10.4, flag row
    25: with three players each opponent scores)."""
    rule = n.rules.wrong_claim_award
    if rule is WrongClaimAward.TWO_OR_THREE:
        return 3 if n.tricks[opp] == 0 else 2
    if rule is WrongClaimAward.TWO:
        return 2
    # mirror: what the claimant would have won, read from the opponent's own figures
    return _tier(n, n.tricks[opp], total(n, opp))


def settle_claim(n: DealFields, claimant: int) -> None:
    """RULES.md §7.3-§7.4 (§10.2-§10.3: for the claimant's side): settle a claim by ``claimant``."""
    rules = n.rules
    target = rules.claim_target
    side = rules.side_of[claimant]
    correct = total(n, side) >= target
    closer = n.closer
    if closer < 0:
        others = rules.other_sides[side]
        if correct:
            if rules.undeclared_66_voids_claim and any(total(n, o) >= target for o in others):
                _finish(n, SettleReason.DRAW, None, 0, claimant)  # §11 row 30, S0/S2 reading
            else:
                _finish(n, SettleReason.CLAIM, side, _tier_over(n, side), claimant)
        elif len(others) == 1:
            _finish(n, SettleReason.WRONG_CLAIM, others[0], _wrong_claim_award(n, others[0]), claimant)
        else:
            # Three players: each opponent scores (§10.2), so nobody alone is the winner.
            awards = [0] * rules.sides
            for o in others:
                awards[o] = _wrong_claim_award(n, o)
            _finish(n, SettleReason.WRONG_CLAIM, None, 0, claimant, tuple(awards))
        return
    opp = 1 - claimant  # closing is two-player only (rules.py)
    if closer == claimant:
        if correct:
            if n.rules.closer_tier_basis is CloserTierBasis.AT_CLOSE:
                assert n.snapshot is not None  # the claimant closed
                points = _tier(n, n.snapshot.opp_tricks, n.snapshot.opp_total)
            else:
                points = _tier(n, n.tricks[opp], total(n, opp))
            _finish(n, SettleReason.CLAIM, claimant, points, claimant)
        else:
            _finish(n, SettleReason.CLOSE_FAILED, opp, _close_fail_award(n), claimant)
    elif correct:
        if n.rules.opponent_out_after_close is OpponentOutAfterClose.AS_CLOSE_FAIL:
            points = _close_fail_award(n)
        else:
            points = 2
        _finish(n, SettleReason.CLAIM_AGAINST_CLOSE, claimant, points, claimant)
    else:
        _finish(n, SettleReason.WRONG_CLAIM, opp, _wrong_claim_award(n, opp), claimant)


def settle_hands_exhausted(n: DealFields) -> None:
    """The last trick's window passed without a claim (RULES.md §7.4-§7.5)."""
    if n.closer >= 0:
        _finish(n, SettleReason.CLOSE_FAILED, 1 - n.closer, _close_fail_award(n), None)
        return
    rules = n.rules
    rule = rules.end_without_claim
    if rule is EndWithoutClaim.DRAW_CARRY:
        _finish(n, SettleReason.DRAW, None, 0, None)
    elif rule is EndWithoutClaim.LAST_TRICK_WINS_1:
        _finish(n, SettleReason.LAST_TRICK, rules.side_of[n.last_winner], 1, None)
    else:
        # The highest total wins; equal highest totals are a draw (§7.5, §10.2).
        totals = [total(n, side) for side in range(rules.sides)]
        top = max(totals)
        if totals.count(top) > 1:
            _finish(n, SettleReason.DRAW, None, 0, None)
        else:
            winner = totals.index(top)
            _finish(n, SettleReason.HIGHER_TOTAL, winner, _tier_over(n, winner), None)


def settle_forfeit(n: DealFields, offender: int) -> None:
    """illegal_move_policy = forfeit_deal: the offender's side loses the deal, every other side
    scores 3, and the match goes on (§11 row 34)."""
    rules = n.rules
    others = rules.other_sides[rules.side_of[offender]]
    if len(others) == 1:
        _finish(n, SettleReason.FORFEIT, others[0], 3, None)
    else:
        _finish(n, SettleReason.FORFEIT, None, 0, None,
                tuple(0 if side == rules.side_of[offender] else 3 for side in range(rules.sides)))


def _finish(n: DealFields, reason: SettleReason, winner: int | None, points: int,
            claimant: int | None, awards: tuple[int, ...] | None = None) -> None:
    sides = n.rules.sides
    if awards is None:
        awards = tuple(points if side == winner else 0 for side in range(sides))
    n.settlement = DealSettlement(
        reason=reason, winner=winner, game_points=points, claimant=claimant,
        closer=n.closer if n.closer >= 0 else None, totals=tuple([total(n, s) for s in range(sides)]),
        tricks=n.tricks, last_trick_winner=n.last_winner if n.last_winner >= 0 else None,
        awards=awards)
    n.decision, n.to_act = Decision.OVER, -1
    n.window = -1
    n.log = (n.log, Event(EventKind.SETTLE, -1 if winner is None else winner, (), points))
