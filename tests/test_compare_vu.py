"""``scripts/bench_vu.py --records`` and ``scripts/compare_vu.py``: two runs side by side.

The records come from real matches (bot processes, the referee) between the strong bot and greedy
standing in for the package's bot, which CI does not install: ``record`` reads the same fields
from any match. The comparison's figures are checked against differences worked out by hand.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
sys.path.insert(0, str(SCRIPTS))

import bench_vu  # noqa: E402
from _pairs import duplicate, play_all  # noqa: E402

from arena.entrants.bot_specs import resolve_bot  # noqa: E402
from arena.game import load_rules  # noqa: E402


def compare(tmp_path: Path, old: list[dict], new: list[dict]) -> subprocess.CompletedProcess:
    for name, records in (("old", old), ("new", new)):
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return subprocess.run([sys.executable, str(SCRIPTS / "compare_vu.py"),
                           str(tmp_path / "old.jsonl"), str(tmp_path / "new.jsonl")],
                          capture_output=True, text=True, timeout=60)


def deal(pair: int, seating: int, mine: int, theirs: int, **extra) -> dict:
    """A one-deal match's record: the strong bot scored ``mine`` game points, the other ``theirs``."""
    record = {"pair": f"bench-vu/1/deal/{pair}", "seating": seating, "kind": "deal",
              "won": mine > theirs, "drawn": False, "game_points": [mine, theirs],
              "first_deal_won": mine > theirs, "deals": 1, "fault": None, "wrong_claims": 0,
              "disagreements": 0, "decision_ms": [10.0, 20.0], "strong": "strong"}
    return record | extra


@pytest.mark.slow
def test_records_of_real_matches_compare_to_no_change_with_themselves(tmp_path):
    strong = resolve_bot("strong --worlds 4", name=bench_vu.STRONG)
    greedy = resolve_bot("greedy")
    games = [g for k in range(2)
             for g in duplicate(f"test-compare/{k}", strong, greedy, load_rules("vu_compat"))]
    written: list[dict] = []
    plays = play_all(games, 2, 10_000, each=lambda p: written.append(bench_vu.record(p, "greedy")))
    assert len(written) == 4  # one per match, as each ended
    for played in plays:
        record = bench_vu.record(played, "greedy")
        seat = played.seat_of(bench_vu.STRONG)
        assert record["pair"] == played.game.pair and record["seating"] == played.game.seating
        assert record["kind"] == "deal"
        assert record["game_points"] == [played.result.game_points[seat],
                                         played.result.game_points[1 - seat]]
        assert record["first_deal_won"] == (played.result.deals[0].settlement.winner == seat)
        assert record["deal_results"] == [[record["first_deal_won"], record["game_points"][0]
                                           or record["game_points"][1]]]
        assert record["decision_ms"] == list(played.result.seats[seat].decision_ms)
        assert record["fault"] is None and record["disagreements"] == 0
        assert "--worlds 4" in record["strong"]
        assert json.loads(json.dumps(record)) == record
    done = compare(tmp_path, written, written)
    assert done.returncode == 0, done.stderr
    assert "over 2 duplicate pairs (0 changed)" in done.stdout
    assert "net game points a deal: +0.000" in done.stdout


@pytest.mark.slow
def test_a_match_to_seven_records_each_deal_as_the_strong_bot_saw_it():
    strong = resolve_bot("strong --worlds 4", name=bench_vu.STRONG)
    games = duplicate("test-compare/match/0", resolve_bot("greedy"), strong,
                      load_rules("vu_compat", overrides={"match_target": 7}))
    for played in play_all(games, 2, 10_000):
        record = bench_vu.record(played, "greedy")
        deals = record["deal_results"]
        assert record["kind"] == "match" and len(deals) == record["deals"] > 1
        assert deals[0][0] == record["first_deal_won"]
        # Summed deal by deal, the game points are the match's (vu_compat has no draws).
        assert [sum(g for won, g in deals if won), sum(g for won, g in deals if not won)] \
            == record["game_points"]
        assert max(record["game_points"]) >= 7 and record["won"] == deals[-1][0]


