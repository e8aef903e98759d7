"""``arena new DIR --lang L`` (issue 33 point 3) and the Python starter kit (point 1, its Python
part): a copy of the kit under DIR's name passes ``arena check``, and each command it prints
next runs; the kit's own tests pass; what cannot be made is refused with one line, and nothing
already there is touched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.entrants import kits
from arena.entrants.bot_specs import BotSpecError, resolve_bot
from arena.entrants.kits import KitError, kit_languages, new_bot

ROOT = Path(__file__).resolve().parents[2]
ARENA = [sys.executable, "-m", "arena"]


def arena(*args: str | Path, data: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ARENA_DATA": str(data), "COLUMNS": "1000"}
    return subprocess.run([*ARENA, *map(str, args)], capture_output=True, text=True, env=env,
                          timeout=timeout)


def one_line_error(proc: subprocess.CompletedProcess[str], wanted: str) -> None:
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert proc.stdout == "" and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert wanted in proc.stderr, proc.stderr


def test_new_then_check_passes_and_the_printed_commands_run(tmp_path):
    """The issue's acceptance: `arena new /tmp/x --lang python` and `arena check /tmp/x`."""
    data, folder = tmp_path / "data", tmp_path / "x"
    made = arena("new", folder, "--lang", "python", data=data)
    assert made.returncode == 0, made.stderr
    assert 'name = "x"' in (folder / "bot.toml").read_text()
    steps = [line.strip() for line in made.stdout.splitlines() if line.startswith("  arena ")]
    assert [s.split()[1] for s in steps] == ["check", "play", "submit"]
    assert steps[1].split()[2] == "greedy"
    for step in steps:  # as printed: check, play against greedy, submit
        ran = arena(*step.split()[1:], data=data)
        assert ran.returncode == 0, (step, ran.stdout, ran.stderr)
        if step.startswith("arena check"):
            assert ran.stdout.startswith("arena check x: PASSED"), ran.stdout
        if step.startswith("arena submit"):
            assert "registered:" in ran.stdout, ran.stdout


def test_the_kits_own_tests_pass_in_a_copy(tmp_path):
    folder = tmp_path / "mine"
    new_bot(folder, "python")
    proc = subprocess.run([sys.executable, "-m", "pytest", str(folder), "-q", "-p",
                           "no:cacheprovider"], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}, cwd=folder)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " passed" in proc.stdout


def test_a_folder_that_is_not_empty_is_refused_and_left_alone(tmp_path):
    folder = tmp_path / "busy"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine\n")
    one_line_error(arena("new", folder, "--lang", "python", data=tmp_path / "data"),
                   "is not empty")
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]
    assert (folder / "notes.txt").read_text() == "mine\n"


def test_an_empty_folder_is_filled(tmp_path):
    folder = tmp_path / "empty"
    folder.mkdir()
    made = new_bot(folder, "python")
    assert made.manifest.name == "empty" and (folder / "bot.py").is_file()


@pytest.mark.parametrize("name, wanted", [("bad name", "must be 1 to 64 characters"),
                                          ("greedy", "name of a bundled bot")])
def test_a_name_a_bot_cannot_have_is_refused_before_anything_is_copied(tmp_path, name, wanted):
    one_line_error(arena("new", tmp_path / name, "--lang", "python", data=tmp_path / "data"),
                   wanted)
    assert not (tmp_path / name).exists()


def test_an_unknown_language_lists_the_kits(tmp_path):
    one_line_error(arena("new", tmp_path / "x", "--lang", "cobol", data=tmp_path / "data"),
                   "no starter kit for 'cobol'; kits: " + ", ".join(kit_languages()))
    assert "python" in kit_languages()
    assert not (tmp_path / "x").exists()


def test_the_languages_are_the_folders_of_kits(tmp_path, monkeypatch):
    for lang in ("zeta", "alpha"):
        (tmp_path / "kits" / lang).mkdir(parents=True)
        (tmp_path / "kits" / lang / "bot.toml").write_text(
            f'name = "{lang}-kit"\ncommand = "./bot"\n')
    (tmp_path / "kits" / "notes").mkdir()  # no manifest: not a kit
    monkeypatch.setattr(kits, "KITS_DIR", tmp_path / "kits")
    assert kit_languages() == ["alpha", "zeta"]
    made = new_bot(tmp_path / "mybot", "zeta")
    assert made.manifest.name == "mybot" and made.manifest.command == ("./bot",)


