"""Submitting a bot: read its manifest, build it in the sandbox, qualify it, register it or say why not.

The registry (``registry.py``) stores; qualification (``qualify.py``) judges; this module is the
order of the steps and the reasons a submission is turned down.
"""

from __future__ import annotations

import hashlib
import shlex
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

from arena.entrants.bot_specs import BotSpecError, bundled_names, check_bot_paths, resolve_bot
from arena.entrants.manifest import (
    TWO_PLAYER_PROFILES,
    Manifest,
    ManifestError,
    check_name,
    check_profiles,
    load_manifest,
)
from arena.entrants.qualify import QUALIFYING_MATCHES, QualificationReport, qualify
from arena.entrants.registry import (
    MAX_FOLDER_BYTES,
    RegisteredBot,
    Registry,
    RegistryError,
    content_hash,
    copy_bot_folder,
    folder_size,
)
from arena.isolation.levels import SandboxUnavailable
from arena.isolation.limits import SandboxLimits
from arena.isolation.probe import check_memory
from arena.isolation.sandbox import run_command
from arena.match.bot_process import Limits
from arena.temp_folders import TempFolder, sweep
from arena.types import BotSpec

# A build may compile for a while, with more memory and processes than a bot playing a match.
BUILD_LIMITS = SandboxLimits(cpu_s=600, memory_mb=4096, processes=256, file_mb=1024,
                             open_files=1024, workdir_mb=1024)
BUILD_TIMEOUT_S = 600.0


@dataclass
class Submission:
    status: str                        # "registered", "unchanged" or "rejected"
    reason: str                        # one line
    name: str = ""
    version: str = ""
    report: QualificationReport | None = None
    build_output: str = ""
    bot: RegisteredBot | None = None
    # Rejected before anything was tried: a mistake in what was given (no such folder, no
    # bot.toml, a bad name), which the command line reports as its other mistakes (exit 2), not
    # as the bot's failure to qualify.
    mistake: bool = False

    @property
    def accepted(self) -> bool:
        return self.status != "rejected"


def submit(target: str, name: str | None = None, data: Path | None = None,
           limits: Limits = Limits(), matches: int = QUALIFYING_MATCHES,
           profiles: Sequence[str] = ()) -> Submission:
    """Submit a folder holding ``bot.toml``, or a command (then ``name`` is needed).
    ``profiles``: the variants a command declares (a folder declares them in its manifest)."""
    folder = Path(target)
    try:
        check_memory(limits.sandbox)  # before the build: it runs with a memory cap too
    except SandboxUnavailable as err:
        return Submission("rejected", str(err), name or "")
    try:
        with Registry.open(data) as registry:
            if folder.is_dir():
                if profiles:
                    raise ManifestError("a bot folder declares its profiles in bot.toml "
                                        "(profiles = [...]), not with --profile")
                return _submit_folder(registry, folder.resolve(), name, limits, matches)
            declared = check_profiles(list(profiles), "--profile") if profiles \
                else TWO_PLAYER_PROFILES
            return _submit_command(registry, target, name, limits, matches, declared)
    except (ManifestError, RegistryError, BotSpecError) as err:
        return Submission("rejected", str(err), name or "", mistake=True)


def _private(registry: Registry) -> list[Path]:
    """The folders a submitted bot's command may not name: the data folder (tournaments) and
    the registry (other bots, their logs)."""
    return [registry.root.parent, registry.root]


def _check_new_name(name: str) -> None:
    if name in bundled_names():
        raise ManifestError(f"{name!r} is the name of a bundled bot; choose another name")


