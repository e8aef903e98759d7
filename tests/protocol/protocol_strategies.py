"""Hypothesis strategies for every protocol message (valid ones: the codec must round-trip them)."""

from __future__ import annotations

import string

from hypothesis import strategies as st

from arena.game import CARDS, Card, Suit
from arena.game.actions import CLAIM, CLOSE, EXCHANGE, MARRY_ACTIONS, PASS, PLAY_ACTIONS
from protocol.messages import (KNOWN_REFEREE_WORDS, REQUEST_DECISIONS, SETTLE_REASONS, ActionReply,
                               Claim, Clock, Close, DealStart, Decline, Draw, Exchange, Fault, Hello,
                               Marriage, MatchEnd, MatchStart, Played, Ready, Request, RulesLine,
                               Settle, Trick, Unknown, Who)

NAME_CHARS = string.ascii_letters + string.digits + "_.+-"
WORD_CHARS = "".join(chr(c) for c in range(0x21, 0x7F))

cards = st.sampled_from(CARDS)
suits = st.sampled_from(list(Suit))
whos = st.sampled_from(list(Who))
counts = st.integers(min_value=0, max_value=10**6)
small = st.integers(min_value=0, max_value=200)
pairs = st.tuples(small, small)
names = st.text(NAME_CHARS, min_size=1, max_size=64)
words = st.text(WORD_CHARS, min_size=1, max_size=40)
actions = st.sampled_from((*PLAY_ACTIONS, *MARRY_ACTIONS, EXCHANGE, CLOSE, CLAIM, PASS))


@st.composite
def two_cards(draw: st.DrawFn) -> tuple[Card, Card]:
    a, b = draw(st.lists(cards, min_size=2, max_size=2, unique=True))
    return a, b


@st.composite
def deal_starts(draw: st.DrawFn) -> DealStart:
    chosen = draw(st.lists(cards, min_size=2, max_size=8, unique=True))
    return DealStart(draw(st.integers(1, 500)), draw(whos), chosen[0], draw(st.integers(1, 20)),
                     tuple(chosen[1:]), draw(pairs), draw(small))


flag_names = st.from_regex(r"[a-z][a-z0-9_]{0,30}", fullmatch=True)

rules_lines = st.lists(st.tuples(flag_names, st.text(WORD_CHARS, min_size=1, max_size=20)),
                       max_size=12, unique_by=lambda p: p[0]).map(lambda fl: RulesLine(tuple(fl)))


@st.composite
def match_ends(draw: st.DrawFn) -> MatchEnd:
    if draw(st.booleans()):
        reason = draw(st.sampled_from(["target", "forfeit", "deal_limit"]))
        winner = draw(st.none() | whos) if reason == "deal_limit" else draw(whos)
        return MatchEnd(winner, reason, draw(pairs))
    return MatchEnd(draw(whos), "forfeit", draw(pairs), draw(st.sampled_from(list(Fault))),
                    draw(whos))


unknown_lines = st.text(st.characters(blacklist_characters="\r\n", blacklist_categories=["Cs"]),
                        min_size=1, max_size=200).filter(
    lambda t: t.split(" ", 1)[0] not in KNOWN_REFEREE_WORDS and not t.startswith(" ")
).map(Unknown)

# -- three and four players (PROTOCOL.md §9) ---------------------------------------------------------

players_counts = st.sampled_from([3, 4])


def _sides(players: int) -> int:
    return 3 if players == 3 else 2


@st.composite
def cards_of(draw: st.DrawFn, players: int, size: int) -> tuple[Card, ...]:
    """``size`` cards of the pack of ``players`` (two packs with four: a card at most twice)."""
    pool = list(CARDS) * (2 if players == 4 else 1)
    chosen = draw(st.lists(st.integers(0, len(pool) - 1), min_size=size, max_size=size, unique=True))
    return tuple(pool[i] for i in chosen)


def per_side(players: int) -> st.SearchStrategy[tuple[int, ...]]:
    return st.tuples(*[small] * _sides(players))


@st.composite
def nseat_match_starts(draw: st.DrawFn) -> MatchStart:
    n = draw(players_counts)
    return MatchStart(draw(words), draw(words), draw(st.integers(1, 1000)), draw(st.integers(0, n - 1)),
                      None, draw(st.integers(1, 10**6)), n,
                      tuple(draw(st.lists(names, min_size=n, max_size=n))))


