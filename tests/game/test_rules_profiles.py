"""Rules profiles (RULES.md §9, §11, §13), their TOML overrides and errors; cards, packs and actions
(§1, §4) and the trick-resolution table (§5.1)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from arena.game import (CARDS, PACKS, Action, Card, DealState, MatchState, Rank, Rules, RulesError, Suit,
                        load_rules, profile)
from arena.game.cards import beats
from arena.game.rules import FLAG_FIELDS, allowed_values
from helpers import SIXTY_SIX, deal, play

# -- §11: every flag of rows 1-34, its allowed values and its sixty_six default ------------------

# (row, flag, allowed values as written in the §11 table, default of the sixty_six profile)
SECTION_11 = [
    (1, "deck_size", {"24", "32", "20", "48"}, 24),
    (2, "hand_size", {"6", "5", "7"}, 6),
    (3, "deal_pattern", {"3_3", "3_up_2", "vu_alternate"}, "3_3"),
    (4, "exchange_who", {"leader_or_follower", "leader_only", "between_tricks"}, "leader_or_follower"),
    (5, "exchange_requires_trick", {"true", "false"}, True),
    (6, "exchange_min_stock", {"2", "4"}, 2),
    (7, "exchange_on_opponent_close", {"true", "false"}, True),
    (8, "marriage_requires_prior_trick", {"false", "true"}, False),
    (9, "marriage_credit", {"once_any_trick", "next_trick_after_meld"}, "once_any_trick"),
    (10, "marriage_in_phase2", {"false", "true"}, False),
    (11, "marriage_on_closing_lead", {"true", "false"}, True),
    (12, "marriage_lead_card", {"king_or_queen", "king_only"}, "king_or_queen"),
    (13, "claim_after_meld", {"true", "false"}, True),
    (14, "close_enabled", {"true", "false"}, True),
    (16, "close_before_draw", {"true", "false"}, True),
    (17, "close_min_stock", {"2", "4"}, 2),
    (17, "close_pre_draw_min_stock", {"4", "2"}, 4),
    (18, "close_before_first_trick", {"true", "false"}, True),
    (19, "closer_tier_basis", {"final", "at_close"}, "final"),
    (20, "close_fail_three_if", {"opp_no_trick_at_close", "closer_no_trick_at_close", "never", "always"},
     "opp_no_trick_at_close"),
    (21, "opponent_out_after_close", {"as_close_fail", "two"}, "as_close_fail"),
    (22, "phase2_follow", {"strict", "follow_only"}, "strict"),
    (23, "claim_mode", {"explicit", "auto_after_trick"}, "explicit"),
    (24, "claim_window", {"after_trick_or_meld", "on_lead_any_time"}, "after_trick_or_meld"),
    (25, "wrong_claim_award", {"two_or_three", "two", "mirror"}, "two_or_three"),
    (26, "schwarz_test", {"no_tricks", "zero_points"}, "no_tricks"),
    (27, "schneider_below", None, 33),
    (28, "last_trick_bonus", {"10", "0"}, 10),
    (29, "end_without_claim", {"draw_carry", "higher_total", "last_trick_wins_1"}, "draw_carry"),
    (30, "undeclared_66_voids_claim", {"false", "true"}, False),
    (31, "draw_carry_points", {"1", "0"}, 1),
    (31, "draw_carry_accumulates", {"true", "false"}, True),
    (32, "match_target", None, 7),
    (33, "next_dealer", {"alternate", "winner_deals", "loser_deals"}, "alternate"),
    (33, "dealer_after_draw", {"alternate", "same_dealer"}, "alternate"),
    (34, "illegal_move_policy", {"forfeit_match", "forfeit_deal"}, "forfeit_match"),
]
# §8 names one more two-player flag outside the table; §11 row 35 and §10.4 the N-player ones.
EXTRA_FLAGS = {"shutout_double": False, "players": 2, "claim_target": 66, "must_beat_partner": True}
# Values §10.4 adds to a §11 flag (the three- and four-player deal pattern).
SECTION_10_VALUES = {"deal_pattern": {"3_4"}}

RULES_MD = Path(__file__).resolve().parents[2] / "docs" / "RULES.md"


def test_profiles_carry_every_section_11_flag() -> None:
    names = {name for _, name, _, _ in SECTION_11} | set(EXTRA_FLAGS)
    assert set(SIXTY_SIX.flags()) == names


@pytest.mark.parametrize("row,name,values,default", SECTION_11,
                         ids=[f"row{r}_{n}" for r, n, _, _ in SECTION_11])
def test_flag_values_and_default(row: int, name: str, values: set[str] | None, default: object) -> None:
    assert FLAG_FIELDS[name].metadata["row"] == row
    if values is not None:
        assert set(allowed_values(name).split(" | ")) == values | SECTION_10_VALUES.get(name, set())
        for value in values:  # each listed value is accepted (except combinations of other profiles)
            if (name, value) in {("deck_size", "48"), ("hand_size", "5"), ("hand_size", "7"),
                                 ("deal_pattern", "3_up_2")}:
                continue
            assert str(SIXTY_SIX.with_overrides({name: value}).to_dict()[name]).lower() == value
    assert SIXTY_SIX.to_dict()[name] == default


def test_shutout_double_default_off() -> None:
    assert SIXTY_SIX.shutout_double is False


def test_section_11_table_matches_this_file() -> None:
    """Guards SECTION_11 above against drifting from RULES.md itself."""
    text = RULES_MD.read_text(encoding="utf-8")
    table = text[text.index("## 11."):text.index("## 12.")]
    found = {}
    for line in table.splitlines():
        m = re.match(r"^\| (\d+) ", line)
        if not m or int(m.group(1)) > 34:
            continue
        last = re.split(r"(?<!\\)\|", line)[-2]
        for part in last.split(";"):
            fm = re.match(r"\s*`([a-z_0-9]+)`\s*(?:=\s*(.*))?", part)
            if fm:
                vals = None
                if fm.group(2) and "\\|" in fm.group(2):
                    vals = {re.sub(r"\s*\(.*", "", v.strip()).strip("`") for v in fm.group(2).split("\\|")}
                found[fm.group(1)] = (int(m.group(1)), vals)
    assert found == {name: (row, values) for row, name, values, _ in SECTION_11}


# -- §9 and §13: the other profiles ------------------------------------------------------------------

SCHNAPSEN_DIFF = {
    "deck_size": 20, "hand_size": 5, "deal_pattern": "3_up_2",
    "exchange_who": "leader_only", "exchange_requires_trick": False,
    # §11 row 7: PS says no exchange at the opponent's close; §9 allows the exchange only to the leader.
    "exchange_on_opponent_close": False,
    "marriage_in_phase2": True, "close_before_draw": False, "closer_tier_basis": "at_close",
    "last_trick_bonus": 0, "end_without_claim": "last_trick_wins_1",
}


def test_schnapsen_differs_exactly_as_section_9() -> None:
    base, sch = SIXTY_SIX.to_dict(), profile("schnapsen").to_dict()
    diff = {k: sch[k] for k in base if k != "name" and sch[k] != base[k]}
    assert diff == SCHNAPSEN_DIFF


VU_SECTION_13 = {
    "deck_size": 20, "hand_size": 5, "deal_pattern": "vu_alternate", "exchange_who": "leader_only",
    "exchange_requires_trick": False, "exchange_min_stock": 2, "close_enabled": False,
    "marriage_in_phase2": True, "marriage_lead_card": "king_only",
    "marriage_credit": "next_trick_after_meld", "claim_mode": "auto_after_trick", "last_trick_bonus": 0,
    "end_without_claim": "last_trick_wins_1", "schwarz_test": "zero_points",
}


def test_vu_compat_has_the_section_13_flags() -> None:
    vu = profile("vu_compat").to_dict()
    assert {k: vu[k] for k in VU_SECTION_13} == VU_SECTION_13


def test_vu_compat_is_a_single_deal() -> None:
    """§13: "single deal (no match)": the first settled deal ends the match."""
    vu = profile("vu_compat")
    m = MatchState.new(vu, seed=3)
    steps = 0
    while not m.is_over:
        m = m.apply(m.legal_actions()[0])
        steps += 1
        assert steps < 200
    assert len(m.results) == 1 and m.outcome is not None and m.outcome.reason == "target"


def test_unknown_profile() -> None:
    with pytest.raises(RulesError, match="nope.*sixty_six"):
        profile("nope")


# -- overrides and TOML ----------------------------------------------------------------------------


def test_toml_overrides(tmp_path: Path) -> None:
    path = tmp_path / "house.toml"
    path.write_text('wrong_claim_award = "mirror"\nmatch_target = 11\nclose_before_draw = false\n')
    rules = load_rules("sixty_six", path)
    assert (rules.wrong_claim_award, rules.match_target, rules.close_before_draw) == ("mirror", 11, False)
    assert rules.name == "sixty_six" and rules.deck_size == 24
    assert profile("sixty_six").match_target == 7  # the named profile itself is untouched


def test_toml_names_its_base_profile_and_rules_table(tmp_path: Path) -> None:
    path = tmp_path / "sharp.toml"
    path.write_text('profile = "schnapsen"\n[rules]\nmarriage_requires_prior_trick = true\n'
                    'illegal_move_policy = "forfeit_deal"\n')
    rules = load_rules("sixty_six", path, overrides={"match_target": 5})
    assert rules.name == "schnapsen" and rules.deck_size == 20
    assert rules.marriage_requires_prior_trick is True and rules.illegal_move_policy == "forfeit_deal"
    assert rules.match_target == 5


def test_overrides_behave() -> None:
    """An override is not just stored: it changes play (§11 row 18, close before trick 1)."""
    d = ("AC TC KC QC JC 9C", "AS TS KS QS JS 9S", "9H")
    assert "close" in {str(a) for a in deal(*d).legal_actions()}
    off = SIXTY_SIX.with_overrides({"close_before_first_trick": "false"})
    assert "close" not in {str(a) for a in deal(*d, rules=off).legal_actions()}


# One row per §11 flag that changes what is legal: with the override, the action's legality flips.
SKEL = ("AC TC KC QC JC 9C", "AS TS KS QS JS 9S", "9H", "")    # A leads clubs, B follows spades
KQ_DRAWN = ("AC TC KC QC JC 9C", "AS TS KS QS JS 9S", "9H",
            "AD TD KD 9D QD JD AH TH KH QH JH")                    # A draws KD QD by trick 7
MARRY_S = ("KS QS AC TC JC 9C", "AS TS JS 9S KC QC", "9H", "")
P66_24 = ("AC TC QH 9H JD 9D", "9S JS QS 9C JC QD", "KH", "")
NINE_KEPT = ("AC TC KC QC JC 9H", "AS TS KS QS JS 9S", "AH", "")
FOLLOWER_9 = ("9C AS AC JC QD JD", "9H TC TS KS KD 9D", "TH", "")
FIVE = "AC 9S pass TC JS pass KC QS pass QC KS pass JC TS pass"
FLAG_EFFECTS = [
    # (overrides, deal, script, action, legal by default?)
    ({"close_before_first_trick": False}, SKEL, "", "close", True),
    ({"close_enabled": False}, SKEL, "AC 9S pass", "close", True),
    ({"close_before_draw": False}, SKEL, "AC 9S", "close", True),
    ({"close_min_stock": 4}, SKEL, FIVE, "close", True),
    ({"close_pre_draw_min_stock": 2}, SKEL, FIVE + " 9C AS", "close", False),
    ({"marriage_requires_prior_trick": True}, MARRY_S, "", "marry:S", True),
    ({"marriage_on_closing_lead": False}, P66_24, "AC 9S pass TC JS pass exchange close", "marry:H", True),
    ({"marriage_in_phase2": True}, KQ_DRAWN, FIVE + " 9C AS pass", "marry:D", False),
    ({"marriage_lead_card": "king_only"}, MARRY_S, "marry:S", "play:QS", True),
    ({"claim_after_meld": False}, MARRY_S, "marry:S", "claim", True),
    ({"claim_mode": "auto_after_trick"}, SKEL, "AC 9S close", "claim", True),
    ({"claim_window": "on_lead_any_time"}, SKEL, "", "claim", False),
    ({"exchange_requires_trick": False}, ("9H AC TC KC QC JC", "AS TS KS QS JS 9S", "AH", ""), "",
     "exchange", False),
    ({"exchange_who": "leader_only"}, FOLLOWER_9, "9C TC pass TS AS pass AC", "exchange", True),
    ({"exchange_min_stock": 4}, NINE_KEPT, FIVE, "exchange", True),
    ({"exchange_on_opponent_close": False}, ("AC TC KC QC JC 9C", "9H AS TS KS QS JS", "AH", ""), "close",
     "exchange", True),
    ({"phase2_follow": "follow_only"}, ("QS AC TC KC JC 9C", "9H TH AD KD QD JD", "JH", ""), "close pass QS",
     "play:AD", False),   # void in spades: need not trump
    ({"phase2_follow": "follow_only"}, ("QS AC TC KC JC 9C", "KS 9S AH 9D JD QD", "JH", ""), "close pass QS",
     "play:9S", False),   # must follow, need not beat
]


@pytest.mark.parametrize("overrides,hands,script,action,by_default", FLAG_EFFECTS,
                         ids=[f"{next(iter(o))}-{a}" for o, _, _, a, _ in FLAG_EFFECTS])
def test_flag_changes_legality(overrides: dict, hands: tuple, script: str, action: str,
                               by_default: bool) -> None:
    for rules, expected in ((SIXTY_SIX, by_default), (SIXTY_SIX.with_overrides(overrides), not by_default)):
        state = play(deal(*hands, rules=rules), script)
        assert (Action.parse(action) in state.legal_actions()) is expected, (overrides, state)


def test_rules_round_trip_through_dict() -> None:
    for name in ("sixty_six", "schnapsen", "vu_compat"):
        rules = profile(name).with_overrides({"match_target": 9})
        assert type(rules).from_dict(rules.to_dict()) == rules


@pytest.mark.parametrize("content,needle", [
    ("deck_size = ", "not valid TOML"),
    ("colour = \"red\"\n", "colour"),
])
def test_bad_toml(tmp_path: Path, content: str, needle: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(content)
    with pytest.raises(RulesError, match=needle):
        load_rules("sixty_six", path)


def test_missing_toml(tmp_path: Path) -> None:
    with pytest.raises(RulesError, match="cannot read"):
        load_rules("sixty_six", tmp_path / "absent.toml")


def test_unknown_flag_names_it_and_the_known_flags() -> None:
    with pytest.raises(RulesError) as info:
        SIXTY_SIX.with_overrides({"exchange_whom": "leader_only"})
    message = str(info.value)
    assert "exchange_whom" in message and "exchange_who" in message and "known flags" in message


@pytest.mark.parametrize("name,value,allowed", [
    ("exchange_who", "dealer", ["leader_or_follower", "leader_only", "between_tricks"]),
    ("exchange_min_stock", 3, ["2", "4"]),
    ("deck_size", "twenty", ["20", "24", "32", "48"]),
    ("close_enabled", "maybe", ["true", "false"]),
    ("close_enabled", 1, ["true", "false"]),
    ("match_target", 0, ["1", "1000"]),
    ("match_target", "7.5", ["1", "1000"]),
    ("match_target", True, ["1", "1000"]),
    ("schneider_below", 67, ["1", "66"]),
    ("last_trick_bonus", 5, ["0", "10"]),
])
def test_bad_value_names_flag_and_allowed_values(name: str, value: object, allowed: list[str]) -> None:
    with pytest.raises(RulesError) as info:
        SIXTY_SIX.with_overrides({name: value})
    message = str(info.value)
    assert repr(name) in message
    for a in allowed:
        assert a in message


def test_deck_48_is_refused_clearly() -> None:
    with pytest.raises(RulesError, match=r"deck_size 48.*four-player.*§10.3"):
        SIXTY_SIX.with_overrides({"deck_size": 48})


@pytest.mark.parametrize("overrides,needle", [
    ({"hand_size": 5}, r"deal_pattern 3_3 deals 6 cards each, but hand_size is 5"),
    ({"hand_size": 7}, r"deal_pattern 3_3 deals 6 cards each, but hand_size is 7"),
    ({"deal_pattern": "3_up_2"}, r"deal_pattern 3_up_2 deals 5 cards each, but hand_size is 6"),
])
def test_hand_size_must_match_deal_pattern(overrides: dict[str, object], needle: str) -> None:
    with pytest.raises(RulesError, match=needle):
        SIXTY_SIX.with_overrides(overrides)


def test_thirty_two_card_pack_deals() -> None:
    """S1's 32-card two-player game (§2.6): 6 each, a 20-card stock, trump 7 is the exchange card."""
    rules = SIXTY_SIX.with_overrides({"deck_size": 32})
    state = DealState.new(rules, 1, rules.pack.cards)
    assert state.stock_size == 20 and len(state.hand(0)) == len(state.hand(1)) == 6
    assert rules.pack.exchange_card(state.trump_suit).rank is Rank.SEVEN


