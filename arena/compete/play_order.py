"""The order a local run hands out its matches: each round's deal sets, the longest first.

The schedule (``schedule.py``) is round-major: every group's first deal set, then every group's
second, ... so that a run stopped early has played every group about equally. A deal set's matches
go to one worker in turn (``Pool(exclusive=)``), so a run ended with the last round's sets in the
schedule's order: with a slow bot in the last group, one worker played that group's pair of slow
matches while the others had nothing left (the demo: the strong bot's pair last, ~1.5 s of a 6 s
run on two workers, issue 18). Within each round the sets are now handed out by how long their
bots' matches have taken so far in this run, the longest first (the classic longest-processing-
time-first rule), so that a run ends on short matches, and the round order is kept.

Nothing a result depends on changes: which matches are played, their deals and seats, and the
ratings, which are computed in schedule order (``sched_order``) whatever order matches finish in.
"""

from __future__ import annotations

import itertools
import math
from typing import Iterable, Iterator, Sequence

from arena.types import ScheduledMatch


class MatchCosts:
    """How long each bot's matches have taken in this run (the referee's play time, mean)."""

    def __init__(self) -> None:
        self._sums: dict[str, list[float]] = {}  # bot -> [total ms, matches]
        self.version = 0  # grows with each match added: an order made before it is stale

    def add(self, seats: Sequence[str], play_ms: float) -> None:
        for bot in set(seats):
            total = self._sums.setdefault(bot, [0.0, 0])
            total[0] += play_ms
            total[1] += 1
        self.version += 1

    def of(self, group: Sequence[str]) -> float:
        """The expected play time of a match among ``group``: the mean of its bots' means;
        infinite while one of them has no match yet (unknown: handed out first, and learnt)."""
        means = []
        for bot in group:
            total = self._sums.get(bot)
            if total is None:
                return math.inf
            means.append(total[0] / total[1])
        return sum(means) / len(means)


def longest_first(schedule: Iterable[ScheduledMatch],
                  costs: MatchCosts) -> Iterator[ScheduledMatch]:
    """``schedule``'s matches, round by round; within a round, its deal sets (each whole) by
    ``costs``, the longest first; ties, and a first round with nothing known, in the schedule's
    order. Each next set is chosen when it is asked for, from what ``costs`` knows then: a worker
    holds a fraction of a second of matches ahead, so a round may begin while the last one's
    results are still coming in."""
    for _, in_round in itertools.groupby(schedule, key=lambda m: m.set_index):
        # The round's sets, the next at the end: the longest, the first in the schedule of ties.
        sets = [list(matches)
                for _, matches in itertools.groupby(in_round, key=lambda m: m.deal_set)]
        known = -1
        while sets:
            if known != costs.version:  # a few hundred sets at most: sorted again per report
                sets.sort(key=lambda matches: (costs.of(matches[0].group), -matches[0].order))
                known = costs.version
            yield from sets.pop()
