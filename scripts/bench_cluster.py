#!/usr/bin/env python3
"""Tournaments on a Dask cluster against the local pool, measured side by side in one run (target:
Dask's per-task cost below 5% of the run).

A local cluster of 2 worker processes with 1 thread each (``distributed.LocalCluster``, the same
workers ``dask worker`` starts) against the local pool of 2 processes, on the same tournament:

1. local pool, 2 processes;
2. the cluster with batches as the arena sizes them (``arena.compete.cluster.batch_sizes``);
3. the cluster with one match per task (``MAX_BATCH = 1``): what batching saves.

Worker threads busy = the seconds the batches took on their workers over worker threads x wall time:
the rest is Dask's cost per task plus the workers' wait at the end of the run. Cluster overhead =
cluster time over local time - 1, everything included (connecting and checking
the workers, Dask, shipping records back, worker threads); also without the connection, a fixed
cost per run that larger tournaments spread thinner. Per-task cost = the round trip of an
empty batch task, one after another (pessimistic: in a run, the next task is already queued on the
worker); its share = tasks per run x that cost / (worker threads x the local run's time).
Interleaved rounds, medians (the machine is shared and noisy).
Usage: scripts/bench_cluster.py [--matches-per-pairing N] [--rounds R] [--bots a,b,c]
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import arena.compete.cluster as cluster  # noqa: E402
from arena import __version__  # noqa: E402
from arena.compete.schedule import round_robin  # noqa: E402
from arena.compete.tournament import load_config, resolve_bots, run_tournament  # noqa: E402

THREADS = 2


class BusyTime(logging.Handler):
    """Adds up the seconds each batch took on its worker, from arena.compete.cluster's log records."""

    def __init__(self) -> None:
        super().__init__()
        self.seconds = 0.0

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg.startswith("batch %d"):
            self.seconds += float(record.args[-1])  # type: ignore[index, arg-type]


def timed_run(config, folder: Path, address: str = "") -> float:  # noqa: ANN001
    cfg = load_config(None, {**config.to_dict(), "workers": THREADS, "output": str(folder),
                             "cluster": address})
    start = time.perf_counter()
    run_tournament(cfg)
    return time.perf_counter() - start


def task_round_trip_ms(client, bots, n: int = 50) -> float:  # noqa: ANN001
    """Milliseconds for an empty batch task (the workers' bot check included), one at a time."""
    client.submit(cluster.run_batch, [], bots, __version__, pure=False).result()  # warm up
    start = time.perf_counter()
    for _ in range(n):
        client.submit(cluster.run_batch, [], bots, __version__, pure=False).result()
    return (time.perf_counter() - start) / n * 1000


def connect_seconds(address: str, config) -> float:  # noqa: ANN001
    """A run's fixed cost on a cluster: connecting and checking every worker can run the bots."""
    start = time.perf_counter()
    cluster.Cluster.connect(address, list(zip(config.bots, resolve_bots(config)))).close()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches-per-pairing", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bots", default="greedy,c-counter,random")
    args = parser.parse_args()
    from distributed import Client, LocalCluster

    config = load_config(None, {"name": "bench", "bots": args.bots.split(","),
                                "matches_per_pairing": args.matches_per_pairing, "seed": 11})
    specs = resolve_bots(config)
    n = len(round_robin("bench", [s.name for s in specs], config.matches_per_pairing // 2))
    tasks = len(cluster.batch_sizes(n, THREADS))
    print(f"# python {sys.version.split()[0]}, {os.cpu_count()} cores; bots {args.bots}; {n} "
          f"matches per run ({tasks} tasks with arena's batches); {THREADS} local processes vs a "
          f"local Dask cluster of {THREADS} workers x 1 thread; {args.rounds} interleaved rounds, "
          "medians")
    rows: dict[str, list[float]] = {}

    def add(key: str, value: float) -> None:
        rows.setdefault(key, []).append(value)

    busy = BusyTime()
    cluster.log.addHandler(busy)
    cluster.log.setLevel(logging.INFO)
    with LocalCluster(n_workers=THREADS, threads_per_worker=1, processes=True,
                      dashboard_address=":0") as local_cluster, \
            Client(local_cluster, set_as_default=False) as client, \
            tempfile.TemporaryDirectory() as tmp:
        address = local_cluster.scheduler_address
        bots = [cluster.WorkerBot.of(text, spec) for text, spec in zip(config.bots, specs)]
        for r in range(args.rounds):
            base = Path(tmp) / str(r)
            t_local = timed_run(config, base / "local")
            busy.seconds = 0.0
            t_batched = timed_run(config, base / "batched", address)
            busy_batched = busy.seconds
            busy.seconds = 0.0
            default_cap = cluster.MAX_BATCH
            cluster.MAX_BATCH = 1
            try:
                t_single = timed_run(config, base / "single", address)
                busy_single = busy.seconds
            finally:
                cluster.MAX_BATCH = default_cap
            trip = task_round_trip_ms(client, bots)
            t_connect = connect_seconds(address, config)
            shutil.rmtree(base)
            add("local pool: matches/s", n / t_local)
            add("cluster, arena's batches: matches/s", n / t_batched)
            add("cluster, 1 match per task: matches/s", n / t_single)
            add("cluster overhead vs local, arena's batches (%)", 100 * (t_batched / t_local - 1))
            add("cluster overhead vs local, 1 match per task (%)", 100 * (t_single / t_local - 1))
            add("cluster overhead vs local, arena's batches, without connecting (%)",
                100 * ((t_batched - t_connect) / t_local - 1))
            add("connecting and checking the workers, once per run (s)", t_connect)
            add("worker threads busy in batches, arena's batches (%)",
                100 * busy_batched / (THREADS * t_batched))
            add("worker threads busy in batches, 1 match per task (%)",
                100 * busy_single / (THREADS * t_single))
            add("empty task round trip (ms)", trip)
            add("mean match time per worker thread (ms)", t_local * THREADS / n * 1000)
            add("per-task cost share of the run, arena's batches (%)",
                100 * tasks * trip / 1000 / (THREADS * t_local))
            add("per-task cost share of the run, 1 match per task (%)",
                100 * n * trip / 1000 / (THREADS * t_local))
    for key, values in rows.items():
        print(f"{key}: {statistics.median(values):.2f}  (rounds: "
              f"{', '.join(f'{v:.2f}' for v in values)})")


if __name__ == "__main__":
    main()