@pytest.mark.parametrize("text", ["", "CS", "SH", "HD", "X", "♥"])
def test_bad_suit_text(text: str) -> None:
    """Regression: "".index and substrings of "CSHD" used to parse ("" as clubs, "HD" as hearts), so
    the wire text "marry:" was accepted as "marry:C"."""
    with pytest.raises(ValueError, match="not a suit"):
        Suit.parse(text)


@pytest.mark.parametrize("text", ["", "AT", "KQJ", "10", "X"])
def test_bad_rank_text(text: str) -> None:
    with pytest.raises(ValueError, match="not a rank"):
        Rank.parse(text)


# -- §1 cards and packs ----------------------------------------------------------------------------


def test_card_text_round_trip() -> None:
    for card in CARDS:
        assert Card.parse(str(card)) is card
        assert eval(repr(card)) is card  # repr can be pasted back (STYLE.md)
    assert str(Card(Suit.HEARTS, Rank.TEN)) == "TH"


@pytest.mark.parametrize("text", ["", "A", "AHS", "1H", "AX", "10H", "XX", " AS", None, 5])
def test_bad_card_text(text: object) -> None:
    with pytest.raises(ValueError, match="not a card"):
        Card.parse(text)  # type: ignore[arg-type]


@pytest.mark.parametrize("size,ranks,exchange", [
    (20, "A T K Q J", Rank.JACK), (24, "A T K Q J 9", Rank.NINE), (32, "A T K Q J 9 8 7", Rank.SEVEN)])
