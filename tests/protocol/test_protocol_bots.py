"""The bundled Python bots: the registry, the random bot's seeding, the greedy bot's count and play,
and both run as real processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.game import CLAIM, CLOSE, EXCHANGE, PASS, Action, Card, MatchState, Rules, profile
from arena.game.rules import CLAIM_TARGET
from bots import BUNDLED_PYTHON, START, python_bot_command
from bots.greedy_bot import GreedyBot, choose_follow, choose_lead, close_is_sure
from bots.random_bot import SEED_ENV, RandomBot
from protocol import Bot, BotView, Request, decode_from_referee
from protocol_driver import InProcessMatch, PatientRandomBot, play

C = Card.parse
A = Action.parse


def test_registry() -> None:
    assert BUNDLED_PYTHON == {"random": "bots.random_bot", "greedy": "bots.greedy_bot",
                              "strong": "bots.strong"}
    assert python_bot_command("greedy") == [sys.executable, "-I", "-S", START,
                                            "bots.greedy_bot"]
    assert python_bot_command("strong", "--budget-ms", "5")[-3:] == ["bots.strong",
                                                                    "--budget-ms", "5"]
    with pytest.raises(ValueError, match="bundled: greedy, random, strong"):
        python_bot_command("smart")


# -- the random bot -------------------------------------------------------------------------------


def _transcripts(bots: tuple[Bot, Bot], seed: int = 5) -> tuple[list[str], list[str]]:
    return play(profile("sixty_six"), bots, seed=seed, match_id="m42").transcripts


def test_random_bot_is_deterministic_per_match_and_seat(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SEED_ENV, raising=False)
    first = _transcripts((RandomBot(), RandomBot()))
    assert _transcripts((RandomBot(), RandomBot())) == first
    bot = RandomBot()
    play(profile("sixty_six"), (bot, RandomBot()), match_id="m42")
    assert bot.rng.random() != RandomBot().rng.random()  # seeded from "m42/0", not the default


def test_random_bot_seed_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SEED_ENV, "fixed")
    bot = RandomBot()
    view = BotView()
    view.update(decode_from_referee("match zz profile sixty_six target 7 seat 1 opponent r "
                                    "decision_ms 9"))
    bot.on_match_start(view)
    assert bot.rng.random() == RandomBot("fixed").rng.random()


# -- the greedy bot against the engine -------------------------------------------------------------


class CheckedGreedy(GreedyBot):
    """Greedy, with the engine's omniscient total at hand to judge every claim decision."""

    def __init__(self) -> None:
        self.true_total = 0
        self.claims = 0
        self.windows_at_66 = 0

    def decide(self, view: BotView, legal: tuple[Action, ...]) -> Action:
        action = super().decide(view, legal)
        if action is CLAIM:
            self.claims += 1
            assert self.true_total >= CLAIM_TARGET, f"claimed with {self.true_total}: {view!r}"
        if CLAIM in legal and self.true_total >= CLAIM_TARGET:
            self.windows_at_66 += 1
            assert action is CLAIM, f"did not claim with {self.true_total}: {view!r}"
        return action


GREEDY_RULES: list[Rules] = [
    profile("sixty_six"),
    profile("schnapsen"),
    profile("sixty_six").with_overrides({"marriage_credit": "next_trick_after_meld",
                                         "claim_window": "on_lead_any_time",
                                         "exchange_who": "between_tricks"}),
]


def play_checked(rules: Rules, seat: int, seed: int,
                 opponent: type[RandomBot] = RandomBot) -> tuple[CheckedGreedy, InProcessMatch]:
    """A match of CheckedGreedy in ``seat`` against a random bot."""
    greedy = CheckedGreedy()

    def hook(state: MatchState, to_act: int, view: BotView) -> None:
        if to_act == seat:
            greedy.true_total = state.deal.total(seat)

    bots: list[Bot] = [opponent(f"r{seed}"), opponent(f"r{seed}")]
    bots[seat] = greedy
    return greedy, play(rules, bots, seed=seed, on_request=hook)


@pytest.mark.parametrize("rules", GREEDY_RULES, ids=["sixty_six", "schnapsen", "variant"])
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**9), seat=st.sampled_from([0, 1]))
def test_greedy_claims_exactly_when_its_count_reaches_66(rules: Rules, seed: int,
                                                          seat: int) -> None:
    greedy, match = play_checked(rules, seat, seed)
    # A claim by greedy is always correct, and a close by greedy always ends in its correct claim.
    for result in match.state.results:
        s = result.settlement
        if s.claimant == seat:
            assert s.reason in ("claim", "claim_against_close"), s
        if s.closer == seat:
            assert s.reason == "claim" and s.winner == seat, s


@pytest.mark.parametrize("opponent", [RandomBot, PatientRandomBot], ids=["random", "patient"])
def test_greedy_meets_claim_windows_and_beats_random(opponent: type[RandomBot]) -> None:
    wins, windows = 0, 0
    for seed in range(40):
        greedy, match = play_checked(profile("sixty_six"), seed % 2, seed, opponent)
        windows += greedy.windows_at_66
        wins += match.state.outcome is not None and match.state.outcome.winner == seed % 2
    print(opponent.name, wins, windows)
    assert windows >= 20  # the claim property above is not vacuous
    assert wins >= 34     # a counting bot beats a random one


