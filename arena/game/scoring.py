"""Totals and the settlement of a deal (RULES.md §7).

These functions read the fields of a deal state (``state._Fields``); ``settle_*`` write the
settlement into the state being built. The pseudocode of §7.7 is the model, with each flag of §11
applied where it changes the outcome.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, NamedTuple

from arena.game.actions import Decision
from arena.game.events import Event, EventKind
from arena.game.rules import (CLAIM_TARGET, CloserTierBasis, CloseFailThreeIf, EndWithoutClaim,
                              OpponentOutAfterClose, SchwarzTest, WrongClaimAward)

if TYPE_CHECKING:
    from arena.game.state import _Fields

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
    """The end of a deal: who scores how many game points (before any carried pot), and why."""

    reason: SettleReason
    winner: int | None          # None for a draw
    game_points: int            # 0 for a draw; the carried pot is added by the match
    claimant: int | None        # who claimed, if the deal ended by a claim
    closer: int | None
    totals: tuple[int, int]     # card points + credited marriages + last-trick bonus
    tricks: tuple[int, int]
    last_trick_winner: int | None

    @property
    def is_draw(self) -> bool:
        return self.winner is None


def total(n: _Fields, seat: int) -> int:
    """RULES.md §7.1."""
    points = n.card_points[seat] + n.melds[seat]
    if (seat == n.last_winner and n.stock_state == _EXHAUSTED
            and not (n.hands[0] | n.hands[1]) and n.led < 0):
        points += n.rules.last_trick_bonus  # the last trick of a deal played out, never closed
    return points


def snapshot_at_close(n: _Fields, closer: int) -> CloseSnapshot:
    opp = 1 - closer
    return CloseSnapshot(n.tricks[closer], n.tricks[opp], total(n, opp), n.trick_no)


def _tier(n: _Fields, loser_tricks: int, loser_total: int) -> int:
    """1, 2 or 3 game points from the loser's figures (RULES.md §7.3)."""
    rules = n.rules
    if rules.schwarz_test is SchwarzTest.NO_TRICKS:
        schwarz = loser_tricks == 0
    else:
        schwarz = loser_total == 0
    if schwarz:
        return 3
    return 2 if loser_total < rules.schneider_below else 1


def _close_fail_award(n: _Fields) -> int:
    """What the closer's opponent scores when the close fails (RULES.md §7.4, flag row 20)."""
    rule = n.rules.close_fail_three_if
    snap = n.snapshot
    assert snap is not None  # a close that fails was made: its snapshot was taken
    if rule is CloseFailThreeIf.OPP_NO_TRICK_AT_CLOSE:
        return 3 if snap.opp_tricks == 0 else 2
    if rule is CloseFailThreeIf.CLOSER_NO_TRICK_AT_CLOSE:
        return 3 if snap.closer_tricks == 0 else 2
    return 3 if rule is CloseFailThreeIf.ALWAYS else 2


def _wrong_claim_award(n: _Fields, claimant: int) -> int:
    """What the opponent of a wrong claimant scores (RULES.md §7.3, flag row 25)."""
    opp = 1 - claimant
    rule = n.rules.wrong_claim_award
    if rule is WrongClaimAward.TWO_OR_THREE:
        return 3 if n.tricks[opp] == 0 else 2
    if rule is WrongClaimAward.TWO:
        return 2
    # mirror: what the claimant would have won, read from the opponent's own figures
    return _tier(n, n.tricks[opp], total(n, opp))


def settle_claim(n: _Fields, claimant: int) -> None:
    """RULES.md §7.3-§7.4: settle a claim by ``claimant``."""
    opp = 1 - claimant
    correct = total(n, claimant) >= CLAIM_TARGET
    closer = n.closer
    if closer < 0:
        if correct:
            if n.rules.undeclared_66_voids_claim and total(n, opp) >= CLAIM_TARGET:
                _finish(n, SettleReason.DRAW, None, 0, claimant)  # §11 row 30, S0/S2 reading
            else:
                _finish(n, SettleReason.CLAIM, claimant, _tier(n, n.tricks[opp], total(n, opp)),
                        claimant)
        else:
            _finish(n, SettleReason.WRONG_CLAIM, opp, _wrong_claim_award(n, claimant), claimant)
    elif closer == claimant:
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
        _finish(n, SettleReason.WRONG_CLAIM, opp, _wrong_claim_award(n, claimant), claimant)


def settle_hands_exhausted(n: _Fields) -> None:
    """The last trick's window passed without a claim (RULES.md §7.4-§7.5)."""
    if n.closer >= 0:
        _finish(n, SettleReason.CLOSE_FAILED, 1 - n.closer, _close_fail_award(n), None)
        return
    rule = n.rules.end_without_claim
    if rule is EndWithoutClaim.DRAW_CARRY:
        _finish(n, SettleReason.DRAW, None, 0, None)
    elif rule is EndWithoutClaim.LAST_TRICK_WINS_1:
        _finish(n, SettleReason.LAST_TRICK, n.last_winner, 1, None)
    else:
        t0, t1 = total(n, 0), total(n, 1)
        if t0 == t1:
            _finish(n, SettleReason.DRAW, None, 0, None)
        else:
            winner = 0 if t0 > t1 else 1
            loser = 1 - winner
            _finish(n, SettleReason.HIGHER_TOTAL, winner, _tier(n, n.tricks[loser], total(n, loser)),
                    None)


def settle_forfeit(n: _Fields, offender: int) -> None:
    """illegal_move_policy = forfeit_deal: the opponent scores 3 and the match goes on (§11 row 34)."""
    _finish(n, SettleReason.FORFEIT, 1 - offender, 3, None)


def _finish(n: _Fields, reason: SettleReason, winner: int | None, points: int,
            claimant: int | None) -> None:
    n.settlement = DealSettlement(
        reason=reason, winner=winner, game_points=points, claimant=claimant,
        closer=n.closer if n.closer >= 0 else None, totals=(total(n, 0), total(n, 1)),
        tricks=n.tricks, last_trick_winner=n.last_winner if n.last_winner >= 0 else None)
    n.decision, n.to_act = Decision.OVER, -1
    n.window = -1
    n.log = (n.log, Event(EventKind.SETTLE, -1 if winner is None else winner, (), points))