def test_packs(size: int, ranks: str, exchange: Rank) -> None:
    pack = PACKS[size]
    assert len(pack.cards) == size == len(set(pack.cards))
    assert sum(c.points for c in pack.cards) == 120
    assert {c.rank.char for c in pack.cards} == set(ranks.split())
    assert pack.exchange_rank is exchange


def test_card_points() -> None:
    """§1.1: A 11, 10 10, K 4, Q 3, J 2, 9 0 (and 8, 7 worth 0 in the 32-card pack)."""
    assert {r.char: r.points for r in Rank} == {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0,
                                                 "7": 0}


# -- §4 actions ---------------------------------------------------------------------------------------

ALL_ACTIONS = ([f"play:{c}" for c in CARDS] + [f"marry:{s.char}" for s in Suit]
               + ["exchange", "close", "claim", "pass"])


def test_action_text_round_trip() -> None:
    assert len(set(ALL_ACTIONS)) == 32 + 4 + 4
    for text in ALL_ACTIONS:
        action = Action.parse(text)
        assert str(action) == text
        assert Action.parse(str(action)) is action
        assert eval(repr(action)) is action
    assert Action.play("TH") is Action.parse("play:TH") is Action.play(Card.parse("TH"))
    assert Action.marry(Suit.HEARTS) is Action.parse("marry:H")


