#!/usr/bin/env python3
"""Referee overhead against the pipes themselves, measured side by side in one run.

1. Raw pipe round trip: this process writes a short line to a child and reads its one-line answer,
   through the same kind of pipes the referee uses. Children: a Python echo and a C echo.
2. Full matches between two minimal first-legal-action bots through the referee (Python and C):
   decisions per deal, microseconds per decision, and
       efficiency = (pipe round trip x decisions per deal) / measured time per deal
   (1.0 would mean the referee costs nothing beyond one round trip per decision; target >= 0.5).
3. Python SDK bots against the minimal Python bot, time per decision and ratio (target: within
   1.5x): an SDK bot that plays the first legal action (the same games, so the ratio is the SDK's
   own cost), and the SDK's random bot (its own, shorter games, so per-deal costs weigh more).

Usage: scripts/bench_referee.py [--matches N] [--round-trips N]
"""

from __future__ import annotations

import argparse
import os
import statistics
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
SDK_FIRST_LEGAL = (
    "from protocol import Bot, run\n\n"
    "class FirstLegal(Bot):\n    name = 'sdk-first-legal'\n\n"
    "    def decide(self, view, legal):\n        return legal[0]\n\n"
    "run(FirstLegal())\n")
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
    parser.add_argument("--matches", type=int, default=10, help="matches per figure per round")
    parser.add_argument("--round-trips", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=3,
                        help="interleaved rounds; each ratio is taken within a round, then the "
                             "median is reported (these machines are shared and noisy)")
    args = parser.parse_args()
    print(f"# python {sys.version.split()[0]}, {os.cpu_count()} cores; {args.rounds} rounds of "
          f"{args.matches} matches per figure and {args.round_trips} round trips")
    first_py = resolve_bot("first-legal")
    first_c = BotSpec("first-legal-c", (str(build_c_bot("first-legal-c")),))
    random_bot = resolve_bot("random")
    rows: dict[str, list[float]] = {}

    def note(key: str, value: float) -> None:
        rows.setdefault(key, []).append(value)

    with tempfile.TemporaryDirectory() as tmp:
        # The SDK bot's script lives here; as root the sandbox runs bots as unprivileged users,
        # who cannot enter a folder of mode 0700 (what mkdtemp makes).
        os.chmod(tmp, 0o755)
        c_echo = c_echo_binary(Path(tmp))
        script = Path(tmp) / "sdk_first_legal.py"
        script.write_text(SDK_FIRST_LEGAL)
        sdk_first = BotSpec("sdk-first-legal", (sys.executable, str(script)))
        for _ in range(args.rounds):
            rtt_py = round_trip_us([sys.executable, "-c", PY_ECHO], args.round_trips)
            dpd, us_py, us_deal_py = matches((first_py, BotSpec("b", first_py.argv)), args.matches)
            note("pipe round trip, python echo (us)", rtt_py)
            note("python first-legal: us/decision", us_py)
            note("python first-legal: decisions/deal", dpd)
            note("python first-legal: efficiency", rtt_py * dpd / us_deal_py)
            if c_echo:
                rtt_c = round_trip_us(c_echo, args.round_trips)
                dpd_c, us_c, us_deal_c = matches((first_c, BotSpec("b", first_c.argv)), args.matches)
                note("pipe round trip, C echo (us)", rtt_c)
                note("C first-legal: us/decision", us_c)
                note("C first-legal: efficiency", rtt_c * dpd_c / us_deal_c)
            # The same games as the minimal bot, through the SDK: the SDK's own cost, nothing else.
            _, us_sdk, _ = matches((sdk_first, BotSpec("b", sdk_first.argv)), args.matches)
            note("SDK first-legal (same games): us/decision", us_sdk)
            note("SDK first-legal / minimal: ratio", us_sdk / us_py)
            _, us_random, _ = matches((random_bot, BotSpec("b", random_bot.argv)), args.matches)
            note("SDK random (own, shorter games): us/decision", us_random)
            note("SDK random / minimal: ratio", us_random / us_py)
    for key, values in rows.items():
        spread = f"  (rounds: {', '.join(f'{v:.2f}' for v in values)})" if len(values) > 1 else ""
        print(f"{key}: {statistics.median(values):.2f}{spread}")


if __name__ == "__main__":
    main()
