"""Running a tournament: settings, a pool of worker processes, one coordinator that stores results.

The schedule (``schedule.py``) says who plays whom; this module says when and where. Workers run
matches through the referee and send back each match as the store's rows: a quarter of a second of
matches at a time (``Pool(ahead_s=)``), or one at a time when ``should_stop`` must see each result.
Only this process writes the SQLite store, committing the matches that finished within a quarter of
a second in one transaction (``_Commits``): a ``kill -9`` loses at most the matches in flight and
those waiting for their commit, about half a second of play per worker; a stop or an error commits
the waiting ones first. Resuming reruns exactly the scheduled matches the store does not hold.
With ``cluster`` set, the matches run on a Dask cluster instead (``cluster.py``); the coordinator's
part is the same.
"""

from __future__ import annotations

import functools
import logging
import sqlite3
import time
import tomllib
from contextlib import ExitStack, closing, contextmanager
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Callable, Generator, Iterator, Mapping

from arena.arena_folders import private_file, private_folder
from arena.compete.folder_lock import FolderLock, FolderLockedError

# One match job, played here or on a cluster, lives in match_job.py (below cluster.py).
from arena.compete.match_job import MatchJob as _Job
from arena.compete.match_job import log_stored, play_for_store, prepare_worker
from arena.compete.play_order import MatchCosts, longest_first
from arena.compete.pool import Pool, WorkerError
from arena.compete.schedule import partnership_groups, round_robin, three_player_sets
from arena.compete.stopping import StopState, Stopped, stop_on_signals
from arena.entrants.bot_specs import BotSpecError, check_bot_paths, resolve_bot
from arena.entrants.preflight import PreflightError, preflight, problems, raise_problems
from arena.entrants.registry import data_dir
from arena.game import Rules, RulesError, load_rules
from arena.isolation.allow_list import data_folders
from arena.isolation.levels import SandboxUnavailable, Support, check_level
from arena.isolation.limits import SandboxLimits
from arena.isolation.probe import check_memory, waiting_bots_yield
from arena.isolation.probe import describe as describe_sandbox
from arena.isolation.probe import support as sandbox_support
from arena.isolation.worker_cores import (
    AFFINITY_WORDS,
    AUTO,
    Affinity,
    cores_for,
    default_workers,
    for_run,
    is_affinity,
)
from arena.match import phases
from arena.match.bot_process import (
    DEFAULT_DECISION_MS,
    DEFAULT_STARTUP_MS,
    Limits,
    clock_problem,
)
from arena.match.deal_keys import deal_secret, key_from_seed, new_key
from arena.results.store import (
    DB_NAME,
    DiskFullError,
    MatchRows,
    Store,
    StoreError,
    connect_read_only,
    is_disk_full,
    match_rows,
    stored_settings,
)
from arena.temp_folders import TempFolder
from arena.types import BotSpec, ConfigError, MatchResult, ScheduledMatch

log = logging.getLogger("arena.compete.tournament")

CONFIG_NAME = "tournament.toml"
LOG_NAME = "tournament.log"
# A finished match waits at most this long for others to share its commit, and a worker holds
# about this much play before it reports (Pool.ahead_s). A kill -9 loses the matches waiting
# (--resume plays them again); a stop or an error commits them first.
HOLD_S = 0.25
HOLD_MAX = 256  # matches: a commit's size stays small whatever the rate


class TournamentError(RuntimeError):
    """A run that had to end early (a full disk, a worker that kept dying): what was stored is
    whole, and ``--resume`` finishes the rest. The message says what happened and what to do."""


