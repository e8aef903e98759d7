#!/usr/bin/env python3
"""A standing league at scale (issue 30, point 7): 200 bots and 100,000 stored matches.

Targets: choosing a pair <= 5 ms; the coordinator's memory flat over a long run; ``arena league
status DIR`` <= 1 s. Also measured, without a target: the league's start-up on that store
(``Ladder.from_store`` replays every stored match through TrueSkill).

What is real: the league's folder (league.toml, results.sqlite with its deal key and its tables
``league_bots`` and ``league_pairs``, filled through the ``Store`` API by
``tests/arena/synthetic_store.fill_league``: pairings at random, made-up results), its 200 bots
(copies of the bundled C bot ``first-legal-c`` under names of their own, each started once by the
league's check as it joins), ``run_league`` itself with its lock, log, membership reads, its
``_Runner``, ``Ladder`` and window, the store written match by match, and ``arena league status``
run as a user runs it (a process of its own). What is not: the matches and the pool. Each match
is ``synthetic_store.play_synthetic``'s made-up result, played in this process where the pool
would hand it to a worker (``InProcessPool``), so that the coordinator does as many pairs as it
can and its own costs are what is measured.

1. **Status**: the wall time of ``arena league status DIR`` on the filled folder, before the
   league has kept its ratings (recomputed, no target) and after the run below (the target).
2. **A run** of ``--pairs`` further pairs on it (no publishing):
   - *start-up*: ``Ladder.from_store``'s time, and the time from ``run_league``'s call to its
     first pair (the 200 bots join meanwhile);
   - *choosing a pair*: every call of ``matchmaking.next_pair`` as the runner makes it (its
     ``Ladder``'s standings, its window of 39,799 pairs, the pairs in flight), and every
     ``_Runner._new_pairs`` (the whole choice: standings, ``next_pair``, the pair written down),
     median and p99, over the first half of the run;
   - *memory*: the coordinator's resident memory (``VmRSS``) after its first pair and every tenth
     of the run; over the second half also ``tracemalloc`` (started at half way: it slows every
     allocation, so the times above are taken before), with the lines whose memory grew most.

Filling the store takes a minute or two; ``--folder DIR`` keeps it (``DIR/base``) for the next
run, which copies it and plays on the copy. A full run takes five minutes or more on two cores
(status and the start-up each replay every match through TrueSkill); ``--matches 20000 --pairs
500`` is a quick look.

Usage: scripts/bench_league_scale.py [--bots 200] [--matches 100000] [--pairs 2000]
                                     [--folder DIR]
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# synthetic_store (tests/arena): the synthetic league and its matches.
sys.path.insert(0, str(ROOT / "tests" / "arena"))

import arena.compete.league as league  # noqa: E402
import arena.compete.league_config as league_config  # noqa: E402
import synthetic_store  # noqa: E402
from arena.compete.league import LeagueProgress, run_league  # noqa: E402
from arena.results.store import DB_NAME  # noqa: E402

CHOOSE_TARGET_MS = 5.0
STATUS_TARGET_S = 1.0
STATUS_TIMEOUT_S = 60.0  # past this, the figure is '> 60 s' (the run's minutes go elsewhere)
# Flat: what the Python heap gains over the second half of the run (tracemalloc), per 1,000 pairs.
# The window, the ratings and the pool's bookkeeping are the same size at the end as at half way;
# a set of every stored match id gained some 200 KiB per 1,000 pairs. What differs between two
# moments (the match just stored, the pair just chosen) is a few tens of KiB whatever the length.
FLAT_KIB_PER_1000 = 16.0


class InProcessPool:
    """The pool's place in ``run_league``, its jobs played here, each as the league's source gives
    it: the coordinator never waits on a worker, so what a pair costs it is all that is timed
    (on a loaded machine, waking a worker for each match of a millisecond made the run wait).
    The real pool's bookkeeping is bounded by its jobs in flight; ``bench_coordinator.py``
    measures it."""

    def __init__(self, play: Callable[[Any], Any], workers: int, **options: Any) -> None:
        self.play = play

    def __enter__(self) -> InProcessPool:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def run(self, jobs: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
        for job in jobs:
            yield job, self.play(job)

    def close(self, graceful: bool = True) -> None:
        pass


def rss_mib() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def timed(owner: Any, name: str, seconds: list[float], when: Callable[[], bool],
          cpu: list[float] | None = None) -> None:
    """Replace ``owner.name`` by a wrapper that appends each call's duration to ``seconds``, and
    the CPU time this thread spent in it to ``cpu`` (while ``when()``): the league's own
    functions, timed where the league calls them. On a shared machine a call's wall time also
    counts the moments other processes had the core; its CPU time is the call's own cost."""
    original = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start, start_cpu = time.perf_counter(), time.thread_time()
        try:
            return original(*args, **kwargs)
        finally:
            if when():
                seconds.append(time.perf_counter() - start)
                if cpu is not None:
                    cpu.append(time.thread_time() - start_cpu)

    setattr(owner, name, wrapper)