@pytest.mark.parametrize("text", ["", "play", "play:", "play:XX", "play:ASS", "marry:", "marry:X",
                                  "marry:HH", "marry:HD", "marry:CS", "exchange:AS", "Claim", "fold",
                                  "play AS", None])
def test_bad_action_text(text: object) -> None:
    with pytest.raises(ValueError, match="not an? (action|card|suit)"):
        Action.parse(text)  # type: ignore[arg-type]


# -- §5.1 trick resolution ---------------------------------------------------------------------------

TRICK_TABLE = [
    # (led, followed, trump, winner) -- "L" leader, "F" follower
    ("KC", "AD", "H", "L"),   # different plain suits: the leader
    ("AC", "9H", "H", "F"),   # any trump beats a plain card
    ("9H", "AC", "H", "L"),   # a plain card under a trump lead
    ("TS", "KS", "H", "L"),   # the Ten outranks the King
    ("KS", "TS", "H", "F"),
    ("9S", "AS", "H", "F"),
    ("AH", "TH", "H", "L"),   # trump on trump: rank
    ("JH", "QH", "H", "F"),
    ("QC", "KC", "C", "F"),
    ("7S", "8S", "H", "F"),   # 32-card pack: 8 beats 7 though both are worth 0 (§1.1 note)
    ("8S", "9S", "H", "F"),
    ("9S", "7S", "H", "L"),
    ("AD", "7H", "H", "F"),
]


