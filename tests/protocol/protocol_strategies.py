"""Hypothesis strategies for every protocol message (valid ones: the codec must round-trip them)."""

from __future__ import annotations

import string

from hypothesis import strategies as st

from arena.game import CARDS, Card, Suit
from arena.game.actions import CLAIM, CLOSE, EXCHANGE, MARRY_ACTIONS, PASS, PLAY_ACTIONS
from protocol.messages import (KNOWN_REFEREE_WORDS, REQUEST_DECISIONS, SETTLE_REASONS, ActionReply,
                               Claim, Close, DealStart, Draw, Exchange, Fault, Hello, Marriage,
                               MatchEnd, MatchStart, Played, Ready, Request, RulesLine, Settle,
                               Trick, Unknown, Who)

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

referee_messages = st.one_of(
    st.integers(1, 1000).map(Hello),
    st.builds(MatchStart, words, words, st.integers(1, 1000), st.sampled_from([0, 1]), names,
              st.integers(1, 10**6)),
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
)

bot_messages = st.one_of(st.builds(Ready, names), st.builds(ActionReply, actions))
