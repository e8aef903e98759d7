"""A standing league (issue 19): a ladder that keeps playing duplicate pairs, takes new bots and new
versions while it runs, and republishes its report every few minutes.

A league lives in a folder ``DIR``:

- ``DIR/league.toml``: the settings (``EXAMPLE``; ``arena league init DIR`` writes it). Which bots
  take part (``bots``, ``registered``) is read again between pairs; the rest is fixed per run.
- ``DIR/members.sqlite``: bots added and removed with ``arena league add|remove`` (those commands
  are its only writers, so they never contend with the running league for the results store).
- ``DIR/results.sqlite``: a tournament store (``store.py``) written by the running league only:
  every match in one transaction, the secret deal key, and two tables of the league's own:
  ``league_bots`` (every bot version that joined, with the spec it ran with) and ``league_pairs``
  (every duplicate pair, stored *before* its matches are sent out).

Nothing is lost or played twice after any stop, ``kill -9`` included: a pair is written down before
it is played, its two matches share one deal set (the same cards, seats swapped: RULES.md §8), and
a continued league first completes every pair the store holds only part of, dealt from the same
key and label, with the bot versions the pair was started with. Match ids are the primary key of
the store, so a match is never stored twice.

Who plays next is ``matchmaking.py``'s rule. A registered bot takes part as its newest version: a
new ``arena submit`` of it is a new bot of the store (``NAME@VERSION``, the registry's own way to
name a version) that replaces the old one in the ladder; the old version's matches stay in the
history (``league_publish.py`` draws every version's rating).

Three- and four-player profiles play **groups** instead of pairs: ``matchmaking.next_group``
chooses three or four bots by the same rule, and the group's one deal set is played in its six
seatings (``schedule.group_seatings``, as a tournament plays a set), rated with TrueSkill's teams
(``ratings.rate_match``). A group (its bots and seatings) is written to ``league_groups`` before
its matches are sent out, and completed as a pair is after a stop. A group needs as many bots as
seats (no bot partners itself in a league).
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import sqlite3
import time
import tomllib
import urllib.parse
from contextlib import ExitStack, closing
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, Sequence

import trueskill

from arena.arena_folders import private_file, private_folder
from arena.match.bot_process import DEFAULT_DECISION_MS, DEFAULT_STARTUP_MS, Limits
from arena.entrants.bot_specs import BotSpecError, check_bot_paths, resolve_bot
from arena.match.deal_keys import deal_secret, deal_set_label, new_key
from arena.compete.folder_lock import FolderLock, FolderLockedError
from arena.game import Rules, RulesError, load_rules
from arena.compete.league_ladder import LadderRow, Record, read_figures, settle, waiting_pairs
from arena.compete.league_ladder import SCHEMA as RATINGS_SCHEMA
from arena.compete.match_job import MatchJob, play_job
from arena.compete.matchmaking import GroupWindow, PairWindow, Standing, group_window_size, next_group, \
    next_pair, window_size
from arena.compete.pool import Pool, WorkerError
from arena.entrants.preflight import PreflightError, preflight
from arena.results.rating_replay import ENV
from arena.results.ratings import rate_match, ranks_of, side_of, store_players
from arena.entrants.registry import Registry, RegistryError, data_dir
from arena.isolation.sandbox import SandboxLimits, SandboxUnavailable, check_memory, data_folders, \
    waiting_bots_yield
from arena.types import ScheduledMatch
from arena.compete.schedule import group_seatings
from arena.results.store import DB_NAME, DiskFullError, Store, StoreError, connect_read_only
from arena.compete.tournament import check_isolation, run_log
from arena.types import BotSpec, ConfigError, MatchEnding, MatchResult
from arena.isolation.worker_cores import AFFINITY_WORDS, AUTO, Affinity, default_workers, for_run, \
    is_affinity

if TYPE_CHECKING:
    from arena.compete.league_publish import Publisher  # which imports this module

log = logging.getLogger("arena.compete.league")

CONFIG_NAME = "league.toml"
MEMBERS_NAME = "members.sqlite"
LOG_NAME = "league.log"
DEFAULT_PUBLISH_EVERY_S = 300.0
IDLE_POLL_S = 1.0   # with fewer than two bots, how often the league looks for new members
# A publish in the background that takes longer than this is ended and said (the league plays on,
# the previous build stays current, the next turn publishes again): one stuck would hold every
# later publish back. An hour is many times what a league of 100,000 matches needs.
PUBLISH_TIMEOUT_S = 3600.0
# The last publish, as the league stops, must end within this many seconds of the stop signal:
# `docker stop` and systemd kill ten seconds after their SIGTERM, and the bots and workers must
# be ended and the store closed as well. A publish that has not finished by then is ended, the
# previous build stays current, and the next start (or `arena league publish DIR`) publishes.
STOP_PUBLISH_S = 7.0
REFRESH_S = 1.0     # how often membership (settings, members.sqlite, registry) is read again
# ... or less often, so that reading it takes at most this share of the league's time: each read
# resolves and checks every bot's command, 1 s for 200 bots on a loaded machine, and a league that
# read them every second played one pair a second (scripts/bench_league_scale.py).
REFRESH_SHARE = 0.1

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
                if k in ("profile", "decision_ms", "startup_ms", "max_deals")}
        data["rules"] = dict(self.rules)
        data["sandbox"] = dict(self.sandbox)
        data["league"] = True
        return data

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

_MEMBERS_SCHEMA = """
CREATE TABLE IF NOT EXISTS members (
    family TEXT PRIMARY KEY,         -- the bot's name (a registered bot's, without version)
    text TEXT NOT NULL,              -- what was added: a bundled or registered name, a command
    state TEXT NOT NULL CHECK (state IN ('in', 'out')),
    changed TEXT NOT NULL
);
"""


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
    path = folder / MEMBERS_NAME
    try:
        private_file(path)
        db = sqlite3.connect(path, timeout=30, isolation_level=None)
    except (OSError, sqlite3.Error) as err:
        raise ConfigError(f"cannot open {path}: {err}") from None
    try:
        db.executescript(_MEMBERS_SCHEMA)
        db.execute("INSERT OR REPLACE INTO members VALUES (?, ?, ?, ?)",
                   (family, text, state, _now()))
    except sqlite3.Error as err:
        raise ConfigError(f"cannot write {path}: {err}") from None
    finally:
        db.close()


def membership(folder: Path) -> dict[str, tuple[str, str]]:
    """{family: (text, state)} from ``members.sqlite``, read only (empty when nobody was added)."""
    path = folder / MEMBERS_NAME
    if not path.is_file():
        return {}
    try:
        db = sqlite3.connect(f"file:{urllib.parse.quote(str(path.resolve()))}?mode=ro", uri=True,
                             timeout=30)
        try:
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

_LEAGUE_SCHEMA = """
CREATE TABLE IF NOT EXISTS league_bots (
    name TEXT PRIMARY KEY REFERENCES bots(name),  -- as in the store: NAME@VERSION if registered
    family TEXT NOT NULL,            -- the name across versions
    text TEXT NOT NULL,              -- what the settings or `arena league add` said
    spec TEXT NOT NULL,              -- JSON of the BotSpec it runs with (completes its pairs)
    joined TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS league_pairs (
    -- Written before the pair's two matches are sent out: a continued league completes every pair
    -- here whose matches the store does not hold both of, on the same deal set.
    pair_no INTEGER PRIMARY KEY,
    a TEXT NOT NULL REFERENCES bots(name),
    b TEXT NOT NULL REFERENCES bots(name),
    started TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS league_groups (
    -- Three and four players: as league_pairs, a group of bots and the seatings its one deal set
    -- is played in, written before its matches are sent out.
    group_no INTEGER PRIMARY KEY,
    bots TEXT NOT NULL,              -- JSON list of the group's bots, in the order chosen
    seatings TEXT NOT NULL,          -- JSON list of seatings, each a list of bots in seat order
    started TEXT NOT NULL
);
"""


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def pair_matches(league: str, pair_no: int, a: str, b: str) -> list[ScheduledMatch]:
    """The two matches of duplicate pair ``pair_no``: one deal set, seats swapped (RULES.md §8).
    Ids come from the league's name, the pair and the bots, never from the key or the time."""
    deal_set = deal_set_label("league", pair_no, a, b)
    matches = []
    for swapped in (0, 1):
        digest = hashlib.sha256(json.dumps([league, pair_no, a, b, swapped]).encode()).hexdigest()
        match_id = f"L{pair_no:06d}{'ab'[swapped]}-{digest[:12]}"
        seats = (b, a) if swapped else (a, b)
        matches.append(ScheduledMatch(2 * pair_no + swapped, match_id, seats, deal_set,
                                      pair_no % 2, (a, b), pair_no, swapped))
    return matches


@dataclass(frozen=True)
class StoredPair:
    pair_no: int
    a: str
    b: str
    stored: frozenset[str]   # match ids of the pair already in the store


def league_pairs(db: sqlite3.Connection, league: str) -> list[StoredPair]:
    """Every pair the league started, with which of its matches are stored."""
    if not _has_league_tables(db):
        return []
    done = {row[0] for row in db.execute("SELECT match_id FROM matches")}
    pairs = []
    for pair_no, a, b in db.execute("SELECT pair_no, a, b FROM league_pairs ORDER BY pair_no"):
        ids = {m.match_id for m in pair_matches(league, pair_no, a, b)}
        pairs.append(StoredPair(pair_no, a, b, frozenset(ids & done)))
    return pairs


SEATINGS = 6  # the matches of a group's deal set (schedule.group_seatings)


def group_matches(league: str, group_no: int, bots: Sequence[str],
                  seatings: Sequence[Sequence[str]]) -> list[ScheduledMatch]:
    """The matches of group ``group_no`` (three or four players): one deal set, one match per
    seating. Ids come from the league's name, the group, its bots and the seating, never from the
    key or the time; the label's ``players`` keeps a group's deals apart from any pair's."""
    players = len(seatings[0])
    deal_set = deal_set_label("league", players, group_no, *bots)
    matches = []
    for seating, seats in enumerate(seatings):
        digest = hashlib.sha256(json.dumps([league, group_no, list(bots), seating, list(seats)])
                                .encode()).hexdigest()
        match_id = f"L{group_no:06d}{'abcdef'[seating]}-{digest[:12]}"
        matches.append(ScheduledMatch(SEATINGS * group_no + seating, match_id, tuple(seats),
                                      deal_set, group_no % players, tuple(bots), group_no,
                                      seating))
    return matches


@dataclass(frozen=True)
class StoredGroup:
    group_no: int
    bots: tuple[str, ...]
    seatings: tuple[tuple[str, ...], ...]
    stored: frozenset[str]   # match ids of the group already in the store


def league_groups(db: sqlite3.Connection, league: str) -> list[StoredGroup]:
    """Every group a three- or four-player league started, with which of its matches are stored
    (empty for a two-player league, and for a store from before groups)."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'league_groups'").fetchone() is None:
        return []
    done = {row[0] for row in db.execute("SELECT match_id FROM matches")}
    groups = []
    for group_no, bots, seatings in db.execute(
            "SELECT group_no, bots, seatings FROM league_groups ORDER BY group_no"):
        members = tuple(json.loads(bots))
        seated = tuple(tuple(seats) for seats in json.loads(seatings))
        ids = {m.match_id for m in group_matches(league, group_no, members, seated)}
        groups.append(StoredGroup(group_no, members, seated, frozenset(ids & done)))
    return groups


def _has_league_tables(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE name = 'league_pairs'").fetchone() \
        is not None


def league_bots(db: sqlite3.Connection) -> dict[str, tuple[str, BotSpec]]:
    """{store name: (family, spec)} of every bot version that joined the league."""
    if not _has_league_tables(db):
        return {}
    out = {}
    for name, family, spec in db.execute("SELECT name, family, spec FROM league_bots"):
        data = json.loads(spec)
        data["argv"] = tuple(data["argv"])
        out[name] = (family, BotSpec(**data))
    return out


def _open_pairs(db: sqlite3.Connection) -> list[int]:
    """The pairs started of which a match is not stored."""
    return [row[0] for row in db.execute(
        "SELECT pair_no FROM league_pairs WHERE pair_no NOT IN (SELECT pair_index FROM matches "
        "GROUP BY pair_index HAVING COUNT(*) >= 2)")]


def _through(db: sqlite3.Connection, open_pairs: Iterable[int]) -> int:
    """The first schedule order below which every match is stored for good: the first match of
    the oldest pair still open (pair_matches: pair p plays orders 2p and 2p + 1), else the one
    after every stored match."""
    first = [2 * p for p in open_pairs]
    if first:
        return min(first)
    row = db.execute("SELECT MAX(sched_order) FROM matches").fetchone()
    return 0 if row[0] is None else int(row[0]) + 1


# -- the ratings matchmaking reads -----------------------------------------------------------------

class Ladder:
    """Every bot version's TrueSkill rating, matches and last pair, updated match by match as the
    league stores them (the report and ``status`` recompute theirs from the store in pair order;
    matchmaking only needs a current estimate)."""

    def __init__(self) -> None:
        self.ratings: dict[str, trueskill.Rating] = {}
        self.matches: dict[str, int] = {}
        self.last_pair: dict[str, int] = {}

    def add(self, seat0: str, seat1: str, winner: int | None) -> None:
        a = self.ratings.setdefault(seat0, ENV.create_rating())
        b = self.ratings.setdefault(seat1, ENV.create_rating())
        if winner == 0:
            self.ratings[seat0], self.ratings[seat1] = trueskill.rate_1vs1(a, b, env=ENV)
        elif winner == 1:
            self.ratings[seat1], self.ratings[seat0] = trueskill.rate_1vs1(b, a, env=ENV)
        for bot in (seat0, seat1):
            self.matches[bot] = self.matches.get(bot, 0) + 1

    def add_seated(self, seats: Sequence[str], game_points: Sequence[int], winner: int | None,
                   offender: int | None, reason: str) -> None:
        """A three- or four-player match (``offender`` a seat): its sides as TrueSkill teams,
        ranked as the report ranks them (``ratings.ranks_of``)."""
        players = len(seats)
        sides = 2 if players == 4 else players
        teams = tuple(tuple(bot for seat, bot in enumerate(seats) if side_of(players, seat) == side)
                      for side in range(sides))
        side = None if offender is None else side_of(players, offender)
        ranks = ranks_of(players, tuple(game_points), winner, side,
                         no_contest=reason in (MatchEnding.NO_CONTEST, MatchEnding.DECLINED))
        rate_match(self.ratings, teams, ranks)
        for bot in set(seats):
            self.matches[bot] = self.matches.get(bot, 0) + 1

    def started(self, pair_no: int, *bots: str) -> None:
        for bot in bots:
            self.last_pair[bot] = pair_no

    def standings(self, names: Sequence[str], next_pair_no: int,
                  in_flight: Sequence[Sequence[str]] = (),
                  joined: Mapping[str, int] | None = None) -> list[Standing]:
        busy: dict[str, int] = {}
        for group in in_flight:  # a pair's two matches, a group's six
            for bot in group:
                busy[bot] = busy.get(bot, 0) + (2 if len(group) == 2 else SEATINGS)
        out = []
        for name in names:
            rating = self.ratings.get(name) or ENV.create_rating()
            since = self.last_pair.get(name, (joined or {}).get(name, next_pair_no))
            out.append(Standing(name, rating.mu, rating.sigma,
                                self.matches.get(name, 0) + busy.get(name, 0),
                                max(0, next_pair_no - 1 - since)))
        return out

    @classmethod
    def from_store(cls, db: sqlite3.Connection) -> Ladder:
        ladder = cls()
        if store_players(db) > 2:
            return cls._from_seated_store(db)
        for seat0, seat1, winner in db.execute(
                "SELECT seat0, seat1, winner FROM matches ORDER BY sched_order"):
            ladder.add(seat0, seat1, winner)
        if _has_league_tables(db):
            for pair_no, a, b in db.execute("SELECT pair_no, a, b FROM league_pairs"):
                ladder.started(pair_no, a, b)
        return ladder

    @classmethod
    def _from_seated_store(cls, db: sqlite3.Connection) -> Ladder:
        ladder = cls()
        seats: dict[str, list[str]] = {}
        for match_id, bot in db.execute("SELECT match_id, bot FROM seats ORDER BY match_id, seat"):
            seats.setdefault(match_id, []).append(bot)
        points: dict[str, list[int]] = {}
        for match_id, value in db.execute("SELECT match_id, points FROM sides "
                                          "ORDER BY match_id, side"):
            points.setdefault(match_id, []).append(value)
        for match_id, winner, reason, offender in db.execute(
                "SELECT match_id, winner, reason, offender FROM matches ORDER BY sched_order"):
            ladder.add_seated(seats.get(match_id, []), points.get(match_id, ()), winner,
                              offender, reason)
        for group_no, bots in db.execute("SELECT group_no, bots FROM league_groups"):
            ladder.started(group_no, *json.loads(bots))
        return ladder


# -- running ---------------------------------------------------------------------------------------

@dataclass
class LeagueProgress:
    """What the runner reports after each stored match and each publish."""

    stored: int = 0            # matches in the store
    played: int = 0            # matches stored by this run
    pairs: int = 0             # pairs started by this run
    members: tuple[str, ...] = ()
    last: MatchResult | None = None
    published: Path | None = None
    event: str = ""            # a line for people: who joined, left, failed to start, ...


def run_league(folder: Path, overrides: Mapping[str, Any] | None = None,
               data: Path | None = None, max_pairs: int | None = None,
               on_progress: Callable[[LeagueProgress], None] | None = None,
               publish: bool = True) -> LeagueProgress:
    """Start or continue the league in ``folder`` and play until stopped (SIGINT or SIGTERM raise
    ``tournament.Stopped`` after publishing once more), or until ``max_pairs`` new pairs were
    played. First completes every pair a previous run left half-played. ``publish=False`` (tests)
    publishes never. Returns the progress."""
    from arena.compete.tournament import Stopped, stop_on_signals

    config = load_league_config(folder, overrides)
    data = data or data_dir()
    rules = rules_of(config)
    limits = Limits(decision_ms=config.decision_ms, startup_ms=config.startup_ms,
                    sandbox=sandbox_limits(config))
    try:
        check_memory(limits.sandbox)  # before any bot: a memory_mb this level cannot hold whole
    except SandboxUnavailable as err:
        raise ConfigError(str(err)) from None
    db_path = folder / DB_NAME
    progress = LeagueProgress()

    def tell(event: str = "") -> None:
        progress.event = event
        if event:
            log.info("%s", event)
        if on_progress:
            on_progress(progress)
        progress.event = ""

    with ExitStack() as cleanup:
        stop = cleanup.enter_context(stop_on_signals())
        try:
            cleanup.enter_context(FolderLock(folder, "league"))
        except FolderLockedError as err:
            raise ConfigError(str(err).replace("tournament run", "league run")) from None
        except OSError as err:
            raise ConfigError(f"cannot use the folder {folder}: {err.strerror or err}") from None
        try:
            cleanup.enter_context(run_log(folder / LOG_NAME))
        except OSError as err:
            raise ConfigError(f"cannot write {folder / LOG_NAME}: {err.strerror or err}") from None
        try:
            store = Store.open(db_path, create=True)
        except StoreError as err:
            raise ConfigError(str(err)) from None
        cleanup.callback(store.close)
        try:
            store.begin_tournament(config.name, config.settings())
        except StoreError as err:
            raise ConfigError(f"{err}: a league's name and game settings stay as they started "
                              "(profile, rules, limits)") from None
        store.db.executescript(_LEAGUE_SCHEMA + RATINGS_SCHEMA)
        with _transaction(store.db):  # the kept ratings fit the store (league_ladder.py)
            settle(store.db, _through(store.db, _open_pairs(store.db)), check=True)
        key = store.deal_key()
        if key is None:
            key = new_key()  # kept in the store before any match is dealt from it (deal_keys.py)
            store.set_deal_key(key)
        runner = _Runner(folder, config, rules, limits, data, store, key, progress, tell)
        stop.out = folder
        cluster = None
        if config.cluster:
            from arena.compete.cluster import Cluster

            members, _ = current_members(folder, config, data)
            cluster = cleanup.enter_context(Cluster.connect(
                config.cluster, [(m.text, m.spec) for m in members]))
            runner.cluster = cluster
        else:
            pool: Pool[MatchJob, MatchResult] = cleanup.enter_context(
                Pool(play_job, config.worker_count(), name_of=lambda job: job.entry.match_id,
                     exclusive=lambda job: job.entry.deal_set,  # a pair's two matches in turn
                     affinity=for_run(config.affinity, limits.sandbox.cores,
                                      waiting_bots_yield())))
            runner.pool = pool
        # The league publishes in a process of its own and plays on meanwhile
        # (league_publish.Publisher): first thing at the start (a stop's last publish may not
        # have finished in time: STOP_PUBLISH_S), then every publish_every seconds, and last as
        # it stops, within STOP_PUBLISH_S.
        publisher = None
        if publish:
            from arena.compete.league_publish import Publisher

            publisher = Publisher(folder, config, data)
            cleanup.callback(publisher.stop)
        published_at = time.monotonic()
        if publisher is not None:
            try:
                if progress.stored:
                    publisher.start(progress.stored)
                else:
                    publisher.prepare()
            except OSError as err:  # no process to be had now: the next turn tries again
                tell(f"publishing failed, the league plays on: {err.strerror or err}")

        def between_pairs() -> None:
            nonlocal published_at
            if publisher is None:
                return
            _report_publish(publisher, progress, tell)
            if publisher.busy:
                return
            try:
                if config.publish_every \
                        and time.monotonic() - published_at >= config.publish_every:
                    published_at = time.monotonic()
                    publisher.start(progress.stored)
                else:
                    publisher.prepare()  # ready for the next turn, or the stop's publish
            except OSError as err:  # no process to be had now: the next turn tries again
                tell(f"publishing failed, the league plays on: {err.strerror or err}")

        try:
            while max_pairs is None or progress.pairs < max_pairs:
                budget = None if max_pairs is None else max_pairs - progress.pairs
                if not runner.play(budget, between_pairs):
                    time.sleep(IDLE_POLL_S)  # fewer than two bots: wait for members
                between_pairs()
        except Stopped:
            stopped_at = time.monotonic()
            if runner.pool is not None:
                runner.pool.close(graceful=False)  # the bots go first; then the last publish
            if publisher is not None and progress.stored:
                _last_publish(publisher, progress, tell, stopped_at + STOP_PUBLISH_S)
            raise
        except DiskFullError as err:
            raise LeagueError(f"the disk holding {folder} is full ({err}); every stored match is "
                              f"whole: free some space, then arena league {folder} continues") \
                from None
        except WorkerError as err:
            raise LeagueError(f"{str(err).splitlines()[0]}; see {folder / LOG_NAME}, then "
                              f"arena league {folder} continues") from None
        except (StoreError, sqlite3.Error) as err:
            raise LeagueError(f"storing a match in {db_path} failed: {err}; every stored match "
                              f"is whole: arena league {folder} continues") from None
        if publisher is not None:
            publisher.stop()
        if publish:
            _publish(folder, config, progress, tell)
    return progress


def _report_publish(publisher: Publisher, progress: LeagueProgress,
                    tell: Callable[[str], None]) -> None:
    """Say how the publish in the background ended, once it has (``Publisher.outcome``); end one
    that has run longer than ``PUBLISH_TIMEOUT_S``."""
    outcome = publisher.outcome()
    if outcome is None:
        if publisher.busy and publisher.running_s() > PUBLISH_TIMEOUT_S:
            publisher.stop()
            tell(f"publishing took more than {PUBLISH_TIMEOUT_S:g} s and was ended; the league "
                 "plays on and publishes again at its next turn")
        return
    _say_published(outcome, publisher.stored, progress, tell)


def _say_published(outcome: tuple[Path | None, str], stored: int, progress: LeagueProgress,
                   tell: Callable[[str], None]) -> None:
    path, error = outcome
    if path is None:
        tell(f"publishing failed, the league plays on: {error}")
        return
    progress.published = path
    tell(f"published {path} ({stored} matches)")


def _last_publish(publisher: Publisher, progress: LeagueProgress, tell: Callable[[str], None],
                  deadline: float) -> None:
    """The stop's publish, of every match stored, in the publisher's process, ended at
    ``deadline`` (time.monotonic()) if it has not finished by then: the stop must not wait for
    it (STOP_PUBLISH_S)."""
    if publisher.busy:
        publisher.stop()  # one publish at a time: the last one shows everything
    try:
        publisher.start(progress.stored)
    except OSError as err:
        tell(f"the last publish could not start: {err.strerror or err}; arena league publish "
             f"{publisher.folder} publishes it")
        return
    outcome = publisher.wait(max(0.0, deadline - time.monotonic()))
    if outcome is None:
        publisher.stop()
        tell(f"the last publish did not finish within {STOP_PUBLISH_S:g} s of the stop and was "
             f"ended; the previous build stays current, and the next start (or arena league "
             f"publish {publisher.folder}) publishes the {progress.stored} matches stored")
        return
    _say_published(outcome, publisher.stored, progress, tell)


def _publish(folder: Path, config: LeagueConfig, progress: LeagueProgress,
             tell: Callable[[str], None]) -> None:
    """Publish now. A publish that fails (a full disk, a folder made unwritable) is reported and
    the league plays on: the previous build stays current, and the next publish tries again."""
    from arena.compete.league_publish import publish_league
    from arena.report import ReportError

    try:
        progress.published = publish_league(folder, config)
    except (ReportError, OSError) as err:
        tell(f"publishing failed, the league plays on: {err}")
        return
    tell(f"published {progress.published} ({progress.stored} matches)")


class _Runner:
    """One league run's state between rounds: members, ratings, the pool or the cluster."""

    def __init__(self, folder: Path, config: LeagueConfig, rules: Rules, limits: Limits,
                 data: Path, store: Store, key: bytes, progress: LeagueProgress,
                 tell: Callable[[str], None]):
        self.folder, self.config, self.rules, self.limits = folder, config, rules, limits
        self.data, self.store, self.key, self.progress, self.tell = data, store, key, progress, tell
        self.pool: Pool[MatchJob, MatchResult] | None = None
        self.cluster: Any = None
        self.ladder = Ladder.from_store(store.db)
        self.known = league_bots(store.db)       # every version that ever joined
        self.failed: dict[str, str] = {}         # store name -> why it could not start (this run)
        self.members: list[Member] = []
        self.problems: set[str] = set()
        self.joined_at: dict[str, int] = {}
        self.refreshed = 0.0
        self.refresh_every = REFRESH_S
        self.resumed = False
        # pair or group -> (its bots, matches not stored)
        self.running: dict[int, tuple[tuple[str, ...], int]] = {}
        self.window: PairWindow | None = None    # the last pairs started, for matchmaking
        self.players = rules.players             # 2: pairs; 3 or 4: groups (league_groups)
        self.group_window: GroupWindow | None = None
        progress.stored = store.db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]

    # -- membership --

    def refresh(self) -> list[Member]:
        """Read the settings' bot list, the membership table and the registry again (at most every
        ``REFRESH_S``: a league of fast bots would otherwise spend its time reading them; a league
        of many bots reads them at most ``REFRESH_SHARE`` of its time)."""
        if self.members and time.monotonic() - self.refreshed < self.refresh_every:
            return self.members
        self.refreshed = time.monotonic()
        config = self.config
        try:
            fresh = load_league_config(self.folder)
            config = replace(config, bots=fresh.bots, registered=fresh.registered)
        except ConfigError as err:
            self._problem(f"{err}; the bot list stays as it was")
        members, problems = current_members(self.folder, config, self.data)
        self.refresh_every = max(REFRESH_S, (time.monotonic() - self.refreshed) / REFRESH_SHARE)
        for line in problems:
            self._problem(line)
        before = {m.name for m in self.members}
        playing = []
        for member in members:
            if member.name in self.failed:
                continue
            if member.name not in before and not self._join(member):
                continue
            playing.append(member)
        gone = before - {m.name for m in playing}
        for name in sorted(gone):
            self.tell(f"{name} left the ladder")
        if self.cluster is not None and {m.name for m in playing} != before:
            self._update_cluster(playing)
        self.members = playing
        self.progress.members = tuple(m.name for m in playing)
        return playing

    def _too_few(self, members: list[Member]) -> None:
        names = ", ".join(m.name for m in members) or "none"
        needs = "a pair needs two" if self.players == 2 else \
            f"a group needs {'three' if self.players == 3 else 'four'}"
        self._problem(f"waiting for bots: {needs}, the ladder has {names} "
                      f"(arena league add {self.folder} BOT)")

    def _problem(self, line: str) -> None:
        if line not in self.problems:
            self.problems.add(line)
            self.tell(line)

    def _join(self, member: Member) -> bool:
        """A version new to this run: started once (locally), then written to the store."""
        if self.cluster is None:
            try:
                preflight([member.spec], self.limits,
                          hide=[self.folder, *map(Path, data_folders())], rules=self.rules)
            except PreflightError as err:
                self.failed[member.name] = str(err)
                self.tell(f"{member.name} cannot start and does not join: {err}")
                return False
        try:
            self.store.register_bots([(member.name, list(member.spec.argv), member.spec.version)])
        except StoreError as err:
            self.failed[member.name] = str(err)
            self.tell(f"{member.name} does not join: {err}")
            return False
        if member.name not in self.known:
            spec = asdict(member.spec)
            self.store.db.execute("INSERT OR IGNORE INTO league_bots VALUES (?, ?, ?, ?, ?)",
                                  (member.name, member.family, member.text, json.dumps(spec),
                                   _now()))
            self.known[member.name] = (member.family, member.spec)
            self.tell(f"{member.name} joined the ladder")
        else:
            self.tell(f"{member.name} is in the ladder")
        self.joined_at.setdefault(member.name, self._next_pair_no() - 1)
        return True

    def _update_cluster(self, members: list[Member]) -> None:
        from arena.compete.cluster import WorkerBot

        extra = [(m.text, m.spec) for m in members]
        self.cluster.bots = tuple(WorkerBot.of(text, spec) for text, spec in extra)
        self.cluster.check_workers()

    # -- pairs --

    def _next_pair_no(self) -> int:
        """The next pair's number (a group's, with three or four players)."""
        row = self.store.db.execute(
            "SELECT MAX(pair_no) FROM league_pairs" if self.players == 2 else
            "SELECT MAX(group_no) FROM league_groups").fetchone()
        return 0 if row[0] is None else int(row[0]) + 1

    def play(self, budget: int | None, between_pairs: Callable[[], None]) -> bool:
        """Play until ``budget`` new pairs were started (None: no end) or fewer than two bots are
        left, completing half-played pairs first. False when nothing could be played."""
        if self.cluster is not None:
            return self._play_round_on_cluster(budget)
        assert self.pool is not None
        source = self._job_source(budget, between_pairs)
        played = self.progress.played
        self._store_all(self.pool.run(source))
        return self.progress.played > played

    def _job_source(self, budget: int | None,
                    between_pairs: Callable[[], None]) -> Iterator[MatchJob]:
        """The local pool's jobs, pulled one at a time as workers free up (``Pool.run`` is lazy):
        each next pair is chosen from every result stored so far and the pairs still in flight."""
        yield from self._unfinished_jobs()
        started = 0
        while budget is None or started < budget:
            between_pairs()
            members = self.refresh()
            if len(members) < self.players:
                self._too_few(members)
                return
            jobs = self._new_pairs(members, 1)
            if not jobs:
                return
            started += 1
            yield from jobs

    def _play_round_on_cluster(self, budget: int | None) -> bool:
        """A cluster takes a list (it sizes its batches from it): complete half-played pairs, or
        choose a round of new pairs, one match per thread of the cluster."""
        jobs = self._unfinished_jobs()
        if not jobs:
            members = self.refresh()
            if len(members) < self.players:
                self._too_few(members)
                return False
            per = 2 if self.players == 2 else SEATINGS
            threads = max(1, math.ceil(self.cluster.threads() / per))
            jobs = self._new_pairs(members, threads if budget is None else min(budget, threads))
        self._play_on_cluster(jobs)
        return bool(jobs)

    def _unfinished_jobs(self) -> list[MatchJob]:
        """The matches of pairs an earlier run started and did not store, once per run (later
        pairs of this run are completed by it or by the next run)."""
        if self.resumed:
            return []
        self.resumed = True
        jobs = []
        if self.players > 2:
            for group in league_groups(self.store.db, self.config.name):
                entries = group_matches(self.config.name, group.group_no, group.bots,
                                        group.seatings)
                if len(group.stored) == len(entries):
                    continue
                self.running[group.group_no] = (group.bots, len(entries) - len(group.stored))
                jobs += [self._job(e) for e in entries if e.match_id not in group.stored]
            if jobs:
                self.tell(f"completing {len(jobs)} match(es) of groups started before the last "
                          "stop")
            return jobs
        for pair in league_pairs(self.store.db, self.config.name):
            if len(pair.stored) == 2:
                continue
            self.running[pair.pair_no] = ((pair.a, pair.b), 2 - len(pair.stored))
            for entry in pair_matches(self.config.name, pair.pair_no, pair.a, pair.b):
                if entry.match_id not in pair.stored:
                    jobs.append(self._job(entry))
        if jobs:
            self.tell(f"completing {len(jobs)} match(es) of pairs started before the last stop")
        return jobs

    def _new_pairs(self, members: list[Member], count: int) -> list[MatchJob]:
        """Choose ``count`` new pairs (matchmaking.py, knowing the pairs in flight), write them
        down, and return their matches. With three or four players: new groups."""
        if self.players > 2:
            return self._new_groups(members, count)
        names = [m.name for m in members]
        chosen: list[tuple[str, str]] = []
        first_no = self._next_pair_no()
        window = self._window(len(names))
        for k in range(count):
            in_flight = [(a, b) for (a, b), _ in self.running.values()] + chosen
            standings = self.ladder.standings(names, first_no + k, in_flight, self.joined_at)
            pair = next_pair(standings, window, in_flight)
            if pair is None:
                break
            chosen.append(pair)
            window.push(*pair)
        # Written down before anything is played (one transaction): a stop at any later moment
        # leaves pairs that the next run completes, never a match nobody knows the pair of.
        with _transaction(self.store.db):
            for k, (a, b) in enumerate(chosen):
                self.store.db.execute("INSERT INTO league_pairs VALUES (?, ?, ?, ?)",
                                      (first_no + k, a, b, _now()))
        jobs = []
        for k, (a, b) in enumerate(chosen):
            self.ladder.started(first_no + k, a, b)
            self.running[first_no + k] = ((a, b), 2)
            entries = pair_matches(self.config.name, first_no + k, a, b)
            jobs += [self._job(entry) for entry in entries]
        self.progress.pairs += len(chosen)
        return jobs

    def _new_groups(self, members: list[Member], count: int) -> list[MatchJob]:
        """``_new_pairs`` for three or four players: ``count`` groups (``matchmaking.next_group``),
        each written down with its seatings before any of its matches is sent out."""
        names = [m.name for m in members]
        chosen: list[tuple[str, ...]] = []
        first_no = self._next_pair_no()
        window = self._group_window(len(names))
        for k in range(count):
            in_flight = [bots for bots, _ in self.running.values()] + chosen
            standings = self.ladder.standings(names, first_no + k, in_flight, self.joined_at)
            group = next_group(standings, self.players, window, in_flight)
            if group is None:
                break
            chosen.append(group)
            window.push(group)
        seatings = [group_seatings(group) for group in chosen]
        with _transaction(self.store.db):  # as _new_pairs: before anything is played
            for k, (group, seated) in enumerate(zip(chosen, seatings)):
                self.store.db.execute("INSERT INTO league_groups VALUES (?, ?, ?, ?)",
                                      (first_no + k, json.dumps(group),
                                       json.dumps([list(seats) for seats in seated]), _now()))
        jobs = []
        for k, (group, seated) in enumerate(zip(chosen, seatings)):
            self.ladder.started(first_no + k, *group)
            self.running[first_no + k] = (group, len(seated))
            entries = group_matches(self.config.name, first_no + k, group, seated)
            jobs += [self._job(entry) for entry in entries]
        self.progress.pairs += len(chosen)
        return jobs

    def _group_window(self, bots: int) -> GroupWindow:
        """``_window`` for groups: the last groups started, read again only when the membership
        changes its size."""
        size = group_window_size(bots, self.players) - 1
        if self.group_window is None or self.group_window.size != size:
            rows = self.store.db.execute("SELECT bots FROM league_groups ORDER BY group_no DESC "
                                         "LIMIT ?", (size,)).fetchall()
            self.group_window = GroupWindow(size, [json.loads(bots) for (bots,) in reversed(rows)])
        return self.group_window

    def _window(self, bots: int) -> PairWindow:
        """The last pairs started, as many as matchmaking's window for this many bots: kept in
        memory and read again (one bounded query, newest first) only when the membership changes
        its size, so choosing a pair never reads the league's history."""
        size = window_size(bots) - 1
        if self.window is None or self.window.size != size:
            rows = self.store.db.execute("SELECT a, b FROM league_pairs ORDER BY pair_no DESC "
                                         "LIMIT ?", (size,)).fetchall()
            self.window = PairWindow(size, reversed(rows))
        return self.window

    def _job(self, entry: ScheduledMatch) -> MatchJob:
        bots = tuple(self._spec(name) for name in entry.seats)
        return MatchJob(entry, deal_secret(self.key, entry.deal_set), bots, self.rules,
                        self.limits, self.config.max_deals,
                        self.folder / "records" / f"{entry.match_id}.jsonl", self.folder / "logs")

    def _spec(self, name: str) -> BotSpec:
        if name not in self.known:
            raise ConfigError(f"{self.store.path} names bot {name!r} in a pair but not in "
                              "league_bots: the store was changed by hand")
        return self.known[name][1]

    def _play_on_cluster(self, jobs: list[MatchJob]) -> None:
        needed = {spec.name: spec for job in jobs for spec in job.bots}
        have = {bot.name for bot in self.cluster.bots}
        if set(needed) - have:  # a half-played pair of a bot that has left since
            from arena.compete.cluster import WorkerBot

            texts = {m.name: m.text for m in self.members}
            self.cluster.bots += tuple(
                WorkerBot.of(texts.get(n) or self.known[n][0], needed[n])
                for n in sorted(set(needed) - have))
            self.cluster.check_workers()
        self._store_all(self.cluster.play(jobs, self.folder))

    def _store_all(self, finished: Iterator[tuple[MatchJob, MatchResult]]) -> None:
        """Store each finished match (one transaction each) and rate it before the next job is
        pulled, so that matchmaking sees every result so far."""
        with closing(finished):  # type: ignore[type-var]
            for job, result in finished:
                entry = job.entry
                if self._stored(entry.match_id):
                    continue  # a cluster's retried batch: stored once
                bots, left = self.running.get(entry.pair_index, (entry.group, 1))
                still_open = [p for p in self.running if p != entry.pair_index or left > 1]
                # The kept ratings (league_ladder.py: two players) advance in the match's own
                # transaction; a group league's are recomputed when read.
                then = (lambda db: settle(db, _through(db, still_open))) \
                    if len(entry.seats) == 2 else None
                self.store.record_match(entry, result,
                                        record=str(job.record.relative_to(self.folder)),
                                        then=then)
                if len(entry.seats) == 2:
                    self.ladder.add(entry.seat0, entry.seat1, result.winner)
                else:
                    self.ladder.add_seated(entry.seats, result.game_points, result.winner,
                                           result.offender, result.reason)
                if left <= 1:
                    self.running.pop(entry.pair_index, None)
                else:
                    self.running[entry.pair_index] = (bots, left - 1)
                self.progress.stored += 1
                self.progress.played += 1
                self.progress.last = result
                self.tell("")

    def _stored(self, match_id: str) -> bool:
        # One look-up of the key, not a set of every stored id: in a league that never ends
        # that set grew by a match's id with every match (scripts/bench_league_scale.py).
        return self.store.db.execute("SELECT 1 FROM matches WHERE match_id = ?",
                                     (match_id,)).fetchone() is not None


class _transaction:
    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, *exc: object) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")


