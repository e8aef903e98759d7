"""The SDK's loop, scripted line by line without a process (python-chess MockTransport style)."""

from __future__ import annotations

import io
import logging

import pytest

from arena.game import Action
from protocol import Bot, BotSession, BotView, MatchEnd, ProtocolError, Settle, run
from protocol.messages import Event

GREETING = ["sixtysix 1",
            "match t9 profile sixty_six target 7 seat 1 opponent rival decision_ms 1000"]
# A short, complete dialogue as seat 1 sees it. The SDK is tested here, not the rules: the bot
# answers the first legal action and the referee's lines are taken as given.
DIALOGUE = GREETING + [
    "rules deck_size=24 last_trick_bonus=10",
    "deal 1 dealer opp upcard TH stock 12 hand AS KS QS 9H JC 9D score 0 0 pot 0",
    "lead? close marry:S play:JC play:AS play:KS play:QS play:9H play:9D",
    "marriage me S 20",
    "lead? claim play:KS play:QS",
    "played me KS",
    "note the referee may add informational lines",
    "played opp AS",
    "trick opp KS AS",
    "after_trick? claim close pass",
    "draw opp",
    "draw me 7C",
    "settle winner opp reason claim points 1 awarded 1 totals 66 40 tricks 3 2 score 0 1 pot 0",
    "match_end winner opp reason target score 0 7",
]


class FirstLegal(Bot):
    """Answers the first legal action and records every hook call."""

    name = "first"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def decide(self, view: BotView, legal: tuple[Action, ...]) -> Action:
        self.calls.append(f"decide {view.decision} {legal[0]}")
        return legal[0]

    def on_match_start(self, view: BotView) -> None:
        self.calls.append(f"match_start {view.match_id} seat={view.seat} {view.rules.name}")

    def on_deal_start(self, view: BotView) -> None:
        self.calls.append(f"deal_start {view.deal_no}")

    def on_event(self, view: BotView, event: Event) -> None:
        self.calls.append(f"event {type(event).__name__}")

    def on_deal_end(self, view: BotView, settle: Settle) -> None:
        self.calls.append(f"deal_end {settle.reason}")

    def on_match_end(self, view: BotView, end: MatchEnd) -> None:
        self.calls.append(f"match_end {end.winner}")


def script(lines: list[str]) -> io.StringIO:
    return io.StringIO("".join(line + "\n" for line in lines))


def test_scripted_dialogue_writes_exactly_the_answers() -> None:
    bot = FirstLegal()
    out = io.StringIO()
    view = run(bot, script(DIALOGUE), out)
    assert out.getvalue().splitlines() == ["ready first", "close", "claim", "claim"]
    assert bot.calls == [
        "match_start t9 seat=1 sixty_six", "deal_start 1", "decide lead close",
        "event Marriage", "decide lead claim", "event Played", "event Played", "event Trick",
        "decide after_trick claim", "event Draw", "event Draw", "deal_end claim", "match_end opp",
    ]
    assert view.match_end is not None and view.score == (0, 7)


def test_every_answer_is_flushed_at_once() -> None:
    class Recorder(io.StringIO):
        def __init__(self) -> None:
            super().__init__()
            self.flushed: list[str] = []

        def flush(self) -> None:
            self.flushed.append(self.getvalue())
            super().flush()

    out = Recorder()
    run(FirstLegal(), script(DIALOGUE), out)
    assert out.flushed == ["ready first\n", "ready first\nclose\n", "ready first\nclose\nclaim\n",
                           "ready first\nclose\nclaim\nclaim\n"]


def test_binary_streams() -> None:
    out = io.BytesIO()
    run(FirstLegal(), io.BytesIO(script(DIALOGUE).getvalue().encode()), out)
    assert out.getvalue() == b"ready first\nclose\nclaim\nclaim\n"


def test_stops_reading_after_match_end() -> None:
    src = script(DIALOGUE + ["lead? pass"])
    out = io.StringIO()
    run(FirstLegal(), src, out)
    assert src.readline() == "lead? pass\n"  # left unread
    assert out.getvalue().count("\n") == 4


def test_end_of_input_ends_the_loop_cleanly() -> None:
    out = io.StringIO()
    view = run(FirstLegal(), script(DIALOGUE[:6]), out)
    assert out.getvalue() == "ready first\nclose\n" and view.match_end is None


def test_unknown_lines_are_ignored() -> None:
    out = io.StringIO()
    run(FirstLegal(), script(["chat hello", "sixtysix 1", "x", "lead", "status? 1 2"]), out)
    assert out.getvalue() == "ready first\n"


