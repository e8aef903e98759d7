"""A control group per bot: its memory and its processes capped as a whole, not per process.

Resource limits (``setrlimit``) count per process (address space) or per user id (processes): a bot
with many children could hold ``processes`` x ``memory_mb``. A cgroup counts every process the bot
starts, and every page they use, including what they write to the bot's private tmpfs folders.
The launcher (``sandbox_launch.c --cgroup=PATH``) joins the cgroup before it forks anything, so the
bot and all its descendants are inside from their first instruction.

Two kernel interfaces, whichever the machine has:

- **v2** (one unified hierarchy): ``memory.max`` and ``memory.swap.max`` (no swapping around the
  cap), ``pids.max``, and ``memory.oom.group`` so that an out-of-memory kill takes the whole bot;
  what was exceeded is read from ``memory.events`` (``oom_kill``) and ``pids.events`` (``max``);
  ``cpu.weight`` for its share of a busy core.
  The controllers must be enabled for the arena's own cgroup (root, or a delegated subtree).
- **v1** (a hierarchy per controller; this project's CI machine): a cgroup in the ``memory``, the
  ``pids`` and the ``cpu`` hierarchy; ``memory.limit_in_bytes`` and ``memory.memsw.limit_in_bytes``
  (when the kernel accounts swap), ``pids.max``, ``cpu.shares``; what was exceeded is read from
  ``memory.oom_control`` (``oom_kill``, Linux 4.13+) and ``pids.events``. v1 has no ``oom.group``:
  the kernel's OOM killer kills one process (the largest), and the watcher below kills the rest.

**At most ``cores`` cores' worth of CPU time**, all the bot's processes and threads together
(``cpu.cfs_quota_us``, v2 ``cpu.max``; one core by default, ``SandboxLimits.cores``): a bot with
many threads is held back, never killed. With as many workers as cores, each match then needs at
most the core it has: a bot that computes on several cores during its turn cannot take the CPU of
the bots deciding in other matches (one of which may be its own opponent there).

**A bot's share of a busy core follows its turn** (``BotCgroup.asked``). A bot may compute between
its requests (PROTOCOL.md, "Time"), but what it burns then is taken from whoever is deciding on the
same core, its opponent first: a bot whose children spin (each in a session of its own, out of the
kernel's per-session fairness) made its opponent's 20 ms decisions take 116 ms on a shared core and
60 ms with two cores free (a timeout, with a tighter limit). So a bot's cgroup has the least CPU
weight the kernel gives except while the referee waits for its answer (its start-up, a request):
then it has the normal weight, and every waiting bot on its core yields the core to it. A waiting
bot still runs on any core nobody else wants, so thinking ahead costs its opponent nothing.

A bot's cgroups sit below the arena's own (``/proc/self/cgroup``), so whatever caps the arena as a
whole still holds, and are named ``sixtysix-bot-<arena pid>-<n>``: those of an arena killed with
``kill -9`` are found and removed by the next one (``sweep_stale``), as bot folders are.

The caps cannot be raised by the bot in the ``isolated`` mode: the cgroup's files are root's and
the bot has a user id of its own (a test tries). In the ``namespaces`` mode the bot runs as the
owner of those files, and could raise its caps if it finds them (``describe()`` says so).

**What a bot exceeds ends it.** The kernel only makes ``fork`` fail at ``pids.max`` and, on v1,
kills a single process at the memory cap; a bot could play on with a child missing. A watcher
thread checks each running bot's counters every ``WATCH_S`` and kills every process of a bot that
hit a cap, so the referee sees it exit and the forfeit's detail names the cap (``exceeded()``).
"""

from __future__ import annotations

import atexit
import errno
import functools
import itertools
import logging
import multiprocessing.util
import os
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

log = logging.getLogger("arena.isolation.cgroups")

PREFIX = "sixtysix-bot-"
# The launcher's two processes (outer, and PID 1 of the bot's namespace) are in the cgroup too.
LAUNCHER_PROCESSES = 2
WATCH_S = 0.05
_counter = itertools.count(1)


@dataclass(frozen=True)
class Layout:
    """Where this process may make bots' cgroups: the parent folder in each hierarchy used."""

    version: int                  # 1 or 2
    parents: tuple[Path, ...]     # v2: (unified,); v1: (memory, pids, cpu)