# -- reading a league (status, the published page) -------------------------------------------------

def read_ladder(folder: Path, data: Path | None = None,
                db: sqlite3.Connection | None = None) -> tuple[list[LadderRow], dict[str, int]]:
    """Every bot version of the league with its rating (the report's: the store's matches in pair
    order, from the ratings the league keeps, ``league_ladder.py``), W-D-L, score with its interval,
    when it joined, and whether it is in the ladder now, best first; and counts of the store
    (matches, pairs, pairs waiting for a match). Reads only: works while the league runs. ``db``:
    the store to read instead of the league's own (a publish's snapshot, ``report.snapshot``, so
    that the ladder counts what the build's other pages count); read in one transaction, else."""
    config = load_league_config(folder)
    db_path = folder / DB_NAME
    if db is None and not db_path.is_file():
        raise ConfigError(f"{folder} has not played yet (no {DB_NAME}); start it with "
                          f"arena league {folder}")
    store = db if db is not None else connect_read_only(db_path)
    try:
        if db is None:  # one read: a match stored between two SELECTs would count in one only
            store.execute("BEGIN")
        stored = store.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        joined = dict(store.execute("SELECT name, joined FROM league_bots")) \
            if _has_league_tables(store) else {}
        if store_players(store) > 2:  # TrueSkill's teams, as the report rates them
            ratings, counts = _seated_ratings(store)
            # W-D-L and the score interval are kept for two players only (league_ladder.py).
            figures = {name: Record(n, 0, 0, 0, math.nan, math.nan, math.nan)
                       for name, n in counts.items()}
            groups = league_groups(store, config.name)
            pairs = len(groups)
            waiting = sum(1 for g in groups if len(g.stored) < SEATINGS)
        else:
            ratings, figures = read_figures(store)
            pairs, waiting = waiting_pairs(store)
        versions = league_bots(store)
    finally:
        if db is None:
            store.close()
    members, _ = current_members(folder, config, data or data_dir())
    active = {m.name for m in members}
    table = []
    nothing = Record(0, 0, 0, 0, math.nan, math.nan, math.nan)
    for name in sorted(set(versions) | active):
        rating = ratings.get(name) or ENV.create_rating()
        family = versions[name][0] if name in versions else name.split("@")[0]
        mine = figures.get(name, nothing)
        table.append(LadderRow(family, name, rating.mu, rating.sigma, mine.matches,
                               name in active, mine.wins, mine.draws, mine.losses, mine.score,
                               mine.low, mine.high, str(joined.get(name, ""))))
    table.sort(key=lambda r: (not r.active, -r.conservative, r.name))
    return table, {"matches": int(stored), "pairs": pairs, "waiting": waiting}


def _seated_ratings(db: sqlite3.Connection) -> tuple[dict[str, trueskill.Rating], dict[str, int]]:
    """A three- or four-player league's ratings (``ratings.rate_ranked`` over the store, as the
    report's) and each bot's matches."""
    from arena.results.ratings import bot_matches, rating_history, read_seated

    if db.execute("SELECT 1 FROM matches LIMIT 1").fetchone() is None:
        return {}, {}  # the seated frames of an empty store do not merge (pandas' dtypes)
    players = store_players(db)
    history = rating_history(db)
    ratings = {str(row.bot): trueskill.Rating(row.mu, row.sigma)
               for row in history.groupby("bot").tail(1).itertuples()}
    per_bot = bot_matches(read_seated(db, players))
    counts = {str(bot): int(n) for bot, n in per_bot.groupby("bot").size().items()}
    return ratings, counts