@dataclass(frozen=True)
class TournamentConfig:
    """Everything a tournament needs; a TOML file and command-line flags fill it (flags win)."""

    name: str = "tournament"
    bots: tuple[str, ...] = ()                 # bundled bot names or commands
    profile: str = "sixty_six"
    rules: Mapping[str, Any] = field(default_factory=dict)  # flag overrides (RULES.md §11)
    matches_per_pairing: int = 4               # even: matches come in duplicate pairs
    # Three and four players (schedule.py): deal sets per group of bots, each played in six
    # seatings. None with two players; -n sets it for an N-seat profile (load_config).
    deal_sets: int | None = None
    seed: int | None = None                    # research runs only: deals from a public key
    workers: int = 0                           # 0: all cores
    decision_ms: int = DEFAULT_DECISION_MS
    startup_ms: int = DEFAULT_STARTUP_MS
    bank_ms: int = 0                           # PROTOCOL.md §6: a time bank per bot and match
    first_decision_ms: int = 0                 # a bot's first decision's limit; 0: decision_ms
    max_deals: int = 200
    output: str = ""                           # default: results/<name>
    sandbox: Mapping[str, Any] = field(default_factory=dict)  # limit overrides (limits.py)
    cluster: str = ""                          # a Dask scheduler (tcp://HOST:PORT): run there
    isolation: str = ""                        # sandbox level (levels.py); "": ARENA_ISOLATION
    data: str = ""                             # the data folder: registered bots; default: results
    affinity: Affinity = AUTO                  # each worker keeps to a core (worker_cores.py):
    #                                            true, false, or "auto" where it can claim one
    allow_self_partner: bool = False           # four players, fewer than four bots (_check)

    def out_dir(self) -> Path:
        return Path(self.output or Path(self.data or "results") / self.name)

    def worker_count(self) -> int:
        return self.workers or default_workers()

    def to_dict(self) -> dict[str, Any]:
        """The settings that define the tournament's results (not where or how fast it runs)."""
        data = asdict(self)
        data["bots"] = list(self.bots)
        data["rules"] = dict(self.rules)
        # Where and how it runs, and the opt-ins a run must give each time (as --isolation).
        for key in ("workers", "output", "cluster", "isolation", "data", "affinity",
                    "allow_self_partner"):
            data.pop(key)
        if self.deal_sets is None:
            del data["deal_sets"]  # two players: stored as before N-seat tournaments, so they resume
        else:
            del data["matches_per_pairing"]  # not used with three or four players
        if self.seed is None:
            del data["seed"]  # deals from the secret key in the store (deal_keys.py): no seed shown
        data["sandbox"] = dict(self.sandbox)
        if not self.sandbox:
            del data["sandbox"]  # as stored before limits could be set: such runs still resume
        for key in ("bank_ms", "first_decision_ms"):
            if not data[key]:
                del data[key]  # as stored before there was a bank: such runs still resume
        return data

    def limits(self, sandbox: SandboxLimits) -> Limits:
        """The limits of its matches (bot_process.Limits)."""
        return Limits(decision_ms=self.decision_ms, startup_ms=self.startup_ms,
                      bank_ms=self.bank_ms, first_decision_ms=self.first_decision_ms,
                      sandbox=sandbox)


# The data folder is the arena's (arena ... --data), not one tournament's setting.
_KEYS = {f.name for f in fields(TournamentConfig)} - {"data"}


# What each setting must be (the file is TOML; a wrong type was a traceback, or worse, silently
# wrong: bots = "greedy" was read as the bots "g", "r", ...).
_TYPES: dict[str, tuple[Any, str]] = {
    "name": (str, "a string"),
    "bots": ((list, tuple), 'a list of bot names or commands, like ["greedy", "python3 bot.py"]'),
    "profile": (str, "a rules profile name (a string)"),
    "rules": (Mapping, "a table of flag = value"),
    "matches_per_pairing": (int, "a whole number"),
    "deal_sets": (int, "a whole number"),
    "seed": (int, "a whole number"),
    "workers": (int, "a whole number"),
    "decision_ms": (int, "a whole number of milliseconds"),
    "startup_ms": (int, "a whole number of milliseconds"),
    "bank_ms": (int, "a whole number of milliseconds"),
    "first_decision_ms": (int, "a whole number of milliseconds"),
    "max_deals": (int, "a whole number"),
    "output": (str, "a folder path (a string)"),
    "sandbox": (Mapping, "a table of limit = number"),
    "cluster": (str, "an address like tcp://HOST:8786 (a string)"),
    "isolation": (str, "a sandbox level: isolated, namespaces or limits (a string)"),
    "affinity": ((bool, str), AFFINITY_WORDS),
    "allow_self_partner": (bool, "true or false"),
}


