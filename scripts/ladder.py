#!/usr/bin/env python3
"""The reference ladder (issue 35): the bundled bots, and the ``schnapsen`` package's when it is
installed, in a round robin of duplicate pairs; a table of Elo with 95% intervals.

So that a bot's author knows what beating each one means. Every match is a real one (bot processes
in the sandbox, the referee; ``scripts/_pairs.py``); every pairing plays ``--pairs`` duplicate pairs
(the same deals twice, seats swapped). The Elo is ``arena.results.stats.fit_elo``: a Bradley-Terry
fit of every match at once, anchored at the mean of the bots, its intervals clustered on the pair.
The table also gives each bot's match score against the field (95% interval, the pair as the unit)
and a matrix of each bot's score against each other.

The bots: ``first-legal`` (its first legal action, always), ``random``, ``greedy``, ``c-counter``
(the C example bot: counts cards, plays greedily), ``strong`` (``--worlds`` per decision, default
200: about its default time budget on an idle core, so the ladder does not depend on the load).
With ``--profile vu_compat`` and the package installed (``.venv-vu``: ``--make-vu`` makes it, as
``scripts/bench_vu.py`` does) also the package's ``vu-rand``, ``vu-bully``, ``vu-rdeep-16-4``
(``RdeepBot(16, 4)`` throughout) and ``vu-rdeep-64-8-ab`` (``RdeepBot(64, 8)``, its ``AlphaBetaBot``
once the stock is empty), through ``bots/vu_adapter``. ``--bots`` chooses among them (any
``vu-rdeep-S-D`` or ``vu-rdeep-S-D-ab`` names the package's bot with those settings).

Matches are to the profile's target (7 for ``sixty_six``; ``vu_compat`` is one deal, as the package
plays) unless ``--target`` says otherwise.

Usage: scripts/ladder.py [--profile sixty_six|schnapsen|vu_compat] [--pairs N] [--bots a,b,...]
                         [--target T] [--worlds W] [--seed S] [--workers W] [--make-vu]
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import sys
import time
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _pairs import Played, duplicate, every, load, play_all  # noqa: E402
from tabulate import tabulate  # noqa: E402

from arena.entrants.bot_specs import BotSpecError, resolve_bot  # noqa: E402
from arena.game import RulesError, load_rules  # noqa: E402
from arena.results.stats import Comparison, clustered_mean, fit_elo  # noqa: E402
from arena.types import BotSpec  # noqa: E402
from bots.vu_adapter.bot import Choice  # noqa: E402
from bots.vu_adapter.environment import VuUnavailable, adapter_command, vu_site  # noqa: E402

BUNDLED = ("first-legal", "random", "greedy", "c-counter", "strong")
VU_BOTS = ("vu-rand", "vu-bully", "vu-rdeep-16-4", "vu-rdeep-64-8-ab")
VU_NAME = re.compile(r"vu-(rand|bully|rdeep-(\d+)-(\d+))(-ab)?")
DECISION_MS = 30_000
"""The referee's limit per decision: a safety net; the bots' work is fixed (worlds, samples)."""


class LadderError(Exception):
    """Bad input: one line, exit status 2."""


def vu_choice(name: str) -> Choice | None:
    found = VU_NAME.fullmatch(name)
    if found is None:
        return None
    kind = "rdeep" if found.group(2) else found.group(1)
    samples, depth = (int(found.group(2)), int(found.group(3))) if found.group(2) else (1, 1)
    if kind == "rdeep" and min(samples, depth) < 1:
        raise LadderError(f"{name}: samples and depth must be at least 1")
    return Choice(kind, samples, depth, "alphabeta" if found.group(4) else "same")


def specs(names: list[str], profile: str, worlds: int, make_vu: bool) -> list[BotSpec]:
    out = []
    site: Path | None = None
    for name in names:
        choice = vu_choice(name)
        if choice is not None:
            if profile != "vu_compat":
                raise LadderError(f"{name}: the package's bots play vu_compat only (--profile "
                                  "vu_compat)")
            if site is None:
                try:
                    site = vu_site(make=make_vu)
                except VuUnavailable as err:
                    raise LadderError(str(err)) from None
                if site is None:
                    raise LadderError(f"{name}: the schnapsen package is not installed (.venv-vu);"
                                      " --make-vu makes it")
            options = ["--bot", choice.kind, "--samples", str(choice.samples), "--depth",
                       str(choice.depth), "--phase2", choice.phase2]
            out.append(BotSpec(name, tuple(adapter_command(site, *options))))
            continue
        text = f"strong --worlds {worlds} --budget-ms {DECISION_MS // 2}" if name == "strong" \
            else name
        if name not in BUNDLED:
            raise LadderError(f"unknown ladder bot {name!r}; bundled: {', '.join(BUNDLED)}; the "
                              f"package's: {', '.join(VU_BOTS)} (or vu-rdeep-S-D[-ab])")
        try:
            out.append(resolve_bot(text, name=name))
        except BotSpecError as err:
            raise LadderError(f"{name}: {err}") from None
    return out


def score_of(played: Played, seat: int) -> float:
    winner = played.result.winner
    return 0.5 if winner is None else float(winner == seat)


def table(plays: list[Played], names: list[str]) -> tuple[str, str]:
    """The ladder (best first) and the matrix of scores, as Markdown tables."""
    results = [Comparison(p.game.bots[0].name, p.game.bots[1].name, score_of(p, 0), p.game.pair)
               for p in plays]
    fit = fit_elo(results)
    scores: dict[str, list[float]] = {n: [] for n in names}
    clusters: dict[str, list[str]] = {n: [] for n in names}
    h2h: dict[tuple[str, str], list[float]] = {}
    for p in plays:
        for seat in (0, 1):
            me, other = p.game.bots[seat].name, p.game.bots[1 - seat].name
            scores[me].append(score_of(p, seat))
            clusters[me].append(p.game.pair)
            h2h.setdefault((me, other), []).append(score_of(p, seat))
    order = sorted(names, key=lambda n: -fit.interval(n).estimate)
    rows = []
    for rank, name in enumerate(order, 1):
        elo = fit.interval(name)
        share, _ = clustered_mean(scores[name], clusters[name])
        wins = sum(s == 1 for s in scores[name])
        draws = sum(s == 0.5 for s in scores[name])
        rows.append([rank, name, f"{elo.estimate:+.0f}", f"{elo.low:+.0f} to {elo.high:+.0f}",
                     f"{100 * share.estimate:.1f}", f"{100 * share.low:.0f}-{100 * share.high:.0f}",
                     f"{wins}-{draws}-{len(scores[name]) - wins - draws}"])
    ladder = tabulate(rows, headers=["#", "bot", "Elo", "95% interval", "score %", "95% interval",
                                     "W-D-L"], tablefmt="github", colalign=("right", "left"))
    matrix = [[name] + ["" if name == other else
                        f"{100 * sum(h2h[(name, other)]) / len(h2h[(name, other)]):.0f}"
                        for other in order] for name in order]
    grid = tabulate(matrix, headers=["score % of row vs column"] + order, tablefmt="github")
    return ladder, grid


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="sixty_six")
    parser.add_argument("--pairs", type=int, default=10, help="duplicate pairs per pairing "
                        "(default %(default)s)")
    parser.add_argument("--bots", default=None, help="comma-separated (default: every bundled bot,"
                        " and with vu_compat the package's when installed)")
    parser.add_argument("--target", type=int, default=None, help="match target (default: the "
                        "profile's)")
    parser.add_argument("--worlds", type=int, default=200, help="the strong bot's worlds per "
                        "decision (default %(default)s)")
    parser.add_argument("--seed", type=int, default=1, help="which deals (default %(default)s)")
    parser.add_argument("--workers", type=int, default=2, help="matches at once (default "
                        "%(default)s)")
    parser.add_argument("--make-vu", action="store_true", help="make .venv-vu with the package "
                        "if it is missing")
    args = parser.parse_args()
    try:
        if args.pairs < 1 or args.worlds < 1 or args.workers < 1:
            raise LadderError("--pairs, --worlds and --workers must be at least 1")
        overrides = {} if args.target is None else {"match_target": args.target}
        try:
            rules = load_rules(args.profile, overrides=overrides)
        except RulesError as err:
            raise LadderError(str(err)) from None
        if rules.players != 2:
            raise LadderError(f"the ladder is for two players; {args.profile} has {rules.players}")
        if args.bots is not None:
            names = [n.strip() for n in args.bots.split(",") if n.strip()]
        else:
            names = list(BUNDLED)
            if args.profile == "vu_compat" and (args.make_vu or vu_site() is not None):
                names += VU_BOTS
        if len(set(names)) != len(names) or len(names) < 2:
            raise LadderError("--bots names at least two different bots")
        bots = specs(names, args.profile, args.worlds, args.make_vu)
    except LadderError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    games = [g for (i, a), (j, b) in combinations(enumerate(bots), 2) for k in range(args.pairs)
             for g in duplicate(f"ladder/{args.seed}/{i}-{j}/{k}", a, b, rules)]
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(f"# ladder {stamp}: profile {args.profile}, match target {rules.match_target}; "
          f"{args.pairs} duplicate pairs per pairing ({len(games)} matches); strong --worlds "
          f"{args.worlds}; seed {args.seed}; {args.workers} matches at once; load {load()} at the "
          f"start, {os.cpu_count()} cores")
    started = time.monotonic()
    plays = play_all(games, args.workers, DECISION_MS, every(max(10, len(games) // 10)))
    faults = [f"{p.result.match_id}: {p.result.fault} by "
              f"{p.game.bots[p.result.offender].name if p.result.offender is not None else '?'}: "
              f"{p.result.detail}" for p in plays if p.result.fault is not None]
    print(f"# {time.monotonic() - started:.0f} s; load {load()} at the end; faults "
          f"{len(faults)} (a forfeit counts as the offender's loss)")
    for line in faults:
        print(f"#   {line}")
    ladder, grid = table(plays, names)
    print()
    print(ladder)
    print()
    print(grid)
    return 0


if __name__ == "__main__":
    sys.exit(main())