def test_a_kit_whose_manifest_cannot_be_renamed_leaves_nothing(tmp_path, monkeypatch):
    (tmp_path / "kits" / "odd").mkdir(parents=True)
    (tmp_path / "kits" / "odd" / "bot.toml").write_text("name = 'single-quoted'\ncommand = 'x'\n")
    monkeypatch.setattr(kits, "KITS_DIR", tmp_path / "kits")
    with pytest.raises(KitError, match="no line name"):
        new_bot(tmp_path / "fresh", "odd")
    assert not (tmp_path / "fresh").exists()
    (tmp_path / "was-empty").mkdir()
    with pytest.raises(KitError):
        new_bot(tmp_path / "was-empty", "odd")
    assert list((tmp_path / "was-empty").iterdir()) == []


def test_a_bot_folder_is_a_bot_unless_it_must_be_built(tmp_path):
    made = new_bot(tmp_path / "plain", "python")
    spec = resolve_bot(str(made.folder))
    assert spec.name == "plain" and spec.folder == str(made.folder.resolve())
    manifest = made.folder / "bot.toml"
    manifest.write_text(manifest.read_text() + 'build = "make"\n')
    with pytest.raises(BotSpecError, match="has a build step"):
        resolve_bot(str(made.folder))


def test_new_c_then_check_passes_and_the_printed_commands_run(tmp_path):
    """`arena new /tmp/x --lang c` then `arena check /tmp/x`: a kit with a build step, which the
    check builds in the sandbox; its next commands are check, submit, then play by the name."""
    if shutil.which("cc") is None:
        why = "the C kit needs cc (Debian: apt-get install gcc); cc is not on PATH"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{why} (CI=true: kits never skip)")
        pytest.skip(why)
    data, folder = tmp_path / "data", tmp_path / "x"
    made = arena("new", folder, "--lang", "c", data=data)
    assert made.returncode == 0, made.stderr
    assert 'name = "x"' in (folder / "bot.toml").read_text()
    steps = [line.strip() for line in made.stdout.splitlines() if line.startswith("  arena ")]
    assert [s.split()[1] for s in steps] == ["check", "submit", "play"]
    for step in steps:
        ran = arena(*step.split()[1:], data=data)
        assert ran.returncode == 0, (step, ran.stdout, ran.stderr)
        if step.startswith("arena check"):
            assert ran.stdout.startswith("arena check x: PASSED"), ran.stdout
        if step.startswith("arena submit"):
            assert "registered:" in ran.stdout, ran.stdout


def test_a_kit_built_in_place_is_copied_without_its_build(tmp_path, monkeypatch):
    """A kit built where it lies (`sh test.sh` in kits/cpp) holds ./bot and test/kit-tests, which
    its .gitignore names: a new bot is the kit's sources, never an author's stale binary."""
    kit_root = tmp_path / "kits"
    shutil.copytree(ROOT / "kits" / "cpp", kit_root / "cpp")
    (kit_root / "cpp" / "bot").write_bytes(b"\x7fELF stale")
    (kit_root / "cpp" / "test" / "kit-tests").write_bytes(b"\x7fELF stale")
    (kit_root / "cpp" / "src" / "bot").mkdir()  # not at the top: "/bot" does not name it
    shutil.copytree(ROOT / "kits" / "java", kit_root / "java")
    (kit_root / "java" / "classes" / "kit").mkdir(parents=True)  # "classes/": a folder anywhere
    monkeypatch.setattr(kits, "KITS_DIR", kit_root)
    cpp = new_bot(tmp_path / "mine", "cpp").folder
    assert not (cpp / "bot").exists() and not (cpp / "test" / "kit-tests").exists()
    assert (cpp / "src" / "bot").is_dir() and (cpp / "src" / "bot.cpp").is_file()
    assert (cpp / "test" / "kit_tests.cpp").is_file() and (cpp / ".gitignore").is_file()
    java = new_bot(tmp_path / "other", "java").folder
    assert not (java / "classes").exists() and (java / "src").is_dir()
