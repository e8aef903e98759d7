"""The C++ starter kit (kits/cpp, issue 33 point 1): it builds with ``g++`` and the standard library
alone, its own unit tests pass (``sh test.sh``), it plays 20 matches against greedy in each profile
through the real referee with no fault and no wrong or missed claim, ``arena check kits/cpp`` passes,
and ``arena submit kits/cpp`` builds it in the sandbox, qualifies and registers it.

Every bot here is a real process started by the arena (the kit from its shipped ``bot.toml``). The
kit is built in a copy of its sources, so the tests leave the checkout as they found it. Where g++
is missing the tests skip saying so, except under ``CI=true``, where a missing toolchain is a
failure (issue 33 point 6).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.entrants.manifest import load_manifest
from arena.entrants.registry import Registry
from kit_matches import (KitTests, kit_bot, kit_sources, play_against_greedy, skip_or_fail,
                         run_kit_tests, traced)


KIT = Path(__file__).resolve().parents[2] / "kits" / "cpp"
# The first test sets up test.sh's run: two g++ lines of some 16 s of CPU each, which took over
# 2 minutes each at a load of 12. pytest-timeout counts the setup as that test's: 300 s is too
# short on a shared machine, so this file's tests get twice that (its matches take a fraction).
pytestmark = pytest.mark.timeout(600)
PROFILES = ("sixty_six", "schnapsen", "three_player", "four_player")
BUILT = ("bot", "kit-tests")  # what the build and test.sh make


def _require_gxx() -> None:
    """A skip naming what to install where g++ is missing, or a failure under CI."""
    if shutil.which("g++") is None:
        skip_or_fail("the C++ kit needs g++ (Debian: apt-get install g++); g++ is not on PATH")


@pytest.fixture(autouse=True)
def gxx() -> None:
    _require_gxx()


def _sources(into: Path) -> Path:
    return kit_sources(KIT, into, BUILT)


@pytest.fixture(scope="module")
def tested(tmp_path_factory: pytest.TempPathFactory) -> KitTests:
    """A clean copy after ``sh test.sh``: it builds ./bot by the manifest's own build line (checked
    below), then the unit tests, and runs them. Each g++ line costs some 16 s of CPU: the matches
    play this ./bot rather than a second build of the same line."""
    _require_gxx()  # a module fixture is set up before the autouse one: skip (or fail) here too
    return run_kit_tests(KIT, tmp_path_factory.mktemp("kit-cpp") / "cpp", BUILT, timeout=540)


@pytest.fixture(scope="module")
def built(tested: KitTests) -> Path:
    assert (tested.folder / "bot").is_file(), tested.run.stdout[-2000:] + tested.run.stderr[-2000:]
    return tested.folder


def test_the_kit_builds_with_gxx_alone(tested: KitTests, built: Path) -> None:
    assert (built / "bot").is_file() and os.access(built / "bot", os.X_OK)
    # The ./bot the matches play is the one the manifest's build line makes: test.sh ran that line.
    build = load_manifest(KIT).build
    assert traced(tested.run, build), (build, tested.run.stderr[-2000:])


def test_the_kits_own_unit_tests_pass(tested: KitTests) -> None:
    run = tested.run
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    passed = re.search(r"^# pass (\d+)$", run.stdout, re.MULTILINE)
    failed = re.search(r"^# fail (\d+)$", run.stdout, re.MULTILINE)
    assert passed and failed, run.stdout[-2000:]
    # A run that found no tests would prove nothing: the kit has dozens (every message kind, the
    # count on the protocol's examples, the claim at exactly the target).
    assert int(passed.group(1)) >= 40 and failed.group(1) == "0"


@pytest.mark.slow
@pytest.mark.parametrize("profile_name", PROFILES)
def test_twenty_matches_against_greedy_without_fault_or_wrong_claim(profile_name: str,
                                                                     built: Path,
                                                                     tmp_path: Path) -> None:
    play_against_greedy(kit_bot(built), profile_name, tmp_path, "kit-cpp")


@pytest.mark.slow
def test_arena_check_passes_on_the_kit_as_shipped(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    monkeypatch.setenv("ARENA_DATA", str(data))
    folder = _sources(tmp_path / "cpp")  # no bot: the check builds it in the sandbox
    result = CliRunner().invoke(app, ["check", str(folder), "--data", str(data)])
    assert result.exit_code == 0, result.output
    # It declares every profile: the battery ran the three- and four-player situations too.
    assert "three_player" in result.output and "four_player" in result.output, result.output


@pytest.mark.slow
def test_arena_submit_builds_and_registers_the_kit_as_shipped(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    data = tmp_path / "data"
    monkeypatch.setenv("ARENA_DATA", str(data))  # the sandbox keeps the data folder from bots
    folder = _sources(tmp_path / "cpp")  # no bot: the build in the sandbox must make it
    result = CliRunner().invoke(app, ["submit", str(folder), "--data", str(data)])
    assert result.exit_code == 0, result.output
    assert "qualification of kit-cpp: PASSED" in result.output
    # Its manifest declares the three- and four-player variants: qualification played them.
    assert "three_player" in result.output and "four_player" in result.output
    with Registry.open(data) as registry:
        bot = registry.find("kit-cpp")
        assert bot is not None
        assert bot.folder is not None and (bot.folder / "bot").is_file()
