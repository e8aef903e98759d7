"""Running a tournament's matches on an existing Dask cluster (``arena tournament --cluster ADDR``).

The local process pool (``tournament.py``) stays the default; this module, and Dask with it, is
imported only when a tournament names a cluster. Dask does the networking, placement and recovery;
this module decides what a task is and what comes back. Only the coordinator writes the output
folder and the store, exactly as in a local run.

- **Batches.** Each Dask task plays several matches, so that Dask's cost per task (scheduling, a
  round trip, serialisation: milliseconds) stays a small share of the matches' own time (measured
  by ``scripts/bench_cluster.py``). Sizes follow guided self-scheduling: each batch takes a share of
  the matches not yet batched, so early batches are large and the last ones are single matches, and
  the workers run out of work together instead of one finishing a long batch alone.
- **Records travel with results.** A worker plays its batch in a private temporary folder and
  sends back, with each result, the match's files (its JSON Lines record and the bots' stderr logs,
  compressed); the coordinator writes them into the output folder, then stores the match. The
  output folder need not be shared, and a lost batch leaves nothing half-written behind.
- **A batch is all or nothing.** The coordinator sees a batch only once all of it has finished.
  A worker that dies mid-batch loses the whole batch; Dask runs it again on another worker (up to
  the scheduler's ``distributed.scheduler.allowed-failures`` times). Matches are deterministic, so
  the rerun gives the same results; nothing of the lost run was stored, the coordinator skips any
  match it already holds, and the store's primary key would refuse a duplicate anyway.
- **Bots reach workers by path.** A bundled bot is resolved again on each worker (that worker's
  Python, its own build of the C bots). Any other bot command must find its program and files at
  the same paths on every worker: a shared folder (on one machine, trivially). Every worker present
  is checked before the first match, and each batch checks again where it runs (a worker may join
  later): a missing file is an error naming the bot, the path and the worker, never a forfeit.
"""

from __future__ import annotations

import fcntl
import functools
import logging
import math
import os
import re
import shutil
import socket
import sys
import time
import uuid
import zlib
from concurrent.futures import CancelledError
from dataclasses import dataclass, replace
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generator, Sequence

from arena import __version__
from arena.arena_folders import open_private, private_subfolder
from arena.compete.match_job import MatchJob as _Job
from arena.compete.match_job import play_job as _play
from arena.entrants.bot_specs import C_DIR, BotSpecError, bundled_names, resolve_bot
from arena.temp_folders import TempFolder
from arena.types import BotSpec, ConfigError, MatchResult

if TYPE_CHECKING:
    from distributed import Client

log = logging.getLogger("arena.compete.cluster")

CONNECT_TIMEOUT_S = 10     # reaching the scheduler: a wrong address fails fast, before any match
WORKERS_TIMEOUT_S = 30     # a scheduler without workers: wait this long for the first one
MAX_BATCH = 25             # matches per task at most: a lost worker or an interrupted run loses
                           # at most this many matches per worker thread, and progress stays live
BATCH_SHARE = 2            # each batch takes 1 / (BATCH_SHARE * threads) of the matches left

# scheme://host:port, or host:port (Dask's default scheme is tcp); an IPv6 host in brackets.
_ADDRESS = re.compile(r"^(?:[a-z][a-z0-9+.-]*://)?(?:\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]]+):\d{1,5}$")


class ClusterError(ConfigError):
    """The cluster cannot run this tournament: unreachable, no workers, a worker lacking a bot's
    files or another arena version, a batch lost too often. Results already stored are kept."""


class WorkerSetupError(Exception):
    """Raised on a worker that lacks what the tournament needs (a bot's files, the coordinator's
    arena version); the message names the worker, and the bot and path where one is missing."""


