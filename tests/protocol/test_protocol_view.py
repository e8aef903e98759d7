"""BotView: what a bot tracks from the messages alone, checked by hand and against the engine."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.game import PROFILES, Card, MatchState, Rules, observe, profile
from bots.greedy_bot import GreedyBot
from protocol import Bot, BotView, StockState, Who, decode_from_referee
from protocol.view import rules_from_line
from protocol_driver import PatientRandomBot, play

C = Card.parse


def view_of(*lines: str) -> BotView:
    view = BotView()
    for line in lines:
        view.update(decode_from_referee(line))
    return view


MATCH = "match t profile sixty_six target 7 seat 0 opponent rival decision_ms 1000"
# Trump hearts; the up-card TH; seat 0 is not the dealer, so it leads.
DEAL = "deal 1 dealer opp upcard TH stock 12 hand AS KS QS 9H JC 9D score 0 0 pot 0"


def test_deal_start() -> None:
    view = view_of(MATCH, DEAL)
    assert view.trump is C("TH").suit
    assert view.upcard is C("TH") and view.stock_bottom is C("TH")
    assert view.stock_size == 12 and view.stock_state is StockState.OPEN
    assert view.hand == tuple(map(C, ["JC", "AS", "KS", "QS", "9H", "9D"]))  # by suit: C S H D
    assert view.leader is Who.ME and view.dealer is Who.OPP
    assert view.my_points() == 0 and view.opp_hand_size == 6
    assert len(view.unseen) == 24 - 6 - 1  # the pack minus my hand and the up-card


def test_stock_size_counts_each_draw_and_not_the_exchange() -> None:
    view = view_of(MATCH, DEAL, "played me AS", "played opp 9S", "trick me AS 9S",
                   "draw me TC", "draw opp")
    assert view.stock_size == 10
    assert view.tricks_won == (1, 0) and view.won_by_me == (C("AS"), C("9S"))
    assert view.my_points() == 11
    view.update(decode_from_referee("exchange me TH 9H"))  # the exchange does not change the size
    assert view.stock_size == 10
    assert C("TH") in view.hand and C("9H") not in view.hand
    assert view.upcard is C("9H") and view.exchanged_by is Who.ME


def test_last_draws_empty_the_stock_and_show_the_up_card() -> None:
    view = view_of(MATCH, DEAL.replace("stock 12", "stock 2"), "played me AS", "played opp 9S",
                   "trick me AS 9S", "draw me TC", "draw opp TH")
    assert view.stock_size == 0 and view.stock_state is StockState.EXHAUSTED
    assert view.upcard is None and view.stock_bottom is None
    assert view.opp_known == {C("TH")}  # the face-up card he drew
    assert view.phase == 2


def test_close_turns_the_up_card_down_but_remembers_it() -> None:
    view = view_of(MATCH, DEAL, "close me")
    assert view.stock_state is StockState.CLOSED and view.closer is Who.ME
    assert view.upcard is None and view.stock_bottom is C("TH")
    assert C("TH") not in view.unseen  # out of play: the opponent cannot hold it


def test_opponent_cards_known_from_marriage_exchange_and_face_up_draw() -> None:
    view = view_of(MATCH, DEAL, "played me 9D", "played opp AD", "trick opp 9D AD", "draw opp",
                   "draw me 8C", "marriage opp C 20")
    assert view.opp_known == {C("KC"), C("QC")}
    view.update(decode_from_referee("exchange opp TH 9H"))  # TH up, so 9H cannot be mine here
    assert view.opp_known == {C("KC"), C("QC"), C("TH")}
    view.update(decode_from_referee("played opp KC"))
    assert view.opp_known == {C("QC"), C("TH")} and view.led is C("KC") and view.leader is Who.OPP
    assert view.opp_hand_size == len(view.hand) - 1
    assert not view.opp_known & view.unseen and not set(view.hand) & view.unseen


def test_marriage_credit_waits_for_a_trick() -> None:
    # RULES.md §5.4 (once_any_trick): shown before any trick, it counts from the first trick won.
    view = view_of(MATCH, DEAL, "marriage me S 20", "played me KS")
    assert view.my_points() == 0 and view.pending_marriage_points() == 20
    assert view.marriages[0].credited is False
    view.update(decode_from_referee("played opp AS"))
    view.update(decode_from_referee("trick opp KS AS"))
    assert view.my_points() == 0 and view.opp_points_known() == 15
    for line in ("draw opp", "draw me 7H", "played opp 9C", "played me JC", "trick me 9C JC"):
        view.update(decode_from_referee(line))
    assert view.my_points() == 2 + 20 and view.marriages[0].credited is True


def test_marriage_credit_next_trick_after_meld() -> None:
    rules = "rules marriage_credit=next_trick_after_meld"
    view = view_of(MATCH, rules, DEAL, "played me AS", "played opp 9S", "trick me AS 9S",
                   "draw me TC", "draw opp", "marriage me S 20")
    assert view.my_points() == 11  # already has a trick, but this flag waits for the next one
    for line in ("played me KS", "played opp JS", "trick me KS JS"):
        view.update(decode_from_referee(line))
    assert view.my_points() == 11 + 4 + 2 + 20


def test_last_trick_bonus_only_when_played_out_without_a_close() -> None:
    # A shortened deal (one card each, one in the stock) is enough for the count rule (RULES.md
    # §7.1): 10 more for winning the last trick once the stock is exhausted, and only then.
    view = view_of(MATCH, "deal 1 dealer opp upcard TH stock 1 hand AS score 0 0 pot 0",
                   "draw opp TH", "played me AS", "played opp 9S")
    assert view.stock_state is StockState.EXHAUSTED and view.my_points() == 0
    view.update(decode_from_referee("trick me AS 9S"))
    assert view.my_points() == 11 + 10
    assert view.opp_points_known() == 0


def test_no_last_trick_bonus_after_a_close() -> None:
    view = view_of(MATCH, "deal 1 dealer opp upcard TH stock 4 hand AS score 0 0 pot 0", "close me",
                   "played me AS", "played opp 9S", "trick me AS 9S")
    assert view.my_points() == 11


def test_schnapsen_has_no_last_trick_bonus() -> None:
    view = view_of("match t profile schnapsen target 7 seat 0 opponent r decision_ms 1000",
                   "deal 1 dealer opp upcard TH stock 1 hand AS score 0 0 pot 0", "draw opp TH",
                   "played me AS", "played opp QS", "trick me AS QS")
    assert view.rules.last_trick_bonus == 0 and view.my_points() == 14


def test_settle_and_match_end_update_the_score() -> None:
    view = view_of(MATCH, DEAL, "claim me", "settle winner me reason claim points 2 awarded 3 "
                   "totals 70 20 tricks 3 1 score 3 0 pot 0")
    assert view.claimed_by is Who.ME and view.deal_over and view.score == (3, 0)
    view.update(decode_from_referee("match_end winner me reason target score 7 1"))
    assert view.match_end is not None and view.score == (7, 1)


def test_a_new_deal_forgets_the_old_one() -> None:
    view = view_of(MATCH, DEAL, "close me", "marriage me S 20")
    view.update(decode_from_referee("deal 2 dealer me upcard 9C stock 12 hand AD TD KD QD JD 9D "
                                    "score 1 0 pot 0"))
    assert view.closer is None and view.marriages == () and view.stock_state is StockState.OPEN
    assert view.leader is Who.OPP and view.trump is C("9C").suit and view.deal_no == 2


def test_rules_from_line() -> None:
    rules, warnings = rules_from_line("schnapsen", {"deck_size": "20", "match_target": "3"})
    assert rules.name == "schnapsen" and rules.match_target == 3 and warnings == ()
    rules, warnings = rules_from_line("sixty_six", {"deck_size": "24", "future_flag": "x"})
    assert rules == PROFILES["sixty_six"] and "future_flag" in warnings[0]
    rules, warnings = rules_from_line("house", {"last_trick_bonus": "0"})
    assert rules.last_trick_bonus == 0 and "house" in warnings[0]
    rules, warnings = rules_from_line("sixty_six", {"deck_size": "25"})
    assert rules == PROFILES["sixty_six"] and "not usable" in warnings[0]


def test_rules_line_rebuilds_every_profile() -> None:
    for name, rules in PROFILES.items():
        flags = " ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                         for k, v in rules.to_dict(compact=True).items() if k != "name")
        view = view_of(f"match t profile {name} target 7 seat 1 opponent r decision_ms 5",
                       f"rules {flags}")
        assert view.rules == rules and view.rules_warnings == ()


# -- against the engine: the view never disagrees with observe() -----------------------------------

RULE_SETS: list[Rules] = [
    profile("sixty_six"),
    profile("schnapsen"),
    profile("vu_compat"),
    profile("sixty_six").with_overrides({"exchange_who": "between_tricks",
                                         "marriage_credit": "next_trick_after_meld",
                                         "end_without_claim": "higher_total"}),
    profile("sixty_six").with_overrides({"deck_size": 32, "hand_size": 6, "exchange_min_stock": 4,
                                         "claim_window": "on_lead_any_time"}),
]


def check_view(state: MatchState, seat: int, view: BotView) -> None:
    deal = state.deal
    obs = observe(deal, seat)
    opp = 1 - seat
    assert view.hand == obs.hand
    assert view.trump is obs.trump
    assert view.upcard is obs.up_card
    assert view.stock_size == obs.stock_size
    assert view.stock_state == obs.stock_state
    assert view.closer == (None if obs.closer is None else Who.of(obs.closer, seat))
    assert view.leader is Who.of(obs.leader, seat)
    assert view.led is obs.led
    assert view.tricks_won == (obs.tricks_won[seat], obs.tricks_won[opp])
    assert view.won_by_me == obs.won_cards(seat) and view.won_by_opp == obs.won_cards(opp)
    assert view.opp_hand_size == obs.opponent_hand_size
    assert view.score == (state.game_points[seat], state.game_points[opp])
    assert view.pot == state.pot and view.deal_no == state.deal_no
    # The mental count, from messages alone, equals the engine's omniscient total.
    assert view.my_points() == deal.total(seat)
    assert view.opp_points_known() == deal.total(opp)
    # Known cards are true; unseen cards are the ones not in my hand, played or known.
    opp_hand = set(deal.hand(opp))
    assert view.opp_known <= opp_hand
    assert opp_hand <= view.opp_possible
    assert not view.unseen & set(view.hand)
    if view.stock_bottom is not None:
        assert view.stock_bottom is deal.up_card
    if view.stock_state is StockState.EXHAUSTED:
        assert view.opp_possible == opp_hand  # every card is accounted for (RULES.md §6)
    else:
        assert len(view.unseen) + len(view.opp_known) == len(opp_hand) + len(deal.stock_cards()) - (
            view.stock_bottom is not None)


@pytest.mark.parametrize("rules", RULE_SETS, ids=["sixty_six", "schnapsen", "vu_compat", "variant",
                                                  "32_cards"])
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**9), greedy=st.booleans())
def test_view_agrees_with_the_engine(rules: Rules, seed: int, greedy: bool) -> None:
    checked = []

    def hook(state: MatchState, seat: int, view: BotView) -> None:
        check_view(state, seat, view)
        checked.append(seat)

    first: Bot = GreedyBot() if greedy else PatientRandomBot(f"a{seed}")
    play(rules, (first, PatientRandomBot(f"b{seed}")), seed=seed, on_request=hook)
    assert checked
