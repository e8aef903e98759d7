"""A competition's settings: ``DIR/competition.toml`` (``EXAMPLE``, written on the first start),
read and checked into ``Settings``; the league's own ``league.toml`` is written from them.

The competition's folder::

    DIR/competition.toml     these settings (the organiser's)
    DIR/site.sqlite          accounts, token hashes, sessions, bot owners, uploads and their logs
    DIR/session.key          the secret that signs the login cookies (sessions.py)
    DIR/uploads/ID/          an upload: its archive, unpacked while it waits for its turn
    DIR/data/registry/       the bots that qualified (arena submit's registry)
    DIR/league/              the league (league.toml written from these settings, its results)
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from arena.arena_folders import open_private, private_folder
from arena.types import ConfigError

CONFIG_NAME = "competition.toml"
LEAGUE_DIR = "league"
DATA_DIR = "data"
UPLOADS_DIR = "uploads"
MIB = 1 << 20

EXAMPLE = """\
# A competition: `arena serve DIR` serves its website and JSON API and plays its league until stopped
# (Ctrl-C or kill -TERM). Read at every start; the league's settings (league/league.toml) are written
# from these, so edit this file, not that one.
name = "competition"            # letters, digits, '-' or '_'

# The game (fixed once the league has played: a change would mix two leagues in one table).
profile = "sixty_six"           # sixty_six, schnapsen, vu_compat (docs/organisers/league.md)
decision_ms = 1000              # time limit per decision, in the league and in qualification
startup_ms = 5000               # time limit to start
house_bots = ["random"]         # bundled bots that always play: a first upload has an opponent

# Who may register.
registration = "open"           # "open", or "invitation": an account needs invitation_code
invitation_code = ""
https = false                   # true behind a reverse proxy with HTTPS: the login cookie is
                                # then sent over HTTPS only (Secure)

# Uploads: a zip or tar.gz of a bot's folder (docs/organisers/website.md).
upload_mb = 20                  # the largest archive, refused before it is read whole
unpacked_mb = 100               # the most it may hold unpacked (counted while unpacking)
unpacked_files = 1000           # the most files and folders it may hold
uploads_per_hour = 20           # per author
logins_per_minute = 10          # accounts made and tokens asked for, per client address

# Where the league plays (may change between starts).
isolation = ""                  # "", isolated, namespaces or limits ("": $ARENA_ISOLATION)
workers = 0                     # local worker processes; 0: all cores
publish_every = 0               # seconds between static publishes of the league's report
                                # (league/public/current), served as the site's statistics
                                # pages at /stats/; 0: never (no statistics pages)
"""


@dataclass(frozen=True)
class Settings:
    """A competition's settings (``EXAMPLE`` says what each means)."""

    name: str = "competition"
    profile: str = "sixty_six"
    decision_ms: int = 1000
    startup_ms: int = 5000
    house_bots: tuple[str, ...] = ("random",)
    registration: str = "open"
    invitation_code: str = ""
    https: bool = False
    upload_mb: int = 20
    unpacked_mb: int = 100
    unpacked_files: int = 1000
    uploads_per_hour: int = 20
    logins_per_minute: int = 10
    isolation: str = ""
    workers: int = 0
    publish_every: float = 0
    folder: Path = field(default=Path("."), compare=False)

    @property
    def upload_bytes(self) -> int:
        return self.upload_mb * MIB

    @property
    def unpacked_bytes(self) -> int:
        return self.unpacked_mb * MIB

    @property
    def league_dir(self) -> Path:
        return self.folder / LEAGUE_DIR

    @property
    def data_dir(self) -> Path:
        return self.folder / DATA_DIR

    @property
    def stats_dir(self) -> Path:
        """The league's newest static publish (``publish_every``; league.toml names no other
        folder, so the league's default, ``public``): the report's statistics pages, charts,
        head-to-head and replays, public by construction (report/public.py). Switched whole."""
        return self.league_dir / "public" / "current"

    @property
    def uploads_dir(self) -> Path:
        return self.folder / UPLOADS_DIR


_KEYS = {f.name for f in fields(Settings)} - {"folder"}
_POSITIVE = ("decision_ms", "startup_ms", "upload_mb", "unpacked_mb", "unpacked_files",
             "uploads_per_hour", "logins_per_minute")


def init_competition(folder: Path) -> Path | None:
    """Write the commented example settings into ``folder`` (made, private, if missing). Returns
    the path when it was written now, None when the file was there already."""
    path = folder / CONFIG_NAME
    try:
        private_folder(folder, "competition")
        if path.exists():
            return None
        fd = open_private(path, os.O_WRONLY | os.O_EXCL)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(EXAMPLE)
    except FileExistsError:
        return None
    except OSError as err:
        raise ConfigError(f"cannot write {path}: {err.strerror or err}") from None
    return path


