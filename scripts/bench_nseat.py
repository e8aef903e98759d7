#!/usr/bin/env python3
"""Does the strong bot beat greedy with three and four players (issue 15)? Its score share, with a
95% interval.

- ``three_player``: one strong bot against two greedy bots. Every deal set (one seed: the same
  deals) is played three times, strong at seat 0, 1 and 2, so each seat and each hand is strong's
  once. An even share is 1/3.
- ``four_player``: a pair of strong bots (partners, seats 0+2) against a pair of greedy bots, and
  the same deals again with the sides swapped (strong at 1+3). An even share is 1/2.

The score share is strong's game points over all game points of the deal set's matches; the
interval is mean +- 1.96 standard errors over the deal sets (the sets are independent, the matches
within one are not). Matches are played in-process on the engine (``bots.nseat.play_local_match``:
each seat decides from what it saw, no processes), and the strong bot samples a fixed number of
worlds per decision (``--worlds``), not a time budget, so the result does not depend on the load of
the machine.

``--decision-ms L`` gives the strong bot the budget it has in a real match with a limit of L ms per
decision instead (``bots.strong.bot``: up to ``MAX_WORLDS`` worlds in ``BUDGET_FRACTION`` of L), to
read its decision times against the limit (the issue: p99 at most 30%); the share then depends on
the machine's load. Every run prints the strong bot's decision times (median, p99, max).

``--referee`` plays the same matches with real bot processes through the referee instead
(``arena.match.referee.run_match``: the strong bot as ``strong --worlds W`` with a time budget generous
enough that the world count binds). Slower, and a check that the processes behave as the
in-process policies do.

Usage: scripts/bench_nseat.py [--profile three_player|four_player|both] [--sets N] [--worlds W]
                              [--seed S] [--decision-ms L] [--referee]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.game import Action, profile  # noqa: E402
from bots.nseat import GREEDY, Policy, SeatKnowledge, play_local_match  # noqa: E402
from bots.strong.bot import BUDGET_FRACTION  # noqa: E402
from bots.strong.nseat import Budget, NSeatPlanner  # noqa: E402
from bots.strong.planner import MAX_WORLDS  # noqa: E402


class Timed:
    """A policy whose decision times (ms) are kept in ``times``."""

    def __init__(self, policy: Policy, times: list[float]):
        self.policy, self.times = policy, times

    def decide(self, k: SeatKnowledge, legal: Sequence[Action]) -> Action:
        started = time.perf_counter()
        action = self.policy.decide(k, legal)
        self.times.append((time.perf_counter() - started) * 1000)
        return action


def budget(worlds: int, decision_ms: int) -> Budget:
    """A fixed world count, or with ``decision_ms`` the bot's own budget for that limit."""
    if decision_ms:
        return Budget(worlds=MAX_WORLDS, seconds=BUDGET_FRACTION * decision_ms / 1000)
    return Budget(worlds=worlds)

DEFAULT_SETS = {"three_player": 10, "four_player": 10}


def seatings(players: int) -> list[tuple[int, ...]]:
    """Strong's seats in each match of a deal set."""
    if players == 3:
        return [(0,), (1,), (2,)]
    return [(0, 2), (1, 3)]


def play_in_process(name: str, strong_seats: tuple[int, ...], deal_seed: str, worlds: int,
                    decision_ms: int = 0, times: list[float] | None = None
                    ) -> tuple[tuple[int, ...], int, int]:
    """One match on the engine: (game points per side, wrong claims, missed claims)."""
    rules = profile(name)
    planner = Timed(NSeatPlanner(f"{deal_seed}/{strong_seats}", budget(worlds, decision_ms)),
                    times if times is not None else [])
    policies: list[Policy] = [planner if s in strong_seats else GREEDY for s in range(rules.players)]
    result = play_local_match(rules, policies, deal_seed)
    return result.game_points, result.wrong_claims, result.missed_claims


REFEREE_DECISION_MS = 5000
"""The limit per decision in ``--referee`` mode: far above what the fixed world count needs."""


def play_with_referee(name: str, strong_seats: tuple[int, ...], deal_seed: str, worlds: int,
                      decision_ms: int = 0, times: list[float] | None = None
                      ) -> tuple[tuple[int, ...], int, int]:
    """One match between bot processes through the referee, on the same deals (the decision
    times are not read: ``times`` stays empty)."""
    from arena.match.bot_process import Limits
    from arena.entrants.bot_specs import resolve_bot
    from arena.match.referee import MatchConfig, run_match

    rules = profile(name)
    bots = [resolve_bot(f"strong --worlds {worlds} --budget-ms {REFEREE_DECISION_MS // 2} "
                        f"--seed {deal_seed}/{s}", name=f"strong-{s}")
            if s in strong_seats else resolve_bot("greedy", name=f"greedy-{s}")
            for s in range(rules.players)]
    result = run_match(bots, MatchConfig(rules=rules, seed=deal_seed, match_id="bench-nseat",
                                         limits=Limits(decision_ms=REFEREE_DECISION_MS)))
    if result.fault is not None:
        raise SystemExit(f"{name}: the match faulted: {result.fault} by seat {result.offender}: "
                         f"{result.detail}")
    return (result.game_points, sum(s.wrong_claims for s in result.seats),
            sum(s.missed_claims for s in result.seats))


