"""The replay page's data (issue 17): real matches between real bot processes (the C bots and
``fixtures/bad_bot.py``, which claims wrongly, never claims or plays an illegal card on purpose),
their records turned into pages, and every figure checked against the engine and the referee's own
counts. ``test_replay_browser.py`` opens such a page in Chromium."""

from __future__ import annotations

import json
import re
import sys
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.match.bot_process import Limits
from arena.entrants.bot_specs import resolve_bot
from arena.cli.main import app
from arena.game import profile
from arena.match.records import read_record, replay_record
from arena.match.referee import BotSpec, MatchConfig, run_match
from arena.report.replay import page_data, replay_page, write_replays

BAD_BOT = Path(__file__).parent / "fixtures" / "bad_bot.py"
FAST = Limits(decision_ms=400, startup_ms=3000)
SESSION = uuid.uuid4().hex  # marks this file's bad bots for the leftover-process check
runner = CliRunner()


def bad(mode: str) -> BotSpec:
    return BotSpec(f"bad-{mode}", (sys.executable, str(BAD_BOT), mode, SESSION))


@pytest.fixture(scope="module")
def matches(tmp_path_factory) -> dict[str, tuple[Path, object]]:
    """Five real matches, each kept as (record, result): cheap bots, about a second in all."""
    folder = tmp_path_factory.mktemp("replays")
    plays = {
        # seat 0 claims at its first window whatever it holds: wrong claims, and right ones
        "wrong": ([bad("wrong_claim"), resolve_bot("c-counter")], "sixty_six", 2),
        # seat 0 never claims: with these cards it lets two windows pass holding 66 (seed 4)
        "missed": ([bad("never_claims"), resolve_bot("first-legal-c")], "sixty_six", 4),
        # seat 1 answers a card it does not hold: a fault that forfeits the match
        "fault": ([resolve_bot("c-counter"), bad("illegal")], "sixty_six", 2),
        "three": ([resolve_bot("c-counter"), bad("wrong_claim"), resolve_bot("c-counter")],
                  "three_player", 3),
        "four": ([resolve_bot("c-counter"), resolve_bot("first-legal"), resolve_bot("c-counter"),
                  bad("never_claims")], "four_player", 3),
        # stopped by the referee's cap on deals, after deal 2
        "limit": ([resolve_bot("c-counter"), resolve_bot("first-legal-c")], "sixty_six", 5),
    }
    out = {}
    for name, (bots, rules, seed) in plays.items():
        record = folder / f"{name}.jsonl"
        result = run_match(bots, MatchConfig(rules=profile(rules), seed=seed, match_id=name,
                                             limits=FAST, max_deals=2 if name == "limit" else 200),
                           record_path=record, log_dir=folder / "logs")
        out[name] = (record, result)
    return out


def notes(data: dict, kind: str) -> list[str]:
    return [text for deal in data["deals"] for frame in deal["frames"]
            for cls, text in frame.get("notes", []) if cls == kind]


def words(lines: list[str]) -> set[str]:
    return {w for line in lines for w in re.split(r"[ :]", line)}


@pytest.mark.parametrize("name", ["wrong", "three", "four"])
def test_every_trick_is_the_engines(matches, name):
    record, _ = matches[name]
    rec = read_record(record)
    state = replay_record(rec)
    data = page_data(rec)
    players = rec.rules.players
    assert [d["no"] for d in data["deals"]] == [r.deal_no for r in state.results]
    for deal, result in zip(data["deals"], state.results):
        frames = deal["frames"]
        assert frames[0]["k"] == "start" and frames[-1]["k"] == "end"
        tricks = [f for f in frames if f["k"] == "trick"]
        engine = [e for e in result.final.events() if str(e.kind) == "trick"]
        assert len(tricks) == len(engine) == sum(result.settlement.tricks)
        for frame, event in zip(tricks, engine):
            assert len(frame["plays"]) == players and frame["won"] == event.seat
            assert [c for _, c in frame["plays"]] == [str(c) for c in event.cards]
            assert frame["plays"][0][0] == frame["lead"]
            # Each seat held the card it played when the trick began.
            for seat, card in frame["plays"]:
                assert card in frame["hands"][seat].split()
        assert frames[-1]["totals"] == list(result.settlement.totals)
        assert deal["trump"] == "CSHD"[int(result.final.trump)]
        assert sum(len(h.split()) for h in frames[0]["hands"]) == players * rec.rules.hand_size