@pytest.mark.parametrize("led,followed,trump,winner", TRICK_TABLE,
                         ids=[f"{a}-{b}-tr{t}" for a, b, t, _ in TRICK_TABLE])
def test_trick_resolution_table(led: str, followed: str, trump: str, winner: str) -> None:
    f_wins = beats(Card.parse(followed).index, Card.parse(led).index, Suit.parse(trump))
    assert ("F" if f_wins else "L") == winner


def test_trick_resolution_exhaustive() -> None:
    """§5.1 for every ordered pair of the 32 cards and every trump, against the rule as stated."""
    order = "A T K Q J 9 8 7".split()
    for led, fol in itertools.permutations(CARDS, 2):
        for trump in Suit:
            if fol.suit is led.suit:
                expected = order.index(fol.rank.char) < order.index(led.rank.char)
            else:
                expected = fol.suit is trump
            assert beats(fol.index, led.index, trump) is expected, (led, fol, trump)


def test_trick_resolution_in_play() -> None:
    """The engine applies the table when a trick is played (not only in ``beats``)."""
    state = play(deal("TS AC KC QC JC 9C", "KS AS JS 9S AD TD", "JH"), "TS KS")
    trick = state.events()[-1]
    assert (trick.kind, trick.seat) == ("trick", 0)
    state = play(deal("TS AC KC QC JC 9C", "KS AS JS 9S AD TD", "JH"), "TS AS")
    assert state.events()[-1].seat == 1


