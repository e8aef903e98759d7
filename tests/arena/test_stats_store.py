"""A tournament's statistics read from real SQLite stores (synthetic_store.py fills them through the
real Store API): the leaderboard's columns equal the store's figures, duplicate pairs are the unit,
the Elo fit ranks known strengths, three- and four-player stores give sensible figures, and the
`arena leaderboard` command prints them."""

from __future__ import annotations

import json
import math
import re
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import synthetic_store
from arena.cli.main import app
from arena.report.charts import CHARTS
from arena.report.data import read_report_data
from arena.report.page import render_pages
from arena.compete.schedule import three_player_sets
from arena.results.stats import (LEGEND, NOT_SEPARATED, SEPARATED_LOS, clustered_mean, comparisons,
                         display_table, fit_elo, head_to_head, interval_text, leaderboard,
                         likelihood_text, los, los_matrix, pentanomial, score_interval)
from arena.results.store import Store, connect_read_only
from arena.types import MatchEnding, MatchResult, SeatStats

runner = CliRunner()
BOTS = ["greedy", "c-counter", "random", "first-legal", "mcts"]


@pytest.fixture(scope="module")
def two(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("stats") / "two"
    folder.mkdir()
    synthetic_store.fill(folder / "results.sqlite", names=BOTS, matches_per_pairing=12, seed=5)
    return folder


@pytest.fixture(scope="module")
def seated(tmp_path_factory) -> dict[str, Path]:
    folders = {}
    for case, players, names in (("three", 3, BOTS[:4]), ("four", 4, BOTS),
                                 ("four-of-two", 4, BOTS[:2])):
        folder = tmp_path_factory.mktemp(case)
        synthetic_store.fill_seated(folder / "results.sqlite", players, names, deal_sets=2,
                                    flaky=names[-1])
        folders[case] = folder
    return folders


def opened(folder: Path) -> sqlite3.Connection:
    return connect_read_only(folder / "results.sqlite")


def points_by_pair(folder: Path) -> dict[tuple[str, str, int], list[tuple[str, float]]]:
    """Straight from SQL: each duplicate pair's matches as (seat-0 bot, its match points)."""
    with sqlite3.connect(folder / "results.sqlite") as db:
        rows = db.execute("SELECT seat0, seat1, winner, pair_index FROM matches "
                          "WHERE reason != 'no_contest'").fetchall()
    pairs: dict[tuple[str, str, int], list[tuple[str, float]]] = {}
    for seat0, seat1, winner, index in rows:
        score = 0.5 if winner is None else float(winner == 0)
        pairs.setdefault((*sorted((seat0, seat1)), index), []).append((seat0, score))  # type: ignore[arg-type]
    return pairs


def test_leaderboard_statistics_are_the_stores(two):
    with opened(two) as db:
        table = leaderboard(db).set_index("bot")
    pairs = points_by_pair(two)
    for bot in BOTS:
        values, clusters = [], []
        for key, matches in pairs.items():
            if bot in key[:2]:
                for seat0, score in matches:
                    values.append(score if seat0 == bot else 1 - score)
                    clusters.append(key)
        row = table.loc[bot]
        assert row["wins"] + row["draws"] + row["losses"] == row["matches"] == len(values) == 48
        assert row["wins"] == values.count(1.0) and row["draws"] == values.count(0.5)
        interval, _ = clustered_mean(values, clusters)
        assert row["score_pct"] == pytest.approx(100 * sum(values) / len(values))
        assert (row["score_low"], row["score_high"]) == (pytest.approx(100 * interval.low),
                                                         pytest.approx(100 * interval.high))
        assert row["score_low"] < row["score_pct"] < row["score_high"]
        assert row["elo_low"] < row["elo"] < row["elo_high"]
    assert table["elo"].sum() == pytest.approx(0, abs=1e-6)
    # TrueSkill still ranks the table; the mark follows the Elo fit's LOS of the row above.
    assert list(table["rank"]) == list(range(1, 6))
    assert table["separated"].iloc[0] and math.isnan(table["los_above"].iloc[0])
    assert list(table["separated"].iloc[1:]) == list(table["los_above"].iloc[1:] >= 100 * SEPARATED_LOS)


def test_head_to_head_counts_each_duplicate_pair_once(two):
    with opened(two) as db:
        h2h = head_to_head(db).set_index(["bot", "opponent"])
    pairs = points_by_pair(two)
    for (a, b, _), matches in pairs.items():
        assert len(matches) == 2  # a finished round robin: every pair whole
    for a in BOTS:
        for b in BOTS:
            if a == b:
                continue
            mine = [sum(s if seat0 == a else 1 - s for seat0, s in matches)
                    for key, matches in pairs.items() if set(key[:2]) == {a, b}]
            penta = pentanomial(mine)
            row = h2h.loc[(a, b)]
            assert row["penta"] == penta.counts and row["pairs"] == 6
            assert row["score"] == pytest.approx(penta.mean())
            assert row["score_low"] == pytest.approx(score_interval(penta).low)
            assert row["los"] == pytest.approx(los(penta))
            assert row["los"] + h2h.loc[(b, a), "los"] == pytest.approx(1)


def test_an_incomplete_pair_and_a_no_contest_are_left_out_of_the_pairs(tmp_path):
    path = tmp_path / "results.sqlite"
    synthetic_store.fill(path, names=["a", "b"], matches_per_pairing=4)
    with sqlite3.connect(path) as db:
        # A run stopped halfway through a pair, and a match neither bot started.
        (gone,) = db.execute("SELECT match_id FROM matches WHERE pair_index = 1 AND swapped = 1"
                             ).fetchone()
        for table in ("deals", "seats", "matches"):
            db.execute(f"DELETE FROM {table} WHERE match_id = ?", (gone,))
        db.execute("UPDATE matches SET reason = 'no_contest', winner = NULL "
                   "WHERE pair_index = 0 AND swapped = 0")
    with connect_read_only(path) as db:
        h2h = head_to_head(db)
        table = leaderboard(db).set_index("bot")
        assert len(comparisons(db)) == 2  # the half of pair 1 and the played half of pair 0
    assert list(h2h["pairs"]) == [0, 0] or h2h.empty  # no pair is whole
    assert (table["wins"] + table["draws"] + table["losses"]).tolist() == [2, 2]


def test_the_elo_fit_ranks_the_synthetic_bots_by_their_hidden_strength(tmp_path):
    """The strengths are given, 0.6 apart, and no bot forfeits: ten duplicate pairs per pairing
    then order every two neighbours (this store gave the strengths' order without a tie for 999 of
    the seeds 0-999), so the test checks the fit, not a seed's luck.

    Issue 28: the strengths used to be drawn from seed 9, and first-legal, the strongest, is one of
    fill's flaky bots, which lose a match by forfeit now and then whatever their strength. It ended
    on 74 of 100 points, as mcts did. In a complete round robin the fit orders the bots exactly by
    their points (a bot's total is all the likelihood knows of it), so the two got the same Elo but
    for ~1e-13 of rounding; which of them came first depended on the BLAS kernels the CPU gets
    (OPENBLAS_CORETYPE=Nehalem flips it, with old and new numpy, pandas and scipy alike), and
    Spearman's rho with it: 0.94, 0.90 for an exact tie, or 0.83, against a threshold of 0.9."""
    names = synthetic_store.NAMES[:6]
    strength = dict(zip(names, (0.3, -0.9, -1.5, 1.5, 0.9, -0.3)))
    synthetic_store.fill(tmp_path / "results.sqlite", names=names, matches_per_pairing=20, seed=9,
                         strength=strength, flaky=())
    with opened(tmp_path) as db:
        fit = fit_elo(comparisons(db))
    elo = dict(zip(fit.bots, fit.elo))
    weakest_first = sorted(names, key=strength.__getitem__)
    # Apart by more than rounding could ever move them: one match point is worth several Elo here.
    assert [elo[b] - elo[a] > 1 for a, b in zip(weakest_first, weakest_first[1:])] == [True] * 5
    assert fit.los(weakest_first[-1], weakest_first[0]) > 0.99


@pytest.mark.parametrize("case", ["three", "four", "four-of-two"])
def test_three_and_four_players_give_sensible_figures(seated, case):
    with opened(seated[case]) as db:
        table = leaderboard(db).set_index("bot")
        h2h = head_to_head(db)
        fit = fit_elo(comparisons(db))
    assert (table["wins"] + table["draws"] + table["losses"] == table["matches"]).all()
    even = 100 / 3 if case == "three" else 50
    for row in table.itertuples():
        assert 0 <= row.score_low <= row.score_pct <= row.score_high <= 100
        assert row.elo_low < row.elo < row.elo_high and math.isfinite(row.elo)
    assert table["score_pct"].mean() == pytest.approx(even)  # every bot plays as many matches
    assert h2h["penta"].isna().all() and (h2h["pairs"] >= 2).all()
    assert (h2h["los"].between(0, 1)).all()
    matrix = los_matrix(list(table.index), fit)
    assert matrix.shape == (len(table), len(table)) and matrix.isna().sum().sum() == len(table)
    assert (matrix + matrix.T).stack().dropna().round(9).eq(1).all()


def test_the_leaderboard_command_prints_the_statistics_and_the_legend(two):
    shown = runner.invoke(app, ["leaderboard", str(two)])
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert "W-D-L" in lines[0] and "score_pct [95%]" in lines[0] and "elo [95%]" in lines[0]
    assert LEGEND.split(":")[0] == NOT_SEPARATED and LEGEND in " ".join(shown.output.split())
    with opened(two) as db:
        table = leaderboard(db)
    for line, row in zip(lines[1:6], table.itertuples()):
        assert line.split()[1 if row.separated else 2] == row.bot
        assert (NOT_SEPARATED in line.split()[:2]) is (not row.separated)
        assert f"[{row.score_low:.1f}, {row.score_high:.1f}]" in line
    rows = json.loads(runner.invoke(app, ["leaderboard", str(two), "-f", "json"]).output)
    assert rows[0]["los_above"] is None and rows[0]["separated"] is True
    assert {"wins", "draws", "losses", "score_low", "score_high", "elo", "elo_low", "elo_high"} \
        <= set(rows[1])
    csv = runner.invoke(app, ["leaderboard", str(two), "-f", "csv"]).output
    assert pd.read_csv(pd.io.common.StringIO(csv))["elo"].sum() == pytest.approx(0, abs=0.5)


def test_a_store_where_nothing_was_played_shows_dashes_not_numbers(tmp_path):
    """Every match declined (PROTOCOL.md §9): no bot has a result, so no interval, Elo or LOS."""
    path = tmp_path / "results.sqlite"
    store = Store.open(path)
    store.begin_tournament("t", {"name": "t", "bots": ["a", "b", "c"], "profile": "three_player",
                                 "rules": {}, "deal_sets": 1})
    store.register_bots([(n, [n], "") for n in "abc"])
    for entry in three_player_sets("t", ["a", "b", "c"], 1):
        store.record_match(entry, MatchResult(
            entry.match_id, None, MatchEnding.DECLINED, (0, 0, 0), (),
            tuple(SeatStats(n) for n in entry.seats), declined=(entry.seats.index("c"),),
            detail="c does not support three_player"))
    store.close()
    with opened(tmp_path) as db:
        table = leaderboard(db)
        assert head_to_head(db).empty and comparisons(db) == []
    assert table[["score_low", "score_high", "elo", "elo_low", "elo_high", "los_above"]] \
        .isna().all().all()
    assert (table[["wins", "draws", "losses"]] == 0).all().all() and table["separated"].all()
    shown = display_table(table)
    assert set(shown["score_pct [95%]"]) == set(shown["elo [95%]"]) == set(shown["los_above"]) \
        == {"–"}
    with opened(tmp_path) as db:
        data = read_report_data(db)
    pages = render_pages(data, {c: (8.0, 4.0) for c in CHARTS})  # the pages, not the charts
    assert "los-matrix" in pages["index.html"]
    assert not any(re.search(r"\bnan\b", text, re.I) for text in pages.values())


def test_interval_and_likelihood_texts():
    assert interval_text(52.14, 47.0, 57.25) == "52.1 [47.0, 57.2]"
    assert interval_text(300, 100, math.inf, digits=0) == "300 [100, ∞]"
    assert interval_text(0.0, math.nan, math.nan) == interval_text(math.nan, 0, 1) == "–"
    # Rounded towards 50%: a near-certainty never prints as certain, nor 94.96% as 95.0.
    assert [likelihood_text(p) for p in (0.9496, 0.95, 0.9995, 1.0, 0.0004, 0.0504, None)] == \
        ["94.9", "95.0", ">99.9", "100.0", "<0.1", "5.1", "–"]