@dataclass(frozen=True)
class WorkerBot:
    """A bot as sent to workers: a bundled bot by its name, any other by its spec and the files it
    names (which must exist at the same paths on every worker). A command run by the arena's own
    Python (``python3 bot.py`` resolves to it) runs on each worker with that worker's Python."""

    spec: BotSpec
    bundled: str | None = None
    files: tuple[str, ...] = ()
    arena_python: bool = False

    @property
    def name(self) -> str:
        return self.spec.name

    @classmethod
    def of(cls, text: str, spec: BotSpec) -> WorkerBot:
        """``text`` is what the user wrote for the bot, ``spec`` what the coordinator made of it."""
        if text.strip() in bundled_names():
            return cls(spec, bundled=text.strip())
        arena_python = spec.argv[0] == sys.executable
        named = spec.argv[1:] if arena_python else spec.argv
        files = tuple(a for a in named if os.path.isabs(a) and os.path.exists(a))
        if spec.folder:  # a registered bot: its folder is copied in for each match
            files += (spec.folder,)
        return cls(spec, files=files, arena_python=arena_python)

    def here(self) -> BotSpec:
        """The spec as this worker runs it."""
        if self.arena_python:
            return replace(self.spec, argv=(sys.executable, *self.spec.argv[1:]))
        return self.spec


# -- on a worker -----------------------------------------------------------------------------------

def _where() -> str:
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return f"{socket.gethostname()} (pid {os.getpid()})"


