"""BotView with three and four players (PROTOCOL.md §9): seats, sides, the partner, the table,
tricks of 3 or 4 cards, twin cards, the dead pile, and the per-side mental count, by hand and against
the engine through the in-process driver."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.game import Card, MatchState, observe, profile
from bots.random_bot import RandomBot
from protocol import BotView, StockState, decode_from_referee
from protocol.local import play
from protocol_driver import PatientRandomBot

C = Card.parse


def view_of(*lines: str) -> BotView:
    view = BotView()
    for line in lines:
        view.update(decode_from_referee(line))
    return view


MATCH4 = "match t profile four_player target 7 players 4 seat 1 names a b c d decision_ms 1000"
# Trump diamonds; seat 0 deals, so seat 1 (the reader) leads. Two packs: KC twice in hand.
DEAL4 = "deal 1 dealer 0 upcard 9D stock 20 hand KC KC QC AS TH 9H JD score 2 3 pot 0"


def test_four_players_seats_sides_and_partner() -> None:
    view = view_of(MATCH4, DEAL4)
    assert view.nseat and view.players == 4 and view.seat == 1 and view.me == 1
    assert view.names == ("a", "b", "c", "d") and view.opponent is None
    assert view.partner == 3 and view.my_side == 1 and view.sides == 2
    assert view.opponents == (0, 2) and view.seats == (0, 1, 2, 3)
    assert view.claim_target == 101 and view.rules.claim_target == 101
    assert view.hand.count(C("KC")) == 2 and len(view.hand) == 7
    assert view.leader == 1 and view.to_play == 1 and view.dealer == 0
    assert view.score == (2, 3) and view.hand_sizes == (7, 7, 7, 7)
    # 48 cards, minus my 7 and the up-card; KC: both copies are mine.
    counts = view.unseen_counts()
    assert sum(counts.values()) == 48 - 7 - 1
    assert C("KC") not in counts and counts[C("KD")] == 2 and counts[C("9D")] == 1


def test_four_players_a_trick_of_four_counts_for_the_partnership() -> None:
    view = view_of(MATCH4, DEAL4, "marriage 1 C 20", "played 1 KC", "played 2 AC", "played 3 AC",
                   "played 0 9C")
    assert view.table == ((1, C("KC")), (2, C("AC")), (3, C("AC")), (0, C("9C")))
    assert view.to_play == 1 and view.led is C("KC") and view.leader == 1
    assert view.hand.count(C("KC")) == 1 and view.hand_sizes == (6, 6, 6, 6)
    assert view.pending_marriage_points() == 20 and view.my_points() == 0
    # The first of two identical cards wins (RULES.md §10.3): seat 2's AC, not my partner's.
    view.update(decode_from_referee("trick 2 KC AC AC 9C"))
    assert view.tricks == ((2, (C("KC"), C("AC"), C("AC"), C("9C"))),)
    assert view.tricks_won == (1, 0) and view.points(0) == 4 + 11 + 11
    assert view.my_points() == 0 and view.pending_marriage_points() == 20
    assert view.won_by(0) == (C("KC"), C("AC"), C("AC"), C("9C")) and view.won_by_me == ()
    assert view.played_by(3) == (C("AC"),) and view.table == () and view.leader == 2
    # My partner wins the next trick: the side's marriage is credited (§5.4 for a side, §10.3).
    view = view_of(MATCH4, DEAL4, "marriage 1 C 20", "played 1 KC", "played 2 7C", "played 3 AC",
                   "played 0 9C", "trick 3 KC 7C AC 9C")
    assert view.tricks_won == (0, 1)
    assert view.my_points() == 4 + 11 + 20 and view.pending_marriage_points() == 0
    assert view.marriages[0].credited and view.marriages[0].who == 1


def test_four_players_draws_and_the_face_up_twin() -> None:
    # Seat 0 draws the twin of the up-card from the top: the up-card stays under the stock.
    lines = [MATCH4, DEAL4.replace("stock 20", "stock 5"), "played 1 AS", "played 2 7S",
             "played 3 9S", "played 0 JS", "trick 1 AS 7S 9S JS", "draw 1 9D", "draw 2", "draw 3"]
    view = view_of(*lines)
    assert view.upcard is C("9D") and view.stock_size == 2 and view.hand.count(C("9D")) == 1
    assert view.hand_sizes == (6, 7, 7, 7)
    view.update(decode_from_referee("draw 0"))
    assert view.stock_size == 1 and view.upcard is C("9D")
    # A trick later, the face-up card is drawn last, in view of everyone.
    for line in ["played 1 TH", "played 2 8H", "played 3 JH", "played 0 QH", "trick 1 TH 8H JH QH",
                 "draw 1 KH"]:
        view.update(decode_from_referee(line))
    assert view.stock_size == 0 and view.stock_state is StockState.EXHAUSTED
    assert view.upcard is None and view.phase == 2


def test_four_players_known_cards_of_a_partner() -> None:
    # Seat 3 (my partner) trumps the trick, leads next and shows a marriage.
    view = view_of(MATCH4, DEAL4, "played 1 AS", "played 2 7S", "played 3 9D", "played 0 JS",
                   "trick 3 AS 7S 9D JS", "draw 3", "draw 0", "draw 1 8S", "draw 2",
                   "marriage 3 H 20")
    assert view.known_cards(3) == (C("KH"), C("QH")) and view.known_cards(0) == ()
    assert view.opp_known == {C("KH"), C("QH")}  # everyone else's, partner included
    view.update(decode_from_referee("played 3 KH"))
    assert view.known_cards(3) == (C("QH"),) and view.played_by(3) == (C("9D"), C("KH"))
    assert view.known_cards(1) == view.hand


def test_three_players_dead_pile_and_per_seat_sides() -> None:
    view = view_of("match t profile three_player target 7 players 3 seat 0 names a b c decision_ms 9",
                   "deal 1 dealer 0 upcard KC stock 9 hand AC 9C QS JH KD QD 7D score 0 0 0 pot 0")
    assert view.sides == 3 and view.partner is None and view.my_side == 0
    assert view.opponents == (1, 2) and view.leader == 1 and view.claim_target == 66
    assert len(view.unseen) == 32 - 7 - 1  # the dead pile is unseen until settle
    view.update(decode_from_referee(
        "settle winner none reason wrong_claim points 2 awarded 0 2 2 totals 0 0 0 tricks 0 0 0 "
        "score 0 2 2 pot 0 dead 7H 8S"))
    assert view.dead_pile == (C("7H"), C("8S")) and view.score == (0, 2, 2)
    assert C("7H") not in view.unseen and len(view.unseen) == 32 - 7 - 1 - 2


def test_a_two_player_view_is_unchanged_by_the_new_fields() -> None:
    view = view_of("match t profile sixty_six target 7 seat 0 opponent rival decision_ms 1000",
                   "deal 1 dealer opp upcard TH stock 12 hand AS KS QS 9H JC 9D score 0 0 pot 0")
    assert not view.nseat and view.partner is None and view.claim_target == 66
    assert view.sides == 2 and view.names == () and view.opponent == "rival"


# -- against the engine: every seat's view at every request ------------------------------------------


class Watched(PatientRandomBot):
    """Patient random play that keeps its view for the hook to read."""

    def on_match_start(self, view: BotView) -> None:
        super().on_match_start(view)
        self.view = view


class Claiming(Watched):
    """Claims whenever its own count says the side has the target: the count must be right."""

    def decide(self, view, legal):  # type: ignore[no-untyped-def]
        if view.my_points() >= view.claim_target and any(str(a) == "claim" for a in legal):
            return next(a for a in legal if str(a) == "claim")
        return super().decide(view, legal)


@pytest.mark.parametrize("name", ["three_player", "four_player", "sixty_six"])
@pytest.mark.parametrize("seed", range(4))
def test_every_seats_view_matches_the_engine_at_every_request(name: str, seed: int) -> None:
    rules = profile(name)
    bots = [(Claiming if seat % 2 else Watched)() for seat in range(rules.players)]
    checked = Counter[str]()

    def check(state: MatchState, to_act: int, _view: BotView) -> None:
        deal = state.deal
        for seat, bot in enumerate(bots):
            view, obs = bot.view, observe(deal, seat)
            assert view.hand == obs.hand
            assert view.stock_size == obs.stock_size
            assert view.upcard == obs.up_card
            side = rules.side_of[seat]
            # The mental count per side: exactly the engine's (omniscient) total.
            assert view.my_points() == deal.total(side), (seat, view)
            if view.nseat:
                assert view.hand_sizes == obs.hand_sizes
                assert tuple(c for _, c in view.table) == obs.table
                assert view.tricks_won == obs.tricks_won
                assert all(view.points(s) == deal.total(s) for s in range(rules.sides))
                checked["nseat"] += 1
            checked["requests"] += 1
        if str(deal.decision.text) == "after_trick":
            checked["claim windows"] += 1

    result = play(rules, bots, seed=seed, first_dealer=seed % rules.players, on_request=check,
                  max_deals=60)
    assert result.state.outcome is not None
    assert checked["claim windows"] > 0
    assert any(r.settlement.reason == "claim" for r in result.state.results) or name == "sixty_six"


def test_the_default_sdk_bot_declines_more_players_through_the_driver() -> None:
    result = play(profile("three_player"), [RandomBot(), Watched(), Watched()], seed=1)
    assert result.declined == {0: "does not support three_player"}
    assert result.transcripts[0] == ["> sixtysix 1 players 3 profile three_player",
                                     "< decline does not support three_player"]
    assert result.state.results == ()
