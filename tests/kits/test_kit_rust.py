"""The Rust starter kit (kits/rust, issue 33 point 1): it builds with ``cargo --offline`` alone (no
crate), its own unit tests pass (``cargo test``), it plays 20 matches against greedy in each profile through the real
referee with no fault and no wrong or missed claim, ``arena check kits/rust`` passes, and
``arena submit kits/rust`` builds it in the sandbox, qualifies and registers it.

Every bot here is a real process started by the arena (the kit from its shipped ``bot.toml``). The
kit is built in a copy of its sources, so the tests leave the checkout as they found it. The tests
find cargo on PATH (a rustup one will do) or Debian's /usr/bin/cargo; the sandbox's build finds
only what is on its own PATH (``BOT_PATH``: Debian's cargo, never a user's rustup). Where cargo is
missing the tests skip saying so, except under ``CI=true``, where a missing toolchain is a failure
(issue 33 point 6).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.entrants.registry import Registry
from arena.isolation.launcher import BOT_PATH
from kit_matches import built_kit, kit_bot, kit_sources, play_against_greedy, skip_or_fail


KIT = Path(__file__).resolve().parents[2] / "kits" / "rust"
PROFILES = ("sixty_six", "schnapsen", "three_player", "four_player")
BUILT = ("bot", "target")  # what build.sh and cargo test make
DEBIAN_CARGO = "/usr/bin/cargo"


@pytest.fixture(scope="module", autouse=True)
def cargo() -> str:
    """The cargo the tests build with; a skip naming what to install where there is none, or a
    failure under CI."""
    found = shutil.which("cargo") or (DEBIAN_CARGO if os.access(DEBIAN_CARGO, os.X_OK) else None)
    if found is None:
        skip_or_fail("the Rust kit needs cargo and rustc (Debian: apt-get install cargo); "
                      "cargo is not on PATH")
    assert found is not None
    return found


@pytest.fixture
def sandbox_cargo() -> None:
    """The sandbox builds a submission with the cargo its own PATH finds, not a rustup one."""
    if shutil.which("cargo", path=BOT_PATH) is None:
        skip_or_fail(f"the sandbox builds the Rust kit with a cargo on {BOT_PATH} "
                      "(Debian: apt-get install cargo); a rustup cargo is not seen there")


def _env(cargo: str, scratch: Path) -> dict[str, str]:
    """The test's environment with ``cargo``'s folder first on PATH (build.sh runs plain
    ``cargo``), and a cargo home of its own where the user's cannot be written (nobody)."""
    env = {**os.environ, "PATH": f"{Path(cargo).parent}:{os.environ.get('PATH', '')}"}
    if not os.access(Path.home(), os.W_OK):
        env["CARGO_HOME"] = str(scratch / "cargo-home")
    return env


def _sources(into: Path) -> Path:
    return kit_sources(KIT, into, BUILT)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, cargo: str) -> Path:
    scratch = tmp_path_factory.mktemp("kit-rust")
    return built_kit(KIT, scratch / "rust", BUILT, ["sh", "build.sh"], env=_env(cargo, scratch),
                     timeout=900)


def test_the_kit_builds_offline_into_one_program(built: Path) -> None:
    assert (built / "bot").is_file() and os.access(built / "bot", os.X_OK)
    assert not (built / "target").exists()  # every match copies the folder: only ./bot is kept


def test_the_kits_own_unit_tests_pass(tmp_path: Path, cargo: str) -> None:
    folder = _sources(tmp_path / "rust")
    run = subprocess.run([cargo, "test", "--offline", "--locked"], cwd=folder,
                         capture_output=True, text=True, timeout=900, env=_env(cargo, tmp_path))
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    results = re.findall(r"^test result: ok\. (\d+) passed; (\d+) failed", run.stdout, re.MULTILINE)
    assert results, run.stdout[-2000:]
    # A run that found no tests would prove nothing: the kit has dozens (every message kind, the
    # count on the protocol's examples, the claim at exactly the target).
    assert sum(int(p) for p, _ in results) >= 40 and all(f == "0" for _, f in results)


@pytest.mark.slow
@pytest.mark.parametrize("profile_name", PROFILES)
def test_twenty_matches_against_greedy_without_fault_or_wrong_claim(profile_name: str,
                                                                     built: Path,
                                                                     tmp_path: Path) -> None:
    play_against_greedy(kit_bot(built), profile_name, tmp_path, "kit-rust")


@pytest.mark.slow
def test_arena_check_passes_on_the_kit_as_shipped(tmp_path: Path, sandbox_cargo: None,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    monkeypatch.setenv("ARENA_DATA", str(data))
    folder = _sources(tmp_path / "rust")  # no ./bot: check builds it in the sandbox
    result = CliRunner().invoke(app, ["check", str(folder), "--data", str(data)])
    assert result.exit_code == 0, result.output
    assert "PASSED" in result.output.splitlines()[0], result.output


@pytest.mark.slow
def test_arena_submit_builds_and_registers_the_kit_as_shipped(tmp_path: Path,
                                                              sandbox_cargo: None,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    data = tmp_path / "data"
    monkeypatch.setenv("ARENA_DATA", str(data))  # the sandbox keeps the data folder from bots
    folder = _sources(tmp_path / "rust")  # no ./bot: the build in the sandbox must make it
    result = CliRunner().invoke(app, ["submit", str(folder), "--data", str(data)])
    assert result.exit_code == 0, result.output
    assert "qualification of kit-rust: PASSED" in result.output
    # Its manifest declares the three- and four-player variants: qualification played them.
    assert "three_player" in result.output and "four_player" in result.output
    with Registry.open(data) as registry:
        bot = registry.find("kit-rust")
        assert bot is not None
        assert bot.folder is not None and (bot.folder / "bot").is_file()
