"""protocol.local.play: in-process matches of 2, 3 or 4 bots over the real lines."""

from __future__ import annotations

import pytest

from arena.game import profile, replay
from bots.random_bot import RandomBot
from protocol.local import play
from protocol_driver import PatientRandomBot


class Random(RandomBot):
    player_counts = (2, 3, 4)


@pytest.mark.parametrize("name", ["sixty_six", "three_player", "four_player"])
def test_the_actions_replay_the_match(name: str) -> None:
    rules = profile(name)
    match = play(rules, [Random() for _ in range(rules.players)], seed=9, first_dealer=1)
    assert match.state.outcome is not None and match.declined == {}
    again = replay(rules, 9, match.actions, first_dealer=1)
    assert again.game_points == match.state.game_points
    assert [r.settlement for r in again.results] == [r.settlement for r in match.state.results]
    assert len(match.transcripts) == rules.players
    for seat, lines in enumerate(match.transcripts):
        assert lines[0].startswith("> sixtysix 1") and lines[-1].startswith("> match_end ")
        assert sum(line.startswith("< ") for line in lines) > 1


def test_without_transcripts_the_same_match_is_played() -> None:
    rules = profile("four_player")
    kept = play(rules, [Random() for _ in range(4)], seed=4)
    bare = play(rules, [Random() for _ in range(4)], seed=4, transcripts=False)
    assert bare.transcripts == () and bare.actions == kept.actions


def test_the_deal_limit_stops_a_match() -> None:
    # Patient bots never claim: a sixty_six deal played out is a draw, and the match would go on.
    match = play(profile("sixty_six"), [PatientRandomBot(), PatientRandomBot()], seed=2, max_deals=3)
    assert match.state.outcome is not None and match.state.outcome.reason == "deal_limit"
    assert len(match.state.results) == 3
    assert match.transcripts[0][-1] == "> match_end winner none reason deal_limit score 0 0"


def test_the_number_of_bots_must_fit_the_profile() -> None:
    with pytest.raises(ValueError, match="three_player is played by 3 bots, not 2"):
        play(profile("three_player"), [Random(), Random()])
