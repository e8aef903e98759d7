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
import json
from itertools import combinations, permutations
from typing import Sequence

from arena.match.deal_keys import deal_set_label
from arena.types import ScheduledMatch


def round_robin(tournament: str, bots: Sequence[str], pairs_per_pairing: int) -> list[ScheduledMatch]:
    """Every pairing of ``bots`` plays ``pairs_per_pairing`` duplicate pairs (two matches each).

    The schedule interleaves pairings (pair 0 of every pairing, then pair 1, ...) so that a run
    stopped early has played every pairing about equally.
    """
    _check_unique(bots)
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
                schedule.append(ScheduledMatch(len(schedule), match_id, (seat0, seat1), deal_set,
                                               first_dealer, (a, b), pair_index, int(swapped)))
    return schedule


_Plan = tuple[tuple[str, ...], list[tuple[str, ...]]]
"""A group of bots and the seatings each of its deal sets is played in."""


def three_player_sets(tournament: str, bots: Sequence[str], sets_per_group: int) -> list[ScheduledMatch]:
    """Every set of three of ``bots`` plays ``sets_per_group`` deal sets; each deal set is played in
    all six seat orders (RULES.md §10.2 seats), so every bot meets the same cards from every seat and
    with every neighbour to its left: the duplicate pair generalised to three players.

    Costs ``6 * sets_per_group * C(B, 3)`` matches for B bots.
    """
    _check_unique(bots)
    if len(bots) < 3:
        raise ValueError("a three-player tournament needs at least three bots")
    _check_sets(sets_per_group)
    plans: list[_Plan] = [(group, group_seatings(group)) for group in combinations(bots, 3)]
    return _interleave(tournament, "three_player", plans, sets_per_group, players=3)


def partnership_groups(tournament: str, bots: Sequence[str], sets_per_group: int) -> list[ScheduledMatch]:
    """Four players in two partnerships (RULES.md §10.3: seats 0+2 against 1+3). Every group of four
    of ``bots`` plays ``sets_per_group`` deal sets; each deal set is played in the three ways of
    splitting the group into partnerships, each with the sides swapped, six matches on the same
    deals. Every bot is rated on its own; whom it partners changes from match to match.

    With fewer than four bots a bot fills two seats, partnering itself (a bot is never on both
    sides of one match): two bots play A+A against B+B (two matches per deal set); three bots play
    each bot doubled against the other two (six matches per deal set).

    Costs ``6 * sets_per_group * C(B, 4)`` matches for B >= 4 bots, ``6 * sets_per_group`` for three
    and ``2 * sets_per_group`` for two.
    """
    _check_unique(bots)
    if len(bots) < 2:
        raise ValueError("a four-player tournament needs at least two bots")
    _check_sets(sets_per_group)
    plans: list[_Plan] = []
    Split = tuple[tuple[str, str], tuple[str, str]]
    if len(bots) >= 4:
        plans = [(group, group_seatings(group)) for group in combinations(bots, 4)]
    else:
        everyone = tuple(bots)
        splits: list[Split]
        if len(everyone) == 2:
            x, y = everyone
            splits = [((x, x), (y, y))]
        else:
            splits = []
            for x in everyone:
                y, z = (o for o in everyone if o != x)
                splits.append(((x, x), (y, z)))
        plans.append((everyone, [seats for split in splits for seats in _both_ways(*split)]))
    return _interleave(tournament, "four_player", plans, sets_per_group, players=4)


def group_seatings(group: Sequence[str]) -> list[tuple[str, ...]]:
    """The six seatings a deal set of ``group`` (three or four different bots) is played in: every
    seat order of three; the three partnership splits of four, each with the sides swapped. A
    league's group plays these, as ``three_player_sets`` and ``partnership_groups`` do."""
    if len(set(group)) != len(group) or len(group) not in (3, 4):
        raise ValueError(f"a group is three or four different bots, not {list(group)}")
    if len(group) == 3:
        return list(permutations(group))
    a, b, c, d = group
    return [seats for split in (((a, b), (c, d)), ((a, c), (b, d)), ((a, d), (b, c)))
            for seats in _both_ways(*split)]


def _both_ways(side0: tuple[str, str], side1: tuple[str, str]) -> list[tuple[str, ...]]:
    """The seatings of one partnership split: partners opposite, then the sides swapped."""
    (p, q), (r, s) = side0, side1
    return [(p, r, q, s), (r, p, s, q)]


def _interleave(tournament: str, profile: str,
                plans: list[_Plan],
                sets_per_group: int, players: int) -> list[ScheduledMatch]:
    # Set 0 of every group first, then set 1, ...: a run stopped early has played every group about
    # equally, and always whole sets of a group first (as round_robin does with pairs).
    schedule: list[ScheduledMatch] = []
    for set_index in range(sets_per_group):
        for group, seatings in plans:
            deal_set = deal_set_label(profile, set_index, *group)
            # The first dealer rotates between sets; within a set the deals are identical and only
            # the seating changes.
            first_dealer = set_index % players
            for seating, seats in enumerate(seatings):
                digest = hashlib.sha256(
                    json.dumps([tournament, profile, list(group), set_index, seating]).encode()).hexdigest()
                match_id = f"{set_index:04d}{_seating_letter(seating)}-{digest[:12]}"
                schedule.append(ScheduledMatch(len(schedule), match_id, seats, deal_set, first_dealer,
                                               group, set_index, seating))
    return schedule


def _seating_letter(seating: int) -> str:
    return "abcdefghijklmnopqrstuvwxyz"[seating]


def _check_unique(bots: Sequence[str]) -> None:
    if len(set(bots)) != len(bots):
        duplicates = sorted({b for b in bots if list(bots).count(b) > 1})
        raise ValueError(f"bot names must be unique in a tournament; repeated: {', '.join(duplicates)}")


def _check_sets(sets_per_group: int) -> None:
    if sets_per_group < 1:
        raise ValueError("each group needs at least one deal set")


def _match_id(tournament: str, a: str, b: str, pair_index: int, swapped: bool) -> str:
    digest = hashlib.sha256(f"{tournament}/{a}/{b}/{pair_index}/{int(swapped)}".encode()).hexdigest()
    return f"{pair_index:04d}{'b' if swapped else 'a'}-{digest[:12]}"