# The controllers a bot's cgroup needs: its caps (memory, pids) and its share of a core (cpu).
_V1 = ("memory", "pids", "cpu")
_NEEDED = "memory, pids and cpu"  # _V1 in words
# The weight file and its two values: asked (the kernel's default) and waiting (its least).
_WEIGHT = {2: ("cpu.weight", b"100", b"1"), 1: ("cpu.shares", b"1024", b"2")}
# The period over which ``cores`` is counted: the kernel's default. A shorter one held back even a
# single thread (95% of a core at 10 ms: the quota is handed to each core in slices).
_PERIOD_US = 100_000


def _own_cgroups() -> dict[str, str]:
    """Controller (``""`` for v2) -> this process's cgroup path, from ``/proc/self/cgroup``."""
    own: dict[str, str] = {}
    with open("/proc/self/cgroup") as fh:
        for line in fh:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                own[controller] = path
    return own


def _mounts() -> dict[str, tuple[str, str]]:
    """Controller (``""`` for v2) -> (mount point, root of the hierarchy mounted there)."""
    found: dict[str, tuple[str, str]] = {}
    with open("/proc/self/mountinfo") as fh:
        for line in fh:
            left, _, right = line.partition(" - ")
            fields, tail = left.split(), right.split()
            if len(fields) < 5 or len(tail) < 3:
                continue
            root, point = _unescape(fields[3]), _unescape(fields[4])
            if tail[0] == "cgroup2":
                found.setdefault("", (point, root))
            elif tail[0] == "cgroup":
                for option in tail[2].split(","):
                    if option in _V1:
                        found.setdefault(option, (point, root))
    return found


def _unescape(text: str) -> str:
    # mountinfo writes a space, tab, newline and backslash in a path as octal escapes
    return text.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n") \
        .replace("\\134", "\\")


def _folder(mount: tuple[str, str], path: str) -> Path | None:
    """The folder of cgroup ``path`` in a hierarchy mounted at ``mount``, if it is visible."""
    point, root = mount
    root = root.rstrip("/")
    if root and path != root and not path.startswith(root + "/"):
        return None
    return Path(point + path[len(root):]) if path != root else Path(point)


# Plain os calls for the kernel's small files: a bot's cgroup is made, read and removed at every
# bot start, and Python's buffered text files cost several times as much per file.

