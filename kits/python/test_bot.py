"""Unit tests of the starter bot: ``python3 -m pytest`` in this folder (the arena's Python has
pytest where its test extras are installed).

Whole matches are played in-process (``protocol.local``: the referee's lines, without processes),
which raises on any action the request did not list; the engine's own count says when a claim
is due.
"""

from __future__ import annotations

import random

import pytest

from arena.game import CLAIM, PASS, Action, profile
from bot import StarterBot, manifest_name
from protocol import Bot, BotSession, BotView
from protocol.local import play

PROFILES = ("sixty_six", "schnapsen", "vu_compat", "three_player", "four_player")


class Scribbler(Bot):
    """An opponent that plays any legal action but a claim."""

    name = "scribbler"
    player_counts = (2, 3, 4)

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def decide(self, view: BotView, legal: tuple[Action, ...]) -> Action:
        return self.rng.choice([a for a in legal if a is not CLAIM] or list(legal))


class Recording(StarterBot):
    """The starter bot, keeping its answers."""

    def __init__(self) -> None:
        super().__init__("starter")
        self.answers: list[Action] = []

    def decide(self, view: BotView, legal: tuple[Action, ...]) -> Action:
        answer = super().decide(view, legal)
        self.answers.append(answer)
        return answer


@pytest.mark.parametrize("name", PROFILES)
def test_plays_legally_and_claims_exactly_at_the_target(name):
    rules = profile(name)
    for seed in range(5):
        me = Recording()
        bots: list[Bot] = [me] + [Scribbler(seed * 10 + k) for k in range(1, rules.players)]
        due: list[bool | None] = []  # at each of its requests: must claim / must not / no claim

        def before(state, seat, view):
            if seat == 0:
                deal = state.deal
                offered = CLAIM in deal.legal_actions()
                reached = deal.total(rules.side_of[0]) >= rules.claim_target
                due.append(reached if offered else None)

        play(rules, bots, seed=seed, on_request=before, max_deals=30)
        assert len(due) == len(me.answers) > 0
        for must, answer in zip(due, me.answers):
            if must is not None:
                assert (answer == CLAIM) == must


def test_passes_a_claim_window_below_66():
    session = BotSession(StarterBot())
    for line in ["sixtysix 1",
                 "match t1 profile sixty_six target 7 seat 0 opponent x decision_ms 1000",
                 "deal 1 dealer opp upcard KC stock 12 hand AC 9C QS JH KD QD score 0 0 pot 0",
                 "played me AC", "played opp 9H", "trick me AC 9H"]:
        session.feed(line)
    assert session.feed("after_trick? claim close pass") == str(PASS)  # 11 points


def test_its_name_is_the_manifests():
    session = BotSession(StarterBot(manifest_name()))
    assert session.feed("sixtysix 1") == f"ready {manifest_name()}"
