"""Narration of three- and four-player deals (``arena replay``, ``arena play``): who played what,
tricks of 3 or 4 cards, side scores. Matches are played in-process by a seeded random policy."""

from __future__ import annotations

import random
import re

import pytest

from arena.game import MatchState, profile
from arena.match.narrate import deal_line, narrate_deal, narrate_outcome, side_names


def _random_match(profile_name: str, seed: int) -> MatchState:
    rng = random.Random(seed)
    state = MatchState.new(profile(profile_name), seed=seed)
    while not state.is_over:
        legal = state.legal_actions()
        state = state.apply(legal[rng.randrange(len(legal))])
    return state


def test_side_names_pair_partners_with_four_players_only():
    assert side_names(["a", "b"]) == ("a", "b")
    assert side_names(["a", "b", "c"]) == ("a", "b", "c")
    assert side_names(["a", "b", "c", "d"]) == ("a+c", "b+d")


@pytest.mark.parametrize("profile_name,players", [("three_player", 3), ("four_player", 4)])
def test_a_deal_is_told_trick_by_trick_with_every_seat(profile_name, players):
    names = ["ann", "bob", "cy", "dee"][:players]
    state = _random_match(profile_name, seed=4)
    first = state.results[0]
    lines = list(narrate_deal(first, names))
    assert lines[0].startswith(f"Deal 1: {names[first.dealer]} deals, trump ")
    hands = lines[1:1 + players]
    assert [l.split()[0] for l in hands] == [names[(first.dealer + k) % players]
                                              for k in range(1, players + 1)]
    assert all(len(l.split()) == 1 + 7 for l in hands), "seven cards each as dealt"
    assert (players == 3) == any(l.split()[0] == "dead" for l in lines)
    tricks = [l for l in lines if re.match(r"\s+\d+\. ", l)]
    # Each trick names every seat once with the card it played, then the winner.
    assert tricks
    for line in tricks:
        items = line.split("->")[0].split(". ", 1)[1].strip().split(", ")
        plays = [i.split() for i in items if re.fullmatch(r"\S+ [789TJQKA][CSHD]", i)]
        assert len(plays) == players and {p[0] for p in plays} == set(names), line
    s = first.settlement
    totals = "-".join(map(str, s.totals))
    assert lines[-1].startswith("  => ") and f"totals {totals}, tricks " in lines[-1]
    assert " - ".join(side_names(names)) in lines[-1]
    assert deal_line(first, names).startswith("Deal  1: ")
    assert narrate_outcome(state.outcome, names).endswith(
        "-".join(map(str, state.game_points))) or "shut-out" in narrate_outcome(state.outcome, names)
