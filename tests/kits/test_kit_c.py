"""The C starter kit (kits/c, issue 33 point 1: "the C bot presented the same way"): it builds with
Debian's ``cc`` and the C library alone, its own unit tests pass (``sh test.sh``), it plays 20
matches against greedy in each profile through the real referee with no fault and no wrong or
missed claim, ``arena check kits/c`` passes, and ``arena submit kits/c`` builds it in the sandbox,
qualifies and registers it. The bundled ``c-counter`` is the same program (bots/c/Makefile builds
it from kits/c/src): one copy of the code.

Every bot here is a real process started by the arena (the kit from its shipped ``bot.toml``). The
kit is built in a copy of its sources, so the tests leave the checkout as they found it. Where cc
is missing the tests skip saying so, except under ``CI=true``, where a missing toolchain is a
failure (issue 33 point 6).
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
from arena.entrants.manifest import load_manifest
from arena.entrants.registry import Registry
from arena.isolation.launcher import BOT_PATH
from kit_matches import built_kit, kit_bot, kit_sources, play_against_greedy, skip_or_fail


ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "kits" / "c"
# c-counter plays vu_compat too, and so does the kit: all five profiles its bot.toml declares.
PROFILES = ("sixty_six", "schnapsen", "vu_compat", "three_player", "four_player")
BUILT = ("bot", "kit-tests")  # what the build and test.sh make


def _require_cc() -> None:
    """A skip naming what to install where cc is missing (here, or where the sandbox's build looks
    for it), or a failure under CI."""
    if shutil.which("cc") is None or shutil.which("cc", path=BOT_PATH) is None:
        skip_or_fail(f"the C kit needs cc (Debian: apt-get install gcc); cc is not on PATH or "
                     f"{BOT_PATH}")


@pytest.fixture(autouse=True)
def cc() -> None:
    _require_cc()


def _sources(into: Path) -> Path:
    return kit_sources(KIT, into, BUILT)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The kit built from a clean copy by its manifest's own build line."""
    _require_cc()  # a module fixture is set up before the autouse one: skip (or fail) here too
    return built_kit(KIT, tmp_path_factory.mktemp("kit-c") / "c", BUILT)


def test_the_kit_builds_with_cc_alone_and_without_a_warning(built: Path) -> None:
    assert (built / "bot").is_file() and os.access(built / "bot", os.X_OK)
    # The build line asks for -Wall -Wextra -pedantic: the kit as shipped gives no warning.
    manifest = load_manifest(built)
    run = subprocess.run([*manifest.build[:-len(_kit_sources(manifest.build))], "-Werror",
                          *_kit_sources(manifest.build)], cwd=built, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr


def _kit_sources(build: tuple[str, ...]) -> list[str]:
    return [word for word in build if word.endswith(".c")]


def test_the_build_line_lists_every_source_of_src(built: Path) -> None:
    """No wildcard runs without a shell: a source left off the line would be left out of the bot,
    and bots/c/Makefile builds c-counter from the same list."""
    listed = _kit_sources(load_manifest(KIT).build)
    assert sorted(listed) == sorted(f"src/{p.name}" for p in (KIT / "src").glob("*.c"))
    makefile = (ROOT / "bots" / "c" / "Makefile").read_text()
    assert all(f"$(KIT)/{Path(source).name}" in makefile for source in listed)


def test_the_kits_own_unit_tests_pass(tmp_path: Path) -> None:
    folder = _sources(tmp_path / "c")
    run = subprocess.run(["sh", "test.sh"], cwd=folder, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    passed = re.search(r"^# pass (\d+)$", run.stdout, re.MULTILINE)
    failed = re.search(r"^# fail (\d+)$", run.stdout, re.MULTILINE)
    assert passed and failed, run.stdout[-2000:]
    # A run that found no tests would prove nothing: the kit has dozens (every message kind, the
    # count on the protocol's examples, the claim at exactly the target).
    assert int(passed.group(1)) >= 60 and failed.group(1) == "0"


def test_c_counter_is_the_kits_sample_bot(built: Path) -> None:
    """The bundled bot is built from kits/c/src under its own name: one copy of the code, and it
    still answers the greeting as c-counter without an argument."""
    from arena.entrants.bot_specs import resolve_bot

    assert not (ROOT / "bots" / "c" / "sixtysix.c").exists()
    counter = resolve_bot("c-counter")
    for argv, name in ((list(counter.argv), "c-counter"), ([str(built / "bot")], "kit-c")):
        run = subprocess.run(argv, input="sixtysix 1\n", capture_output=True, text=True,
                             timeout=30)
        assert run.returncode == 0 and run.stdout == f"ready {name}\n", (argv, run)


@pytest.mark.slow
@pytest.mark.parametrize("profile_name", PROFILES)
def test_twenty_matches_against_greedy_without_fault_or_wrong_claim(profile_name: str,
                                                                     built: Path,
                                                                     tmp_path: Path) -> None:
    play_against_greedy(kit_bot(built), profile_name, tmp_path, "kit-c")


@pytest.mark.slow
def test_arena_check_passes_on_the_kit_as_shipped(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    monkeypatch.setenv("ARENA_DATA", str(data))
    folder = _sources(tmp_path / "c")  # no bot: the check builds it in the sandbox
    result = CliRunner().invoke(app, ["check", str(folder), "--data", str(data)])
    assert result.exit_code == 0, result.output
    assert "PASSED" in result.output, result.output
    # It declares every profile: the battery ran the three- and four-player situations too.
    assert "three_player" in result.output and "four_player" in result.output, result.output


@pytest.mark.slow
def test_arena_submit_builds_and_registers_the_kit_as_shipped(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    data = tmp_path / "data"
    monkeypatch.setenv("ARENA_DATA", str(data))  # the sandbox keeps the data folder from bots
    folder = _sources(tmp_path / "c")  # no bot: the build in the sandbox must make it
    result = CliRunner().invoke(app, ["submit", str(folder), "--data", str(data)])
    assert result.exit_code == 0, result.output
    assert "qualification of kit-c: PASSED" in result.output
    # Its manifest declares the three- and four-player variants: qualification played them.
    assert "three_player" in result.output and "four_player" in result.output
    with Registry.open(data) as registry:
        bot = registry.find("kit-c")
        assert bot is not None
        assert bot.folder is not None and (bot.folder / "bot").is_file()
