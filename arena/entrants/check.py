"""``arena check BOT``: what the user names, made a bot to check, and the conformance battery run
on it (``arena.match.conformance``).

BOT is resolved as every command resolves a bot (``bot_specs.resolve_bot``: a bundled name, a
registered ``NAME[@VERSION]``, a command), and may also be a folder holding a ``bot.toml``, as
``arena submit`` takes it: its files are copied (without ``.git`` and caches) and built in the
sandbox when the manifest says how, then run from that copy, exactly as a submission would be.

Which situations: those of the profiles the bot declares (a folder's manifest, a bundled bot's
list, a registered bot's), or every profile for a plain command, which may decline the three- and
four-player ones (PROTOCOL.md §9.1); ``profiles`` narrows either.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from arena.entrants.bot_specs import BotSpecError, check_arena_paths, resolve_bot
from arena.entrants.manifest import ManifestError, check_profiles, load_manifest
from arena.entrants.registry import (MAX_FOLDER_BYTES, Registry, RegistryError, copy_bot_folder,
                                     folder_size)
from arena.entrants.submit import build
from arena.game import PROFILES
from arena.match.bot_process import Limits
from arena.match.conformance import CheckReport, check
from arena.temp_folders import TempFolder
from arena.types import BotSpec
from bots import BUNDLED_PROFILES


class CheckError(ValueError):
    """What the user named cannot be checked: no such bot, a bad manifest, a failed build. One
    line, for the command line's error (exit 2)."""


@dataclass(frozen=True)
class Target:
    """A bot to check and the profiles it declares (empty: it declares none, a command)."""

    spec: BotSpec
    declared: tuple[str, ...]
    build_output: str = ""


def check_bot(text: str, limits: Limits = Limits(), data: Path | None = None,
              profiles: Sequence[str] = (), ignore_claims: bool = False,
              work: Path | None = None) -> CheckReport:
    """Resolve ``text`` (``resolve``) and run the battery on it. ``CheckError`` for a bot that
    cannot be checked; everything the bot itself does is in the report."""
    if profiles:
        try:
            chosen: tuple[str, ...] | None = check_profiles(list(profiles), "--profile")
        except ManifestError as err:
            raise CheckError(str(err)) from None
    else:
        chosen = None
    with TempFolder("check-bot") as scratch:
        target = resolve(text, data, limits, scratch / "bot")
        run = chosen or target.declared or tuple(PROFILES)
        return check(target.spec, limits, profiles=run, declared=target.declared,
                     ignore_claims=ignore_claims, work=work)


def resolve(text: str, data: Path | None, limits: Limits, staging: Path) -> Target:
    """The bot ``text`` names. A folder is copied (and built) into ``staging``."""
    folder = Path(text)
    try:
        if folder.is_dir():
            return _folder(folder.resolve(), data, limits, staging)
        spec = resolve_bot(text, data=data)
    except (BotSpecError, ManifestError) as err:
        raise CheckError(str(err)) from None
    first = text.strip().split(" ")[0]
    if first in BUNDLED_PROFILES and spec.folder is None:
        return Target(spec, BUNDLED_PROFILES[first])
    if spec.version:  # a registered bot: the profiles its manifest declared
        try:
            with Registry.open(data, create=False) as registry:
                bot = registry.find(spec.name, spec.version)
        except RegistryError as err:
            raise CheckError(str(err)) from None
        return Target(spec, bot.profiles if bot is not None else ())
    return Target(spec, ())


def _folder(folder: Path, data: Path | None, limits: Limits, staging: Path) -> Target:
    manifest = load_manifest(folder)
    size = folder_size(folder)
    if size > MAX_FOLDER_BYTES:
        raise CheckError(f"the bot's folder holds {size >> 20} MB; at most "
                         f"{MAX_FOLDER_BYTES >> 20} MB (each match copies it)")
    spec = BotSpec(manifest.name, manifest.argv(), folder=str(staging), workdir=manifest.workdir)
    try:
        check_arena_paths(BotSpec(manifest.name, manifest.argv(), folder=str(folder)), data)
    except BotSpecError as err:
        raise CheckError(str(err)) from None
    output = ""
    if manifest.build:
        failed, output = build(manifest, folder, staging, limits.sandbox.memory_per_process)
        if failed:
            tail = "; ".join(line for line in output.splitlines()[-3:] if line.strip())
            raise CheckError(failed + (f" (end of its output: {tail})" if tail else ""))
    else:
        copy_bot_folder(folder, staging)
    if not (staging / manifest.workdir).is_dir():
        shutil.rmtree(staging, ignore_errors=True)
        raise CheckError(f"workdir {manifest.workdir!r} is not a folder of the bot (after the "
                         "build)")
    return Target(spec, manifest.profiles, output)