@pytest.mark.parametrize("name", ["wrong", "three", "four"])
def test_claims_say_right_or_wrong_with_the_true_totals(matches, name):
    record, result = matches[name]
    rec = read_record(record)
    state = replay_record(rec)
    data = page_data(rec)
    wrong = notes(data, "claim-wrong")
    assert len(wrong) == sum(s.wrong_claims for s in result.seats) > 0
    assert len(notes(data, "claim-ok")) == sum(s.correct_claims for s in result.seats)
    for deal, res in zip(data["deals"], state.results):
        claim = [t for f in deal["frames"] for c, t in f.get("notes", []) if c.startswith("claim")]
        if res.settlement.claimant is None:
            assert not claim
            continue
        # A claim ends the deal at once: the totals at that moment are the settlement's.
        figures = "–".join(map(str, res.settlement.totals))
        assert claim == [claim[0]] and f"true totals {figures}" in claim[0]
        assert ("WRONG" in claim[0]) == (str(res.settlement.reason) in ("wrong_claim",
                                                                         "close_failed"))


def test_missed_claim_windows_are_the_referees(matches):
    record, result = matches["missed"]
    missed = notes(page_data(read_record(record)), "missed")
    assert len(missed) == sum(s.missed_claims for s in result.seats) == 2
    assert all(m.startswith("bad-never_claims could claim with ") for m in missed)
    four_record, four = matches["four"]
    assert len(notes(page_data(read_record(four_record)), "missed")) == \
        sum(s.missed_claims for s in four.seats)


def test_a_fault_is_shown_where_the_match_stopped(matches):
    record, result = matches["fault"]
    data = page_data(read_record(record))
    assert result.reason == "forfeit" and result.fault == "illegal_action"
    last = data["deals"][-1]["frames"][-1]
    faults = [t for c, t in last["notes"] if c == "fault"]
    assert len(faults) == 1 and faults[0].startswith("fault by bad-illegal: illegal_action")
    assert "offending line: " in faults[0]
    assert "bad-illegal forfeits (illegal_action" in data["outcome"]


@pytest.mark.parametrize("name", ["wrong", "four", "fault"])
def test_a_seat_sees_only_what_the_referee_sent_it(matches, name):
    record, _ = matches[name]
    rec = read_record(record)
    data = page_data(rec)
    for seat in range(rec.rules.players):
        sent = [m["line"] for m in rec.messages if m["seat"] == seat and m["dir"] == "out"]
        seen = [line for deal in data["deals"] for frames in [deal["seen"][seat]]
                for frame in frames for line in frame["lines"]]
        # Every line it was sent, in order, and nothing else (the handshake's greeting and the
        # last match_end included).
        assert seen == [line for line in sent]
        for deal in data["deals"]:
            for frame, view in zip(deal["frames"], deal["seen"][seat]):
                assert set(view) <= {"lines", "hand", "up", "stock", "sizes"}  # no hands, totals
                # Its hand as its lines told it, the engine's hand at that moment.
                assert sorted(view["hand"].split()) == sorted(frame["hands"][seat].split())
            # What it was told before the first card: no card of another hand.
            start = deal["seen"][seat][0]
            others = {c for s, h in enumerate(deal["frames"][0]["hands"]) if s != seat
                      for c in h.split()}
            if rec.rules.pack.copies == 1:
                assert not others & (words(start["lines"]) | set(start["hand"].split()))


