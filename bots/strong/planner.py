"""Choosing among a few options by their average over sampled worlds, within a time budget.

Each round draws one world and values every option still in the running in it (the same world for
all, so the options are compared on equal cards and the luck of the deal cancels out in their
differences). Options that clearly trail the leader drop out, so the time goes to telling apart
the ones that are close; rounds go on until one option is left, the time is up, or a cap is
reached. A round is not begun when the longest one so far would end past the deadline.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable, Generic, Sequence, TypeVar

T = TypeVar("T")

Z = 2.0               # how clearly an option must trail the leader to drop out
MIN_WORLDS = 12       # no option drops out on fewer worlds than this
MAX_WORLDS = 600      # no decision needs more (and the clock usually says stop first)


class Budget:
    """A deadline on the monotonic clock, fixed when the request arrived."""

    def __init__(self, seconds: float, start: float | None = None):
        self.start = time.perf_counter() if start is None else start
        self.seconds = seconds
        self.deadline = self.start + seconds

    def over(self) -> bool:
        return time.perf_counter() >= self.deadline

    def no_time_for(self, seconds: float) -> bool:
        """Whether work taking ``seconds`` more would end past the deadline: a loop that stops
        only once the deadline has passed overruns it by one round, and at the 99th percentile
        that round is what takes a decision past its share of the limit."""
        return time.perf_counter() + seconds >= self.deadline

    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.start) * 1000


@dataclass
class Choice(Generic[T]):
    """The option chosen, and what the sampling saw (for logs and benchmarks)."""

    option: T
    worlds: int
    means: list[float] = field(default_factory=list)


def choose(options: Sequence[T], values_in_a_world: Callable[[list[int]], Sequence[float]],
           budget: Budget, min_worlds: int = MIN_WORLDS, max_worlds: int = MAX_WORLDS) -> Choice[T]:
    """The option with the best mean value over sampled worlds.

    ``values_in_a_world(active)`` draws one world and returns the value of each option whose
    index is in ``active``, in that order. Once ``min_worlds`` are in, an option that trails the
    leader clearly (by more than ``Z`` standard errors of their paired differences, or by the same
    margin in every world) is dropped, and later worlds are spent on the options still in doubt;
    sampling stops when one is left, when ``max_worlds`` is reached, or when the longest round so
    far would not fit in the budget left. Ties go to the
    earlier option, so callers list first the option they prefer on equal evidence. At least one
    world is always drawn, whatever the budget.
    """
    n_options = len(options)
    if n_options == 1:
        return Choice(options[0], 0, [0.0])
    active = list(range(n_options))
    # Options only ever leave, so option i's values are those of worlds 0 .. len(values[i]) - 1.
    values: list[list[float]] = [[] for _ in options]
    worlds = 0
    slowest = 0.0  # the longest round so far: the next one may take as long
    while True:
        started = time.perf_counter()
        for i, v in zip(active, values_in_a_world(active)):
            values[i].append(v)
        worlds += 1
        slowest = max(slowest, time.perf_counter() - started)
        if worlds >= max_worlds or budget.no_time_for(slowest):
            break
        if worlds >= min_worlds and worlds % 4 == 0:
            active = _still_in_doubt(active, values)
            if len(active) == 1:
                break
    best = _leader(active, values)
    means = [sum(v) / len(v) if v else float("-inf") for v in values]
    return Choice(options[best], worlds, means)


def _leader(active: list[int], values: list[list[float]]) -> int:
    return max(active, key=lambda i: (sum(values[i]) / len(values[i]), -i))


def _still_in_doubt(active: list[int], values: list[list[float]]) -> list[int]:
    best = _leader(active, values)
    lead = values[best]
    keep = []
    for i in active:
        if i != best:
            diffs = [lead[w] - v for w, v in enumerate(values[i])]
            n = len(diffs)
            mean = sum(diffs) / n
            var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
            # Alike in every world so far (equal, or always behind by as much): no more to learn.
            if var == 0.0 or mean > Z * math.sqrt(var / n):
                continue
        keep.append(i)
    return keep
