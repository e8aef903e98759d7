"""Exact play over the last tricks of phase 1 in one world (perfect-information search).

In a sampled world both hands and the stock's order are fixed, so the last tricks before the stock
runs out are a perfect-information game too: each trick is two card choices, and the draws that
follow are known (the winner takes the top card, the loser the next, the up-card last; RULES.md
§5.2). ``Lookahead`` searches that game with alpha-beta over the engine's states on its fast path
(``legal_actions`` + ``apply_unchecked``) until the stock is closed or exhausted, and hands every
position it reaches there to the exact solver (``solver.py``). With a few cards left in the stock
this replaces the rule-of-thumb playout (``playout.py``), which plays both sides' remaining phase-1
cards by habit: that is PIMC with each world solved, as in Wisser's Schnapsen agent (IJCAI 2015).

Fixed instead of searched, for both players, as the bot does at its own decisions:

- **Claim as soon as one can** (RULES.md §7.2): game points come from the loser's figures, which
  only grow. Before a close nobody gains by waiting.
- **Exchange whenever one may** (§5.3): the lowest trump for the up-card (bot.py says why).
- **Show a marriage whenever its card is led**: the option "lead this king" is the marriage; its
  points never lower the shower's game points.

Everything else (cards, closing, passing) is searched. Phase 1 is small here (a few tricks), so its
positions are not stored; the solver's are, in one table for the whole world (``keep_table``), since
the endgames that different phase-1 lines reach share most of their positions. Each endgame is
searched within the window of the phase-1 node that reaches it (fail-soft, as the solver itself).
"""

from __future__ import annotations

from arena.game import CLAIM, CLOSE, EXCHANGE, PASS, Action, ActionKind, DealState, Decision
from arena.game.rules import CLAIM_TARGET, MarriageLeadCard
from arena.game.cards import Rank
from arena.game.state import OPEN
from bots.strong.playout import policy
from bots.strong.solver import Endgame, Solver

_LEAD, _FOLLOW, _AFTER = Decision.LEAD, Decision.FOLLOW, Decision.AFTER_TRICK
_PLAY, _MARRY = ActionKind.PLAY, ActionKind.MARRY
_BIG = 1 << 20  # beyond any payoff


class Lookahead:
    """Exact values, for the solver's seat, of phase-1 positions in one world.

    Build one per world: the solver's table is kept for the world's other options. (Its entries
    would hold in other worlds too, but those share few positions, and the table would only
    grow over a decision's hundreds of worlds.)
    """

    def __init__(self, solver: Solver):
        # A solver of its own that keeps its table: the endgames of one world share positions.
        self.solver = Solver(solver.rules, solver.payoff, keep_table=True)
        self.payoff = solver.payoff
        self.me = solver.payoff.me
        self.nodes = 0
        # Showing a marriage needs its king led (or either card, §5.4 marriage_lead_card).
        self._lead_ranks = {int(Rank.KING)}
        if solver.rules.marriage_lead_card is MarriageLeadCard.KING_OR_QUEEN:
            self._lead_ranks.add(int(Rank.QUEEN))

    def value(self, state: DealState) -> int:
        """The value of ``state`` with best play on both sides (the fixed choices above aside)."""
        return self._value(state, -_BIG, _BIG)


    def _value(self, state: DealState, alpha: int, beta: int) -> int:
        self.nodes += 1
        # Forced steps (and the fixed choices) need no node of their own.
        while True:
            s = state.settlement
            if s is not None:
                return self.payoff.value(s.winner, s.game_points)
            decision = state.decision
            seat = state.to_act
            legal = state.legal_actions()
            claims = CLAIM in legal and state.total(seat) >= CLAIM_TARGET
            if state.stock_state != OPEN and (decision is _FOLLOW or (
                    decision is _LEAD and state.meld_suit < 0 and not claims)):
                return self.solver.value(Endgame.from_state(state), alpha, beta)
            if claims:
                state = state.apply_unchecked(CLAIM)
                continue
            if EXCHANGE in legal:
                state = state.apply_unchecked(EXCHANGE)
                continue
            options = self._options(state, legal, decision)
            if len(options) == 1:
                state = state.apply_unchecked(options[0])
                continue
            break
        # The rule of thumb's choice first: it is often best, and a good first move cuts the most.
        first = policy(state)
        if first in options:
            options.remove(first)
            options.insert(0, first)
        if seat == self.me:
            best = -_BIG
            for action in options:
                v = self._value(state.apply_unchecked(action), alpha, beta)
                if v > best:
                    best = v
                    if v >= beta:
                        break
                    if v > alpha:
                        alpha = v
        else:
            best = _BIG
            for action in options:
                v = self._value(state.apply_unchecked(action), alpha, beta)
                if v < best:
                    best = v
                    if v <= alpha:
                        break
                    if v < beta:
                        beta = v
        return best

    def _options(self, state: DealState, legal: tuple[Action, ...],
                 decision: Decision) -> list[Action]:
        """The choices searched at ``state`` (claims and exchanges were taken before)."""
        if decision is _LEAD and state.meld_suit < 0:
            shown = {a.index for a in legal if a.kind is _MARRY}
            out: list[Action] = []
            for a in legal:
                if a.kind is _MARRY or a is CLOSE:
                    out.append(a)
                elif a.kind is _PLAY:
                    card = a.index
                    # A marriage's lead card is played only with the marriage shown.
                    if not (card >> 3 in shown and card & 7 in self._lead_ranks):
                        out.append(a)
            return out
        if decision is _LEAD or decision is _FOLLOW:
            return [a for a in legal if a.kind is _PLAY]
        if decision is _AFTER:
            return [a for a in legal if a is not CLAIM]
        return [PASS] if PASS in legal else [a for a in legal if a is not CLAIM]
