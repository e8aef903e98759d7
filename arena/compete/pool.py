"""Worker processes that play a tournament's matches on this machine, and never outlive it.

``concurrent.futures.ProcessPoolExecutor`` with ``fork`` left workers alive with parent 1 after the
coordinator was killed, and hung at exit in multiprocessing's exit handler after a Ctrl-C (issue 14):
it forked while threads ran, and a worker never learns that its coordinator is gone. This pool is
small enough to hold every guarantee itself:

- **Spawned, not forked**: each worker is a fresh interpreter, started from the coordinator's main
  thread, so no lock held by another thread (logging, the bot-folder remover) is copied half-taken.
- **Dies with the coordinator**, however that dies: the kernel sends each worker ``SIGTERM`` when
  the coordinator's main thread ends (``PR_SET_PDEATHSIG``; it fires on the death of the parent
  *thread*, hence the main thread), and a thread in each worker watches a pipe whose only writing
  end the coordinator holds (end of file: the coordinator is gone, on any system).
- **Takes its bots with it**: a dying worker gives its bots back their CPU weight (a killed
  process needs the CPU to exit) and kills the process group of each of its children (each bot,
  or its sandbox launcher, runs in a session of its own) before it exits. So it leaves the
  coordinator's process group as it starts: a ``kill -9`` of that group ends it by way of the
  coordinator's death, on the path that ends its bots (``scripts/bench_orphans.py`` counts what
  outlives such kills).
- **Stops at once**: ``close()`` ends every worker (``SIGTERM``, ``SIGKILL`` after a grace) and
  drops the matches in flight; nothing of them was stored.
- **Logging** travels on the worker's own connection to the coordinator, which hands each record
  to its loggers: no queue thread, no shared lock.
- A worker that dies mid-match is replaced and its match played again, once; twice is an error.
- **One core per worker** where it can claim one (``worker_cores.py``: the default, ``affinity =
  "auto"``; ``True`` keeps to cores whatever is claimed, ``False`` never): a worker, its zygote
  and its bots keep to a core of their own, so that a match's wake-ups stay on that core.
"""

from __future__ import annotations

import ctypes
import io
import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import select
import signal
import sys
import threading
import time
import traceback
import types
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing import resource_tracker
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from multiprocessing.reduction import ForkingPickler
from typing import (
    Any,
    Callable,
    Generator,
    Generic,
    Hashable,
    Iterable,
    Iterator,
    Sequence,
    TypeVar,
)

from arena.isolation.worker_cores import Affinity, keep_to_a_core, start_at

log = logging.getLogger("arena.compete.pool")

Job = TypeVar("Job")
Result = TypeVar("Result")

STOP_GRACE_S = 0.2      # after SIGTERM, a worker has this long to kill its bots and exit
_PR_SET_PDEATHSIG = 1   # <linux/prctl.h>
MAX_DEATHS_PER_JOB = 2  # a match whose worker died this many times is an error, not a retry
MAX_AHEAD = 32          # jobs a worker may hold beyond the one it plays (Pool.ahead_s)
_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


class WorkerError(RuntimeError):
    """A worker failed in a way a match cannot absorb (the referee raised, or a worker kept dying).
    ``errno`` is set when the cause was an ``OSError`` (a full disk, say)."""

    def __init__(self, message: str, errno: int | None = None):
        super().__init__(message)
        self.errno = errno


@dataclass
class _Worker:
    process: BaseProcess
    conn: Connection
    lifeline: Connection          # the writing end the worker watches; never written
    # The jobs it holds, oldest first: those it played but has not reported yet, the one it plays,
    # those waiting their turn (Pool.ahead_s).
    jobs: deque[Any] = field(default_factory=deque)
    # How long its slowest recent job took (halving at each report unless a slower one comes):
    # how many jobs fill ahead_s without a slow one among them leaving the other workers idle
    # at the end of a run. A mean let a worker that had played cheap matches take a share of
    # slow ones (the demo's strong bot) and finish well after the others.
    match_s: float | None = None

    @property
    def busy(self) -> bool:
        return bool(self.jobs)


