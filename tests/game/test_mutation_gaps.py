"""Rule cases that mutation testing of the whole of arena/game (issue 15, ``scripts/mutation.sh``)
showed no test pinned down. Each test names the rule it checks and the kind of mutant it kills; the
expected values come from RULES.md, not from the engine's output.
"""

from __future__ import annotations

from arena.game import DealState, EventKind
from arena.game.rules import FLAG_FIELDS, flag_section
from arena.game.scoring import SettleReason
from helpers import A, B, VU, deal, play

# -- vu_compat: the automatic claim at exactly 66 (RULES.md §13, §11 row 23) ------------------------

# Trump diamonds (KD up). A leads AS AH TD TC and B throws TS TH JD JC under them (phase 1: no
# obligation, §5.2): 21 + 21 + 12 + 12 = 66 card points after trick 4, 54 after trick 3.
VU_66 = ("AS AH TD TC QS", "TS TH JD JC KS", "KD")
THREE_TRICKS = "AS TS AH TH TD JD"


def test_vu_compat_no_auto_claim_below_66() -> None:
    """54 card points after trick 3: the deal goes on (the auto-claim needs 66, §7.3)."""
    state = play(deal(*VU_66, rules=VU), THREE_TRICKS)
    assert not state.is_over
    assert state.total(A) == 54 and state.to_act == A


def test_vu_compat_auto_claims_at_exactly_66() -> None:
    """§13: the trick winner with 66 ends the deal at once, exactly 66 included (kills the
    auto-claim's ``>= claim_target`` -> ``> claim_target``). B has no trick and no card point: with
    schwarz_test = zero_points that is schwarz, 3 game points (§7.3)."""
    state = play(deal(*VU_66, rules=VU), THREE_TRICKS + " TC JC")
    assert state.is_over
    s = state.settlement
    assert s is not None
    assert (s.reason, s.winner, s.claimant, s.game_points, s.totals) == (SettleReason.CLAIM, A, A, 3, (66, 0))
    # The deal ends with the fourth trick: no draw and no lead follow it.
    kinds = [e.kind for e in state.events()]
    assert kinds[-2:] == [EventKind.TRICK, EventKind.SETTLE]
    assert state.events()[-1].seat == A and state.events()[-1].value == 3


def test_vu_compat_auto_claim_by_seat_1() -> None:
    """The same deal with the hands swapped: the dealer (seat 1) reaches 66 and is the claimant."""
    # A leads low cards into B's aces and tens: B wins every trick and then leads the rest.
    state = deal("TS TH JD JC KS", "AS AH TD TC QS", "KD", rules=VU)
    state = play(state, "TS AS AH TH TD JD TC JC")
    assert state.is_over
    s = state.settlement
    assert s is not None and isinstance(state, DealState)
    assert (s.reason, s.winner, s.claimant, s.totals) == (SettleReason.CLAIM, B, B, (0, 66))


# -- arena rules show: where each flag is defined ----------------------------------------------------


def test_flag_sections_name_section_10_4_for_the_n_player_flags() -> None:
    """claim_target and must_beat_partner come from RULES.md §10.4 (§11 row 35 is only
    ``players``); every other flag is its §11 row."""
    assert flag_section("claim_target") == "§10.4"
    assert flag_section("must_beat_partner") == "§10.4"
    assert flag_section("players") == "§11.35"
    assert flag_section("deck_size") == "§11.1"
    assert flag_section("illegal_move_policy") == "§11.34"
    for name, f in FLAG_FIELDS.items():
        if name not in ("claim_target", "must_beat_partner"):
            assert flag_section(name) == f"§11.{f.metadata['row']}"