def _submit_folder(registry: Registry, folder: Path, name: str | None, limits: Limits,
                   matches: int) -> Submission:
    manifest = load_manifest(folder)
    if name:
        manifest = replace(manifest, name=check_name(name, "--name"))
    _check_new_name(manifest.name)
    check_bot_paths(BotSpec(manifest.name, manifest.argv(), folder=str(folder)),
                    _private(registry))
    size = folder_size(folder)
    if size > MAX_FOLDER_BYTES:
        return Submission("rejected", f"the bot's folder holds {size >> 20} MB; at most "
                          f"{MAX_FOLDER_BYTES >> 20} MB (each match copies it)", manifest.name)
    version = content_hash(folder)
    if registry.find(manifest.name, version) is not None:
        return Submission("unchanged", f"{manifest.name} version {version} is already registered "
                          "(same files)", manifest.name, version,
                          bot=registry.find(manifest.name, version))
    # The build and its copy go in a folder named with this process's PID and locked while in
    # use: one an `arena submit` killed with kill -9 left is removed by the next (temp_folders.py).
    building = registry.root / "staging"
    building.mkdir(parents=True, exist_ok=True)
    sweep(building)
    holder = TempFolder("staging", building)
    staging = holder.path / "bot"
    try:
        build_output = ""
        if manifest.build:
            failed, build_output = build(manifest, folder, staging,
                                        limits.sandbox.memory_per_process)
            if failed:
                return Submission("rejected", failed, manifest.name, version,
                                  build_output=build_output)
        else:
            copy_bot_folder(folder, staging)
        if not (staging / manifest.workdir).is_dir():
            return Submission("rejected", f"workdir {manifest.workdir!r} is not a folder of the bot "
                              "(after the build)", manifest.name, version, build_output=build_output)
        spec = BotSpec(manifest.name, manifest.argv(), folder=str(staging),
                       workdir=manifest.workdir, version=version)
        report = qualify(spec, limits, matches=matches, profiles=manifest.profiles,
                         conformance=True)
        if not report.passed:
            return _rejected(manifest.name, version, report, build_output)
        final = registry.folder_for(manifest.name, version)
        shutil.rmtree(final, ignore_errors=True)
        final.parent.mkdir(parents=True, exist_ok=True)
        staging.rename(final)
        bot = registry.add(manifest.name, version, manifest.argv(), manifest.workdir, final,
                           manifest.to_dict(), report.to_dict())
        return Submission("registered", f"{manifest.name} version {version} registered",
                          manifest.name, version, report, build_output, bot)
    finally:
        holder.cleanup()


def build(manifest: Manifest, folder: Path, staging: Path, memory_per_process: int = 0
          ) -> tuple[str, str]:
    """Build ``folder`` into ``staging`` in the sandbox (no network: vendor what the build
    needs): a reason when it failed ("" when not), and the build's output. ``arena check``
    builds a bot folder this way too.
    ``memory_per_process``: the submission's opt-in (``probe.check_memory``) holds for it too."""
    limits = replace(BUILD_LIMITS, memory_per_process=memory_per_process)
    source = staging.parent / (staging.name + ".src")
    shutil.rmtree(source, ignore_errors=True)
    copy_bot_folder(folder, source)  # without .git and caches, as hashed
    try:
        status, output, report = run_command(manifest.build_argv(), source, limits,
                                             BUILD_TIMEOUT_S, keep=staging)
    finally:
        shutil.rmtree(source, ignore_errors=True)
    command = shlex.join(manifest.build)
    if status is None:
        return f"the build ({command}) did not finish within {BUILD_TIMEOUT_S:.0f} s", output
    if report.error:
        return f"the build could not start: {report.error}", output
    if status != 0:
        said = report.describe(limits) or f"exited with status {status}"
        return f"the build ({command}) failed: {said}", output
    return "", output


def _submit_command(registry: Registry, command: str, name: str | None, limits: Limits,
                    matches: int, profiles: tuple[str, ...]) -> Submission:
    if not name:
        raise ManifestError(f"{command!r} is not a folder; to submit a command, give its name "
                            "with --name (or submit a folder with a bot.toml)")
    check_name(name, "--name")
    _check_new_name(name)
    spec = resolve_bot(command, name=name)
    check_bot_paths(spec, _private(registry))
    if spec.folder is not None or command.split("@")[0] in bundled_names():
        raise ManifestError(f"{command!r} is already a bot; submit a folder or a command")
    # Declaring other variants makes another version (as a changed bot.toml does for a folder).
    version = _command_hash(spec.argv, () if profiles == TWO_PLAYER_PROFILES else profiles)
    if registry.find(name, version) is not None:
        return Submission("unchanged", f"{name} version {version} is already registered (same "
                          "command and files)", name, version, bot=registry.find(name, version))
    spec = BotSpec(name, spec.argv, version=version)
    report = qualify(spec, limits, matches=matches, profiles=profiles, conformance=True)
    if not report.passed:
        return _rejected(name, version, report, "")
    bot = registry.add(name, version, spec.argv, ".", None,
                       {"name": name, "command": shlex.join(spec.argv),
                        "profiles": list(profiles)}, report.to_dict())
    return Submission("registered", f"{name} version {version} registered (a command: its files "
                      "stay where they are)", name, version, report, "", bot)


def _command_hash(argv: tuple[str, ...], profiles: tuple[str, ...] = ()) -> str:
    """A command's version: its arguments, the contents of the files it names, and the variants it
    declares beyond the default (none: the same version as before profiles existed)."""
    digest = hashlib.sha256("\0".join(argv).encode())
    if profiles:
        digest.update(("\0profiles\0" + "\0".join(profiles)).encode())
    for item in argv:
        path = Path(item)
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _rejected(name: str, version: str, report: QualificationReport,
              build_output: str) -> Submission:
    failure = report.failure
    assert failure is not None
    return Submission("rejected", f"qualification failed in match {failure.match}: "
                      f"{failure.fault}: {failure.detail}", name, version, report, build_output)