def load_config(path: Path | None, overrides: Mapping[str, Any]) -> TournamentConfig:
    """Settings from a TOML file (optional), then from ``overrides`` (command-line flags; None values
    are ignored). Every problem is a ``ConfigError`` naming the setting (and the file)."""
    data: dict[str, Any] = {}
    if path is not None:
        data = _read_settings_file(path)
    if isinstance(data.get("sandbox"), Mapping) and overrides.get("sandbox"):
        # --limit flags override single limits of the file's [sandbox] table, not the whole table
        overrides = {**overrides, "sandbox": {**data["sandbox"], **overrides["sandbox"]}}
    flags = {k: v for k, v in overrides.items() if v is not None and v != () and v != []}
    data.update(flags)
    where = f"{path}: " if path is not None else ""
    for key, value in data.items():
        _check_type(key, value, "" if key in flags else where)
    try:
        values: dict[str, Any] = {k: (tuple(v) if k == "bots" else v) for k, v in data.items()}
        config = _deal_sets_for_nseat(TournamentConfig(**values), data, flags, where)
    except TypeError as err:
        raise ConfigError(f"{where}{err}") from None
    try:
        _check(config)
    except ConfigError as err:
        raise ConfigError(f"{where}{err}") from None
    return config


def new_config(path: Path | None, overrides: Mapping[str, Any],
               rounds: int | None = None) -> TournamentConfig:
    """A new tournament's settings (``load_config``). ``rounds``, as cutechess's and fastchess's
    -rounds with -games 2 -repeat: duplicate pairs per pairing (``matches_per_pairing`` twice as
    many), or with three or four players deal sets per group."""
    config = load_config(path, {**overrides, "matches_per_pairing": 2 * rounds if rounds else
                                overrides.get("matches_per_pairing")})
    if rounds and config.deal_sets is not None:
        # Three or four players: a round is one deal set per group (-n counts those).
        config = replace(config, deal_sets=rounds)
    return config


def resumed_config(folder: Path, overrides: Mapping[str, Any]) -> TournamentConfig:
    """The tournament stored in ``folder``: its stored settings define it, ``overrides`` say where
    and how fast it now runs (a None leaves the stored setting)."""
    db = folder / DB_NAME
    if not db.is_file():
        raise ConfigError(f"{folder} holds no tournament (no results.sqlite)")
    # An SPRT test's schedule is only a cap: the test stops it (sprt_run.py keeps sprt.json).
    if (folder / "sprt.json").is_file():
        raise ConfigError(f"{folder} holds an SPRT test; resume it with: arena sprt "
                          f"--resume {folder}")
    return load_config(None, {**stored_settings(db), "output": str(folder), **overrides})


def run_notes(config: TournamentConfig, workers: int | None) -> list[str]:
    """What a run will not do as asked (``workers``: the number given, if any), said before it
    starts: no error, as the run goes on without it."""
    notes = []
    if config.cluster and workers is not None:
        notes.append(f"note: --workers {workers} does not apply on a cluster: each Dask worker "
                     "runs as many matches at once as it has threads (dask worker --nthreads)")
    if config.affinity is True:
        if config.cluster:
            notes.append("note: --affinity does not apply on a cluster")
        elif not cores_for(config.worker_count(), True):
            notes.append(f"note: --affinity: {config.worker_count()} workers are not kept to "
                         "cores (more workers than this process's cores would share them; or "
                         "not Linux)")
    return notes


def _deal_sets_for_nseat(config: TournamentConfig, data: Mapping[str, Any],
                         flags: Mapping[str, Any], where: str) -> TournamentConfig:
    """One ``-n`` for every profile: with two players it is ``matches_per_pairing``; with three or
    four it is ``deal_sets``, deal sets per group of bots (default 1), each played in six seatings
    (schedule.py). A settings file names the one its profile uses."""
    try:
        players = load_rules(config.profile, overrides=config.rules).players
    except (RulesError, TypeError, AttributeError):
        return config  # _check reports the profile or the rules
    if players == 2:
        if config.deal_sets is not None:
            raise ConfigError(f"{where if 'deal_sets' not in flags else ''}deal_sets is for three- "
                              "and four-player profiles; a two-player tournament plays "
                              "matches_per_pairing (-n) matches per pairing")
        return config
    if config.deal_sets is not None:
        if "matches_per_pairing" in data:
            raise ConfigError("give deal_sets or matches_per_pairing (-n), not both")
        return config
    if "matches_per_pairing" in flags:  # -n on the command line
        return replace(config, deal_sets=config.matches_per_pairing,
                       matches_per_pairing=TournamentConfig.matches_per_pairing)
    if "matches_per_pairing" in data:
        raise ConfigError(f"{where}profile {config.profile} is for {players} players: give "
                          "deal_sets (deal sets per group of bots, each played in six seatings) "
                          "instead of matches_per_pairing")
    return replace(config, deal_sets=1)