# -- the greedy bot's choices, from scripted views -------------------------------------------------

MATCH = "match t profile sixty_six target 7 seat 0 opponent r decision_ms 1000"


def view_of(*lines: str) -> BotView:
    view = BotView()
    for line in (MATCH, *lines):
        view.update(decode_from_referee(line))
    return view


# Trump is hearts (up-card TH); seat 0 does not deal, so it leads first.
DEAL = "deal 1 dealer opp upcard TH stock 12 hand {} score 0 0 pot 0"


def test_never_claims_below_66() -> None:
    view = view_of(DEAL.format("AS KS QS 9H JC 9D"), "played me AS", "played opp TS",
                   "trick me AS TS")
    assert view.my_points() == 21
    assert GreedyBot().decide(view, (CLAIM, CLOSE, PASS)) is PASS


def test_claims_at_66_after_a_marriage() -> None:
    view = view_of(DEAL.format("AS KH QH 9H AC TC"), "played me AS", "played opp TS",
                   "trick me AS TS", "draw me AD", "draw opp", "played me AC", "played opp KC",
                   "trick me AC KC", "draw me JD", "draw opp", "marriage me H 40")
    assert view.my_points() == 21 + 15 + 40
    assert GreedyBot().decide(view, (CLAIM, A("play:KH"), A("play:QH"))) is CLAIM


def test_exchanges_whenever_allowed_and_prefers_the_trump_marriage() -> None:
    view = view_of(DEAL.format("KS QS KH QH 9H 9D"))
    assert GreedyBot().decide(view, (EXCHANGE, A("marry:H"), A("play:9D"))) is EXCHANGE
    assert GreedyBot().decide(view, (A("marry:S"), A("marry:H"), A("play:9D"))) is A("marry:H")


def test_phase_1_lead_is_cheap_and_keeps_marriages_and_trumps() -> None:
    view = view_of(DEAL.format("KS QS 9H AC JC 9D"))
    cards = list(view.hand)
    assert choose_lead(view, cards) is C("9D")


@pytest.mark.parametrize("hand, led, expected", [
    ("AS KS 9H JC 9D 7C", "9S", "KS"),    # win cheaply in suit (KS is weaker than AS)
    ("KC 7C 9H JH JD QD", "AS", "9H"),    # an ace led: take it with the lowest trump
    ("KC 7C 9H JH JD QD", "JS", "7C"),    # a cheap lead: throw the card worth least
    ("KS QS 9H 7C JD QD", "AS", "9H"),    # never the marriage cards
], ids=["in suit", "trump the ace", "discard", "keep marriage"])
def test_phase_1_follow(hand: str, led: str, expected: str) -> None:
    view = view_of(DEAL.format(hand), f"played opp {led}")
    assert choose_follow(view, C(led), list(view.hand)) is C(expected)


def test_close_only_when_sure() -> None:
    # 60 in tricks and the trump ace (a sure winner: nothing beats it) make 71: close.
    lines = [DEAL.format("AH 9H AC TC AD 9D"), "played me AC", "played opp TS", "trick me AC TS",
             "draw me AS", "draw opp", "played me AS", "played opp KS", "trick me AS KS",
             "draw me 7C", "draw opp", "played me AD", "played opp TD", "trick me AD TD",
             "draw me 8C", "draw opp"]
    view = view_of(*lines)
    assert view.my_points() == 21 + 15 + 21
    assert close_is_sure(view)
    # Without the trump ace nothing in hand is sure: the opponent may hold any trump.
    view = view_of(*(line.replace("AH", "QH") for line in lines))
    assert not close_is_sure(view)


# -- real processes --------------------------------------------------------------------------------

SCRIPT = "\n".join([
    "sixtysix 1",
    "match p1 profile sixty_six target 7 seat 0 opponent other decision_ms 1000",
    "deal 1 dealer opp upcard TH stock 12 hand AS KS QS 9H JC 9D score 0 0 pot 0",
    "lead? close marry:S play:JC play:AS play:KS play:QS play:9H play:9D",
    "match_end winner me reason forfeit score 0 0 fault exit by opp",
    "",
])


@pytest.mark.parametrize("name", sorted(BUNDLED_PYTHON))
def test_bundled_bot_runs_as_a_process(name: str, tmp_path: Path) -> None:
    # The referee starts bots in a fresh empty folder (PROTOCOL.md §1): nothing may depend on it.
    proc = subprocess.run(python_bot_command(name), input=SCRIPT.encode(), capture_output=True,
                          cwd=tmp_path, timeout=30)
    assert proc.returncode == 0, proc.stderr.decode()
    lines = proc.stdout.decode().splitlines()
    assert lines[0] == f"ready {name}"
    request = decode_from_referee(SCRIPT.splitlines()[3])
    assert isinstance(request, Request)
    assert len(lines) == 2 and A(lines[1]) in request.actions
    if name == "greedy":
        assert lines[1] == "marry:S"