@dataclass
class _Pending(Generic[Job]):
    job: Job
    deaths: int = 0


@dataclass
class Pool(Generic[Job, Result]):
    """``workers`` processes each running ``play(job)`` one job at a time. Use as a context manager;
    ``run(jobs)`` yields ``(job, result)`` in the order jobs finish."""

    play: Callable[[Job], Result]
    workers: int
    name_of: Callable[[Job], str] = str  # a job in the log
    # Objects that many jobs hold (a tournament's rules, limits and bot specs): each worker gets
    # them once, when it starts, and a job refers to them by number. Pickled with every job they
    # were most of its size and cost (issue 18).
    shared: tuple[Any, ...] = ()
    # Called in each worker as it starts, before its first job (a tournament boots the worker's
    # zygote there: beside the pre-flight, not before the first match). Its errors are ignored.
    on_start: Callable[[], object] | None = None
    # How many seconds of jobs a worker may hold beyond the one it plays, and play before it
    # reports their results together. 0: one job at a time, each result reported at once (a
    # caller choosing each next job from every result so far needs that). A tournament of cheap
    # matches sets it: each job and each result was a message and a wake-up of the coordinator,
    # most of its CPU per match at some 80 matches a second (issue 18). A stop drops what a worker
    # holds, up to that much play per worker, which --resume plays again.
    ahead_s: float = 0.0
    # Each worker, its zygote and its bots keep to a core of their own: True, False, or "auto"
    # where the worker can claim one no other arena holds (worker_cores.py). A tournament's
    # default is "auto"; a pool's, False (its jobs need not be matches).
    affinity: Affinity = False
    # Jobs with the same key (a tournament's deal set) never run on two workers at once: one
    # worker plays them one after another. Two instances of a bot playing the same deals at the
    # same time, one in each seat, could tell each other the cards (each holds the hand the
    # other's opponent hides) through what every process may read or feel: /proc/stat,
    # /proc/meminfo, the CPU's speed.
    exclusive: Callable[[Job], Hashable] | None = None
    _workers: list[_Worker] = field(default_factory=list)
    _context: Any = None
    _first_core: int = 0  # where among the cores worker 0 keeps to (worker_cores.start_at)
    _left: int | None = None  # jobs the running source has yet to give, when known
    _owners: dict[Hashable, list[Any]] = field(default_factory=dict)  # key -> [worker, jobs held]

    def __enter__(self) -> Pool[Job, Result]:
        atomic = [obj for obj in self.shared if isinstance(obj, _ATOMIC)]
        if atomic:  # pickle would write them whole, never as a reference (_SharedPickler)
            raise TypeError(f"a pool's shared objects cannot be of type {type(atomic[0]).__name__}")
        self._context = multiprocessing.get_context("spawn")
        self._first_core = start_at()
        try:
            for index in range(self.workers):
                self._start(index)
        except BaseException:
            self.close(graceful=False)
            raise
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        self.close(graceful=kind is None)

    def _start(self, index: int) -> _Worker:
        conn, child_conn = self._context.Pipe(duplex=True)
        watch, lifeline = self._context.Pipe(duplex=False)
        level = logging.getLogger().getEffectiveLevel()
        # What the worker runs travels as bytes it unpickles only once it dies with us
        # (_worker_main): unpickled by multiprocessing, it imported the referee, the engine and
        # the sandbox before the worker's first line ran, 1-2 s on a loaded machine during which
        # a coordinator killed with kill -9 left a worker (and the resource tracker, which waits
        # for the workers) alive.
        work = bytes(ForkingPickler.dumps((self.play, self.shared, self.on_start)))
        process = self._context.Process(
            target=_worker_main, name=f"worker-{index + 1}",
            args=(work, child_conn, watch, os.getpid(), level,
                  (index, self.workers, self.affinity, self._first_core)),
            daemon=False)
        # A stop signal while the worker is being started would leave it half-told (it printed
        # a traceback on the missing start data) and unknown to close(): the signals wait until
        # it is on the list (stop_signals_held).
        try:
            with stop_signals_held(), main_left_out(self.play, self.on_start):
                process.start()
                worker = _Worker(process, conn, lifeline)
                self._workers[index:index + 1] = [worker]
        finally:
            child_conn.close()
            watch.close()
        return worker

    def run(self, jobs: Iterable[Job], idle: Callable[[], float | None] | None = None,
            total: int | None = None) -> Generator[tuple[Job, Result], None, None]:
        """Yield ``(job, result)`` in the order jobs finish, pulling ``jobs`` lazily: one job per
        idle worker at the start, then the next only once a finished job's result has been
        yielded and the generator resumed. A caller can therefore choose each next job from every
        result seen so far (stop when a test concludes, pick the next pairing), and a long
        schedule is never held in memory (issue 18). With ``ahead_s``, a worker that reports is
        given as many jobs as fill that much of its time. A job whose worker died is played again
        (alone) before any new one is pulled. ``idle``, if given, is called before each wait: it
        may do work (a tournament commits the results it holds) and returns how many seconds the
        pool may wait before it calls it again (None: until something happens). ``total``, the
        number of jobs ``jobs`` gives if known, lets the jobs handed out at once shrink toward the
        end, so that the workers finish together."""
        source = iter(jobs)
        retry: deque[_Pending[Job]] = deque()
        waiting: deque[_Pending[Job]] = deque()  # their key is another worker's (``exclusive``)
        self._left = total
        self._owners = {}

        def pull(worker: _Worker) -> _Pending[Job] | None:
            """The next job ``worker`` may take: one played again after a death, one that waited
            for its key, else the source's next; a job whose key another worker holds waits."""
            for queue in (retry, waiting):
                for i, pending in enumerate(queue):
                    if self._free_for(pending, worker):
                        del queue[i]
                        if queue is waiting and self._left is not None:
                            self._left -= 1
                        return pending
            for job in source:
                pending = _Pending(job)
                if not self._free_for(pending, worker):
                    waiting.append(pending)
                    continue
                if self._left is not None:
                    self._left -= 1
                return pending
            return None

        def give_idle() -> None:
            """Jobs for each idle worker (one that is busy is topped up when it reports)."""
            for worker in self._workers:
                if not worker.busy:
                    self._give(worker, pull)

        give_idle()
        # One poll set for the whole run, changed only as workers start and finish jobs:
        # multiprocessing's wait() built a selector on every call, several times per match.
        poller = select.poll()
        watched: set[int] = set()
        while any(w.busy for w in self._workers):
            busy = {fd for w in self._workers if w.busy
                    for fd in (w.conn.fileno(), w.process.sentinel)}
            for fd in watched - busy:
                poller.unregister(fd)
            for fd in busy - watched:
                poller.register(fd, select.POLLIN)
            watched = busy
            timeout = idle() if idle is not None else None
            ready = {fd for fd, _ in poller.poll(None if timeout is None else 1000 * timeout)}
            for index, worker in enumerate(self._workers):
                if not worker.busy or not ready & {worker.conn.fileno(), worker.process.sentinel}:
                    continue
                # One message per wake-up (a whole one: a worker writes each at once); another
                # waiting wakes the next poll. conn.poll() built a selector each time it looked.
                outcomes = None
                if worker.conn.fileno() in ready:
                    try:
                        outcomes = self._receive(worker)
                    except (EOFError, OSError):
                        pass  # it died: its connection ended
                if outcomes is not None:
                    yield from outcomes
                    # Outside the try: the caller's errors are its own. The idle workers too: a
                    # job that waited for a key this report freed may go to one of them.
                    self._give(worker, pull)
                    give_idle()
                elif worker.busy and worker.process.sentinel in ready \
                        and not worker.process.is_alive():
                    retry.extendleft(reversed(self._replace_dead(index)))
                    self._give(self._workers[index], pull)
                    give_idle()

    def each(self, call: Callable[..., Any], args: Sequence[tuple[Any, ...]]) -> list[Any]:
        """``call(*a)`` for each ``a`` in ``args``, each on a worker of its own (at most as many
        as there are workers), all at once; their results in order. For the work a run does on
        its workers before its jobs (a tournament's pre-flight, on their zygotes: issue 18); the
        workers must be idle. An exception in a worker, or its death, is a ``WorkerError``."""
        if len(args) > len(self._workers):
            raise ValueError(f"{len(args)} calls for {len(self._workers)} workers")
        asked = self._workers[:len(args)]
        for worker, a in zip(asked, args):
            worker.conn.send_bytes(_dumps(("call", call, a), self.shared))
        results: list[Any] = [None] * len(asked)
        waiting = dict(enumerate(asked))
        while waiting:
            by_fd = {}
            for index, worker in waiting.items():
                by_fd[worker.conn.fileno()] = index
                by_fd[worker.process.sentinel] = index
            ready = multiprocessing.connection.wait(list(by_fd))
            for fd in ready:
                index = by_fd[fd]  # type: ignore[index]
                answering = waiting.get(index)
                if answering is None:
                    continue
                try:
                    kind, payload = answering.conn.recv()
                except (EOFError, OSError):
                    raise WorkerError(f"{answering.process.name} died before it answered") \
                        from None
                if kind == "log":
                    self._log(payload)
                elif kind == "error":
                    message, errno = payload
                    raise WorkerError(message, errno)
                else:
                    results[index] = payload
                    del waiting[index]
        return results

    @staticmethod
    def _log(record: logging.LogRecord) -> None:
        logger = logging.getLogger(record.name)
        if logger.isEnabledFor(record.levelno):
            logger.handle(record)

    def _receive(self, worker: _Worker) -> list[tuple[Job, Result]] | None:
        """The jobs a worker reports finished, with their results, in the order it played them
        (it sends each result with the seconds its job took)."""
        kind, payload = worker.conn.recv()
        if kind == "log":
            self._log(payload)
            return None
        if kind == "error":
            worker.jobs.clear()
            message, errno = payload
            raise WorkerError(message, errno)
        slowest = max(seconds for _, seconds in payload)
        worker.match_s = slowest if worker.match_s is None else max(slowest, worker.match_s / 2)
        finished = [worker.jobs.popleft() for _ in payload]
        for pending in finished:
            self._release(pending)
        return [(pending.job, result) for pending, (result, _) in zip(finished, payload)]

    def _free_for(self, pending: _Pending[Job], worker: _Worker) -> bool:
        """Whether ``worker`` may take the job: no other worker holds a job of its key."""
        if self.exclusive is None:
            return True
        owner = self._owners.get(self.exclusive(pending.job))
        return owner is None or owner[0] is worker

    def _hold(self, pending: _Pending[Job], worker: _Worker) -> None:
        if self.exclusive is not None:
            self._owners.setdefault(self.exclusive(pending.job), [worker, 0])[1] += 1

    def _release(self, pending: _Pending[Job]) -> None:
        if self.exclusive is not None:
            key = self.exclusive(pending.job)
            owner = self._owners[key]
            owner[1] -= 1
            if not owner[1]:
                del self._owners[key]

    def _give(self, worker: _Worker,
              pull: Callable[[_Worker], _Pending[Job] | None]) -> None:
        """Tops the worker's jobs up: to one, or with ``ahead_s`` to as many as fill that much of
        its time (at most 1 + ``MAX_AHEAD``), in one message. A job played again after its worker
        died goes alone, so that a second death is its own."""
        room = 1 - len(worker.jobs)
        if self.ahead_s > 0 and worker.match_s is not None:
            room += min(MAX_AHEAD, int(self.ahead_s / max(worker.match_s, 1e-3)))
            if self._left is not None:  # near the end, a share of what is left (guided)
                room = min(room, max(1, -(-self._left // (2 * len(self._workers)))))
        given: list[_Pending[Job]] = []
        while len(given) < room:
            pending = pull(worker)
            if pending is None:
                break
            self._hold(pending, worker)
            given.append(pending)
            if pending.deaths:
                break
        if not given:
            return
        worker.jobs.extend(given)
        try:
            worker.conn.send_bytes(_dumps([p.job for p in given], self.shared))
        except OSError:
            pass  # it died: run() sees its sentinel and plays its jobs elsewhere

    def _replace_dead(self, index: int) -> list[_Pending[Job]]:
        """Replace the worker at ``index``, which died while it held jobs; returns them, to play
        again. Each counts the death: a worker holding several may have died of any of them."""
        worker = self._workers[index]
        worker.process.join(STOP_GRACE_S)
        code = worker.process.exitcode
        how = f"signal {signal.Signals(-code).name}" if code is not None and code < 0 \
            else f"exit status {code}"
        held = list(worker.jobs)
        for pending in held:
            pending.deaths += 1
            self._release(pending)  # none of them runs any more
        log.error("%s died (%s) while playing %s", worker.process.name, how,
                  " or ".join(self.name_of(p.job) for p in held))
        _end(worker)
        if any(p.deaths >= MAX_DEATHS_PER_JOB for p in held):
            del self._workers[index]  # ended: close() must not touch it
            raise WorkerError(f"a worker process died twice playing the same match ({how}); "
                              "see tournament.log")
        self._start(index)
        return held

    def close(self, graceful: bool = True) -> None:
        """End every worker now (matches in flight are dropped) and wait for them. ``graceful``:
        an idle worker is asked to exit (and removes its bots' folders); otherwise (a stop, an
        error) every worker is ended at once, and later runs sweep the folders.

        Whatever cuts it short (a stop signal's exception while it waits) still ends every worker:
        one left alive, never told to exit, hung the interpreter at exit, in multiprocessing's
        join of its children (seen in CI: a Ctrl-C as the last match was stored)."""
        try:
            for worker in self._workers:
                if worker.process.is_alive() and not worker.busy and graceful:
                    try:
                        worker.conn.send_bytes(_dumps(None, ()))  # idle: let it exit normally
                        # (its bot folders go)
                    except OSError:
                        pass
                elif worker.process.is_alive():
                    _signal(worker.process, signal.SIGTERM)
            deadline = time.monotonic() + STOP_GRACE_S
            for worker in self._workers:
                worker.process.join(max(0.0, deadline - time.monotonic()))
        finally:
            while self._workers:
                worker = self._workers.pop()
                if worker.process.is_alive():
                    _signal(worker.process, signal.SIGKILL)
                    worker.process.join(1.0)
                _end(worker)


@contextmanager
def stop_signals_held() -> Iterator[None]:
    """While a child process is spawned: SIGINT and SIGTERM wait, and are raised again after (then
    the run's own handler sees them). A stop in the middle of the spawn would leave the child
    half-told: it printed a traceback on its missing start data.

    Blocking them in this thread is not enough (the kernel hands a process's signal to any thread
    that accepts it, and Python runs the handler in the main thread anyway), so their handlers
    only note them meanwhile. The mask matters to the child, which inherits it: a Ctrl-C to the
    process group cannot interrupt its start (it clears the mask when it runs). The first spawn
    also starts multiprocessing's resource tracker, and that start unblocks SIGINT and SIGTERM in
    this thread when it is done (it blocks them only around its own spawn): the child then started
    with them unblocked (issue 28). Started here, the tracker is found running."""
    noted: list[int] = []
    handlers = {}
    resource_tracker.ensure_running()
    if threading.current_thread() is threading.main_thread():
        handlers = {sig: signal.signal(sig, lambda signum, frame: noted.append(signum))
                    for sig in _STOP_SIGNALS}
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    for signum in noted[:1]:
        signal.raise_signal(signum)


@contextmanager
def main_left_out(*functions: object) -> Iterator[None]:
    """While a worker (or another spawned helper: a league's publisher) is started: a spawned
    interpreter first imports the parent's ``__main__`` (the ``arena`` script, and through it the
    whole command line: typer, rich; or a bench script) unless that module is hidden from
    multiprocessing. A worker needs only the modules of its functions, so when none of them lives
    in ``__main__`` it is left out: some 70 ms of CPU per worker before its first match (issue 18). The stand-in is in place only for ``start()``,
    which reads it then, in this thread, with the stop signals blocked."""
    if any(getattr(f, "__module__", None) == "__main__"
           or getattr(getattr(f, "func", None), "__module__", None) == "__main__"
           for f in functions if f is not None):
        yield
        return
    main = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = main


class _SharedPickler(pickle.Pickler):
    """Writes each of the pool's shared objects as a call that finds it in the worker's copy.
    ``reducer_override``, not pickle's persistent ids: pickle asks ``persistent_id`` about every
    object of a job (some 66 per match: each string, number and tuple), a Python call each, and
    ``reducer_override`` only about objects of other types (a match job's dataclasses and paths,
    about 8): that hook was the largest part of the coordinator's CPU per match (issue 18). So a
    shared object must not be a str, bytes, int, float, tuple, list, dict, set or None (Pool
    checks)."""

    def __init__(self, file: io.BytesIO, shared: tuple[Any, ...]):
        super().__init__(file, pickle.HIGHEST_PROTOCOL)
        self.numbers = {id(obj): n for n, obj in enumerate(shared)}  # shared lives as long

    def reducer_override(self, obj: Any) -> Any:
        number = self.numbers.get(id(obj))
        if number is None:
            return NotImplemented
        return _shared_object, (number,)


_SHARED: tuple[Any, ...] = ()  # in a worker: the pool's shared objects, set as it starts

# Types pickle writes without asking reducer_override (the pickle module's documentation).
_ATOMIC = (str, bytes, int, float, tuple, list, dict, set, frozenset, type(None))


def _shared_object(number: int) -> Any:
    return _SHARED[number]


def _dumps(obj: Any, shared: tuple[Any, ...]) -> bytes:
    buffer = io.BytesIO()
    _SharedPickler(buffer, shared).dump(obj)
    return buffer.getvalue()


def _signal(process: BaseProcess, signum: int) -> None:
    if process.pid is not None:
        try:
            os.kill(process.pid, signum)
        except ProcessLookupError:
            pass


def _end(worker: _Worker) -> None:
    for conn in (worker.conn, worker.lifeline):
        conn.close()
    if worker.process.exitcode is not None:
        worker.process.close()


# -- in the worker ---------------------------------------------------------------------------------

def _worker_main(work: bytes, conn: Connection, watch: Connection, parent: int, level: int,
                 place: tuple[int, int, Affinity, int] = (0, 1, False, 0)) -> None:
    # Out of the coordinator's process group: a kill -9 of the group then ends the worker by
    # way of its coordinator's death (the SIGTERM below, or the lifeline), so that it ends its
    # bots first (_die). Killed along with the group, it could not: each bot then died through
    # its launcher's PR_SET_PDEATHSIG alone, at the least CPU weight of a waiting bot, and on a
    # busy core that took seconds (cgroups.all_asked). A Ctrl-C to the terminal's group no longer
    # reaches it: it ignored that anyway (the coordinator decides what stops).
    try:
        os.setpgid(0, 0)
    except OSError:
        pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda signum, frame: _die(128 + signum))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)  # blocked by Pool._start
    _die_with_parent(parent)
    # Before the work, which will hold matches' hands and deal keys: no bot of another worker (at
    # `limits`, as a normal user, the same user) may attach to this one (issue 29). After the
    # parent-death check: importing the sandbox first would widen the start-up gap it closes.
    from arena.isolation.probe import not_dumpable

    not_dumpable()
    play, shared, on_start = pickle.loads(work)  # the imports, now that we die with the parent
    # Before any child: the zygote, the launchers and the bots inherit the core (a bot may widen
    # its own mask, as any process may within its cgroup's cpuset: a matter of speed, not safety).
    core, placed = keep_to_a_core(*place)
    threading.Thread(target=_watch_lifeline, args=(watch,), name="lifeline", daemon=True).start()
    lock = threading.Lock()
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    root.addHandler(_SendHandler(conn, lock))
    root.setLevel(level)
    log.info("%s %s", multiprocessing.current_process().name, placed)  # the run's log says where
    global _SHARED
    _SHARED = shared  # what a job's references to shared objects find (_SharedPickler)
    if on_start is not None:
        try:
            on_start()
        except Exception:  # what it prepares, the first job does again (and reports)
            pass
    _play_jobs(play, conn, lock)


def _play_jobs(play: Callable[[Any], Any], conn: Connection, lock: threading.Lock) -> None:
    """Play the jobs the coordinator sends (a list per message; None: exit), in order. Results go
    back together, when at most one job is left to play and no new ones came meanwhile: the
    coordinator's answer (more jobs) then arrives while the last one plays. Holding one job at a
    time (``Pool.ahead_s`` 0), each result goes back at once."""
    queue: deque[Any] = deque()
    done: list[Any] = []
    waiting = select.poll()
    waiting.register(conn.fileno(), select.POLLIN)
    asked = False  # results were sent and no jobs came since: the coordinator is answering

    def receive() -> bool:
        try:
            jobs = pickle.loads(conn.recv_bytes())
        except (EOFError, OSError):
            return False
        if jobs is None:
            return False
        if isinstance(jobs, tuple):  # ("call", function, args): Pool.each, between jobs
            _, call, args = jobs
            try:
                answer = ("called", call(*args))
            except Exception as err:
                answer = ("error", (f"{type(err).__name__}: {err}\n{traceback.format_exc()}",
                                    err.errno if isinstance(err, OSError) else None))
            with lock:
                conn.send(answer)
            return True
        queue.extend(jobs)
        return True

    while True:
        while not queue or waiting.poll(0):
            if not receive():
                return
            asked = False
        job = queue.popleft()
        started = time.monotonic()
        try:
            done.append((play(job), time.monotonic() - started))  # with how long it took
        except Exception as err:  # the referee never raises for a bot; this is the arena's fault
            with lock:
                if done:
                    conn.send(("done", done))
                conn.send(("error", (f"{type(err).__name__}: {err}\n{traceback.format_exc()}",
                                     err.errno if isinstance(err, OSError) else None)))
            done = []
            continue
        while queue and waiting.poll(0):  # jobs that came while it played
            if not receive():
                return
            asked = False
        if not queue or len(queue) == 1 and not asked:
            with lock:
                conn.send(("done", done))
            done = []
            asked = bool(queue)


def _die_with_parent(parent: int) -> None:
    """Ask for SIGTERM when the coordinator's thread that started us ends (Linux)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the lifeline alone
    if os.getppid() != parent:  # it died before we asked
        _die(1)


def _watch_lifeline(watch: Connection) -> None:
    try:
        watch.recv_bytes()  # never sent: returns only at end of file, when the coordinator is gone
    except (EOFError, OSError):
        pass
    _die(1)


def _die(status: int) -> None:
    """Kill every child's process group (the bots, or their sandbox launchers, which take their
    namespaces with them) and exit at once: a match in flight is dropped, never stored."""
    # A killed process still needs the CPU to exit, and a bot waiting for its turn has the least
    # weight there is (cgroups.py): on a busy core its launcher, PID 1 and the bot each waited
    # up to a second for it. Given back first. (Only if this worker ran bots: the module is not
    # imported for it now, in a signal handler.)
    # A module still being imported (the signal came in the middle of it) has run no bot: skipped.
    asked = getattr(sys.modules.get("arena.isolation.cgroups"), "all_asked", None)
    if asked is not None:
        asked()
    for child in _children():
        try:
            os.killpg(child, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            os.kill(child, signal.SIGKILL)  # one not (yet) leading its own group
        except (ProcessLookupError, PermissionError):
            pass
    os._exit(status)


def _children() -> list[int]:
    pids: list[int] = []
    try:
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children") as fh:
                pids += [int(p) for p in fh.read().split()]
    except OSError:
        pass
    return pids


class _SendHandler(logging.Handler):
    """Sends each record to the coordinator, formatted so that it pickles (no args, no traceback
    object)."""

    def __init__(self, conn: Connection, lock: threading.Lock):
        super().__init__()
        self.conn = conn
        self.send_lock = lock

    def emit(self, record: logging.LogRecord) -> None:
        try:
            record.msg = record.getMessage()
            record.args = None
            if record.exc_info:
                record.exc_text = logging.Formatter().formatException(record.exc_info)
                record.exc_info = None
            with self.send_lock:
                self.conn.send(("log", record))
        except Exception:  # the coordinator is gone, or the record cannot travel: never fatal
            pass
