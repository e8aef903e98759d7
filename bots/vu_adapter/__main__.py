"""``python -m bots.vu_adapter [--site DIR] [--bot rdeep|rand|bully] [--samples N] [--depth D]
[--phase2 alphabeta|same] [--seed S] [--name NAME]``: a bot of the ``schnapsen`` package on
stdin/stdout, for ``vu_compat`` matches. The package comes from ``--site`` (the site-packages of
``.venv-vu``, which ``scripts/bench_vu.py`` makes) or from this Python's own."""

from __future__ import annotations

import argparse
import sys

from bots.vu_adapter.bot import KINDS, PHASE2, Choice, VuAdapterBot
from bots.vu_adapter.package import PackageMissing
from bots.vu_adapter.replay import Disagreement
from protocol import run

DISAGREEMENT_EXIT = 3


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bots.vu_adapter", description=__doc__)
    parser.add_argument("--site", default=None, help="a folder holding the schnapsen package, "
                        "searched after this Python's own (named on the command line, so the "
                        "sandbox shows it to the bot)")
    parser.add_argument("--bot", choices=KINDS, default="rdeep", help="the package's bot "
                        "(default %(default)s)")
    parser.add_argument("--samples", type=int, default=64, help="RdeepBot: rollouts per move "
                        "(default %(default)s)")
    parser.add_argument("--depth", type=int, default=8, help="RdeepBot: tricks per rollout "
                        "(default %(default)s)")
    parser.add_argument("--phase2", choices=PHASE2, default="alphabeta",
                        help="once the stock is empty: the package's AlphaBetaBot, or the same "
                        "bot (default %(default)s)")
    parser.add_argument("--seed", default=None, help="seed of the bot's random numbers (default: "
                        "the match id and seat)")
    parser.add_argument("--name", default=None, help="the name it gives the referee")
    args = parser.parse_args(argv)
    if args.samples < 1 or args.depth < 1:
        parser.error("--samples and --depth must be at least 1")
    if args.site is not None:
        sys.path.append(args.site)
    choice = Choice(args.bot, args.samples, args.depth, args.phase2)
    try:
        run(VuAdapterBot(choice, seed=args.seed, name=args.name))
    except PackageMissing as err:
        print(f"vu_adapter: error: {err}", file=sys.stderr, flush=True)
        sys.exit(2)
    except Disagreement as err:
        # One line, then stop: the referee records the fault; the benchmark counts these lines.
        print(f"vu_adapter: disagreement: {err}", file=sys.stderr, flush=True)
        sys.exit(DISAGREEMENT_EXIT)


if __name__ == "__main__":
    main()
