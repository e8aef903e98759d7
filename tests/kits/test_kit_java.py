"""The Java starter kit (kits/java, issue 33 point 1): it builds with ``javac`` alone, its own unit
tests pass (``sh test.sh``), it plays 20 matches against greedy in each profile through the real
referee with no fault and no wrong claim, and ``arena submit kits/java`` builds it in the sandbox,
qualifies and registers it.

Every bot here is a real process started by the arena (the kit from its shipped ``bot.toml``). The
kit is built in a copy of its sources, so the tests leave the checkout as they found it. Where the
JDK is missing the tests skip saying so, except under ``CI=true``, where a missing toolchain is a
failure (issue 33 point 6).
"""

from __future__ import annotations

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


KIT = Path(__file__).resolve().parents[2] / "kits" / "java"
PROFILES = ("sixty_six", "schnapsen", "three_player", "four_player")
BUILT = ("classes", "build")  # what build.sh and test.sh make


@pytest.fixture(autouse=True)
def jdk() -> None:
    """A skip naming what to install where javac or java is missing, or a failure under CI."""
    missing = [tool for tool in ("javac", "java") if shutil.which(tool) is None]
    if missing:
        skip_or_fail(f"the Java kit needs a JDK (Debian: apt-get install default-jdk-headless); "
                     f"{' and '.join(missing)} not on PATH")


def _sources(into: Path) -> Path:
    return kit_sources(KIT, into, BUILT)


@pytest.fixture(scope="module")
def tested(tmp_path_factory: pytest.TempPathFactory) -> KitTests:
    """A clean copy after ``sh test.sh``: it runs build.sh (checked below), then builds the unit
    tests and runs them. The matches play these classes rather than a second javac of the kit."""
    return run_kit_tests(KIT, tmp_path_factory.mktemp("kit-java") / "java", BUILT)


@pytest.fixture(scope="module")
def built(tested: KitTests) -> Path:
    assert (tested.folder / "classes").is_dir(), \
        tested.run.stdout[-2000:] + tested.run.stderr[-2000:]
    return tested.folder


def test_the_kit_builds_with_javac_alone(tested: KitTests, built: Path) -> None:
    assert (built / "classes" / "kit" / "Main.class").is_file()
    assert (built / "classes" / "kit" / "SampleBot.class").is_file()
    # The classes the matches play are the manifest's build (sh build.sh): test.sh ran that line.
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
    play_against_greedy(kit_bot(built), profile_name, tmp_path, "kit-java")


@pytest.mark.slow
def test_arena_submit_builds_and_registers_the_kit_as_shipped(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    data = tmp_path / "data"
    monkeypatch.setenv("ARENA_DATA", str(data))  # the sandbox keeps the data folder from bots
    folder = _sources(tmp_path / "java")  # no classes/: the build in the sandbox must make them
    result = CliRunner().invoke(app, ["submit", str(folder), "--data", str(data)])
    assert result.exit_code == 0, result.output
    assert "qualification of kit-java: PASSED" in result.output
    # Its manifest declares the three- and four-player variants: qualification played them.
    assert "three_player" in result.output and "four_player" in result.output
    with Registry.open(data) as registry:
        bot = registry.find("kit-java")
        assert bot is not None
        assert bot.folder is not None and (bot.folder / "classes" / "kit" / "Main.class").is_file()
