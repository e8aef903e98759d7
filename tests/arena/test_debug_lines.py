"""A bot's stderr in its match record, beside the decision it was written for (issue 33 point 4):
bounded, the rest counted, shown on the replay page's data at that step, and never published.

Every bot here is a real child process (``fixtures/clock_bot.py``, ``fixtures/bad_bot.py`` and the
bundled greedy); the browser's side of it is in ``test_replay_browser.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from arena.entrants.bot_specs import resolve_bot
from arena.game import profile
from arena.match.bot_process import Limits
from arena.match.records import read_record, replay_record
from arena.match.referee import BotSpec, MatchConfig, run_match
from arena.report.public import public_record_line
from arena.report.replay import page_data

FIXTURES = Path(__file__).parent / "fixtures"
FAST = Limits(decision_ms=400, startup_ms=3000)


def clock_bot(mode: str, name: str = "") -> BotSpec:
    return BotSpec(name or f"clock-{mode}", (sys.executable, str(FIXTURES / "clock_bot.py"), mode))


def play(bots: list[BotSpec], tmp_path: Path, limits: Limits = FAST, seed: int = 3) -> Path:
    record = tmp_path / "match.jsonl"
    run_match(bots, MatchConfig(rules=profile("sixty_six"), seed=seed, match_id="dbg",
                                limits=limits), record_path=record, log_dir=tmp_path / "logs")
    return record


def test_each_decisions_stderr_is_stored_with_that_decision(tmp_path):
    rec = read_record(play([clock_bot("debug"), resolve_bot("greedy")], tmp_path))
    replay_record(rec)  # the debug lines change nothing of the match
    assert rec.header["version"] == 3
    mine = [i for i, a in enumerate(rec.actions) if a["seat"] == 0]
    requests = [m["line"] for m in rec.messages
                if m["seat"] == 0 and m["dir"] == "out" and m["line"].split(" ")[0].endswith("?")]
    assert len(mine) == len(requests) >= 5
    by_decision = {d["decision"]: d for d in rec.debug if d["seat"] == 0}
    # Seat 0's k-th answer carries the lines it wrote for its k-th request, and only those.
    for k, (index, request) in enumerate(zip(mine, requests), 1):
        lines = by_decision[index]["lines"]
        assert f"decision {k}: {request}" in lines
        assert [line for line in lines if line.startswith("decision ")] == \
            [f"decision {k}: {request}"]
        assert by_decision[index]["dropped"] == 0
    # Before its first answer: the greeting's line too; after its last: a decision past the end.
    assert by_decision[mine[0]]["lines"][0] == "greeting"
    assert by_decision[len(rec.actions)]["lines"] == ["the end"]
    assert not [d for d in rec.debug if d["seat"] == 1]  # greedy writes nothing to stderr
    # The replay page's data has them at the frame of the step where that decision is shown.
    data = page_data(rec)
    shown = [(e["at"], line) for deal in data["deals"] for slot in deal["seen"][0]
             for e in slot.get("debug", []) for line in e["lines"]]
    assert [line for _, line in shown if line.startswith("decision ")] == \
        [f"decision {k}: {r}" for k, r in enumerate(requests, 1)]
    assert (f"before it answered {rec.actions[mine[0]]['action']}",
            f"decision 1: {requests[0]}") in shown
    assert ("after its last answer", "the end") in shown


def test_debug_lines_are_bounded_and_the_rest_counted(tmp_path):
    # 6,000 bytes at each request: 4 KB kept a decision, and here 20 KB a match.
    limits = Limits(decision_ms=400, startup_ms=3000, debug_match_bytes=20_000)
    rec = read_record(play([clock_bot("flood"), resolve_bot("greedy")], tmp_path, limits))
    flood = [d for d in rec.debug if d["seat"] == 0]
    decisions = sum(1 for a in rec.actions if a["seat"] == 0)
    assert decisions >= 8
    kept = [len("\n".join(d["lines"]).encode()) for d in flood]
    assert max(kept) <= 4096 and sum(kept) <= 20_000
    assert flood[0]["dropped"] >= 6000 + len("greeting\n") - 4096
    # Past the match's cap nothing more is kept, but every byte is still counted.
    assert flood[-2]["lines"] == [] and flood[-2]["dropped"] == 6000
    written = len("greeting\n") + 6000 * decisions + len("the end\n")
    assert written - 20_000 <= sum(d["dropped"] for d in flood) <= written - sum(kept)
    assert data_says_dropped(rec)


def data_says_dropped(rec) -> bool:
    """The page's data carries each decision's count of bytes not kept."""
    return any(e["dropped"] for deal in page_data(rec)["deals"] for slot in deal["seen"][0]
               for e in slot.get("debug", []))


def test_what_a_bot_wrote_before_its_fault_is_kept(tmp_path):
    bad = BotSpec("bad-crash", (sys.executable, str(FIXTURES / "bad_bot.py"), "crash"))
    rec = read_record(play([bad, resolve_bot("greedy")], tmp_path))
    assert rec.result is not None and rec.result["offender"] == 0
    lines = [line for d in rec.debug if d["seat"] == 0 for line in d["lines"]]
    assert "RuntimeError: bad bot crashed on purpose" in lines
    last = page_data(rec)["deals"][-1]["seen"][0][-1]
    assert any(e["at"] == "before its fault" and "RuntimeError: bad bot crashed on purpose" in
               e["lines"] for e in last["debug"])


def test_a_published_record_holds_no_debug_line(tmp_path):
    path = play([clock_bot("debug"), resolve_bot("greedy")], tmp_path)
    text = path.read_text(encoding="utf-8")
    assert '"type":"debug"' in text
    public = tmp_path / "public.jsonl"
    public.write_text("".join(public_record_line(line) for line in text.splitlines(True)),
                      encoding="utf-8")
    assert '"type":"debug"' not in public.read_text(encoding="utf-8")
    assert "decision 1:" not in public.read_text(encoding="utf-8")
    rec = read_record(public)
    assert rec.debug == []
    replay_record(rec)  # the same match, without its debug lines
    data = page_data(rec)
    assert not any("debug" in slot for deal in data["deals"] for seen in deal["seen"]
                   for slot in seen)
    # However a debug line is written, it is not published.
    assert public_record_line('{"seat": 0, "type": "debug", "lines": ["secret"]}\n') == ""
