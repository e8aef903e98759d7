"""Turning what a user types ("greedy", "./mybot", "node bot.js") into a bot to run.

A bundled bot is named; then a bot registered with ``arena submit`` (``NAME`` or ``NAME@VERSION``);
then a bot folder holding a ``bot.toml`` with nothing to build (run as a registered bot is, from a
copy of the folder for each match); anything else is a command line, split like a shell would (but
never run through one), where ``python``/``python3`` is the arena's own Python. Bundled bots in C
are compiled on first use with the machine's ``make`` and ``gcc``.
"""

from __future__ import annotations

import compileall
import functools
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Sequence

import bots
from arena.entrants.manifest import MANIFEST_NAME, ManifestError, load_manifest
from arena.entrants.registry import find_registered
from arena.types import BotSpec
from bots import BUNDLED_PYTHON, python_bot_command

BOTS_DIR = Path(bots.__file__).resolve().parent
C_DIR = BOTS_DIR / "c"

_PYTHON_SCRIPTS = {
    "first-legal": BOTS_DIR / "minimal" / "first_legal.py",
}
_C_TARGETS = {
    "c-counter": "sixtysix-c",
    "first-legal-c": "first-legal-c",
}


class BotSpecError(ValueError):
    """A bot name or command that cannot be run."""


def bundled_names() -> list[str]:
    return [*BUNDLED_PYTHON, *_PYTHON_SCRIPTS, *_C_TARGETS]


def resolve_bot(text: str, name: str | None = None, data: Path | None = None) -> BotSpec:
    """A bundled bot's name, a registered bot (under the data folder ``data``, default
    ``registry.data_dir()``), or a command line. ``name`` overrides the display name."""
    text = text.strip()
    if not text:
        raise BotSpecError("empty bot name or command")
    first, _, options = text.partition(" ")
    if first in BUNDLED_PYTHON or text in _PYTHON_SCRIPTS:
        compile_bundled_python()
    if text in BUNDLED_PYTHON:
        return BotSpec(name or text, tuple(python_bot_command(text)))
    if first in BUNDLED_PYTHON:
        # A bundled Python bot with its own options: "strong --budget-ms 50".
        try:
            args = shlex.split(options)
        except ValueError as err:
            raise BotSpecError(f"cannot split the bot command {text!r}: {err}") from None
        return BotSpec(name or first, tuple(python_bot_command(first, *args)))
    if text in _PYTHON_SCRIPTS:
        return BotSpec(name or text, (sys.executable, str(_PYTHON_SCRIPTS[text])))
    if text in _C_TARGETS:
        return BotSpec(name or text, (str(build_c_bot(_C_TARGETS[text])),))
    registered = find_registered(text, data)
    if registered is not None:
        check_arena_paths(registered, data)  # registered by an older version, which let it by
        return replace(registered, name=name) if name else registered
    if (Path(text) / MANIFEST_NAME).is_file():
        return _bot_folder(Path(text), name, data)
    try:
        argv = shlex.split(text)
    except ValueError as err:
        raise BotSpecError(f"cannot split the bot command {text!r}: {err}") from None
    # Bots run in a fresh empty folder, so an argument naming a file here ("python3 bot.py",
    # "node dist/bot.js") must become an absolute path or it would not be found there.
    argv = [argv[0]] + [str(Path(a).resolve()) if not a.startswith("-") and Path(a).is_file() else a
                        for a in argv[1:]]
    program = argv[0]
    path = Path(program)
    check_arena_paths(BotSpec(name or _default_name(argv), tuple(argv)), data)
    if path.suffix == ".py" and path.is_file():
        argv = [sys.executable, str(path.resolve()), *argv[1:]]
    elif program in ("python", "python3"):
        # The arena's own Python: it has the SDK, and a shim (pyenv) may not run in the sandbox.
        argv[0] = sys.executable
    elif "/" in program:
        if not path.is_file():
            raise BotSpecError(f"bot program {program!r} does not exist "
                               f"(bundled bots: {', '.join(bundled_names())})")
        if not path.stat().st_mode & 0o111:
            raise BotSpecError(f"bot program {program!r} is not executable (chmod +x it)")
        argv[0] = str(path.resolve())  # bots run in a temporary folder: relative paths break
    elif shutil.which(program) is None:
        raise BotSpecError(f"unknown bot {program!r}: not a bundled bot "
                           f"({', '.join(bundled_names())}) nor a program on PATH")
    return BotSpec(name or _default_name(argv), tuple(argv))


def _bot_folder(folder: Path, name: str | None, data: Path | None) -> BotSpec:
    """A bot folder (``arena new`` makes one): its manifest's command, run in a copy of the folder
    as a registered bot is. One with a build step needs ``arena submit`` (or ``arena check``),
    which build it in the sandbox."""
    try:
        manifest = load_manifest(folder)
    except ManifestError as err:
        raise BotSpecError(str(err)) from None
    if manifest.build:
        raise BotSpecError(f"{folder} has a build step ({shlex.join(manifest.build)}) in its "
                           f"{MANIFEST_NAME}: arena check and arena submit build it; submit it, "
                           "then give its name")
    spec = BotSpec(name or manifest.name, manifest.argv(), folder=str(folder.resolve()),
                   workdir=manifest.workdir)
    check_arena_paths(spec, data)
    return spec


