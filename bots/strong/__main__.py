"""``python -m bots.strong [--budget-ms N] [--seed S] [--worlds W]``: the strong bot on stdin/stdout."""

from __future__ import annotations

import argparse

from bots.strong.bot import StrongBot
from bots.strong.planner import MAX_WORLDS
from protocol import run


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bots.strong", description=__doc__)
    parser.add_argument("--budget-ms", type=int, default=None,
                        help="think at most this long per decision (default: 28%% of the limit "
                             "the referee announces); a smaller budget plays faster and weaker")
    parser.add_argument("--seed", default=None, help="seed of the bot's sampling (default: from "
                        "the match id and seat)")
    parser.add_argument("--worlds", type=int, default=MAX_WORLDS,
                        help="sample at most this many worlds per decision (default %(default)s); "
                             "with a generous time budget, a fixed amount of work whatever the "
                             "machine's load (scripts/bench_nseat.py --referee)")
    args = parser.parse_args(argv)
    if args.budget_ms is not None and args.budget_ms <= 0:
        parser.error("--budget-ms must be positive")
    if args.worlds <= 0:
        parser.error("--worlds must be positive")
    run(StrongBot(budget_ms=args.budget_ms, seed=args.seed, max_worlds=args.worlds))


if __name__ == "__main__":
    main()