def _write(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _read(path: Path | str) -> str:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return os.read(fd, 1 << 16).decode()
    finally:
        os.close(fd)


def _read_counts(path: Path | str) -> dict[str, int]:
    """A flat keyed file (``key value`` per line) as numbers; missing file or key: empty."""
    counts: dict[str, int] = {}
    try:
        text = _read(path)
    except OSError:
        return counts
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if value.strip().isdigit():
            counts[key] = int(value)
    return counts


@functools.cache
def layout() -> Layout:
    """Where bots' cgroups go on this machine; ``OSError`` says why nowhere. Found once per
    process (a forked child is where its parent was, until it moves)."""
    try:
        own, mounts = _own_cgroups(), _mounts()
    except OSError as err:
        raise OSError(errno.ENOENT, f"cannot read this process's cgroups: {err}") from None
    problems = []
    if "" in mounts and "" in own:
        parent = _folder(mounts[""], own[""])
        controllers = set()
        if parent is not None:
            try:
                controllers = set(_read(parent / "cgroup.controllers").split())
            except OSError:
                pass
        if parent is not None and set(_V1) <= controllers:
            try:
                return Layout(2, (_v2_parent(parent),))
            except OSError as err:
                problems.append(f"cgroup v2: {err.strerror or err}")
        else:
            problems.append(f"cgroup v2 at {mounts[''][0]} does not offer this process the "
                            f"{_NEEDED} controllers (has: {' '.join(sorted(controllers)) or 'none'})")
    if all(c in mounts for c in _V1):
        parents = tuple(_folder(mounts[c], own.get(c, "/")) for c in _V1)
        missing = [str(p) for p in parents if p is not None and not p.is_dir()]
        if None in parents:
            problems.append(f"cgroup v1: one of this process's {_NEEDED} cgroups is outside "
                            "its mounted hierarchy")
        elif missing:  # a mount covered by another one
            problems.append(f"cgroup v1: {', '.join(missing)} cannot be found")
        else:
            return Layout(1, tuple(p for p in parents if p is not None))
    elif any(c in mounts for c in _V1):
        problems.append("cgroup v1 has no hierarchy mounted for the "
                        f"{' and '.join(c for c in _V1 if c not in mounts)} controller")
    elif not problems:
        problems.append(f"no cgroup v2 and no cgroup v1 {_NEEDED} hierarchies are mounted")
    raise OSError(errno.ENOENT, "; ".join(problems))


def _v2_parent(parent: Path) -> Path:
    """``parent`` (this process's cgroup) with the memory, pids and cpu controllers enabled for its
    children, where bots' cgroups then go.

    cgroup v2 gives no controlled children to a cgroup that holds processes (the "no internal
    processes" rule), and this process is in ``parent``. An arena alone in its cgroup (started
    with ``systemd-run --scope -p Delegate=yes``, say) therefore first moves itself into a leaf of
    its own, ``sixtysix-arena``, as the kernel's cgroup-v2 documentation describes for delegated
    subtrees. Not tested on this project's CI machine, which has cgroup v1 only."""
    if set(_V1) <= set(_read(parent / "cgroup.subtree_control").split()):
        return parent
    enable = " ".join(f"+{c}" for c in _V1)
    try:
        _write(parent / "cgroup.subtree_control", enable)
        return parent
    except OSError as err:
        if err.errno != errno.EBUSY:
            raise OSError(err.errno, f"cannot enable the {_NEEDED} controllers below "
                                     f"{parent}: {err.strerror}") from None
    others = set(_read(parent / "cgroup.procs").split()) - {str(os.getpid())}
    if others:
        raise OSError(errno.EBUSY, f"{parent} holds {len(others)} other process(es), so its "
                                   "children cannot have controllers: run the arena alone in a "
                                   "cgroup delegated to it (systemd-run --scope -p Delegate=yes)")
    leaf = parent / "sixtysix-arena"
    leaf.mkdir(exist_ok=True)
    _write(leaf / "cgroup.procs", str(os.getpid()))
    _write(parent / "cgroup.subtree_control", enable)
    return parent


class BotCgroup:
    """One bot's cgroup(s), made with its limits; ``paths`` go to the launcher (``--cgroup``)."""

    def __init__(self, memory_mb: int, processes: int, where: Layout | None = None,
                 cores: int = 0):
        self.layout = where or layout()
        self.memory_mb = memory_mb
        self.processes = processes
        self.cores = cores
        # The owner's PID in the name: cgroups of an arena killed with kill -9 can be found.
        name = f"{PREFIX}{os.getpid()}-{next(_counter)}"
        self.paths = [parent / name for parent in self.layout.parents]
        # The counter files as plain strings: the referee reads them as every match ends, and
        # pathlib's joins cost as much as the reads.
        if self.layout.version == 2:
            self._count_files = (f"{self.paths[0]}/memory.events", f"{self.paths[0]}/pids.events")
        else:
            self._count_files = (f"{self.paths[0]}/memory.oom_control",
                                 f"{self.paths[1]}/pids.events")
        self.killed = False
        self._weight = -1  # the open weight file (asked)
        # The counters as the bot found them (reuse(): a cgroup's counters only ever grow, and
        # v1 has no way to reset them), so that what it exceeds is its own.
        self._base = (0, 0)
        made: list[Path] = []
        try:
            for path in self.paths:
                os.mkdir(path, 0o755)
                made.append(path)
            self._set_limits()
            name, _, _ = _WEIGHT[self.layout.version]
            self._weight = os.open(self.paths[-1] / name, os.O_WRONLY | os.O_CLOEXEC)
        except OSError as err:
            if self._weight >= 0:
                os.close(self._weight)
            for path in made:
                _rmdir(path)
            raise OSError(err.errno, f"cannot make a cgroup for a bot in {self.paths[0].parent}: "
                                     f"{err.strerror or err}") from None

    def _set_limits(self) -> None:
        memory_bytes = self.memory_mb << 20
        pids = self.processes + LAUNCHER_PROCESSES
        if self.layout.version == 2:
            path = self.paths[0]
            if self.memory_mb:
                _write(path / "memory.max", str(memory_bytes))
                if (path / "memory.swap.max").exists():
                    _write(path / "memory.swap.max", "0")
            _write(path / "memory.oom.group", "1")
            if self.processes:
                _write(path / "pids.max", str(pids))
            if self.cores:
                self._set_cores(path / "cpu.max", f"{self.cores * _PERIOD_US} {_PERIOD_US}")
            return
        memory, pid_path, cpu = self.paths
        if self.cores:
            _write(cpu / "cpu.cfs_period_us", str(_PERIOD_US))
            self._set_cores(cpu / "cpu.cfs_quota_us", str(self.cores * _PERIOD_US))
        if self.memory_mb:
            _write(memory / "memory.limit_in_bytes", str(memory_bytes))
            # memsw is memory plus swap: equal to the memory cap, the bot cannot swap around it.
            if (memory / "memory.memsw.limit_in_bytes").exists():
                _write(memory / "memory.memsw.limit_in_bytes", str(memory_bytes))
        if self.processes:
            _write(pid_path / "pids.max", str(pids))

    def _set_cores(self, path: Path, value: str) -> None:
        try:
            _write(path, value)
        except OSError as err:
            if err.errno != errno.EINVAL:
                raise
            # v1 refuses a quota above the one of a cgroup above it: the arena's own (a container
            # given half a core, say) already holds the bot below ``cores``, and the bot's stays
            # unlimited under it (v2 takes any value and applies the smaller one itself).

    def asked(self, asked: bool) -> None:
        """The bot's weight on a busy core: the normal one while the referee waits for its answer
        (``asked``), the least there is while it waits for the referee (module docstring). One
        write of a few bytes to a file kept open: ~1 us, twice a decision."""
        if self._weight < 0:
            return  # removed: no process left to weigh
        _, normal, least = _WEIGHT[self.layout.version]
        try:
            os.pwrite(self._weight, normal if asked else least, 0)
        except OSError as err:
            # Removed by another process (an arena's sweep that judged its owner dead, an
            # administrator): only an empty cgroup can be removed, so its bot has ended and there
            # is nothing left to weigh. Seen in the suite, whose sweep test judged every owner
            # dead, as the referee raised a bot that had just exited for its exit.
            if err.errno not in (errno.ENODEV, errno.ENOENT):
                raise
            os.close(self._weight)
            self._weight = -1

    def _counts(self) -> tuple[int, int]:
        """(OOM kills, forks refused at pids.max) since the bot entered."""
        oom, refused = self._raw_counts()
        return oom - self._base[0], refused - self._base[1]

    def _raw_counts(self) -> tuple[int, int]:
        memory_file, pids_file = self._count_files
        memory = _read_counts(memory_file)
        return (memory.get("oom_kill", 0) + memory.get("oom_group_kill", 0),
                _read_counts(pids_file).get("max", 0))

    def _empty(self) -> bool:
        """No process in any of its hierarchies, not even one exited and not yet reaped (which
        pids.current still counts): nothing of the last bot can meet the next."""
        if self.processes_inside():
            return False
        pids = self.paths[0 if self.layout.version == 2 else 1]
        try:
            return _read(pids / "pids.current").strip() == "0"
        except OSError:
            return False

    def reuse(self) -> bool:
        """Make this cgroup, whose bot has ended, as a fresh one for the next bot of this process
        with the same limits (issue 34: a memory cgroup's mkdir and its removal were ~1 ms of a
        bot start's CPU, and more in the kernel's workers). False unless it is empty
        (``_empty``) and was never killed for a cap. Its limits are written again (a bot of the
        ``namespaces`` level owns these files and could have raised them), the normal weight,
        and its counters taken as the new bot's zero; then it is looked at: empty, or not handed
        on. One look, after the writes, not one before them too: ``give_back`` found it empty,
        and a process that joined it since is seen by this one (each look reads every
        hierarchy's ``cgroup.procs``, ~60 us of a start; step four). What the last bot left
        charged to its memory is only page cache of files it read first (its tmpfs went with its
        mount namespace, its processes with it), which the kernel reclaims before any OOM kill:
        not emptied here (v1's ``memory.force_empty`` drains every CPU's page lists and cost more
        than a new cgroup, 0.8 ms against 0.4 a start, measured)."""
        if self.killed or self._weight < 0:
            return False
        try:
            self._set_limits()
            _, normal, _ = _WEIGHT[self.layout.version]
            os.pwrite(self._weight, normal, 0)
            base = self._raw_counts()
        except OSError:
            return False
        if not self._empty():  # a process joined meanwhile: not ours to hand on
            return False
        self._base = base
        return True

    def exceeded(self) -> str:
        """The caps the bot ran into, in words ("" when none)."""
        oom, refused = self._counts()
        said = []
        if oom and self.memory_mb:
            said.append(f"memory limit of {self.memory_mb} MB reached (cgroup OOM kill)")
        elif oom:  # no cap of its own: the arena's cgroup, above the bot's, ran out
            said.append("the arena's memory ran out (cgroup OOM kill)")
        if refused:
            said.append(f"process limit of {self.processes} reached (cgroup pids.max)")
        return "; ".join(said)

    def processes_inside(self) -> list[int]:
        pids: set[int] = set()
        for path in self.paths:
            try:
                pids.update(int(p) for p in _read(path / "cgroup.procs").split())
            except (OSError, ValueError):
                pass
        return sorted(pids)

    def kill(self) -> None:
        """SIGKILL every process in the cgroup, until none is left (or 1 s has passed)."""
        self.killed = True
        kill_file = self.paths[0] / "cgroup.kill"  # v2, Linux 5.14: atomic, no PID reuse race
        if self.layout.version == 2 and kill_file.exists():
            try:
                _write(kill_file, "1")
                return
            except OSError:
                pass
        deadline = time.monotonic() + 1.0
        # A process forking while we kill: its child appears in the next reading. pids.max
        # bounds how many there can be, and a killed process forks no more.
        while (pids := self.processes_inside()) and time.monotonic() < deadline:
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.001)

    def remove(self) -> bool:
        """Remove the (empty) cgroup; False when it is still busy (left for a later sweep)."""
        _unwatch(self)
        if self._weight >= 0:
            os.close(self._weight)
            self._weight = -1
        done = True
        for path in self.paths:
            done &= _rmdir(path)
        return done