def test_the_clock_line_gives_the_first_decision_and_the_bank() -> None:
    # PROTOCOL.md §6: a match with a time bank or a longer first decision says so after `match`.
    seen: list[tuple[int, int, int]] = []

    class Timed(FirstLegal):
        def decide(self, view: BotView, legal: tuple[Action, ...]) -> Action:
            seen.append((view.decision_ms, view.first_decision_ms, view.bank_ms))
            return legal[0]

    out = io.StringIO()
    run(Timed(), script(DIALOGUE[:2] + ["clock first_decision_ms 5000 bank_ms 30000"] +
                        DIALOGUE[2:]), out)
    assert out.getvalue().splitlines() == ["ready first", "close", "claim", "claim"]
    assert seen[0] == (1000, 5000, 30000)
    # Without the line (every match without either), the first decision has decision_ms, no bank.
    seen.clear()
    run(Timed(), script(DIALOGUE), io.StringIO())
    assert seen[0] == (1000, 1000, 0)


def test_another_version_is_refused_by_exiting(caplog: pytest.LogCaptureFixture) -> None:
    out = io.StringIO()
    with caplog.at_level(logging.ERROR, "protocol.sdk"):
        run(FirstLegal(), script(["sixtysix 2", *GREETING[1:]]), out)
    assert out.getvalue() == ""
    assert "version 2" in caplog.text


def test_an_unlisted_action_is_sent_as_it_is_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    class Stubborn(Bot):
        name = "stubborn"

        def decide(self, view: BotView, legal: tuple[Action, ...]) -> Action:
            return Action.parse("claim")

    out = io.StringIO()
    with caplog.at_level(logging.WARNING, "protocol.sdk"):
        run(Stubborn(), script(GREETING + ["follow? play:AS play:9D"]), out)
    assert out.getvalue() == "ready stubborn\nclaim\n"  # not corrected: the referee judges
    assert "claim, which the follow? request did not list (play:AS play:9D)" in caplog.text


def test_decide_must_return_an_action() -> None:
    class Sloppy(Bot):
        name = "sloppy"

        def decide(self, view: BotView, legal: tuple[Action, ...]) -> Action:
            return "play:AS"  # type: ignore[return-value]

    with pytest.raises(TypeError, match="not an Action"):
        run(Sloppy(), script(GREETING + ["follow? play:AS"]), io.StringIO())


def test_a_bad_name_fails_before_the_greeting() -> None:
    class Spaced(Bot):
        name = "my bot"

    with pytest.raises(ValueError, match="name"):
        BotSession(Spaced())


def test_garbage_from_the_referee_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError, match="played: missing card"):
        run(FirstLegal(), script(GREETING + ["played me"]), io.StringIO())


def test_session_feeds_without_streams() -> None:
    session = BotSession(FirstLegal())
    assert session.feed("sixtysix 1\n") == "ready first"
    assert session.feed(b"match t profile schnapsen target 7 seat 0 opponent r decision_ms 5\r\n") \
        is None
    assert session.view.rules.name == "schnapsen"  # the profile, until a rules line refines it
    assert session.feed("between_tricks? pass") == "pass"
    assert session.view.request is None  # answered
    assert not session.finished
    session.feed("match_end winner me reason forfeit score 0 0 fault exit by opp")
    assert session.finished


# -- three and four players: declared variants, decline (PROTOCOL.md §9) ---------------------------


class EveryVariant(FirstLegal):
    name = "every"
    player_counts = (2, 3, 4)


class ThreeOnly(FirstLegal):
    name = "three"
    profiles = frozenset({"three_player"})
    player_counts = (2, 3)


@pytest.mark.parametrize("bot, greeting, answer", [
    (FirstLegal(), "sixtysix 1", "ready first"),
    (FirstLegal(), "sixtysix 1 players 3 profile three_player",
     "decline does not support three_player"),
    (FirstLegal(), "sixtysix 1 players 4 profile four_player", "decline does not support four_player"),
    (EveryVariant(), "sixtysix 1 players 4 profile four_player", "ready every"),
    (ThreeOnly(), "sixtysix 1 players 3 profile three_player", "ready three"),
    (ThreeOnly(), "sixtysix 1 players 3 profile three_player_house", "decline does not support "
                                                                      "three_player_house"),
    (ThreeOnly(), "sixtysix 1", "ready three"),
], ids=["two", "default declines 3", "default declines 4", "every variant", "declared profile",
        "other profile", "three-only plays two"])
def test_the_greeting_is_answered_by_what_the_bot_declares(bot: Bot, greeting: str,
                                                           answer: str) -> None:
    session = BotSession(bot)
    assert session.feed(greeting) == answer
    assert session.finished == answer.startswith("decline")


def test_run_declines_and_stops_reading() -> None:
    out = io.StringIO()
    lines = "sixtysix 1 players 3 profile three_player\nmatch this is never read\n"
    run(FirstLegal(), io.StringIO(lines), out)
    assert out.getvalue() == "decline does not support three_player\n"
