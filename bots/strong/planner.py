"""Choosing among a few options by their average over sampled worlds, within a time budget.

Each round draws one world and values every option in it (the same world for all, so the options
are compared on equal cards and the noise of the deal cancels out in their differences). Rounds go
on until the time is up, or a cap is reached, or the best option leads the runner-up clearly: its
mean advantage over the rounds so far exceeds ``Z`` standard errors of the paired differences, or
the two have scored alike in every world (then more worlds would not tell them apart either).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable, Generic, Sequence, TypeVar

T = TypeVar("T")

Z = 2.5               # how clear a lead must be to stop sampling early
MIN_WORLDS = 12       # never stop early on fewer worlds than this
MAX_WORLDS = 600      # no decision needs more (and the clock usually says stop first)


class Budget:
    """A deadline on the monotonic clock, fixed when the request arrived."""

    def __init__(self, seconds: float, start: float | None = None):
        self.start = time.perf_counter() if start is None else start
        self.deadline = self.start + seconds

    def over(self) -> bool:
        return time.perf_counter() >= self.deadline

    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.start) * 1000


@dataclass
class Choice(Generic[T]):
    """The option chosen, and what the sampling saw (for logs and benchmarks)."""

    option: T
    worlds: int
    means: list[float] = field(default_factory=list)


def choose(options: Sequence[T], values_in_a_world: Callable[[], Sequence[float]], budget: Budget,
           min_worlds: int = MIN_WORLDS, max_worlds: int = MAX_WORLDS) -> Choice[T]:
    """The option with the best mean value over sampled worlds. Ties go to the earlier option, so
    callers list their options with the one to prefer on equal evidence first. At least one world
    is always drawn, whatever the budget."""
    n_options = len(options)
    if n_options == 1:
        return Choice(options[0], 0, [0.0])
    rows: list[Sequence[float]] = []
    sums = [0.0] * n_options
    while True:
        row = values_in_a_world()
        rows.append(row)
        for i in range(n_options):
            sums[i] += row[i]
        n = len(rows)
        if n >= max_worlds or budget.over():
            break
        if n >= min_worlds and n % 4 == 0 and _clear_leader(sums, rows):
            break
    best = max(range(n_options), key=lambda i: (sums[i], -i))
    return Choice(options[best], len(rows), [s / len(rows) for s in sums])


def _clear_leader(sums: list[float], rows: list[Sequence[float]]) -> bool:
    order = sorted(range(len(sums)), key=lambda i: (-sums[i], i))
    best, second = order[0], order[1]
    diffs = [row[best] - row[second] for row in rows]
    n = len(diffs)
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    if var == 0.0:
        return True  # the same in every world so far (equal, or one always ahead)
    return mean > Z * math.sqrt(var / n)