# -- emptied cgroups kept for the next bot ----------------------------------------------------------
# A worker starts bots with the same limits match after match: an emptied cgroup goes to the next
# one (``BotCgroup.reuse``) instead of being removed and made again. Each is handed to one bot at a
# time: it is in the pool only while no bot has it (``take`` pops it under the lock), and only
# this process's bots use it (a forked child starts with an empty pool).
_idle: dict[tuple[int, int, int], list[BotCgroup]] = {}
_idle_lock = threading.Lock()
_idle_pid = 0
IDLE_KEPT = 4  # per set of limits: a match's bots, and the next match's


def take(memory_mb: int, processes: int, cores: int) -> BotCgroup:
    """A cgroup for a bot with these limits: an emptied one of this process's, made fresh again
    (``reuse``), else a new one."""
    key = (memory_mb, processes, cores)
    with _idle_lock:
        kept = _idle.get(key) if _idle_pid == os.getpid() else None
        group = kept.pop() if kept else None
    if group is not None:
        if group.reuse():
            return group
        _forget(group)
    return BotCgroup(memory_mb, processes, cores=cores)


def give_back(group: BotCgroup) -> bool:
    """Keep ``group``, whose bot has ended, for the next bot with its limits; False (it stays
    the caller's to remove) when it cannot be: not empty, killed for a cap, or enough kept."""
    global _idle_pid
    if group.killed or group._weight < 0 or not group._empty():
        return False
    _unwatch(group)
    key = (group.memory_mb, group.processes, group.cores)
    with _idle_lock:
        if _idle_pid != os.getpid():  # first use, or a forked child: the parent's are not ours
            _idle.clear()
            _idle_pid = os.getpid()
            atexit.register(_remove_idle)
            multiprocessing.util.Finalize(None, _remove_idle, exitpriority=2)
        kept = _idle.setdefault(key, [])
        if len(kept) >= IDLE_KEPT:
            return False
        kept.append(group)
    return True