def quantiles_ms(seconds: list[float]) -> tuple[float, float]:
    ordered = sorted(seconds)
    return (1000 * statistics.median(ordered),
            1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))])


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def build(base: Path, bots: int, matches: int) -> None:
    """The synthetic league in ``base/league``, its bots in ``base/bots``, unless already there."""
    done = base / "league" / ".complete"
    if done.is_file() and done.read_text() == f"{bots} {matches}":
        print(f"# the league in {base} is reused ({bots} bots, {matches} matches)")
        return
    shutil.rmtree(base, ignore_errors=True)
    start = time.perf_counter()
    programs = synthetic_store.league_programs(base / "bots", bots)
    synthetic_store.fill_league(base / "league", programs, matches // 2, base / "data", workers=2)
    done.write_text(f"{bots} {matches}")
    size = (base / "league" / DB_NAME).stat().st_size / 2**20
    print(f"filled: {matches} matches of {bots} bots in {time.perf_counter() - start:.0f} s "
          f"(results.sqlite {size:.0f} MiB)")


def status_time(folder: Path, data: Path) -> float | None:
    """The wall time of ``arena league status`` as a user runs it, None past STATUS_TIMEOUT_S."""
    start = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-m", "arena.cli.main", "league", "status", str(folder),
                               "--data", str(data)], capture_output=True, text=True,
                              timeout=STATUS_TIMEOUT_S, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return None
    took = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"arena league status failed ({proc.returncode}): {proc.stderr.strip()}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--matches", type=int, default=100_000, help="stored before the run")
    parser.add_argument("--pairs", type=int, default=2_000, help="pairs the run plays")
    parser.add_argument("--folder", type=Path, help="keep the filled league here for next time "
                        "(default: a temporary folder, removed at the end)")
    args = parser.parse_args()
    top = args.folder or Path(tempfile.mkdtemp(prefix="bench-league-scale-"))
    print(f"# python {sys.version.split()[0]}, {os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.1f}; {args.bots} bots, {args.matches} matches, then "
          f"{args.pairs} pairs")
    try:
        build(top / "base", args.bots, args.matches)
        folder, data = top / "run", top / "base" / "data"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True, mode=0o700)  # an arena folder is private
        for name in (league_config.CONFIG_NAME, DB_NAME):
            shutil.copy2(top / "base" / "league" / name, folder / name)

        # The filled store has no ratings kept by a running league (league_ladder.py): status
        # recomputes them, as for a store older than the kept table. Once the league has run on
        # it, status reads what the league keeps: that is the target's case.
        took = status_time(folder, data)
        shown = f"{took:.2f} s" if took is not None else f"> {STATUS_TIMEOUT_S:.0f} s"
        print(f"arena league status, before the league kept its ratings (recomputed): {shown} "
              "(no target)")
        run(folder, data, args.pairs)
        took = status_time(folder, data)
        shown = f"{took:.2f} s" if took is not None else f"> {STATUS_TIMEOUT_S:.0f} s"
        print(f"arena league status, after the league ran: {shown} (target <= "
              f"{STATUS_TARGET_S:g} s: {verdict(took is not None and took <= STATUS_TARGET_S)})")
    finally:
        if args.folder is None:
            shutil.rmtree(top, ignore_errors=True)
        else:
            shutil.rmtree(top / "run", ignore_errors=True)


