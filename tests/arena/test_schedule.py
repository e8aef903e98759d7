"""The round-robin schedule is a pure, deterministic function of the tournament's settings."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.compete.schedule import round_robin

BOTS = ["random", "greedy", "c-counter", "first-legal"]


def test_every_pairing_plays_the_same_number_of_duplicate_pairs():
    schedule = round_robin("t", BOTS, pairs_per_pairing=3)
    assert len(schedule) == 6 * 3 * 2  # 6 pairings, 3 pairs each, 2 matches a pair
    per_pairing = Counter(m.pairing for m in schedule)
    assert len(per_pairing) == 6 and set(per_pairing.values()) == {6}


def test_a_duplicate_pair_plays_the_same_deals_with_seats_swapped():
    schedule = round_robin("t", BOTS, pairs_per_pairing=2)
    by_pair: dict[tuple, list] = {}
    for m in schedule:
        by_pair.setdefault((m.pairing, m.pair_index), []).append(m)
    for (pairing, _), (first, second) in by_pair.items():
        assert first.deal_set == second.deal_set and first.first_dealer == second.first_dealer
        assert (first.seat0, first.seat1) == pairing == (second.seat1, second.seat0)
        assert not first.swapped and second.swapped


def test_deal_sets_differ_between_pairs_and_pairings():
    schedule = round_robin("t", BOTS, pairs_per_pairing=4)
    sets = {(m.pairing, m.pair_index): m.deal_set for m in schedule}
    assert len(set(sets.values())) == len(sets)


def test_schedule_is_deterministic_and_ids_are_unique():
    a = round_robin("t", BOTS, 3)
    assert a == round_robin("t", BOTS, 3)
    assert len({m.match_id for m in a}) == len(a)
    assert [m.order for m in a] == list(range(len(a)))


def test_the_schedule_holds_no_seed():
    # Which cards a deal set deals is a secret of the tournament's key (deal_keys.py): nothing in
    # the schedule, which a bot could rebuild from public names, determines a deal.
    fields = set(round_robin("t", BOTS, 1)[0].__dataclass_fields__)
    assert not any("seed" in f or "key" in f or "secret" in f for f in fields)


def test_pairings_are_interleaved_so_a_stopped_run_is_balanced():
    schedule = round_robin("t", BOTS, pairs_per_pairing=5)
    first_round = schedule[:12]
    assert {m.pair_index for m in first_round} == {0}
    assert len({m.pairing for m in first_round}) == 6


def test_first_dealer_alternates_between_pairs():
    schedule = round_robin("t", ["a", "b"], pairs_per_pairing=4)
    assert [m.first_dealer for m in schedule] == [0, 0, 1, 1, 0, 0, 1, 1]


@pytest.mark.parametrize("bots,pairs,message", [
    (["a", "a", "b"], 1, "repeated: a"),
    (["a"], 1, "at least two bots"),
    (["a", "b"], 0, "at least one duplicate pair"),
])
def test_bad_settings_are_clear_errors(bots, pairs, message):
    with pytest.raises(ValueError, match=message):
        round_robin("t", bots, pairs)


# -- three and four players (issue 16) ----------------------------------------------------------

from itertools import combinations, permutations  # noqa: E402
from math import comb  # noqa: E402

from arena.compete.schedule import partnership_groups, three_player_sets  # noqa: E402


@pytest.mark.parametrize("bots", [3, 4, 5, 6])
def test_three_player_sets_play_each_deal_set_in_all_six_seat_orders(bots):
    names = [f"b{i}" for i in range(bots)]
    schedule = three_player_sets("t", names, sets_per_group=2)
    assert len(schedule) == 6 * 2 * comb(bots, 3)
    by_set: dict = {}
    for m in schedule:
        by_set.setdefault(m.deal_set, []).append(m)
    assert len(by_set) == 2 * comb(bots, 3)
    for matches in by_set.values():
        group = matches[0].group
        assert {m.seats for m in matches} == set(permutations(group))
        assert len({(m.first_dealer, m.set_index, m.group) for m in matches}) == 1


def test_three_player_first_dealer_rotates_between_sets_and_groups_interleave():
    schedule = three_player_sets("t", ["a", "b", "c", "d"], sets_per_group=4)
    first_sets = schedule[:6 * 4]
    assert {m.set_index for m in first_sets} == {0}
    assert len({m.group for m in first_sets}) == 4
    assert sorted({(m.set_index, m.first_dealer) for m in schedule}) == [(0, 0), (1, 1), (2, 2), (3, 0)]


@pytest.mark.parametrize("bots", [4, 5, 6])
def test_partnership_groups_play_every_split_both_ways_on_the_same_deals(bots):
    names = [f"b{i}" for i in range(bots)]
    schedule = partnership_groups("t", names, sets_per_group=1)
    assert len(schedule) == 6 * comb(bots, 4)
    for group in combinations(names, 4):
        matches = [m for m in schedule if m.group == group]
        assert len(matches) == 6 and len({m.deal_set for m in matches}) == 1
        # Sides are seats 0+2 and 1+3 (RULES.md §10.4): the three splits, each with either side first.
        sides = [(frozenset(m.seats[0::2]), frozenset(m.seats[1::2])) for m in matches]
        splits = {frozenset(pair) for pair in sides}
        assert len(splits) == 3 and len(set(sides)) == 6
        for m in matches:
            assert sorted(m.seats) == sorted(group)


def test_two_bots_in_four_player_partner_themselves():
    schedule = partnership_groups("t", ["a", "b"], sets_per_group=3)
    assert [m.seats for m in schedule[:2]] == [("a", "b", "a", "b"), ("b", "a", "b", "a")]
    assert len(schedule) == 6


def test_three_bots_in_four_player_each_partner_itself_against_the_other_two():
    schedule = partnership_groups("t", ["a", "b", "c"], sets_per_group=1)
    assert len(schedule) == 6 and len({m.deal_set for m in schedule}) == 1
    for m in schedule:
        side0, side1 = m.seats[0::2], m.seats[1::2]
        assert not set(side0) & set(side1)          # a bot is never on both sides
        assert len(set(side0)) == 1 or len(set(side1)) == 1
    doubled = {next(iter(set(s))) for m in schedule for s in (m.seats[0::2], m.seats[1::2])
               if len(set(s)) == 1}
    assert doubled == {"a", "b", "c"}


def test_n_seat_match_ids_are_unique_stable_and_hold_no_seed():
    a = partnership_groups("t", list("abcde"), 2) + three_player_sets("t", list("abcde"), 2)
    b = partnership_groups("t", list("abcde"), 2) + three_player_sets("t", list("abcde"), 2)
    assert a == b
    assert len({m.match_id for m in a}) == len(a)
    assert {m.match_id for m in partnership_groups("u", list("abcde"), 2)}.isdisjoint(
        {m.match_id for m in a})


@pytest.mark.parametrize("make,bots,sets,message", [
    (three_player_sets, ["a", "b"], 1, "at least three bots"),
    (three_player_sets, ["a", "b", "a"], 1, "repeated: a"),
    (three_player_sets, ["a", "b", "c"], 0, "at least one deal set"),
    (partnership_groups, ["a"], 1, "at least two bots"),
    (partnership_groups, ["a", "b", "b", "c"], 1, "repeated: b"),
])
def test_bad_n_seat_settings_are_clear_errors(make, bots, sets, message):
    with pytest.raises(ValueError, match=message):
        make("t", bots, sets)
