"""Exact play over the last tricks of phase 1 in one world (perfect-information search).

In a sampled world both hands and the stock's order are fixed, so the last tricks before the stock
runs out are a perfect-information game too: each trick is two card choices, and the draws that
follow are known (the winner takes the top card, the loser the next, the up-card last; RULES.md
§5.2). ``Lookahead`` searches that game with alpha-beta over the engine's states on its fast path
(``legal_actions`` + ``apply_unchecked``) until the stock is closed or exhausted, and hands every
position it reaches there to the exact solver (``solver.py``); so too the last trick of phase 1
where all that is left of phase 1 is card choices and the draws, which the solver plays in its
own representation (``Solver.last_trick``). With a few cards left in the stock
this replaces the rule-of-thumb playout (``playout.py``), which plays both sides' remaining phase-1
cards by habit: that is PIMC with each world solved, as in Wisser's Schnapsen agent (IJCAI 2015).

Fixed instead of searched, for both players, as the bot does at its own decisions:

- **Claim as soon as one can** (RULES.md §7.2): game points come from the loser's figures, which
  only grow. Before a close nobody gains by waiting.
- **Exchange whenever one may** (§5.3): the lowest trump for the up-card (bot.py says why).
- **Show a marriage whenever its card is led**: the option "lead this king" is the marriage; its
  points never lower the shower's game points.

Everything else (cards, closing, passing) is searched. Positions are stored with bounds on their
values (fail-soft, as the solver does), for the world's phase 1 here and its endgames in the
solver's table (``keep_table``): tricks won in another order reach the same position, the options
of one world share their sequels, and the endgames that different phase-1 lines reach share most
of their positions. Each endgame is searched within the window of the phase-1 node that reaches it.
Only the values at the root are exact, and those are what the bot reads: the tables, the move
order and the handing over change how much is searched, never a value (the tests check every
option against a plain minimax over the engine).
"""

from __future__ import annotations

from arena.game import CLAIM, CLOSE, EXCHANGE, PASS, Action, ActionKind, DealState, Decision
from arena.game.rules import CLAIM_TARGET, MarriageLeadCard
from arena.game.cards import Rank
from arena.game.state import OPEN
from bots.strong.playout import policy
from bots.strong.solver import Solver

_LEAD, _FOLLOW, _AFTER = Decision.LEAD, Decision.FOLLOW, Decision.AFTER_TRICK
_PLAY, _MARRY = ActionKind.PLAY, ActionKind.MARRY
_BIG = 1 << 20  # beyond any payoff


class Lookahead:
    """Exact values, for the solver's seat, of phase-1 positions in one world.

    Build one per world: its table and the solver's are kept for the world's other options. (The
    solver's entries would hold in other worlds too, but those share few positions, and the table
    would only grow over a decision's hundreds of worlds.)
    """

    def __init__(self, solver: Solver):
        # A solver of its own that keeps its table: the endgames of one world share positions.
        self.solver = Solver(solver.rules, solver.payoff, keep_table=True)
        self.payoff = solver.payoff
        self.me = solver.payoff.me
        self.nodes = 0
        # Bounds on the values of the world's phase-1 positions (``_key``), with the move that
        # was best or cut off there.
        self._tt: dict[tuple[object, ...], tuple[int, int, Action | None]] = {}
        # The last move that cut off, per trick and decision: the same reply often refutes the
        # opponent's other tries too (the "killer" heuristic of chess programs).
        self._killers: dict[tuple[int, Decision], Action] = {}
        # Showing a marriage needs its king led (or either card, §5.4 marriage_lead_card).
        self._lead_ranks = {int(Rank.KING)}
        if solver.rules.marriage_lead_card is MarriageLeadCard.KING_OR_QUEEN:
            self._lead_ranks.add(int(Rank.QUEEN))

    def value(self, state: DealState, alpha: int = -_BIG, beta: int = _BIG) -> int:
        """The value of ``state`` with best play on both sides (the fixed choices above aside);
        with a window, fail-soft as ``Solver.value``."""
        return self._value(state, alpha, beta)


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
                return self.solver.state_value(state, alpha, beta)
            if claims:
                state = state.apply_unchecked(CLAIM)
                continue
            if EXCHANGE in legal:
                state = state.apply_unchecked(EXCHANGE)
                continue
            if self.solver.last_trick(state):
                return self.solver.state_value(state, alpha, beta)
            options = self._options(state, legal, decision)
            if len(options) == 1:
                state = state.apply_unchecked(options[0])
                continue
            break
        key = _key(state)
        entry = self._tt.get(key)
        if entry is not None:
            lo, hi, _ = entry
            if lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo == hi:
                return lo
            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
        a0, b0 = alpha, beta
        # A good first move cuts the most: the one that was best (or cut off) here before, then
        # the last one that cut off at this trick and decision, else the rule of thumb's choice
        # (fewer positions so than the rule of thumb before the killer, measured).
        killer = self._killers.get((state.trick_no, decision))
        if killer in options:
            options.remove(killer)
            options.insert(0, killer)
        first = entry[2] if entry is not None else (None if killer in options else policy(state))
        if first in options:
            options.remove(first)
            options.insert(0, first)
        best_action = None
        if seat == self.me:
            best = -_BIG
            for action in options:
                v = self._value(state.apply_unchecked(action), alpha, beta)
                if v > best:
                    best, best_action = v, action
                    if v >= beta:
                        self._killers[(state.trick_no, decision)] = action
                        break
                    if v > alpha:
                        alpha = v
        else:
            best = _BIG
            for action in options:
                v = self._value(state.apply_unchecked(action), alpha, beta)
                if v < best:
                    best, best_action = v, action
                    if v <= alpha:
                        self._killers[(state.trick_no, decision)] = action
                        break
                    if v < beta:
                        beta = v
        # Fail-soft bounds, as the solver keeps them: below the window an upper bound, above it
        # a lower bound, inside it the value.
        lo, hi = (entry[0], entry[1]) if entry is not None else (-_BIG, _BIG)
        if best <= a0:
            hi = min(hi, best)
        elif best >= b0:
            lo = max(lo, best)
        else:
            lo = hi = best
        self._tt[key] = (lo, hi, best_action)
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


def _key(state: DealState) -> tuple[object, ...]:
    """Everything in a two-player phase-1 state that its future depends on, within one world (the
    rules, trump, dealer and stock order are the world's). Tricks won in another order transpose:
    the same cards taken by the same player leave the same hands, draws and figures behind. The
    record of the deal (its events, the marriages' trick numbers) is left out."""
    return (state.hands, state.drawn, state.up, state.stock_state, state.won, state.card_points,
            state.tricks, state.melds, state.pending, state.exchanged_by, state.closer,
            state.snapshot, state.decision, state.to_act, state.leader, state.led, state.meld_suit,
            state.window, state.last_winner)
