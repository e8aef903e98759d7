#!/usr/bin/env python3
"""What the sandbox costs, measured side by side in one run: the full sandbox of this machine
against resource limits only (``ARENA_ISOLATION=limits``).

1. Start-up: start a bot, greet it, read its ``ready``, close it; per bot, in milliseconds. The C bot
   (first-legal-c) starts in about a millisecond by itself, so this is mostly the sandbox's cost.
2. Whole matches: c-counter against first-legal-c, matches per second, one after another. (Two C
   bots: as root the ``limits`` level runs a bot as an unprivileged user on the host's files, which
   cannot start a Python kept under /root, as this machine's is.)

Each mode runs in its own child process (the sandbox's mode is found once per process); the two
alternate over several rounds and medians are printed. These machines are shared and noisy.
Usage: scripts/bench_sandbox.py [--starts N] [--matches N] [--rounds R]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def measure(starts: int, matches: int) -> dict[str, float | str]:
    from arena.entrants.bot_specs import resolve_bot
    from arena.game import profile
    from arena.isolation.probe import support
    from arena.match.bot_process import BotProcess, Limits
    from arena.match.referee import MatchConfig, run_match

    c_bot = resolve_bot("first-legal-c")
    support()  # the probe is not part of what is measured
    start = time.perf_counter()
    for _ in range(starts):
        proc = BotProcess(c_bot.argv, Limits())
        proc.start()
        proc.send("sixtysix 1")
        assert proc.read_line(5).startswith(b"ready")
        proc.close()
    start_ms = (time.perf_counter() - start) * 1000 / starts
    bots = (resolve_bot("c-counter"), resolve_bot("first-legal-c"))
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        for n in range(matches):
            run_match(bots, MatchConfig(rules=profile("sixty_six"), seed=n, match_id=f"b{n}"),
                      record_path=Path(folder) / f"{n}.jsonl")
        rate = matches / (time.perf_counter() - start)
    return {"start_ms": start_ms, "matches_per_s": rate, "mode": support().mode}


def best_level() -> str:
    from arena.isolation.probe import best_level as best

    return best()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=40)
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.starts, args.matches)))
        return
    figures: dict[str, list[dict[str, float]]] = {"sandbox": [], "limits": []}
    for _ in range(args.rounds):
        for label in figures:
            env = dict(os.environ)
            env.pop("ARENA_SANDBOX", None)
            env["ARENA_ISOLATION"] = "limits" if label == "limits" else best_level()
            out = subprocess.run([sys.executable, __file__, "--child", "--starts", str(args.starts),
                                  "--matches", str(args.matches)], env=env, check=True,
                                 capture_output=True, text=True).stdout
            figures[label].append(json.loads(out.splitlines()[-1]))
    med = {label: {key: statistics.median(r[key] for r in runs) for key in
                   ("start_ms", "matches_per_s")} for label, runs in figures.items()}
    mode = figures["sandbox"][0]["mode"]
    print(f"sandbox mode on this machine: {mode}; {args.rounds} rounds, medians")
    print(f"{'':<28}{'sandbox':>12}{'limits only':>14}{'ratio':>8}")
    s, b = med["sandbox"], med["limits"]
    print(f"{'start + ready + close (ms)':<28}{s['start_ms']:>12.1f}{b['start_ms']:>14.1f}"
          f"{s['start_ms'] / b['start_ms']:>8.2f}")
    print(f"{'matches per second':<28}{s['matches_per_s']:>12.2f}{b['matches_per_s']:>14.2f}"
          f"{s['matches_per_s'] / b['matches_per_s']:>8.2f}")


if __name__ == "__main__":
    main()