def kept() -> list[BotCgroup]:
    """The emptied cgroups this process keeps for its next bots."""
    with _idle_lock:
        return [g for kept in _idle.values() for g in kept] if _idle_pid == os.getpid() else []


def _forget(group: BotCgroup) -> None:
    """A cgroup that cannot be handed on: removed now, or left for a later sweep."""
    if group.processes_inside():
        group.kill()
    group.remove()


def _remove_idle() -> None:
    with _idle_lock:
        groups = [g for kept in _idle.values() for g in kept] if _idle_pid == os.getpid() else []
        _idle.clear()
    for group in groups:
        _forget(group)


def _rmdir(path: Path) -> bool:
    # The last process may still be exiting (a zombie keeps the cgroup busy for a moment).
    for delay in (0, 0.001, 0.005, 0.02, 0.05, 0.1):
        time.sleep(delay)
        try:
            os.rmdir(path)
            return True
        except FileNotFoundError:
            return True
        except OSError as err:
            if err.errno != errno.EBUSY:
                break
    log.warning("cannot remove the cgroup %s yet; a later arena will", path)
    return False


@functools.cache
def available() -> str | None:
    """None when bots can be given cgroups of their own here, else the reason they cannot (once
    per process: it makes, checks and removes one cgroup). The sandbox's isolation check calls
    this: the ``isolated`` level needs it."""
    try:
        probe = BotCgroup(memory_mb=64, processes=8)
    except OSError as err:
        return err.strerror or str(err)
    try:
        for path in probe.paths:
            # Joining is what the launcher will do: write access to cgroup.procs decides it.
            if not os.access(path / "cgroup.procs", os.W_OK):
                return f"cannot move a process into {path}: no write access to cgroup.procs"
    finally:
        probe.remove()
    return None


