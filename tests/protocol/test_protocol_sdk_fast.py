"""The SDK's fast path (sdk._fast) agrees with the full decoder on every line it takes, and a bot
fed through it sees, answers and is told exactly what it is through the full way (issue 18)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.game import CARDS, profile
from bots.greedy_bot import GreedyBot
from bots.random_bot import RandomBot
from protocol import Bot, BotSession, BotView, ProtocolError, decode_from_referee, encode
from protocol.local import play
from protocol.messages import FLAG_RE, WORD_RE, Event, MatchEnd, RefereeMessage, Settle
from protocol.sdk import _FULL_WAY, _fast
from protocol.view import PROFILES, _profile_texts
from protocol_strategies import referee_messages


class FirstLegal(Bot):
    name = "first"

    def decide(self, view: BotView, legal: tuple[Any, ...]) -> Any:
        return legal[0]


def outcome(session: BotSession, line: str | bytes, fast: bool) -> tuple[object, ...]:
    """What feeding ``line`` did: the answer (or the error), the bot's hook calls and the view."""
    try:
        reply: object = session.feed(line) if fast else session.handle(decode_from_referee(line))
    except (ProtocolError, KeyError, ValueError, TypeError, AssertionError) as err:
        reply = (type(err), str(err))
    bot = session.bot
    calls = bot.calls if isinstance(bot, Recorder) else ()
    return reply, calls, Recorder.snap(session.view), session.finished


def agrees(line: str | bytes, hooked: bool = True) -> bool:
    """Feeding ``line`` to a fresh session does what the full decoder and ``handle`` do. True when
    the fast path took it."""
    def fresh() -> BotSession:
        return BotSession(Recorder(FirstLegal()) if hooked else FirstLegal())
    session = fresh()
    taken = _fast(session, line) is not _FULL_WAY
    if not taken:
        return False
    assert outcome(fresh(), line, True) == outcome(fresh(), line, False), line
    return True


@settings(max_examples=150, deadline=None)
@given(referee_messages)
def test_every_message_the_fast_path_reads_is_the_decoders(msg: RefereeMessage) -> None:
    line = encode(msg)
    agrees(line)
    agrees(line.encode() + b"\r\n", hooked=False)


# Words that are one character away from right, or right in the wrong place.
ODD_WORDS = ["0", "00", "01", "+1", "-1", "1_0", "\u0661", "20", "40", "30", "me", "opp", "none",
             "ME", "2", "AS", "as", "1S", "S", "X", "play:AS", "play:as", "claim", "score", "pot",
             "hand", "dealer", "totals", "target", "reason", "", "\t", "é", "=", "deck_size=24"]


@settings(max_examples=200, deadline=None)
@given(referee_messages, st.data())
def test_a_spoiled_line_is_read_alike_or_left_to_the_decoder(msg: RefereeMessage,
                                                              data: st.DataObject) -> None:
    words = encode(msg).split(" ")
    at = data.draw(st.integers(0, len(words)))
    how = data.draw(st.sampled_from(["replace", "insert", "drop", "double"]))
    odd = data.draw(st.sampled_from(ODD_WORDS + words))
    if how == "replace" and at < len(words):
        words[at] = odd
    elif how == "insert":
        words.insert(at, odd)
    elif how == "drop" and at < len(words):
        del words[at]
    elif at < len(words):
        words.insert(at, words[at])
    line = " ".join(words)
    agrees(line)