@functools.lru_cache(maxsize=None)
def _bundled_here(bundled: str, name: str) -> BotSpec:
    # Worker processes on one machine share one build folder for the C bots: one build at a time.
    # The lock is that folder itself (flock on a directory needs only read access), so it is
    # shared by exactly those who build there, whoever they are. A fixed-name lock file in the
    # shared temporary folder belonged to the first user to make it: every other user then got
    # "Permission denied" (issue 14).
    fd = os.open(C_DIR, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return resolve_bot(bundled, name)
    finally:
        os.close(fd)  # and with it the lock


def _bots_here(bots: Sequence[WorkerBot], version: str, where: str) -> dict[str, BotSpec]:
    """The bots as this worker (``where``) runs them, or ``WorkerSetupError`` saying what lacks."""
    if version != __version__:
        raise WorkerSetupError(f"worker {where} runs arena {__version__}, the coordinator "
                              f"{version}: install the same version everywhere")
    specs: dict[str, BotSpec] = {}
    for bot in bots:
        if bot.bundled is not None:
            try:
                specs[bot.name] = _bundled_here(bot.bundled, bot.name)
            except BotSpecError as err:
                raise WorkerSetupError(f"bot {bot.name!r} cannot run on worker {where}: "
                                      f"{err}") from None
            continue
        for path in bot.files:
            if not os.path.exists(path):
                raise WorkerSetupError(
                    f"bot {bot.name!r} cannot run on worker {where}: {path} does not exist "
                    "there; every worker must see a bot's files at the same path (a shared folder)")
        spec = bot.here()
        program = spec.argv[0]
        if not os.path.isabs(program) and shutil.which(program) is None:
            raise WorkerSetupError(f"bot {bot.name!r} cannot run on worker {where}: program "
                                  f"{program!r} is not on that worker's PATH")
        specs[bot.name] = spec
    return specs


def check_worker(bots: Sequence[WorkerBot], version: str, dask_worker: Any = None) -> str:
    """Run on every worker before the first match (``Client.run`` passes ``dask_worker``): raises
    what ``_bots_here`` raises; returns the worker's address."""
    where = dask_worker.address if dask_worker is not None else _where()
    _bots_here(bots, version, where)
    return where


@dataclass(frozen=True)
class Played:
    """One match played on a worker: the result (settlements only, as in a local run) and the
    match's files, relative path -> zlib-compressed bytes."""

    match_id: str
    result: MatchResult
    files: dict[str, bytes]


@dataclass(frozen=True)
class Batch:
    """What a task sends back: every match of its batch, where and how long it took to play."""

    played: list[Played]
    worker: str
    seconds: float


def run_batch(jobs: Sequence[_Job], bots: Sequence[WorkerBot], version: str) -> Batch:
    """A Dask task: play ``jobs`` one after another here, in a private folder; return them all."""
    started = time.perf_counter()
    where = _where()
    here = _bots_here(bots, version, where)
    played = []
    with TempFolder("batch") as root:
        for job in jobs:
            match_id = job.entry.match_id
            local = replace(job, bots=tuple(here[bot.name] for bot in job.bots),
                            record=root / "records" / f"{match_id}.jsonl", log_dir=root / "logs")
            result = _play(local)
            files = {}
            for path in [local.record, *sorted(local.log_dir.glob(f"{match_id}.*"))]:
                if path.is_file():
                    files[str(path.relative_to(root))] = zlib.compress(path.read_bytes(), 1)
                    path.unlink()
            played.append(Played(match_id, replace(result, record_path=None), files))
    return Batch(played, where, time.perf_counter() - started)


# -- on the coordinator ----------------------------------------------------------------------------

def batch_sizes(matches: int, threads: int) -> list[int]:
    """Guided self-scheduling: each batch is a share of what is left, capped, at least 1."""
    sizes = []
    left = matches
    while left > 0:
        size = _batch_size(left, threads)
        sizes.append(size)
        left -= size
    return sizes


def _batch_size(left: int, threads: int) -> int:
    return max(1, min(MAX_BATCH, math.ceil(left / (BATCH_SHARE * max(threads, 1)))))


def batches(jobs: Sequence[_Job], threads: int) -> list[list[_Job]]:
    """The jobs in guided batches (``batch_sizes``), each made of whole deal sets: the matches on
    the same deals (a duplicate pair, a deal set's seatings) are played one after another by one
    task, never at once on two threads. Two instances of a bot playing the same deals at the
    same time, one in each seat, could tell each other the cards (pool.py, ``exclusive``). A
    batch may pass its size by the rest of its last deal set."""
    sets: dict[str, list[_Job]] = {}
    for job in jobs:  # the schedule's order, each deal set's matches together
        sets.setdefault(job.entry.deal_set, []).append(job)
    out: list[list[_Job]] = []
    current: list[_Job] = []
    left = len(jobs)
    for same_deals in sets.values():
        current += same_deals
        if len(current) >= _batch_size(left, threads):
            out.append(current)
            left -= len(current)
            current = []
    if current:
        out.append(current)
    return out


class Cluster:
    """A connection to a Dask scheduler whose workers can run this tournament's bots."""

    def __init__(self, client: Client, address: str, bots: Sequence[WorkerBot]):
        self.client = client
        self.address = address
        self.bots = tuple(bots)

    @classmethod
    def connect(cls, address: str, bots: Sequence[tuple[str, BotSpec]]) -> Cluster:
        """Connect, wait for a worker, and check every worker can run every bot. ``bots`` are
        (what the user wrote, what it resolved to). Any problem is a ``ClusterError``."""
        if not _ADDRESS.match(address):
            raise ClusterError(f"cluster must be a Dask scheduler's address like "
                               f"tcp://HOST:8786, not {address!r}")
        try:
            from distributed import Client
        except ImportError as err:
            raise ClusterError(f"running on a cluster needs Dask, an optional extra: "
                               f"pip install 'sixtysix-arena[dask]' ({err})") from None
        try:
            client = Client(address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
        except (OSError, ValueError) as err:
            raise ClusterError(f"cannot reach the Dask scheduler at {address}: {err} (is "
                               f"`dask scheduler` running there?)") from None
        cluster = cls(client, address, [WorkerBot.of(text, spec) for text, spec in bots])
        try:
            cluster.check_workers()
        except BaseException:
            cluster.close()
            raise
        return cluster

    def check_workers(self) -> None:
        try:
            self.client.wait_for_workers(1, timeout=WORKERS_TIMEOUT_S)
        except TimeoutError:
            raise ClusterError(f"the Dask scheduler at {self.address} has no workers (waited "
                               f"{WORKERS_TIMEOUT_S} s); start some with `dask worker "
                               f"{self.address}`") from None
        answers = self.client.run(check_worker, self.bots, __version__, on_error="return")
        problems = [f"{worker}: {answer}" if not isinstance(answer, WorkerSetupError)
                    else str(answer)
                    for worker, answer in sorted(answers.items())
                    if isinstance(answer, BaseException)]
        if problems:
            raise ClusterError("workers cannot run this tournament:\n  " + "\n  ".join(problems))
        log.info("cluster %s: %d workers, %d threads", self.address, len(answers),
                 self.threads())

    def threads(self) -> int:
        return sum(self.client.nthreads().values()) or 1

    def play(self, jobs: Sequence[_Job],
             out: Path) -> Generator[tuple[_Job, MatchResult], None, None]:
        """Finished matches as their batches come back, their files already written to ``out``."""
        from distributed import KilledWorker, as_completed

        if not jobs:
            return
        chunks = batches(jobs, self.threads())
        sizes = [len(chunk) for chunk in chunks]
        by_id = {job.entry.match_id: job for job in jobs}
        resume = f"finish with arena tournament --resume {out}"
        token = uuid.uuid4().hex[:8]
        futures = []
        index_of: dict[object, int] = {}
        for index, chunk in enumerate(chunks):
            # Earlier batches first: a stopped run has played the schedule's early matches.
            future = self.client.submit(
                run_batch, chunk, self.bots, __version__, priority=len(chunks) - index,
                key=f"arena-batch-{index:05d}-{chunk[0].entry.match_id}-{token}", pure=False)
            futures.append(future)
            index_of[future.key] = index
        log.info("%d matches sent to %s in %d batches of %d..%d", len(jobs), self.address,
                 len(sizes), min(sizes), max(sizes))
        seen: set[str] = set()
        pending = set(futures)
        try:
            for future in as_completed(futures, loop=self.client.loop):
                try:
                    batch: Batch = future.result()
                except WorkerSetupError as err:  # a worker that joined after the first check
                    raise ClusterError(f"{err}. The matches stored so far are kept: "
                                       f"{resume}") from None
                except KilledWorker as err:
                    raise ClusterError(f"a batch of matches was lost with every worker that ran "
                                       f"it ({err}); a bot may be crashing its worker. The "
                                       f"matches stored so far are kept: {resume}") from None
                except CancelledError as err:
                    raise ClusterError(f"the Dask scheduler at {self.address} dropped the run "
                                       f"({' '.join(str(err).split())}). The matches stored so "
                                       f"far are kept: {resume}") from None
                pending.discard(future)
                future.release()
                log.info("batch %d (%d matches) played on %s in %.1f s", index_of[future.key],
                         len(batch.played), batch.worker, batch.seconds)
                for item in batch.played:
                    if item.match_id in seen:
                        continue  # Dask gives one result per key; still, never yield a match twice
                    seen.add(item.match_id)
                    job = by_id[item.match_id]
                    _write_files(out, item.files)
                    yield job, replace(item.result, record_path=job.record)
        finally:
            if pending:  # an interrupted run leaves no work behind on the cluster
                self.client.cancel(list(pending))

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def _write_files(out: Path, files: dict[str, bytes]) -> None:
    """Write a match's files whole (a temporary name, then a rename), before the store row that
    points at them: a kill in between leaves a record without a row, which resume replaces."""
    for relative, data in files.items():
        path = out / relative
        private_subfolder(path.parent)
        partial = path.with_name(path.name + ".part")
        fd = open_private(partial, os.O_WRONLY | os.O_TRUNC)  # a record holds every hand
        with open(fd, "wb") as fh:
            fh.write(zlib.decompress(data))
        os.replace(partial, path)

