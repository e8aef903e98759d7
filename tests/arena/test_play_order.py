"""A run hands out each round's deal sets longest first (play_order.py), so that it ends on short
matches: every match still once, each deal set whole, the rounds in order."""

from __future__ import annotations

import math

from arena.compete.play_order import MatchCosts, longest_first
from arena.compete.schedule import round_robin, three_player_sets

BOTS = ["random", "greedy", "strong", "c-counter"]


def _sets(matches) -> list[str]:
    """The deal sets in the order their first match comes."""
    seen: list[str] = []
    for m in matches:
        if m.deal_set not in seen:
            seen.append(m.deal_set)
    return seen


def test_with_nothing_known_the_schedule_s_order_is_kept():
    schedule = round_robin("t", BOTS, 3)
    assert list(longest_first(schedule, MatchCosts())) == schedule


def test_each_round_s_deal_sets_come_longest_first_once_their_costs_are_known():
    schedule = round_robin("t", BOTS, 3)
    costs = MatchCosts()
    for m in schedule:  # the strong bot's matches take 400 ms, the others' 10
        costs.add(m.seats, 400.0 if "strong" in m.seats else 10.0)
    ordered = list(longest_first(schedule, costs))
    assert sorted(ordered, key=lambda m: m.order) == schedule  # every match, once
    for a, b in zip(ordered, ordered[1:]):
        assert a.set_index <= b.set_index  # the rounds in order
    for r in range(3):
        in_round = [m for m in ordered if m.set_index == r]
        sets = _sets(in_round)
        # Whole: a set's matches come one after the other.
        assert [m.deal_set for m in in_round] == [s for s in sets for _ in range(2)]
        strong = ["strong" in m.group for m in in_round[::2]]
        assert strong == sorted(strong, reverse=True) and any(strong) and not all(strong)
        # Ties keep the schedule's order.
        cheap = [m.group for m in in_round[::2] if "strong" not in m.group]
        assert cheap == [m.group for m in schedule[::2]
                         if m.set_index == r and "strong" not in m.group]


def test_a_bot_with_no_match_yet_comes_first():
    costs = MatchCosts()
    costs.add(("a", "b"), 500.0)
    assert costs.of(("a", "b")) == 500.0
    assert costs.of(("a", "new")) == math.inf
    costs.add(("a", "c"), 100.0)  # a: 300 on average, c: 100
    assert costs.of(("a", "c")) == 200.0


def test_three_player_deal_sets_stay_whole_in_their_six_seatings():
    schedule = three_player_sets("t", BOTS, 2)
    costs = MatchCosts()
    for m in schedule:
        costs.add(m.seats, 400.0 if "strong" in m.seats else 10.0)
    ordered = list(longest_first(schedule, costs))
    assert sorted(ordered, key=lambda m: m.order) == schedule
    for r in range(2):
        in_round = [m for m in ordered if m.set_index == r]
        sets = _sets(in_round)
        assert [m.deal_set for m in in_round] == [s for s in sets for _ in range(6)]
        strong = ["strong" in m.group for m in in_round[::6]]
        assert strong == sorted(strong, reverse=True)


def test_the_next_set_is_chosen_from_what_is_known_when_it_is_asked_for():
    """A worker holds matches ahead, so a round may begin before the last one's results are in:
    what comes in meanwhile reorders the rest of the round."""
    schedule = round_robin("t", ["a", "b", "c"], 2)
    costs = MatchCosts()
    for m in schedule[:6]:  # round 0: every match as cheap
        costs.add(m.seats, 10.0)
    order = longest_first(schedule, costs)
    taken = [next(order) for _ in range(8)]  # round 0, then round 1's first set (a tie: a-b)
    assert taken[6].group == ("a", "b")
    costs.add(("c", "b"), 1000.0)  # b-c turns out slow: it comes next, before a-c
    rest = list(order)
    assert [m.group for m in rest] == [("b", "c"), ("b", "c"), ("a", "c"), ("a", "c")]
