"""A league's settings: ``league.toml`` (``EXAMPLE``, written by ``arena league init``), read and
checked into a ``LeagueConfig``; which rules and sandbox limits they mean."""

from __future__ import annotations

import tomllib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping

from arena.arena_folders import private_folder
from arena.compete.tournament import check_isolation
from arena.game import Rules, RulesError, load_rules
from arena.isolation.limits import SandboxLimits
from arena.isolation.worker_cores import (
    AFFINITY_WORDS,
    AUTO,
    Affinity,
    default_workers,
    is_affinity,
)
from arena.match.bot_process import DEFAULT_DECISION_MS, DEFAULT_STARTUP_MS, Limits, clock_problem
from arena.types import ConfigError

CONFIG_NAME = "league.toml"
DEFAULT_PUBLISH_EVERY_S = 300.0
EXAMPLE = """\
# A standing league: `arena league DIR` plays until stopped (Ctrl-C or kill -TERM) and continues
# where it stopped when started again. Bots may be added, removed or resubmitted while it runs.
name = "league"                 # letters, digits, '-' or '_'

# Which bots take part (read again between pairs). Bundled names ("greedy", "c-counter"), bots
# registered with `arena submit` (a name means its newest version: a new submission replaces the
# old one in the ladder; NAME@VERSION pins one), or commands. `arena league add DIR BOT` and
# `arena league remove DIR BOT` change the membership without editing this file.
bots = ["random", "first-legal"]
registered = false              # true: every bot registered with `arena submit` (that plays
                                # the profile) takes part

# The game (fixed once the league has played: a change would mix two leagues in one table).
profile = "sixty_six"           # sixty_six, schnapsen, vu_compat (pairs of bots), or
                                # three_player, four_player (groups of three or four bots, each
                                # group's deals in six seatings; four players in partnerships)
decision_ms = 1000              # time limit per decision
startup_ms = 5000               # time limit to start
# bank_ms = 10000               # a time bank per bot and match, drawn on beyond decision_ms
# first_decision_ms = 5000      # a bot's first decision's limit (a JIT warming up)
max_deals = 200                 # deals per match at most
# [rules]                       # flag overrides of the profile (arena rules show --toml)
# match_target = 11
# [sandbox]                     # limits per bot process (docs/organisers/isolation.md)
# memory_mb = 512

# Where and how (may change between runs).
isolation = ""                  # "", isolated, namespaces or limits ("": $ARENA_ISOLATION)
workers = 0                     # local worker processes; 0: all cores
affinity = "auto"               # each worker and its bots keep to a core of their own: "auto"
                                # where no other arena has claimed it, true always, false never
cluster = ""                    # a Dask scheduler, tcp://HOST:8786, to play there instead

# Publishing: the report, replays, statistics and the league page are rewritten every
# publish_every seconds (and when the league stops) into PUBLISH/current, switched atomically.
publish = ""                    # a folder (relative to DIR); "": DIR/public. Serve PUBLISH/current.
publish_every = 300             # seconds; 0: only when the league stops
"""


@dataclass(frozen=True)
class LeagueConfig:
    """A league's settings (``EXAMPLE`` says what each means)."""

    name: str = "league"
    bots: tuple[str, ...] = ()
    registered: bool = False
    profile: str = "sixty_six"
    rules: Mapping[str, Any] = field(default_factory=dict)
    decision_ms: int = DEFAULT_DECISION_MS
    startup_ms: int = DEFAULT_STARTUP_MS
    bank_ms: int = 0                 # PROTOCOL.md §6; 0: none
    first_decision_ms: int = 0       # 0: decision_ms
    max_deals: int = 200
    sandbox: Mapping[str, Any] = field(default_factory=dict)
    isolation: str = ""
    workers: int = 0
    affinity: Affinity = AUTO
    cluster: str = ""
    publish: str = ""
    publish_every: float = DEFAULT_PUBLISH_EVERY_S

    def settings(self) -> dict[str, Any]:
        """What defines the league's results (stored; a continued league must keep them)."""
        data = {k: v for k, v in asdict(self).items()
                if k in ("profile", "decision_ms", "startup_ms", "max_deals")
                or k in ("bank_ms", "first_decision_ms") and v}  # 0: stored as before a bank
        data["rules"] = dict(self.rules)
        data["sandbox"] = dict(self.sandbox)
        data["league"] = True
        return data

    def limits(self, sandbox: SandboxLimits) -> Limits:
        """The limits of its matches (bot_process.Limits)."""
        return Limits(decision_ms=self.decision_ms, startup_ms=self.startup_ms,
                      bank_ms=self.bank_ms, first_decision_ms=self.first_decision_ms,
                      sandbox=sandbox)

    def publish_dir(self, folder: Path) -> Path:
        """Where builds go: ``publish`` (relative to the league's folder), else ``DIR/public``."""
        return folder / (self.publish or "public")

    def worker_count(self) -> int:
        return self.workers or default_workers()


