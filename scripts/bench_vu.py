#!/usr/bin/env python3
"""Does the strong bot beat the VU Amsterdam ``schnapsen`` package's best bot (issue 35)?

The package's bots (``RdeepBot(samples, depth)``, by default 64 and 8, with its ``AlphaBetaBot``
once the stock is empty) play through ``bots/vu_adapter``: a bot process that asks the package's
own engine for every move and checks, at every step, that the package and the referee agree (the
same legal moves, trick winners and deal results; the profile is ``vu_compat``, RULES.md §13).
The package lives in its own venv, ``.venv-vu``, made on first use from ``requirements-vu.txt``
(``--no-deps``: see that file).

Two measurements, every match a real one (bot processes in the sandbox, the referee):

- **one-deal duplicate pairs** (``vu_compat`` as it is: one deal is the match): the same deal twice,
  the seats swapped. Game points of each side, the strong bot's net game points per deal with a 95%
  interval (the pair as the unit: ``arena.results.stats.clustered_mean``), its share of the deals
  won, and how its deals were won and lost (game points 1, 2, 3; by reaching 66 with the stock
  open, after it ran out, or by the last trick);
- **matches to 7** (``vu_compat`` with ``match_target = 7``), also in duplicate pairs: the strong
  bot's match score with the interval of ``stats.score_interval`` (pairs as units).

Targets (issue 35): net game points above 0 with the whole interval above 0, over at least 400
pairs; at least 80% of the matches to 7. The strong bot samples a fixed number of worlds per
decision (``--worlds``, default 200: about what its default budget, 28% of a 1000 ms limit, buys on
an idle core here, measured in CPU time), with a limit per decision far above what either bot
needs, so the result does not depend on the machine's load; ``--budget-ms`` instead gives it a time
budget (then it does). The package's bots are never limited by time: they do a fixed amount of work.

To tell one version of the strong bot from another (a change's worth, step by step), run this
script from each version's tree (``git worktree add``) on the same seed with ``--records FILE``:
one JSON line per match, written as the match ends (each of its deals' results too).
``scripts/compare_vu.py OLD NEW`` then sets the two runs side by side, pair by pair: both meet the
same cards and the package's bot the same random numbers, so the pair is the unit of the
difference. ``--first K`` starts at pair K, to split a long run into parts played side by side.

Exit status: 0 when every match ended without a fault and the adapter never disagreed with the
referee, 1 otherwise (the figures are then not to be trusted), 2 for bad arguments or no package.

Usage: scripts/bench_vu.py [--pairs N] [--matches M] [--samples S] [--depth D]
                           [--phase2 alphabeta|same] [--worlds W | --budget-ms MS] [--seed S]
                           [--first K] [--records FILE] [--workers W] [--decision-ms MS]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import IO

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _pairs import Played, duplicate, every, load, play_all  # noqa: E402

from arena.entrants.bot_specs import resolve_bot  # noqa: E402
from arena.game import load_rules  # noqa: E402
from arena.results.stats import clustered_mean, pentanomial, score_interval  # noqa: E402
from arena.types import BotSpec  # noqa: E402
from bots.vu_adapter.bot import Choice  # noqa: E402
from bots.vu_adapter.environment import VuUnavailable, adapter_command, vu_site  # noqa: E402

STRONG = "strong"
TARGET_PAIRS = 400
TARGET_MATCH_SHARE = 0.80
CHECKED = re.compile(r"vu_adapter: checked (\d+) decisions, (\d+) tricks, (\d+) deal results")
DISAGREED = "vu_adapter: disagreement:"


def strong_spec(worlds: int, budget_ms: int | None, decision_ms: int) -> BotSpec:
    if budget_ms is not None:
        return resolve_bot(f"strong --budget-ms {budget_ms}", name=STRONG)
    # A budget far above what the world count needs: the count binds, not the clock.
    return resolve_bot(f"strong --worlds {worlds} --budget-ms {decision_ms // 2}", name=STRONG)


def vu_spec(site: Path, choice: Choice) -> BotSpec:
    options = ["--bot", choice.kind, "--samples", str(choice.samples), "--depth",
               str(choice.depth), "--phase2", choice.phase2]
    return BotSpec(choice.name(), tuple(adapter_command(site, *options)))


def record(played: Played, vu_name: str) -> dict[str, object]:
    """One match as a line of ``--records``: what ``compare_vu.py`` needs to set two runs of the
    same deals side by side (the pair and seating name the deal; the rest is the strong bot's)."""
    result = played.result
    seat = played.seat_of(STRONG)
    vu_seat = played.seat_of(vu_name)
    first = result.deals[0].settlement if result.deals else None
    return {
        "pair": played.game.pair, "seating": played.game.seating,
        "kind": "match" if "/match/" in played.game.pair else "deal",
        "won": result.winner == seat, "drawn": result.winner is None,
        "game_points": [result.game_points[seat], result.game_points[1 - seat]],
        "first_deal_won": None if first is None else first.winner == seat,
        "deals": len(result.deals),
        # Each deal as the strong bot saw it: won (None for a draw) and the game points the scorer
        # got (the pot included). Deal n of a pair's two matches has the same cards in any run, so
        # these let a match's deals be set beside one-deal results on the same cards.
        "deal_results": [[None if d.settlement.winner is None else d.settlement.winner == seat,
                          d.awarded] for d in result.deals],
        "fault": None if result.fault is None else f"{result.fault}: {result.detail}",
        "wrong_claims": result.seats[seat].wrong_claims,
        "disagreements": sum(line.startswith(DISAGREED)
                             for line in played.stderr[vu_seat].splitlines()),
        "decision_ms": list(result.seats[seat].decision_ms),
        "strong": " ".join(played.game.bots[seat].argv),  # which tree, which options
    }


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else math.nan


class Audit:
    """Faults and the adapter's agreement checks over every match."""

    def __init__(self) -> None:
        self.faults: list[str] = []
        self.disagreements: list[str] = []
        self.checked = [0, 0, 0]
        self.times: dict[str, list[float]] = {}
        self.wrong_claims = 0

    def add(self, played: Played, vu_name: str) -> None:
        result = played.result
        if result.fault is not None:
            offender = played.game.bots[result.offender].name if result.offender is not None else "?"
            # The bot's own last word says why (the adapter: a package it cannot import, say).
            said = played.stderr[result.offender].strip().splitlines()[-1:] \
                if result.offender is not None else []
            self.faults.append(f"{result.match_id}: {result.fault} by {offender}: {result.detail}"
                               + (f"; its stderr ends: {said[0][:200]}" if said else ""))
        for seat, spec in enumerate(played.game.bots):
            self.times.setdefault(spec.name, []).extend(result.seats[seat].decision_ms)
            self.wrong_claims += result.seats[seat].wrong_claims if spec.name == STRONG else 0
            if spec.name != vu_name:
                continue
            for line in played.stderr[seat].splitlines():
                if line.startswith(DISAGREED):
                    self.disagreements.append(f"{result.match_id}: {line}")
                found = CHECKED.match(line)
                if found:
                    self.checked = [a + int(b) for a, b in zip(self.checked, found.groups())]

    def report(self) -> bool:
        decisions, tricks, deals = self.checked
        print(f"agreement: the adapter checked {decisions} decisions, {tricks} tricks and {deals} "
              f"deal results against the package's engine; disagreements {len(self.disagreements)}"
              f"; faults {len(self.faults)}")
        for line in self.disagreements + self.faults:
            print(f"  {line}")
        for name, times in self.times.items():
            print(f"decision time of {name} over {len(times)} decisions: median "
                  f"{statistics.median(times) if times else math.nan:.0f} ms, p99 "
                  f"{percentile(times, 0.99):.0f} ms, max {max(times, default=math.nan):.0f} ms")
        print(f"wrong claims by strong: {self.wrong_claims} (target 0; vu_compat claims for it)")
        return not self.faults and not self.disagreements


def one_deal_pairs(plays: list[Played], vu_name: str) -> None:
    net, won, pairs = [], [], []
    points = Counter[str]()
    kinds = Counter[tuple[str, str, int]]()
    for played in plays:
        seat = played.seat_of(STRONG)
        if played.result.fault is not None or not played.result.deals:
            continue
        settlement = played.result.deals[0].settlement
        mine, theirs = played.result.game_points[seat], played.result.game_points[1 - seat]
        points[STRONG] += mine
        points[vu_name] += theirs
        net.append(mine - theirs)
        won.append(float(settlement.winner == seat))
        pairs.append(played.game.pair)
        final = played.result.deals[0].final
        stock_open = final is not None and final.phase == 1
        how = ("66, stock open" if stock_open else "66, stock out") \
            if settlement.reason.value == "claim" else "last trick"
        kinds[("won" if settlement.winner == seat else "lost", how, settlement.game_points)] += 1
    n_pairs = len(set(pairs))
    interval, _ = clustered_mean(net, pairs, lower=-3.0, upper=3.0)
    share, _ = clustered_mean(won, pairs)
    if interval.high < 0:
        verdict = "NOT MET (below 0)"
    elif interval.low <= 0:
        verdict = "not decided (the interval holds 0)"
    else:
        verdict = "MET" if n_pairs >= TARGET_PAIRS else f"above 0, on fewer than {TARGET_PAIRS} pairs"
    print(f"one-deal duplicate pairs: {n_pairs} ({len(net)} deals)")
    print(f"  game points: strong {points[STRONG]}, {vu_name} {points[vu_name]}; strong's net "
          f"per deal {interval.estimate:+.3f} (95% CI {interval.low:+.3f} to {interval.high:+.3f})"
          f"   target: CI above 0 over >= {TARGET_PAIRS} pairs: {verdict}")
    print(f"  deals won by strong: {share.estimate:.1%} (95% CI {share.low:.1%} - {share.high:.1%})")
    print("  strong's deals by outcome, how they ended and game points:")
    for result in ("won", "lost"):
        for how in ("66, stock open", "66, stock out", "last trick"):
            counts = [kinds[(result, how, gp)] for gp in (1, 2, 3)]
            if any(counts):
                print(f"    {result:4s} {how:15s}  1 GP: {counts[0]:3d}   2 GP: {counts[1]:3d}"
                      f"   3 GP: {counts[2]:3d}")


def matches_to_7(plays: list[Played], vu_name: str) -> None:
    by_pair: dict[str, float] = {}
    points = Counter[str]()
    for played in plays:
        seat = played.seat_of(STRONG)
        result = played.result
        by_pair[played.game.pair] = by_pair.get(played.game.pair, 0.0) + \
            (1.0 if result.winner == seat else 0.5 if result.winner is None else 0.0)
        points[STRONG] += result.game_points[seat]
        points[vu_name] += result.game_points[1 - seat]
    penta = pentanomial(by_pair.values())
    s = score_interval(penta)
    verdict = "MET" if s.low >= TARGET_MATCH_SHARE else \
        "NOT MET" if s.high < TARGET_MATCH_SHARE else "not decided at this size"
    wins = round(penta.points)
    print(f"matches to 7: {penta.matches} ({penta.pairs} duplicate pairs): strong won {wins} = "
          f"{s.estimate:.1%} (95% CI {s.low:.1%} - {s.high:.1%})   target >= "
          f"{TARGET_MATCH_SHARE:.0%}: {verdict}")
    print(f"  game points: strong {points[STRONG]}, {vu_name} {points[vu_name]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=40, help="one-deal duplicate pairs (default "
                        "%(default)s; the target needs 400)")
    parser.add_argument("--matches", type=int, default=20, help="matches to 7, even (default "
                        "%(default)s)")
    parser.add_argument("--bot", choices=["rdeep", "rand", "bully"], default="rdeep",
                        help="the package's bot (default %(default)s)")
    parser.add_argument("--samples", type=int, default=64)
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--phase2", choices=["alphabeta", "same"], default="alphabeta")
    parser.add_argument("--worlds", type=int, default=200, help="the strong bot's worlds per "
                        "decision (default %(default)s)")
    parser.add_argument("--budget-ms", type=int, default=None, help="a time budget per decision "
                        "for the strong bot instead of --worlds")
    parser.add_argument("--seed", default="1", help="which deals: any label (default "
                        "%(default)s)")
    parser.add_argument("--first", type=int, default=0, help="the first pair's number (default "
                        "%(default)s): --first 75 --pairs 75 plays pairs 75 to 149")
    parser.add_argument("--records", type=Path, default=None, help="write one JSON line per "
                        "match to this new file, for scripts/compare_vu.py")
    parser.add_argument("--workers", type=int, default=2, help="matches at once (default "
                        "%(default)s)")
    parser.add_argument("--decision-ms", type=int, default=30_000, help="the referee's limit per "
                        "decision, a safety net far above what the bots need (default %(default)s)")
    args = parser.parse_args()
    if args.pairs < 0 or args.matches < 0 or args.matches % 2 or args.pairs + args.matches == 0:
        parser.error("--pairs >= 0 and an even --matches >= 0, not both 0")
    if args.first < 0:
        parser.error("--first must be 0 or more")
    if min(args.samples, args.depth, args.worlds, args.workers) < 1 or \
            (args.budget_ms is not None and args.budget_ms < 1):
        parser.error("--samples, --depth, --worlds, --workers and --budget-ms must be positive")
    try:
        site = vu_site(make=True)
    except VuUnavailable as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    assert site is not None
    choice = Choice(args.bot, args.samples, args.depth, args.phase2)
    vu, strong = vu_spec(site, choice), strong_spec(args.worlds, args.budget_ms, args.decision_ms)
    one_deal = load_rules("vu_compat")
    to_seven = load_rules("vu_compat", overrides={"match_target": 7})
    games = [g for k in range(args.first, args.first + args.pairs)
             for g in duplicate(f"bench-vu/{args.seed}/deal/{k}", strong, vu, one_deal)]
    games += [g for k in range(args.first, args.first + args.matches // 2)
              for g in duplicate(f"bench-vu/{args.seed}/match/{k}", strong, vu, to_seven)]
    records: IO[str] | None = None
    if args.records is not None:
        try:  # a new file only: two runs in one file could not be told apart
            records = open(args.records, "x", encoding="utf-8")
        except OSError as err:
            print(f"error: cannot make the records file {args.records}: {err.strerror}",
                  file=sys.stderr)
            return 2
    how = f"--budget-ms {args.budget_ms}" if args.budget_ms else f"--worlds {args.worlds}"
    print(f"# strong ({how}) vs {vu.name}, vu_compat; {args.pairs} one-deal pairs, "
          f"{args.matches} matches to 7; seed {args.seed}, from pair {args.first}; {args.workers} "
          f"matches at once; limit {args.decision_ms} ms per decision; load {load()} at the start, "
          f"{os.cpu_count()} cores")
    started = time.monotonic()

    def write(played: Played) -> None:
        if records is not None:
            records.write(json.dumps(record(played, vu.name)) + "\n")
            records.flush()

    try:
        plays = play_all(games, args.workers, args.decision_ms, every(10), write)
    finally:
        if records is not None:
            records.close()
    print(f"# {time.monotonic() - started:.0f} s; load {load()} at the end")
    audit = Audit()
    for played in plays:
        audit.add(played, vu.name)
    deal_plays = [p for p in plays if "/deal/" in p.game.pair]
    match_plays = [p for p in plays if "/match/" in p.game.pair]
    if deal_plays:
        one_deal_pairs(deal_plays, vu.name)
    if match_plays:
        matches_to_7(match_plays, vu.name)
    return 0 if audit.report() else 1


if __name__ == "__main__":
    sys.exit(main())
