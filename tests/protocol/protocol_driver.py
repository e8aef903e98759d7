"""The in-process referee for tests: ``protocol.local.play`` (every line through ``from_engine`` and
the codec, as text; no processes), plus a random bot that keeps deals long."""

from __future__ import annotations

from arena.game import CLAIM, CLOSE, Action
from bots.random_bot import RandomBot
from protocol import BotView
from protocol.local import LocalMatch, RequestHook, play

InProcessMatch = LocalMatch

__all__ = ["InProcessMatch", "LocalMatch", "PatientRandomBot", "RequestHook", "play"]


class PatientRandomBot(RandomBot):
    """Random, but never claims and rarely closes: deals then run to the last trick (and its bonus)
    more often, and the other seat meets more claim windows."""

    name = "patient"
    player_counts = (2, 3, 4)

    def decide(self, view: BotView, legal: tuple[Action, ...]) -> Action:
        choices = [a for a in legal
                   if a is not CLAIM and (a is not CLOSE or self.rng.random() < 0.1)]
        return self.rng.choice(choices or legal)
