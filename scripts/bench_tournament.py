#!/usr/bin/env python3
"""Tournament throughput, measured side by side in one run (targets: speed-up >= 1.8 on 2 cores;
scheduler overhead below 5% of the bare referee's time for the same matches).

1. The bare referee: the schedule's matches played one after another with ``run_match`` in this
   process, writing the same records, without pool, store or progress.
2. The same tournament through ``run_tournament`` with 1 worker, then with 2 workers.

Overhead per match = (1-worker tournament time - bare time) / matches; speed-up = 2-worker matches/s
over 1-worker matches/s. Interleaved rounds, medians (these machines are shared and noisy). The CPU
time of each run (this process and every process it waited for: workers, referees, bots) is printed
too: the CPU overhead does not depend on what else the machine is doing, the wall-clock one does;
and the coordinator's own CPU, the scheduler's cost measured within one run. "Cores busy" says how
much of the machine each run used: a match is three processes, so one worker uses more than one
core, which bounds what a second worker can add on 2 cores.
By default the tournament is the demo's (the bundled bots, the strong one at a 25 ms budget); bots
that think little, like ``--bots greedy,c-counter,random``, spend most of a match starting up,
and both bots of a match start at once: one worker then keeps ~1.2 cores busy, which caps the
speed-up near 1.7 on 2 cores whatever the scheduler does (the "cores busy" lines show it).
Usage: scripts/bench_tournament.py [--matches-per-pairing N] [--rounds R] [--bots a,b,c]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.bot_process import Limits  # noqa: E402
from arena.cli import DEMO_BOTS  # noqa: E402
from arena.deal_keys import deal_secret, key_from_seed  # noqa: E402
from arena.referee import MatchConfig, run_match  # noqa: E402
from arena.schedule import round_robin  # noqa: E402
from arena.tournament import load_config, resolve_bots, rules_of, run_tournament  # noqa: E402


def cpu_seconds() -> float:
    """CPU used so far by this process and by every child process it has waited for."""
    return own_cpu_seconds() + _cpu(resource.getrusage(resource.RUSAGE_CHILDREN))


def own_cpu_seconds() -> float:
    """CPU used so far by this process alone: in a tournament, the coordinator (pool, store)."""
    return _cpu(resource.getrusage(resource.RUSAGE_SELF))


def _cpu(usage: resource.struct_rusage) -> float:
    return usage.ru_utime + usage.ru_stime


def bare(config, folder: Path) -> float:  # noqa: ANN001
    """Seconds to play the schedule's matches one by one through the referee alone."""
    rules = rules_of(config)
    specs = {s.name: s for s in resolve_bots(config)}
    schedule = round_robin(config.name, list(specs), config.matches_per_pairing // 2)
    key = key_from_seed(config.seed)  # the same deals as the tournaments it is compared with
    limits = Limits(decision_ms=config.decision_ms, startup_ms=config.startup_ms)
    start = time.perf_counter()
    for m in schedule:
        run_match((specs[m.seat0], specs[m.seat1]),
                  MatchConfig(rules=rules, seed=deal_secret(key, m.deal_set), first_dealer=m.first_dealer,
                              match_id=m.match_id, limits=limits, max_deals=config.max_deals),
                  record_path=folder / "records" / f"{m.match_id}.jsonl", log_dir=folder / "logs")
    return time.perf_counter() - start


def tournament(config, folder: Path, workers: int) -> float:  # noqa: ANN001
    cfg = load_config(None, {**config.to_dict(), "workers": workers, "output": str(folder)})
    start = time.perf_counter()
    run_tournament(cfg)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches-per-pairing", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--bots", default=",".join(DEMO_BOTS),
                        help="comma-separated (default: the demo's bots)")
    args = parser.parse_args()
    config = load_config(None, {"name": "bench", "bots": args.bots.split(","),
                                "matches_per_pairing": args.matches_per_pairing, "seed": 11})
    n = len(round_robin("bench", [b.name for b in resolve_bots(config)],
                        config.matches_per_pairing // 2))
    print(f"# python {sys.version.split()[0]}, {os.cpu_count()} cores; bots {args.bots}; {n} matches "
          f"per run; {args.rounds} interleaved rounds, medians")
    rows: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            base = Path(tmp) / str(r)
            c0 = cpu_seconds()
            t_bare = bare(config, base / "bare")
            c1, own1 = cpu_seconds(), own_cpu_seconds()
            t1 = tournament(config, base / "w1", 1)
            c2, own2 = cpu_seconds(), own_cpu_seconds()
            t2 = tournament(config, base / "w2", 2)
            c3 = cpu_seconds()
            shutil.rmtree(base)
            rows.setdefault("bare referee: matches/s", []).append(n / t_bare)
            rows.setdefault("tournament, 1 worker: matches/s", []).append(n / t1)
            rows.setdefault("tournament, 2 workers: matches/s", []).append(n / t2)
            rows.setdefault("speed-up (2 workers / 1 worker)", []).append(t1 / t2)
            rows.setdefault("scheduler overhead per match (ms)", []).append((t1 - t_bare) / n * 1000)
            rows.setdefault("scheduler overhead, % of bare referee time", []).append(
                100 * (t1 - t_bare) / t_bare)
            rows.setdefault("CPU per match, bare referee (ms)", []).append((c1 - c0) / n * 1000)
            rows.setdefault("CPU per match, tournament 1 worker (ms)", []).append((c2 - c1) / n * 1000)
            # The coordinator's own work (pool, result transfer, store, ratings of the progress
            # line) runs beside the worker: its CPU is the scheduler's cost, free of the noise
            # that two separately timed runs carry on a shared machine.
            rows.setdefault("coordinator CPU per match (ms)", []).append((own2 - own1) / n * 1000)
            rows.setdefault("coordinator CPU, % of bare referee time", []).append(
                100 * (own2 - own1) / t_bare)
            rows.setdefault("CPU per match, tournament 2 workers (ms)", []).append(
                (c3 - c2) / n * 1000)
            rows.setdefault("scheduler CPU overhead, % of bare referee CPU", []).append(
                100 * ((c2 - c1) - (c1 - c0)) / (c1 - c0))
            # A match is three processes (referee, two bots) and both bots start at the same time,
            # so one worker keeps more than one core busy; what the second worker can add is
            # bounded by what the first leaves idle.
            rows.setdefault("cores busy (CPU time / wall time), 1 worker", []).append(
                (c2 - c1) / t1)
            rows.setdefault("cores busy (CPU time / wall time), 2 workers", []).append(
                (c3 - c2) / t2)
    for key, values in rows.items():
        print(f"{key}: {statistics.median(values):.2f}  (rounds: "
              f"{', '.join(f'{v:.2f}' for v in values)})")


if __name__ == "__main__":
    main()
