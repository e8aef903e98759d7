"""The adapter's protocol side: the package's bot decides, and every step is checked against it.

The bots (``make_player``): the package's ``RdeepBot(samples, depth)`` (random rollouts of
``depth`` tricks, ``samples`` of them per move), ``RandBot`` and ``BullyBot``, each optionally with
``AlphaBetaBot`` (exact search) once the stock is empty, the package's phase 2. ``AlphaBetaBot``
cannot play a trick of the open stock (it asserts as much), so it is never a bot on its own.

The checks, each a ``Disagreement`` that stops the bot (``__main__`` turns it into one line on
stderr and exit status 3, which the referee records as the adapter's fault):

- at each request, the package's legal moves are exactly the actions the referee lists (after a
  marriage, the referee's next ``lead?`` lists only the king: the package's Marriage move leads it);
- every trick has the same winner on both engines (``replay.py``);
- at each deal's end, the same winner, game points and card-point totals;
- the rules are ``vu_compat``'s (any ``match_target``), and no request the package has no
  counterpart of (``after_trick?``, ``close_exchange?``, ``between_tricks?``) ever comes.
"""

from __future__ import annotations

import dataclasses
import random
import sys
import types
from dataclasses import dataclass
from typing import Any, Callable

from arena.game import Action, profile
from bots.vu_adapter.package import load
from bots.vu_adapter.replay import DealSeen, Disagreement, Replayer
from protocol import Bot, BotView, Event, MatchEnd, Settle, Who

KINDS = ("rdeep", "rand", "bully")
PHASE2 = ("alphabeta", "same")

Player = Callable[[Any, Any], Any]
"""The package's decision: (perspective, leader_move or None) -> its move."""


@dataclass(frozen=True)
class Choice:
    """Which of the package's bots plays, and how."""

    kind: str = "rdeep"
    samples: int = 64
    depth: int = 8
    phase2: str = "alphabeta"

    def name(self) -> str:
        """A default name for the arena (PROTOCOL.md §3's alphabet)."""
        base = f"vu-rdeep-{self.samples}-{self.depth}" if self.kind == "rdeep" else f"vu-{self.kind}"
        return base + ("-ab" if self.phase2 == "alphabeta" else "")


def make_player(vu: types.SimpleNamespace, choice: Choice, rng: random.Random) -> Player:
    """The package's bot for ``choice``, drawing its random numbers from ``rng``."""
    if choice.kind == "rdeep":
        first = vu.rdeep.RdeepBot(choice.samples, choice.depth, rng)
    elif choice.kind == "rand":
        first = vu.rand.RandBot(rng)
    elif choice.kind == "bully":
        first = vu.bully.BullyBot(rng)
    else:
        raise ValueError(f"unknown package bot {choice.kind!r}; one of {', '.join(KINDS)}")
    exact = vu.alphabeta.AlphaBetaBot() if choice.phase2 == "alphabeta" else None
    phase_two = vu.game.GamePhase.TWO

    def decide(perspective: Any, leader_move: Any) -> Any:
        bot = exact if exact is not None and perspective.get_phase() == phase_two else first
        return bot.get_move(perspective, leader_move=leader_move)

    return decide


@dataclass
class Checked:
    """How much of the agreement was checked (said on stderr at the match's end)."""

    decisions: int = 0
    tricks: int = 0
    deals: int = 0

    def line(self) -> str:
        return (f"vu_adapter: checked {self.decisions} decisions, {self.tricks} tricks, "
                f"{self.deals} deal results against the package's engine: no disagreement")


