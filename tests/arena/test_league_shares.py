"""Matchmaking's shares in a real league (issue 30): five cheap bundled bots play a short league with
real bot processes and a real store, and the league's own pairs (``league_pairs``) keep the rule's
promise over every window: no pairing beyond twice its even share, every bot at least half the
mean. The rule itself is simulated at length in test_league_matchmaking.py."""

from __future__ import annotations

import pytest

from arena.compete.league import run_league
from arena.compete.matchmaking import window_size
from league_util import check_whole, read_store, shares, worst_windows, write_settings

BOTS = ["random", "greedy", "first-legal", "c-counter", "first-legal-c"]


@pytest.mark.slow
def test_a_real_league_of_five_bundled_bots_keeps_the_shares_over_every_window(tmp_path):
    """Two windows of pairs (40, some 25 s). The rule before issue 30 gave 12 of them to greedy v
    random, 4 x that pairing's even share in one window, and random's partners but one bot 3 of
    the mean 8 pairs."""
    league = tmp_path / "league"
    write_settings(league, name="shares", bots=BOTS, workers=2, publish_every=0)
    width = window_size(len(BOTS))  # 20 pairs
    progress = run_league(league, data=tmp_path / "data", max_pairs=2 * width, publish=False)
    assert progress.pairs == 2 * width
    check_whole(league, "shares")
    pairs = [(a, b) for a, b in read_store(league, "SELECT a, b FROM league_pairs ORDER BY pair_no")]
    assert len(pairs) == 2 * width and {b for p in pairs for b in p} == set(BOTS)
    most, least = worst_windows(pairs, BOTS, width)
    assert most <= 2.0 and least >= 0.5, (most, least, pairs)
    most, least = shares(pairs, BOTS)
    assert most <= 2.0 and least >= 0.5, (most, least, pairs)
