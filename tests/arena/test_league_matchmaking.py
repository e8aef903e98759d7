"""The league's matchmaking (arena/matchmaking.py): the rule case by case, and a simulation of bots
of known strength showing that a new bot settles in far fewer matches than with uniform pairing.

Pure functions only: no processes, no files. The simulated outcomes come from a seeded RNG."""

from __future__ import annotations

import math
import random
from typing import Callable

import pytest
import trueskill

from arena.matchmaking import Standing, first_bot, match_quality, next_pair
from arena.ratings import ENV, MU, SIGMA


def s(name: str, mu: float = MU, sigma: float = SIGMA, matches: int = 0, idle: int = 0) -> Standing:
    return Standing(name, mu, sigma, matches, idle)


# -- the rule, case by case --------------------------------------------------------------------------

def test_the_most_uncertain_bot_plays_first_against_the_closest_rating():
    table = [s("old-a", 30, 1.0, 200), s("old-b", 24, 1.0, 200), s("old-c", 18, 1.0, 200),
             s("new", 23, 8.0, 0)]
    assert next_pair(table) == ("new", "old-b")


def test_equal_uncertainty_goes_to_fewer_matches_then_to_the_name():
    assert first_bot([s("b", matches=3), s("a", matches=3), s("c", matches=1)]).name == "c"
    assert first_bot([s("b", matches=3), s("a", matches=3)]).name == "a"


def test_an_idle_bot_becomes_uncertain_again_and_is_not_starved():
    busy, idle = s("busy", 25, 1.2, 100, idle=0), s("idle", 25, 1.0, 100, idle=0)
    assert first_bot([busy, idle]).name == "busy"
    rested = Standing("idle", 25, 1.0, 100, idle=200)  # 200 pairs without it: sigma drifts up
    assert rested.uncertainty > busy.uncertainty
    assert first_bot([busy, rested]).name == "idle"


def test_an_opponent_already_in_flight_is_taken_only_when_no_other_is_left():
    table = [s("new", 25, 8.0), s("near", 25, 1.0, 50), s("far", 40, 1.0, 50)]
    assert next_pair(table) == ("new", "near")
    assert next_pair(table, in_flight=[("new", "near")]) == ("new", "far")
    assert next_pair(table, in_flight=[("near", "new"), ("far", "new")]) == ("new", "near")


def test_match_quality_prefers_close_means():
    me = s("me", 25, 2.0)
    assert match_quality(me, s("close", 26, 2.0)) > match_quality(me, s("far", 35, 2.0))


def test_never_a_bot_against_itself_and_no_pair_for_fewer_than_two():
    assert next_pair([]) is None
    assert next_pair([s("alone")]) is None
    for _ in range(3):
        pair = next_pair([s("x", 25, 5.0), s("y", 25, 5.0)])
        assert pair is not None and pair[0] != pair[1]
    with pytest.raises(ValueError, match="listed twice"):
        next_pair([s("x"), s("x")])


def test_the_same_standings_always_give_the_same_pair():
    table = [s(f"b{i}", 20 + i, 1 + i / 10, 10 * i, i) for i in range(6)]
    assert len({next_pair(list(order)) for order in (table, table[::-1], table[2:] + table[:2])}) == 1


# -- a simulated league -------------------------------------------------------------------------------

STRENGTHS = [float(i) for i in range(8)]   # true strengths of the established bots
NEW_STRENGTH = 4.5                         # the new bot: true rank 4 of 9 (0 is the best)
SETTLED_SIGMA = 2.0
WARM_UP_PAIRS = 100
MAX_MATCHES = 4000


def win_probability(a: float, b: float) -> float:
    """Bot of strength ``a`` against ``b``: one strength unit is a 73% favourite."""
    return 1 / (1 + math.exp(b - a))


class League:
    """Bots of known strength, TrueSkill ratings, duplicate pairs of two simulated matches."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.strength = {f"bot{i}": x for i, x in enumerate(STRENGTHS)}
        self.rating = {name: ENV.create_rating() for name in self.strength}
        self.matches = {name: 0 for name in self.strength}
        self.last_pair = {name: 0 for name in self.strength}
        self.pairs = 0

    def standings(self) -> list[Standing]:
        return [Standing(n, r.mu, r.sigma, self.matches[n], self.pairs - self.last_pair[n])
                for n, r in self.rating.items()]

    def play_pair(self, a: str, b: str) -> None:
        self.pairs += 1
        for _ in range(2):  # a duplicate pair: two matches, seats swapped
            if self.rng.random() < win_probability(self.strength[a], self.strength[b]):
                self.rating[a], self.rating[b] = trueskill.rate_1vs1(self.rating[a], self.rating[b], env=ENV)
            else:
                self.rating[b], self.rating[a] = trueskill.rate_1vs1(self.rating[b], self.rating[a], env=ENV)
            self.matches[a] += 1
            self.matches[b] += 1
        self.last_pair[a] = self.last_pair[b] = self.pairs

    def add(self, name: str, strength: float) -> None:
        self.strength[name] = strength
        self.rating[name] = ENV.create_rating()
        self.matches[name] = 0
        self.last_pair[name] = self.pairs

    def settled(self, name: str) -> bool:
        """Sigma below the threshold and ranked (by mu) within one place of its true rank."""
        by_mu = sorted(self.rating, key=lambda n: -self.rating[n].mu)
        by_truth = sorted(self.strength, key=lambda n: -self.strength[n])
        return self.rating[name].sigma < SETTLED_SIGMA and \
            abs(by_mu.index(name) - by_truth.index(name)) <= 1


Chooser = Callable[[League], tuple[str, str]]


def matchmaking(league: League) -> tuple[str, str]:
    pair = next_pair(league.standings())
    assert pair is not None
    return pair


def uniform(league: League) -> tuple[str, str]:
    a, b = league.rng.sample(sorted(league.rating), 2)
    return a, b


def matches_to_settle(choose: Chooser, seed: int) -> tuple[int, int]:
    """League matches (all bots) played after the new bot joined until it is settled, and the new
    bot's own matches by then. The established bots warm up with uniform pairs first, the same for
    both choosers."""
    league = League(random.Random(seed))
    for _ in range(WARM_UP_PAIRS):
        league.play_pair(*uniform(league))
    league.add("new", NEW_STRENGTH)
    played = 0
    while not league.settled("new") and played < MAX_MATCHES:
        league.play_pair(*choose(league))
        played += 2
    return played, league.matches["new"]


def test_a_new_bot_settles_in_far_fewer_matches_than_with_uniform_pairing():
    seeds = range(4)
    smart = [matches_to_settle(matchmaking, seed) for seed in seeds]
    plain = [matches_to_settle(uniform, seed) for seed in seeds]
    smart_total = sum(m for m, _ in smart) / len(seeds)
    plain_total = sum(m for m, _ in plain) / len(seeds)
    smart_own = sum(n for _, n in smart) / len(seeds)
    plain_own = sum(n for _, n in plain) / len(seeds)
    message = (f"league matches until the new bot settled (sigma < {SETTLED_SIGMA}, rank within 1): "
               f"matchmaking {smart_total:.0f}, uniform random pairing {plain_total:.0f}; the new "
               f"bot's own matches: {smart_own:.0f} and {plain_own:.0f}; per seed {smart} / {plain}")
    print(message)
    assert all(m < MAX_MATCHES for m, _ in smart), message
    assert smart_total * 3 <= plain_total, message