@pytest.mark.parametrize("line", [
    "played me", "trick me AS AS", "trick me AS KS QS", "draw me", "draw opp AS KS",
    "marriage me S 30", "marriage me S 020", "exchange me JH JH", "close 1", "claim",
    "deal 0 dealer me upcard TH stock 12 hand AS score 0 0 pot 0",
    "deal 1 dealer me upcard TH stock 0 hand AS score 0 0 pot 0",
    "deal 1 dealer me upcard TH stock 12 hand AS AS score 0 0 pot 0",
    "deal 1 dealer me upcard TH stock 12 hand TH score 0 0 pot 0",
    "deal 1 dealer me upcard TH stock 12 hand score 0 0 pot 0",
    "deal 1 dealer me upcard TH stock 12 hand AS score 01 0 pot 0",
    "lead?", "lead? play:AS play:AS", "lead? play:as",
    "settle winner me reason nothing points 1 awarded 1 totals 66 40 tricks 3 2 score 0 1 pot 0",
    "settle winner 0 reason claim points 1 awarded 1 totals 66 40 tricks 3 2 score 0 1 pot 0",
    "sixtysix 01", "rules deck_size=24 deck_size=24",
    "match_end winner none reason target score 7 0", "match_end winner me reason target score 7",
    "match_end winner me reason won score 7 0", "match_end winner me reason target score 07 0",
    "match t profile p target 0 seat 0 opponent r decision_ms 5",
    "match t profile p target 7 seat 2 opponent r decision_ms 5",
    "match t profile p target 7 seat 0 opponent r! decision_ms 5",
    "match t profile p target 7 seat 0 opponent r decision_ms 0",
    "match t\tx profile p target 7 seat 0 opponent r decision_ms 5",
    "played  me AS", " played me AS", "played me AS ", "played me\rAS",
])
def test_a_bad_line_is_the_same_protocol_error_as_ever(line: str) -> None:
    session = BotSession(Bot())
    assert _fast(session, line) is _FULL_WAY
    assert _fast(session, line.encode() + b"\n") is _FULL_WAY
    with pytest.raises(ProtocolError):
        session.feed(line)


@pytest.mark.parametrize("line", ["after? pass", "sixtysix 2", "rules deck_size=25",
                                  "rules deck_size=24 flag_of_tomorrow=1", "played 0 AS"])
def test_an_unusual_good_line_goes_the_full_way(line: str) -> None:
    assert _fast(BotSession(Bot()), line) is _FULL_WAY
    decode_from_referee(line)


def test_bad_bytes_go_the_full_way() -> None:
    session = BotSession(Bot())
    for line in (b"played me \xff\n", b"played me AS\n\n", b"\n", b"played me " + b"A" * 1100,
                 b"played me AS\r\r\n"):
        assert _fast(session, line) is _FULL_WAY
        with pytest.raises(ProtocolError):
            session.feed(line)


def test_the_usual_lines_take_the_fast_path() -> None:
    """The point of it: every line of a two-player match (but a match_end with a fault)."""
    for line in ["sixtysix 1", "match t9 profile sixty_six target 7 seat 1 opponent rival "
                 "decision_ms 1000", "match_end winner opp reason target score 0 7",
                 "match_end winner none reason deal_limit score 3 3", "rules deck_size=24 last_trick_bonus=10",
                 "deal 1 dealer opp upcard TH stock 12 hand AS KS QS 9H JC 9D score 0 0 pot 0",
                 "lead? close marry:S play:JC", "follow? play:AS", "marriage me S 20",
                 "marriage opp H 40", "played me KS",
                 "trick opp KS AS", "draw opp", "draw me 9C", "draw opp JH", "close opp",
                 "exchange opp TH JH", "claim me",
                 "settle winner none reason claim points 0 awarded 1 totals 66 40 tricks 3 2 "
                 "score 0 1 pot 1"]:
        assert agrees(line), line
        assert agrees(line, hooked=False), line


def test_profile_flag_texts_are_valid_rules_words() -> None:
    """The rules fast path takes a line that lists its profile's own flags without RulesLine's
    checks: those names and values must pass them."""
    for name in PROFILES:
        for flag, value in _profile_texts(name).items():
            assert FLAG_RE.fullmatch(flag) and WORD_RE.fullmatch(value)


