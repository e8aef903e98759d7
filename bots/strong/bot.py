"""The strong reference bot: the SDK glue and the decisions.

How it decides, in order:

1. A single legal action is played at once.
2. **Claims**: exactly when its own count (the SDK's mental count, ``BotView.my_points``) reaches 66
   in a claim window, never below (RULES.md §7.2). Claiming at once is never worse than later: the
   game points come from the loser's figures, which only grow.
3. **Exchanges** are always made: the lowest trump, worth nothing, for the up-card. Every card
   that the bot could play with the lowest trump it can play as well with the higher one, and the
   lowest trump goes to the bottom of the stock, so whoever draws it gets the worst trump there is.
4. Once the stock is **closed or exhausted**: the exact solver, on the single world left when the
   stock is exhausted, or averaged over sampled opponent hands after a close.
5. While the stock is **open**: every option (each card, with its marriage shown when it is a king
   or queen of one; closing; passing instead of closing before the draw) is played in sampled
   worlds, then the playout policy carries on and the exact solver finishes once the stock is
   gone; the best average wins. With ``LOOKAHEAD_STOCK`` cards or fewer left in the stock the
   playout gives way to exact search of both players' cards in each world (``lookahead.py``),
   as long as the budget holds ``SEARCHED_WORLDS_MIN`` such worlds.
   Closing is valued by exact play from the close on; the other options keep the bot's next
   chance to close in view (``playout.value_keeping_the_close``). Marriages are always shown
   when their card is led: their points can only help.

With three or four players (RULES.md §10) none of the above runs: ``nseat.py`` decides instead
(sampled worlds replayed on the engine, greedy playouts for every seat, best average for the side),
within the same time budget.

Time: each decision gets ``BUDGET_FRACTION`` of the limit the referee announced (``decision_ms``),
or less when the command line asks, measured from the moment the request arrived; sampling stops
there. What is left of the limit is the safety margin for a busy machine.
"""

from __future__ import annotations

import logging
import os
import random
import time

from arena.game import CLAIM, CLOSE, EXCHANGE, PASS, Action, ActionKind, Card, DealState, Rank
from arena.game.rules import CLAIM_TARGET, ClaimMode, MarriageCredit, MarriageLeadCard
from bots.nseat import ViewTracker, greedy_choice
from bots.strong import nseat
from bots.strong.knowledge import Knowledge
from bots.strong.lookahead import Lookahead
from bots.strong.planner import MAX_WORLDS, MIN_WORLDS, Budget, choose
from bots.strong.playout import value_keeping_the_close, world_value
from bots.strong.sampler import Sampler
from bots.strong.solver import Payoff, Solver
from protocol import Bot, BotView, Event, StockState

log = logging.getLogger("bots.strong")

BUDGET_FRACTION = 0.28
"""Share of the announced per-decision limit spent thinking: two points short of the 30% that the
99th percentile of its decision times must stay under (issue 35), for what happens outside the
search (reading the request, the pipe, the answer); at 0.3 that p99 was 30.1% (bench_bots.py)."""
LOOKAHEAD_STOCK = 4
"""With this many cards left in the stock or fewer (the up-card included), each world is searched
exactly to the end (``lookahead.py``) instead of played out by the rule of thumb: the last two
tricks of phase 1 with 4."""
SEARCHED_WORLDS_MIN = MIN_WORLDS
"""Fewest searched worlds the budget must hold for the search to go on past its first world; a
fixed world count with a generous budget (the benchmarks') always searches."""
DEFAULT_LIMIT_MS = 1000  # PROTOCOL.md §6, when the match line names none
SEED_ENV = "SIXTYSIX_BOT_SEED"

Macro = tuple[Action, ...]
"""Actions the bot takes in a row at one lead (a marriage and its card)."""


