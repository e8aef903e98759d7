"""Exact play once the stock is closed or exhausted (RULES.md §6-§7): alpha-beta over the tricks left.

With the stock gone nothing is drawn any more, so a position whose hands are both known is a
perfect-information game of at most six tricks. ``Solver`` searches it to the end and scores the
leaves by the game points of RULES.md §7 (through a ``Payoff``, which turns "seat w scores g game
points" into a number for the bot).

It does not walk ``DealState`` (the engine): a phase-2 trick is two card choices and some integer
arithmetic, and a search over the engine's states would spend most of its time copying fields and
building action tuples it does not need. The rules it applies are few and each is cited below; the
tests check every value against a plain minimax over the engine's own states, so the two cannot
drift apart unnoticed.

Two choices are fixed instead of searched, because they are never worse (the tests confirm both
against the engine, which searches them):

- **Claim as soon as one can** (RULES.md §7.2): game points are read from the loser's figures,
  which only grow, so a claim now scores at least what any later one would, and waiting lets the
  opponent claim first. A wrong claim is never made (it is also the bot's promise). The one
  exception is searched: with ``opponent_out_after_close = two`` the closer's opponent may prefer
  to let a close fail for 3 rather than get out for 2.
- **Show a marriage whenever one may** (phase 2 only in Schnapsen, or on the closing lead): points
  of one's own never lower one's game points and never raise the opponent's.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.game.actions import CLAIM, CLOSE, EXCHANGE, Decision
from arena.game.cards import POINTS_BY_INDEX, SUIT_MASKS, Rank, indices_of_mask
from arena.game.rules import (CLAIM_TARGET, ClaimMode, CloserTierBasis, CloseFailThreeIf,
                              EndWithoutClaim, MarriageCredit, MarriageLeadCard,
                              OpponentOutAfterClose, Phase2Follow, Rules, SchwarzTest)
from arena.game.state import EXHAUSTED, OPEN, DealState

_KING, _QUEEN = int(Rank.KING), int(Rank.QUEEN)
_LEAD, _FOLLOW = Decision.LEAD, Decision.FOLLOW
_BIG = 1 << 20  # beyond any payoff: where a node's best value starts


@dataclass(frozen=True)
class Payoff:
    """What the end of a deal is worth to seat ``me``: ``win[g]`` when ``me`` scores ``g`` game
    points, ``-loss[g]`` when the opponent does, 0 for a draw. Values are whole numbers so the
    search compares them exactly."""

    me: int
    win: tuple[int, int, int, int]
    loss: tuple[int, int, int, int]

    @staticmethod
    def game_points(me: int) -> Payoff:
        """Plain game points (RULES.md §7)."""
        return Payoff(me, (0, 1, 2, 3), (0, 1, 2, 3))

    @staticmethod
    def for_match(me: int, score: tuple[int, int], pot: int, target: int) -> Payoff:
        """Game points as the match sees them: the carried pot goes to whoever scores (§7.6), and
        points beyond the target are worth nothing (a 3 that ends the match is worth a 1 that
        does). ``score`` is (mine, theirs).

        A match to 1 (one deal is the match, as in ``vu_compat``) is the exception: there every
        win would be worth the same, and the bot would give away a schneider or a schwarz to
        save a sliver of chance of winning the deal. Its game points are what tells one result
        from another beyond who won (and what a duplicate comparison of deals reads), so it
        plays for them."""
        if target <= 1:
            return Payoff.game_points(me)
        need_me = max(1, target - score[0])
        need_opp = max(1, target - score[1])
        win = tuple(min(g + pot, need_me) if g else 0 for g in range(4))
        loss = tuple(min(g + pot, need_opp) if g else 0 for g in range(4))
        return Payoff(me, win, loss)  # type: ignore[arg-type]

    def value(self, winner: int | None, points: int) -> int:
        if winner is None:
            return 0
        return self.win[points] if winner == self.me else -self.loss[points]


@dataclass(frozen=True)
class Endgame:
    """A phase-2 position with both hands known (one determinized world). Seats are the engine's.

    ``totals`` are card points plus credited marriages (RULES.md §7.1); ``pending`` marriages count
    once their declarer wins a trick (§5.4). ``led`` is the card the leader has led, or -1 when the
    leader is still to lead. ``meld_now`` lets the leader show a marriage on this lead although the
    stock is closed (the closing lead, §5.4 ``marriage_on_closing_lead``).
    """

    trump: int
    hands: tuple[int, int]
    totals: tuple[int, int]
    pending: tuple[int, int]
    tricks: tuple[int, int]
    leader: int
    led: int = -1
    exhausted: bool = True            # stock exhausted (the last trick earns its bonus), not closed
    closer: int = -1
    snap_closer_tricks: int = 0       # figures at the close (RULES.md §3 close snapshot)
    snap_opp_tricks: int = 0
    snap_opp_total: int = 0
    meld_now: bool = False
    meld_done: bool = False           # a marriage was already shown on this lead (one per lead)

    @staticmethod
    def from_state(state: DealState) -> Endgame:
        """The engine's phase-2 state at a lead or a follow (a determinized world, or a test's)."""
        if state.stock_state == OPEN or state.decision not in (Decision.LEAD, Decision.FOLLOW):
            raise ValueError(f"not a phase-2 lead or follow: {state!r}")
        snap = state.snapshot
        rules = state.rules
        closing_lead = (snap is not None and rules.marriage_on_closing_lead
                        and state.closer == state.leader and snap.trick_no == state.trick_no)
        return Endgame(
            trump=state.trump, hands=(state.hands[0], state.hands[1]),
            totals=(state.card_points[0] + state.melds[0], state.card_points[1] + state.melds[1]),
            pending=(state.pending[0], state.pending[1]), tricks=(state.tricks[0], state.tricks[1]),
            leader=state.leader, led=state.led,
            exhausted=state.stock_state == EXHAUSTED, closer=state.closer,
            snap_closer_tricks=snap.closer_tricks if snap else 0,
            snap_opp_tricks=snap.opp_tricks if snap else 0,
            snap_opp_total=snap.opp_total if snap else 0,
            meld_now=closing_lead, meld_done=state.meld_suit >= 0)


class Solver:
    """Exact values of phase-2 positions for one seat under one rules profile and payoff."""

    def __init__(self, rules: Rules, payoff: Payoff, keep_table: bool = False):
        """``keep_table``: keep the transposition table from one search to the next while the
        facts fixed for a search (trump, how the stock ended, the close) stay the same. Its entries
        are bounds on values, true whatever the root, so the many endgames of one world that
        ``lookahead.py`` solves share their common positions."""
        self.rules = rules
        self.payoff = payoff
        self.nodes = 0
        self.keep_table = keep_table
        self._facts: tuple[int, ...] | None = None
        self._tt: dict[int, tuple[int, int, int]] = {}
        # A hand's leads in ``_LEAD_ORDER``, by hand: the same hands come back at node after node.
        self._leads: dict[int, list[int]] = {}
        self._strict = rules.phase2_follow is Phase2Follow.STRICT
        self._meld_phase2 = rules.marriage_in_phase2
        self._meld_needs_trick = rules.marriage_requires_prior_trick
        self._king_only = rules.marriage_lead_card is MarriageLeadCard.KING_ONLY
        self._credit_now = rules.marriage_credit is MarriageCredit.ONCE_ANY_TRICK
        self._claim_after_meld = rules.claim_after_meld and rules.claim_mode is ClaimMode.EXPLICIT
        self._schwarz_tricks = rules.schwarz_test is SchwarzTest.NO_TRICKS
        self._schneider = rules.schneider_below
        self._bonus = rules.last_trick_bonus
        self._end = rules.end_without_claim
        self._voids = rules.undeclared_66_voids_claim

    # -- scoring (RULES.md §7) -------------------------------------------------------------------

    def _tier(self, loser_tricks: int, loser_total: int) -> int:
        """1, 2 or 3 game points from the loser's figures (§7.3)."""
        if (loser_tricks == 0) if self._schwarz_tricks else (loser_total == 0):
            return 3
        return 2 if loser_total < self._schneider else 1

    def _use(self, facts: tuple[int, int, int, int, int, int]) -> None:
        """Set up for a search under ``facts`` (trump, exhausted, closer and the close's figures),
        keeping the table while they stay the same (with ``keep_table``)."""
        if facts != self._facts:
            self._tt = {}
            self._facts = facts
            self._prepare(*facts)
        elif not self.keep_table:
            self._tt = {}

    def _prepare(self, trump: int, exhausted: int, closer: int, snap_closer_tricks: int,
                 snap_opp_tricks: int, snap_opp_total: int) -> None:
        """Facts fixed for a whole search: the close's awards come from its snapshot."""
        rules = self.rules
        self._trump = trump
        self._trump_mask = SUIT_MASKS[trump]
        self._exhausted = bool(exhausted)
        self._closer = closer
        if closer >= 0:
            rule = rules.close_fail_three_if
            if rule is CloseFailThreeIf.OPP_NO_TRICK_AT_CLOSE:
                fail = 3 if snap_opp_tricks == 0 else 2
            elif rule is CloseFailThreeIf.CLOSER_NO_TRICK_AT_CLOSE:
                fail = 3 if snap_closer_tricks == 0 else 2
            else:
                fail = 3 if rule is CloseFailThreeIf.ALWAYS else 2
            self._fail = fail  # the closer's opponent, when the close fails (§7.4)
            self._out_first = fail if rules.opponent_out_after_close is \
                OpponentOutAfterClose.AS_CLOSE_FAIL else 2  # ... or when he claims first
            self._at_close = rules.closer_tier_basis is CloserTierBasis.AT_CLOSE
            self._snap_tier = self._tier(snap_opp_tricks, snap_opp_total)
        pay = self.payoff
        # Claiming at once is best play for everyone but the closer's opponent when a failed close
        # pays him more than getting out first (opponent_out_after_close = two, and a failure worth
        # 3): then he may wait. The bot itself always claims at once (its promise); an opponent may
        # play either way, so the search lets him choose.
        self._opp_may_wait = (closer == pay.me and closer >= 0
                              and self._out_first < self._fail)
        self._me = pay.me
        self._win, self._loss = pay.win, pay.loss
        # No leaf is worth more than the best win or less than the worst loss: searching with that
        # window lets a move that reaches the best possible outcome end its node's search at once.
        self._hi = max(0, *pay.win)
        self._lo = min(0, *(-g for g in pay.loss))

    def _claim(self, w_is_me: bool, w_is_closer: bool, l_tricks: int, l_total: int) -> int:
        """The value of a correct claim by the winner of the last trick (or of a marriage)."""
        closer = self._closer
        if closer < 0:
            if self._voids and l_total >= CLAIM_TARGET:
                return 0  # §11 row 30: a correct claim against an undeclared 66 is a draw
            g = self._tier(l_tricks, l_total)
        elif w_is_closer:
            g = self._snap_tier if self._at_close else self._tier(l_tricks, l_total)
        else:
            g = self._out_first  # §7.4: the closer's opponent got out first
        return self._win[g] if w_is_me else -self._loss[g]

    def _hands_out(self, last_is_me: bool, last_is_closer: bool, w_total: int, w_tricks: int,
                   l_total: int, l_tricks: int) -> int:
        """Both hands are empty and the last trick's winner could not claim (§7.4-§7.5)."""
        if self._closer >= 0:
            # The close failed: the closer's opponent scores.
            closer_is_me = self._closer == self._me
            return -self._loss[self._fail] if closer_is_me else self._win[self._fail]
        end = self._end
        if end is EndWithoutClaim.DRAW_CARRY:
            return 0
        if end is EndWithoutClaim.LAST_TRICK_WINS_1:
            return self._win[1] if last_is_me else -self._loss[1]
        if w_total == l_total:
            return 0
        if w_total > l_total:
            g = self._tier(l_tricks, l_total)
            return self._win[g] if last_is_me else -self._loss[g]
        g = self._tier(w_tricks, w_total)
        return -self._loss[g] if last_is_me else self._win[g]

    # -- the search ------------------------------------------------------------------------------

    def values(self, pos: Endgame, moves: list[int] | None = None) -> dict[int, int]:
        """The exact value (for ``payoff.me``) of each card the player to act may play now.

        At a lead, ``moves`` may restrict the cards (after a marriage only its king or queen may be
        led); by default every card in the leader's hand is considered, and a marriage is shown
        with its card whenever allowed. At a follow, the follow rules (§6) decide the cards.
        """
        return self._root(pos, moves, exact=True)[1]

    def value(self, pos: Endgame, alpha: int = -_BIG, beta: int = _BIG) -> int:
        """The exact value of ``pos`` for ``payoff.me`` with best play on both sides; with a
        window (``alpha`` < ``beta``), fail-soft: a value at or below ``alpha`` is only an upper
        bound of the exact one, at or above ``beta`` a lower bound."""
        return self._root(pos, None, exact=False, alpha=alpha, beta=beta)[0]

    def state_value(self, state: DealState, alpha: int = -_BIG, beta: int = _BIG) -> int:
        """The value of the engine's ``state`` as ``value`` gives it (fail-soft in the window), for
        the positions where ``lookahead.py`` hands its search over: a phase-2 lead or follow, and
        the lead and the follow to the last trick of phase 1 (``last_trick``). The commonest skip
        building an ``Endgame``: a world's search reaches hundreds of them."""
        if state.stock_state == OPEN:
            if not self.last_trick(state):
                raise ValueError(f"not the last trick of phase 1: {state!r}")
            self._use((state.trump, 1, -1, 0, 0, 0))  # phase 2 follows the draws
            h, p, m, q, t = state.hands, state.card_points, state.melds, state.pending, state.tricks
            ld = state.leader
            fo = 1 - ld
            args = (h[ld], h[fo], p[ld] + m[ld], p[fo] + m[fo], q[ld], q[fo], 1 if t[ld] else 0,
                    1 if t[fo] else 0, ld == self._me, state.stock[state.drawn], state.up,
                    max(alpha, self._lo), min(beta, self._hi))
            if state.decision is _LEAD:
                return self._last_search(*args)
            return self._last_reply(state.led, *args)
        if state.stock_state == EXHAUSTED and state.decision is _LEAD and state.meld_suit < 0:
            self._use((state.trump, 1, -1, 0, 0, 0))
            h, p, m, q, t = state.hands, state.card_points, state.melds, state.pending, state.tricks
            ld = state.leader
            fo = 1 - ld
            return self._search(h[ld], h[fo], p[ld] + m[ld], p[fo] + m[fo], q[ld], q[fo],
                                1 if t[ld] else 0, 1 if t[fo] else 0, ld == self._me, False,
                                max(alpha, self._lo), min(beta, self._hi))
        return self.value(Endgame.from_state(state), alpha, beta)

    def last_trick(self, state: DealState) -> bool:
        """Whether ``state`` is the lead or the follow to the last trick of phase 1 (two players,
        two cards left in the stock), where the solver takes over with every step left a card
        choice: nobody may exchange or close any more (the leader's marriage is shown with its
        card, as in phase 2), nor close before the draw, and the leader has no claim to make."""
        rules = self.rules
        if not (state.stock_state == OPEN and state.players == 2
                and len(state.stock) - state.drawn == 1 and state.up >= 0
                and not (rules.close_enabled and rules.close_before_draw
                         and rules.close_pre_draw_min_stock <= 2)):
            return False
        legal = state.legal_actions()
        if state.decision is _FOLLOW:
            return EXCHANGE not in legal
        return (state.decision is _LEAD and state.meld_suit < 0 and EXCHANGE not in legal
                and CLOSE not in legal
                and not (CLAIM in legal and state.total(state.leader) >= CLAIM_TARGET))

    def _root(self, pos: Endgame, moves: list[int] | None, exact: bool, alpha: int = -_BIG,
              beta: int = _BIG) -> tuple[int, dict[int, int]]:
        """Search the root's moves; with ``exact`` each gets its own full window (so each value is
        exact), else the window narrows as usual and only the best value is exact."""
        self._use((pos.trump, int(pos.exhausted), pos.closer, pos.snap_closer_tricks,
                   pos.snap_opp_tricks, pos.snap_opp_total))
        h, t, q = pos.hands, pos.totals, pos.pending
        k = (1 if pos.tricks[0] else 0, 1 if pos.tricks[1] else 0)
        ld = pos.leader
        fo = 1 - ld
        lm = ld == self._me
        l_closer = ld == pos.closer
        out: dict[int, int] = {}
        if pos.led < 0:
            meld_ok = (pos.meld_now or self._meld_phase2) and not pos.meld_done
            if not exact and moves is None and meld_ok == self._meld_phase2:
                # An ordinary lead: the search's own node, with its transposition table.
                return self._search(h[ld], h[fo], t[ld], t[fo], q[ld], q[fo], k[ld], k[fo], lm,
                                    l_closer, max(alpha, self._lo), min(beta, self._hi)), out
            maximize = lm
            cards = moves if moves is not None else list(indices_of_mask(h[ld]))

            def move_value(card: int, alpha: int, beta: int) -> int:
                return self._lead_value(card, h[ld], h[fo], t[ld], t[fo], q[ld], q[fo], k[ld], k[fo],
                                        lm, l_closer, meld_ok, alpha, beta)
        else:
            maximize = not lm
            led = pos.led
            cards = list(indices_of_mask(self._follow_mask(h[fo], led)))

            def move_value(card: int, alpha: int, beta: int) -> int:
                return self._reply(led, h[ld], h[fo], t[ld], t[fo], q[ld], q[fo], k[ld], k[fo], lm,
                                   l_closer, alpha, beta, only=1 << card)
        best = -_BIG if maximize else _BIG
        lo, hi = self._lo, self._hi
        if exact:
            for card in cards:
                out[card] = v = move_value(card, lo, hi)
                best = max(best, v) if maximize else min(best, v)
            return best, out
        # Fail-soft alpha-beta, as ``_search``: a move that reaches the window's far side ends
        # the search (once the window is empty, a further move's value would be only a bound on
        # the wrong side, and the best of them no bound at all).
        alpha, beta = max(alpha, lo), min(beta, hi)
        for card in cards:
            out[card] = v = move_value(card, alpha, beta)
            if maximize and v > best:
                best = v
                if v >= beta:
                    break
                alpha = max(alpha, v)
            elif not maximize and v < best:
                best = v
                if v <= alpha:
                    break
                beta = min(beta, v)
        return best, out

    def _follow_mask(self, hand: int, led: int) -> int:
        """RULES.md §6: follow suit and beat if possible, else trump, else anything."""
        same = hand & SUIT_MASKS[led >> 3]
        if same:
            if not self._strict:
                return same
            higher = same & ((1 << led) - 1)  # lower index = higher rank
            return higher or same
        if not self._strict:
            return hand
        return (hand & self._trump_mask) or hand

    def _lead_value(self, c: int, hl: int, hf: int, pl: int, pf: int, ql: int, qf: int, kl: int,
                    kf: int, lm: bool, l_closer: bool, meld_ok: bool, alpha: int, beta: int,
                    draws: tuple[int, int] | None = None) -> int:
        """The leader leads card ``c`` (showing its marriage if allowed); the follower answers.
        ``draws``: the last trick of phase 1, with the cards its winner and loser draw."""
        if meld_ok and not (self._meld_needs_trick and not kl):
            rank = c & 7
            if rank == _KING or (rank == _QUEEN and not self._king_only):
                base = c & ~7
                pair = (1 << (base + _KING)) | (1 << (base + _QUEEN))
                if hl & pair == pair:
                    meld = 40 if c >> 3 == self._trump else 20
                    if self._credit_now and kl:
                        pl += meld
                        if self._claim_after_meld and pl >= CLAIM_TARGET:
                            # §7.2: the marriage lifted him to 66: he claims without leading.
                            v = self._claim(lm, l_closer, kf, pf)
                            if lm or not self._opp_may_wait:
                                return v
                            return min(v, self._reply(c, hl ^ (1 << c), hf, pl, pf, ql, qf, kl, kf,
                                                      lm, l_closer, alpha, beta))
                    else:
                        ql += meld
        if draws is not None:
            return self._last_reply(c, hl ^ (1 << c), hf, pl, pf, ql, qf, kl, kf, lm, *draws,
                                    alpha, beta)
        return self._reply(c, hl ^ (1 << c), hf, pl, pf, ql, qf, kl, kf, lm, l_closer, alpha, beta)

    def _reply(self, c: int, hl: int, hf: int, pl: int, pf: int, ql: int, qf: int, kl: int, kf: int,
               lm: bool, l_closer: bool, alpha: int, beta: int, only: int = 0) -> int:
        """Best answer of the follower to the led card ``c`` (he minimizes when the leader is me),
        or the value of the answer ``only`` (a card mask) when given. The trick's resolution is
        written out here rather than called: this loop is the search's innermost, and a call per
        answer costs more than the arithmetic."""
        mask = only or self._follow_mask(hf, c)
        trump = self._trump
        c_suit = c >> 3
        c_points = POINTS_BY_INDEX[c]
        f_closer = not l_closer and self._closer >= 0
        last = not hl
        # With a card each after this trick the last one is forced: ``_reply`` values it directly
        # (what ``_search`` would do, less its table, which such positions only fill).
        one_left = not (hl & (hl - 1)) and not last
        bonus = self._bonus if self._exhausted else 0
        minimize = lm  # the follower is the opponent
        best = _BIG if minimize else -_BIG
        while mask:
            low = mask & -mask
            mask ^= low
            f = low.bit_length() - 1
            points = c_points + POINTS_BY_INDEX[f]
            if (f >> 3 == c_suit and f < c) or (f >> 3 == trump and c_suit != trump):
                # The follower wins (§5.1), is credited his pending marriages (§5.4), and leads.
                total = pf + points + qf
                if last:
                    total += bonus
                if total >= CLAIM_TARGET and not (lm and self._opp_may_wait):
                    v = self._claim(not lm, f_closer, kl, pl)
                elif last:
                    v = self._hands_out(not lm, f_closer, total, 1, pl, kl)
                elif one_left:
                    v = self._reply((hf ^ low).bit_length() - 1, 0, hl, total, pl, 0, ql, 1, kl,
                                    not lm, f_closer, alpha, beta)
                else:
                    v = self._search(hf ^ low, hl, total, pl, 0, ql, 1, kl, not lm, f_closer,
                                     alpha, beta)
                if total >= CLAIM_TARGET and lm and self._opp_may_wait:
                    v = min(v, self._claim(False, False, kl, pl))  # he may claim, or wait
            else:
                total = pl + points + ql
                if last:
                    total += bonus
                if total >= CLAIM_TARGET and (lm or not self._opp_may_wait):
                    v = self._claim(lm, l_closer, kf, pf)
                elif last:
                    v = self._hands_out(lm, l_closer, total, 1, pf, kf)
                elif one_left:
                    v = self._reply(hl.bit_length() - 1, 0, hf ^ low, total, pf, 0, qf, 1, kf, lm,
                                    l_closer, alpha, beta)
                else:
                    v = self._search(hl, hf ^ low, total, pf, 0, qf, 1, kf, lm, l_closer,
                                     alpha, beta)
                if total >= CLAIM_TARGET and not lm and self._opp_may_wait:
                    v = min(v, self._claim(False, False, kf, pf))  # he may claim, or wait
            if minimize:
                if v < best:
                    best = v
                    if v <= alpha:
                        break
                    if v < beta:
                        beta = v
            elif v > best:
                best = v
                if v >= beta:
                    break
                if v > alpha:
                    alpha = v
        return best

    def _last_search(self, hl: int, hf: int, pl: int, pf: int, ql: int, qf: int, kl: int, kf: int,
                     lm: bool, top: int, up: int, alpha: int, beta: int) -> int:
        """Value of the lead to the last trick of phase 1 (``_search``'s, through ``_last_reply``;
        a marriage may be shown, §5.4). Its table entries are marked apart from phase 2's, and
        carry the cards still to be drawn."""
        self.nodes += 1
        key = (hl | hf << 32 | pl << 64 | pf << 72 | ql << 80 | qf << 88 | kl << 96 | kf << 97
               | lm << 98 | (1 | top << 1 | up << 6) << 99)
        tt = self._tt
        entry = tt.get(key)
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
        cards = self._leads.get(hl)
        if cards is None:
            cards = self._leads[hl] = [c for c in _LEAD_ORDER if (hl >> c) & 1]
        if entry is not None and entry[2] >= 0:
            first = entry[2]
            cards = [first] + [c for c in cards if c != first]
        draws = (top, up)
        best_card = -1
        best = -_BIG if lm else _BIG
        for c in cards:
            if _MELD_RANKS >> (c & 7) & 1:
                v = self._lead_value(c, hl, hf, pl, pf, ql, qf, kl, kf, lm, False, True, alpha,
                                     beta, draws)
            else:
                v = self._last_reply(c, hl ^ (1 << c), hf, pl, pf, ql, qf, kl, kf, lm, top, up,
                                     alpha, beta)
            if lm:
                if v > best:
                    best, best_card = v, c
                    if v >= beta:
                        break
                    if v > alpha:
                        alpha = v
            elif v < best:
                best, best_card = v, c
                if v <= alpha:
                    break
                if v < beta:
                    beta = v
        lo, hi = (entry[0], entry[1]) if entry is not None else (-_BIG, _BIG)
        if best <= a0:
            hi = min(hi, best)
        elif best >= b0:
            lo = max(lo, best)
        else:
            lo = hi = best
        tt[key] = (lo, hi, best_card)
        return best

    def _last_reply(self, c: int, hl: int, hf: int, pl: int, pf: int, ql: int, qf: int, kl: int,
                    kf: int, lm: bool, top: int, up: int, alpha: int, beta: int) -> int:
        """Best answer of the follower to the led card ``c`` on the last trick of phase 1: any card
        (§5.2), then a claim if the trick lifts its winner to 66 (at once, as everywhere here),
        else the draws (the winner the stock's last card ``top``, the loser the up-card ``up``,
        §5.2) and phase 2 from the winner's lead. ``_reply``'s arithmetic, without a closer."""
        mask = hf
        trump = self._trump
        c_suit = c >> 3
        c_points = POINTS_BY_INDEX[c]
        top_bit, up_bit = 1 << top, 1 << up
        search = self._search
        minimize = lm
        best = _BIG if minimize else -_BIG
        while mask:
            low = mask & -mask
            mask ^= low
            f = low.bit_length() - 1
            points = c_points + POINTS_BY_INDEX[f]
            if (f >> 3 == c_suit and f < c) or (f >> 3 == trump and c_suit != trump):
                total = pf + points + qf
                if total >= CLAIM_TARGET:
                    v = self._claim(not lm, False, kl, pl)
                else:
                    v = search((hf ^ low) | top_bit, hl | up_bit, total, pl, 0, ql, 1, kl, not lm,
                               False, alpha, beta)
            else:
                total = pl + points + ql
                if total >= CLAIM_TARGET:
                    v = self._claim(lm, False, kf, pf)
                else:
                    v = search(hl | top_bit, (hf ^ low) | up_bit, total, pf, 0, qf, 1, kf, lm,
                               False, alpha, beta)
            if minimize:
                if v < best:
                    best = v
                    if v <= alpha:
                        break
                    if v < beta:
                        beta = v
            elif v > best:
                best = v
                if v >= beta:
                    break
                if v > alpha:
                    alpha = v
        return best

    def _search(self, hl: int, hf: int, pl: int, pf: int, ql: int, qf: int, kl: int, kf: int,
                lm: bool, l_closer: bool, alpha: int, beta: int) -> int:
        """Value of a lead by the player holding ``hl`` (fail-soft alpha-beta, transposition table
        of bounds). Only ``meld_ok`` leads differ from this, and those happen at the root only."""
        self.nodes += 1
        # Everything that decides the rest of the deal; the closer's identity follows from ``lm``.
        key = (hl | hf << 32 | pl << 64 | pf << 72 | ql << 80 | qf << 88 | kl << 96 | kf << 97
               | lm << 98)
        tt = self._tt
        entry = tt.get(key)
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
        # Only a king or queen can be led with a marriage; other leads skip ``_lead_value``.
        meld_ranks = _MELD_RANKS if self._meld_phase2 else 0
        reply = self._reply
        cards = self._leads.get(hl)
        if cards is None:
            cards = self._leads[hl] = [c for c in _LEAD_ORDER if (hl >> c) & 1]
        if entry is not None and entry[2] >= 0:
            first = entry[2]  # the move that was best (or cut off) last time first
            cards = [first] + [c for c in cards if c != first]
        best_card = -1
        if lm:
            best = -_BIG
            for c in cards:
                if meld_ranks >> (c & 7) & 1:
                    v = self._lead_value(c, hl, hf, pl, pf, ql, qf, kl, kf, lm, l_closer, True,
                                         alpha, beta)
                else:
                    v = reply(c, hl ^ (1 << c), hf, pl, pf, ql, qf, kl, kf, lm, l_closer, alpha, beta)
                if v > best:
                    best, best_card = v, c
                    if v >= beta:
                        break
                    if v > alpha:
                        alpha = v
        else:
            best = _BIG
            for c in cards:
                if meld_ranks >> (c & 7) & 1:
                    v = self._lead_value(c, hl, hf, pl, pf, ql, qf, kl, kf, lm, l_closer, True,
                                         alpha, beta)
                else:
                    v = reply(c, hl ^ (1 << c), hf, pl, pf, ql, qf, kl, kf, lm, l_closer, alpha, beta)
                if v < best:
                    best, best_card = v, c
                    if v <= alpha:
                        break
                    if v < beta:
                        beta = v
        # Fail-soft bounds: below the window it is an upper bound, above it a lower bound.
        lo, hi = (entry[0], entry[1]) if entry is not None else (-_BIG, _BIG)
        if best <= a0:
            hi = min(hi, best)
        elif best >= b0:
            lo = max(lo, best)
        else:
            lo = hi = best
        tt[key] = (lo, hi, best_card)
        return best


_LEAD_ORDER = tuple(s * 8 + r for r in range(8) for s in range(4))
"""The order in which leads are tried: rank by rank (strongest first), across the suits."""
_MELD_RANKS = 1 << _KING | 1 << _QUEEN
