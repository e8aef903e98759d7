"""Duplicate pairs of matches between bot processes, for scripts/bench_vu.py and scripts/ladder.py.

Each match is a real one: bot processes in the sandbox, the referee (``arena.match.referee.run_match``)
checking every answer, each seat's stderr kept. The two matches of a pair deal the same cards
(the pair's label is their seed: a research run's public deals, as ``--seed`` in a tournament), the
seats swapped. A few matches run at once on threads: the referee mostly waits on its bots, and each
match has its own processes.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.game import Rules  # noqa: E402
from arena.match.bot_process import Limits  # noqa: E402
from arena.match.referee import MatchConfig, run_match  # noqa: E402
from arena.types import BotSpec, MatchResult  # noqa: E402


@dataclass(frozen=True)
class Game:
    """One match to play: ``bots`` in seat order, dealt from ``pair`` (the duplicate pair's label)."""

    pair: str
    bots: tuple[BotSpec, BotSpec]
    rules: Rules
    seating: int = 0   # 1: the pair's second match, seats swapped

    @property
    def match_id(self) -> str:
        return f"{self.pair}-{self.seating}".replace("/", "-")


@dataclass(frozen=True)
class Played:
    game: Game
    result: MatchResult
    stderr: tuple[str, str]   # what each seat wrote on stderr (the first MiB the referee keeps)

    def seat_of(self, name: str) -> int:
        return [b.name for b in self.game.bots].index(name)


def duplicate(pair: str, a: BotSpec, b: BotSpec, rules: Rules) -> list[Game]:
    """The two matches of a duplicate pair: ``a`` in seat 0, then ``b`` on the same cards."""
    return [Game(pair, (a, b), rules, 0), Game(pair, (b, a), rules, 1)]


def load() -> str:
    """The machine's load average over the last minute, as text (the benchmarks print it)."""
    return f"{os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else "unknown"


def play_all(games: Sequence[Game], workers: int, decision_ms: int,
             progress: Callable[[int, int, float], None] | None = None,
             each: Callable[[Played], None] | None = None) -> list[Played]:
    """Play ``games`` (``workers`` at a time), in the order given back. Every fault is a result
    (the referee never raises for a bot); ``progress(done, total, seconds)`` after each match, and
    ``each(played)`` first (in this thread: a record written there is whole if the run stops)."""
    limits = Limits(decision_ms=decision_ms, startup_ms=max(decision_ms, 10_000))
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-pairs-") as tmp:
        logs = Path(tmp)

        def one(game: Game) -> Played:
            result = run_match(list(game.bots), MatchConfig(rules=game.rules, seed=game.pair,
                                                            match_id=game.match_id, limits=limits),
                               log_dir=logs)
            stderr = tuple(_read(logs / f"{game.match_id}.seat{s}.stderr.log") for s in (0, 1))
            return Played(game, result, (stderr[0], stderr[1]))

        out: dict[int, Played] = {}
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            futures = {pool.submit(one, g): i for i, g in enumerate(games)}
            for future in as_completed(futures):
                out[futures[future]] = future.result()
                if each is not None:
                    each(out[futures[future]])
                if progress is not None:
                    progress(len(out), len(games), time.monotonic() - started)
    return [out[i] for i in range(len(games))]


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def every(n: int) -> Callable[[int, int, float], None]:
    """A progress callback that prints every ``n`` matches (and the last) on stderr."""
    def show(done: int, total: int, seconds: float) -> None:
        if done % n == 0 or done == total:
            print(f"  {done}/{total} matches, {seconds:.0f} s (load {load()})", file=sys.stderr,
                  flush=True)
    return show
