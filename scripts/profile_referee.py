#!/usr/bin/env python3
"""Where the referee's CPU goes: cProfile (on the CPU clock) of ``run_match``'s play loop.

Plays the matches of ``bench_referee.py`` (two minimal first-legal bots, Python or C, seeded) and
prints the top of the profile of the referee's play (``_Match._play``: start-up and shutdown, which
are not per decision, are left out), sorted by own time and by cumulative time, with the referee's
CPU per decision. Profiling slows Python code ~2x, so the figures are shares, not costs; the cost is
``bench_referee.py``'s. For native frames (the kernel's share of a pipe write or a poll) use
``perf record -g .venv/bin/python scripts/profile_referee.py --no-profile``.

``--baseline REV`` compares instead: REV's tree (``git archive`` into a temporary folder) and
this one play the same matches in fresh interpreters, rounds interleaved, and the medians of the
referee's CPU per decision are printed side by side.

Usage: scripts/profile_referee.py [--bots c|python] [--matches N] [--top N] [--no-profile]
                                  [--baseline REV [--rounds R]]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
# --tree (internal, for --baseline): import the arena from another tree.
TREE = Path(sys.argv[sys.argv.index("--tree") + 1]) if "--tree" in sys.argv else HERE
sys.path.insert(0, str(TREE))

from arena.match import referee  # noqa: E402
from arena.match.bot_process import Limits  # noqa: E402
from arena.entrants.bot_specs import build_c_bot, resolve_bot  # noqa: E402
from arena.game import profile  # noqa: E402
from arena.match.referee import BotSpec, MatchConfig, run_match  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", choices=("c", "python"), default="c")
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--no-profile", action="store_true",
                        help="only play (under perf, say) and print the CPU per decision")
    parser.add_argument("--baseline", metavar="REV",
                        help="compare REV's tree with this one instead of profiling")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds of --baseline")
    parser.add_argument("--tree", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.baseline:
        compare(args.baseline, args.bots, args.matches, args.rounds)
        return
    if args.bots == "c":
        bot = BotSpec("first-legal-c", (str(build_c_bot("first-legal-c")),))
    else:
        bot = resolve_bot("first-legal")
    profiler = cProfile.Profile(time.process_time)
    original = referee._Match._play
    spent = [0.0]

    def play(match: referee._Match) -> None:
        start = time.process_time()
        if not args.no_profile:
            profiler.enable()
        try:
            original(match)
        finally:
            profiler.disable()
            spent[0] += time.process_time() - start

    referee._Match._play = play  # type: ignore[assignment]
    rules = profile("sixty_six")
    decisions = 0
    for seed in range(args.matches):
        config = MatchConfig(rules=rules, seed=seed, first_dealer=seed & 1, match_id=f"prof{seed}",
                             limits=Limits(decision_ms=5000))
        result = run_match((bot, BotSpec("b", bot.argv)), config)
        decisions += sum(int(s.timing()["decisions"]) for s in result.seats)
    print(f"# {args.matches} matches of {args.bots} first-legal bots, {decisions} decisions; "
          f"the referee's play loop: {spent[0] * 1e6 / decisions:.1f} us CPU per decision"
          f"{'' if args.no_profile else ' (profiled: slowed)'}")
    if args.no_profile:
        return
    for key in ("tottime", "cumulative"):
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).strip_dirs().sort_stats(key).print_stats(args.top)
        print(out.getvalue().split("\n", 6)[-1] if key == "tottime" else out.getvalue())


def compare(rev: str, bots: str, matches: int, rounds: int) -> None:
    """REV's referee and this tree's, the same matches, rounds interleaved (the machine is shared:
    CPU time moves less than wall time, and interleaving spreads what load remains)."""
    figures: dict[str, list[float]] = {rev: [], "this tree": []}
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(HERE), "archive", rev], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        trees = {rev: Path(tmp), "this tree": HERE}
        for _ in range(rounds):
            for name, tree in trees.items():
                out = subprocess.run([sys.executable, __file__, "--no-profile", "--bots", bots,
                                      "--matches", str(matches), "--tree", str(tree)],
                                     check=True, capture_output=True, text=True).stdout
                figures[name].append(float(out.split("play loop: ")[1].split(" us")[0]))
    for name, values in figures.items():
        print(f"{name}: the referee's CPU per decision, {bots} first-legal bots: "
              f"{statistics.median(values):.1f} us (rounds: "
              f"{', '.join(f'{v:.1f}' for v in values)})")
    ratios = [a / b for b, a in zip(*figures.values())]  # within a round: the same load
    print(f"this tree / {rev}: {statistics.median(ratios):.2f} (median of the rounds' ratios)")


if __name__ == "__main__":
    main()
