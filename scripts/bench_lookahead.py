#!/usr/bin/env python3
"""Speed of the strong bot's exact search of the last phase-1 tricks (``bots/strong/lookahead.py``).

One "world" is what the bot searches per sampled world at a late phase-1 decision: a fresh
``Lookahead`` values every option of the player to act (every legal action but a claim) with a
full window. The positions are random deals played at random to a lead or follow with exactly 2, 4
or 6 cards left in the stock (the up-card included), the same ones for every run with the same
``--seed``; ``vu_compat`` (five-card hands) and ``sixty_six`` (six) are measured. It prints the
milliseconds a world takes (the mean over the positions, in CPU time) and the search's phase-1
nodes.

``--baseline DIR`` compares with another checkout of the strong bot (``git archive <commit> |
tar -x -C /tmp/old``) in one run and one process: its ``bots/strong`` is loaded beside this one
under another package name (its modules import only the engine and each other), rounds over the
same positions alternate between the two, and the best round of each is kept (on a shared machine
the best round is the least disturbed one). Both must give every option the same value: the
speed-ups are meant to change nothing else, and the run stops if they do.

Usage: scripts/bench_lookahead.py [--baseline DIR] [--positions N] [--rounds R] [--seed S]
                                  [--profiles vu_compat,sixty_six] [--stocks 2,4,6]
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.game import CLAIM, EXCHANGE, DealState, Decision, Rules, profile, shuffled_order  # noqa: E402
from arena.game.rules import CLAIM_TARGET  # noqa: E402
from arena.game.state import OPEN  # noqa: E402


def late_position(rules: Rules, rng: random.Random, stock: int) -> DealState:
    """A deal played at random to a phase-1 lead or follow with exactly ``stock`` cards left in
    the stock, no exchange or claim pending and no marriage just shown (the bot decides those
    without a search)."""
    while True:
        state = DealState.new(rules, rng.randrange(2), shuffled_order(rules, rng.randrange(10**9), 1))
        while not state.is_over and state.stock_state == OPEN and state.stock_size >= stock:
            legal = state.legal_actions()
            if (state.stock_size == stock and state.decision in (Decision.LEAD, Decision.FOLLOW)
                    and state.meld_suit < 0 and EXCHANGE not in legal
                    and not (CLAIM in legal and state.total(state.to_act) >= CLAIM_TARGET)):
                return state
            choices = [a for a in legal if a is not CLAIM or state.total(state.to_act) >= CLAIM_TARGET]
            state = state.apply_unchecked(rng.choice(choices))


def _load_baseline(baseline: Path, into: Path) -> str:
    """A copy of ``baseline``'s ``bots/strong`` importable beside this one, as ``baseline_strong``."""
    package = into / "baseline_strong"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for source in sorted((baseline / "bots" / "strong").glob("*.py")):
        if source.name != "__init__.py":
            text = source.read_text(encoding="utf-8").replace("bots.strong.", "baseline_strong.")
            (package / source.name).write_text(text, encoding="utf-8")
    sys.path.insert(0, str(into))
    return "baseline_strong"


def _search_world(lookahead: ModuleType, solver: ModuleType, state: DealState) -> tuple[list[int], int]:
    """Every option's value in one world, as the bot searches it, and the phase-1 nodes."""
    look = lookahead.Lookahead(solver.Solver(state.rules, solver.Payoff.game_points(state.to_act)))
    values = [look.value(state.apply_unchecked(a)) for a in state.legal_actions() if a is not CLAIM]
    return values, look.nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="another checkout to compare with")
    parser.add_argument("--positions", type=int, default=20, help="positions per profile and stock")
    parser.add_argument("--rounds", type=int, default=2, help="timed rounds of each (best kept)")
    parser.add_argument("--seed", default="bench-lookahead")
    parser.add_argument("--profiles", default="vu_compat,sixty_six")
    parser.add_argument("--stocks", default="2,4,6")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-lookahead-") as tmp:
        packages = {"this tree": "bots.strong"}
        if args.baseline is not None:
            packages = {"baseline": _load_baseline(args.baseline, Path(tmp)), **packages}
        modules = {name: (importlib.import_module(f"{p}.lookahead"), importlib.import_module(f"{p}.solver"))
                   for name, p in packages.items()}
        print(f"# one world = every option searched; ms per world (CPU time), best of {args.rounds} "
              f"alternating rounds over {args.positions} positions; nodes = phase-1 nodes per world")
        if args.baseline is not None:
            print(f"# baseline: {args.baseline.resolve()}; this tree: {ROOT}")
        for profile_name in args.profiles.split(","):
            rules = profile(profile_name)
            for stock in map(int, args.stocks.split(",")):
                rng = random.Random(f"{args.seed}/{profile_name}/{stock}")
                states = [late_position(rules, rng, stock) for _ in range(args.positions)]
                best = {name: float("inf") for name in modules}
                nodes: dict[str, int] = {}
                values: dict[str, list[list[int]]] = {}
                for _ in range(args.rounds):
                    for name, (lookahead, solver) in modules.items():
                        found, count = [], 0
                        start = time.process_time()
                        for state in states:
                            world, n = _search_world(lookahead, solver, state)
                            found.append(world)
                            count += n
                        best[name] = min(best[name], time.process_time() - start)
                        nodes[name], values[name] = count, found
                if len({str(v) for v in values.values()}) > 1:
                    sys.exit(f"{profile_name}, stock {stock}: the values differ between the trees")
                line = f"{profile_name:9} stock {stock}: " + ", ".join(
                    f"{name} {best[name] / len(states) * 1000:7.1f} ms/world "
                    f"({nodes[name] / len(states):5.0f} nodes)" for name in modules)
                if args.baseline is not None:
                    line += f"; speed-up {best['baseline'] / best['this tree']:.2f}x, values identical"
                print(line, flush=True)


if __name__ == "__main__":
    main()
