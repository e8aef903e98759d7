"""The demo (``arena demo``): a round robin among the bundled bots, in the strongest sandbox this
machine gives, or one in-process match between random players."""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

from arena.entrants.bot_specs import BotSpecError, resolve_bot
from arena.game import MatchState, Rules
from arena.isolation.limits import PER_PROCESS_ENV
from arena.isolation.probe import best_level
from arena.match.deal_keys import deal_secret, key_from_seed, new_key
from bots import BUNDLED_PROFILES

__all__ = ["DEMO_BOTS", "demo_bots", "demo_folder", "demo_level", "random_match"]

# The demo's round robin, which scripts/bench_tournament.py times too. The strong bot thinks 30% of
# the decision limit by default; a small budget keeps the demo to a minute or two on two cores (it
# is then weaker than in a real tournament). The C bot is left out where it cannot be built.
DEMO_BOTS = ("random", "greedy", "first-legal", "strong --budget-ms 25", "c-counter")


def demo_level() -> str:
    """The sandbox level the demo runs its bots at.

    The demo's bots are the arena's own code: it runs them in the strongest sandbox this machine
    has (a tournament of untrusted bots asks for `isolated` unless told not to); where that caps
    memory per process only, that will do for them too (probe.check_memory)."""
    level = best_level()
    os.environ.setdefault(PER_PROCESS_ENV, "1")
    return level


def demo_bots(profile: str) -> tuple[list[str], BotSpecError | None]:
    """The demo's bots that play ``profile``, and why the C bot is left out (None if it is not)."""
    # Only the bots that declare the profile: one that declines it would stop the tournament.
    bots = [b for b in DEMO_BOTS if profile in BUNDLED_PROFILES.get(b.split()[0], (profile,))]
    try:
        resolve_bot("c-counter")
    except BotSpecError as err:
        if "c-counter" in bots:
            bots.remove("c-counter")
        return bots, err
    return bots, None


def demo_folder() -> Path:
    """Each demo run has its own folder: a demo never overwrites earlier results."""
    return Path("results") / f"demo-{time.strftime('%Y%m%d-%H%M%S')}"


def random_match(rules: Rules, seed: int | None) -> tuple[tuple[str, ...], MatchState]:
    """One match between random players, in-process, played to its end: their names and the
    match's last state (its ``results``, deal by deal, and its ``outcome``)."""
    names = tuple(f"random-{'abcd'[seat]}" for seat in range(rules.players))
    # No bot process plays here, so nothing can eavesdrop; a seed still makes the run repeatable.
    key = new_key() if seed is None else key_from_seed(seed)
    rng = random.Random(deal_secret(key, "demo-players"))
    state = MatchState.new(rules, seed=deal_secret(key, "demo"), first_dealer=0)
    while not state.is_over:
        legal = state.legal_actions()
        state = state.apply(legal[rng.randrange(len(legal))])
    return names, state