def run(folder: Path, data: Path, pairs: int) -> None:
    half = pairs // 2
    state = {"pairs": 0}
    choose: list[float] = []
    new_pairs: list[float] = []
    replay: list[float] = []
    choose_cpu: list[float] = []
    new_pairs_cpu: list[float] = []
    first_half = lambda: state["pairs"] < half  # noqa: E731
    timed(league, "next_pair", choose, first_half, choose_cpu)
    timed(league._Runner, "_new_pairs", new_pairs, first_half, new_pairs_cpu)
    timed(league.Ladder, "from_store", replay, lambda: True)
    league.play_job = synthetic_store.play_synthetic
    league.Pool = InProcessPool  # type: ignore[misc, assignment]

    samples: list[tuple[int, float]] = []
    heap: dict[str, Any] = {}
    marks = sorted({max(1, pairs * k // 10) for k in range(1, 11)})
    began = time.perf_counter()
    first_pair_s = 0.0

    def on_progress(progress: LeagueProgress) -> None:
        nonlocal first_pair_s
        state["pairs"] = progress.pairs
        if not progress.pairs:
            return
        if not samples:
            first_pair_s = time.perf_counter() - began
            samples.append((progress.pairs, rss_mib()))
        elif marks and progress.pairs >= marks[0]:
            marks.pop(0)
            samples.append((progress.pairs, rss_mib()))
            if progress.pairs >= half and not tracemalloc.is_tracing():
                tracemalloc.start(6)
            elif tracemalloc.is_tracing() and "start" not in heap:
                # A tenth of the run after tracing began: what the first pairs traced allocate
                # once (a cache filled, a list grown to its size) is not counted as growth.
                gc.collect()  # TrueSkill's factor graphs are cycles: garbage, not growth
                heap["start"] = tracemalloc.take_snapshot()
                heap["at"] = progress.pairs

    run_league(folder, data=data, max_pairs=pairs, on_progress=on_progress, publish=False)
    gc.collect()
    end = tracemalloc.take_snapshot()
    tracemalloc.stop()
    wall = time.perf_counter() - began

    print(f"start-up: Ladder.from_store {replay[0]:.1f} s; first pair after {first_pair_s:.1f} s "
          "(no target)")
    for what, walls, cpus in (
            ("next_pair", choose, choose_cpu),
            ("the runner's whole choice (_Runner._new_pairs: standings, next_pair, the pair written "
             "down)", new_pairs, new_pairs_cpu)):
        median, p99 = quantiles_ms(walls)
        cpu_median, cpu_p99 = quantiles_ms(cpus)
        print(f"{what}, {len(walls)} choices: wall median {median:.2f} ms, p99 {p99:.2f} ms; "
              f"CPU median {cpu_median:.2f} ms, p99 {cpu_p99:.2f} ms (target <= "
              f"{CHOOSE_TARGET_MS:g} ms: wall p99 {verdict(p99 <= CHOOSE_TARGET_MS)}, "
              f"CPU p99 {verdict(cpu_p99 <= CHOOSE_TARGET_MS)})")
    print(f"run: {pairs} pairs in {wall:.0f} s")
    print("coordinator memory (VmRSS): " + ", ".join(f"{mib:.0f} MiB at pair {n}"
                                                     for n, mib in samples))
    stats = end.compare_to(heap["start"], "traceback")
    grown = sum(s.size_diff for s in stats) / 1024
    per_1000 = grown / max(1, (pairs - heap["at"]) / 1000)
    print(f"Python heap (tracemalloc) from pair {heap['at']} to {pairs}: {grown:+.0f} KiB, "
          f"{per_1000:+.1f} KiB per 1,000 pairs (target: flat, <= {FLAT_KIB_PER_1000:g}: "
          f"{verdict(per_1000 <= FLAT_KIB_PER_1000)})")
    for stat in stats[:4]:  # where it grew: the innermost line of the arena's, and the line
        frames = list(stat.traceback)  # oldest first
        ours = next((f for f in reversed(frames) if "/arena/" in f.filename), frames[-1])
        print(f"  {stat.size_diff / 1024:+8.1f} KiB {stat.count_diff:+7d} blocks  "
              f"{Path(ours.filename).name}:{ours.lineno} "
              f"({Path(frames[-1].filename).name}:{frames[-1].lineno})")


if __name__ == "__main__":
    main()
