"""The registry of submitted bots: a SQLite file and the bots' folders, under the arena's data folder.

Layout (default data folder ``results/``, or ``$ARENA_DATA``)::

    results/registry/registry.sqlite     one row per (name, version)
    results/registry/bots/NAME/VERSION/  the bot's folder as built at submission

A bot's version is the content hash of its folder as submitted (before the build: builds are not
reproducible byte for byte), so a changed bot is a new version and an unchanged one is recognised.
A name means its newest version; ``NAME@VERSION`` names an older one. The registry folder is
private to the arena's user: sandboxed bots run as other users and cannot read their rivals' files.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from arena.arena_folders import private_file, private_folder
from arena.types import BotSpec

DATA_ENV = "ARENA_DATA"
DEFAULT_DATA = Path("results")
SKIPPED = {".git", "__pycache__", ".hg", ".svn"}  # not part of a bot: never hashed or copied
MAX_FOLDER_BYTES = 200 << 20  # each match copies the folder: keep bots reasonably small

_SCHEMA = """
CREATE TABLE IF NOT EXISTS bots (
    name TEXT NOT NULL,
    version TEXT NOT NULL,           -- content hash of the submitted folder (or command)
    command TEXT NOT NULL,           -- JSON argv, run in workdir
    workdir TEXT NOT NULL,
    folder TEXT,                     -- relative to the registry folder; NULL for a bare command
    manifest TEXT NOT NULL,          -- JSON: the manifest as submitted
    qualification TEXT NOT NULL,     -- JSON: the qualification report
    submitted TEXT NOT NULL,
    PRIMARY KEY (name, version)
);
"""


class RegistryError(ValueError):
    """A registry request that cannot be met (unknown bot, unreadable database, ...)."""


def data_dir() -> Path:
    """The data folder when none is given: ``$ARENA_DATA``, else ``results``."""
    return Path(os.environ.get(DATA_ENV) or DEFAULT_DATA)


@dataclass(frozen=True)
class RegisteredBot:
    name: str
    version: str
    argv: tuple[str, ...]
    workdir: str
    folder: Path | None
    manifest: dict[str, Any] = field(default_factory=dict)
    qualification: dict[str, Any] = field(default_factory=dict)
    submitted: str = ""

    @property
    def profiles(self) -> tuple[str, ...]:
        """The rules profiles the bot declares (its manifest's ``profiles``); bots registered
        before manifests had them, and bare commands, play the two-player ones."""
        from arena.entrants.manifest import TWO_PLAYER_PROFILES

        return tuple(self.manifest.get("profiles") or TWO_PLAYER_PROFILES)

    def spec(self) -> BotSpec:
        return BotSpec(self.name, self.argv, folder=str(self.folder) if self.folder else None,
                       workdir=self.workdir, version=self.version)


def content_hash(folder: Path) -> str:
    """SHA-256 of a folder's files (paths, executable bits, contents, symlink targets), 16 hex."""
    digest = hashlib.sha256()
    for path in _files(folder):
        rel = path.relative_to(folder).as_posix()
        if path.is_symlink():
            digest.update(f"L {rel} {os.readlink(path)}\n".encode())
            continue
        executable = "x" if os.access(path, os.X_OK) else "-"
        digest.update(f"F {rel} {executable} {path.stat().st_size}\n".encode())
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()[:16]


def folder_size(folder: Path) -> int:
    return sum(p.lstat().st_size for p in _files(folder))


def _files(folder: Path) -> Iterator[Path]:
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
        for name in sorted(files):
            yield Path(root) / name
        for name in dirs:  # a symlink to a folder is listed among dirs and not followed
            if (Path(root) / name).is_symlink():
                yield Path(root) / name


def copy_bot_folder(source: Path, target: Path) -> None:
    shutil.copytree(source, target, symlinks=True, ignore=shutil.ignore_patterns(*SKIPPED))


class Registry:
    """The registry under a data folder. ``Registry.open(data)``; ``close()`` when done."""

    def __init__(self, root: Path, db: sqlite3.Connection):
        self.root = root
        self.db = db

    @classmethod
    def open(cls, data: Path | None = None, create: bool = True) -> "Registry":
        root = (data or data_dir()) / "registry"
        path = root / "registry.sqlite"
        if not create and not path.is_file():
            raise RegistryError(f"no bot has been registered under {root.parent} yet")
        private_folder(root.parent, "data")
        private_folder(root, "registry")
        try:
            private_file(path)
            db = sqlite3.connect(path, isolation_level=None)
            db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as err:
            raise RegistryError(f"{path} is not a usable registry: {err}") from err
        return cls(root, db)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "Registry":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def folder_for(self, name: str, version: str) -> Path:
        return self.root / "bots" / name / version

    def add(self, name: str, version: str, argv: tuple[str, ...], workdir: str,
            folder: Path | None, manifest: dict[str, Any],
            qualification: dict[str, Any]) -> RegisteredBot:
        """Register a qualified bot; its folder must already be in place (``folder_for``)."""
        rel = str(folder.relative_to(self.root)) if folder else None
        submitted = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.db.execute("INSERT OR REPLACE INTO bots VALUES (?,?,?,?,?,?,?,?)",
                        (name, version, json.dumps(list(argv)), workdir, rel,
                         json.dumps(manifest), json.dumps(qualification), submitted))
        found = self.find(name, version)
        assert found is not None
        return found

    def find(self, name: str, version: str | None = None) -> RegisteredBot | None:
        """A bot by name (its newest version) or by name and version."""
        if version:
            rows = self.db.execute("SELECT * FROM bots WHERE name = ? AND version LIKE ?",
                                   (name, version + "%")).fetchall()
            if len(rows) > 1:
                raise RegistryError(f"version {version!r} of {name!r} is ambiguous: "
                                    f"{', '.join(r[1] for r in rows)}")
        else:
            rows = self.db.execute("SELECT * FROM bots WHERE name = ? ORDER BY submitted DESC, "
                                   "rowid DESC LIMIT 1", (name,)).fetchall()
        return self._bot(rows[0]) if rows else None

    def versions(self, name: str) -> list[RegisteredBot]:
        rows = self.db.execute("SELECT * FROM bots WHERE name = ? ORDER BY submitted DESC, "
                               "rowid DESC", (name,)).fetchall()
        return [self._bot(r) for r in rows]

    def newest(self) -> list[RegisteredBot]:
        """Every registered name with its newest version, by name."""
        names = [r[0] for r in self.db.execute("SELECT DISTINCT name FROM bots ORDER BY name")]
        return [bot for n in names if (bot := self.find(n)) is not None]

    def remove(self, name: str, version: str | None = None) -> list[str]:
        """Remove a bot's versions (all, or one); returns the versions removed."""
        gone = [b for b in self.versions(name) if not version or b.version.startswith(version)]
        for bot in gone:
            self.db.execute("DELETE FROM bots WHERE name = ? AND version = ?",
                            (bot.name, bot.version))
            if bot.folder is not None:
                shutil.rmtree(bot.folder, ignore_errors=True)
        if gone and not self.versions(name):
            shutil.rmtree(self.root / "bots" / name, ignore_errors=True)
        return [b.version for b in gone]

    def _bot(self, row: tuple[Any, ...]) -> RegisteredBot:
        name, version, command, workdir, folder, manifest, qualification, submitted = row
        return RegisteredBot(name, version, tuple(json.loads(command)), workdir,
                             self.root / folder if folder else None, json.loads(manifest),
                             json.loads(qualification), submitted)


def find_registered(text: str, data: Path | None = None) -> BotSpec | None:
    """``NAME`` or ``NAME@VERSION`` of a bot registered under the data folder (``data``, else
    ``data_dir()``), if there is one."""
    name, _, version = text.partition("@")
    if not ((data or data_dir()) / "registry" / "registry.sqlite").is_file():
        return None
    try:
        with Registry.open(data, create=False) as registry:
            bot = registry.find(name, version or None)
    except sqlite3.Error:
        return None
    return bot.spec() if bot else None
