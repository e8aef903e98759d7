"""What publishing a league costs (issue 30, point 5): synthetic leagues of 1,000 and 10,000
matches, each published once, then again after a few new matches (``--more``, 20), as
``arena league`` does.

    .venv/bin/python scripts/bench_publish.py [--sizes 1000,10000] [--more 20] [--keep DIR]

The leagues are filled through the real ``Store`` API (tests/arena/synthetic_store.py), each match
with a record copied from one of a few real matches of two bundled C bots (played first, some
seconds), so that their replay pages are real ones. The publishes of a league run in a spawned
process whose libraries are imported before the clock starts, kept from one publish to the next,
as the league's publisher's is (league_publish.Publisher). Printed per size, side by side: the
first publish (a league's first, or after its publish folder was removed: every record packed,
every chart drawn, and the ratings replayed from the first match) and the republish after the new
matches, each with its build's size (the bytes of its files: what a static host is sent).
Targets at 10,000 matches: a publish within 10 s, a build within 30 MB.

The records are copies of 16 real matches, so an archive of 100 of them packs better than real
records would (gzip finds whole records repeated): docs/internals/benchmarks.md gives the
figure for distinct records beside this one.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "arena")]

TARGET_S = 10.0
TARGET_MB = 30.0


def _warm() -> None:
    # As the league's publisher (league_publish._publish_apart): a publish forks its packers.
    multiprocessing.current_process().daemon = False
    import arena.compete.league_publish  # noqa: F401
    import arena.report.charts  # noqa: F401
    import arena.report.replay  # noqa: F401


def _publish(folder: str, data: str) -> float:
    from arena.compete.league_config import load_league_config
    from arena.compete.league_publish import publish_league

    started = time.monotonic()
    publish_league(Path(folder), load_league_config(Path(folder)), Path(data))
    return time.monotonic() - started


def timed_publish(pool: Any, folder: Path, data: Path) -> float:
    """Seconds one publish takes in ``pool``'s process (its libraries imported beforehand)."""
    return float(pool.apply(_publish, (str(folder), str(data))))


def publisher() -> Any:
    """A process as the league's publisher has: spawned, its libraries imported, kept from one
    publish to the next."""
    pool = multiprocessing.get_context("spawn").Pool(1)
    pool.apply(_warm)
    return pool


def size_mb(build: Path) -> float:
    total = 0
    for top, _, files in os.walk(build):
        total += sum(os.lstat(os.path.join(top, f)).st_size for f in files)
    return total / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000", help="league sizes in matches")
    parser.add_argument("--more", type=int, default=20, help="new matches before the republish")
    parser.add_argument("--keep", type=Path, help="build the leagues here (default: a temporary "
                                                  "folder, removed)")
    args = parser.parse_args()
    from synthetic_store import fill_league_with_records, play_templates

    with tempfile.TemporaryDirectory(prefix="bench-publish-") as scratch:
        root = args.keep or Path(scratch)
        root.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        templates = play_templates(root / "templates", 16)
        print(f"16 real matches to copy played in {time.monotonic() - started:.1f} s; load "
              f"average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
        print(f"{'matches':>8}  {'first publish':>20}  {f'republish (+{args.more})':>20}  "
              f"targets at 10,000: {TARGET_S:g} s, {TARGET_MB:g} MB", flush=True)
        for size in (int(s) for s in args.sizes.split(",")):
            folder, data = root / f"league-{size}", root / "data"
            fill_league_with_records(folder, size // 2, templates)
            current = folder / "public" / "current"
            with publisher() as pool:
                first = timed_publish(pool, folder, data)
                first_mb = size_mb(current.resolve())
                fill_league_with_records(folder, max(1, args.more // 2), templates)
                again = timed_publish(pool, folder, data)
                again_mb = size_mb(current.resolve())
            verdict = ""
            if size >= 10_000:
                verdict = ", ".join(
                    f"{what} {'met' if ok else 'MISSED'}" for what, ok in (
                        ("first publish", first <= TARGET_S), ("republish", again <= TARGET_S),
                        ("size", max(first_mb, again_mb) <= TARGET_MB)))
            print(f"{size:>8}  {first:>7.1f} s {first_mb:>7.1f} MB  {again:>7.1f} s "
                  f"{again_mb:>7.1f} MB  {verdict}", flush=True)


if __name__ == "__main__":
    main()