# -- §10.4: the three- and four-player profiles ---------------------------------------------------

THREE_DIFF = {
    "players": 3, "deck_size": 32, "hand_size": 7, "deal_pattern": "3_4", "close_enabled": False,
    "exchange_who": "leader_only", "exchange_on_opponent_close": False,
    "end_without_claim": "higher_total", "wrong_claim_award": "two",
}
# §10.3: "2 if the other side's total x 2 < 101" is schneider_below 51 with claim_target 101.
FOUR_DIFF = {**THREE_DIFF, "players": 4, "deck_size": 48, "claim_target": 101, "schneider_below": 51}


@pytest.mark.parametrize("name,expected", [("three_player", THREE_DIFF), ("four_player", FOUR_DIFF)])
def test_n_player_profiles_differ_exactly_as_section_10_4(name: str, expected: dict) -> None:
    base, other = SIXTY_SIX.to_dict(), profile(name).to_dict()
    diff = {k: other[k] for k in other if k != "name" and other[k] != base.get(k, EXTRA_FLAGS.get(k))}
    assert diff == expected
    assert other["last_trick_bonus"] == 10 and other["match_target"] == 7 and other["must_beat_partner"] is True
    assert Rules.from_dict(other) == profile(name)


def test_two_player_compact_rules_leave_the_section_10_flags_out() -> None:
    """The protocol's rules line of a two-player match stays what it was (to_dict(compact=True))."""
    data = SIXTY_SIX.to_dict(compact=True)
    assert not {"players", "claim_target", "must_beat_partner"} & set(data)
    assert {"players", "claim_target", "must_beat_partner"} <= set(SIXTY_SIX.to_dict())
    assert set(profile("four_player").to_dict(compact=True)) == set(profile("four_player").to_dict())
    changed = SIXTY_SIX.with_overrides({"must_beat_partner": False})
    assert changed.to_dict(compact=True)["must_beat_partner"] is False
    assert Rules.from_dict(changed.to_dict()) == changed and Rules.from_dict(data) == SIXTY_SIX