def test_text_from_bots_cannot_become_markup(matches, tmp_path):
    record, _ = matches["fault"]
    hostile = '</script><img src=x onerror="alert(1)"><!--&amp;'
    lines = record.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["bots"][1]["name"] = hostile
    faults = [json.loads(line) for line in lines if '"type":"fault"' in line]
    assert faults
    crafted = tmp_path / "hostile.jsonl"
    crafted.write_text("\n".join(
        json.dumps(header) if i == 0 else
        json.dumps({**json.loads(line), "line": hostile, "detail": hostile})
        if '"type":"fault"' in line else line
        for i, line in enumerate(lines)) + "\n", encoding="utf-8")
    page = replay_page(read_record(crafted))
    assert "<img" not in page and "<!--" not in page
    assert page.count("</script>") == 2  # the JSON block's and the script's own
    block = re.search(r'<script type="application/json" id="match-data">(.*?)</script>', page,
                      re.S).group(1)
    data = json.loads(block)
    assert data["names"][1] == hostile and hostile in data["outcome"]
    assert any(hostile in text for _, text in data["deals"][-1]["frames"][-1]["notes"])
    assert "&lt;/script&gt;&lt;img" in page.split("<title>")[1].split("</title>")[0]


def test_pages_stay_small(matches):
    for name in ("wrong", "four"):
        record, _ = matches[name]
        size = len(replay_page(read_record(record)).encode())
        assert size < 150_000, (name, size)


def test_arena_replay_html_writes_the_page_or_nothing(matches, tmp_path):
    record, _ = matches["three"]
    out = tmp_path / "page" / "three.html"
    result = runner.invoke(app, ["replay", str(record), "--html", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert not list(out.parent.glob(".*"))  # no partial file left
    # A record whose actions do not replay: one error line, exit 2, no page.
    broken = tmp_path / "broken.jsonl"
    text = record.read_text(encoding="utf-8")
    first = re.search(r'"type":"action",[^\n]*?"action":"(play:\w\w)"', text).group(1)
    broken.write_text(text.replace(f'"action":"{first}"', '"action":"play:XX"', 1),
                      encoding="utf-8")
    bad_out = tmp_path / "broken.html"
    result = runner.invoke(app, ["replay", str(broken), "--html", str(bad_out)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1 and "error" in result.output
    assert not bad_out.exists()


def test_replay_pages_are_rewritten_only_when_their_record_changes(matches, tmp_path):
    record, _ = matches["wrong"]
    copy = tmp_path / "records" / "m.jsonl"
    copy.parent.mkdir()
    copy.write_bytes(record.read_bytes())
    out = tmp_path / "report"
    assert write_replays([("records/m.jsonl", copy)], out) == {"records/m.jsonl": "replays/m.html"}
    page = out / "replays" / "m.html"
    first = page.stat().st_mtime_ns
    page.write_text(page.read_text(encoding="utf-8") + "<!-- kept -->", encoding="utf-8")
    write_replays([("records/m.jsonl", copy)], out)
    assert page.read_text(encoding="utf-8").endswith("<!-- kept -->")  # not rebuilt
    assert page.stat().st_mtime_ns >= first
    copy.write_bytes(matches["three"][0].read_bytes())  # the record changed: a new page
    write_replays([("records/m.jsonl", copy)], out)
    assert not page.read_text(encoding="utf-8").endswith("<!-- kept -->")
    assert '"players":3' in page.read_text(encoding="utf-8")
    # A record that does not replay gets no page, and no link.
    (tmp_path / "records" / "bad.jsonl").write_text("{}\n", encoding="utf-8")
    assert "records/bad.jsonl" not in write_replays(
        [("records/bad.jsonl", tmp_path / "records" / "bad.jsonl")], out)


def test_a_match_stopped_at_the_deal_limit_replays(matches):
    # Regression: the engine sets up the deal after the last one, which the record never dealt;
    # replaying such a record failed ("the match needs deal 3 but only 2 orders were given").
    record, result = matches["limit"]
    assert result.reason == "deal_limit"
    data = page_data(read_record(record))
    assert [d["no"] for d in data["deals"]] == [1, 2]  # and no deal 3 that was never dealt
    assert data["outcome"].startswith("the deal limit ended the match")
    printed = runner.invoke(app, ["replay", str(record)])
    assert printed.exit_code == 0, printed.output
    assert printed.output.strip().splitlines()[-1].startswith("the deal limit ended the match: ")