@st.composite
def nseat_deal_starts(draw: st.DrawFn) -> DealStart:
    n = draw(players_counts)
    chosen = draw(cards_of(n, draw(st.integers(2, 9))))
    return DealStart(draw(st.integers(1, 500)), draw(st.integers(0, n - 1)), chosen[0],
                     draw(st.integers(1, 20)), chosen[1:], draw(per_side(n)), draw(small))


@st.composite
def nseat_tricks(draw: st.DrawFn) -> Trick:
    n = draw(players_counts)
    c = draw(cards_of(n, n))
    return Trick(draw(st.integers(0, n - 1)), c[0], c[1], c[2:])


@st.composite
def nseat_settles(draw: st.DrawFn) -> Settle:
    n = draw(players_counts)
    m = _sides(n)
    dead = draw(st.just(()) | cards_of(3, 2)) if n == 3 else ()
    return Settle(draw(st.none() | st.integers(0, m - 1)), draw(st.sampled_from(sorted(SETTLE_REASONS))),
                  draw(small), draw(per_side(n)), draw(per_side(n)), draw(per_side(n)),
                  draw(per_side(n)), draw(small), dead)


@st.composite
def nseat_match_ends(draw: st.DrawFn) -> MatchEnd:
    n = draw(players_counts)
    m = _sides(n)
    score = draw(per_side(n))
    kind = draw(st.sampled_from(["target", "deal_limit", "forfeit"]))
    if kind == "forfeit":
        offender = draw(st.integers(0, n - 1))
        winner = None if n == 3 else 1 - offender % 2
        return MatchEnd(winner, "forfeit", score, draw(st.sampled_from(list(Fault))), offender)
    if kind == "deal_limit" and n == 3:
        return MatchEnd(draw(st.none() | st.integers(0, m - 1)), kind, score)
    return MatchEnd(draw(st.integers(0, m - 1)), kind, score)


seats = st.integers(0, 3)

nseat_messages = st.one_of(
    st.builds(Hello, st.just(1), players_counts, words),
    nseat_match_starts(),
    nseat_deal_starts(),
    st.builds(Played, seats, cards),
    nseat_tricks(),
    st.builds(Marriage, seats, suits, st.sampled_from([20, 40])),
    two_cards().flatmap(lambda ab: st.builds(Exchange, seats, st.just(ab[0]), st.just(ab[1]))),
    st.builds(Draw, seats, st.none() | cards),
    st.builds(Claim, seats),
    nseat_settles(),
    nseat_match_ends(),
)
"""Valid lines of PROTOCOL.md §9 (three and four players)."""

decline_texts = st.lists(st.text(string.ascii_letters + string.digits + string.punctuation,
                                 min_size=1, max_size=20), max_size=5).map(" ".join)
greeting_answers = st.one_of(st.builds(Ready, names), st.builds(Decline, decline_texts))
"""Answers to the N-seat greeting (``decode_from_bot(..., "ready", allow_decline=True)``)."""

referee_messages = st.one_of(
    st.integers(1, 1000).map(Hello),
    st.builds(MatchStart, words, words, st.integers(1, 1000), st.sampled_from([0, 1]), names,
              st.integers(1, 10**6)),
    st.builds(Clock, st.integers(1, 10**7), counts),
    rules_lines,
    deal_starts(),
    st.builds(Request, st.sampled_from(REQUEST_DECISIONS),
              st.lists(actions, min_size=1, max_size=40, unique=True).map(tuple)),
    st.builds(Played, whos, cards),
    two_cards().flatmap(lambda ab: st.builds(Trick, whos, st.just(ab[0]), st.just(ab[1]))),
    st.builds(Marriage, whos, suits, st.sampled_from([20, 40])),
    two_cards().flatmap(lambda ab: st.builds(Exchange, whos, st.just(ab[0]), st.just(ab[1]))),
    st.builds(Close, whos),
    st.one_of(st.builds(Draw, st.just(Who.ME), cards),
              st.builds(Draw, st.just(Who.OPP), st.none() | cards)),
    st.builds(Claim, whos),
    st.builds(Settle, st.none() | whos, st.sampled_from(sorted(SETTLE_REASONS)), small, small,
              pairs, pairs, pairs, small),
    match_ends(),
    unknown_lines,
    nseat_messages,
)

bot_messages = st.one_of(st.builds(Ready, names), st.builds(ActionReply, actions))
