"""Who plays in a league: the bots of ``league.toml`` and the registry, and those added or removed
with ``arena league add|remove`` (``members.sqlite``, those commands its only writers), resolved
to the bot versions the league runs."""

from __future__ import annotations

import sqlite3
import time
import urllib.parse
from dataclasses import dataclass, replace
from pathlib import Path

from arena.arena_folders import folders_looked_up_once, private_file
from arena.compete.league_config import LeagueConfig
from arena.entrants.bot_specs import BotSpecError, check_bot_paths, resolve_bot
from arena.entrants.registry import Registry, RegistryError
from arena.types import BotSpec, ConfigError

MEMBERS_NAME = "members.sqlite"
_MEMBERS_SCHEMA = """
CREATE TABLE IF NOT EXISTS members (
    family TEXT PRIMARY KEY,         -- the bot's name (a registered bot's, without version)
    text TEXT NOT NULL,              -- what was added: a bundled or registered name, a command
    state TEXT NOT NULL CHECK (state IN ('in', 'out')),
    changed TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS rating_resets (
    -- A request to start the ladder's ratings again (a final): the running league applies each
    -- before its next pair (league_ladder.RESETS_SCHEMA keeps where), the matches before kept.
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    requested TEXT NOT NULL
);
"""


def utc_now() -> str:
    """A moment as the league's tables write it (UTC, to the second)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@dataclass(frozen=True)
class Member:
    """A bot in the ladder: ``family`` is its name across versions, ``spec.name`` the name of this
    version in the store (``NAME@VERSION`` for a registered bot, else the family), ``text`` what
    the user wrote (cluster workers resolve bundled names themselves)."""

    family: str
    text: str
    spec: BotSpec

    @property
    def name(self) -> str:
        return self.spec.name


def store_name(spec: BotSpec) -> str:
    """A version of a registered bot is a bot of its own in the store (the store's bots never
    change command or version): ``NAME@VERSION`` with the version cut to 8 hex digits, which
    ``arena`` accepts wherever it takes a registered bot."""
    return f"{spec.name}@{spec.version[:8]}" if spec.version else spec.name


def set_membership(folder: Path, family: str, text: str, state: str) -> None:
    """Record that ``family`` is in (as ``text``) or out of the league: written by ``arena league
    add|remove``, read by the running league between pairs."""
    _write(folder, "INSERT OR REPLACE INTO members VALUES (?, ?, ?, ?)",
           (family, text, state, utc_now()))


def _write(folder: Path, statement: str, args: tuple[object, ...]) -> int:
    """One statement on ``members.sqlite`` (made, private, if missing); the row id it wrote."""
    path = folder / MEMBERS_NAME
    try:
        private_file(path)
        db = sqlite3.connect(path, timeout=30, isolation_level=None)
    except (OSError, sqlite3.Error) as err:
        raise ConfigError(f"cannot open {path}: {err}") from None
    try:
        db.executescript(_MEMBERS_SCHEMA)
        return db.execute(statement, args).lastrowid or 0
    except sqlite3.Error as err:
        raise ConfigError(f"cannot write {path}: {err}") from None
    finally:
        db.close()


def clear_membership(folder: Path, family: str) -> None:
    """Forget what ``add|remove`` said of ``family``: it plays if the settings or the registry
    say so (the site's enable of a bot it disabled)."""
    _write(folder, "DELETE FROM members WHERE family = ?", (family,))


def request_rating_reset(folder: Path) -> int:
    """Ask the running league to start its ratings again before its next pair; the request's
    number."""
    return _write(folder, "INSERT INTO rating_resets (requested) VALUES (?)", (utc_now(),))


def rating_reset_requests(folder: Path) -> list[tuple[int, str]]:
    """Every reset asked for: (number, when), oldest first (empty when none)."""
    path = folder / MEMBERS_NAME
    if not path.is_file():
        return []
    try:
        db = sqlite3.connect(f"file:{urllib.parse.quote(str(path.resolve()))}?mode=ro", uri=True,
                             timeout=30)
        try:
            if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'rating_resets'").fetchone() \
                    is None:
                return []
            return db.execute("SELECT id, requested FROM rating_resets ORDER BY id").fetchall()
        finally:
            db.close()
    except sqlite3.Error as err:
        raise ConfigError(f"cannot read {path}: {err}") from None


def membership(folder: Path) -> dict[str, tuple[str, str]]:
    """{family: (text, state)} from ``members.sqlite``, read only (empty when nobody was added)."""
    path = folder / MEMBERS_NAME
    if not path.is_file():
        return {}
    try:
        db = sqlite3.connect(f"file:{urllib.parse.quote(str(path.resolve()))}?mode=ro", uri=True,
                             timeout=30)
        try:
            # Made but not yet written: ``_write`` makes the file (private) before its tables,
            # and a league that read it in between ended, "no such table: members".
            if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'members'").fetchone() is None:
                return {}
            rows = db.execute("SELECT family, text, state FROM members").fetchall()
        finally:
            db.close()
    except sqlite3.Error as err:
        raise ConfigError(f"cannot read {path}: {err}") from None
    return {family: (text, state) for family, text, state in rows}


def resolve_member(text: str, data: Path, folder: Path) -> Member:
    """A bot as the league in ``folder`` runs it: ``BotSpecError`` when it cannot be found or run,
    or when its command names the league's folder (its store holds the deal key), the data folder
    or the registry."""
    spec = resolve_bot(text, data=data)
    check_bot_paths(spec, [data, data / "registry"], [folder])
    return Member(spec.name, text, replace(spec, name=store_name(spec)))


def current_members(folder: Path, config: LeagueConfig,
                    data: Path) -> tuple[list[Member], list[str]]:
    """The ladder now: the settings' bots, every registered bot if ``registered``, and those added
    with ``arena league add``, less those removed; each registered bot as its newest version
    (unless pinned with NAME@VERSION). Returns the members and a line per bot that cannot take
    part (unknown, or not playing the profile)."""
    texts: list[str] = list(config.bots)
    if config.registered and (data / "registry" / "registry.sqlite").is_file():
        try:
            with Registry.open(data, create=False) as registry:
                texts += [bot.name for bot in registry.newest() if config.profile in bot.profiles]
        except (RegistryError, sqlite3.Error) as err:
            return [], [f"the registry under {data} cannot be read: {err}"]
    changes = membership(folder)
    texts += [text for text, state in changes.values() if state == "in"]
    members: dict[str, Member] = {}
    problems: list[str] = []
    with folders_looked_up_once():  # the members' paths share their parents
        for text in texts:
            try:
                member = resolve_member(text, data, folder)
            except BotSpecError as err:
                problems.append(f"bot {text!r} cannot take part: {err}")
                continue
            if changes.get(member.family, ("", "in"))[1] == "out":
                continue
            if member.family in members:
                continue  # named twice (in the file and added): once is enough
            members[member.family] = member
    return sorted(members.values(), key=lambda m: m.family), problems


# -- the store's league tables ---------------------------------------------------------------------