class StrongBot(Bot):
    name = "strong"
    player_counts = (2, 3, 4)  # every profile (PROTOCOL.md §9)

    def __init__(self, budget_ms: int | None = None, seed: str | None = None,
                 max_worlds: int = MAX_WORLDS):
        self.budget_ms = budget_ms
        self.max_worlds = max_worlds
        self._seed = seed
        self.rng = random.Random(seed)
        self.know: Knowledge | None = None
        self._plan: list[Action] = []
        self.decision_ms: list[float] = []  # thinking time of each decision (for benchmarks)
        self.failures = 0  # decisions where the search failed and a safe action was played
        self.nseat = ViewTracker()  # three or four players: what the seat saw (bots/nseat.py)

    # -- hooks ---------------------------------------------------------------------------------------

    def on_match_start(self, view: BotView) -> None:
        seed = self._seed or os.environ.get(SEED_ENV) or f"{view.match_id}/{view.seat}"
        self.rng = random.Random(seed)
        self.nseat.match_start(view)
        if self.nseat.knowledge is not None:
            return
        self.know = Knowledge(view.rules, view.seat if view.seat is not None else 0)

    def on_deal_start(self, view: BotView) -> None:
        if self.nseat.knowledge is not None:
            self.nseat.deal_start(view)
            return
        assert self.know is not None
        self.know.start(view)
        self._plan = []

    def on_event(self, view: BotView, event: Event) -> None:
        if self.nseat.knowledge is not None:
            self.nseat.event(event)
            return
        assert self.know is not None
        self.know.event(view, event)

    # -- deciding ------------------------------------------------------------------------------------

    def budget_seconds(self, view: BotView) -> float:
        limit = view.decision_ms or DEFAULT_LIMIT_MS
        ms = BUDGET_FRACTION * limit
        if self.budget_ms is not None:
            ms = min(ms, self.budget_ms)
        return ms / 1000

    def decide(self, view: BotView, legal: tuple[Action, ...]) -> Action:
        if self.nseat.knowledge is not None:
            return self._decide_nseat(self.nseat.knowledge, view, legal)
        budget = Budget(self.budget_seconds(view))
        assert self.know is not None and view.decision is not None
        try:
            action = self._choose(view, legal, budget)
        except Exception:  # a bug must not cost the match: say so, and play on by the rules
            log.exception("the strong bot failed to decide; playing a safe legal action")
            self.failures += 1
            action = _safe(view, legal)
        if action not in legal:
            log.error("chose %s, which is not legal (%s); playing a safe legal action", action,
                      " ".join(map(str, legal)))
            action = _safe(view, legal)
        self.know.mine(view.decision, action)
        self.decision_ms.append(budget.elapsed_ms())
        return action

    def _decide_nseat(self, k: nseat.SeatKnowledge, view: BotView,
                      legal: tuple[Action, ...]) -> Action:
        """Three or four players: ``nseat.decide`` within the same time budget, the greedy choice
        if it fails (a bug must not cost the match)."""
        budget = Budget(self.budget_seconds(view))
        try:
            action = nseat.decide(k, legal, self.rng,
                                  nseat.Budget(worlds=self.max_worlds,
                                               seconds=self.budget_seconds(view)))
        except Exception:
            log.exception("the strong bot failed to decide; playing the greedy choice")
            self.failures += 1
            action = greedy_choice(k, legal)
        if action not in legal:
            log.error("chose %s, which is not legal; playing the greedy choice", action)
            action = greedy_choice(k, legal)
        self.decision_ms.append(budget.elapsed_ms())
        return action

    def _choose(self, view: BotView, legal: tuple[Action, ...], budget: Budget) -> Action:
        if len(legal) == 1:
            return legal[0]
        if CLAIM in legal:
            if view.my_points() >= CLAIM_TARGET:
                return CLAIM
            legal = tuple(a for a in legal if a is not CLAIM)  # never a wrong claim
            if len(legal) == 1:
                return legal[0]
        while self._plan:
            planned = self._plan.pop(0)
            if planned in legal:
                return planned
        self._plan = []
        if EXCHANGE in legal:
            return EXCHANGE
        if view.stock_state is not StockState.OPEN:
            return self._endgame(view, legal, budget)
        return self._open_stock(view, legal, budget)

    def _solver(self, view: BotView) -> Solver:
        assert self.know is not None
        payoff = Payoff.for_match(self.know.me, (view.score[0], view.score[1]), view.pot, view.target or
                                  view.rules.match_target)
        return Solver(view.rules, payoff)

    # -- stock closed or exhausted: exact play -------------------------------------------------------

    def _endgame(self, view: BotView, legal: tuple[Action, ...], budget: Budget) -> Action:
        assert self.know is not None
        plays = [a for a in legal if a.kind is ActionKind.PLAY]
        if not plays:
            return PASS if PASS in legal else legal[0]
        marriages = {a.suit: a for a in legal if a.kind is ActionKind.MARRY}
        solver = self._solver(view)
        sampler = Sampler(view, self.know, self.rng)
        moves = [a.index for a in _cheap_first(view, plays)]
        # After a close the opponent's hand is sampled; once the stock is exhausted it is known.
        one_world = view.stock_state is StockState.EXHAUSTED

        def values(active: list[int]) -> list[float]:
            cards = [moves[i] for i in active]
            vals = solver.values(sampler.endgame(meld_now=bool(marriages)), cards)
            return [vals[c] for c in cards]

        picked = choose(moves, values, budget, max_worlds=1 if one_world else self.max_worlds)
        card = Card.from_index(picked.option)
        if card.suit in marriages and _leads_marriage(view, card):
            self._plan = [Action.play(card)]
            return marriages[card.suit]
        return Action.play(card)

    # -- stock open: sampled worlds, playouts, exact finish ------------------------------------------

    def _open_stock(self, view: BotView, legal: tuple[Action, ...], budget: Budget) -> Action:
        assert self.know is not None
        if view.decision == "after_trick":
            options: list[Macro] = [(PASS,)]
            if CLOSE in legal:
                options.append((CLOSE,))
        elif view.decision in ("lead", "follow"):
            options = self._card_options(view, legal)
            shortcut = self._marriage_claim(view, legal)
            if shortcut is not None:
                return shortcut
        else:
            return PASS if PASS in legal else legal[0]
        solver = self._solver(view)
        sampler = Sampler(view, self.know, self.rng)

        searching = view.stock_size <= LOOKAHEAD_STOCK

        def values(active: list[int]) -> list[float]:
            nonlocal searching
            world = sampler.deal()
            if not searching:
                return [_macro_value(world, options[i], solver) for i in active]
            started = time.perf_counter()
            look = Lookahead(solver)  # one per world: it keeps the world's solved endgames
            found: list[float] = [look.value(_after(world, options[i])) for i in active]
            # Searched worlds are worth it only while the budget holds enough of them: after the
            # first, the rest are played out if fewer than SEARCHED_WORLDS_MIN would fit. With 4
            # cards left a world of sixty_six's six-card hands takes ~35 ms to search (~5 ms in
            # vu_compat; ladder.md step eight): about 8 in the default budget, too few to choose
            # by (the gain was measured in Schnapsen only, step seven).
            if (time.perf_counter() - started) * SEARCHED_WORLDS_MIN > budget.seconds:
                searching = False
            return found

        picked = choose(options, values, budget, max_worlds=self.max_worlds)
        self._plan = list(picked.option[1:])
        return picked.option[0]

    def _card_options(self, view: BotView, legal: tuple[Action, ...]) -> list[Macro]:
        """Each card (with its marriage shown when it is led from one), then closing last: on
        equal evidence the bot prefers the cheaper card and not closing (the list's order)."""
        marriages = {a.suit: a for a in legal if a.kind is ActionKind.MARRY}
        options: list[Macro] = []
        plays = [a for a in legal if a.kind is ActionKind.PLAY]
        for play in _cheap_first(view, plays):
            card = play.card
            assert card is not None
            if card.suit in marriages and _leads_marriage(view, card):
                options.append((marriages[card.suit], play))
            else:
                options.append((play,))
        if CLOSE in legal:
            options.append((CLOSE,))
        return options

    def _marriage_claim(self, view: BotView, legal: tuple[Action, ...]) -> Action | None:
        """A marriage that lifts a count with a trick to 66 ends the deal at once by a claim
        (§7.2): nothing later could score more (game points come from the loser's figures)."""
        rules = view.rules
        if not (rules.claim_after_meld and rules.claim_mode is ClaimMode.EXPLICIT):
            return None
        if view.tricks_won[0] == 0 or rules.marriage_credit is not MarriageCredit.ONCE_ANY_TRICK:
            return None
        best = None
        for action in legal:
            if action.kind is ActionKind.MARRY:
                points = 40 if action.suit is view.trump else 20
                if view.my_points() + points >= CLAIM_TARGET and (best is None or points == 40):
                    best = action
        return best


