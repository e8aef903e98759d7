"""The sequential probability ratio test of ``arena sprt`` (arena/compete/sprt.py), as pure functions: its
bounds and log-likelihood ratio against values derived by hand, and its error rates on synthetic
duplicate pairs."""

from __future__ import annotations

import math
import sqlite3

import numpy as np
import pytest

from arena.compete.sprt import (PAIR_MEANS, REGULARIZE, SequentialTest, Sprt, SprtError, Verdict,
                        _constrained_mle, bounds, llr, pair_results_from_store)
from arena.results.stats import Pentanomial, score_from_elo as expected_score


def P(*counts: int) -> Pentanomial:
    return Pentanomial(counts)  # type: ignore[arg-type]


def test_bounds_are_walds_closed_forms():
    lower, upper = bounds(0.05, 0.05)
    assert lower == pytest.approx(-math.log(19)) and upper == pytest.approx(math.log(19))
    assert upper == pytest.approx(2.944439, abs=1e-6)
    # Unequal rates: log(beta / (1 - alpha)) and log((1 - beta) / alpha).
    assert bounds(0.1, 0.2) == pytest.approx((math.log(0.2 / 0.9), math.log(8.0)))


def test_logistic_elo_scores():
    assert expected_score(0) == 0.5
    assert expected_score(10) == pytest.approx(0.5143871841659987)
    # 400 Elo: ten to one.
    assert expected_score(400) == pytest.approx(10 / 11)
    assert expected_score(-200) == pytest.approx(1 - expected_score(200))


def test_only_won_and_lost_pairs_give_the_binomial_sprt():
    # With pair scores 0 and 1 alone, the likeliest distribution with mean s is {1-s, s}: the LLR
    # is the classic W log(s1/s0) + L log((1-s1)/(1-s0)) (up to the regularized empty cells).
    won, lost = 70, 30
    s0, s1 = expected_score(0), expected_score(10)
    by_hand = won * math.log(s1 / s0) + lost * math.log((1 - s1) / (1 - s0))
    assert by_hand == pytest.approx(1.10988, abs=1e-5)
    assert llr(P(lost, 0, 0, 0, won), 0, 10) == pytest.approx(by_hand, abs=1e-4)


def test_a_pentanomial_example_matches_the_dual_maximised_on_a_grid():
    counts = np.array([3, 10, 20, 12, 5])
    scores = np.array(PAIR_MEANS)
    # Without any root finding: the best log-likelihood of a distribution with mean s is
    # sum(c log(c/N)) - max over λ of sum(c log(1 + λ (a - s))) (Lagrange duality; the inner
    # function is concave), here maximised over a fine grid of λ.
    def best_loglik(s: float) -> float:
        lam = np.linspace(-1 / (1 - s), 1 / s, 400001)[1:-1, None]
        dual = (counts * np.log1p(lam * (scores - s))).sum(axis=1).max()
        return float((counts * np.log(counts / counts.sum())).sum() - dual)
    s0, s1 = expected_score(0), expected_score(10)
    assert llr(P(*counts), 0, 10) == pytest.approx(best_loglik(s1) - best_loglik(s0), abs=1e-6)
    # fishtest's normal approximation N (s1-s0) (2 mean - s0 - s1) / (2 var) is close to it.
    mean = (counts * scores).sum() / 50
    var = (counts * (scores - mean) ** 2).sum() / 50
    assert llr(P(*counts), 0, 10) == pytest.approx(
        50 * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var), rel=0.02)


@pytest.mark.parametrize("counts", [[26, 22, 59, 22, 34], [3, 10, 20, 12, 5],
                                    [REGULARIZE] * 4 + [50], [0.5, REGULARIZE, 9, REGULARIZE, 3]])
@pytest.mark.parametrize("mean", [expected_score(0), expected_score(20), 0.1, 0.9])
def test_the_constrained_estimate_is_a_distribution_with_the_asked_mean(counts, mean):
    # Regression: the Newton loop once took a bisection step after converging, and returned
    # "probabilities" summing to 1.16 (an LLR of 11 from 163 ordinary pairs).
    total = sum(counts)
    p = _constrained_mle([c / total for c in counts], PAIR_MEANS, mean)
    assert all(q > 0 for q in p)
    assert sum(p) == pytest.approx(1, abs=1e-9)
    assert sum(q * a for q, a in zip(p, PAIR_MEANS)) == pytest.approx(mean, abs=1e-9)


def test_the_llr_grows_for_the_better_bot_and_falls_for_an_equal_one():
    assert llr(P(0, 0, 0, 0, 0), 0, 10) == 0.0
    assert 0 < llr(P(0, 0, 0, 0, 1), 0, 10) < llr(P(0, 0, 0, 0, 2), 0, 10)
    # Every pair halved: more evidence that the bots are equal, H0's side.
    assert llr(P(0, 0, 2, 0, 0), 0, 10) < llr(P(0, 0, 1, 0, 0), 0, 10) < 0
    # Mirrored results mirror the LLR of mirrored bounds.
    assert llr(P(1, 2, 3, 4, 5), 0, 10) == pytest.approx(-llr(P(5, 4, 3, 2, 1), -10, 0), rel=1e-9)