def run_profile(name: str, sets: int, worlds: int, seed: int, referee: bool = False,
                decision_ms: int = 0) -> dict[str, float]:
    rules = profile(name)
    even = 1 / rules.sides
    shares = []
    matches = wrong = missed = 0
    strong_points = all_points = 0
    times: list[float] = []
    started = time.monotonic()
    for k in range(sets):
        deal_seed = f"bench-nseat/{seed}/{k}"
        mine = total = 0
        for strong_seats in seatings(rules.players):
            play = play_with_referee if referee else play_in_process
            points, wrong_here, missed_here = play(name, strong_seats, deal_seed, worlds, decision_ms,
                                                   times)
            side = rules.side_of[strong_seats[0]]
            mine += points[side]
            total += sum(points)
            matches += 1
            wrong += wrong_here
            missed += missed_here
        shares.append(mine / total if total else even)
        strong_points += mine
        all_points += total
        print(f"  {name}: set {k + 1}/{sets}: share {mine}/{total}", file=sys.stderr, flush=True)
    mean = statistics.fmean(shares)
    half = 1.96 * statistics.stdev(shares) / math.sqrt(len(shares)) if len(shares) > 1 else 1.0
    times.sort()
    tail = times[min(len(times) - 1, int(0.99 * len(times)))] if times else 0.0
    return {"share": mean, "low": max(0.0, mean - half), "high": min(1.0, mean + half), "even": even,
            "matches": matches, "sets": sets, "points": strong_points, "all": all_points,
            "wrong": wrong, "missed": missed, "seconds": time.monotonic() - started,
            "decisions": len(times), "median_ms": statistics.median(times) if times else 0.0,
            "p99_ms": tail, "max_ms": times[-1] if times else 0.0}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", choices=["three_player", "four_player", "both"], default="both")
    parser.add_argument("--sets", type=int, default=0,
                        help="deal sets per profile (default 10; 3 matches each with three players, "
                             "2 with four)")
    parser.add_argument("--worlds", type=int, default=12, help="sampled worlds per strong decision")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--decision-ms", type=int, default=0,
                        help="the bot's own time budget for this per-decision limit instead of "
                             "--worlds (results then depend on the load)")
    parser.add_argument("--referee", action="store_true",
                        help="real bot processes through the referee instead of in-process")
    args = parser.parse_args()
    if args.sets < 0 or args.worlds < 1 or args.decision_ms < 0:
        parser.error("--sets and --decision-ms must be positive and --worlds at least 1")
    names = ["three_player", "four_player"] if args.profile == "both" else [args.profile]
    failed = False
    for name in names:
        r = run_profile(name, args.sets or DEFAULT_SETS[name], args.worlds, args.seed, args.referee,
                        args.decision_ms)
        verdict = "excludes" if r["low"] > r["even"] else "does NOT exclude"
        failed |= r["low"] <= r["even"]
        work = (f"the bot's budget for a {args.decision_ms} ms limit" if args.decision_ms
                else f"{args.worlds} worlds per decision")
        who = "strong vs 2 greedy" if name == "three_player" else "strong pair vs greedy pair"
        print(f"{name} ({who}): strong score share {r['share']:.3f}, 95% interval "
              f"[{r['low']:.3f}, {r['high']:.3f}] {verdict} the even share {r['even']:.3f}; "
              f"{r['matches']:.0f} matches on {r['sets']:.0f} duplicate deal sets, game points "
              f"{r['points']:.0f} of {r['all']:.0f}; wrong claims {r['wrong']:.0f}, missed "
              f"{r['missed']:.0f}; {r['seconds']:.0f} s ({work}, "
              f"{'bot processes and the referee' if args.referee else 'in-process'})")
        if r["decisions"]:
            limit = f" ({100 * r['p99_ms'] / args.decision_ms:.1f}% of the {args.decision_ms} ms " \
                    "limit)" if args.decision_ms else ""
            print(f"  strong's decision time over {r['decisions']:.0f} decisions: median "
                  f"{r['median_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms{limit}, "
                  f"max {r['max_ms']:.1f} ms")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
