"""Starter kits: ``kits/<language>/`` of the repository, each a bot folder with its manifest, and
``arena new DIR --lang L``, which copies one under a new name.

The languages are the kits' folders, read when asked (a kit added is a language added). The new
bot's name is the new folder's name, checked as a manifest's name is (PROTOCOL.md §3), and written
into its ``bot.toml``: the one place a bot's name lives (a kit's bot reads it from there, or
announces its own, which the arena overrides with the manifest's).
"""

from __future__ import annotations

import fnmatch
import re
import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import arena
from arena.entrants.bot_specs import bundled_names
from arena.entrants.manifest import MANIFEST_NAME, Manifest, ManifestError, check_name, load_manifest
from arena.entrants.registry import SKIPPED

KITS_DIR = Path(arena.__file__).resolve().parent.parent / "kits"
# The manifest's name line: a TOML basic string, as every kit writes it.
_NAME_LINE = re.compile(r'^name\s*=\s*"[^"\n]*"', re.M)


class KitError(ValueError):
    """A new bot that cannot be made (an unknown language, a folder in the way, a bad name)."""


@dataclass(frozen=True)
class NewBot:
    folder: Path
    language: str
    manifest: Manifest
    next_steps: tuple[str, ...]   # the commands to run next, in order


def kit_languages() -> list[str]:
    """The languages with a kit: the folders of ``kits/`` holding a manifest."""
    if not KITS_DIR.is_dir():
        return []
    return sorted(p.name for p in KITS_DIR.iterdir() if (p / MANIFEST_NAME).is_file())


def new_bot(folder: Path, language: str) -> NewBot:
    """Copy the kit of ``language`` to ``folder`` (new, or empty), named after the folder."""
    languages = kit_languages()
    if language not in languages:
        known = ", ".join(languages) or f"none (this installation has no {KITS_DIR})"
        raise KitError(f"no starter kit for {language!r}; kits: {known}")
    try:
        name = folder.resolve().name
    except (OSError, RuntimeError) as err:  # RuntimeError: Python 3.11's word for a link loop
        raise KitError(f"cannot use {folder} as the new bot's folder: "
                       f"{getattr(err, 'strerror', None) or err}") from None
    try:
        check_name(name, f"the bot's name (its folder's, {folder})")
    except ManifestError as err:
        raise KitError(str(err)) from None
    if name in bundled_names():
        raise KitError(f"{name!r} is the name of a bundled bot; choose another folder name")
    existed = folder.exists() or folder.is_symlink()
    if existed and not folder.is_dir():
        raise KitError(f"{folder} exists and is not a folder")
    if existed and any(folder.iterdir()):
        raise KitError(f"{folder} exists and is not empty: give a new folder (nothing was copied)")
    try:
        shutil.copytree(KITS_DIR / language, folder, symlinks=True, dirs_exist_ok=True,
                        ignore=_not_sources(KITS_DIR / language))
        manifest = _rename(folder, name)
    except (OSError, KitError, ManifestError) as err:
        _undo(folder, existed)
        if isinstance(err, OSError):
            raise KitError(f"cannot copy the {language} kit to {folder}: "
                           f"{err.strerror or err}") from None
        raise KitError(str(err)) from None
    return NewBot(folder, language, manifest, _next_steps(folder, manifest))


def _not_sources(kit: Path) -> Callable[[str, list[str]], set[str]]:
    """What a copy of ``kit`` leaves out: version-control and cache folders, and what the kit's
    own ``.gitignore`` names (its build's output: a kit built in place, ``./bot`` and the test
    binaries, must not become part of every new bot). Its lines are read as git does for the
    forms kits use: ``/x`` is x at the kit's top only, ``x/`` a folder, globs allowed."""
    patterns: list[tuple[str, bool, bool]] = []  # (glob, anchored at the top, folders only)
    try:
        lines = (kit / ".gitignore").read_text(encoding="utf-8").splitlines()
    except OSError:
        lines = []
    for line in lines:
        line = line.strip()
        if not line or line.startswith(("#", "!")):
            continue
        folders_only = line.endswith("/")
        line = line.rstrip("/")
        patterns.append((line.lstrip("/"), "/" in line, folders_only))

    def ignore(where: str, names: list[str]) -> set[str]:
        skipped = {n for n in names if n in SKIPPED or n == ".pytest_cache"}
        inside = Path(where).relative_to(kit)
        for name in names:
            path = (inside / name).as_posix()
            is_dir = (Path(where) / name).is_dir()
            for glob, anchored, folders_only in patterns:
                if folders_only and not is_dir:
                    continue
                if fnmatch.fnmatchcase(path if anchored else name, glob):
                    skipped.add(name)
        return skipped

    return ignore


def _rename(folder: Path, name: str) -> Manifest:
    path = folder / MANIFEST_NAME
    text = path.read_text(encoding="utf-8")
    renamed, count = _NAME_LINE.subn(f'name = "{name}"', text, count=1)
    if not count:
        raise KitError(f"the kit's {MANIFEST_NAME} has no line name = \"...\" to rename")
    path.write_text(renamed, encoding="utf-8")
    return load_manifest(folder)


def _undo(folder: Path, existed: bool) -> None:
    """Leave the folder as it was: gone if this made it, else empty again (it was empty)."""
    if not existed:
        shutil.rmtree(folder, ignore_errors=True)
        return
    for item in folder.iterdir():
        if item.is_dir() and not item.is_symlink():
            shutil.rmtree(item, ignore_errors=True)
        else:
            item.unlink(missing_ok=True)


def _next_steps(folder: Path, manifest: Manifest) -> tuple[str, ...]:
    """Check it, play it against greedy, submit it. A folder with a build step plays once
    submitted (``arena play`` runs a folder only when there is nothing to build)."""
    shown = str(folder)
    if not folder.is_absolute() and not shown.startswith("."):
        shown = f"./{shown}"  # a path, never read as a registered bot's name
    where = shlex.quote(shown)
    if manifest.build:
        return (f"arena check {where}", f"arena submit {where}",
                f"arena play greedy {shlex.quote(manifest.name)}")
    return (f"arena check {where}", f"arena play greedy {where}", f"arena submit {where}")
