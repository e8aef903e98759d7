#!/usr/bin/env python3
"""Issue 30's acceptance run of a standing league, as an organiser would run it, with its verdicts.

A league of five bundled bots (random, greedy, first-legal, c-counter, strong) is played by the
real ``arena league`` command in a process of its own on two workers for ``--seconds`` (90), the
league publishing every ``--publish-every`` seconds. Then SIGTERM, as ``docker stop`` sends it.
Printed against the targets:

- **shares** (point 1): over the run and over every window of the league's ``W`` pairs
  (``matchmaking.window_size``), the most played pairing's count over its even share (<= 2) and
  the least playing bot's pairs over the mean bot's (>= 0.5);
- **the stop** (point 4): the time from SIGTERM to the command's end (<= 10 s) and its exit status
  (143), nothing lost: every stored pair whole after a continuation;
- **one snapshot per build** (point 3): every build that became current during the run, copied
  the moment it was, agrees with itself (``test_publish_snapshot.check_build``: matches = W+D+L
  per bot on every page, the same count on ``index.html`` and ``league.html``, no half pair).

Not a test (a minute and a half of two busy cores); ``tests/arena/test_league_shares.py`` and
``test_league_stop.py`` check the same in less time.

Usage: scripts/league_acceptance.py [--seconds 90] [--workers 2] [--publish-every 20] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "arena"))  # the checks the tests use on builds and pairs

from arena.compete.league import run_league  # noqa: E402
from arena.compete.league_publish import CURRENT  # noqa: E402
from arena.compete.matchmaking import window_size  # noqa: E402
from arena.report.league_page import PAGE  # noqa: E402
from league_util import ARENA, check_whole, read_store, shares, worst_windows, write_settings  # noqa: E402
from test_publish_snapshot import check_build, deal_sets  # noqa: E402

BOTS = ["random", "greedy", "first-legal", "c-counter", "strong"]
STOP_TARGET_S = 10.0


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=90.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--publish-every", type=float, default=20.0)
    parser.add_argument("--keep", type=Path, help="play in this folder and keep it")
    args = parser.parse_args()
    top = args.keep or Path(tempfile.mkdtemp(prefix="league-acceptance-"))
    league, data = top / "league", top / "data"
    print(f"# {len(BOTS)} bots ({', '.join(BOTS)}), {args.workers} workers, {args.seconds:g} s, "
          f"publishing every {args.publish_every:g} s; load {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")
    try:
        write_settings(league, name="acceptance", bots=BOTS, workers=args.workers,
                       publish_every=args.publish_every)
        proc = subprocess.Popen([*ARENA, "league", str(league), "--data", str(data)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        builds, problems = watch_builds(league, top, proc, args.seconds)
        signalled = time.monotonic()
        os.killpg(proc.pid, signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
        took = time.monotonic() - signalled
        print(f"stop: exit {proc.returncode} in {took:.1f} s after SIGTERM (targets: 143, <= "
              f"{STOP_TARGET_S:g} s: {verdict(proc.returncode == 143 and took <= STOP_TARGET_S)})")
        if proc.returncode != 143:
            print("  its last lines:", *err.strip().splitlines()[-5:], sep="\n    ")
        print(f"builds: {len(builds)} became current and were checked, "
              f"{len(problems)} disagreed with themselves ({verdict(bool(builds) and not problems)})")
        for name, problem in problems:
            print(f"  {name}: {problem}")
        pairs = [(a, b) for a, b in read_store(league, "SELECT a, b FROM league_pairs "
                                                       "ORDER BY pair_no")]
        stored = len(read_store(league, "SELECT 1 FROM matches"))
        width = window_size(len(BOTS))
        most, least = shares(pairs, BOTS)
        print(f"shares over the run: {len(pairs)} pairs, {stored} matches; top pairing "
              f"{most:.2f} x its even share (<= 2: {verdict(most <= 2)}), least playing bot "
              f"{least:.2f} x the mean (>= 0.5: {verdict(least >= 0.5)})")
        if len(pairs) >= width:
            most, least = worst_windows(pairs, BOTS, width)
            print(f"shares over every window of {width} pairs: worst top pairing {most:.2f} x "
                  f"(<= 2: {verdict(most <= 2)}), worst least playing bot {least:.2f} x "
                  f"(>= 0.5: {verdict(least >= 0.5)})")
        else:
            print(f"shares over every window of {width} pairs: the run played fewer pairs")
        # Nothing lost: a continuation completes every pair the stop cut, then the store is whole.
        run_league(league, data=data, max_pairs=1, publish=False)
        check_whole(league, "acceptance")
        print("after a continuation: every stored pair whole, no match twice (ok)")
    finally:
        if args.keep is None:
            shutil.rmtree(top, ignore_errors=True)


def watch_builds(league: Path, top: Path, proc: subprocess.Popen[str], seconds: float
                 ) -> tuple[list[str], list[tuple[str, str]]]:
    """Copy each build the moment it becomes current (the league removes old ones) and check it;
    return the builds seen and the problems found, until ``seconds`` have passed."""
    seen: list[str] = []
    problems: list[tuple[str, str]] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end and proc.poll() is None:
        current = league / "public" / CURRENT
        build = current.resolve() if current.is_symlink() else None
        if build is None or build.name in seen:
            time.sleep(0.2)
            continue
        copy = top / f"copy-{build.name}"
        try:
            shutil.copytree(build, copy)
        except (OSError, shutil.Error):
            continue  # replaced under us by the next build: that one is checked instead
        seen.append(build.name)
        try:
            records, _ = check_build(copy, deal_sets(league), every_replay=False)
            ladder = (copy / PAGE).read_text(encoding="utf-8")
            if f"{len(records)} matches" not in ladder:
                problems.append((build.name, f"league.html does not count {len(records)} "
                                             "matches"))
        except AssertionError as err:
            problems.append((build.name, str(err).splitlines()[0] if str(err) else "assert"))
        shutil.rmtree(copy, ignore_errors=True)
    if proc.poll() is not None:
        sys.exit(f"arena league ended by itself ({proc.returncode}): "
                 f"{proc.communicate()[1].strip()[-2000:]}")
    return seen, problems


if __name__ == "__main__":
    main()
