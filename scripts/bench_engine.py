#!/usr/bin/env python3
"""Engine speed: random legal deals in one process, per profile (issue: >= 10,000 sixty_six deals/s).

Each deal is dealt from a seed (shuffle included), then played to its settlement with
``legal_actions()`` + ``apply_unchecked()``. Two policies are measured side by side:

- ``uniform``: a uniformly random legal action at every decision (the issue's "random legal deals").
  Such a player claims and closes at random, so most of its deals end early on a wrong claim.
- ``playout``: a random card at every lead and follow, never claiming, closing, exchanging or
  marrying, so every deal runs all its tricks: the figure a search bot's playouts will see.

Also reported: ``apply`` (validated) against ``apply_unchecked`` for the playout policy, and the
average number of decisions per deal. Usage: scripts/bench_engine.py [--seconds S]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.game import PROFILES, ActionKind, DealState, shuffled_order  # noqa: E402
from arena.game.actions import PASS  # noqa: E402

_PLAY = ActionKind.PLAY


def uniform(rng: random.Random, legal):  # noqa: ANN001, ANN201
    return legal[rng.randrange(len(legal))]


def playout(rng: random.Random, legal):  # noqa: ANN001, ANN201
    # legal_actions() lists the card plays last, after any exchange/close/marry/claim.
    first = len(legal)
    while first and legal[first - 1].kind is _PLAY:
        first -= 1
    return legal[rng.randrange(first, len(legal))] if first < len(legal) else PASS


def run(rules, policy, seconds: float, checked: bool) -> tuple[float, float]:  # noqa: ANN001
    """(deals per second, decisions per deal) over about ``seconds`` of play."""
    rng = random.Random(12345)
    deals = decisions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(50):
            state = DealState.new(rules, deals & 1, shuffled_order(rules, 99, deals))
            while state.settlement is None:
                action = policy(rng, state.legal_actions())
                state = state.apply(action) if checked else state.apply_unchecked(action)
                decisions += 1
            deals += 1
        now = time.perf_counter()
        if now >= deadline:
            return deals / (now - start), decisions / deals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    args = parser.parse_args()
    print(f"# python {sys.version.split()[0]}, one process, {args.seconds:.0f} s per figure")
    for name in ("sixty_six", "schnapsen"):
        rules = PROFILES[name]
        rate, per_deal = run(rules, uniform, args.seconds, checked=False)
        print(f"{name}: {rate:,.0f}   (uniform random, {per_deal:.1f} decisions/deal)")
    for name in ("sixty_six", "schnapsen"):
        rules = PROFILES[name]
        fast, per_deal = run(rules, playout, args.seconds, checked=False)
        checked, _ = run(rules, playout, args.seconds, checked=True)
        print(f"{name} playout: {fast:,.0f}   ({per_deal:.1f} decisions/deal; "
              f"validated apply: {checked:,.0f}, ratio {fast / checked:.2f})")


if __name__ == "__main__":
    main()
