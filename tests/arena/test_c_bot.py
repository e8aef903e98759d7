"""The bundled C bot, written from PROTOCOL.md alone, built with the machine's toolchain and played
through the real referee. Skips, saying why, where make or a C compiler is missing."""

from __future__ import annotations

import shutil

import pytest

from arena.bot_specs import resolve_bot
from arena.game import profile
from arena.referee import MatchConfig, run_match

TOOLCHAIN = shutil.which("make") and (shutil.which("cc") or shutil.which("gcc"))
pytestmark = pytest.mark.skipif(not TOOLCHAIN, reason="the C bot needs make and a C compiler "
                                "(cc or gcc) on PATH to be built; neither was found")


@pytest.mark.parametrize("profile_name", ["sixty_six", "schnapsen"])
@pytest.mark.parametrize("opponent", ["random", "greedy"])
@pytest.mark.parametrize("seat", [0, 1])
def test_c_bot_plays_full_matches_without_fault(profile_name, opponent, seat):
    bots = [resolve_bot(opponent), resolve_bot(opponent)]
    bots[seat] = resolve_bot("c-counter")
    for seed in range(3):
        result = run_match(bots, MatchConfig(rules=profile(profile_name), seed=seed,
                                             match_id=f"c{seed}"))
        assert result.reason == "target", (result.fault, result.detail)
        stats = result.seats[seat]
        # It counts for itself: never a claim below 66, never a window at 66 let pass.
        assert stats.wrong_claims == 0 and stats.missed_claims == 0


def test_minimal_c_bot_builds_and_plays():
    result = run_match([resolve_bot("first-legal-c"), resolve_bot("random")],
                       MatchConfig(rules=profile("sixty_six"), seed=1, match_id="m"))
    assert result.reason == "target"
