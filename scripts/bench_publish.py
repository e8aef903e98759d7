"""What publishing a league costs (issue 30, point 5): synthetic leagues of 1,000 and 10,000
matches, each published once, then again after 1% more matches, as ``arena league`` does.

    .venv/bin/python scripts/bench_publish.py [--sizes 1000,10000] [--keep DIR]

The leagues are filled through the real ``Store`` API (tests/arena/synthetic_store.py), each match
with a record copied from one of a few real matches of two bundled C bots (played first, some
seconds), so that their replay pages are real ones. The publishes of a league run in a spawned process
whose libraries are imported before the clock starts, kept from one publish to the next, as the
league's publisher's is (league_publish.Publisher). Printed per size: the first publish, the republish after +1%
matches, and the build's size (the bytes of its files: what a static host is sent); at 1,000 also
the path without a replay policy or an earlier build (every match rendered, as before issue 30).
Targets at 10,000 matches: a publish within 10 s, a build within 30 MB.
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
    import arena.compete.league_publish  # noqa: F401
    import arena.report.charts  # noqa: F401
    import arena.report.replay  # noqa: F401


def _publish(folder: str, data: str, policy: bool) -> float:
    from arena.compete.league_config import load_league_config
    from arena.compete.league_publish import publish_league
    from arena.report import publish

    started = time.monotonic()
    if policy:
        publish_league(Path(folder), load_league_config(Path(folder)), Path(data))
    else:  # every match's replay page, nothing taken over from an earlier build
        publish(Path(folder), Path(folder) / "every-page")
    return time.monotonic() - started


def timed_publish(pool: Any, folder: Path, data: Path, policy: bool = True) -> float:
    """Seconds one publish takes in ``pool``'s process (its libraries imported beforehand)."""
    return float(pool.apply(_publish, (str(folder), str(data), policy)))


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
    parser.add_argument("--keep", type=Path, help="build the leagues here (default: a temporary "
                                                  "folder, removed)")
    args = parser.parse_args()
    from synthetic_store import fill_league_with_records, play_templates  # type: ignore[import-not-found]

    with tempfile.TemporaryDirectory(prefix="bench-publish-") as scratch:
        root = args.keep or Path(scratch)
        root.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        templates = play_templates(root / "templates", 16)
        print(f"16 real matches to copy played in {time.monotonic() - started:.1f} s; load "
              f"average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
        print(f"{'matches':>8} {'first publish':>14} {'+1% republish':>14} {'build MB':>9}  "
              f"target (at 10,000: {TARGET_S:g} s, {TARGET_MB:g} MB)", flush=True)
        for size in (int(s) for s in args.sizes.split(",")):
            folder, data = root / f"league-{size}", root / "data"
            fill_league_with_records(folder, size // 2, templates)
            with publisher() as pool:
                first = timed_publish(pool, folder, data)
                fill_league_with_records(folder, max(1, size // 200), templates)
                again = timed_publish(pool, folder, data)
            mb = size_mb((folder / "public" / "current").resolve())
            met = "" if size < 10_000 else (
                "met" if max(first, again) <= TARGET_S and mb <= TARGET_MB else
                f"publish {'met' if max(first, again) <= TARGET_S else 'MISSED'}, "
                f"size {'met' if mb <= TARGET_MB else 'MISSED'}")
            print(f"{size:>8} {first:>12.1f} s {again:>12.1f} s {mb:>9.1f}  {met}", flush=True)
            if size == 1000:
                with publisher() as pool:  # a fresh one: nothing kept from the league's
                    every = timed_publish(pool, folder, data, policy=False)
                print(f"{'':>8} without the policy and the earlier build (as before): "
                      f"{every:.1f} s, {size_mb(folder / 'every-page'):.1f} MB", flush=True)


if __name__ == "__main__":
    main()
