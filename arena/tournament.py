"""Running a tournament: settings, a pool of worker processes, one coordinator that stores results.

The schedule (``schedule.py``) says who plays whom; this module says when and where. Workers each
run one match at a time through the referee and send the result back; only this process writes the
SQLite store, one transaction per finished match, so a ``kill -9`` loses at most the matches in
flight. Resuming reruns exactly the scheduled matches the store does not hold. With ``cluster`` set,
the matches run on a Dask cluster instead (``cluster.py``); the coordinator's part is the same.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import time
import tomllib
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import ExitStack, closing
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Callable, Generator, Mapping

from arena.bot_process import DEFAULT_DECISION_MS, DEFAULT_STARTUP_MS, Limits
from arena.bot_specs import BotSpecError, check_bot_paths, resolve_bot
from arena.deal_keys import deal_secret, key_from_seed, new_key
from arena.game import Rules, RulesError, load_rules
from arena.registry import data_dir
# One match job, played here or on a cluster, lives in match_job.py (below cluster.py).
from arena.match_job import MatchJob as _Job, play_job as _play
from arena.types import BotSpec, ConfigError, MatchResult
from arena.sandbox import SandboxLimits, check_level, describe as describe_sandbox
from arena.schedule import round_robin
from arena.store import DB_NAME, Store

log = logging.getLogger("arena.tournament")

CONFIG_NAME = "tournament.toml"


@dataclass(frozen=True)
class TournamentConfig:
    """Everything a tournament needs; a TOML file and command-line flags fill it (flags win)."""

    name: str = "tournament"
    bots: tuple[str, ...] = ()                 # bundled bot names or commands
    profile: str = "sixty_six"
    rules: Mapping[str, Any] = field(default_factory=dict)  # flag overrides (RULES.md §11)
    matches_per_pairing: int = 4               # even: matches come in duplicate pairs
    seed: int | None = None                    # research runs only: deals from a public key
    workers: int = 0                           # 0: all cores
    decision_ms: int = DEFAULT_DECISION_MS
    startup_ms: int = DEFAULT_STARTUP_MS
    max_deals: int = 200
    output: str = ""                           # default: results/<name>
    sandbox: Mapping[str, Any] = field(default_factory=dict)  # limit overrides (sandbox.py)
    cluster: str = ""                          # a Dask scheduler (tcp://HOST:PORT): run there
    isolation: str = ""                        # sandbox level (sandbox.py); "": ARENA_ISOLATION
    data: str = ""                             # the data folder: registered bots; default: results

    def out_dir(self) -> Path:
        return Path(self.output or Path(self.data or "results") / self.name)

    def worker_count(self) -> int:
        return self.workers or os.cpu_count() or 1

    def to_dict(self) -> dict[str, Any]:
        """The settings that define the tournament's results (not where or how fast it runs)."""
        data = asdict(self)
        data["bots"] = list(self.bots)
        data["rules"] = dict(self.rules)
        for key in ("workers", "output", "cluster", "isolation", "data"):
            data.pop(key)
        if self.seed is None:
            del data["seed"]  # deals from the secret key in the store (deal_keys.py): no seed shown
        data["sandbox"] = dict(self.sandbox)
        if not self.sandbox:
            del data["sandbox"]  # as stored before limits could be set: such runs still resume
        return data


# The data folder is the arena's (arena ... --data), not one tournament's setting.
_KEYS = {f.name for f in fields(TournamentConfig)} - {"data"}


def load_config(path: Path | None, overrides: Mapping[str, Any]) -> TournamentConfig:
    """Settings from a TOML file (optional), then from ``overrides`` (command-line flags; None values
    are ignored). Every problem is a ``ConfigError`` naming the setting."""
    data: dict[str, Any] = {}
    if path is not None:
        try:
            with open(path, "rb") as fh:
                data = tomllib.load(fh)
        except OSError as err:
            raise ConfigError(f"cannot read tournament file {path}: {err.strerror}") from None
        except tomllib.TOMLDecodeError as err:
            raise ConfigError(f"tournament file {path} is not valid TOML: {err}") from None
        unknown = sorted(set(data) - _KEYS)
        if unknown:
            raise ConfigError(f"unknown setting(s) in {path}: {', '.join(unknown)}; known settings: "
                              f"{', '.join(sorted(_KEYS))}")
    if isinstance(data.get("sandbox"), Mapping) and overrides.get("sandbox"):
        # --limit flags override single limits of the file's [sandbox] table, not the whole table
        overrides = {**overrides, "sandbox": {**data["sandbox"], **overrides["sandbox"]}}
    data.update({k: v for k, v in overrides.items() if v is not None and v != () and v != []})
    try:
        values: dict[str, Any] = {k: (tuple(v) if k == "bots" else v) for k, v in data.items()}
        config = TournamentConfig(**values)
    except TypeError as err:
        raise ConfigError(str(err)) from None
    _check(config)
    return config