def test_the_difference_is_new_minus_old_per_pair(tmp_path):
    # Pair 0: old won one deal by 1 and lost one by 2 (net -1 over 2 deals), new won both by 1
    # (net +2): +1.5 a deal, +50 points of the deals won. Pair 1: the same in both. Pair 2:
    # old won both by 3, new won one by 3 and lost one by 1: -2 a deal, -50 points.
    old = [deal(0, 0, 1, 0), deal(0, 1, 0, 2), deal(1, 0, 2, 0), deal(1, 1, 0, 1),
           deal(2, 0, 3, 0), deal(2, 1, 3, 0)]
    new = [deal(0, 0, 1, 0), deal(0, 1, 1, 0), deal(1, 0, 2, 0), deal(1, 1, 0, 1),
           deal(2, 0, 3, 0), deal(2, 1, 0, 1)]
    done = compare(tmp_path, old, new)
    assert done.returncode == 0, done.stderr
    assert "over 3 duplicate pairs (2 changed)" in done.stdout
    assert "net game points a deal: -0.167" in done.stdout   # (1.5 + 0 - 2) / 3
    assert "deals won: +0.0 points" in done.stdout           # (50 + 0 - 50) / 3
    assert "old: 6 matches; won 4 (66.7%); game points 9 - 3" in done.stdout


def test_only_pairs_both_runs_played_whole_are_compared(tmp_path):
    old = [deal(0, 0, 1, 0), deal(0, 1, 1, 0), deal(1, 0, 1, 0), deal(1, 1, 1, 0),
           deal(2, 0, 1, 0)]
    new = [deal(0, 0, 0, 1), deal(0, 1, 0, 1), deal(1, 0, 0, 1), deal(1, 1, 0, 1),
           deal(2, 0, 0, 1), deal(2, 1, 0, 1)]
    done = compare(tmp_path, old, new)
    assert "over 2 duplicate pairs (2 changed)" in done.stdout
    assert "deals won: -100.0 points" in done.stdout


def test_matches_to_seven_count_matches_and_draws_count_half(tmp_path):
    def match(pair, seating, won, drawn=False):
        return deal(pair, seating, 7 if won else 3, 3 if won else 7, kind="match", won=won,
                    drawn=drawn) | {"pair": f"bench-vu/1/match/{pair}"}
    old = [match(0, 0, True), match(0, 1, False), match(1, 0, True), match(1, 1, True)]
    new = [match(0, 0, True), match(0, 1, True), match(1, 0, True), match(1, 1, False, True)]
    done = compare(tmp_path, old, new)
    assert "matches won: +12.5 points" in done.stdout  # (+50 - 25) / 2
    assert "net game points a match: +0.000" in done.stdout  # (+4 - 4) / 2


def test_a_run_with_a_fault_or_a_disagreement_is_not_trusted(tmp_path):
    old = [deal(0, 0, 1, 0), deal(0, 1, 1, 0), deal(1, 0, 1, 0), deal(1, 1, 1, 0)]
    new = old[:3] + [deal(1, 1, 0, 1, disagreements=1)]
    done = compare(tmp_path, old, new)
    assert done.returncode == 1
    assert "disagreements 1" in done.stdout


def test_one_deal_pairs_and_matches_to_seven_are_not_compared(tmp_path):
    old = [deal(0, 0, 1, 0), deal(0, 1, 1, 0), deal(1, 0, 1, 0), deal(1, 1, 1, 0)]
    new = [r | {"kind": "match"} for r in old]
    assert "not comparable" in compare(tmp_path, old, new).stdout


@pytest.mark.parametrize("content, message", [
    (None, "cannot read"), ("", "no records in"), ("not json\n", "line 1: not a bench_vu.py record"),
    ('{"pair": "p"}\n', "line 1: not a bench_vu.py record")])
def test_an_unreadable_records_file_is_one_line_and_status_2(tmp_path, content, message):
    bad = tmp_path / "bad.jsonl"
    if content is not None:
        bad.write_text(content)
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps(deal(0, 0, 1, 0)) + "\n")
    done = subprocess.run([sys.executable, str(SCRIPTS / "compare_vu.py"), str(bad), str(good)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_a_fault_in_the_bench_says_what_the_bot_said_last(tmp_path):
    # The adapter without its package (as with a .venv-vu the bot cannot reach): every match a
    # fault, and the bench's list of faults must say why, not only "exited with status 2".
    from bots.vu_adapter.environment import adapter_command
    from arena.types import BotSpec

    missing = BotSpec("vu-rdeep", tuple(adapter_command(tmp_path / "no-site", "--bot", "bully")))
    strong = resolve_bot("strong --worlds 4", name=bench_vu.STRONG)
    played = play_all(duplicate("test-fault/0", strong, missing, load_rules("vu_compat"))[:1],
                      1, 10_000)[0]
    assert played.result.fault is not None
    audit = bench_vu.Audit()
    audit.add(played, "vu-rdeep")
    assert len(audit.faults) == 1
    assert "its stderr ends: vu_adapter: error: the schnapsen package is not installed" \
        in audit.faults[0], audit.faults[0]
    assert bench_vu.record(played, "vu-rdeep")["fault"] is not None
