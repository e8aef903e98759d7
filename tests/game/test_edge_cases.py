"""The 52 edge cases of RULES.md §12, one named row each (plus the flag variants each case names).

Every row deals an exact position (helpers.deal: seat 0 = A = non-dealer, seat 1 = B = dealer) and
drives it with real actions; the expectation is the one RULES.md states. Card-point arithmetic for
the longer scripts is written next to the deal so a reader can check it without running anything.
Default profile unless a row names another; "unless stated, the opponent has at least one trick and
33+ points" is set up where the outcome depends on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

import pytest

from arena.game import Action, Decision, EventKind, IllegalActionError, MatchState, observe
from arena.game.events import Event
from arena.game.rules import Rules
from arena.game.scoring import SettleReason
from arena.game.state import DealState
from helpers import A, B, SCHNAPSEN, SIXTY_SIX, VU, cards, deal, legal, order_for, play, play_match

# -- deals ---------------------------------------------------------------------------------------


class Deal(NamedTuple):
    nondealer: str
    dealer: str
    up: str
    stock: str = ""
    rules: Rules = SIXTY_SIX

    def start(self, overrides: dict[str, Any] | None = None) -> DealState:
        rules = self.rules.with_overrides(overrides) if overrides else self.rules
        return deal(self.nondealer, self.dealer, self.up, self.stock, rules)

    def order(self, rules: Rules | None = None) -> tuple:
        return order_for(rules or self.rules, self.nondealer, self.dealer, self.up, self.stock)


# A leads clubs, B follows with spades, trump hearts (9H up): A wins every phase-1 trick.
# Draws: A AD KD JD AH KH JH(last hidden), B TD QD 9D TH QH 9H(the up-card).
SKELETON = Deal("AC TC KC QC JC 9C", "AS TS KS QS JS 9S", "9H", "AD TD KD QD JD 9D AH TH KH QH JH")
SIX_TRICKS = "AC 9S pass TC JS pass KC QS pass QC KS pass JC TS pass 9C AS pass"
FIVE_TRICKS = "AC 9S pass TC JS pass KC QS pass QC KS pass JC TS pass"

# As SKELETON, but A keeps 9H (the exchange card) with AH up; A draws 9C AD... so he can lead 9C at 6.
NINE_KEPT = Deal("AC TC KC QC JC 9H", "AS TS KS QS JS 9S", "AH", "9C AD TD KD QD JD 9D TH KH QH JH")
# As SKELETON but A draws KD and QD (a marriage he can only declare in phase 1).
KQ_DRAWN = Deal("AC TC KC QC JC 9C", "AS TS KS QS JS 9S", "9H", "AD TD KD 9D QD JD AH TH KH QH JH")
# Case 12: A holds 9H, AH is up; draws A AD KD JD 9C KH JH, B TD QD 9D TH QH and the up-card.
EXCHANGE_12 = Deal("AC TC KC QC JC 9H", "AS TS KS QS JS 9S", "AH", "AD TD KD QD JD 9D 9C TH KH QH JH")
# Case 24 (P66's example): A holds QH 9H, KH up; after two won tricks the stock holds 8.
P66_24 = Deal("AC TC QH 9H JD 9D", "9S JS QS 9C JC QD", "KH")
# A closes before trick 1 in these; B's hand is what the follow rule is tested on.
CLOSE_FIRST = "close pass"  # A closes; B passes at DP-X (offered: the up-card is not the trump 9)


# Played-out deals (cases 33-35). A plays only non-hearts in phase 1 and draws all six hearts (the
# up-card 9H as the loser of trick 6); B wins trick 6, leads trick 7, and A trumps and then wins every
# phase-2 trick with hearts while B discards. Phase 2 gives A 30 + B's last six cards.
# 33: A 14 (phase 1) + 46 = 60, +10 last trick = 70; B 21+21+15+3 = 60.
PLAYED_OUT_33 = Deal("KC KS TC TS KD 9D", "QC QS AC AS AD QD", "9H", "AH JC TH 9C JS KH 9S QH TD JH JD")
SCRIPT_33 = ("KC QC pass KS QS pass TC AC pass AS TS pass AD KD pass QD 9D pass "
             "JC 9H pass AH 9C pass TH JS pass KH 9S pass QH TD pass JH JD")
# 34: A 10 + 45 = 55, +10 = 65; B 21+21+15+8 = 65.
PLAYED_OUT_34 = Deal("QC QS TC TS KD KS", "JC JS AC AS AD KC", "9H", "AH 9C TH 9S TD KH QD QH JD JH 9D")
SCRIPT_34 = ("QC JC pass QS JS pass TC AC pass AS TS pass AD KD pass KC KS pass "
             "9C 9H pass AH 9S pass TH TD pass KH QD pass QH JD pass JH 9D")
# 35: A 14 + 36 = 50, +10 = 60; B 21+21+21+7 = 70 (B passed at 70).
PLAYED_OUT_35 = Deal("KS KD TC TS TD QC", "QS QD AC AS AD KC", "9H", "AH JS TH 9S JD KH 9D QH JC JH 9C")
SCRIPT_35 = ("KS QS pass KD QD pass TC AC pass AS TS pass AD TD pass KC QC pass "
             "JS 9H pass AH 9S pass TH JD pass KH 9D pass QH JC pass JH 9C")

# Case 23: A (AC AS)22 + (JD AD)13 + (AH 9H)11 = 46; B (9C TC)10 + (TD TS)20 = 30; A draws QC first.
CLAIM_23 = Deal("AC 9C TS AD AH KC", "AS TC TD JD 9H 9S", "JH", "QC")
SCRIPT_23 = "AC AS pass 9C TC pass TD TS pass JD AD pass AH 9H pass marry:C"

# Case 26: B (QD KD)7 + (TD TS)20 + (TH QS)13 = 40; A (9S AS)11 + (AC QC)14 = 25 + 40 (hearts) = 65.
WRONG_65 = Deal("QD TS QS AS AC KH", "KD TD TH 9S QC 9C", "JH", "9D QH")
SCRIPT_65 = "QD KD pass TD TS pass TH QS pass 9S AS pass AC QC pass marry:H"
# Case 26 with B trickless: A (AC TC)21 + (AS TS)21 + (QD 9D)3 = 45 + 20 (clubs) = 65.
WRONG_65_SCHWARZ = Deal("AC AS QD KC QC 9S", "TC TS 9D JD 9C JS", "AH")

# Cases 27-28: A reaches 4+20 (credited at trick 1) +21 +21 = 66 at trick 3 and does not claim;
# B wins trick 4 (TC AC = 21), declares 40 and wins trick 5 (QH JD = 5): 21 + 40 + 5 = 66.
UNDECLARED_27 = Deal("KC QC AS AD TC JD", "9C TS TD AC KH QH", "TH")
SCRIPT_27_TO_T5_LEAD = "marry:C KC 9C pass AS TS pass AD TD pass TC AC pass marry:H QH"

# Case 30: B (TD AD)21 + (AS 9C)11 = 32, or + (TS JC)12 = 33; A (9S KS)4 + (AC TC)21 + (QS 9D)3
# = 28, + 40 (hearts) = 68. A draws QH after trick 1 and QS after trick 2.
SCHNEIDER_30 = Deal("TD 9C JC KS AC KH", "AD AS TS 9S TC 9D", "JH", "KD QH QD QS")
SCRIPT_30_B32 = "TD AD pass AS 9C pass 9S KS pass AC TC pass QS 9D pass marry:H claim"
SCRIPT_30_B33 = "TD AD pass TS JC pass 9S KS pass AC TC pass QS 9D pass marry:H claim"

# Case 31: A's only trick is 9S 9C; B (9D AD)11 + 40 + (KH JD)6 + (AC JC)13 = 70.
NINES_31 = Deal("9S 9D JD JC QS JS", "9C AD KH QH AC TS", "TH")
SCRIPT_31 = "9S 9C pass 9D AD pass marry:H KH JD pass AC JC pass claim"

# Case 32: B (JS AS)13 + 20 (clubs, credited: B has a trick) = 33; A (KC AC)15 + 40 + (KH JD)6
# + (AD 9D)11 = 72.
SCHNEIDER_32 = Deal("JS AC KH QH AD 9C", "AS KC QC JD 9D 9S", "TH")
SCRIPT_32 = "JS AS pass marry:C KC AC pass marry:H KH JD pass AD 9D pass claim"

# Cases 37-38: B (KS KH)8 + 20 = 28 at the close (one trick); A closes at trick 3 with stock 8,
# declares 20 on the closing lead; then A (KD JC)6, B (JS TS)12 -> 40, A (9C TC)10, (AD 9S)11,
# (TD QS)13: A 14 + 20 + 6 + 10 + 11 + 13 = 74.
CLOSE_37 = Deal("KS AC KD QD JS TC", "KH KC QC TS 9C 9S", "9H", "QS AD TD JC")
SCRIPT_37 = ("KS KH pass marry:C QC AC pass close marry:D KD JC pass JS TS pass 9C TC pass "
             "AD 9S pass TD QS pass")

# Cases 40-41: B (TS AS)21 + 20 = 41 with a trick; A wins trick 2 (QC AC = 14) and closes before
# the draw (stock 10), then wins every trick: 14 + (AD JS)13 + (TD QS)13 + (JD KS)6 + (9D 9C)0
# + (TC KC)14 = 60 -- no last-trick bonus after a close.
CLOSE_60 = Deal("TS AC AD TD TC JD", "AS KC QC 9C KS QS", "9H", "JS 9D")
SCRIPT_60 = "TS AS pass marry:C QC AC close AD JS pass TD QS pass JD KS pass 9D 9C pass TC KC"
# Case 41: A 14 + (AD QD)14 + (TD QS)13 + (TC KC)14 + (AH JS)13 = 68, then loses 9S to KS.
CLOSE_68 = Deal("TS AC AD TD TC AH", "AS KC QC QD KS QS", "9H", "JS 9S")
SCRIPT_68 = "TS AS pass marry:C QC AC close AD QD pass TD QS pass TC KC pass AH JS pass 9S KS"

# Cases 45-46: after a close B trumps A's plain leads: (AC JH)13 + (AH TS)21 + (TH AS)21
# + (KH TC)14 = 69.
TRUMPS_45 = Deal("AC TC AS TS AD TD", "AH TH KH QH JH 9D", "9H")
# Case 45 with a trick for B before the close: B (9S JS)2, A (9D AD)11 and closes before the draw.
TRUMPS_45_TRICK = Deal("9S AD AC TC AS TS", "JS 9D AH TH KH QH", "9H", "JH TD")

# Case 50 (schnapsen): B wins every phase-1 trick: 21 + 21 + 21 + 6 + 4 = 73, then (KD QD)7 -> 80;
# A trumps trick 7 and wins the rest: (KS QH)7 + (AH JH)13 + (TH QS)13 + (KH QC)7 = 40.
SCHNAPSEN_50 = Deal("TC TS TD JC JD", "AC AS AD KC JS", "QH", "KD QD KS AH QS TH JH KH QC", SCHNAPSEN)
SCRIPT_50 = ("TC AC pass AS TS pass AD TD pass KC JC pass JS JD pass "
             "KD QD pass KS QH pass AH JH pass TH QS pass KH QC")
# Cases 22/51 (schnapsen and VU): A leads clubs and wins all five phase-1 tricks (60 points), then
# holds KD QD for trick 6.
SCHNAPSEN_KQ = Deal("AC TC KC QC JC", "AS TS KS QS JS", "JH", "AD TD KD JD QD AH TH KH QH", SCHNAPSEN)
VU_KQ = SCHNAPSEN_KQ._replace(rules=VU)

# Case 52 (VU): A (AC KC)15 + (AS KS)15 = 30, declares 20 (pending until his next won trick) and
# loses KD to AD; B (KD AD)15 + (TH TS)20 + (AH TD)21 + (TC QC)13 = 69, auto-claimed.
VU_52 = Deal("AC AS KD QD TS", "KC KS AD TH AH", "QH", "TD TC QC JC QS JS JD KH JH", VU)
SCRIPT_52 = "AC KC AS KS marry:D KD AD TH TS AH TD TC QC"
# The same story in a 24-card default deal (B claims explicitly).
SIXTY_SIX_52 = Deal("AC AS KD QD TS TD", "KC KS AD TH AH TC", "9H", "QC")
SCRIPT_52_66 = "AC KC pass AS KS pass marry:D KD AD pass TH TS pass AH TD pass TC QC pass claim"


# -- expectations ----------------------------------------------------------------------------------


class Check:
    def __call__(self, state: DealState) -> None:  # pragma: no cover - interface
        raise NotImplementedError


@dataclass(frozen=True)
class Legal(Check):
    """The legal actions are exactly ``exactly``, or include ``has`` and exclude ``lacks``."""

    exactly: str | None = None
    has: str = ""
    lacks: str = ""

    def __call__(self, state: DealState) -> None:
        now = legal(state)
        if self.exactly is not None:
            assert now == set(self.exactly.split()), f"legal {sorted(now)} at {state!r}"
        for a in self.has.split():
            assert a in now, f"{a} should be legal; legal {sorted(now)} at {state!r}"
        for a in self.lacks.split():
            assert a not in now, f"{a} should be illegal; legal {sorted(now)} at {state!r}"


@dataclass(frozen=True)
class Illegal(Check):
    """``apply`` refuses the action with IllegalActionError naming the RULES.md section."""

    action: str
    section: str

    def __call__(self, state: DealState) -> None:
        action = Action.parse(self.action)
        assert action not in state.legal_actions()
        with pytest.raises(IllegalActionError) as info:
            state.apply(action)
        assert self.section in info.value.rule, (info.value.rule, str(info.value))


@dataclass(frozen=True)
class Settled(Check):
    reason: SettleReason
    winner: int | None
    game_points: int
    totals: tuple[int, int] | None = None

    def __call__(self, state: DealState) -> None:
        s = state.settlement
        assert state.is_over and s is not None, f"not settled: {state!r}"
        assert (s.reason, s.winner, s.game_points) == (self.reason, self.winner, self.game_points), s
        if self.totals is not None:
            assert s.totals == self.totals, s


@dataclass(frozen=True)
class TrickWinner(Check):
    seat: int

    def __call__(self, state: DealState) -> None:
        trick = [e for e in state.events() if e.kind is EventKind.TRICK][-1]
        assert trick.seat == self.seat, trick


@dataclass(frozen=True)
class Totals(Check):
    a: int
    b: int

    def __call__(self, state: DealState) -> None:
        assert (state.total(A), state.total(B)) == (self.a, self.b)


@dataclass(frozen=True)
class Turn(Check):
    seat: int
    decision: Decision

    def __call__(self, state: DealState) -> None:
        assert (state.to_act, state.decision) == (self.seat, self.decision), repr(state)


@dataclass(frozen=True)
class Holds(Check):
    seat: int
    has: str = ""
    lacks: str = ""

    def __call__(self, state: DealState) -> None:
        hand = set(state.hand(self.seat))
        assert set(cards(self.has)) <= hand, state.hand(self.seat)
        assert not set(cards(self.lacks)) & hand, state.hand(self.seat)


@dataclass(frozen=True)
class Fn(Check):
    """A bespoke check; ``what`` says in words what it asserts."""

    what: str
    fn: Callable[[DealState], bool]

    def __call__(self, state: DealState) -> None:
        assert self.fn(state), f"{self.what}: {state!r}"


def last_draws(state: DealState, n: int) -> list[Event]:
    return [e for e in state.events() if e.kind is EventKind.DRAW][-n:]


def events_after_close(state: DealState) -> list[Event]:
    ev = state.events()
    i = next(i for i, e in enumerate(ev) if e.kind is EventKind.CLOSE)
    return ev[i + 1:]


def card_points(state: DealState) -> int:
    return sum(c.points for s in (A, B) for c in state.won_cards(s))


# -- the table ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    id: str
    deal: Deal
    script: str
    expect: tuple[Check, ...]
    overrides: dict[str, Any] = field(default_factory=dict)


def row(id: str, d: Deal, script: str, *expect: Check, **overrides: Any) -> Row:
    return Row(id, d, script, expect, overrides)


R = SettleReason
ROWS = [
    # §5.1 trick resolution
    row("case_01_plain_card_of_other_suit_never_wins", Deal("KC QC JC 9C TS 9S", "AD TD KD QD JD 9D", "JH"),
        "KC AD", TrickWinner(A)),
    row("case_02_any_trump_beats_plain", Deal("AC TC KC QC JC 9C", "9H AS TS KS QS JS", "JH"),
        "AC 9H", TrickWinner(B)),
    row("case_03_plain_under_trump_lead_loses", Deal("9H TC KC QC JC 9C", "AC AS TS KS QS JS", "JH"),
        "9H AC", TrickWinner(A)),
    row("case_04_ten_outranks_king", Deal("TS AC KC QC JC 9C", "KS QS JS 9S AD TD", "JH"),
        "TS KS", TrickWinner(A)),
    # §5.2 no obligation in phase 1
    row("case_05_phase1_follower_may_discard", Deal("AS AC TC KC QC JC", "KS TH 9H JD QS 9D", "JH"),
        "AS", Legal(exactly="play:KS play:TH play:9H play:JD play:QS play:9D")),
    row("case_05_phase1_discard_loses_to_leader", Deal("AS AC TC KC QC JC", "KS TH 9H JD QS 9D", "JH"),
        "AS JD", TrickWinner(A)),
    # §5.2 the last draw
    row("case_06_last_draw_winner_hidden_loser_upcard", SKELETON, SIX_TRICKS,
        Fn("winner A draws the hidden JH, then loser B the public up-card 9H",
           lambda s: [(e.seat, e.cards, e.value) for e in last_draws(s, 2)]
           == [(A, tuple(cards("JH")), 0), (B, tuple(cards("9H")), 1)]),
        Fn("stock exhausted, phase 2",
           lambda s: (s.stock_size, s.stock_status, s.phase) == (0, "exhausted", 2)),
        Turn(A, Decision.LEAD), Holds(A, "JH"), Holds(B, "9H")),
    row("case_06_trick7_is_phase2", SKELETON, SIX_TRICKS + " AD",
        Legal(exactly="play:TD play:QD play:9D")),
    # §6 phase 2 follow rule (A closes before trick 1 to reach phase 2)
    row("case_07_phase2_must_follow_and_beat", Deal("QS AC TC KC JC 9C", "KS 9S AH 9D JD QD", "JH"),
        CLOSE_FIRST + " QS", Legal(exactly="play:KS")),
    row("case_07_phase2_underplay_refused", Deal("QS AC TC KC JC 9C", "KS 9S AH 9D JD QD", "JH"),
        CLOSE_FIRST + " QS", Illegal("play:9S", "§6"), Illegal("play:AH", "§6")),
    row("case_08_phase2_following_outranks_trumping", Deal("QS AC TC KC JC 9C", "9S AH JD QD KD 9D", "JH"),
        CLOSE_FIRST + " QS", Legal(exactly="play:9S")),
    row("case_09_phase2_void_must_trump", Deal("QS AC TC KC JC 9C", "9H TH AD KD QD JD", "JH"),
        CLOSE_FIRST + " QS", Legal(exactly="play:9H play:TH")),
    row("case_10_trump_lead_must_overtrump", Deal("KH AC TC KC QC JC", "AH JH AS 9C 9D JD", "TH"),
        CLOSE_FIRST + " KH", Legal(exactly="play:AH")),
    row("case_10_trump_lead_lower_trump_if_cannot_beat", Deal("KH AC TC KC QC JC", "JH AS 9C 9D JD QD", "TH"),
        CLOSE_FIRST + " KH", Legal(exactly="play:JH")),
    row("case_10_trump_lead_no_trump_anything", Deal("KH AC TC KC QC JC", "AS 9C 9D JD QD KD", "TH"),
        CLOSE_FIRST + " KH", Legal(exactly="play:AS play:9C play:9D play:JD play:QD play:KD")),
    row("case_11_phase2_void_no_trump_anything", Deal("QS AS TS KS JS 9S", "AC TC KC AD TD KD", "JH"),
        CLOSE_FIRST + " QS", Legal(exactly="play:AC play:TC play:KC play:AD play:TD play:KD")),
    # §5.3 exchange
    row("case_12_exchange_legal_with_trick_and_stock_8", EXCHANGE_12, "AC 9S pass TC JS pass",
        Fn("stock holds 8", lambda s: s.stock_size == 8), Legal(has="exchange")),
    row("case_12_exchange_takes_upcard", EXCHANGE_12, "AC 9S pass TC JS pass exchange",
        Holds(A, "AH", lacks="9H"), Fn("9H is the new up-card, last in the stock, stock still 8",
                                       lambda s: (str(s.up_card), str(s.stock_cards()[-1]), s.stock_size)
                                       == ("9H", "9H", 8))),
    row("case_12_exchanged_nine_is_drawn_last", EXCHANGE_12,
        "AC 9S pass TC JS pass exchange KC QS pass QC KS pass JC TS pass 9C AS pass",
        Fn("B (loser of trick 6) draws 9H last, in view of both",
           lambda s: [(e.seat, e.cards, e.value) for e in last_draws(s, 1)] == [(B, tuple(cards("9H")), 1)])),
    row("case_13_no_exchange_before_first_trick", Deal("9H AC TC KC QC JC", "AS TS KS QS JS 9S", "AH"),
        "", Illegal("exchange", "§5.3")),
    row("case_13_schnapsen_exchange_on_first_lead",
        Deal("JH AC TC KC QC", "AS TS KS QS JS", "AH", "", SCHNAPSEN),
        "exchange", Holds(A, "AH", lacks="JH"), Fn("JH is up", lambda s: str(s.up_card) == "JH")),
    row("case_13_vu_compat_exchange_on_first_lead", Deal("JH AC TC KC QC", "AS TS KS QS JS", "AH", "", VU),
        "exchange", Holds(A, "AH", lacks="JH"), Fn("JH is up", lambda s: str(s.up_card) == "JH")),
    row("case_14_follower_exchanges_then_trumps", Deal("9C AS AC JC QD JD", "9H TC TS KS KD 9D", "TH"),
        "9C TC pass TS AS pass AC", Turn(B, Decision.FOLLOW), Legal(has="exchange")),
    row("case_14_follower_trumps_with_taken_upcard", Deal("9C AS AC JC QD JD", "9H TC TS KS KD 9D", "TH"),
        "9C TC pass TS AS pass AC exchange TH", TrickWinner(B)),
    row("case_14_leader_only_forbids_follower_exchange", Deal("9C AS AC JC QD JD", "9H TC TS KS KD 9D", "TH"),
        "9C TC pass TS AS pass AC", Illegal("exchange", "§5.3"), exchange_who="leader_only"),
    row("case_15_no_exchange_after_close", Deal("AC TC KC QC JC 9H", "AS TS KS QS JS 9S", "AH"),
        "AC 9S close pass", Turn(A, Decision.LEAD), Illegal("exchange", "§5.3")),
    row("case_15_no_exchange_after_exhaustion", NINE_KEPT, SIX_TRICKS,
        Fn("stock exhausted", lambda s: s.stock_status == "exhausted"), Holds(A, "9H"),
        Illegal("exchange", "§5.3")),
    row("case_16_opponent_exchanges_at_close_without_trick",
        Deal("AC TC KC QC JC 9C", "9H AS TS KS QS JS", "AH"),
        "close", Turn(B, Decision.CLOSE_EXCHANGE), Legal(exactly="exchange pass")),
    row("case_16_close_exchange_takes_turned_down_trump", Deal("AC TC KC QC JC 9C", "9H AS TS KS QS JS", "AH"),
        "close exchange", Holds(B, "AH", lacks="9H"), Turn(A, Decision.LEAD),
        Fn("9H lies under the closed stock, face down", lambda s: s.up_card is not None
           and str(s.up_card) == "9H" and observe(s, B).up_card is None)),
    row("case_16_close_exchange_expires", Deal("AC TC KC QC JC 9C", "9H AS TS KS QS JS", "AH"),
        "close pass AC", Turn(B, Decision.FOLLOW), Illegal("exchange", "§5.3")),
    row("case_16_flag_off_no_exchange_at_close", Deal("AC TC KC QC JC 9C", "9H AS TS KS QS JS", "AH"),
        "close", Turn(A, Decision.LEAD), exchange_on_opponent_close=False),
    row("case_16_flag_off_follower_cannot_exchange", Deal("AC TC KC QC JC 9C", "9H AS TS KS QS JS", "AH"),
        "close AC", Illegal("exchange", "§5.3"), exchange_on_opponent_close=False),
    row("case_17_exchange_with_stock_2", NINE_KEPT, FIVE_TRICKS,
        Fn("stock holds 2", lambda s: s.stock_size == 2), Legal(has="exchange")),
    row("case_17_exchange_with_stock_2_then_last_draw", NINE_KEPT, FIVE_TRICKS + " exchange 9C AS pass",
        Fn("B draws the exchanged 9H as the up-card",
           lambda s: [(e.seat, e.cards, e.value) for e in last_draws(s, 1)] == [(B, tuple(cards("9H")), 1)])),
    row("case_17_min_stock_4_forbids", NINE_KEPT, FIVE_TRICKS, Illegal("exchange", "§5.3"),
        exchange_min_stock=4),
    row("case_18_upcard_is_the_nine_no_exchange", SKELETON, "AC 9S pass", Illegal("exchange", "§5.3")),
    row("case_18_upcard_is_the_nine_no_close_exchange", SKELETON, "AC 9S close", Turn(A, Decision.LEAD)),
    # §5.4 marriages
    row("case_19_marriage_pending_until_first_trick", Deal("KS QS 9C JC 9D JD", "AS TS AC TC AD 9S", "JH"),
        "marry:S KS AS pass TC 9C pass", Totals(0, 15 + 10)),
    row("case_19_marriage_credited_from_trick3", Deal("KS QS 9C JC 9D JD", "AS TS AC TC AD 9S", "JH"),
        "marry:S KS AS pass TC 9C pass 9S QS pass", Totals(3 + 20, 25)),
    row("case_20_40_never_counts_schwarz", Deal("KH QH 9C 9S 9D JC", "AH TH AC AS AD TC", "JH"),
        "marry:H KH AH pass AC 9C pass AS 9S pass AD 9D pass TC JC pass TS JS claim",
        Settled(R.CLAIM, B, 3, (0, 72))),
    row("case_21_follower_cannot_marry", Deal("AC TC KC QC JC 9C", "KS QS AS TS JS 9S", "9H"),
        "AC", Illegal("marry:S", "§5.4")),
    row("case_22_no_marriage_after_exhaustion", KQ_DRAWN, SIX_TRICKS, Holds(A, "KD QD"),
        Illegal("marry:D", "§5.4")),
    row("case_22_same_marriage_legal_in_phase1", KQ_DRAWN, "AC 9S pass TC JS pass KC QS pass",
        Holds(A, "KD QD"), Legal(has="marry:D")),
    row("case_22_schnapsen_marriage_in_phase2", SCHNAPSEN_KQ,
        "AC JS pass TC QS pass KC KS pass QC TS pass JC AS pass",
        Fn("stock exhausted", lambda s: s.stock_status == "exhausted"), Legal(has="marry:D")),
    row("case_22_vu_compat_marriage_in_phase2", VU_KQ, "AC JS TC QS KC KS QC TS JC AS",
        Fn("stock exhausted", lambda s: s.stock_status == "exhausted"), Legal(has="marry:D")),
    row("case_23_marriage_then_claim_without_leading", CLAIM_23, SCRIPT_23,
        Legal(has="claim"), Totals(66, 30)),
    row("case_23_claim_at_66_opponent_30", CLAIM_23, SCRIPT_23 + " claim", Settled(R.CLAIM, A, 2, (66, 30))),
    row("case_24_exchange_close_marry_lead", P66_24, "AC 9S pass TC JS pass",
        Fn("stock 8 after the draw", lambda s: s.stock_size == 8), Legal(has="exchange close")),
    row("case_24_after_exchange_close_legal", P66_24, "AC 9S pass TC JS pass exchange", Legal(has="close")),
    row("case_24_after_close_marriage_legal", P66_24, "AC 9S pass TC JS pass exchange close",
        Turn(A, Decision.LEAD), Legal(has="marry:H")),
    row("case_24_40_credited_at_once", P66_24, "AC 9S pass TC JS pass exchange close marry:H",
        Legal(exactly="claim play:KH play:QH"), Totals(11 + 12 + 40, 0)),
    row("case_24_lead_queen_after_40", P66_24, "AC 9S pass TC JS pass exchange close marry:H QH",
        Turn(B, Decision.FOLLOW), Fn("the 40 is on record", lambda s: s.marriages[-1][1:3] == (2, 40))),
    row("case_24_no_close_after_the_marriage", P66_24, "AC 9S pass TC JS pass exchange marry:H",
        Illegal("close", "§4")),
    row("case_25_one_marriage_per_lead", Deal("KS QS KC QC 9D JD", "9S JS TS 9C AD TD", "9H"),
        "marry:S", Legal(exactly="claim play:KS play:QS"), Illegal("marry:C", "§5.4")),
    row("case_25_second_marriage_on_next_lead", Deal("KS QS KC QC 9D JD", "9S JS TS 9C AD TD", "9H"),
        "marry:S KS 9S pass", Legal(has="marry:C", lacks="marry:S")),
    # §7.2-§7.3 claims
    row("case_26_claim_65_wrong", WRONG_65, SCRIPT_65 + " claim", Settled(R.WRONG_CLAIM, B, 2, (65, 40))),
    row("case_26_claim_65_wrong_opponent_trickless", WRONG_65_SCHWARZ,
        "AC TC pass AS TS pass QD 9D pass marry:C claim", Settled(R.WRONG_CLAIM, B, 3, (65, 0))),
    row("case_26_mirror_opponent_at_40", WRONG_65, SCRIPT_65 + " claim", Settled(R.WRONG_CLAIM, B, 1, (65, 40)),
        wrong_claim_award="mirror"),
    row("case_27_undeclared_66_then_opponent_claims", UNDECLARED_27, SCRIPT_27_TO_T5_LEAD + " JD claim",
        Settled(R.CLAIM, B, 1, (66, 66))),
    row("case_27_flag_undeclared_66_voids_claim", UNDECLARED_27, SCRIPT_27_TO_T5_LEAD + " JD claim",
        Settled(R.DRAW, None, 0, (66, 66)), undeclared_66_voids_claim=True),
    row("case_28_follower_with_66_cannot_claim", UNDECLARED_27, SCRIPT_27_TO_T5_LEAD,
        Turn(A, Decision.FOLLOW), Totals(66, 61), Illegal("claim", "§7.2")),
    row("case_29_no_claim_before_trick1", SKELETON, "", Illegal("claim", "§7.2")),
    row("case_29_claim_after_first_marriage_wrong_3", Deal("KS QS AC TC JC 9C", "AS TS JS 9S KC QC", "9H"),
        "marry:S claim", Settled(R.WRONG_CLAIM, B, 3)),
    row("case_30_loser_32_schneider", SCHNEIDER_30, SCRIPT_30_B32, Settled(R.CLAIM, A, 2, (68, 32))),
    row("case_30_loser_33_one", SCHNEIDER_30, SCRIPT_30_B33, Settled(R.CLAIM, A, 1, (68, 33))),
    row("case_31_zero_point_trick_not_schwarz", NINES_31, SCRIPT_31, Settled(R.CLAIM, B, 2, (0, 70))),
    row("case_31_flag_schwarz_zero_points", NINES_31, SCRIPT_31, Settled(R.CLAIM, B, 3, (0, 70)),
        schwarz_test="zero_points"),
    row("case_32_marriage_counts_for_schneider", SCHNEIDER_32, SCRIPT_32, Settled(R.CLAIM, A, 1, (72, 33))),
    # §7.5 played out
    row("case_33_last_trick_bonus_before_claim", PLAYED_OUT_33, SCRIPT_33,
        Turn(A, Decision.AFTER_TRICK), Totals(70, 60)),
    row("case_33_played_out_claim_with_bonus", PLAYED_OUT_33, SCRIPT_33 + " claim",
        Settled(R.CLAIM, A, 1, (70, 60))),
    row("case_34_65_65_is_a_draw", PLAYED_OUT_34, SCRIPT_34 + " pass", Settled(R.DRAW, None, 0, (65, 65))),
    row("case_34_65_claim_is_wrong", PLAYED_OUT_34, SCRIPT_34 + " claim",
        Settled(R.WRONG_CLAIM, B, 2, (65, 65))),
    row("case_35_unclaimed_70_default_draw", PLAYED_OUT_35, SCRIPT_35 + " pass",
        Settled(R.DRAW, None, 0, (60, 70))),
    row("case_35_higher_total", PLAYED_OUT_35, SCRIPT_35 + " pass", Settled(R.HIGHER_TOTAL, B, 1, (60, 70)),
        end_without_claim="higher_total"),
    row("case_35_last_trick_wins_1", PLAYED_OUT_35, SCRIPT_35 + " pass", Settled(R.LAST_TRICK, A, 1, (60, 70)),
        end_without_claim="last_trick_wins_1"),
    # §7.4 closing
    row("case_37_closer_tiers_final_figures", CLOSE_37, SCRIPT_37 + " claim",
        Settled(R.CLAIM, A, 1, (74, 40)),
        Fn("snapshot: B had 1 trick and 28 at the close",
           lambda s: (s.snapshot.opp_tricks, s.snapshot.opp_total) == (1, 28))),
    row("case_37_closer_tiers_at_close", CLOSE_37, SCRIPT_37 + " claim", Settled(R.CLAIM, A, 2, (74, 40)),
        closer_tier_basis="at_close"),
    row("case_38_closer_never_claims", CLOSE_37, SCRIPT_37 + " QD KC pass",
        Settled(R.CLOSE_FAILED, B, 2, (74 + 7, 40))),
    row("case_39_close_before_trick1_fails_wrong_claim", SKELETON, "close AC 9S claim",
        Settled(R.CLOSE_FAILED, B, 3)),
    row("case_39_close_before_trick1_fails_hands_run_out", SKELETON, "close " + SIX_TRICKS,
        Settled(R.CLOSE_FAILED, B, 3, (60, 0))),
    row("case_39_closer_no_trick_at_close", SKELETON, "close AC 9S claim", Settled(R.CLOSE_FAILED, B, 3),
        close_fail_three_if="closer_no_trick_at_close"),
    row("case_39_never", SKELETON, "close AC 9S claim", Settled(R.CLOSE_FAILED, B, 2),
        close_fail_three_if="never"),
    # With a trick for the opponent at the close, "always" differs from the default (2).
    row("case_39_opponent_had_trick_at_close_2", TRUMPS_45_TRICK, "9S JS pass 9D AD close claim",
        Settled(R.CLOSE_FAILED, B, 2, (11, 2))),
    row("case_39_always", TRUMPS_45_TRICK, "9S JS pass 9D AD close claim",
        Settled(R.CLOSE_FAILED, B, 3, (11, 2)),
        close_fail_three_if="always"),
    row("case_40_closer_60_no_bonus", CLOSE_60, SCRIPT_60,
        Turn(A, Decision.AFTER_TRICK), Totals(60, 41),
        Fn("hands are empty", lambda s: not s.hand(A) and not s.hand(B))),
    row("case_40_closer_60_claim_fails", CLOSE_60, SCRIPT_60 + " claim",
        Settled(R.CLOSE_FAILED, B, 2, (60, 41))),
    row("case_40_closer_60_no_claim_fails", CLOSE_60, SCRIPT_60 + " pass",
        Settled(R.CLOSE_FAILED, B, 2, (60, 41))),
    row("case_41_closer_68_loses_last_trick", CLOSE_68, SCRIPT_68,
        Turn(B, Decision.AFTER_TRICK), Totals(68, 45)),
    row("case_41_closer_68_failed_close", CLOSE_68, SCRIPT_68 + " pass",
        Settled(R.CLOSE_FAILED, B, 2, (68, 45))),
    row("case_42_close_before_draw_stock_6", SKELETON, "AC 9S pass TC JS pass KC QS pass QC KS close",
        Fn("both hold 5, stock 6 closed", lambda s: (len(s.hand(A)), len(s.hand(B)), s.stock_size,
                                                     s.stock_status) == (5, 5, 6, "closed")),
        Legal(has="claim"), Legal(lacks="exchange")),
    row("case_42_close_before_draw_strict_play", SKELETON, "AC 9S pass TC JS pass KC QS pass QC KS close AD",
        Legal(exactly="play:TD play:QD play:9D")),
    row("case_42_five_tricks_six_dead_cards", SKELETON,
        "AC 9S pass TC JS pass KC QS pass QC KS close "
        "AD TD pass KD QD pass JD 9D pass JC AS pass 9C TS pass",
        Fn("no draw after the close, 5 tricks", lambda s: not any(e.kind is EventKind.DRAW for e in
                                                                  events_after_close(s))
           and sum(e.kind is EventKind.TRICK for e in events_after_close(s)) == 5),
        Fn("6 dead cards (30 points) stay in the stock", lambda s: s.stock_size == 6
           and sum(c.points for c in s.stock_cards()) == 30 and card_points(s) == 90),
        Settled(R.CLOSE_FAILED, B, 3, (90, 0))),
    # RULES.md says "after trick 3, stock 6": before that draw the stock holds 8 (§2.6). Both readings:
    row("case_42_close_before_draw_after_trick3_stock_8", SKELETON,
        "AC 9S pass TC JS pass KC QS close AD TD pass KD QD pass QC KS pass JC AS pass 9C TS pass",
        Fn("no draw after the close, 5 tricks", lambda s: not any(e.kind is EventKind.DRAW for e in
                                                                  events_after_close(s))
           and sum(e.kind is EventKind.TRICK for e in events_after_close(s)) == 5),
        Fn("8 dead cards (32 points)", lambda s: s.stock_size == 8 and card_points(s) == 88)),
    row("case_43_no_close_after_trick6_before_draw", SKELETON, FIVE_TRICKS + " 9C AS",
        Fn("stock 2", lambda s: s.stock_size == 2), Legal(exactly="claim pass"), Illegal("close", "§5.5")),
    row("case_43_close_pre_draw_min_stock_2", SKELETON, FIVE_TRICKS + " 9C AS close",
        Fn("closed with 2 dead cards, hands of 5", lambda s: (s.stock_status, s.stock_size, len(s.hand(A)),
                                                              len(s.hand(B))) == ("closed", 2, 5, 5)),
        close_pre_draw_min_stock=2),
    row("case_43_close_after_trick5_draw_still_legal", SKELETON, FIVE_TRICKS,
        Fn("stock 2", lambda s: s.stock_size == 2), Legal(has="close")),
    row("case_44_follower_cannot_close", SKELETON, "AC", Illegal("close", "§5.5")),
    row("case_45_opponent_claims_first_had_trick", TRUMPS_45_TRICK,
        "9S JS pass 9D AD close AC JH pass AH TS pass TH AS pass KH TC pass claim",
        Settled(R.CLAIM_AGAINST_CLOSE, B, 2, (11, 71))),
    row("case_45_opponent_claims_first_no_trick_at_close", TRUMPS_45,
        "close AC JH pass AH TS pass TH AS pass KH TC pass claim",
        Settled(R.CLAIM_AGAINST_CLOSE, B, 3, (0, 69))),
    row("case_45_flag_two", TRUMPS_45, "close AC JH pass AH TS pass TH AS pass KH TC pass claim",
        Settled(R.CLAIM_AGAINST_CLOSE, B, 2, (0, 69)), opponent_out_after_close="two"),
    row("case_46_opponent_wrong_claim_closer_has_trick", TRUMPS_45, "close AD 9D pass AC JH claim",
        Settled(R.WRONG_CLAIM, A, 2, (11, 13))),
    row("case_46_opponent_wrong_claim_closer_trickless", TRUMPS_45, "close AC JH claim",
        Settled(R.WRONG_CLAIM, A, 3, (0, 13))),
    row("case_47_exchange_then_close", P66_24, "AC 9S pass TC JS pass exchange close",
        Fn("closed by A after exchanging",
           lambda s: (s.closer, s.exchanged_by, s.stock_status) == (A, A, "closed"))),
    row("case_47_close_then_exchange_illegal", P66_24, "AC 9S pass TC JS pass close pass",
        Turn(A, Decision.LEAD), Illegal("exchange", "§5.3")),
    # §9 schnapsen
    row("case_50_schnapsen_last_trick_wins_1", SCHNAPSEN_50, SCRIPT_50 + " pass",
        Settled(R.LAST_TRICK, A, 1, (40, 80))),
    row("case_51_schnapsen_no_close_before_draw", SCHNAPSEN_KQ, "AC JS",
        Legal(exactly="claim pass"), Illegal("close", "§5.5")),
    row("case_51_schnapsen_close_after_draw", SCHNAPSEN_KQ, "AC JS pass", Legal(has="close")),
    # §13 vu_compat
    row("case_52_vu_compat_pending_marriage_not_counted", VU_52, SCRIPT_52, Settled(R.CLAIM, B, 2, (30, 69))),
    row("case_52_vu_compat_marriage_leads_king_only", VU_52, "AC KC AS KS marry:D",
        Legal(exactly="play:KD")),
    row("case_52_vu_compat_with_once_any_trick_credit", VU_52, SCRIPT_52, Settled(R.CLAIM, B, 1, (50, 69)),
        marriage_credit="once_any_trick"),
    row("case_52_default_profile", SIXTY_SIX_52, SCRIPT_52_66, Settled(R.CLAIM, B, 1, (50, 69))),
    row("case_52_default_profile_next_trick_after_meld", SIXTY_SIX_52, SCRIPT_52_66,
        Settled(R.CLAIM, B, 2, (30, 69)), marriage_credit="next_trick_after_meld"),
]


@pytest.mark.parametrize("case", ROWS, ids=[r.id for r in ROWS])
def test_edge_case(case: Row) -> None:
    state = play(case.deal.start(case.overrides), case.script)
    for check in case.expect:
        check(state)


def test_every_case_has_a_row() -> None:
    numbers = {int(r.id.split("_")[1]) for r in ROWS} | {int(i.split("_")[1]) for i in MATCH_IDS}
    assert numbers == set(range(1, 53))


# -- match-level cases (36, 48, 49) ---------------------------------------------------------------

MARRY_CLAIM = Deal("KS QS AC TC JC 9C", "AS TS JS 9S KC QC", "9H")  # non-dealer: marry:S claim -> dealer 3
ILLEGAL_48 = Deal("AS AC TC KC QC JC", "KS JH 9C 9D JD QD", "9H")


def _case_36(accumulates: bool, expect_award: int, expect_pots: list[int]) -> None:
    rules = SIXTY_SIX.with_overrides({"draw_carry_accumulates": accumulates})
    # MatchState deals the next deal as soon as one is settled, so a spare fourth order is given.
    m = MatchState.new(rules, first_dealer=B, orders=[PLAYED_OUT_34.order(), PLAYED_OUT_34.order(),
                                                      SCHNEIDER_30.order(), SKELETON.order()])
    m = play_match(m, SCRIPT_34 + " pass")       # deal 1: drawn
    m = play_match(m, SCRIPT_34 + " pass")       # deal 2: drawn (the script is seat-blind)
    assert m.dealer == B                         # dealer alternated after each draw
    m = play_match(m, SCRIPT_30_B32)             # deal 3: the non-dealer (A) wins 2 game points
    assert [r.settlement.reason for r in m.results] == [R.DRAW, R.DRAW, R.CLAIM]
    assert [r.pot_after for r in m.results] == expect_pots
    assert m.results[-1].settlement.game_points == 2
    assert m.results[-1].awarded == expect_award
    assert m.game_points == (expect_award, 0) and m.pot == 0


def _case_48(policy: str) -> None:
    rules = SIXTY_SIX.with_overrides({"illegal_move_policy": policy})
    m = MatchState.new(rules, first_dealer=B, orders=[ILLEGAL_48.order(), MARRY_CLAIM.order()])
    m = play_match(m, "close AS")                # phase 2: B holds KS and must play it
    with pytest.raises(IllegalActionError) as info:
        m.apply(Action.parse("play:JH"))
    assert "§6" in info.value.rule
    m = m.forfeit(B, str(info.value), illegal_action=True)
    if policy == "forfeit_match":
        assert m.is_over and m.outcome is not None
        assert (m.outcome.winner, m.outcome.reason, m.outcome.offender) == (A, "forfeit", B)
        assert "§6" in m.outcome.detail
        assert m.game_points == (0, 0)
    else:
        assert not m.is_over
        settled = m.results[-1].settlement
        assert (settled.reason, settled.winner, settled.game_points) == (R.FORFEIT, A, 3)
        assert m.game_points == (3, 0) and m.deal_no == 2


def _case_49() -> None:
    m = MatchState.new(SIXTY_SIX, first_dealer=B,
                       orders=[MARRY_CLAIM.order(), SCHNEIDER_30.order(), MARRY_CLAIM.order()])
    m = play_match(m, "marry:S claim")           # deal 1, A not dealing: wrong claim, B +3
    m = play_match(m, SCRIPT_30_B32)             # deal 2, B not dealing: B claims for 2 -> 5
    assert m.game_points == (0, 5) and not m.is_over
    m = play_match(m, "marry:S claim")           # deal 3: A's wrong claim, B +3 -> 8
    assert m.is_over and m.outcome is not None
    assert (m.outcome.winner, m.outcome.reason, m.outcome.game_points) == (B, "target", (0, 8))
    assert m.legal_actions() == ()
    with pytest.raises(ValueError):
        m.apply(Action.parse("pass"))


MATCH_CASES: dict[str, Callable[[], None]] = {
    "case_36_two_draws_then_2gp_wins_4": lambda: _case_36(True, 4, [1, 2, 0]),
    "case_36_flag_no_accumulation_wins_3": lambda: _case_36(False, 3, [1, 1, 0]),
    "case_48_illegal_follow_forfeits_match": lambda: _case_48("forfeit_match"),
    "case_48_flag_forfeit_deal": lambda: _case_48("forfeit_deal"),
    "case_49_five_plus_three_ends_match": _case_49,
}
MATCH_IDS = list(MATCH_CASES)


@pytest.mark.parametrize("case_id", MATCH_IDS, ids=MATCH_IDS)
def test_match_edge_case(case_id: str) -> None:
    MATCH_CASES[case_id]()


# -- regressions ---------------------------------------------------------------------------------


def test_close_before_draw_after_a_marriage_trick_frees_the_next_lead() -> None:
    """A close at DP-W right after winning the trick led by a marriage must not carry the
    marriage's "lead its K or Q" restriction into the next lead (RULES.md §5.4: one marriage per
    *lead*; §5.5: a close at DP-W goes straight to the next lead)."""
    state = play(deal("KS QS AH TH KH QH", "9C JC QC KC TC AC", "9H"), "marry:S KS 9C close")
    assert state.decision is Decision.LEAD and state.to_act == A
    # Any card of the hand, the closing-lead marriage (§5.4) and the claim (A's window) are legal.
    assert legal(state) == {"claim", "marry:H", "play:QS", "play:AH", "play:TH", "play:KH", "play:QH"}
    with pytest.raises(IllegalActionError):
        state.apply(Action.parse("play:KS"))  # already played: must not be offered again


@pytest.mark.parametrize("b_holds_nine", [True, False])
def test_between_tricks_exchange_point_reveals_nothing(b_holds_nine: bool) -> None:
    """exchange_who = between_tricks (§5.3, S2 reading): the non-leader who has won a trick gets the
    point before each lead while its public conditions hold, whether or not he holds the trump 9, so
    being offered it tells the leader nothing about his hand (§3, one observer)."""
    rules = SIXTY_SIX.with_overrides({"exchange_who": "between_tricks"})
    b_hand = "9H TC TS KS KD 9D" if b_holds_nine else "QD TC TS KS KD 9D"
    state = play(deal("9C AS AC JC QC JD", b_hand, "TH", rules=rules), "9C TC pass TS AS pass")
    assert (state.to_act, state.decision) == (B, Decision.BETWEEN_TRICKS)
    assert legal(state) == ({"exchange", "pass"} if b_holds_nine else {"pass"})
    assert observe(state, A).my_turn is False and observe(state, A).decision is None
