"""A bot's manifest, ``bot.toml``: what a submitted bot is and how to build and run it.

```toml
name = "mybot"                # 1-64 of A-Z a-z 0-9 _ . + - (the name on the wire, PROTOCOL.md §3)
version = "1.2"               # the author's label; the registry's version is the folder's hash
command = "python3 bot.py"    # run in `workdir`, split like a shell would (never run by one)
workdir = "."                 # where the command runs, inside the bot's folder (default ".")
build = "make"                # optional: run once at submission, in the bot's folder, sandboxed
language = "python"           # optional, informative
author = "Ann Example"        # optional, informative
profiles = ["sixty_six", "three_player"]   # optional: the rules profiles the bot plays
```

``profiles`` lists the variants the bot declares (names of ``arena rules list``). Left out, it is
every two-player profile, which any bot speaking PROTOCOL.md §3-§7 plays, so manifests written
before three- and four-player Sixty-Six stay valid. Qualification plays each declared three- or
four-player profile; a bot is never asked to play a variant it did not declare.

``python`` or ``python3`` as the program means the arena's own Python, which has the ``protocol``
SDK installed.
"""

from __future__ import annotations

import re
import shlex
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from arena.game import PROFILES

MANIFEST_NAME = "bot.toml"
# What a bot plays when its manifest does not say: the two-player profiles (PROTOCOL.md §3-§7).
TWO_PLAYER_PROFILES: tuple[str, ...] = tuple(name for name, rules in PROFILES.items()
                                             if rules.players == 2)
NAME_PATTERN = re.compile(r"[A-Za-z0-9_.+-]{1,64}")
_PYTHONS = {"python", "python3"}


class ManifestError(ValueError):
    """A manifest that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class Manifest:
    name: str
    command: tuple[str, ...]
    version: str = ""
    workdir: str = "."
    build: tuple[str, ...] = ()
    language: str = ""
    author: str = ""
    profiles: tuple[str, ...] = TWO_PLAYER_PROFILES

    def argv(self) -> tuple[str, ...]:
        """The command to run, with ``python``/``python3`` meaning the arena's Python."""
        if self.command[0] in _PYTHONS:
            return (sys.executable, *self.command[1:])
        return self.command

    def build_argv(self) -> tuple[str, ...]:
        if self.build and self.build[0] in _PYTHONS:
            return (sys.executable, *self.build[1:])
        return self.build

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "command": shlex.join(self.command),
                "workdir": self.workdir, "build": shlex.join(self.build),
                "language": self.language, "author": self.author, "profiles": list(self.profiles)}


_KEYS = {"name": True, "command": True, "version": False, "workdir": False, "build": False,
         "language": False, "author": False, "profiles": False}


def check_name(name: object, where: str = "name") -> str:
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise ManifestError(f"{where} must be 1 to 64 characters from A-Z a-z 0-9 _ . + - "
                            f"(PROTOCOL.md §3), not {name!r}")
    return name


def check_profiles(value: object, where: str = "profiles") -> tuple[str, ...]:
    """A list of profile names, each known and listed once."""
    if not isinstance(value, (list, tuple)) or not value \
            or not all(isinstance(v, str) for v in value):
        raise ManifestError(f"{where} must be a non-empty list of profile names, like "
                            f'["sixty_six", "three_player"], not {value!r}')
    unknown = [v for v in value if v not in PROFILES]
    if unknown:
        raise ManifestError(f"{where}: unknown profile(s) {', '.join(map(repr, unknown))}; known: "
                            f"{', '.join(PROFILES)}")
    if len(set(value)) != len(value):
        raise ManifestError(f"{where} lists a profile twice: {value!r}")
    return tuple(value)


def parse_manifest(data: dict[str, Any], source: str = MANIFEST_NAME) -> Manifest:
    """A manifest from a TOML table; every problem is a ``ManifestError`` naming the key."""
    unknown = sorted(set(data) - set(_KEYS))
    if unknown:
        raise ManifestError(f"{source}: unknown key(s) {', '.join(unknown)}; known keys: "
                            f"{', '.join(_KEYS)}")
    missing = [k for k, required in _KEYS.items() if required and k not in data]
    if missing:
        raise ManifestError(f"{source}: missing key(s) {', '.join(missing)}")
    profiles = check_profiles(data.get("profiles", TWO_PLAYER_PROFILES), f"{source}: profiles")
    for key, value in data.items():
        if key != "profiles" and not isinstance(value, str):
            raise ManifestError(f"{source}: {key} must be a string, not {value!r}")
    name = check_name(data["name"], f"{source}: name")
    command = _split(data["command"], source, "command")
    if not command:
        raise ManifestError(f"{source}: command is empty")
    build = _split(data.get("build", ""), source, "build")
    workdir = data.get("workdir", ".") or "."
    path = PurePosixPath(workdir)
    if path.is_absolute() or ".." in path.parts:
        raise ManifestError(f"{source}: workdir must be a folder inside the bot's folder, "
                            f"not {workdir!r}")
    return Manifest(name=name, command=command, version=data.get("version", ""),
                    workdir=str(path), build=build, language=data.get("language", ""),
                    author=data.get("author", ""), profiles=profiles)


def _split(text: str, source: str, key: str) -> tuple[str, ...]:
    try:
        return tuple(shlex.split(text))
    except ValueError as err:
        raise ManifestError(f"{source}: cannot split {key} {text!r}: {err}") from None


def load_manifest(folder: Path) -> Manifest:
    """The manifest of a bot folder, checked against the folder (the working folder exists)."""
    path = folder / MANIFEST_NAME
    if not folder.is_dir():
        raise ManifestError(f"{folder} is not a folder")
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise ManifestError(f"{folder} has no {MANIFEST_NAME} (see docs/authors/submitting.md)") \
            from None
    except OSError as err:
        raise ManifestError(f"cannot read {path}: {err.strerror}") from None
    except tomllib.TOMLDecodeError as err:
        raise ManifestError(f"{path} is not valid TOML: {err}") from None
    manifest = parse_manifest(data, str(path))
    if not (folder / manifest.workdir).is_dir() and not manifest.build:
        raise ManifestError(f"{path}: workdir {manifest.workdir!r} is not a folder in {folder}")
    return manifest
