"""TrueSkill ratings in schedule order, and the leaderboard computed from a real store."""

from __future__ import annotations

import random

import pytest

from arena.entrants.bot_specs import resolve_bot
from arena.match.deal_keys import deal_secret, key_from_seed
from arena.game import profile
from arena.results.ratings import ENV, MU, rate, leaderboard
from arena.match.referee import MatchConfig, run_match
from arena.compete.schedule import round_robin
from arena.results.store import Store


def test_a_winner_gains_and_a_loser_loses():
    ratings, history = rate([(0, "a", "b", 0)])
    assert ratings["a"].mu > MU > ratings["b"].mu
    assert ratings["a"].sigma < ENV.sigma and len(history) == 2


def test_ratings_do_not_depend_on_the_order_results_arrive_in():
    results = [(i, random.Random(i).choice("abc"), "d", i % 2) for i in range(40)]
    shuffled = results[:]
    random.Random(1).shuffle(shuffled)
    first, _ = rate(results)
    second, _ = rate(shuffled)
    assert {k: (v.mu, v.sigma) for k, v in first.items()} == \
        {k: (v.mu, v.sigma) for k, v in second.items()}


def test_matches_without_a_winner_change_nothing():
    ratings, history = rate([(0, "a", "b", None)])
    assert ratings["a"] == ratings["b"] == ENV.create_rating() and history == []


def test_the_draw_probability_is_zero():
    assert ENV.draw_probability == 0.0


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("lb") / "results.sqlite"
    store = Store.open(path)
    store.begin_tournament("t", {})
    names = ["random", "greedy", "c-counter"]
    specs = {n: resolve_bot(n) for n in names}
    store.register_bots([(n, list(specs[n].argv), "") for n in names])
    key = key_from_seed(5)
    for entry in round_robin("t", names, pairs_per_pairing=2):
        result = run_match([specs[entry.seat0], specs[entry.seat1]],
                           MatchConfig(rules=profile("sixty_six"), seed=deal_secret(key, entry.deal_set),
                                       first_dealer=entry.first_dealer, match_id=entry.match_id))
        store.record_match(entry, result)
    return store


def test_leaderboard_has_one_row_per_bot_with_figures_from_the_store(store):
    table = leaderboard(store.db)
    assert list(table["bot"]) and sorted(table["bot"]) == ["c-counter", "greedy", "random"]
    assert list(table["rank"]) == [1, 2, 3]
    assert (table["conservative"] == table["mu"] - 3 * table["sigma"]).all()
    assert list(table["conservative"]) == sorted(table["conservative"], reverse=True)
    db = store.db
    for row in table.itertuples():
        matches = db.execute("SELECT COUNT(*) FROM matches WHERE seat0 = ? OR seat1 = ?",
                             (row.bot, row.bot)).fetchone()[0]
        wins = db.execute("SELECT COUNT(*) FROM matches WHERE (seat0 = ? AND winner = 0) OR "
                          "(seat1 = ? AND winner = 1)", (row.bot, row.bot)).fetchone()[0]
        assert row.matches == matches == 8
        assert row.win_pct == pytest.approx(100 * wins / matches)
    assert table.iloc[-1]["bot"] == "random"  # it claims at random: it loses nearly everything


# -- three and four players (issue 16) ----------------------------------------------------------

from arena.results.ratings import rate_ranked, ranks_of  # noqa: E402


def test_a_three_player_match_is_a_ranking_of_three():
    ratings, history = rate_ranked([(0, (("a",), ("b",), ("c",)), (0, 1, 2))])
    assert ratings["a"].mu > ratings["b"].mu > ratings["c"].mu
    assert abs(ratings["b"].mu - ENV.create_rating().mu) < 1e-9   # the middle of three moves little
    assert [p.bot for p in history] == ["a", "b", "c"]


def test_ties_are_ties():
    ratings, _ = rate_ranked([(0, (("a",), ("b",), ("c",)), (0, 1, 1))])
    assert ratings["b"].mu == pytest.approx(ratings["c"].mu)
    assert ratings["b"].sigma == pytest.approx(ratings["c"].sigma)
    assert ratings["a"].mu > ratings["b"].mu


def test_a_four_player_match_is_two_teams_of_two():
    ratings, _ = rate_ranked([(0, (("a", "c"), ("b", "d")), (1, 0))])
    assert (ratings["b"].mu, ratings["a"].mu) == (ratings["d"].mu, ratings["c"].mu)
    assert ratings["b"].mu > 25 > ratings["a"].mu


def test_a_bot_partnering_itself_counts_twice():
    alone, _ = rate_ranked([(0, (("a",), ("b", "c")), (0, 1))])
    doubled, _ = rate_ranked([(0, (("a", "a"), ("b", "c")), (0, 1))])
    # Its side's performance is twice its own: winning says less about it than about a single player.
    assert 25 < doubled["a"].mu < alone["a"].mu


def test_ratings_follow_schedule_order_not_arrival_order():
    results = [(2, (("a",), ("b",), ("c",)), (2, 1, 0)), (0, (("a",), ("b",), ("c",)), (0, 1, 2)),
               (1, (("a", "b"), ("c", "d")), (0, 1))]
    assert rate_ranked(results) == rate_ranked(sorted(results, key=lambda r: r[0]))
    assert rate_ranked(results) == rate_ranked(list(reversed(results)))


def test_no_ranks_leave_ratings_alone_but_list_the_bots():
    ratings, history = rate_ranked([(0, (("a",), ("b",), ("c",)), None)])
    assert set(ratings) == {"a", "b", "c"} and history == []
    assert all(r == ENV.create_rating() for r in ratings.values())


def test_a_bot_on_both_sides_is_refused():
    with pytest.raises(ValueError, match="on two sides"):
        rate_ranked([(0, (("a", "b"), ("a", "c")), (0, 1))])


@pytest.mark.parametrize("players,points,winner,offender,expected", [
    (3, (7, 3, 1), 0, None, (0, 1, 2)),
    (3, (7, 3, 3), 0, None, (0, 1, 1)),
    (3, (2, 5, 1), None, 1, (0, 2, 1)),       # the offender is last whatever its points
    (3, (4, 4, 0), None, 2, (0, 0, 1)),
    (4, (7, 2), 0, None, (0, 1)),
    (4, (3, 1), 1, 0, (1, 0)),                # a forfeit: the offender's side loses
    (4, (3, 3), None, None, None),            # a tie at the deal limit rates nothing
])
def test_ranks_of_a_finished_match(players, points, winner, offender, expected):
    assert ranks_of(players, points, winner, offender) == expected


def test_a_replay_continued_from_the_last_gives_the_same_ratings_to_the_bit():
    """``rate`` continues from its last replay's longest shared prefix (a league republishes the
    same matches and a few more): the figures must be those of a replay from the start."""
    rng = random.Random(3)
    results = [(i, f"b{rng.randrange(4)}", f"c{rng.randrange(4)}", rng.choice([0, 1, None]))
               for i in range(400)]
    changed = results[:150] + [results[150][:3] + (1 - (results[150][3] or 0),)] + results[151:]
    for step in (results[:200], results, changed[:300], changed):
        got, history = rate(step)
        fresh, fresh_history = rate(step, start={})  # a replay from the start, not continued
        assert {k: (v.mu, v.sigma) for k, v in got.items()} == \
            {k: (v.mu, v.sigma) for k, v in fresh.items()}
        assert history == fresh_history
