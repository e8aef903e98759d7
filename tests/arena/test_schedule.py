"""The round-robin schedule is a pure, deterministic function of the tournament's settings."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.schedule import round_robin

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
