#!/usr/bin/env python3
"""Referee overhead against the pipes themselves, measured side by side in one run.

1. Raw pipe round trip: this process writes a short line to a child and reads its one-line answer,
   through the same kind of pipes the referee uses. Children: a Python echo and a C echo.
2. Full matches between two minimal first-legal-action bots through the referee (Python and C):
   decisions per deal, microseconds per decision, and
       efficiency = (pipe round trip x decisions per deal) / measured time per deal
   (1.0 would mean the referee costs nothing beyond one round trip per decision; target >= 0.5).
3. The SDK's random bot against the minimal Python bot: time per decision, and their ratio
   (target: the SDK's random bot within 1.5x of the minimal bot).

Usage: scripts/bench_referee.py [--matches N] [--round-trips N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.bot_process import Limits  # noqa: E402
from arena.bot_specs import build_c_bot, resolve_bot  # noqa: E402
from arena.game import profile  # noqa: E402
from arena.referee import BotSpec, MatchConfig, run_match  # noqa: E402

PY_ECHO = ("import sys\nr = sys.stdin.buffer.readline\nw = sys.stdout.buffer.write\n"
           "f = sys.stdout.flush\nwhile True:\n    l = r()\n    if not l:\n        break\n"
           "    w(l)\n    f()\n")
C_ECHO = r"""
#include <stdio.h>
int main(void) {
    char line[2048];
    while (fgets(line, sizeof line, stdin)) { fputs(line, stdout); fflush(stdout); }
    return 0;
}
"""


def round_trip_us(argv: list[str], n: int) -> float:
    """Median-free plain average of ``n`` blocking write-line/read-line exchanges, in µs."""
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    line = b"follow? play:AS play:TS play:KH play:9C play:QD play:JD\n"
    out, inp = proc.stdin, proc.stdout
    for _ in range(200):  # warm up
        out.write(line)
        inp.readline()
    start = time.perf_counter()
    for _ in range(n):
        out.write(line)
        inp.readline()
    elapsed = time.perf_counter() - start
    out.close()
    proc.wait()
    return elapsed / n * 1e6


def c_echo_binary(folder: Path) -> list[str] | None:
    source = folder / "echo.c"
    source.write_text(C_ECHO)
    binary = folder / "echo"
    if subprocess.run(["cc", "-O2", "-o", str(binary), str(source)]).returncode != 0:
        return None
    return [str(binary)]


def matches(bots: tuple[BotSpec, BotSpec], n: int) -> tuple[float, float, float]:
    """(decisions per deal, µs per decision, µs per deal) over ``n`` seeded matches, counting the
    referee's playing time only (process start-up and the handshake are not per-deal costs)."""
    rules = profile("sixty_six")
    decisions = deals = 0
    elapsed_ms = 0.0
    for seed in range(n):
        config = MatchConfig(rules=rules, seed=seed, first_dealer=seed & 1, match_id=f"bench{seed}",
                             limits=Limits(decision_ms=5000))
        result = run_match(bots, config)
        if result.reason != "target":
            raise SystemExit(f"benchmark match {seed} ended by {result.reason}: {result.detail}")
        elapsed_ms += result.play_ms
        deals += len(result.deals)
        decisions += sum(s.timing()["decisions"] for s in result.seats)
    return decisions / deals, elapsed_ms * 1000 / decisions, elapsed_ms * 1000 / deals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--round-trips", type=int, default=20000)
    args = parser.parse_args()
    print(f"# python {sys.version.split()[0]}, {os.cpu_count()} cores; {args.matches} matches per "
          f"figure, {args.round_trips} round trips")
    with tempfile.TemporaryDirectory() as tmp:
        rtt_py = round_trip_us([sys.executable, "-c", PY_ECHO], args.round_trips)
        c_echo = c_echo_binary(Path(tmp))
        rtt_c = round_trip_us(c_echo, args.round_trips) if c_echo else None
    print(f"pipe round trip, python echo: {rtt_py:7.1f} us")
    if rtt_c is not None:
        print(f"pipe round trip, C echo:      {rtt_c:7.1f} us")

    first_py = resolve_bot("first-legal")
    rows = [("python first-legal", (first_py, BotSpec("first-legal-b", first_py.argv)), rtt_py)]
    if rtt_c is not None:
        first_c = BotSpec("first-legal-c", (str(build_c_bot("first-legal-c")),))
        rows.append(("C first-legal", (first_c, BotSpec("first-legal-c-b", first_c.argv)), rtt_c))
    per_decision = {}
    for label, bots, rtt in rows:
        dpd, us_dec, us_deal = matches(bots, args.matches)
        per_decision[label] = us_dec
        print(f"{label} through the referee: {dpd:.1f} decisions/deal, {us_dec:.1f} us/decision, "
              f"{us_deal:.0f} us/deal, efficiency {rtt * dpd / us_deal:.2f}")

    random_bot = resolve_bot("random")
    _, us_random, _ = matches((random_bot, BotSpec("random-b", random_bot.argv)), args.matches)
    ratio = us_random / per_decision["python first-legal"]
    print(f"SDK random bot: {us_random:.1f} us/decision; ratio to python first-legal {ratio:.2f}")


if __name__ == "__main__":
    main()