_TYPES: dict[str, tuple[Any, str]] = {
    "name": (str, "a string"),
    "bots": ((list, tuple), 'a list of bot names or commands, like ["greedy", "mybot"]'),
    "registered": (bool, "true or false"),
    "profile": (str, "a rules profile name (a string)"),
    "rules": (Mapping, "a table of flag = value"),
    "decision_ms": (int, "a whole number of milliseconds"),
    "startup_ms": (int, "a whole number of milliseconds"),
    "bank_ms": (int, "a whole number of milliseconds"),
    "first_decision_ms": (int, "a whole number of milliseconds"),
    "max_deals": (int, "a whole number"),
    "sandbox": (Mapping, "a table of limit = number"),
    "isolation": (str, "a sandbox level: isolated, namespaces or limits (a string)"),
    "workers": (int, "a whole number"),
    "affinity": ((bool, str), AFFINITY_WORDS),
    "cluster": (str, "an address like tcp://HOST:8786 (a string)"),
    "publish": (str, "a folder path (a string)"),
    "publish_every": ((int, float), "a number of seconds"),
}

_KEYS = {f.name for f in fields(LeagueConfig)}


def init_league(folder: Path) -> Path:
    """Write the commented example settings into ``folder`` (made if missing); an existing file is
    left alone. Returns its path."""
    path = folder / CONFIG_NAME
    try:
        private_folder(folder, "league")
        if not path.exists():
            partial = path.with_name(f".{CONFIG_NAME}.partial")
            partial.write_text(EXAMPLE, encoding="utf-8")
            partial.replace(path)
    except OSError as err:
        raise ConfigError(f"cannot write {path}: {err.strerror or err}") from None
    return path


def load_league_config(folder: Path, overrides: Mapping[str, Any] | None = None) -> LeagueConfig:
    """``folder/league.toml``, then ``overrides`` (command-line flags; None values ignored). Every
    problem is a ``ConfigError`` naming the file and the setting."""
    path = folder / CONFIG_NAME
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(f"{folder} holds no league ({CONFIG_NAME} is missing); start one with "
                          f"arena league init {folder}") from None
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
    for key, value in data.items():
        kind, what = _TYPES[key]
        if isinstance(value, bool) and kind is not bool and bool not in (
                kind if isinstance(kind, tuple) else (kind,)) or not isinstance(value, kind) \
                or key == "affinity" and not is_affinity(value):
            raise ConfigError(f"{path}: setting {key!r} must be {what}, not {value!r}"[:400])
    if not all(isinstance(b, str) and b.strip() for b in data.get("bots", [])):
        raise ConfigError(f"{path}: each of 'bots' must be a non-empty name or command")
    data.update({k: v for k, v in (overrides or {}).items() if v is not None})
    data["bots"] = tuple(data.get("bots", ()))
    config = LeagueConfig(**data)
    try:
        _check(config)
    except ConfigError as err:
        raise ConfigError(f"{path}: {err}") from None
    return config


def _check(config: LeagueConfig) -> None:
    name = config.name.replace("-", "").replace("_", "")
    if not name.isalnum():
        raise ConfigError(f"name must be letters, digits, '-' or '_', not {config.name!r}")
    for key in ("decision_ms", "startup_ms", "max_deals"):
        if getattr(config, key) <= 0:
            raise ConfigError(f"{key} must be positive, not {getattr(config, key)}")
    for key in ("bank_ms", "first_decision_ms"):
        if getattr(config, key) < 0:
            raise ConfigError(f"{key} must be 0 or more, not {getattr(config, key)}")
    problem = clock_problem(config.decision_ms, config.first_decision_ms)
    if problem:
        raise ConfigError(problem)
    if config.workers < 0 or config.publish_every < 0:
        raise ConfigError("workers and publish_every must be >= 0")
    rules_of(config)
    sandbox_limits(config)
    check_isolation(config.isolation)


def rules_of(config: LeagueConfig) -> Rules:
    try:
        rules = load_rules(config.profile, overrides=config.rules)
    except RulesError as err:
        raise ConfigError(str(err)) from None
    if rules.players not in (2, 3, 4):
        raise ConfigError(f"a league plays two, three or four players; {config.profile} is for "
                          f"{rules.players} players")
    return rules


def sandbox_limits(config: LeagueConfig) -> SandboxLimits:
    try:
        return SandboxLimits.from_mapping(config.sandbox)
    except ValueError as err:
        raise ConfigError(str(err)) from None


class LeagueError(RuntimeError):
    """A league that had to stop (a full disk, a worker that kept dying, a store that failed):
    every stored match is whole and ``arena league DIR`` continues. Settings that cannot run are
    a ``ConfigError``."""


# -- membership ------------------------------------------------------------------------------------

