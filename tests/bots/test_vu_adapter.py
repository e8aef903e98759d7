"""bots/vu_adapter and scripts/ladder.py (issue 35). The adapter's tests need the schnapsen package
in .venv-vu (scripts/bench_vu.py makes it); it is not part of the test install (requirements-vu.txt
says why), so without it they skip, under CI too."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.game import load_rules
from arena.match.bot_process import Limits
from arena.match.referee import MatchConfig, run_match
from arena.entrants.bot_specs import resolve_bot
from arena.types import BotSpec
from bots.vu_adapter.environment import adapter_command, vu_site

ROOT = Path(__file__).resolve().parents[2]
SITE = vu_site()
needs_package = pytest.mark.skipif(SITE is None, reason="the schnapsen package is not in .venv-vu")


@needs_package
@pytest.mark.parametrize("target", [1, 7])
def test_the_adapter_plays_legal_full_matches_under_vu_compat(tmp_path, target):
    assert SITE is not None
    vu = BotSpec("vu-bully-ab", tuple(adapter_command(SITE, "--bot", "bully")))
    rules = load_rules("vu_compat", overrides={"match_target": target})
    for k, bots in enumerate([[vu, resolve_bot("greedy")], [resolve_bot("random"), vu]]):
        result = run_match(bots, MatchConfig(rules=rules, seed=f"vu-test/{k}", match_id=f"m{k}",
                                             limits=Limits(decision_ms=10_000)), log_dir=tmp_path)
        assert result.fault is None, result.detail
        assert max(result.game_points) >= target
        seat = bots.index(vu)
        log = (tmp_path / f"m{k}.seat{seat}.stderr.log").read_text()
        assert "no disagreement" in log and f"{len(result.deals)} deal results" in log


@needs_package
def test_the_package_found_through_a_symbolic_link_is_found_by_the_bot_too(tmp_path):
    # A second checkout whose .venv-vu links to the first one's: the bot's root holds the real
    # folder only (the allow-list resolves every path), so the adapter must be given that one.
    assert SITE is not None
    link = tmp_path / "site"
    link.symlink_to(SITE, target_is_directory=True)
    vu = BotSpec("vu-bully-ab", tuple(adapter_command(link, "--bot", "bully")))
    result = run_match([vu, resolve_bot("greedy")],
                       MatchConfig(rules=load_rules("vu_compat"), seed="vu-test/link",
                                   match_id="link", limits=Limits(decision_ms=10_000)),
                       log_dir=tmp_path)
    assert result.fault is None, (result.detail,
                                  (tmp_path / "link.seat0.stderr.log").read_text()[-500:])


def test_the_ladder_runs_at_a_tiny_size():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "ladder.py"), "--bots",
                           "random,greedy", "--pairs", "1"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "| greedy" in done.stdout and "| random" in done.stdout and "faults 0" in done.stdout


def test_the_ladder_refuses_an_unknown_bot_in_one_line():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "ladder.py"), "--bots",
                           "random,nosuch"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "nosuch" in done.stderr