def check_bot_paths(spec: BotSpec, private: Sequence[Path | str],
                    created: Sequence[Path | str] = ()) -> None:
    """Refuse a bot whose command names a path in one of the ``private`` folders (a tournament's
    folder, the data folder, the registry): such a bot asks to read what no bot may see (its own
    match's record, the other tournaments' keys, the other bots' logs). The sandbox would not
    show it anyway (``allow_list.allow_list``); this says so plainly, before anything runs.

    An argument counts as a path if it is absolute, or names something that exists here (relative
    to the working folder); ``--opt=PATH`` is checked too. A registered bot's relative arguments
    are relative to its own folder, so only its absolute ones are checked. ``created``: private
    folders about to be made (a tournament's), checked like the others even before they exist."""
    from arena.arena_folders import once_per_pass
    from arena.isolation.allow_list import exposed_private

    check_arena_paths(spec)
    exposed = once_per_pass(("exposed_private", tuple(map(str, private)), tuple(map(str, created))),
                            lambda: exposed_private(private, created))
    for folder, allowed in exposed:
        raise BotSpecError(f"the arena's private folder {folder} lies inside {allowed}, which "
                           "every bot sees read-only; choose another folder for the data and "
                           "tournaments (--data, --output)")
    folders = [os.path.realpath(p) for p in [*private, *created]]
    for arg in spec.argv:
        for item in {arg, arg.partition("=")[2]} - {""}:
            if not os.path.isabs(item) and (spec.folder is not None or not os.path.exists(item)):
                continue
            real = os.path.realpath(item)
            for folder in folders:
                if real == folder or real.startswith(folder.rstrip("/") + "/"):
                    raise BotSpecError(
                        f"bot {spec.name!r}: its command names {item!r}, inside {folder}, a "
                        "folder of the arena that bots may not see (a tournament's folder, the "
                        "data folder or the registry); put the bot's files in a folder of their own")


def check_arena_paths(spec: BotSpec, data: Path | None = None) -> None:
    """Refuse a bot whose program or an argument names a path in ANY folder of the arena (issue
    29): a tournament's or a league's (the store holds the deal key, the records every hand), a
    data folder, the registry, a published site, the launcher's cache; this run's or another's,
    this user's or another's. Such folders are marked (``arena_folders.holder`` knows them, and
    the layouts older versions wrote); the data folder ``data`` (else ``$ARENA_DATA`` or
    ``results``) and the launcher's cache count whether marked or not.

    A path is an absolute argument, the part after ``=`` of ``--opt=PATH``, or (for a command,
    not a registered folder whose relative paths are its own) a relative one that exists here.
    It need not exist: a file about to be written in a tournament's folder is in it. The
    sandbox's allow-list leaves such a path out anyway (``allow_list.allow_list``): this says so
    plainly, before anything runs, at every isolation level."""
    from arena.arena_folders import holder, once_per_pass
    from arena.isolation.allow_list import arena_own_folders

    also = [*once_per_pass("arena_own_folders", arena_own_folders),
            *([str(data)] if data is not None else [])]
    for arg in spec.argv:
        for item in {arg, arg.partition("=")[2]} - {""}:
            if not os.path.isabs(item) and (spec.folder is not None or not os.path.exists(item)):
                continue
            folder = holder(item, also)
            if folder is not None:
                raise BotSpecError(
                    f"bot {spec.name!r}: its command names {item!r}, inside {folder}, a folder "
                    "of the arena that bots may not see (a tournament's or a league's, a data "
                    "folder, the registry, a published site, the launcher's cache: deal keys, "
                    "records, logs); put the bot's files in a folder of their own")


def _default_name(argv: list[str]) -> str:
    program = Path(argv[0]).name
    if program.startswith("python") and len(argv) > 1:
        # python script.py ARGS -> "script"; python -m package.module -> "module"
        if argv[1] == "-m" and len(argv) > 2:
            return argv[2].rsplit(".", 1)[-1]
        return Path(argv[1]).stem
    if program in ("node", "bash", "sh") and len(argv) > 1:
        return Path(argv[1]).stem
    return Path(program).stem


@functools.cache
def compile_bundled_python() -> None:
    """Write the bytecode of the SDK, engine and bundled bots if it is missing or stale.

    Bots run with ``PYTHONDONTWRITEBYTECODE`` (a bot must not write into the installation), so
    without this step every start of a bundled Python bot compiled the SDK and engine from source:
    ~35 ms of CPU per bot, half its start-up. Once per process; when the bytecode is current this
    only stats the files. A read-only installation is fine: the files are then compiled in memory
    at each start, as before.
    """
    import arena
    import protocol

    for package in (arena, protocol, bots):
        compileall.compile_dir(package.__path__[0], quiet=2)


def build_c_bot(target: str) -> Path:
    """Compile a bundled C bot with ``make`` if its binary is missing or older than its sources."""
    binary = C_DIR / "build" / target
    if shutil.which("make") is None or shutil.which("cc") is None and shutil.which("gcc") is None:
        if binary.is_file():
            return binary
        raise BotSpecError(f"bundled C bot {target!r} needs make and a C compiler to build; "
                           "neither was found on PATH")
    proc = subprocess.run(["make", "-s", "-C", str(C_DIR), f"build/{target}"],
                          capture_output=True, text=True)
    if proc.returncode != 0 or not binary.is_file():
        raise BotSpecError(f"building bundled C bot {target!r} failed:\n{proc.stdout}{proc.stderr}")
    return binary
