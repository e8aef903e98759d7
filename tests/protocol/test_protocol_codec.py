"""The codec: exact lines for every message, round-trips, fuzzing, and the lines it must refuse."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from arena.game import Action, Card, Suit
from protocol import (MAX_LINE_BYTES, ActionReply, Claim, Clock, Close, DealStart, Draw, Exchange, Fault,
                      Hello, Marriage, MatchEnd, MatchStart, Message, Played, ProtocolError, Ready,
                      Request, RulesLine, Settle, Trick, Unknown, Who, decode_from_bot,
                      decode_from_referee, encode)
from protocol.messages import BotMessage, RefereeMessage, wire_name
from protocol_strategies import bot_messages, referee_messages

C = Card.parse
A = Action.parse

# One row per message type: the message and its exact line (PROTOCOL.md §3-§4).
LINES: list[tuple[Message, str]] = [
    (Hello(), "sixtysix 1"),
    (MatchStart("m-7", "sixty_six", 7, 1, "greedy", 1000),
     "match m-7 profile sixty_six target 7 seat 1 opponent greedy decision_ms 1000"),
    (Clock(5000, 30000), "clock first_decision_ms 5000 bank_ms 30000"),
    (RulesLine((("deck_size", "24"), ("exchange_who", "leader_or_follower"),
                ("claim_after_meld", "true"))),
     "rules deck_size=24 exchange_who=leader_or_follower claim_after_meld=true"),
    (DealStart(1, Who.OPP, C("TH"), 12, tuple(map(C, ["AS", "KS", "9C", "QD", "JD", "9H"])), (0, 2),
               1),
     "deal 1 dealer opp upcard TH stock 12 hand AS KS 9C QD JD 9H score 0 2 pot 1"),
    (Request("lead", (A("exchange"), A("close"), A("marry:H"), A("claim"), A("play:KH"))),
     "lead? exchange close marry:H claim play:KH"),
    (Request("after_trick", (A("claim"), A("close"), A("pass"))), "after_trick? claim close pass"),
    (Played(Who.ME, C("AS")), "played me AS"),
    (Trick(Who.OPP, C("AS"), C("9H")), "trick opp AS 9H"),
    (Marriage(Who.ME, Suit.HEARTS, 40), "marriage me H 40"),
    (Exchange(Who.OPP, C("TH"), C("9H")), "exchange opp TH 9H"),
    (Close(Who.ME), "close me"),
    (Draw(Who.ME, C("7C")), "draw me 7C"),
    (Draw(Who.OPP), "draw opp"),
    (Draw(Who.OPP, C("9H")), "draw opp 9H"),
    (Claim(Who.OPP), "claim opp"),
    (Settle(Who.ME, "claim", 2, 3, (70, 31), (4, 2), (5, 1), 0),
     "settle winner me reason claim points 2 awarded 3 totals 70 31 tricks 4 2 score 5 1 pot 0"),
    (Settle(None, "draw", 0, 0, (65, 65), (6, 6), (0, 0), 1),
     "settle winner none reason draw points 0 awarded 0 totals 65 65 tricks 6 6 score 0 0 pot 1"),
    (MatchEnd(Who.ME, "target", (7, 3)), "match_end winner me reason target score 7 3"),
    (MatchEnd(Who.OPP, "forfeit", (2, 1), Fault.TIMEOUT, Who.ME),
     "match_end winner opp reason forfeit score 2 1 fault timeout by me"),
    (MatchEnd(None, "deal_limit", (4, 4)), "match_end winner none reason deal_limit score 4 4"),
    (Unknown("chat hello there"), "chat hello there"),
]

BOT_LINES: list[tuple[BotMessage, str, str]] = [
    (Ready("greedy"), "ready greedy", "ready"),
    (ActionReply(A("play:TH")), "play:TH", "action"),
    (ActionReply(A("marry:D")), "marry:D", "action"),
    (ActionReply(A("pass")), "pass", "action"),
]


@pytest.mark.parametrize("msg, line", LINES, ids=[type(m).__name__ for m, _ in LINES])
def test_referee_message_lines(msg: RefereeMessage, line: str) -> None:
    assert encode(msg) == line
    assert decode_from_referee(line) == msg
    assert decode_from_referee(line + "\n") == msg
    assert decode_from_referee((line + "\r\n").encode()) == msg


@pytest.mark.parametrize("msg, line, expect", BOT_LINES, ids=[ln for _, ln, _ in BOT_LINES])
def test_bot_message_lines(msg: BotMessage, line: str, expect: str) -> None:
    assert encode(msg) == line
    for raw in (line, line + "\n", (line + "\r\n").encode(), line.encode()):
        assert decode_from_bot(raw, expect) == msg  # type: ignore[arg-type]


def test_every_message_type_has_a_line() -> None:
    covered = {type(m) for m, _ in LINES} | {type(m) for m, _, _ in BOT_LINES}
    assert covered == {Hello, MatchStart, Clock, RulesLine, DealStart, Request, Played, Trick, Marriage,
                       Exchange, Close, Draw, Claim, Settle, MatchEnd, Unknown, Ready, ActionReply}


@given(referee_messages)
def test_referee_round_trip(msg: RefereeMessage) -> None:
    line = encode(msg)
    assert "\n" not in line
    assert decode_from_referee(line) == msg


@given(bot_messages)
def test_bot_round_trip(msg: BotMessage) -> None:
    if isinstance(msg, Ready):
        assert decode_from_bot(encode(msg), "ready") == msg
    else:
        assert decode_from_bot(encode(msg), "action") == msg


# -- fuzzing: anything in, a message or a ProtocolError out ----------------------------------------


def _decodes_or_refuses(decode: object, data: object, *args: str) -> None:
    try:
        msg = decode(data, *args)  # type: ignore[operator]
    except ProtocolError as err:
        assert err.fault in (Fault.MALFORMED, Fault.LINE_TOO_LONG)
        assert err.reason
        return
    # Whatever was accepted can be written again, and reads back the same.
    again = encode(msg)
    assert (decode(again, *args) == msg)  # type: ignore[operator]


@given(st.one_of(st.text(max_size=300), st.binary(max_size=300)))
@example(b"\xff\xfe")
@example("\ud800")
@example("deal 1 dealer me upcard TH stock 12 hand score 0 0 pot 0")
def test_fuzz_decode_from_referee(data: str | bytes) -> None:
    _decodes_or_refuses(decode_from_referee, data)


@given(st.one_of(st.text(max_size=300), st.binary(max_size=300)),
       st.sampled_from(["ready", "action"]))
@example("ready \ud800", "ready")
@example(b"play:AS\xc0", "action")
def test_fuzz_decode_from_bot(data: str | bytes, expect: str) -> None:
    _decodes_or_refuses(decode_from_bot, data, expect)


@given(referee_messages, st.data())
def test_fuzz_mutated_referee_lines(msg: RefereeMessage, data: st.DataObject) -> None:
    # Mutations of valid lines reach the parsers' deeper branches, which random text rarely does.
    line = encode(msg)
    pos = data.draw(st.integers(0, len(line)))
    cut = data.draw(st.integers(0, 3))
    insert = data.draw(st.text(" :=?0123456789ACDHSJKQT9mepomnxyz\r\n\t\x00é", max_size=3))
    _decodes_or_refuses(decode_from_referee, line[:pos] + insert + line[pos + cut:])


@given(bot_messages, st.data())
def test_fuzz_mutated_bot_lines(msg: BotMessage, data: st.DataObject) -> None:
    line = encode(msg)
    pos = data.draw(st.integers(0, len(line)))
    cut = data.draw(st.integers(0, 3))
    insert = data.draw(st.text(" :rdyeapl9ASH\r\n\t\x00é-", max_size=3))
    expect = data.draw(st.sampled_from(["ready", "action"]))
    _decodes_or_refuses(decode_from_bot, line[:pos] + insert + line[pos + cut:], expect)


# -- lines a bot may not write ---------------------------------------------------------------------

REJECTED_BOT_LINES: list[tuple[str, bytes, str, str]] = [
    # (id, line, expect, part of the reason)
    ("empty", b"", "ready", "empty line"),
    ("only newline", b"\n", "action", "empty line"),
    ("crlf only", b"\r\n", "action", "empty line"),
    ("ready without name", b"ready\n", "ready", "missing name"),
    ("ready trailing space", b"ready \n", "ready", "single spaces"),
    ("ready double space", b"ready  bob\n", "ready", "single spaces"),
    ("leading space", b" ready bob\n", "ready", "single spaces"),
    ("two-word name", b"ready bob smith\n", "ready", "extra words"),
    ("upper-case ready", b"READY bob\n", "ready", "expected 'ready <name>'"),
    ("action to greeting", b"pass\n", "ready", "expected 'ready <name>'"),
    ("bad name character", b"ready b@d\n", "ready", "bad name"),
    ("name too long", b"ready " + b"x" * 65 + b"\n", "ready", "bad name"),
    ("non-ASCII name", "ready café\n".encode(), "ready", "printable ASCII"),
    ("invalid UTF-8", b"ready \xff\n", "ready", "not valid UTF-8"),
    ("two carriage returns", b"ready bob\r\r\n", "ready", "line break inside"),
    ("two lines at once", b"pass\npass\n", "action", "line break inside"),
    ("ready to a request", b"ready bob\n", "action", "exactly one action, got 2 words"),
    ("two actions", b"pass pass\n", "action", "exactly one action"),
    ("lower-case card", b"play:as\n", "action", "written exactly play:AS"),
    ("lower-case suit", b"marry:h\n", "action", "written exactly marry:H"),
    ("unknown card", b"play:AX\n", "action", "not an action"),
    ("missing card", b"play:\n", "action", "not an action"),
    ("upper-case word", b"PASS\n", "action", "not an action"),
    ("a request word", b"lead?\n", "action", "not an action"),
    ("tab", b"pass\t\n", "action", "printable ASCII"),
    ("NUL", b"pass\x00\n", "action", "printable ASCII"),
    ("byte-order mark", b"\xef\xbb\xbfpass\n", "action", "printable ASCII"),
    ("trailing space", b"play:AS \n", "action", "single spaces"),
    ("padding to the limit", b"x" * MAX_LINE_BYTES + b"\n", "action", "not an action"),
]


@pytest.mark.parametrize("line, expect, reason", [r[1:] for r in REJECTED_BOT_LINES],
                         ids=[r[0] for r in REJECTED_BOT_LINES])
def test_rejected_bot_lines(line: bytes, expect: str, reason: str) -> None:
    with pytest.raises(ProtocolError) as info:
        decode_from_bot(line, expect)  # type: ignore[arg-type]
    assert info.value.fault is Fault.MALFORMED
    assert reason in info.value.reason
    assert info.value.line == line  # kept whole for the record


def test_bot_line_over_the_limit_is_line_too_long() -> None:
    with pytest.raises(ProtocolError) as info:
        decode_from_bot(b"x" * (MAX_LINE_BYTES + 1) + b"\n", "action")
    assert info.value.fault is Fault.LINE_TOO_LONG
    with pytest.raises(ProtocolError) as info:
        decode_from_bot("é" * 600, "action")  # 1200 bytes in 600 characters
    assert info.value.fault is Fault.LINE_TOO_LONG


def test_decode_from_bot_rejects_a_bad_expect() -> None:
    with pytest.raises(ValueError, match="expect"):
        decode_from_bot(b"pass", "greeting")  # type: ignore[arg-type]


def test_protocol_error_is_a_value_error_with_a_fault_word() -> None:
    err = ProtocolError("missing name after 'ready'")
    assert isinstance(err, ValueError)
    assert err.fault == "malformed"
    assert str(err) == "malformed: missing name after 'ready'"


# -- lines a referee may not write (the SDK refuses them) ------------------------------------------

REJECTED_REFEREE_LINES: list[tuple[str, str, str]] = [
    ("empty", "", "empty line"),
    ("leading space", " played me AS", "starts with a space"),
    ("trailing space", "played me AS ", "single spaces"),
    ("missing card", "played me", "played: missing card"),
    ("bad who", "played you AS", "'me' or 'opp'"),
    ("extra word", "played me AS KS", "unexpected words"),
    ("lower-case card", "played me as", "must be written AS"),
    ("empty hand", "deal 1 dealer me upcard TH stock 12 hand score 0 0 pot 0", "non-empty"),
    ("up-card in hand", "deal 1 dealer me upcard TH stock 12 hand TH score 0 0 pot 0", "up-card"),
    ("leading zero", "deal 01 dealer me upcard TH stock 12 hand AS score 0 0 pot 0", "whole"),
    ("signed number", "deal +1 dealer me upcard TH stock 12 hand AS score 0 0 pot 0", "whole"),
    ("missing pot", "deal 1 dealer me upcard TH stock 12 hand AS score 0 0", "missing 'pot'"),
    ("seat 2", "match m profile p target 7 seat 2 opponent x decision_ms 1", "seat must be 0 or 1"),
    ("keyword order", "match m target 7 profile p seat 0 opponent x decision_ms 1", "'profile'"),
    ("bad opponent name", "match m profile p target 7 seat 0 opponent x/y decision_ms 1",
     "opponent"),
    ("marriage of 30", "marriage me H 30", "20 or 40"),
    ("bad suit", "marriage me X 20", "C S H D"),
    ("request without actions", "lead?", "at least one action"),
    ("action twice", "lead? play:AS play:AS", "twice"),
    ("not an action", "follow? play:AS fold", "not an action"),
    ("own draw hidden", "draw me", "always sees"),
    ("settle winner", "settle winner nobody reason draw points 0 awarded 0 totals 0 0 tricks 0 0 "
     "score 0 0 pot 0", "me, opp or none"),
    ("settle reason", "settle winner me reason luck points 0 awarded 0 totals 0 0 tricks 0 0 "
     "score 0 0 pot 0", "reason must be"),
    ("fault on target", "match_end winner me reason target score 7 0 fault timeout by opp",
     "only a forfeit"),
    ("no winner at target", "match_end winner none reason target score 7 7", "deal limit"),
    ("unknown fault", "match_end winner me reason forfeit score 1 0 fault slow by opp",
     "fault must"),
    ("fault without offender", "match_end winner me reason forfeit score 1 0 fault timeout",
     "missing 'by'"),
    ("flag without value", "rules deck_size", "<flag>=<value>"),
    ("flag twice", "rules deck_size=24 deck_size=20", "twice"),
    ("version word", "sixtysix one", "whole number"),
    ("version 0", "sixtysix 0", ">= 1"),
    ("trick of one card", "trick me AS AS", "two different cards"),
    ("exchange of one card", "exchange me 9H 9H", "two different cards"),
    ("line break", "draw opp\rdraw opp", "line break inside"),
]


@pytest.mark.parametrize("line, reason", [r[1:] for r in REJECTED_REFEREE_LINES],
                         ids=[r[0] for r in REJECTED_REFEREE_LINES])
def test_rejected_referee_lines(line: str, reason: str) -> None:
    with pytest.raises(ProtocolError) as info:
        decode_from_referee(line)
    assert reason in info.value.reason


@pytest.mark.parametrize("line", ["hello there", "lead", "pass?", "chat  two  spaces ",
                                  "x\tweird\x00bytes", "matchx 1", "Played me AS"])
def test_unknown_first_words_are_unknown(line: str) -> None:
    assert decode_from_referee(line) == Unknown(line)


def test_encode_refuses_a_line_over_the_limit() -> None:
    with pytest.raises(ProtocolError) as info:
        encode(MatchStart("m" * 1100, "sixty_six", 7, 0, "x", 1000))
    assert info.value.fault is Fault.LINE_TOO_LONG


def test_the_longest_rules_line_fits() -> None:
    # PROTOCOL.md §1 caps lines at 1024 bytes and the rules line lists every flag: it is the
    # longest line of version 1, so this is where the limit bites first.
    from arena.game import PROFILES
    for rules in PROFILES.values():
        assert len(encode(RulesLine.from_rules(rules))) <= MAX_LINE_BYTES


@pytest.mark.parametrize("make", [
    lambda: Played("you", C("AS")),  # type: ignore[arg-type]
    lambda: Marriage(Who.ME, Suit.HEARTS, 30),
    lambda: DealStart(0, Who.ME, C("TH"), 12, (C("AS"),), (0, 0), 0),
    lambda: Request("lead", ()),
    lambda: Request("fold", (A("pass"),)),
    lambda: MatchStart("m", "p", 7, True, "x", 1),  # a bool is not a seat
    lambda: MatchEnd(Who.ME, "forfeit", (0, 0), Fault.EXIT),
    lambda: Ready("two words"),
    lambda: Unknown("played me AS"),
    lambda: RulesLine((("Deck", "24"),)),
], ids=["who", "marriage", "deal_no", "no actions", "decision", "bool seat", "fault alone", "name",
        "known word", "flag name"])
def test_constructors_refuse_values_that_cannot_be_written(make: object) -> None:
    with pytest.raises(ValueError):
        make()  # type: ignore[operator]


def test_who_strings_are_accepted_and_normalised() -> None:
    msg = Played("me", C("AS"))  # type: ignore[arg-type]
    assert msg.who is Who.ME
    assert msg == Played(Who.ME, C("AS"))
    assert repr(Who.OPP) == "Who.OPP"
    assert Who.of(1, 0) is Who.OPP and Who.ME.other is Who.OPP


@pytest.mark.parametrize("text, name", [("greedy", "greedy"), ("my bot", "my_bot"),
                                        ("Alice's bot (v2)", "Alice_s_bot_v2_"), ("", "bot"),
                                        ("é" * 100, "_"), ("x" * 100, "x" * 64)])
def test_wire_name(text: str, name: str) -> None:
    assert wire_name(text) == name
    Ready(wire_name(text))  # always valid