def load_settings(folder: Path) -> Settings:
    """``folder/competition.toml``, checked: every problem is a ``ConfigError`` naming the file
    and the setting."""
    path = folder / CONFIG_NAME
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(f"{folder} holds no competition ({CONFIG_NAME} is missing); "
                          f"arena serve {folder} writes one") from None
    except OSError as err:
        raise ConfigError(f"cannot read {path}: {err.strerror or err}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not a text file (not UTF-8)") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path} is not valid TOML: {err}") from None
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ConfigError(f"unknown setting(s) in {path}: {', '.join(unknown)}; known settings: "
                          f"{', '.join(sorted(_KEYS))}")
    defaults = Settings()
    for key, value in data.items():
        wanted = type(getattr(defaults, key))
        ok = isinstance(value, (int, float)) if wanted is float else \
            isinstance(value, list) if wanted is tuple else isinstance(value, wanted)
        if (isinstance(value, bool) and wanted is not bool) or not ok:
            raise ConfigError(f"{path}: setting {key!r} must be {_what(wanted)}, "
                              f"not {value!r}"[:400])
    if "house_bots" in data:
        if not all(isinstance(b, str) and b.strip() for b in data["house_bots"]):
            raise ConfigError(f"{path}: each of 'house_bots' must be a bundled bot's name")
        data["house_bots"] = tuple(data["house_bots"])
    settings = Settings(**data, folder=folder)
    try:
        _check(settings)
    except ConfigError as err:
        raise ConfigError(f"{path}: {err}") from None
    return settings


def _what(kind: type) -> str:
    return {str: "a string", bool: "true or false", int: "a whole number", float: "a number",
            tuple: "a list of names"}.get(kind, kind.__name__)


def _check(settings: Settings) -> None:
    if not settings.name.replace("-", "").replace("_", "").isalnum():
        raise ConfigError(f"name must be letters, digits, '-' or '_', not {settings.name!r}")
    for key in _POSITIVE:
        if getattr(settings, key) <= 0:
            raise ConfigError(f"{key} must be positive, not {getattr(settings, key)}")
    if settings.workers < 0 or settings.publish_every < 0:
        raise ConfigError("workers and publish_every must be >= 0")
    if settings.registration not in ("open", "invitation"):
        raise ConfigError(f"registration must be \"open\" or \"invitation\", "
                          f"not {settings.registration!r}")
    if settings.registration == "invitation" and len(settings.invitation_code) < 8:
        # A short code is guessed within the login rate limit's patience.
        raise ConfigError("registration by invitation needs an invitation_code of 8 characters "
                          "or more")


def league_toml(settings: Settings) -> str:
    """The league's settings as ``arena league`` reads them (compete/league_config.py): the house
    bots and every registered bot that plays the profile; a new version of a bot takes its old
    one's place in the ladder."""
    def text(value: Any) -> str:
        return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'

    bots = ", ".join(text(b) for b in settings.house_bots)
    return (f"# Written by arena serve from ../{CONFIG_NAME} at each start: edit that file.\n"
            f"name = {text(settings.name)}\n"
            f"bots = [{bots}]\n"
            "registered = true\n"
            f"profile = {text(settings.profile)}\n"
            f"decision_ms = {settings.decision_ms}\n"
            f"startup_ms = {settings.startup_ms}\n"
            f"isolation = {text(settings.isolation)}\n"
            f"workers = {settings.workers}\n"
            f"publish_every = {settings.publish_every}\n")


def write_league_settings(settings: Settings) -> Path:
    """Write ``DIR/league/league.toml`` from the competition's settings (replaced whole: a
    running league reads it between pairs and must never see half of it); checked by the
    league's own reader, so a profile the league cannot play is said before anything starts."""
    from arena.compete.league_config import CONFIG_NAME as LEAGUE_CONFIG
    from arena.compete.league_config import load_league_config

    league = settings.league_dir
    path = league / LEAGUE_CONFIG
    partial = league / f".{LEAGUE_CONFIG}.partial"
    try:
        private_folder(league, "league")
        private_folder(settings.data_dir, "data")
        fd = open_private(partial, os.O_WRONLY | os.O_TRUNC)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(league_toml(settings))
        os.replace(partial, path)
    except OSError as err:
        raise ConfigError(f"cannot write {path}: {err.strerror or err}") from None
    load_league_config(league)
    return path
