#!/usr/bin/env python3
"""What a large tournament costs its coordinator: CPU share of one core and memory, as it goes.

Targets (issue 18): with 30 bots and 10,000 matches the coordinator uses < 3% of one core, and its
memory stays flat (no per-match growth beyond the store).

What is real: everything. ``run_tournament`` itself (pre-flight, lock, the real SQLite store, the
matches of a quarter of a second in one transaction), the real pool of spawned worker processes
(each reporting a quarter of a second of matches at a time), the real referee and real bot
processes in the usual sandbox, records and stderr logs written as in any tournament, and the
progress line's work: each stored match updates the live leader (``arena/compete/live_leader.py``) as the
CLI's progress bar does. The 30 bots are the two C bots (``c-counter`` and ``first-legal-c``, 15
copies each under their own names): the cheapest real matches, so the most results per second for
the coordinator to absorb; slower bots only lower its share.

Measured, between checkpoints (at 1k, 5k and 10k matches by default, and every tenth of the run):
the coordinator's CPU time (this process alone, ``RUSAGE_SELF``: its workers and bots are other
processes) over the wall time, and its resident memory (``VmRSS``; ``VmHWM`` is the peak).
A full 10,000-match run takes several minutes on 2 cores; ``--matches 2000`` is a quick look.

Usage: scripts/bench_coordinator.py [--matches N] [--workers W] [--checkpoints 1000,5000,10000]
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.compete.live_leader import LiveLeader  # noqa: E402
from arena.compete.tournament import Progress, load_config, run_tournament  # noqa: E402

BOTS = 30
CPU_TARGET_PCT = 3.0


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def memory_kib() -> tuple[int, int]:
    """(resident now, resident peak) of this process, in KiB."""
    fields = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0])
    return fields.get("VmRSS", 0), fields.get("VmHWM", 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10_000, help="about this many (a round "
                        "robin of 30 bots plays whole duplicate pairs: 870 matches per pair)")
    parser.add_argument("--workers", type=int, default=0, help="default: all cores")
    parser.add_argument("--checkpoints", default="1000,5000,10000",
                        help="match counts at which to print (also every tenth of the run)")
    args = parser.parse_args()
    pairings = BOTS * (BOTS - 1) // 2
    per_pairing = 2 * max(1, math.ceil(args.matches / (2 * pairings)))
    total = per_pairing * pairings
    bots = ["c-counter", "first-legal-c"] * (BOTS // 2)
    checkpoints = {int(c) for c in args.checkpoints.split(",") if c.strip()}
    checkpoints |= {total * k // 10 for k in range(1, 11)}
    print(f"# python {sys.version.split()[0]}, {os.cpu_count()} cores; {BOTS} bots (C), "
          f"{total} matches ({per_pairing} per pairing), workers {args.workers or 'all cores'}")
    print(f"# targets: coordinator < {CPU_TARGET_PCT:g}% of one core; memory flat")
    print(f"{'matches':>8} {'matches/s':>10} {'coord CPU %':>12} {'CPU ms/match':>13} "
          f"{'RSS MiB':>8} {'peak MiB':>9}")
    with tempfile.TemporaryDirectory(prefix="bench-coordinator-") as tmp:
        out = Path(tmp) / "t"
        config = load_config(None, {"name": "coord", "bots": bots, "workers": args.workers,
                                    "matches_per_pairing": per_pairing, "seed": 1,
                                    "output": str(out)})
        live: list[LiveLeader] = []
        mark: list[float] = []  # wall, cpu, done at the last checkpoint
        first: list[float] = []
        rows: list[tuple[int, float, float]] = []

        def on_progress(p: Progress) -> None:
            if not live:  # the CLI's progress line reads the store once, at the start
                live.append(LiveLeader.of_store(out / "results.sqlite"))
                mark[:] = [time.monotonic(), own_cpu(), p.done]
                first[:] = mark
                return
            if p.last is not None and p.last_entry is not None:
                live[0].add(p.last_entry, p.last)
                live[0].leader()
            if p.done not in checkpoints:
                return
            wall, cpu = time.monotonic(), own_cpu()
            d_wall, d_cpu, d_done = wall - mark[0], cpu - mark[1], p.done - mark[2]
            rss, peak = memory_kib()
            share = 100 * d_cpu / d_wall if d_wall > 0 else 0.0
            print(f"{p.done:>8} {d_done / d_wall:>10.1f} {share:>12.2f} "
                  f"{1000 * d_cpu / max(d_done, 1):>13.3f} {rss / 1024:>8.1f} {peak / 1024:>9.1f}",
                  flush=True)
            rows.append((p.done, share, rss / 1024))
            mark[:] = [wall, cpu, p.done]

        run_tournament(config, on_progress=on_progress)
        wall, cpu = time.monotonic() - first[0], own_cpu() - first[1]
        share = 100 * cpu / wall
        rss = [r[2] for r in rows]
        growth = rss[-1] - rss[0] if rss else 0.0
        print(f"coordinator CPU, whole run: {share:.2f}% of one core (target < {CPU_TARGET_PCT:g}%), "
              f"{1000 * cpu / total:.3f} ms per match, {total / wall:.1f} matches/s: "
              f"{'met' if share < CPU_TARGET_PCT else 'NOT met'}")
        print(f"coordinator memory: {rss[0] if rss else 0:.1f} MiB at the first checkpoint, "
              f"{rss[-1] if rss else 0:.1f} MiB at the end ({growth:+.1f} MiB; target: flat)")
        db = out / "results.sqlite"
        print(f"store: {db.stat().st_size / 2**20:.1f} MiB for {total} matches; leader "
              f"{live[0].leader() if live else '?'}")


if __name__ == "__main__":
    main()