class VuAdapterBot(Bot):
    """A bot of the ``schnapsen`` package, playing ``vu_compat`` through the protocol."""

    def __init__(self, choice: Choice = Choice(), seed: str | None = None,
                 name: str | None = None, vu: types.SimpleNamespace | None = None):
        self.choice = choice
        self.name = name or choice.name()
        self._seed = seed
        self.vu = vu if vu is not None else load()
        self.replayer = Replayer(self.vu)
        self.player: Player = make_player(self.vu, choice, random.Random(seed))
        self.deal: DealSeen | None = None
        self.plan: list[Action] = []
        self.checked = Checked()

    # -- what happened --------------------------------------------------------------------------

    def on_match_start(self, view: BotView) -> None:
        expected = profile("vu_compat")
        found = dataclasses.replace(view.rules, match_target=expected.match_target)
        if view.rules_warnings or found != expected:
            different = sorted(k for k, v in found.to_dict().items()
                               if expected.to_dict().get(k) != v)
            raise Disagreement(f"these are not vu_compat's rules (the package plays only those): "
                               f"{', '.join(different) or '; '.join(view.rules_warnings)}")
        seed = self._seed or f"{view.match_id}/{view.seat}"
        self.player = make_player(self.vu, self.choice, random.Random(seed))

    def on_deal_start(self, view: BotView) -> None:
        assert view.upcard is not None
        self.deal = DealSeen(first_leader=Who.OPP if view.dealer is Who.ME else Who.ME,
                             hand=view.hand, upcard=view.upcard)
        self.plan = []

    def on_event(self, view: BotView, event: Event) -> None:
        assert self.deal is not None
        self.deal.see(event)

    def on_deal_end(self, view: BotView, settle: Settle) -> None:
        assert self.deal is not None
        state, me_leader, tricks = self.replayer.state(self.deal)
        self.checked.tricks += tricks
        declared = self.vu.game.SchnapsenTrickScorer().declare_winner(state)
        if declared is None:
            raise Disagreement(f"the referee ended the deal ({settle.reason}); the package's "
                               "engine plays on")
        winner = Who.ME if me_leader else Who.OPP  # the package's winner is always the leader
        me, opp = (state.leader, state.follower) if me_leader else (state.follower, state.leader)
        ours = (settle.winner, settle.points, tuple(settle.totals))
        theirs = (winner, declared[1], (me.score.direct_points, opp.score.direct_points))
        if ours != theirs:
            raise Disagreement(f"deal {view.deal_no}: the referee says winner, points, totals = "
                               f"{ours}; the package's engine {theirs}")
        self.checked.deals += 1

    def on_match_end(self, view: BotView, end: MatchEnd) -> None:
        print(self.checked.line(), file=sys.stderr, flush=True)

    # -- deciding -------------------------------------------------------------------------------

    def decide(self, view: BotView, legal: tuple[Action, ...]) -> Action:
        listed = {str(a) for a in legal}
        if self.plan:
            # The card of our own marriage: the package's Marriage move leads the king.
            action = self.plan.pop(0)
            if listed != {str(action)}:
                raise Disagreement(f"after the marriage the referee offers {sorted(listed)}; the "
                                   f"package leads {action} alone")
            return action
        if view.decision not in ("lead", "follow"):
            raise Disagreement(f"a {view.decision}? request: the package has no such decision")
        assert self.deal is not None
        state, me_leader, _ = self.replayer.state(self.deal)
        game = self.vu.game
        trick = self.deal.current()
        if view.decision == "lead":
            if not me_leader or trick is not None:
                raise Disagreement("asked to lead where the package's engine has the opponent lead")
            leader_move = None
            perspective = game.LeaderPerspective(state, self.replayer.engine)
        else:
            if me_leader or trick is None or trick.leader is not Who.OPP:
                raise Disagreement("asked to follow where the package's engine has us lead")
            leader_move = self.replayer.move(trick.led, trick.married)
            perspective = game.FollowerPerspective(state, self.replayer.engine, leader_move)
        theirs = self.replayer.actions(perspective.valid_moves())
        if theirs != listed:
            raise Disagreement(f"{view.decision}?: the referee offers {sorted(listed)}, the "
                               f"package's engine {sorted(theirs)}")
        self.checked.decisions += 1
        move = self.player(perspective, leader_move)
        answer = self.replayer.action(move)
        if move.is_marriage():
            self.plan = [Action.play(self.replayer.cards.from_vu[move.king_card])]
        return next(a for a in legal if str(a) == answer)  # listed: the sets are equal