def _read_settings_file(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as err:
        raise ConfigError(f"cannot read tournament file {path}: {err.strerror or err}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"tournament file {path} is not a text file (not UTF-8): give a TOML "
                          "settings file") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"tournament file {path} is not valid TOML: {err}") from None
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ConfigError(f"unknown setting(s) in {path}: {', '.join(unknown)}; known settings: "
                          f"{', '.join(sorted(_KEYS))}")
    return data


def _check_type(key: str, value: Any, where: str) -> None:
    if key not in _TYPES:
        return  # unknown keys are named by _read_settings_file or TournamentConfig itself
    kind, what = _TYPES[key]
    if isinstance(value, bool) and kind is int or not isinstance(value, kind) \
            or key == "affinity" and not is_affinity(value):
        raise ConfigError(f"{where}setting {key!r} must be {what}, not {value!r}"[:400])
    if key == "bots" and not all(isinstance(b, str) for b in list(value)):
        raise ConfigError(f"{where}setting 'bots' must be {what}; {value!r} holds a "
                          f"non-string"[:400])


def _check(config: TournamentConfig) -> None:
    def need(ok: bool, message: str) -> None:
        if not ok:
            raise ConfigError(message)

    need(isinstance(config.name, str) and config.name.replace("-", "").replace("_", "").isalnum(),
         f"name must be letters, digits, '-' or '_', not {config.name!r}")
    need(len(config.bots) >= 2, "a tournament needs at least two bots (bots = [...] or --bot)")
    need(all(isinstance(b, str) and b.strip() for b in config.bots), "each bot must be a non-empty "
         "name or command")
    for key in ("seed", "workers", "decision_ms", "startup_ms", "bank_ms", "first_decision_ms",
                "max_deals"):
        value = getattr(config, key)
        if key == "seed" and value is None:
            continue
        need(isinstance(value, int) and not isinstance(value, bool) and value >= 0,
             f"{key} must be a whole number >= 0, not {value!r}")
    # One rule, one message: -n -2 and -n 0 used to be told two different ones (issue 28).
    pairs = config.matches_per_pairing
    need(isinstance(pairs, int) and not isinstance(pairs, bool) and pairs >= 2 and pairs % 2 == 0,
         f"matches_per_pairing must be even and at least 2 (matches come in duplicate pairs "
         f"with seats swapped), not {pairs!r}")
    need(config.deal_sets is None or isinstance(config.deal_sets, int)
         and not isinstance(config.deal_sets, bool) and config.deal_sets >= 1,
         f"deal_sets (-n for three or four players) must be a whole number >= 1, "
         f"not {config.deal_sets!r}")
    need(config.decision_ms > 0 and config.startup_ms > 0 and config.max_deals > 0,
         "decision_ms, startup_ms and max_deals must be positive")
    problem = clock_problem(config.decision_ms, config.first_decision_ms)
    need(problem is None, problem or "")
    need(isinstance(config.rules, Mapping), "rules must be a table of flag = value")
    need(isinstance(config.cluster, str), f"cluster must be an address like tcp://HOST:8786, "
         f"not {config.cluster!r}")
    players = rules_of(config).players
    # Two bots can fill a four-player table (each partnering itself); three seats need three bots.
    need(players != 3 or len(config.bots) >= 3, f"profile {config.profile} is for three players: "
         f"a tournament needs at least three bots, not {len(config.bots)}")
    # Fail closed: the two instances of a bot partnering itself play one match at the same time,
    # and no sandbox stops them signalling their hands to each other (docs/organisers/isolation.md).
    need(players != 4 or len(config.bots) >= 4 or config.allow_self_partner,
         f"profile {config.profile} with {len(config.bots)} bots: each bot would partner "
         "itself, and its two instances, playing the same match at the same time, could pass "
         "each other their hands through a channel no sandbox closes (their CPU use, read in "
         "/proc/stat). Give four bots or more, or --allow-self-partner (allow_self_partner = "
         "true) for bots you trust")
    sandbox_limits(config)
    check_isolation(config.isolation)


def check_isolation(level: str | None) -> None:
    """A settings file's ``isolation``, if any, names a level (levels.py), or the run is refused."""
    if level:
        try:
            check_level(level)
        except ValueError as err:
            raise ConfigError(str(err)) from None


def rules_of(config: TournamentConfig) -> Rules:
    try:
        return load_rules(config.profile, overrides=config.rules)
    except RulesError as err:
        raise ConfigError(str(err)) from None


