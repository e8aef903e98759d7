"""Who plays whom, with which deals and seats: a pure function of the tournament's settings.

A tournament decides *who plays whom*; the runner decides *when and where* (cutechess's split).
Every pairing of a round robin plays its matches in **duplicate pairs**: the same deals twice, with
the seats swapped, so the luck of the cards cancels (RULES.md §8's recommendation). The two matches
of a pair share a *deal set*, a public label; which cards it deals is a secret of the tournament's
key (``deal_keys.py``), so the schedule itself holds nothing a bot could deal from. Match ids are
derived from the tournament name, the pairing and the index, never from time, order of completion
or the key, so a resumed run knows exactly which matches are missing.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from itertools import combinations
from typing import Sequence

from arena.deal_keys import deal_set_label


@dataclass(frozen=True)
class ScheduledMatch:
    """One match to play. ``order`` is its place in the schedule: ratings are updated in this order,
    whatever order the workers finish in."""

    order: int
    match_id: str
    seat0: str          # bot name in seat 0
    seat1: str          # bot name in seat 1
    deal_set: str       # label of the match's deals (shared by the two matches of a duplicate pair)
    first_dealer: int
    pairing: tuple[str, str]  # the two bots, in tournament order
    pair_index: int     # which duplicate pair of this pairing
    swapped: bool       # the second match of the pair (seats swapped)


def round_robin(tournament: str, bots: Sequence[str], pairs_per_pairing: int) -> list[ScheduledMatch]:
    """Every pairing of ``bots`` plays ``pairs_per_pairing`` duplicate pairs (two matches each).

    The schedule interleaves pairings (pair 0 of every pairing, then pair 1, ...) so that a run
    stopped early has played every pairing about equally.
    """
    if len(set(bots)) != len(bots):
        duplicates = sorted({b for b in bots if list(bots).count(b) > 1})
        raise ValueError(f"bot names must be unique in a tournament; repeated: {', '.join(duplicates)}")
    if len(bots) < 2:
        raise ValueError("a round robin needs at least two bots")
    if pairs_per_pairing < 1:
        raise ValueError("each pairing needs at least one duplicate pair (two matches)")
    schedule: list[ScheduledMatch] = []
    pairings = list(combinations(bots, 2))
    for pair_index in range(pairs_per_pairing):
        for a, b in pairings:
            deal_set = deal_set_label(pair_index, a, b)
            # Which bot deals first also alternates between pairs, so neither bot always deals
            # first in seat 0; within a pair the deals are identical and only the seats swap.
            first_dealer = pair_index % 2
            for swapped in (False, True):
                seat0, seat1 = (b, a) if swapped else (a, b)
                match_id = _match_id(tournament, a, b, pair_index, swapped)
                schedule.append(ScheduledMatch(len(schedule), match_id, seat0, seat1, deal_set,
                                               first_dealer, (a, b), pair_index, swapped))
    return schedule


def _match_id(tournament: str, a: str, b: str, pair_index: int, swapped: bool) -> str:
    digest = hashlib.sha256(f"{tournament}/{a}/{b}/{pair_index}/{int(swapped)}".encode()).hexdigest()
    return f"{pair_index:04d}{'b' if swapped else 'a'}-{digest[:12]}"