def sweep_stale(running: Callable[[int], bool]) -> None:
    """Remove the cgroups of arenas that died without removing them (``kill -9``): those below
    ours whose owner PID no longer runs and that hold no process."""
    try:
        parents = layout().parents
    except OSError:
        return
    for parent in parents:
        try:
            entries = list(parent.glob(f"{PREFIX}*-*"))
        except OSError:
            continue
        for path in entries:
            pid = path.name[len(PREFIX):].split("-", 1)[0]
            if pid.isdigit() and path.is_dir() and not running(int(pid)):
                try:
                    os.rmdir(path)
                except OSError:
                    pass  # still has a process, or is another user's: left alone


# -- the watcher: what a bot exceeds ends it --------------------------------------------------------

_watched: set[BotCgroup] = set()
_watch_lock = threading.Lock()
_watcher: threading.Thread | None = None


def _forget_after_fork() -> None:
    # A forked child (a pool worker) runs no bot of its parent's, and must not inherit the lock
    # held by the parent's watcher at the moment of the fork.
    global _watch_lock, _watcher, _idle_lock
    _watch_lock, _watcher = threading.Lock(), None
    _watched.clear()
    _idle_lock = threading.Lock()  # the emptied cgroups are the parent's (give_back: its PID)


os.register_at_fork(after_in_child=_forget_after_fork)


def watch(group: BotCgroup) -> None:
    """Kill the whole bot as soon as it runs into a cap (until ``remove()``)."""
    global _watcher
    with _watch_lock:
        _watched.add(group)
        # After a fork the parent's thread does not run here: is_alive() says so.
        if _watcher is None or not _watcher.is_alive():
            _watcher = threading.Thread(target=_watch_forever, name="bot-cgroup-watcher",
                                        daemon=True)
            _watcher.start()


def _unwatch(group: BotCgroup) -> None:
    with _watch_lock:
        _watched.discard(group)


def all_asked() -> None:
    """Every bot of this process gets the normal weight (``BotCgroup.asked``), as its referee
    is about to kill them: a killed process still needs the CPU to exit, and at the least weight
    on a busy core a bot, its launcher and PID 1 each waited up to a second for it, so that they
    outlived their arena. Called as a worker dies, maybe in a signal handler that interrupted a
    holder of ``_watch_lock``: hence no lock, and a set changed meanwhile is read again."""
    for _ in range(3):
        try:
            groups = list(_watched)
        except RuntimeError:  # changed size while read (another thread)
            continue
        for group in groups:
            try:
                group.asked(True)
            except OSError:
                pass
        return


def _watch_forever() -> None:
    global _watcher
    while True:
        time.sleep(WATCH_S)
        with _watch_lock:
            groups = [g for g in _watched if not g.killed]
            if not _watched:  # no bot running: the next watch() starts a new thread
                _watcher = None
                return
        for group in groups:
            if any(group._counts()):
                group.kill()
