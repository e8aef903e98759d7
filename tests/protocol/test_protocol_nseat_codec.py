"""The N-seat lines of PROTOCOL.md §9 (three and four players): exact text, round trips, the facts
constructors check, and the lines a decoder refuses (each error names the field)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.game import Action, Card, Suit
from protocol import (ActionReply, Claim, DealStart, Draw, Exchange, Fault, Hello, Marriage,
                      MatchEnd, MatchStart, Message, Played, ProtocolError, Ready, Settle, Trick,
                      Who, decode_from_bot, decode_from_referee, encode)
from protocol.messages import Decline, RefereeMessage
from protocol_strategies import greeting_answers, nseat_messages

C = Card.parse


def cards(text: str) -> tuple[Card, ...]:
    return tuple(map(C, text.split()))


# One row per N-seat line of PROTOCOL.md §9: the message and its exact text.
NSEAT_LINES: list[tuple[str, Message, str]] = [
    ("hello 3", Hello(1, 3, "three_player"), "sixtysix 1 players 3 profile three_player"),
    ("hello 4", Hello(1, 4, "four_player"), "sixtysix 1 players 4 profile four_player"),
    ("match 3", MatchStart("m-1", "three_player", 7, 2, None, 1000, 3, ("random", "greedy", "strong")),
     "match m-1 profile three_player target 7 players 3 seat 2 names random greedy strong "
     "decision_ms 1000"),
    ("match 4", MatchStart("m-2", "four_player", 7, 0, None, 500, 4, ("a", "b", "a", "b")),
     "match m-2 profile four_player target 7 players 4 seat 0 names a b a b decision_ms 500"),
    ("deal 3", DealStart(1, 2, C("KC"), 9, cards("AC 9C QS JH KD QD 7D"), (0, 3, 1), 0),
     "deal 1 dealer 2 upcard KC stock 9 hand AC 9C QS JH KD QD 7D score 0 3 1 pot 0"),
    ("deal 4 repeats a card", DealStart(3, 3, C("AS"), 20, cards("AS KC KC QH JH 9D TD"), (4, 2), 1),
     "deal 3 dealer 3 upcard AS stock 20 hand AS KC KC QH JH 9D TD score 4 2 pot 1"),
    ("played", Played(2, C("AS")), "played 2 AS"),
    ("trick 3", Trick(1, C("AS"), C("9H"), (C("TS"),)), "trick 1 AS 9H TS"),
    ("trick 4 with twins", Trick(3, C("AS"), C("AS"), (C("KS"), C("9H"))), "trick 3 AS AS KS 9H"),
    ("marriage", Marriage(0, Suit.HEARTS, 40), "marriage 0 H 40"),
    ("exchange", Exchange(3, C("TH"), C("9H")), "exchange 3 TH 9H"),
    ("own draw", Draw(1, C("7C")), "draw 1 7C"),
    ("hidden draw", Draw(2), "draw 2"),
    ("claim", Claim(0), "claim 0"),
    ("settle 3 wrong claim", Settle(None, "wrong_claim", 2, (2, 0, 2), (30, 44, 12), (1, 2, 1),
                                    (2, 1, 2), 0, cards("7H 8S")),
     "settle winner none reason wrong_claim points 2 awarded 2 0 2 totals 30 44 12 tricks 1 2 1 "
     "score 2 1 2 pot 0 dead 7H 8S"),
    ("settle 3 side 0", Settle(0, "claim", 1, (2, 0, 0), (70, 20, 30), (3, 1, 2), (2, 0, 0), 0,
                               cards("7H 8S")),
     "settle winner 0 reason claim points 1 awarded 2 0 0 totals 70 20 30 tricks 3 1 2 "
     "score 2 0 0 pot 0 dead 7H 8S"),
    ("settle 4", Settle(1, "claim", 2, (0, 2), (60, 104), (2, 5), (3, 6), 0),
     "settle winner 1 reason claim points 2 awarded 0 2 totals 60 104 tricks 2 5 score 3 6 pot 0"),
    ("settle 4 draw", Settle(None, "draw", 0, (0, 0), (125, 125), (3, 4), (3, 6), 1),
     "settle winner none reason draw points 0 awarded 0 0 totals 125 125 tricks 3 4 score 3 6 pot 1"),
    ("match_end 3", MatchEnd(2, "target", (3, 1, 7)), "match_end winner 2 reason target score 3 1 7"),
    ("match_end 3 forfeit", MatchEnd(None, "forfeit", (3, 1, 2), Fault.TIMEOUT, 1),
     "match_end winner none reason forfeit score 3 1 2 fault timeout by 1"),
    ("match_end 4 forfeit", MatchEnd(0, "forfeit", (3, 1), Fault.EXIT, 3),
     "match_end winner 0 reason forfeit score 3 1 fault exit by 3"),
    ("match_end 4 target", MatchEnd(1, "target", (3, 7)), "match_end winner 1 reason target score 3 7"),
]


@pytest.mark.parametrize("msg, line", [r[1:] for r in NSEAT_LINES], ids=[r[0] for r in NSEAT_LINES])
def test_nseat_lines(msg: RefereeMessage, line: str) -> None:
    assert encode(msg) == line
    assert decode_from_referee(line) == msg
    assert decode_from_referee((line + "\r\n").encode()) == msg


def test_a_four_player_hand_is_listed_in_order_with_its_twins() -> None:
    # The canonical order is the engine's (by suit, strongest first); a twin sits next to its copy.
    deal = DealStart(1, 0, C("AS"), 20, cards("KC KC QH"), (0, 0), 0)
    assert deal.hand == cards("KC KC QH")


def test_seats_are_ints_and_two_player_words_stay_who() -> None:
    assert decode_from_referee("played 0 AS") == Played(0, C("AS"))
    assert decode_from_referee("played me AS") == Played(Who.ME, C("AS"))
    assert decode_from_referee("played 0 AS").who == 0  # type: ignore[union-attr]
    assert not isinstance(decode_from_referee("played 0 AS").who, Who)  # type: ignore[union-attr]
    assert Trick(1, C("AS"), C("9H"), (C("TS"),)).cards == cards("AS 9H TS")
    assert Trick(Who.ME, C("AS"), C("9H")).cards == cards("AS 9H")


def test_side_zero_is_written_as_zero_not_none() -> None:
    # ``winner or 'none'`` would have written side 0 as none.
    assert encode(MatchEnd(0, "target", (7, 3, 1))).startswith("match_end winner 0 ")
    assert " winner 0 " in encode(Settle(0, "claim", 1, (1, 0), (101, 20), (4, 3), (1, 0), 0))


# -- the greeting's answer: ready or decline ---------------------------------------------------------


@pytest.mark.parametrize("line, msg", [
    ("decline", Decline()),
    ("decline does not support three_player", Decline("does not support three_player")),
    ("decline 4 players? no!", Decline("4 players? no!")),
    ("ready bob", Ready("bob")),
])
def test_decline_is_an_answer_to_the_nseat_greeting(line: str, msg: Message) -> None:
    assert decode_from_bot(line + "\n", "ready", allow_decline=True) == msg
    assert encode(msg) == line


@pytest.mark.parametrize("line", ["decline", "decline not today"])
def test_decline_without_allow_decline_is_malformed(line: str) -> None:
    with pytest.raises(ProtocolError) as info:
        decode_from_bot(line, "ready")
    assert info.value.fault is Fault.MALFORMED
    assert "expected 'ready <name>'" in info.value.reason


@pytest.mark.parametrize("line, reason", [
    ("decline  two spaces", "single spaces"),
    ("decline trailing ", "single spaces"),
    ("decline caf\u00e9", "printable ASCII"),
    ("decline\ttab", "printable ASCII"),
])
def test_bad_declines_are_malformed(line: str, reason: str) -> None:
    with pytest.raises(ProtocolError) as info:
        decode_from_bot(line, "ready", allow_decline=True)
    assert reason in info.value.reason


def test_decline_is_never_an_action() -> None:
    with pytest.raises(ProtocolError):
        decode_from_bot("decline", "action")
    with pytest.raises(ValueError, match="only the greeting"):
        decode_from_bot("decline", "action", allow_decline=True)  # type: ignore[call-overload]
    assert decode_from_bot("pass", "action") == ActionReply(Action.parse("pass"))


# -- lines the SDK refuses ---------------------------------------------------------------------------

REJECTED: list[tuple[str, str, str]] = [
    ("greeting without profile", "sixtysix 1 players 3", "missing 'profile'"),
    ("greeting of 5 players", "sixtysix 1 players 5 profile x", "players must be 2, 3 or 4"),
    ("greeting of 2 players named", "sixtysix 1 players 2 profile sixty_six",
     "two-player greeting names no profile"),
    ("greeting other word", "sixtysix 1 seats 3 profile x", "expected 'players'"),
    ("match seat 3 of 3", "match m profile p target 7 players 3 seat 3 names a b c decision_ms 1",
     "seat must be 0 to 2"),
    ("match names short", "match m profile p target 7 players 3 seat 0 names a b decision_ms 1",
     "names must list every seat's name (3)"),
    ("match names long", "match m profile p target 7 players 4 seat 0 names a b c d e decision_ms 1",
     "names must list every seat's name (4)"),
    ("match bad name", "match m profile p target 7 players 3 seat 0 names a b/x c decision_ms 1",
     "every name of names"),
    ("match players 2 form", "match m profile p target 7 players 2 seat 0 names a b decision_ms 1",
     "opponent"),
    ("deal score of 4", "deal 1 dealer 0 upcard TH stock 9 hand AS score 0 0 0 0 pot 0",
     "score must list one number per side"),
    ("deal score of 1", "deal 1 dealer 0 upcard TH stock 9 hand AS score 0 pot 0",
     "score must list one number per side"),
    ("deal dealer 3 of 3", "deal 1 dealer 3 upcard TH stock 9 hand AS score 0 0 0 pot 0",
     "dealer must be a seat 0-2"),
    ("deal 3 card twice", "deal 1 dealer 0 upcard TH stock 9 hand AS AS score 0 0 0 pot 0",
     "hand and upcard lists AS twice"),
    ("deal 3 upcard in hand", "deal 1 dealer 0 upcard TH stock 9 hand TH score 0 0 0 pot 0",
     "lists TH twice"),
    ("deal 4 card thrice", "deal 1 dealer 0 upcard TH stock 20 hand AS AS AS score 0 0 pot 0",
     "three times"),
    ("deal 4 upcard thrice", "deal 1 dealer 0 upcard TH stock 20 hand TH TH score 0 0 pot 0",
     "three times"),
    ("deal seat 4", "deal 1 dealer 4 upcard TH stock 9 hand AS score 0 0 0 pot 0", "dealer must be"),
    ("played seat 4", "played 4 AS", "seat number 0-3"),
    ("played seat 01", "played 01 AS", "'me' or 'opp'"),
    ("trick of 2 by a seat", "trick 0 AS KS", "3 or 4 cards"),
    ("trick of 5", "trick 0 AS KS QS JS 9S", "3 or 4 cards"),
    ("trick by seat 3 of 3", "trick 3 AS KS QS", "who must be a seat 0-2"),
    ("trick of 3 twins", "trick 0 AS AS KS", "a trick lists AS twice"),
    ("trick of 4 triplets", "trick 0 AS AS AS KS", "three times"),
    ("trick of me with 3", "trick me AS KS QS", "unexpected words"),
    ("close by a seat", "close 1", "'me' or 'opp'"),
    ("settle awarded short", "settle winner 0 reason claim points 1 awarded 1 totals 70 0 0 "
     "tricks 1 0 0 score 1 0 0 pot 0", "awarded must list one number per side"),
    ("settle totals short", "settle winner 0 reason claim points 1 awarded 1 0 0 totals 70 0 "
     "tricks 1 0 0 score 1 0 0 pot 0", "totals must list one number per side (3)"),
    ("settle tricks long", "settle winner 0 reason claim points 1 awarded 1 0 totals 70 0 "
     "tricks 1 0 0 score 1 0 pot 0", "tricks must list one number per side (2)"),
    ("settle score short", "settle winner 0 reason claim points 1 awarded 1 0 0 totals 70 0 0 "
     "tricks 1 0 0 score 1 0 pot 0", "score must list one number per side (3)"),
    ("settle winner side 3 of 3", "settle winner 3 reason claim points 1 awarded 1 0 0 "
     "totals 70 0 0 tricks 1 0 0 score 1 0 0 pot 0", "winner must be a side number 0-2"),
    ("settle winner side 2 of 2", "settle winner 2 reason claim points 1 awarded 1 0 "
     "totals 70 0 tricks 1 0 score 1 0 pot 0", "winner must be a side number 0-1"),
    ("settle dead with 4", "settle winner 0 reason claim points 1 awarded 1 0 totals 70 0 "
     "tricks 1 0 score 1 0 pot 0 dead 7H 8H", "dead must be"),
    ("settle dead of one", "settle winner 0 reason claim points 1 awarded 1 0 0 totals 70 0 0 "
     "tricks 1 0 0 score 1 0 0 pot 0 dead 7H", "missing dead card"),
    ("settle dead twice", "settle winner 0 reason claim points 1 awarded 1 0 0 totals 70 0 0 "
     "tricks 1 0 0 score 1 0 0 pot 0 dead 7H 7H", "dead lists 7H twice"),
    ("settle dead other word", "settle winner 0 reason claim points 1 awarded 1 0 0 totals 70 0 0 "
     "tricks 1 0 0 score 1 0 0 pot 0 deadpile 7H 8H", "expected 'dead'"),
    ("settle me with lists", "settle winner me reason claim points 1 awarded 1 0 totals 70 0 "
     "tricks 1 0 score 1 0 pot 0", "expected 'totals'"),
    ("settle awarded missing", "settle winner 0 reason claim points 1 awarded totals 70 0 "
     "tricks 1 0 score 1 0 pot 0", "missing awarded"),
    ("match_end winner side 3", "match_end winner 3 reason target score 7 1 1", "winner must be a side"),
    ("match_end score of 4", "match_end winner 1 reason target score 7 1 1 1",
     "score must list one number per side"),
    ("match_end offender 3 of 3", "match_end winner none reason forfeit score 1 1 1 fault exit by 3",
     "offender must be a seat 0-2"),
    ("match_end offender me with 3", "match_end winner none reason forfeit score 1 1 1 fault exit by me",
     "offender must be a seat"),
    ("match_end mixed", "match_end winner me reason forfeit score 1 1 fault exit by 1",
     "winner must be a side number"),
    ("match_end 4 forfeit no winner", "match_end winner none reason forfeit score 1 1 fault exit by 1",
     "has no winner"),
    ("match_end 3 target no winner", "match_end winner none reason target score 7 7 1",
     "has no winner"),
]


@pytest.mark.parametrize("line, reason", [r[1:] for r in REJECTED], ids=[r[0] for r in REJECTED])
def test_rejected_nseat_lines(line: str, reason: str) -> None:
    with pytest.raises(ProtocolError) as info:
        decode_from_referee(line)
    assert reason in info.value.reason, info.value.reason


@pytest.mark.parametrize("make, field", [
    (lambda: Hello(1, 3, None), "profile"),
    (lambda: Hello(1, True, "x"), "players"),
    (lambda: MatchStart("m", "p", 7, 0, "x", 1, 3, ("a", "b", "c")), "no opponent"),
    (lambda: MatchStart("m", "p", 7, 0, None, 1, 3, ["a", "b", "c"]), "names"),
    (lambda: DealStart(1, 0, C("TH"), 9, (C("AS"),), (0, 0, 0, 0), 0), "score"),
    (lambda: DealStart(1, True, C("TH"), 9, (C("AS"),), (0, 0, 0), 0), "dealer"),
    (lambda: Played(-1, C("AS")), "who"),
    (lambda: Trick(0, C("AS"), C("KS"), [C("QS")]), "3 or 4 cards"),
    (lambda: Draw(Who.ME), "always sees"),
    (lambda: Settle(0, "claim", 1, (1, 0, 0), (1, 2), (1, 0, 0), (1, 0, 0), 0), "totals"),
    (lambda: Settle(Who.ME, "claim", 1, (1, 0, 0), (1, 2, 0), (1, 0, 0), (1, 0, 0), 0), "winner"),
    (lambda: Settle(0, "claim", 1, 1, (1, 2), (1, 0), (1, 0), 0), "winner"),
    (lambda: Settle(Who.ME, "claim", 1, 1, (1, 2), (1, 0), (1, 0), 0, (C("7H"), C("8H"))), "dead"),
    (lambda: MatchEnd(Who.ME, "forfeit", (1, 2, 3)), "winner"),
    (lambda: MatchEnd(0, "forfeit", (1, 2), Fault.EXIT, Who.ME), "offender"),
    (lambda: Decline("line\nbreak"), "printable ASCII"),
])
def test_constructors_check_nseat_facts(make: object, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        make()  # type: ignore[operator]


# -- round trips and fuzzing (hypothesis), as for the two-player lines ---------------------------------

@given(nseat_messages)
def test_nseat_round_trip(msg: RefereeMessage) -> None:
    line = encode(msg)
    assert decode_from_referee(line) == msg
    assert decode_from_referee(line.encode() + b"\n") == msg


@given(greeting_answers)
def test_greeting_answers_round_trip(msg: Ready | Decline) -> None:
    assert decode_from_bot(encode(msg), "ready", allow_decline=True) == msg


def _decodes_or_refuses(decode: object, data: object, **kwargs: object) -> None:
    try:
        msg = decode(data, **kwargs)  # type: ignore[operator]
    except ProtocolError as err:
        assert err.fault in (Fault.MALFORMED, Fault.LINE_TOO_LONG) and err.reason
        return
    assert decode(encode(msg), **kwargs) == msg  # type: ignore[operator]


@given(nseat_messages, st.data())
def test_fuzz_mutated_nseat_lines(msg: RefereeMessage, data: st.DataObject) -> None:
    # Mutations of valid lines reach the N-seat parsers' branches, which random text rarely does.
    line = encode(msg)
    pos = data.draw(st.integers(0, len(line)))
    cut = data.draw(st.integers(0, 4))
    insert = data.draw(st.text(" 0123456789ACDHSJKQT9menopdaw\r\n\x00", max_size=4))
    _decodes_or_refuses(decode_from_referee, line[:pos] + insert + line[pos + cut:])


@given(greeting_answers, st.data())
def test_fuzz_mutated_greeting_answers(msg: Ready | Decline, data: st.DataObject) -> None:
    line = encode(msg)
    pos = data.draw(st.integers(0, len(line)))
    cut = data.draw(st.integers(0, 3))
    insert = data.draw(st.text(" decliny\r\n\t\x00\u00e9~", max_size=3))
    _decodes_or_refuses(decode_from_bot, line[:pos] + insert + line[pos + cut:], expect="ready",
                        allow_decline=True)


@given(st.one_of(st.text(max_size=200), st.binary(max_size=200)))
def test_fuzz_greeting_answers(data: str | bytes) -> None:
    _decodes_or_refuses(decode_from_bot, data, expect="ready", allow_decline=True)
