"""The JavaScript starter kit (kits/js, issue 33 point 1): its own unit tests pass under ``node
--test``, it plays 20 matches against greedy in each profile through the real referee with no fault
and no wrong claim, and ``arena submit kits/js`` qualifies and registers it in the sandbox.

Every bot here is a real process started by the arena (the kit from its shipped ``bot.toml``). Where
``node`` is missing the tests skip saying so, except under ``CI=true``, where a missing toolchain is
a failure (issue 33 point 6).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.entrants.registry import Registry
from kit_matches import kit_bot, play_against_greedy, skip_or_fail


KIT = Path(__file__).resolve().parents[2] / "kits" / "js"
PROFILES = ("sixty_six", "schnapsen", "three_player", "four_player")


@pytest.fixture(autouse=True)
def node() -> str:
    """The ``node`` program; a skip naming what to install, or a failure under CI."""
    found = shutil.which("node")
    if found is None:
        skip_or_fail("the JavaScript kit needs Node.js (Debian: apt-get install nodejs); "
                     "node is not on PATH")
    return found


def test_the_kits_own_unit_tests_pass(node: str) -> None:
    run = subprocess.run([node, "--test", "test/"], cwd=KIT, capture_output=True, text=True,
                         timeout=240)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    passed = re.search(r"^# pass (\d+)$", run.stdout, re.MULTILINE)
    failed = re.search(r"^# fail (\d+)$", run.stdout, re.MULTILINE)
    assert passed and failed, run.stdout[-2000:]
    # A run that found no tests would pass too: the kit has dozens (every message kind, the count).
    assert int(passed.group(1)) >= 40 and failed.group(1) == "0"


@pytest.mark.slow
@pytest.mark.parametrize("profile_name", PROFILES)
def test_twenty_matches_against_greedy_without_fault_or_wrong_claim(profile_name: str,
                                                                     tmp_path: Path) -> None:
    play_against_greedy(kit_bot(KIT), profile_name, tmp_path, "kit-js")


@pytest.mark.slow
def test_arena_submit_registers_the_kit_as_shipped(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    monkeypatch.setenv("ARENA_DATA", str(data))  # the sandbox keeps the data folder from bots
    result = CliRunner().invoke(app, ["submit", str(KIT), "--data", str(data)])
    assert result.exit_code == 0, result.output
    assert "qualification of kit-js: PASSED" in result.output
    # Its manifest declares the three- and four-player variants: qualification played them.
    assert "three_player" in result.output and "four_player" in result.output
    with Registry.open(data) as registry:
        bot = registry.find("kit-js")
        assert bot is not None