class Recorder(Bot):
    """Plays as ``inner`` does and writes down every hook call with what it was given and what the
    view said then."""

    def __init__(self, inner: Bot) -> None:
        self.inner, self.name, self.calls = inner, inner.name, []  # type: ignore[misc]
        self.calls: list[object] = []

    @staticmethod
    def snap(view: BotView) -> tuple[object, ...]:
        return (repr(view), view.hand, view.played, view.table, view.tricks, view.marriages,
                view.known_cards(view.seats[1]), view.unseen_counts(), view.hand_sizes,
                view.score, view.pot, view.rules, view.rules_warnings, view.stock_size,
                view.stock_state, view.upcard, view.stock_bottom, view.leader, view.to_play,
                view.last_settle, view.match_end, view.request, view.closer, view.claimed_by,
                view.exchanged_by, view.tricks_won, view.pending_marriage_points(),
                view.match_id, view.profile, view.target, view.seat, view.opponent,
                view.decision_ms, view.players, view.names, view.deal_no, view.dealer)

    def decide(self, view: BotView, legal: tuple[Any, ...]) -> Any:
        self.calls.append(("decide", legal, self.snap(view)))
        return self.inner.decide(view, legal)

    def on_match_start(self, view: BotView) -> None:
        self.calls.append(("match_start", self.snap(view)))
        self.inner.on_match_start(view)

    def on_deal_start(self, view: BotView) -> None:
        self.calls.append(("deal_start", self.snap(view)))
        self.inner.on_deal_start(view)

    def on_event(self, view: BotView, event: Event) -> None:
        self.calls.append(("event", event, self.snap(view)))
        self.inner.on_event(view, event)

    def on_deal_end(self, view: BotView, settle: Settle) -> None:
        self.calls.append(("deal_end", settle, self.snap(view)))

    def on_match_end(self, view: BotView, end: MatchEnd) -> None:
        self.calls.append(("match_end", end, self.snap(view)))


@pytest.mark.parametrize("name", ["sixty_six", "schnapsen", "vu_compat"])
def test_a_match_through_the_fast_path_is_the_match_through_the_decoder(name: str) -> None:
    rules = profile(name)
    played = play(rules, [GreedyBot(), RandomBot("x")], seed=3, max_deals=20)
    lines = [line[2:] for line in played.transcripts[0] if line.startswith("> ")]
    fast, full = BotSession(Recorder(GreedyBot())), BotSession(Recorder(GreedyBot()))
    for line in lines:
        assert fast.feed(line + "\n") == full.handle(decode_from_referee(line + "\n")), line
    assert fast.bot.calls == full.bot.calls  # type: ignore[attr-defined]
    assert len(fast.bot.calls) > 20  # type: ignore[attr-defined]


def test_events_are_built_only_for_a_bot_that_hooks_them() -> None:
    assert not BotSession(Bot())._events_hooked
    assert BotSession(Recorder(Bot()))._events_hooked


def test_every_card_word_is_in_the_tables() -> None:
    from protocol.sdk import _CARD
    assert set(_CARD.values()) == set(CARDS) and all(re.fullmatch("[0-9AKQJT][CSHD]", w)
                                                      for w in _CARD)


def test_the_warm_up_runs_the_fast_path_and_leaves_the_next_match_alone() -> None:
    """The zygote's warm_up must exercise the fast path (else it warms the wrong code) and must
    not change what a bot forked after it sees."""
    from protocol.sdk import _WARM_UP_DEAL, _WarmUpBot, warm_up
    session = BotSession(_WarmUpBot())
    for line in ["sixtysix 1", "match w profile sixty_six target 7 seat 0 opponent w "
                 "decision_ms 1000", *_WARM_UP_DEAL,
                 "match_end winner opp reason target score 0 7"]:
        assert _fast(session, line) is not _FULL_WAY, line
    played = play(profile("sixty_six"), [GreedyBot(), RandomBot("x")], seed=5)
    lines = [line[2:] for line in played.transcripts[0] if line.startswith("> ")]

    def replay() -> list[object]:
        session = BotSession(Recorder(GreedyBot()))
        for line in lines:
            session.feed(line)
        return session.bot.calls  # type: ignore[attr-defined, no-any-return]
    before = replay()
    warm_up(rounds=1)
    assert replay() == before