def test_verdicts_at_the_bounds():
    test = Sprt(elo0=0, elo1=200)
    assert test.state(P(0, 0, 0, 0, 0)).verdict is Verdict.CONTINUE
    # Each won pair adds about log(s1/s0) = 0.418: seven reach log(19) = 2.944 and accept H1.
    assert test.state(P(0, 0, 0, 0, 6)).verdict is Verdict.CONTINUE
    won = test.state(P(0, 0, 0, 0, 8))
    assert won.verdict is Verdict.H1 and won.pairs == 8 and won.llr >= won.upper
    even = test.state(P(0, 0, 8, 0, 0))
    assert even.verdict is Verdict.H0 and even.llr <= even.lower == pytest.approx(-math.log(19))


@pytest.mark.parametrize("kwargs, word", [({"elo0": 10, "elo1": 0}, "below"),
                                          ({"alpha": 0}, "alpha"), ({"beta": 0.6}, "beta"),
                                          ({"elo1": math.inf}, "elo1")])
def test_bad_settings_are_named(kwargs, word):
    with pytest.raises(SprtError, match=word):
        Sprt(**kwargs)


def _pentanomial(elo: float, draws: float = 0.2) -> np.ndarray:
    """Pair-score probabilities of two independent matches with the given draw rate and a mean
    score of expected_score(elo)."""
    s = expected_score(elo)
    match = np.array([1 - s - draws / 2, draws, s - draws / 2])
    return np.convolve(match, match)


def _error_rate(truth: float, test: Sprt, wrong: Verdict, runs: int,
                seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    wrong_count, lengths = 0, []
    for _ in range(runs):
        counts = [0] * 5
        for played, cell in enumerate(rng.choice(5, size=5000, p=_pentanomial(truth)), 1):
            counts[cell] += 1
            verdict = test.state(P(*counts)).verdict
            if verdict is not Verdict.CONTINUE:
                break
        wrong_count += verdict is wrong
        lengths.append(played)
    return wrong_count / runs, float(np.mean(lengths))


def test_error_rates_are_about_alpha_and_beta_on_synthetic_pairs():
    # Bounds wide enough for runs of ~30 pairs; 200 runs each way: a rate's standard error is
    # 0.015. An LLR off by a constant factor moves the rates far from 0.05 (the broken Newton
    # step above gave 0.16 and 0.33).
    test = Sprt(elo0=0, elo1=100, alpha=0.05, beta=0.05)
    alpha, asn0 = _error_rate(0, test, Verdict.H1, runs=200, seed=1)
    beta, asn1 = _error_rate(100, test, Verdict.H0, runs=200, seed=2)
    assert 0.01 <= alpha <= 0.09 and 0.01 <= beta <= 0.09, (alpha, beta)
    # Wald's approximation of the expected number of pairs: |bound| / drift, drift the
    # Kullback-Leibler divergence per pair (about 25 here).
    assert 15 < asn0 < 45 and 15 < asn1 < 45, (asn0, asn1)


def test_pairs_from_a_store_in_schedule_order_up_to_the_first_incomplete_one():
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE matches (pair_index, seat0, seat1, winner, reason)")
    db.executemany("INSERT INTO matches VALUES (?, ?, ?, ?, ?)", [
        (1, "new", "base", 0, "target"), (1, "base", "new", None, "deal_limit"),  # 1 + 1/2
        (0, "new", "base", 1, "target"), (0, "base", "new", 0, "forfeit"),       # 0 + 0
        (2, "new", "base", 0, "target"), (2, "base", "new", 1, "no_contest"),    # counts for nobody
        (4, "new", "base", 0, "target"), (4, "base", "new", 1, "target"),        # after a gap
        (3, "new", "base", 0, "target"),                                          # half a pair
    ])
    assert pair_results_from_store(db, "new") == [0.0, 1.5, None]
    assert pair_results_from_store(db, "base") == [2.0, 0.5, None]


def test_the_first_bound_reached_is_the_verdict_whatever_follows():
    sequence = SequentialTest(Sprt(elo0=0, elo1=400))
    assert sequence.feed([2.0, None, 2.0]).verdict is Verdict.CONTINUE
    assert (sequence.seen, sequence.penta.counts) == (3, (0, 0, 0, 0, 2))
    # Fed everything so far, again: the pairs already seen are skipped.
    state = sequence.feed([2.0, None, 2.0, 2.0, 2.0, 2.0, 0.0, 0.0, 0.0])
    assert state.verdict is Verdict.H1 and state.pairs == 5 and sequence.seen == 6
    # Matches stored after the verdict (in flight when it came) do not change it.
    assert sequence.feed([2.0, None, 2.0, 2.0, 2.0, 2.0, 0.0, 0.0, 0.0] + [0.0] * 20) == state
    # The same pairs read at once (a resumed test) reach the same state.
    again = SequentialTest(Sprt(elo0=0, elo1=400))
    assert again.feed([2.0, None, 2.0, 2.0, 2.0, 2.0, 0.0, 0.0, 0.0]) == state
