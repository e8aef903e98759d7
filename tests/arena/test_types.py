"""Faults and endings are enums shared by every layer; the types that cross layers sit below the
referee (issue 14, STYLE.md "Our own house").

The enums' values are the words of PROTOCOL.md, the records and the store, so the tests compare
them with the specification's own tables, and check that a real match's result carries enum
members while its record and its stored rows keep the plain words.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arena.match.bot_process import Limits
from arena.entrants.bot_specs import resolve_bot
from arena.game import profile
from arena.game.match import MatchEnd
from arena.game.scoring import SettleReason
from arena.match.records import read_record
from arena.match.referee import MatchConfig, run_match
from arena.types import ScheduledMatch
from arena.results.store import Store
from arena.types import BotSpec, DealEnding, Fault, MatchEnding, MatchResult
from protocol import messages as m
from bot_procs import TAG

ROOT = Path(__file__).resolve().parents[2]
BAD_BOT = Path(__file__).parent / "fixtures" / "bad_bot.py"
FAST = Limits(decision_ms=400, startup_ms=3000)


def _words_of_table(section: str, end: str) -> set[str]:
    """The first column's words of the tables in PROTOCOL.md between two headings."""
    text = (ROOT / "protocol" / "PROTOCOL.md").read_text(encoding="utf-8")
    part = text[text.index(section):text.index(end)]
    return set(re.findall(r"^\| `([a-z_]+)` \|", part, re.MULTILINE))


# -- the enums are the specification's words ------------------------------------------------------

def test_fault_words_are_those_of_protocol_section_5() -> None:
    assert {str(f) for f in Fault} == _words_of_table("## 5. Faults", "## 6. Time")
    assert Fault is m.Fault  # one enum: the protocol's, not a copy


def test_deal_endings_are_the_settle_reasons_of_protocol_section_4_3() -> None:
    assert DealEnding is SettleReason
    assert {str(r) for r in DealEnding} == _words_of_table("### 4.3", "### 4.4")


def test_match_endings_are_the_engines_plus_no_contest_and_declined() -> None:
    assert {str(e) for e in MatchEnding} == {str(e) for e in MatchEnd} | {"no_contest", "declined"}
    assert all(MatchEnding(e) == e for e in MatchEnd)
    assert {str(e) for e in MatchEnd} == set(m.MATCH_END_REASONS)


# -- a real match: enum members in memory, the same words on disk ---------------------------------

def _bad(mode: str) -> BotSpec:
    return BotSpec(f"bad-{mode}", (sys.executable, str(BAD_BOT), mode, TAG))


def _play(bots: list[BotSpec], tmp_path: Path, name: str) -> tuple[MatchResult, Path]:
    config = MatchConfig(rules=profile("sixty_six"), seed=3, match_id=name, limits=FAST)
    record = tmp_path / f"{name}.jsonl"
    return run_match(bots, config, record_path=record, log_dir=tmp_path / "logs"), record


def _stored_rows(tmp_path: Path, results: list[MatchResult]) -> list[tuple[object, ...]]:
    store = Store.open(tmp_path / "results.sqlite")
    try:
        store.register_bots([("a", ["a"], ""), ("b", ["b"], "")])
        for order, result in enumerate(results):
            scheduled = ScheduledMatch(order=order, match_id=result.match_id, seats=("a", "b"),
                                       deal_set="d1", first_dealer=0, group=("a", "b"),
                                       set_index=order, seating=0)
            store.record_match(scheduled, result)
        return store.db.execute(
            "SELECT match_id, reason, typeof(reason), fault, typeof(fault) FROM matches "
            "ORDER BY sched_order").fetchall()
    finally:
        store.close()


def test_a_forfeit_carries_enum_members_and_stores_the_protocol_words(tmp_path) -> None:
    forfeit, forfeit_record = _play([_bad("illegal"), resolve_bot("greedy")], tmp_path, "forfeit")
    assert type(forfeit.reason) is MatchEnding and forfeit.reason is MatchEnding.FORFEIT
    assert type(forfeit.fault) is Fault and forfeit.fault is Fault.ILLEGAL_ACTION
    played, _ = _play([resolve_bot("greedy"), resolve_bot("random")], tmp_path, "played")
    assert played.reason is MatchEnding.TARGET and played.fault is None
    assert played.deals and all(type(d.settlement.reason) is DealEnding for d in played.deals)
    nobody, _ = _play([_bad("bad_ready"), _bad("bad_ready")], tmp_path, "nobody")
    assert nobody.reason is MatchEnding.NO_CONTEST and nobody.winner is None

    # The record's lines hold the plain words (json.dumps of a str enum is its value).
    lines = [json.loads(line) for line in forfeit_record.read_text().splitlines()]
    assert {"type": "fault", "fault": "illegal_action"}.items() <= \
        next(x for x in lines if x["type"] == "fault").items()
    result_line = read_record(forfeit_record).result
    assert result_line is not None
    assert (result_line["reason"], result_line["fault"]) == ("forfeit", "illegal_action")

    assert _stored_rows(tmp_path, [forfeit, played, nobody]) == [
        ("forfeit", "forfeit", "text", "illegal_action", "text"),
        ("played", "target", "text", None, "null"),
        ("nobody", "no_contest", "text", None, "null"),
    ]


# -- the import graph: types below the referee, match jobs below both runners ---------------------

def _modules_after_import(module: str) -> set[str]:
    """The arena modules a fresh interpreter has loaded after importing ``module``."""
    code = textwrap.dedent(f"""
        import sys
        import {module}
        print(" ".join(sorted(n for n in sys.modules if n.split(".")[0] in ("arena", "protocol"))))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=True).stdout
    return set(out.split())


@pytest.mark.parametrize("module", ["arena.types", "arena.results.store", "arena.entrants.registry",
                                    "arena.report", "arena.match.narrate", "arena.results.ratings",
                                    "arena.match.records"])
def test_readers_of_results_do_not_import_the_referee(module: str) -> None:
    loaded = _modules_after_import(module)
    assert module in loaded
    assert not loaded & {"arena.match.referee", "arena.match.bot_process", "arena.compete.tournament",
                         "arena.compete.cluster"}, sorted(loaded)


def test_match_jobs_sit_below_the_tournament_and_the_cluster() -> None:
    assert not _modules_after_import("arena.compete.match_job") & {"arena.compete.tournament", "arena.compete.cluster"}
    # cluster.py no longer takes anything from tournament.py: the circle is gone.
    assert "arena.compete.tournament" not in _modules_after_import("arena.compete.cluster")


def test_the_engine_stays_a_leaf() -> None:
    loaded = _modules_after_import("arena.game")
    assert loaded <= {"arena"} | {n for n in loaded if n.startswith("arena.game")}, sorted(loaded)


# -- every reader knows every ending ---------------------------------------------------------------

def test_the_narration_and_the_report_place_every_deal_ending() -> None:
    from arena.match.narrate import REASON_TEXT
    from arena.report.data import DEAL_ENDINGS, deal_ending

    assert set(REASON_TEXT) == set(DealEnding)
    for reason in DealEnding:
        for winner in (0, 1, None):
            assert deal_ending(reason, winner, 1, 0) in DEAL_ENDINGS, (reason, winner)


def test_the_report_page_words_every_match_ending() -> None:
    from arena.report.page import MATCH_ENDINGS

    # A forfeit is worded with its fault (page._match_row); every other ending has its own words.
    # A decline ends only an N-seat match, which tournaments (and so the report) do not play yet.
    assert set(MATCH_ENDINGS) == set(MatchEnding) - {MatchEnding.FORFEIT, MatchEnding.DECLINED}
