"""A bot that picks uniformly among the legal actions: a baseline, and a fuzzer for the referee.

Its generator is seeded from ``SIXTYSIX_BOT_SEED`` when set, else from ``<match_id>/<seat>``, so a
match replays identically (golden transcripts stay stable) while the two seats still differ.
"""

from __future__ import annotations

import os
import random

from arena.game import Action
from protocol import Bot, BotView, run

SEED_ENV = "SIXTYSIX_BOT_SEED"


class RandomBot(Bot):
    name = "random"
    player_counts = (2, 3, 4)  # it only needs the legal actions, so it plays every profile

    def __init__(self, seed: str | None = None):
        self._seed = seed
        self.rng = random.Random(seed)

    def on_match_start(self, view: BotView) -> None:
        # str seeds are hashed with SHA-512 by CPython: the same stream on every platform and run.
        seed = self._seed or os.environ.get(SEED_ENV) or f"{view.match_id}/{view.seat}"
        self.rng = random.Random(seed)

    def decide(self, view: BotView, legal: tuple[Action, ...]) -> Action:
        return self.rng.choice(legal)


def main() -> None:
    run(RandomBot())


if __name__ == "__main__":
    main()
