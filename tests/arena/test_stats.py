"""arena/results/stats.py against closed forms and textbook values (pure functions, no processes)."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, strategies as st

from arena.results.stats import (Comparison, Interval, Pentanomial, clustered_mean, elo_from_score,
                         elo_interval, fit_elo, los, match_points, pentanomial, score_from_elo,
                         score_interval, trinomial_interval)

Z95 = 1.959963984540054  # the normal quantile of 0.975


def test_pentanomial_counts_pair_scores():
    penta = pentanomial([0, 0.5, 1, 1, 1.5, 2, 2, 2])
    assert penta.counts == (1, 1, 2, 1, 3)
    assert penta.pairs == 8 and penta.matches == 16
    assert penta.points == 0 + 0.5 + 2 + 1.5 + 6
    assert penta.flipped().counts == (3, 1, 2, 1, 1)
    assert (penta + penta.flipped()).counts == (4, 2, 4, 2, 4)


@pytest.mark.parametrize("bad", [0.25, 3, -0.5, 1.2])
def test_pentanomial_refuses_impossible_pair_scores(bad):
    with pytest.raises(ValueError, match="duplicate pair scores"):
        pentanomial([1, bad])


def test_pentanomial_refuses_bad_counts():
    with pytest.raises(ValueError):
        Pentanomial((1, 2, 3))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Pentanomial((1, -1, 0, 0, 0))


def test_match_points():
    assert match_points(0, 0) == 1 and match_points(0, 1) == 0
    assert match_points(None, 1) == 0.5          # a tie at the deal limit
    assert match_points(None, 0, played=False) is None


def test_mean_and_variance_closed_form():
    # One pair lost twice, one won twice: per-pair scores/2 are 0 and 1, mean 1/2, variance 1/4.
    penta = Pentanomial((1, 0, 0, 0, 1))
    assert penta.mean() == 0.5 and penta.variance() == pytest.approx(0.25)
    # Counts (1, 2, 3, 2, 2) over 10 pairs: x = 0, .25, .5, .75, 1.
    penta = Pentanomial((1, 2, 3, 2, 2))
    xs = [0] + [0.25] * 2 + [0.5] * 3 + [0.75] * 2 + [1] * 2
    mean = sum(xs) / 10
    assert penta.mean() == pytest.approx(mean) == pytest.approx(0.55)
    assert penta.variance() == pytest.approx(sum((x - mean) ** 2 for x in xs) / 10)
    interval = score_interval(penta)
    half = Z95 * math.sqrt(penta.variance() / 10)
    assert interval.estimate == pytest.approx(0.55)
    assert (interval.low, interval.high) == (pytest.approx(0.55 - half), pytest.approx(0.55 + half))


def test_score_interval_level_and_no_pairs():
    penta = Pentanomial((2, 3, 10, 6, 4))
    assert score_interval(penta, 0.99).half_width > score_interval(penta).half_width > \
        score_interval(penta, 0.5).half_width
    assert score_interval(Pentanomial()) == Interval(0.5, 0.0, 1.0)
    with pytest.raises(ValueError):
        score_interval(penta, 1.5)


def test_elo_from_score_textbook_values():
    assert elo_from_score(0.5) == 0
    assert elo_from_score(0.75) == pytest.approx(400 * math.log10(3))   # 190.85
    assert elo_from_score(10 / 11) == pytest.approx(400)                # 10 to 1 odds
    assert elo_from_score(0.64) == pytest.approx(99.95, abs=0.01)
    assert elo_from_score(1) == math.inf and elo_from_score(0) == -math.inf
    for elo in (-350.0, -20.0, 0.0, 3.5, 123.0):
        assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo)


def test_elo_interval_maps_the_score_interval():
    penta = Pentanomial((3, 5, 12, 9, 6))
    s, e = score_interval(penta), elo_interval(penta)
    assert e.estimate == pytest.approx(elo_from_score(s.estimate))
    assert e.low == pytest.approx(elo_from_score(s.low))
    assert e.high == pytest.approx(elo_from_score(s.high))
    assert e.low < e.estimate < e.high
    assert elo_interval(Pentanomial((0, 0, 0, 0, 5))).estimate == math.inf


def test_los_symmetric_sample_is_one_half():
    assert los(Pentanomial((3, 1, 7, 1, 3))) == 0.5
    assert los(Pentanomial((0, 0, 9, 0, 0))) == 0.5   # no spread, even
    assert los(Pentanomial()) == 0.5


def test_los_closed_form_and_direction():
    penta = Pentanomial((1, 2, 3, 2, 2))
    expected = 0.5 * (1 + math.erf((0.55 - 0.5) / math.sqrt(penta.variance() / 10) / math.sqrt(2)))
    assert los(penta) == pytest.approx(expected)
    assert los(penta.flipped()) == pytest.approx(1 - expected)
    assert los(Pentanomial((0, 0, 0, 0, 3))) == 1.0


@given(st.lists(st.integers(0, 20), min_size=5, max_size=5).filter(lambda c: sum(c) > 0))
def test_los_and_interval_agree(counts):
    penta = Pentanomial(tuple(counts))  # type: ignore[arg-type]
    interval = score_interval(penta)
    assert interval.low <= interval.estimate <= interval.high
    assert los(penta) + los(penta.flipped()) == pytest.approx(1)
    # The interval excludes 1/2 from below exactly when LOS is above 97.5% (its level's one side).
    if interval.low > 0.5 + 1e-9:
        assert los(penta) > 0.975 - 1e-9


def test_pairs_as_units_widen_the_interval_when_pairs_agree():
    # Positively correlated pairs (both matches go the same way): 10 WW, 10 LL. The trinomial,
    # matches as units, sees 20 wins and 20 losses as 40 independent matches: sqrt(2) too narrow.
    agree = Pentanomial((10, 0, 0, 0, 10))
    matches = trinomial_interval(20, 0, 20)
    assert score_interval(agree).half_width == pytest.approx(math.sqrt(2) * matches.half_width)
    # Duplicate pairs usually split (the luck of the cards cancels): then pairs are narrower.
    split = Pentanomial((2, 0, 16, 0, 2))
    assert score_interval(split).half_width < trinomial_interval(20, 0, 20).half_width


def test_clustered_mean_is_the_pentanomial_interval_on_complete_pairs():
    pairs = [(1, 1), (1, 0), (0.5, 1), (0, 0), (1, 0.5), (1, 1), (0, 1)]
    values = [v for pair in pairs for v in pair]
    clusters = [i for i, pair in enumerate(pairs) for _ in pair]
    interval, sd = clustered_mean(values, clusters)
    penta = pentanomial(sum(p) for p in pairs)
    assert interval.estimate == pytest.approx(score_interval(penta).estimate)
    assert interval.low == pytest.approx(score_interval(penta).low)
    assert sd == pytest.approx(math.sqrt(penta.variance() / penta.pairs))
    assert clustered_mean([], [])[0] == Interval(0.5, 0.0, 1.0)


def test_one_pair_says_nothing_of_the_spread():
    """One duplicate pair (or deal set) is one unit: its variance divided by N is 0, and a run of
    ``-n 2`` showed '0.0 [0.0, 0.0]' and a likelihood of superiority of 100% from two matches.
    Its estimate stands; the interval is the whole range and the LOS ½."""
    lost = pentanomial([0.0])
    assert score_interval(lost) == Interval(0.0, 0.0, 1.0)
    assert elo_interval(lost) == Interval(-math.inf, -math.inf, math.inf)
    assert los(lost) == 0.5 == los(pentanomial([2.0]))
    interval, sd = clustered_mean([1.0, 0.5], ["pair 0", "pair 0"])
    assert interval == Interval(0.75, 0.0, 1.0) and sd == math.inf
    # From two pairs on, the sample's spread is the interval's, as before.
    assert score_interval(pentanomial([0.0, 1.0])).half_width < 0.5
    assert los(pentanomial([2.0, 2.0])) == 1.0


def _synthetic_results(elos: dict[str, float], pairs: int, seed: int, correlated: bool
                       ) -> list[Comparison]:
    """Round-robin results drawn from known Elo; with ``correlated`` both matches of a pair are the
    same draw (as if the deals decided), else independent."""
    rng = random.Random(seed)
    names = sorted(elos)
    rows = []
    for i, x in enumerate(names):
        for y in names[i + 1:]:
            p = score_from_elo(elos[x] - elos[y])
            for k in range(pairs):
                first = float(rng.random() < p)
                second = first if correlated else float(rng.random() < p)
                rows += [Comparison(x, y, first, (x, y, k)), Comparison(y, x, 1 - second, (x, y, k))]
    return rows


def test_elo_fit_recovers_known_strengths():
    elos = {"a": 300.0, "b": 100.0, "c": 0.0, "d": -150.0, "e": -250.0}
    fit = fit_elo(_synthetic_results(elos, pairs=300, seed=1, correlated=False))
    assert fit.bots == ("a", "b", "c", "d", "e")
    assert sum(fit.elo) == pytest.approx(0, abs=1e-6)
    for bot, true in elos.items():
        interval = fit.interval(bot)
        assert interval.low < true < interval.high, (bot, interval)
        assert abs(interval.estimate - true) < 30
    assert fit.los("a", "b") > 0.999 and fit.los("b", "a") < 0.001
    assert fit.los("c", "c") == 0.5


def test_elo_fit_is_order_independent():
    rows = _synthetic_results({"a": 50.0, "b": 0.0, "c": -30.0}, pairs=20, seed=2, correlated=False)
    shuffled = rows[:]
    random.Random(3).shuffle(shuffled)
    one, two = fit_elo(rows), fit_elo(shuffled)
    assert one.elo == pytest.approx(two.elo, abs=1e-4)
    assert one.cov == pytest.approx(two.cov, abs=1e-4)


def test_elo_fit_pairs_as_units_are_wider_when_pairs_are_correlated():
    elos = {"a": 80.0, "b": 0.0, "c": -80.0}
    rows = _synthetic_results(elos, pairs=200, seed=4, correlated=True)
    by_pair = fit_elo(rows)
    by_match = fit_elo([Comparison(r.a, r.b, r.score, i) for i, r in enumerate(rows)])
    for bot in elos:
        ratio = by_pair.interval(bot).half_width / by_match.interval(bot).half_width
        assert ratio == pytest.approx(math.sqrt(2), rel=0.1), bot


def test_elo_fit_gives_bots_with_the_same_points_in_a_round_robin_the_same_elo():
    """Every pairing plays as often, so a bot's points are all the fit knows of it: b and c took
    their 7 of 12 from different opponents and still tie, bar rounding, and the LOS says so. What
    a tie's last bits say comes from the CPU's BLAS kernels: issue 28's test read them as an order."""
    points = {("a", "b"): 1, ("a", "c"): 3, ("a", "d"): 4, ("b", "c"): 2, ("b", "d"): 2,
              ("c", "d"): 4}  # the first bot's wins of four matches: a 8, b 7, c 7, d 2
    rows = [Comparison(x, y, float(k < won), (x, y, k // 2)) for (x, y), won in points.items()
            for k in range(4)]
    fit = fit_elo(rows)
    elo = dict(zip(fit.bots, fit.elo))
    assert elo["a"] > elo["b"] + 10 and elo["c"] > elo["d"] + 10
    assert elo["b"] == pytest.approx(elo["c"], abs=1e-6)
    assert fit.los("b", "c") == pytest.approx(0.5, abs=1e-6)


def test_elo_fit_keeps_a_bot_that_won_everything_finite():
    rows = [Comparison("a", "b", 1.0, k) for k in range(10)]
    fit = fit_elo(rows)
    assert math.isfinite(fit.elo[0]) and fit.elo[0] > 200
    assert fit_elo([]).bots == ()