@pytest.mark.parametrize("name,overrides,needle", [
    ("three_player", {"close_enabled": True}, r"3 players have no closing.*close_enabled = false"),
    ("four_player", {"exchange_who": "leader_or_follower"}, r"4 players exchange as leader only"),
    ("three_player", {"next_dealer": "winner_deals"}, r"pass the deal clockwise"),
    ("three_player", {"deal_pattern": "3_3", "hand_size": 6}, r"3 players need deal_pattern 3_4"),
    ("sixty_six", {"deal_pattern": "3_4", "hand_size": 7}, r"2 players need deal_pattern"),
    ("three_player", {"deck_size": 48}, r"deck_size 48 .* four-player"),
    ("four_player", {"deck_size": 24}, r"leaves no stock for 4 players"),
])
def test_n_player_flag_combinations_refused_clearly(name: str, overrides: dict, needle: str) -> None:
    with pytest.raises(RulesError, match=needle):
        profile(name).with_overrides(overrides)


def test_n_player_derived_tables() -> None:
    three, four = profile("three_player"), profile("four_player")
    assert (three.sides, three.side_of, three.next_seat) == (3, (0, 1, 2), (1, 2, 0))
    assert three.draw_orders == ((0, 1, 2), (1, 2, 0), (2, 0, 1))
    assert three.other_sides == ((1, 2), (0, 2), (0, 1)) and three.partner(1) is None
    assert (four.sides, four.side_of, four.next_seat) == (2, (0, 1, 0, 1), (1, 2, 3, 0))
    assert four.draw_orders[3] == (3, 0, 1, 2) and four.other_sides == ((1,), (0,))
    assert (SIXTY_SIX.sides, SIXTY_SIX.side_of, SIXTY_SIX.next_seat) == (2, (0, 1), (1, 0))
    assert (three.stock_size, three.dead_size, four.stock_size, four.dead_size) == (9, 2, 20, 0)


def test_rules_list_names_the_n_player_profiles() -> None:
    from arena.game import PROFILES
    assert {"three_player", "four_player"} <= set(PROFILES)


# -- counted masks (cards.LOW_MASK) and the card helpers -------------------------------------------


def test_counted_masks_hold_a_card_twice() -> None:
    from arena.game.cards import LOW_MASK, add_card, card_count, cards_of_mask, mask_of, mask_points, \
        remove_card
    ac, ts = Card.parse("AC"), Card.parse("TS")
    one = add_card(0, ac.index)
    two = add_card(one, ac.index)
    assert one == ac.bit and two == ac.bit | (ac.bit << 32) and two & LOW_MASK == ac.bit
    assert cards_of_mask(two) == [ac, ac] and card_count(two) == 2 and mask_points(two) == 22
    both = add_card(two, ts.index)
    assert cards_of_mask(both) == [ac, ac, ts] and mask_points(both) == 32
    assert remove_card(both, ac.index) == add_card(ac.bit, ts.index)       # the second copy goes first
    assert remove_card(remove_card(both, ac.index), ac.index) == ts.bit
    assert remove_card(one, ac.index) == 0
    assert mask_of([ac, ts]) == ac.bit | ts.bit and mask_of([]) == 0
    assert mask_of(CARDS) == (1 << 32) - 1


def test_identical_cards_do_not_beat_each_other_and_order_strictly() -> None:
    for card in CARDS:
        assert not beats(card.index, card.index, card.suit)
        assert not beats(card.index, card.index, (card.suit + 1) % 4)
        assert not card < card
    assert Card.parse("AC") < Card.parse("TC") and not Card.parse("TC") < Card.parse("AC")


def test_double_pack() -> None:
    pack = PACKS[48]
    assert pack.copies == 2 and pack.size == 48 and len(pack.cards) == 48
    assert pack.cards[:24] == pack.cards[24:] == PACKS[24].cards
    assert pack.exchange_card(Suit.HEARTS) == Card.parse("9H") and pack.mask == PACKS[24].mask
    assert pack.sorted_indices == sorted(PACKS[24].sorted_indices * 2)
