#!/usr/bin/env python3
"""How strong the strong bot is: a seeded tournament among bundled bots, then its figures.

Targets (issue 7), at the default limit of 1000 ms per decision: match win rate >= 75% against
greedy and >= 98% against random, zero wrong claims, 99th-percentile decision time below half the
limit. Printed for the strong bot:

- match win rate against each other bot, with a 95% Wilson confidence interval;
- the share of its won deals that it won by closing the stock;
- wrong claims (and windows at 66 let pass, which the referee also counts);
- median, 99th percentile and maximum decision time, as the referee measured them (from writing
  the request to reading the answer), over every decision of every match.

The tournament is a real one (``arena.compete.tournament``: bot processes, referee, SQLite store, records),
in a temporary folder unless ``--keep DIR``. Matches come in duplicate pairs (same deals, seats
swapped). The machine is shared and noisy: decision times include waiting for a core, and a busy
machine leaves the bot fewer worlds per decision (it stops at its time budget), so both the times
and the strength figures are pessimistic there.

Usage: scripts/bench_bots.py [--matches N] [--bots strong,greedy,random] [--decision-ms MS]
                             [--profile P] [--seed S] [--workers W] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.compete.tournament import DB_NAME, Progress, load_config, run_tournament  # noqa: E402

STRONG = "strong"
TARGETS = {"greedy": 0.75, "random": 0.98}


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a proportion (good near 0% and 100%, unlike p +- 2 s.e.)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile, as the referee's own per-match figure."""
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def report(folder: Path, decision_ms: int) -> None:
    db = sqlite3.connect(folder / DB_NAME)
    matches = db.execute("SELECT match_id, seat0, seat1, winner, reason, fault, offender, record "
                         "FROM matches").fetchall()
    against: dict[str, list[int]] = {}
    faults = []
    times: list[float] = []
    won_deals = closed_deals = 0
    for match_id, seat0, seat1, winner, reason, fault, offender, record in matches:
        if STRONG not in (seat0, seat1):
            continue
        seat = 0 if seat0 == STRONG else 1
        other = seat1 if seat == 0 else seat0
        tally = against.setdefault(other, [0, 0])
        tally[0] += winner == seat
        tally[1] += 1
        if reason == "forfeit":
            faults.append(f"{match_id}: {fault} by {'strong' if offender == seat else other}")
        for deal_winner, closer in db.execute(
                "SELECT winner, closer FROM deals WHERE match_id = ?", (match_id,)):
            if deal_winner == seat:
                won_deals += 1
                closed_deals += closer == seat
        with open(folder / record, encoding="utf-8") as fh:
            for line in fh:
                item = json.loads(line)
                if item.get("type") == "action" and item.get("seat") == seat:
                    times.append(float(item["ms"]))
    wrong, missed = db.execute(
        "SELECT COALESCE(SUM(wrong_claims), 0), COALESCE(SUM(missed_claims), 0) FROM seats "
        "WHERE bot = ?", (STRONG,)).fetchone()
    for other, (wins, n) in sorted(against.items()):
        lo, hi = wilson(wins, n)
        target = TARGETS.get(other)
        goal = f"   target >= {target:.0%}" if target is not None else ""
        print(f"strong vs {other:12s} won {wins:4d}/{n:<4d} matches = {wins / n:6.1%}  "
              f"(95% CI {lo:.1%} - {hi:.1%}){goal}")
    share = closed_deals / won_deals if won_deals else 0.0
    print(f"deals won by strong: {won_deals}, by closing the stock: {closed_deals} ({share:.1%})")
    print(f"wrong claims: {wrong} (target 0); windows at 66 let pass: {missed}")
    print(f"faults (forfeits): {len(faults)}" + ("".join(f"\n  {f}" for f in faults)))
    if times:
        times.sort()
        print(f"decision time over {len(times)} decisions: median {statistics.median(times):.1f} ms,"
              f" p99 {percentile(times, 0.99):.1f} ms, max {times[-1]:.1f} ms "
              f"(target p99 < {decision_ms // 2} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100, help="matches per pairing (even)")
    parser.add_argument("--bots", default="strong,greedy,random")
    parser.add_argument("--decision-ms", type=int, default=1000)
    parser.add_argument("--profile", default="sixty_six")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--keep", type=Path, default=None, help="keep the tournament in this folder")
    args = parser.parse_args()
    bots = args.bots.split(",")
    if STRONG not in bots:
        parser.error("--bots must include strong")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# python {sys.version.split()[0]}, {os.cpu_count()} cores (load {load:.1f} at start), "
          f"{args.workers} workers; profile {args.profile}; bots {', '.join(bots)}; "
          f"{args.matches} matches per pairing; seed {args.seed}; limit {args.decision_ms} ms")
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp) / "bench"
        config = load_config(None, {"name": "bench-bots", "bots": bots, "profile": args.profile,
                                    "matches_per_pairing": args.matches, "seed": args.seed,
                                    "workers": args.workers, "decision_ms": args.decision_ms,
                                    "output": str(folder)})
        start = time.monotonic()

        def progress(p: Progress) -> None:
            if p.done and (p.done % 20 == 0 or p.done == p.total):
                print(f"  {p.done}/{p.total} matches, {time.monotonic() - start:.0f} s",
                      file=sys.stderr, flush=True)

        run_tournament(config, on_progress=progress)
        print(f"# {time.monotonic() - start:.0f} s for the tournament")
        report(folder, args.decision_ms)


if __name__ == "__main__":
    main()
