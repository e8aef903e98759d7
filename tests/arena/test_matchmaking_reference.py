"""``matchmaking.next_pair`` as written for speed (issue 30, point 7: a pair among 200 bots in well
under 5 ms) chooses what the rule as first written chose: the straightforward version, kept here
as the reference, and the module's own agree on random standings, windows and pairs in flight,
ties of every kind included (equal ratings, equal counts, pairings at their limit, decided ones).
"""

from __future__ import annotations

import random
from typing import Sequence

from hypothesis import given, settings, strategies as st

from arena.compete.matchmaking import LEAST_SHARE, MOST_SHARE, PairWindow, Standing, decided, \
    information, next_pair, pairings, window_size


def reference_next_pair(standings: Sequence[Standing], window: PairWindow,
                        in_flight: Sequence[tuple[str, str]] = ()) -> tuple[str, str] | None:
    """The rule as the module wrote it before it was made fast (commit 1882740): every count read
    through the window, every opponent's key built whole, the public ``decided`` and
    ``information`` called for each."""
    if len(standings) < 2:
        return None
    span = len(window) + 1
    most = MOST_SHARE * span / pairings(len(standings))
    least = LEAST_SHARE * 2 * span / len(standings)

    fewest = min(window.bot(s.name) for s in standings)
    first = min((s for s in standings if window.bot(s.name) == fewest),
                key=lambda s: (-s.uncertainty, s.matches, s.name))
    busy = {b if a == first.name else a for a, b in in_flight if first.name in (a, b)}
    ranked = []
    row = window.opponents(first.name)
    for s in standings:
        if s.name == first.name:
            continue
        played = row.get(s.name, 0)
        over = max(0.0, played + 1 - most)
        short = window.bot(s.name) < least
        ranked.append(((over, not short, s.name in busy, decided(first, s)), played, s))
    best = min(cheap for cheap, _, _ in ranked)

    def rest(played: int, s: Standing) -> tuple[float, int, str]:
        if best[3]:
            return (played, window.bot(s.name), s.name)
        return (-information(first, s) * (1 - played / most) ** 2, window.bot(s.name), s.name)

    left = [(played, s) for cheap, played, s in ranked if cheap == best]
    opponent = min(left, key=lambda pair: rest(*pair))[1]
    return first.name, opponent.name


@st.composite
def leagues(draw: st.DrawFn) -> tuple[list[Standing], list[tuple[str, str]],
                                      list[tuple[str, str]]]:
    """Standings of 2-12 bots (ratings from few values, so that ties happen; some far apart, so
    that pairings are decided), a window of pairs among them (often lopsided, so that pairings
    reach their limit and bots fall short) and a few pairs in flight."""
    bots = draw(st.integers(2, 12))
    names = [f"b{k}" for k in range(bots)]
    rng = random.Random(draw(st.integers(0, 2**32)))
    mus = draw(st.lists(st.sampled_from([10.0, 25.0, 25.5, 40.0, 55.0]), min_size=bots,
                        max_size=bots))
    if draw(st.booleans()):  # every pairing decided: the least played first, then fewest pairs
        mus = [10.0 + 20 * k for k in rng.sample(range(bots), bots)]
    standings = [Standing(n, mu, rng.choice([0.8, 1.0, 3.0, 8.333]), rng.randrange(3),
                          rng.randrange(3)) for n, mu in zip(names, mus)]
    rng.shuffle(standings)
    favourites = rng.sample(names, min(bots, rng.randrange(2, 4)))
    recent = []
    for _ in range(rng.randrange(2 * window_size(bots))):
        pool = favourites if rng.random() < 0.6 else names
        recent.append(tuple(rng.sample(pool, 2)))
    in_flight = [tuple(rng.sample(names, 2)) for _ in range(rng.randrange(3))]
    return standings, recent, in_flight  # type: ignore[return-value]


@settings(max_examples=400, deadline=None)
@given(leagues())
def test_the_fast_chooser_gives_the_reference_rules_pair(league):
    standings, recent, in_flight = league
    window = PairWindow(window_size(len(standings)) - 1, recent)
    expected = reference_next_pair(standings, window, in_flight)
    assert next_pair(standings, window, in_flight) == expected
    assert next_pair(standings, recent, in_flight) == expected


def test_a_league_of_200_bots_chooses_as_the_reference_does_pair_after_pair():
    """The size the benchmark measures, played on for 300 pairs with ratings that move."""
    rng = random.Random(30)
    names = [f"bot-{k:03d}" for k in range(200)]
    table = {n: Standing(n, rng.gauss(25, 6), rng.uniform(0.7, 3), rng.randrange(900, 1100))
             for n in names}
    size = window_size(200) - 1
    recent = [tuple(rng.sample(names, 2)) for _ in range(size)]
    window = PairWindow(size, recent)
    for _ in range(300):
        standings = list(table.values())
        pair = next_pair(standings, window)
        assert pair == reference_next_pair(standings, window)
        assert pair is not None
        window.push(*pair)
        for name in pair:  # a match's worth of change, so that ratings and ties move
            s = table[name]
            table[name] = Standing(name, s.mu + rng.gauss(0, 0.5), max(0.5, s.sigma * 0.99),
                                   s.matches + 2)


def test_the_window_forgets_bots_that_left_it():
    """A league's bots come and go for ever (every new version is a new bot): the window's counts
    keep only the bots and pairings of its pairs, not every one it ever held."""
    window = PairWindow(6)
    for k in range(1000):
        window.push(f"v{k}", f"v{k + 1}")
    assert len(window) == 6
    assert window.bot("v0") == 0 and window.pairing("v0", "v1") == 0
    assert set(window._bots) == {f"v{k}" for k in range(994, 1001)}
    assert set(window._with) == set(window._bots)
    assert sum(len(row) for row in window._with.values()) == 2 * 6