def sandbox_limits(config: TournamentConfig) -> SandboxLimits:
    if not isinstance(config.sandbox, Mapping):
        raise ConfigError("sandbox must be a table of limit = number")
    try:
        return SandboxLimits.from_mapping(config.sandbox)
    except ValueError as err:
        raise ConfigError(str(err)) from None


def schedule_of(config: TournamentConfig, rules: Rules, bots: list[str]) -> list[ScheduledMatch]:
    """The tournament's matches: a round robin of duplicate pairs with two players, every three
    bots in all seat orders with three, every partnership split of four bots with four
    (schedule.py)."""
    if rules.players == 3:
        return three_player_sets(config.name, bots, config.deal_sets or 1)
    if rules.players == 4:
        return partnership_groups(config.name, bots, config.deal_sets or 1)
    return round_robin(config.name, bots, config.matches_per_pairing // 2)


def resolve_bots(config: TournamentConfig) -> list[BotSpec]:
    """Bot specs with unique names (a command used twice gets a suffix)."""
    specs: list[BotSpec] = []
    seen: dict[str, int] = {}
    for text in config.bots:
        try:
            data = Path(config.data) if config.data else data_dir()
            spec = resolve_bot(text, data=data)
            check_bot_paths(spec, [data, data / "registry"], [config.out_dir()])
        except BotSpecError as err:
            raise ConfigError(str(err)) from None
        count = seen.get(spec.name, 0)
        seen[spec.name] = count + 1
        specs.append(spec if count == 0 else replace(spec, name=f"{spec.name}-{count + 1}"))
    return specs


# -- workers ---------------------------------------------------------------------------------------

# -- the coordinator -------------------------------------------------------------------------------

@dataclass
class Progress:
    """What the coordinator reports after each stored match (for a progress bar)."""

    done: int
    total: int
    started: float
    last: MatchRows | None = None  # the match last stored, as the store's rows
    last_entry: ScheduledMatch | None = None  # the scheduled match ``last`` is the result of


def run_tournament(config: TournamentConfig, resume: bool = False,
                   on_progress: Callable[[Progress], None] | None = None,
                   should_stop: Callable[[], bool] | None = None) -> Path:
    """Play every scheduled match the store does not hold yet; returns the database path.

    Before anything is written, every bot is started once (``preflight``, on the workers); then
    the folder is locked for this run (``FolderLock``). Matches run in spawned processes
    (``pool.py``): a script calling this must guard its entry point with ``if __name__ ==
    "__main__":``. SIGINT and
    SIGTERM raise ``Stopped`` (matches in flight are dropped, their bots killed); a full disk
    raises ``TournamentError``. Either way, every match in the store is whole and ``--resume``
    plays the rest.

    Jobs are made lazily, one per free worker (``Pool.run``). ``should_stop`` (``arena sprt``: has
    the test concluded?) is asked before each new match is handed out and after each stored one;
    once it returns True no further match starts, those in flight are dropped as on a signal, and
    the run returns normally (``--resume`` plays the rest). On a cluster, whose batches are made
    up front, only the second question stops it."""
    out = config.out_dir()
    db_path = out / DB_NAME
    if db_path.exists() and not resume:
        raise ConfigError(f"{out} already holds a tournament; resume it with --resume {out}, or "
                          "choose another name or --output")
    if resume and not db_path.is_file():
        raise ConfigError(f"{out} holds no tournament (no {DB_NAME})")
    rules = rules_of(config)
    specs = resolve_bots(config)
    by_name = {s.name: s for s in specs}
    schedule = schedule_of(config, rules, [s.name for s in specs])
    limits = config.limits(sandbox_limits(config))
    found = None if config.cluster else _sandbox_found()  # a cluster's workers: theirs
    if found is not None:
        try:
            check_memory(limits.sandbox, found.mode)
        except SandboxUnavailable as err:
            raise ConfigError(str(err)) from None
    with ExitStack() as cleanup:
        stop = cleanup.enter_context(stop_on_signals())
        progress = Progress(_stored_count(db_path) if resume else 0, len(schedule),
                            time.monotonic())
        stop.progress, stop.out = progress, out
        cluster = None
        if config.cluster:
            # Connected and checked before anything is written; Dask is imported only here.
            from arena.compete.cluster import Cluster
            cluster = cleanup.enter_context(Cluster.connect(config.cluster,
                                                            list(zip(config.bots, specs))))
        pool: Pool[_Job, MatchRows] | None = None
        workers = min(config.worker_count(), len(schedule) - progress.done)
        # The pre-flight's stderr logs, in a folder of this process: a worker ended mid-check (a
        # stop signal) exits at once and could not remove a folder of its own. Removed as soon as
        # the check is over; if it is cut short, after the pool has ended its workers (entered
        # before the pool).
        checked_logs = TempFolder("preflight") if cluster is None and workers > 0 else None
        if checked_logs is not None:
            cleanup.enter_context(checked_logs)
        early = cleanup.enter_context(ExitStack())  # the pool, until it takes its place below
        if cluster is None and workers > 0:
            # Started first: each worker is a fresh interpreter that imports the arena, takes
            # the sandbox level found here and boots its zygote (prepare_worker), then runs the
            # pre-flight for a share of the bots from that zygote (_preflight_on) before any
            # match (issue 18).
            # A worker holds a quarter of a second of matches and reports them together (one
            # at a time when should_stop must see each result first: arena sprt): a stop or a
            # kill loses at most that much per worker, and a stopped run has played the
            # schedule's early matches.
            pool = early.enter_context(
                Pool(play_for_store, workers, name_of=lambda job: job.entry.match_id,
                     # The matches on the same deals never at once (pool.py says why).
                     exclusive=lambda job: job.entry.deal_set,
                     shared=(rules, limits, *specs),
                     on_start=functools.partial(prepare_worker, tuple(specs), found),
                     ahead_s=0.0 if should_stop is not None else HOLD_S,
                     affinity=for_run(config.affinity, limits.sandbox.cores,
                                      waiting_bots_yield())))
        if cluster is None:  # a cluster's workers are checked where they run (cluster.py)
            hide = [out, *map(Path, data_folders())]
            try:
                if pool is not None:
                    assert checked_logs is not None
                    _preflight_on(pool, specs, limits, hide, rules, checked_logs.path)
                    checked_logs.cleanup()  # every share is done: nothing is written there now
                else:
                    preflight(specs, limits, hide=hide, rules=rules)
            except PreflightError as err:
                what = "start" if rules.players == 2 else f"start and play {rules.name}"
                raise ConfigError(f"not every bot can {what}, so nothing was played:\n{err}") \
                    from None
            except WorkerError as err:  # the arena's fault, not a bot's: said as such
                raise TournamentError(f"a worker failed while it checked the bots, so nothing was "
                                      f"played: {str(err).splitlines()[0]}") from None
        try:
            if not config.output:  # data/NAME: the data folder, made and marked private first
                private_folder(out.parent, "data")
            cleanup.enter_context(FolderLock(out))
        except FolderLockedError as err:
            raise ConfigError(str(err)) from None
        except OSError as err:
            raise ConfigError(f"cannot use the folder {out}: {err.strerror or err}") from None
        if db_path.exists() and not resume:  # another run made it since the check above
            raise ConfigError(f"{out} already holds a tournament; resume it with --resume {out}")
        try:
            cleanup.enter_context(run_log(out / LOG_NAME))
        except OSError as err:
            raise ConfigError(f"cannot write {out / LOG_NAME}: {err.strerror or err}") from None
        store = Store.open(db_path, create=not resume)
        cleanup.callback(store.close)
        store.begin_tournament(config.name, config.to_dict())
        store.register_bots([(s.name, list(s.argv), s.version) for s in specs])
        key = store.deal_key()
        if key is None and store.finished_ids():
            raise ConfigError(f"{db_path} holds matches but no deal key: its remaining matches "
                              "cannot be dealt like the others; start a new tournament")
        if key is None:
            # A fresh secret, kept in the store before any match is played with it (deal_keys.py).
            key = new_key() if config.seed is None else key_from_seed(config.seed)
            store.set_deal_key(key)
        done = store.finished_ids()
        # One flag per scheduled match (its ``order`` is its place in the schedule): a fixed
        # size, where a growing set of ids grew with every match stored (issue 18).
        stored = bytearray(len(schedule))
        for m in schedule:
            stored[m.order] = m.match_id in done
        del done
        todo = len(schedule) - sum(stored)
        progress.done = len(schedule) - todo
        log.info("tournament %s: %d matches scheduled, %d stored, %d to play on %s", config.name,
                 len(schedule), progress.done, todo,
                 f"cluster {config.cluster}" if cluster else f"{config.worker_count()} workers")
        if on_progress:
            on_progress(progress)
        log.info("%s", describe_sandbox())

        records, logs = out / "records", out / "logs"

        costs = MatchCosts()

        def jobs() -> Iterator[_Job]:
            """The matches left, built one at a time as a worker asks (a 10,000-match schedule
            was 10,000 jobs held from the start), until ``should_stop`` says enough; each round's
            deal sets the longest first (play_order.py)."""
            secret = ("", "")  # the last deal set's: the matches of a deal set come together
            for m in longest_first(schedule, costs):
                if stored[m.order]:
                    continue
                if should_stop is not None and should_stop():
                    return
                if secret[0] != m.deal_set:
                    secret = (m.deal_set, deal_secret(key, m.deal_set))
                yield _Job(m, secret[1], tuple(by_name[bot] for bot in m.seats), rules, limits,
                           config.max_deals, records / f"{m.match_id}.jsonl", logs)

        def stored_now(job: _Job, match: MatchRows) -> None:
            progress.done += 1
            progress.last = match
            progress.last_entry = job.entry
            if on_progress:
                on_progress(progress)

        # A run that asks should_stop after each match (arena sprt reads the store for it) commits
        # each match at once; others commit the matches of a fraction of a second together.
        commits = _Commits(store, stop, stored_now,
                           hold_s=0.0 if should_stop is not None or cluster else HOLD_S)
        try:
            # A cluster sizes its batches from the whole list up front (cluster.py): it gets one,
            # and should_stop is asked only while that list is made.
            # The pool ends first, before the store, the log and the folder's lock: no bot of
            # this run writes in the folder once another run may have it.
            cleanup.enter_context(early.pop_all())
            finished = cleanup.enter_context(closing(
                _as_rows(cluster.play(list(jobs()), out)) if cluster
                else pool.run(jobs(), idle=commits.due, total=todo) if pool is not None and todo > 0
                else _nothing()))
            for job, match in finished:
                if stored[job.entry.order]:
                    continue  # a match played twice (a cluster's retried batch) is stored once
                stored[job.entry.order] = 1  # or about to be: it waits for its commit
                costs.add(job.entry.seats, match.play_ms)
                commits.add(job, match)
                if should_stop is not None and should_stop():
                    break  # closing the pool ends its workers and their bots
            commits.flush()
        except Stopped as stopped:
            _keep_waiting(commits)  # the matches that finished are whole: kept, not played again
            stopped.done = progress.done
            raise
        except DiskFullError as err:
            raise _disk_full(out, progress, str(err)) from None
        except WorkerError as err:
            if err.errno is not None and is_disk_full(OSError(err.errno, "")):
                raise _disk_full(out, progress, str(err).splitlines()[0]) from None
            log.error("a worker failed: %s", err)
            _keep_waiting(commits)
            raise TournamentError(f"{str(err).splitlines()[0]}; {progress.done} of "
                                  f"{progress.total} matches stored; see {out / LOG_NAME}, then: "
                                  f"arena tournament --resume {out}") from None
        except sqlite3.Error as err:
            raise TournamentError(f"storing a match in {db_path} failed: {err}; "
                                  f"{progress.done} of {progress.total} matches stored") from None
        return db_path


def _sandbox_found() -> Support | None:
    """The sandbox level found here, for the workers to take as theirs (``probe.adopt``); None
    when it cannot be had: each worker then finds that for itself, as the pre-flight does."""
    try:
        return sandbox_support()
    except SandboxUnavailable:
        return None


def _keep_waiting(commits: _Commits) -> None:
    """Commit the matches waiting, as a run ends on a stop or a worker's failure; if the store
    refuses now (a full disk), they are left to --resume and the run ends as it was ending."""
    try:
        commits.flush()
    except (DiskFullError, sqlite3.Error) as err:
        log.error("the last %d finished matches could not be stored (%s): --resume plays them "
                  "again", len(commits.waiting), err)


def _preflight_on(pool: Pool[_Job, MatchRows], specs: list[BotSpec], limits: Limits,
                  hide: list[Path], rules: Rules, logs: Path) -> None:
    """The pre-flight run by the pool's workers, each for a share of the bots, at once: their
    zygotes are booted anyway, where the coordinator booted one of its own only for this (~0.1 s
    of CPU, issue 18). The same checks, the same errors (``preflight.py``)."""
    shares = max(1, min(pool.workers, len(specs)))
    size = -(-len(specs) // shares)
    found = pool.each(problems, [(specs[i:i + size], limits, hide, rules, i, logs)
                                 for i in range(0, len(specs), size)])
    raise_problems([problem for share in found for problem in share])


def _stored_count(db_path: Path) -> int:
    """Matches already stored, read (and the file checked) before any bot starts."""
    db = connect_read_only(db_path)
    try:
        return int(db.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
    except sqlite3.Error as err:
        raise StoreError(f"{db_path} is not a results database this arena can read: {err}") \
            from None
    finally:
        db.close()


def _disk_full(out: Path, progress: Progress, detail: str) -> TournamentError:
    log.error("disk full: %s", detail)
    return TournamentError(f"the disk holding {out} is full ({detail}); {progress.done} of "
                           f"{progress.total} matches stored, each whole. Free some space, "
                           f"then: arena tournament --resume {out}")


class _Commits:
    """Finished matches waiting for their commit, and the commit of them all in one transaction
    (``Store.insert``). One commit per match cost the coordinator more than anything else
    it does for a match of cheap bots (issue 18). Once the commit is done, the group's lines go to
    tournament.log and ``stored_now`` is called for each match: the progress, the log and ``arena
    sprt``'s reading of the store only ever see stored matches."""

    def __init__(self, store: Store, stop: StopState,
                 stored_now: Callable[[_Job, MatchRows], None], hold_s: float):
        self.store, self.stop, self.stored_now, self.hold_s = store, stop, stored_now, hold_s
        self.waiting: list[tuple[_Job, MatchRows]] = []
        self.since = 0.0  # when the oldest waiting match finished
        self.first = True  # a run's first match is committed at once: its progress shows at once

    def add(self, job: _Job, match: MatchRows) -> None:
        if not self.waiting:
            self.since = time.monotonic()
        self.waiting.append((job, match))
        if self.first or len(self.waiting) >= HOLD_MAX \
                or time.monotonic() - self.since >= self.hold_s:
            self.first = False
            self.flush()

    def due(self) -> float | None:
        """Commits the waiting matches if it is time; else how long the caller may wait before it
        asks again (None: nothing waits). The pool asks before each wait (``Pool.run(idle=)``)."""
        if not self.waiting:
            return None
        left = self.since + self.hold_s - time.monotonic()
        if left > 0:
            return left
        self.flush()
        return None

    def flush(self) -> None:
        if not self.waiting:
            return
        # A stop signal waits until the commit is done, the matches are off the list and counted:
        # raised between those, it would have them committed a second time, or not counted.
        with self.stop.held_off():
            clock = phases.clock()  # None unless a benchmark asked where the time goes
            self.store.insert([match for _, match in self.waiting])
            if clock is not None:
                clock.lap(phases.STORE)
                clock.write(matches=len(self.waiting))
            done, self.waiting = self.waiting, []
            log_stored([(job.entry, match) for job, match in done])
            for job, match in done:
                self.stored_now(job, match)


@contextmanager
def run_log(path: Path) -> Iterator[None]:
    """A run's log file (a tournament's, a league's), for the coordinator and (through
    ``pool.py``) every worker. A log that cannot be written (a full disk) never ends the run: its
    records are dropped."""
    root = logging.getLogger()
    private_file(path)  # 0600 before the handler opens it: the log names bots, matches, faults
    handler = _QuietFileHandler(path)
    handler.setFormatter(logging.Formatter("%(asctime)s %(processName)s %(name)s: %(message)s"))
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(min(old_level or logging.INFO, logging.INFO))
    try:
        yield
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
        handler.close()


def _as_rows(finished: Iterator[tuple[_Job, MatchResult]]
             ) -> Generator[tuple[_Job, MatchRows], None, None]:
    """A cluster's finished matches as the store's rows (a local worker sends them so)."""
    try:
        for job, result in finished:
            yield job, match_rows(job.entry, result, record=f"records/{job.record.name}")
    finally:
        close = getattr(finished, "close", None)
        if close is not None:
            close()


def _nothing() -> Generator[tuple[_Job, MatchRows], None, None]:
    """No finished matches: nothing was left to play, so no worker was started."""
    yield from ()


class _QuietFileHandler(logging.FileHandler):
    def handleError(self, record: logging.LogRecord) -> None:
        pass  # logging's default prints a traceback to stderr: a full disk is reported once, plainly