def _after(world: DealState, macro: Macro) -> DealState:
    state = world
    for action in macro:
        state = state.apply_unchecked(action)
    return state


def _macro_value(world: DealState, macro: Macro, solver: Solver) -> float:
    state = _after(world, macro)
    if macro == (CLOSE,):
        return world_value(state, solver)
    return value_keeping_the_close(state, solver)


def _leads_marriage(view: BotView, card: Card) -> bool:
    if card.rank is Rank.KING:
        return True
    return card.rank is Rank.QUEEN and view.rules.marriage_lead_card is MarriageLeadCard.KING_OR_QUEEN


def _cheap_first(view: BotView, plays: list[Action]) -> list[Action]:
    """Plays ordered from the card it costs least to give away (no trump, few points, weak)."""
    def cost(action: Action) -> tuple[bool, int, int]:
        card = action.card
        assert card is not None
        return (card.suit is view.trump, card.points, -int(card.rank))
    return sorted(plays, key=cost)


def _safe(view: BotView, legal: tuple[Action, ...]) -> Action:
    """A legal action that never claims wrongly: for the rare case the search itself failed."""
    if CLAIM in legal and view.my_points() >= CLAIM_TARGET:
        return CLAIM
    for action in reversed(legal):
        if action is not CLAIM:
            return action
    return legal[0]

