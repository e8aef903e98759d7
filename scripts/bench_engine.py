#!/usr/bin/env python3
"""Engine speed: random legal deals in one process, per profile (issue: >= 10,000 sixty_six deals/s).

Each deal is dealt from a seed (shuffle included), then played to its settlement with
``legal_actions()`` + ``apply_unchecked()``. Two policies are measured side by side:

- ``uniform``: a uniformly random legal action at every decision (the issue's "random legal deals").
  Such a player claims and closes at random, so most of its deals end early on a wrong claim.
- ``playout``: a random card at every lead and follow, never claiming, closing, exchanging or
  marrying, so every deal runs all its tricks: the figure a search bot's playouts will see.

Also reported: ``apply`` (validated) against ``apply_unchecked`` for the playout policy, and the
average number of decisions per deal. The three- and four-player profiles (RULES.md §10) are measured
the same way and set against the two-player rate (issue 15: aim for at least half of it).

``--baseline DIR`` compares the two-player playout rate of this tree with another checkout of the
engine (``git worktree add /tmp/old <commit>`` or ``git archive <commit> arena | tar -x -C /tmp/old``)
in one run and one process: both engines are loaded, short rounds of the same deals alternate
between them, and the best round of each is kept (on a shared machine the best round is the least
disturbed one). It prints both rates and their ratio.

Usage: scripts/bench_engine.py [--seconds S] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _import_engine(root: Path):  # noqa: ANN202 - returns a module-like tuple, kept local
    sys.path.insert(0, str(root))
    from arena.game import PROFILES, ActionKind, DealState, shuffled_order
    from arena.game.actions import PASS
    return PROFILES, ActionKind, DealState, shuffled_order, PASS


def _policies(action_kind, pass_action):  # noqa: ANN001, ANN202
    play = action_kind.PLAY

    def uniform(rng: random.Random, legal):  # noqa: ANN001, ANN202
        return legal[rng.randrange(len(legal))]

    def playout(rng: random.Random, legal):  # noqa: ANN001, ANN202
        # legal_actions() lists the card plays last, after any exchange/close/marry/claim.
        first = len(legal)
        while first and legal[first - 1].kind is play:
            first -= 1
        return legal[rng.randrange(first, len(legal))] if first < len(legal) else pass_action

    return {"uniform": uniform, "playout": playout}


def run(engine, rules, policy, seconds: float, checked: bool) -> tuple[float, float]:  # noqa: ANN001
    """(deals per second, decisions per deal) over about ``seconds`` of play."""
    _, _, deal_state, shuffled_order, _ = engine
    players = getattr(rules, "players", 2)
    rng = random.Random(12345)
    deals = decisions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(50):
            state = deal_state.new(rules, deals % players, shuffled_order(rules, 99, deals))
            while state.settlement is None:
                action = policy(rng, state.legal_actions())
                state = state.apply(action) if checked else state.apply_unchecked(action)
                decisions += 1
            deals += 1
        now = time.perf_counter()
        if now >= deadline:
            return deals / (now - start), decisions / deals


def _load_baseline(baseline: Path, into: Path) -> Path:
    """A copy of ``baseline``'s engine importable beside this one, as ``baseline_arena.game``.

    The engine is a leaf (STYLE.md habit 1: it imports nothing else from the repository), so
    renaming its package in the import lines is all it takes to load both in one process."""
    package = into / "baseline_arena"
    (package / "game").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    for source in sorted((baseline / "arena" / "game").glob("*.py")):
        text = source.read_text(encoding="utf-8").replace("arena.game", "baseline_arena.game")
        (package / "game" / source.name).write_text(text, encoding="utf-8")
    return into


def _engine_named(package: str):  # noqa: ANN202
    import importlib

    game = importlib.import_module(f"{package}.game")
    actions = importlib.import_module(f"{package}.game.actions")
    return game.PROFILES, game.ActionKind, game.DealState, game.shuffled_order, actions.PASS


def compare(baseline: Path, seconds: float, deals: int = 100) -> None:
    """The two-player playout rate of ``baseline`` and of this tree, in one process: short rounds of
    the same deals alternate between the two engines for about ``seconds``, and the best round of
    each is kept, so that whatever else the machine does falls on both alike."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bench-engine-") as tmp:
        sys.path.insert(0, str(_load_baseline(baseline, Path(tmp))))
        engines = {"baseline": _engine_named("baseline_arena"), "this tree": _import_engine(ROOT)}
        work = {}
        for name, engine in engines.items():
            rules = engine[0]["sixty_six"]
            orders = [engine[3](rules, 99, i) for i in range(deals)]
            work[name] = (engine[2], rules, orders, _policies(engine[1], engine[4])["playout"])
        best = {name: 0.0 for name in engines}
        rounds = 0
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline or rounds < 2:
            rounds += 1
            for name, (deal_state, rules, orders, policy) in work.items():
                rng = random.Random(rounds)
                start = time.process_time()
                for i, order in enumerate(orders):
                    state = deal_state.new(rules, i & 1, order)
                    while state.settlement is None:
                        state = state.apply_unchecked(policy(rng, state.legal_actions()))
                elapsed = time.process_time() - start
                if elapsed > 0:
                    best[name] = max(best[name], deals / elapsed)
    print(f"# sixty_six playout, one process, best of {rounds} alternating rounds of {deals} deals")
    print(f"baseline ({baseline}): {best['baseline']:,.0f} deals/s")
    print(f"this tree ({ROOT}): {best['this tree']:,.0f} deals/s")
    print(f"ratio this/baseline: {best['this tree'] / best['baseline']:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--baseline", type=Path, help="another checkout to compare the 2-player rate with")
    args = parser.parse_args()
    if args.baseline:
        if not (args.baseline / "arena" / "game").is_dir():
            parser.error(f"--baseline {args.baseline}: no arena/game there")
        compare(args.baseline.resolve(), 4 * args.seconds)
        return
    engine = _import_engine(ROOT)
    profiles, policies = engine[0], _policies(engine[1], engine[4])
    names = ("sixty_six", "schnapsen", "three_player", "four_player")
    print(f"# python {sys.version.split()[0]}, one process, {args.seconds:.0f} s per figure")
    for name in names:
        rate, per_deal = run(engine, profiles[name], policies["uniform"], args.seconds, checked=False)
        print(f"{name}: {rate:,.0f}   (uniform random, {per_deal:.1f} decisions/deal)")
    playout_rates = {}
    for name in names:
        rules = profiles[name]
        fast, per_deal = run(engine, rules, policies["playout"], args.seconds, checked=False)
        checked, _ = run(engine, rules, policies["playout"], args.seconds, checked=True)
        playout_rates[name] = fast
        print(f"{name} playout: {fast:,.0f}   ({per_deal:.1f} decisions/deal; "
              f"validated apply: {checked:,.0f}, ratio {fast / checked:.2f})")
    for name in ("three_player", "four_player"):
        print(f"{name} playout / sixty_six playout: {playout_rates[name] / playout_rates['sixty_six']:.2f}")


if __name__ == "__main__":
    main()