def _check(config: TournamentConfig) -> None:
    def need(ok: bool, message: str) -> None:
        if not ok:
            raise ConfigError(message)

    need(isinstance(config.name, str) and config.name.replace("-", "").replace("_", "").isalnum(),
         f"name must be letters, digits, '-' or '_', not {config.name!r}")
    need(len(config.bots) >= 2, "a tournament needs at least two bots (bots = [...] or --bot)")
    need(all(isinstance(b, str) and b.strip() for b in config.bots), "each bot must be a non-empty "
         "name or command")
    for key in ("matches_per_pairing", "seed", "workers", "decision_ms", "startup_ms", "max_deals"):
        value = getattr(config, key)
        if key == "seed" and value is None:
            continue
        need(isinstance(value, int) and not isinstance(value, bool) and value >= 0,
             f"{key} must be a whole number >= 0, not {value!r}")
    need(config.matches_per_pairing >= 2 and config.matches_per_pairing % 2 == 0,
         f"matches_per_pairing must be even and at least 2 (matches come in duplicate pairs with "
         f"seats swapped), not {config.matches_per_pairing}")
    need(config.decision_ms > 0 and config.startup_ms > 0 and config.max_deals > 0,
         "decision_ms, startup_ms and max_deals must be positive")
    need(isinstance(config.rules, Mapping), "rules must be a table of flag = value")
    need(isinstance(config.cluster, str), f"cluster must be an address like tcp://HOST:8786, "
         f"not {config.cluster!r}")
    rules_of(config)
    sandbox_limits(config)
    if config.isolation:
        try:
            check_level(config.isolation)
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
    last: MatchResult | None = None


def run_tournament(config: TournamentConfig, resume: bool = False,
                   on_progress: Callable[[Progress], None] | None = None) -> Path:
    """Play every scheduled match the store does not hold yet; returns the database path."""
    out = config.out_dir()
    db_path = out / DB_NAME
    if db_path.exists() and not resume:
        raise ConfigError(f"{out} already holds a tournament; resume it with --resume {out}, or "
                          "choose another name or --output")
    rules = rules_of(config)
    specs = resolve_bots(config)
    by_name = {s.name: s for s in specs}
    schedule = round_robin(config.name, [s.name for s in specs], config.matches_per_pairing // 2)
    with ExitStack() as cleanup:
        cluster = None
        if config.cluster:
            # Connected and checked before anything is written; Dask is imported only here.
            from arena.cluster import Cluster
            cluster = cleanup.enter_context(Cluster.connect(config.cluster,
                                                            list(zip(config.bots, specs))))
        store = Store.open(db_path)
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
        todo = [m for m in schedule if m.match_id not in done]
        log.info("tournament %s: %d matches scheduled, %d stored, %d to play on %s", config.name,
                 len(schedule), len(done), len(todo),
                 f"cluster {config.cluster}" if cluster else f"{config.worker_count()} workers")
        progress = Progress(len(schedule) - len(todo), len(schedule), time.monotonic())
        if on_progress:
            on_progress(progress)
        limits = Limits(decision_ms=config.decision_ms, startup_ms=config.startup_ms,
                        sandbox=sandbox_limits(config))
        log.info("%s", describe_sandbox())  # probed once here; the forked workers inherit it
        secrets = {m.deal_set: deal_secret(key, m.deal_set) for m in todo}
        jobs = [_Job(m, secrets[m.deal_set], (by_name[m.seat0], by_name[m.seat1]), rules, limits,
                     config.max_deals, out / "records" / f"{m.match_id}.jsonl", out / "logs")
                for m in todo]
        finished = cleanup.enter_context(closing(
            cluster.play(jobs, out) if cluster else _play_locally(jobs, config.worker_count())))
        for job, result in finished:
            if job.entry.match_id in done:
                continue  # a match played twice (a cluster's retried batch) is stored once
            store.record_match(job.entry, result, record=str(job.record.relative_to(out)))
            done.add(job.entry.match_id)
            progress.done += 1
            progress.last = result
            if on_progress:
                on_progress(progress)
        return db_path


def _play_locally(jobs: list[_Job],
                  workers: int) -> Generator[tuple[_Job, MatchResult], None, None]:
    """Finished matches from a pool of processes on this machine, in the order they finish."""
    # fork: workers inherit the multiprocessing-logging queue installed by the CLI.
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        pending: dict[Future[MatchResult], _Job] = {}
        queue = iter(jobs)
        # Keep only a few matches in flight per worker: a kill then loses little, and a stopped
        # run has played the schedule's early matches (every pairing about equally).
        for job in _take(queue, 2 * workers):
            pending[pool.submit(_play, job)] = job
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                job = pending.pop(future)
                yield job, future.result()
                for nxt in _take(queue, 1):
                    pending[pool.submit(_play, nxt)] = nxt


def _take(iterator: Any, n: int) -> list[Any]:
    out = []
    for _ in range(n):
        try:
            out.append(next(iterator))
        except StopIteration:
            break
    return out
