"""Running an untrusted bot: resource limits, its own folder and user, no network, no orphans.

What holds depends on the machine; ``support()`` finds out once per process and ``describe()`` says
it in one plain sentence:

- ``isolated`` (Linux, as root): each bot runs through ``sandbox_launch.c`` in new network, mount,
  PID, IPC and UTS namespaces, as an unprivileged user id of its own (leased from a range, so two
  bots never share one), with resource limits. No network (a new network namespace has only a
  loopback device, and it is down); it sees only its own processes; it can neither signal nor read
  the referee, the other bot or files the arena keeps private; when it exits or is killed, the
  kernel ends every process it started. The process limit holds because the user id is not root.
- ``namespaces`` (Linux, not root, user namespaces allowed): the same namespaces inside a user
  namespace, but the bot keeps the caller's user id: it can read what the caller can read (but for
  the arena's data folders, hidden from it). The process limit holds: the kernel counts it per
  user namespace.
- ``limits`` (elsewhere: other systems, namespaces refused, or no C compiler to build the
  launcher with): resource limits and a process group only. The bot has the network, a ``setsid`` child can outlive the match, and the process
  limit is not set (it would count every process of the caller's user).

Where the machine allows it (root, or cgroup v2 delegated), each bot also gets a cgroup of its own
(``cgroups.py``) that caps its memory and processes as a whole; the ``isolated`` mode requires it.

Every mode gives a bot a fresh working folder (deleted afterwards), a minimal environment, capped
output (``bot_process.py``) and the limits of ``SandboxLimits``. ``ARENA_SANDBOX=limits`` in the
environment asks for the weakest mode (for benchmarks, or a machine where the probe misbehaves).
"""

from __future__ import annotations

import atexit
import errno
import fcntl
import functools
import hashlib
import json
import logging
import multiprocessing.util
import os
import queue
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from arena import cgroups

log = logging.getLogger("arena.sandbox")

LAUNCHER_SOURCE = Path(__file__).resolve().with_name("sandbox_launch.c")
FOLDER_PREFIX = "sixtysix-bot-"  # each bot's folder, in the temporary folder
UID_BASE = 2_000_000_000          # far above any real user or subordinate-id range
UID_COUNT = 4096
# One lock folder for the whole machine, whatever TMPDIR each arena has (/run is root's, and empty
# after a reboot, as leases should be).
UID_LOCKS = Path("/run/sixtysix-arena-uids" if os.access("/run", os.W_OK)
                 else "/tmp/sixtysix-arena-uids")


@dataclass(frozen=True)
class SandboxLimits:
    """Limits of a bot (0: unlimited). Tournaments override them with ``[sandbox]``.

    Where the bot gets a cgroup (``cgroups.py``), ``memory_mb`` and ``processes`` cap the whole bot,
    all its processes together; elsewhere they are per process (address space) and per user id."""

    cpu_s: int = 300          # CPU seconds for the whole match (SIGXCPU, then SIGKILL)
    memory_mb: int = 2048     # the bot's memory (cgroup), else each process's address space
    processes: int = 128      # the bot's processes and threads (fork bombs stop here)
    file_mb: int = 64         # largest file the bot may write (SIGXFSZ beyond)
    open_files: int = 512     # open file descriptors

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> "SandboxLimits":
        """From a settings table; unknown keys and bad values raise ``ValueError`` naming them."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown sandbox limit(s): {', '.join(unknown)}; known: "
                             f"{', '.join(sorted(known))}")
        for key, value in values.items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"sandbox limit {key} must be a whole number >= 0 (0: unlimited), "
                                 f"not {value!r}")
        return replace(cls(), **dict(values))

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


_RESOURCES = {  # limit -> (resource, scale to the kernel's unit); sandbox_launch.c has the same
    "cpu_s": (resource.RLIMIT_CPU, 1),
    "memory_mb": (resource.RLIMIT_AS, 1 << 20),
    "processes": (resource.RLIMIT_NPROC, 1),
    "file_mb": (resource.RLIMIT_FSIZE, 1 << 20),
    "open_files": (resource.RLIMIT_NOFILE, 1),
}


def apply_limits(limits: Mapping[str, int]) -> None:
    """Resource limits for the calling process and its children (0: leave unlimited); the
    ``limits`` mode's stand-in for the launcher."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crashing bot writes no core file
    for key, (which, scale) in _RESOURCES.items():
        value = int(limits.get(key, 0))
        if value > 0:
            # CPU: SIGXCPU at the soft limit, SIGKILL one second later for a bot that catches it.
            hard = value + 1 if key == "cpu_s" else value
            resource.setrlimit(which, (value * scale, hard * scale))


def parse_limits(items: Sequence[str]) -> dict[str, int]:
    """``KEY=VALUE`` options (``--limit cpu_s=60``) as a table for ``SandboxLimits.from_mapping``."""
    table: dict[str, int] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not value.strip().isdigit():
            raise ValueError(f"a limit is KEY=NUMBER, like cpu_s=60, not {item!r}")
        table[key.strip()] = int(value)
    SandboxLimits.from_mapping(table)  # names the unknown key, if any
    return table


@dataclass(frozen=True)
class Support:
    mode: str                 # "isolated", "namespaces" or "limits"
    reason: str = ""          # why a stronger mode is not available


_support: Support | None = None


def support() -> Support:
    """What this machine allows, found once per process by starting a trivial sandboxed program."""
    global _support
    if _support is None:
        _support = _probe()
        if _support.mode != "isolated":
            log.warning("%s", describe())
    return _support


def describe() -> str:
    s = support()
    if s.mode == "isolated":
        return ("sandbox: bots run without network, in their own PID and mount namespaces, each as "
                "an unprivileged user of its own, with resource limits and a cgroup capping each "
                "bot's memory and processes as a whole")
    if s.mode == "namespaces":
        return ("sandbox: bots run without network, in their own PID and mount namespaces, with "
                f"resource limits, but as your user ({s.reason}); {_caps()}")
    return (f"sandbox: resource limits only; bots HAVE NETWORK ACCESS, run as your user, and a "
            f"process that leaves its process group can outlive a match ({s.reason}); "
            "memory_mb is per process and processes is not capped")


def _caps() -> str:
    missing = cgroups.available()
    if missing is None:
        # Not tamper-proof here: the bot's files are its cgroup's, and the bot runs as their owner.
        return ("a cgroup caps each bot's memory and processes as a whole (a bot that finds its "
                "cgroup's files could raise them)")
    return f"memory_mb is per process only, and processes per user ({missing})"


def _probe() -> Support:
    if os.environ.get("ARENA_SANDBOX") == "limits":
        return Support("limits", "ARENA_SANDBOX=limits is set")
    if not sys.platform.startswith("linux"):
        return Support("limits", f"namespaces are a Linux feature; this is {sys.platform}")
    try:
        launcher()
    except OSError as err:
        return Support("limits", f"cannot build the sandbox launcher: {err.strerror or err}")
    if os.geteuid() == 0:
        # Fail closed: without a cgroup per bot, one bot could hold processes x memory_mb.
        missing = cgroups.available()
        if missing is not None:
            reason = f"cannot cap each bot's memory and processes as a whole: {missing}"
        elif (failure := _try_launch(userns=False, as_user=True)) is None:
            return Support("isolated")
        else:
            reason = f"cannot create namespaces as root: {failure}"
    else:
        reason = "not running as root, so bots cannot get user ids of their own"
    failure = _try_launch(userns=True, as_user=False)
    if failure is None:
        return Support("namespaces", reason)
    return Support("limits", f"{reason}; user namespaces: {failure}")


def _try_launch(userns: bool, as_user: bool) -> str | None:
    """Start ``true`` in the sandbox; None when it worked, else what went wrong."""
    try:
        run = _Launch(SandboxLimits(), mode="isolated" if as_user else "namespaces",
                      userns=userns)
        try:
            argv, kwargs = run.command(["true"])
            proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                                  env=minimal_env(run.workdir), timeout=10, **kwargs)
            report = run.finish()
        finally:
            run.cleanup()
    except (OSError, subprocess.SubprocessError) as err:
        return str(err)
    if report.error or report.status != 0 or proc.returncode != 0:
        return report.error or proc.stderr.decode(errors="replace").strip() or \
            f"exit status {proc.returncode}"
    return None


def minimal_env(workdir: str) -> dict[str, str]:
    """What a bot gets of the environment: enough to run an interpreter, nothing of the arena's."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": workdir, "TMPDIR": workdir,
           "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PYTHONUNBUFFERED": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}
    # A bundled Python bot imports the SDK from this installation, wherever the venv is.
    if "VIRTUAL_ENV" in os.environ:
        env["VIRTUAL_ENV"] = os.environ["VIRTUAL_ENV"]
    return env


@dataclass(frozen=True)
class Report:
    """What the launcher said about a bot that exited by itself (empty when it was killed)."""

    status: int | None = None     # exit status; negative: killed by that signal
    left: int = 0                 # processes it started that were still running when it exited
    cpu_s: float | None = None
    max_rss_mb: float | None = None
    error: str = ""               # the bot could not be started, and why
    exceeded: str = ""            # the caps of its cgroup it ran into (cgroups.py), in words

    def describe(self, limits: SandboxLimits) -> str:
        """The status in words, naming the limit a signal stands for."""
        if self.error:
            return self.error
        status = self._describe_status(limits)
        if self.exceeded:  # the cap is the reason: a SIGKILL alone would not say which
            return f"{status}: {self.exceeded}" if status else self.exceeded
        return status

    def _describe_status(self, limits: SandboxLimits) -> str:
        if self.status is None:
            return ""
        if self.status >= 0:
            return f"exited with status {self.status}"
        sig = -self.status
        name = signal.Signals(sig).name
        if sig == signal.SIGXCPU or (sig == signal.SIGKILL and limits.cpu_s and self.cpu_s
                                     and self.cpu_s >= limits.cpu_s):
            return f"killed by {name}: CPU time limit of {limits.cpu_s} s"
        if sig == signal.SIGXFSZ:
            return f"killed by {name}: file size limit of {limits.file_mb} MB"
        return f"killed by signal {name}"


class _UidLease:
    """An unprivileged user id no other running bot has: a lock file per id, held while the bot
    runs (the kernel drops the lock if the arena dies, so ids are never lost)."""

    def __init__(self) -> None:
        UID_LOCKS.mkdir(mode=0o700, exist_ok=True)
        if UID_LOCKS.stat().st_uid != os.geteuid():
            raise OSError(errno.EPERM, f"{UID_LOCKS} belongs to another user")
        start = os.getpid() % UID_COUNT  # spreads concurrent arenas over the range
        for i in range(UID_COUNT):
            uid = UID_BASE + (start + i) % UID_COUNT
            fd = os.open(UID_LOCKS / str(uid), os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self.uid, self._fd = uid, fd
            return
        raise OSError(errno.EAGAIN, f"all {UID_COUNT} sandbox user ids are in use")

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


class _Launch:
    """One sandboxed run: its folder, user id and status pipe. ``command()`` gives what to start;
    ``finish()`` reads the launcher's report after the process ended; ``cleanup()`` always."""

    def __init__(self, limits: SandboxLimits, mode: str, files: Path | None = None,
                 subdir: str = ".", userns: bool = False, hide: Sequence[Path] = ()):
        self.limits = limits
        self.hide = hide
        self.mode = mode
        self.userns = userns
        _sweep_stale_folders()
        # The owner's PID in the name: folders of a referee killed with kill -9 can be found.
        self._base = tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-")
        self.workdir = os.path.join(self._base, "work")  # the bot's folder: a copy of its files
        self.cwd = os.path.normpath(os.path.join(self.workdir, subdir))
        self._lease: _UidLease | None = None
        self._status_r = self._status_w = -1
        self._inner: int | None = None
        self._cgroup: cgroups.BotCgroup | None = None
        try:
            if mode != "limits":
                self._cgroup = _bot_cgroup(limits, required=mode == "isolated")
            if files is not None:
                shutil.copytree(files, self.workdir, symlinks=True)
            else:
                os.mkdir(self.workdir)
            os.chmod(self.workdir, 0o700)  # the bot's alone: another bot must not even list it
            if mode == "isolated":
                self._lease = _UidLease()
                os.chmod(self._base, 0o711)  # the bot may pass through to its folder, not list it
                _chown_tree(self.workdir, self._lease.uid)
        except BaseException:
            self.cleanup()
            raise

    @property
    def uid(self) -> int | None:
        return self._lease.uid if self._lease else None

    def command(self, argv: Sequence[str]) -> tuple[list[str], dict[str, Any]]:
        """The argument list to start and the extra ``Popen`` arguments."""
        if self.mode == "limits":
            limits = self.limits.to_dict()
            limits["processes"] = 0  # would count every process of the caller's user

            def preexec() -> None:
                apply_limits(limits)
            return list(argv), {"preexec_fn": preexec, "cwd": self.cwd}
        self._status_r, self._status_w = os.pipe()
        os.set_blocking(self._status_r, False)
        expose = _runtime_paths(argv)
        command = [str(launcher()), f"--status-fd={self._status_w}", f"--parent={os.getpid()}",
                   f"--cwd={self.cwd}", f"--base={self._base}"]
        if self.userns:
            command.append("--userns")
        if self.uid is not None:
            command.append(f"--uid={self.uid}")
        rlimits = self.limits.to_dict()
        if self._cgroup is not None:
            # The cgroup caps the whole bot; the per-process RLIMIT_AS is dropped, as it only
            # gets in the way (a JVM reserves far more address space than it uses), and so is
            # RLIMIT_NPROC, which would refuse a fork before pids.max could say why.
            rlimits["memory_mb"] = rlimits["processes"] = 0
            command += [f"--cgroup={path}" for path in self._cgroup.paths]
            cgroups.watch(self._cgroup)
        command += [f"--limit={key}={value}" for key, value in rlimits.items()]
        command += [f"--expose={path}" for path in expose]
        command += [f"--hide={path}" for path in _hideable(self.hide, [self._base, *expose])]
        return [*command, "--", *argv], {"pass_fds": (self._status_w,), "cwd": self._base}

    def started(self) -> None:
        """After the process started: only the launcher may hold the pipe's writing end, so that
        reading it ends when the launcher does."""
        if self._status_w >= 0:
            os.close(self._status_w)
            self._status_w = -1

    def finish(self) -> Report:
        """The launcher's report, once the process has ended (empty if it was killed first)."""
        self.started()
        if self._status_r < 0:
            return Report()
        data = b""
        try:
            while chunk := os.read(self._status_r, 4096):
                data += chunk
        except BlockingIOError:
            pass
        report: dict[str, Any] = {}
        for line in data.decode(errors="replace").splitlines():
            try:
                report.update(json.loads(line))
            except ValueError:
                continue
        self._inner = report.get("inner")
        known = {f.name for f in fields(Report)} - {"exceeded"}
        said = Report(**{k: v for k, v in report.items() if k in known})
        if self._cgroup is not None:
            said = replace(said, exceeded=self._cgroup.exceeded())
        return said

    def exceeded(self) -> str:
        return self._cgroup.exceeded() if self._cgroup is not None else ""

    def wait_empty(self, timeout_s: float = 2.0) -> bool:
        """After the launcher was killed: wait until PID 1 of the bot's namespace is dead, which
        the kernel allows only once every process in the namespace is (``zap_pid_ns_processes``).
        True when it is."""
        inner = self._inner
        deadline = time.monotonic() + timeout_s
        while inner is not None and _running(inner):  # a zombie waiting for init counts as dead
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.005)
        return True

    def cleanup(self) -> None:
        self.started()
        if self._status_r >= 0:
            os.close(self._status_r)
            self._status_r = -1
        if self._lease is not None:
            self._lease.release()
            self._lease = None
        if self._cgroup is not None:
            if self._cgroup.processes_inside():  # only when finish() was never reached
                self._cgroup.kill()
            _remove_later(self._cgroup.remove)
            self._cgroup = None
        _remove_later(self._base)


@functools.cache
def launcher() -> Path:
    """The launcher's binary, compiled from ``sandbox_launch.c`` on first use (~0.3 s, once per
    machine and version of the source).

    It lives in the user's cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``, then
    ``sixtysix-arena/``), not in the installation, which may be read-only; its name carries the
    source's hash, so an edited source is rebuilt, and it is renamed into place once whole, so
    arenas building it at the same moment never run half a file. The folder must be the caller's
    alone: the arena runs what it finds there, as root in the ``isolated`` mode. ``OSError`` says
    why it cannot be built (no C compiler, say)."""
    source = LAUNCHER_SOURCE.read_bytes()
    cache = _cache_folder()
    cache.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = cache.stat()
    if info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise OSError(errno.EPERM, f"{cache} must belong to you and be writable by you alone")
    binary = cache / f"sandbox-launch-{hashlib.sha256(source).hexdigest()[:16]}"
    if binary.is_file():
        return binary
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise OSError(errno.ENOENT, "it is C, and there is no C compiler (cc or gcc) on PATH")
    partial = cache / f".{binary.name}.{os.getpid()}"
    proc = subprocess.run([compiler, "-std=gnu99", "-O2", "-Wall", "-o", str(partial),
                           str(LAUNCHER_SOURCE)], capture_output=True, text=True)
    if proc.returncode != 0:
        partial.unlink(missing_ok=True)
        raise OSError(errno.EINVAL, f"{compiler} failed on {LAUNCHER_SOURCE}: "
                                    f"{proc.stderr.strip()[-2000:]}")
    os.replace(partial, binary)
    return binary


@functools.cache
def _sweep_stale_folders() -> None:
    """Remove the bot folders of arenas that died without cleaning up (a referee killed with
    ``kill -9``, a machine that lost power before /tmp was emptied): once per process, those
    whose owner PID no longer runs. A folder of a PID now reused by another process is left for
    a later sweep; a folder we may not remove (another user's) is left alone."""
    root = Path(tempfile.gettempdir())
    for path in root.glob(f"{FOLDER_PREFIX}*-*"):
        pid = path.name[len(FOLDER_PREFIX):].split("-", 1)[0]
        if not pid.isdigit() or path.is_symlink() or path.stat().st_uid != os.geteuid():
            continue
        if not _running(int(pid)):
            _remove_later(str(path))
    cgroups.sweep_stale(_running)  # the cgroups of such arenas' bots, named the same way


def _bot_cgroup(limits: SandboxLimits, required: bool) -> cgroups.BotCgroup | None:
    """A cgroup for one bot, or None where the machine gives none (``describe()`` says so). Where
    one is ``required`` (the ``isolated`` mode), its absence is an error: the bot does not run."""
    missing = cgroups.available()
    if missing is not None:
        if required:
            raise OSError(errno.EPERM, f"cannot cap the bot's memory and processes: {missing}")
        return None
    return cgroups.BotCgroup(limits.memory_mb, limits.processes)


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process: a zombie is not (a killed referee's workers can wait a
    while for init to reap them)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except FileNotFoundError:
        return False
    except (OSError, IndexError):
        pass  # no /proc: ask the kernel
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, another user's
    return True


def _cache_folder() -> Path:
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "sixtysix-arena"
    try:
        return Path.home() / ".cache" / "sixtysix-arena"
    except RuntimeError:  # no home folder (a service account): one of our own in the temp folder
        return Path(tempfile.gettempdir()) / f"sixtysix-arena-cache-{os.geteuid()}"


# -- removing bot folders off the match's critical path -------------------------------------------
# On ext4 each rmdir waits ~3 ms for the journal (measured on these machines), and every bot has
# folders to remove when it closes: done inline, that was the largest part of a short match's end.
# A thread of this process removes them instead, and the process waits for it when it exits
# (normally, or as a multiprocessing worker, which skips atexit). The folder is root's, mode 0700,
# so nothing can use it in the meantime, not even a bot given the same user id next.

_removals: queue.Queue[str | Callable[[], object]] | None = None
_removals_pid = 0


def _remove_later(path: str | Callable[[], object]) -> None:
    """Remove a folder, or call what removes something else (a bot's cgroup: ~1 ms, more on a
    busy machine), in the background."""
    global _removals, _removals_pid
    if _removals is None or _removals_pid != os.getpid():  # first use, or a forked child
        _removals, _removals_pid = queue.Queue(), os.getpid()
        threading.Thread(target=_remove_forever, args=(_removals,), name="bot-folder-remover",
                         daemon=True).start()
        atexit.register(_removals.join)
        multiprocessing.util.Finalize(None, _removals.join, exitpriority=1)
    _removals.put(path)


def _remove_forever(paths: queue.Queue[str | Callable[[], object]]) -> None:
    while True:
        path = paths.get()
        try:
            if callable(path):
                path()
            else:
                shutil.rmtree(path, ignore_errors=True)
        except Exception:  # the thread must live on: the process waits for its queue at exit
            log.exception("removing %s failed", path)
        finally:
            paths.task_done()


def _chown_tree(path: str, uid: int) -> None:
    for root, dirs, files in os.walk(path):
        os.lchown(root, uid, uid)
        for name in dirs + files:
            os.lchown(os.path.join(root, name), uid, uid)


def _hideable(hide: Sequence[Path], needed: Sequence[str]) -> list[str]:
    """The folders to hide from a bot, less any that hold what the bot needs (its own folder, its
    program): hiding those would break the bot rather than protect the arena."""
    out = []
    for path in {os.path.realpath(p) for p in [*map(str, hide), *data_folders()]}:
        inside = path.rstrip("/") + "/"
        if not any(n == path or n.startswith(inside) for n in map(os.path.realpath, needed)):
            out.append(path)
    return sorted(out)


def data_folders() -> list[str]:
    """The arena's data folder (registry, default results): never visible to a bot."""
    return [os.environ.get("ARENA_DATA") or "results"]


def _runtime_paths(argv: Sequence[str]) -> list[str]:
    """Folders a bot may need that could sit behind a folder only root may enter (the arena's
    Python under /root, say): the Python installation and the bot's program and file arguments."""
    paths = {sys.base_prefix, sys.prefix, sys.exec_prefix}
    program = shutil.which(argv[0]) if argv else None
    if program and os.path.realpath(program) == os.path.realpath(sys.executable):
        # The arena's Python imports the SDK from the arena's installation: with an editable
        # install that is the checkout, which may lie under a folder the sandbox covers (/tmp).
        paths.add(str(Path(__file__).resolve().parent.parent))
    for item in [program, *argv[1:]] if program else argv[1:]:
        if item and os.path.isabs(item) and os.path.exists(item):
            real = os.path.realpath(item)
            paths.add(real if os.path.isdir(real) else os.path.dirname(real))
    return sorted(os.path.realpath(p) for p in paths)


class Sandbox:
    """The sandbox of one bot process, as ``BotProcess`` uses it."""

    def __init__(self, limits: SandboxLimits, files: Path | None = None, subdir: str = ".",
                 hide: Sequence[Path] = ()):
        s = support()
        self.limits = limits
        self._launch = _Launch(limits, s.mode, files=files, subdir=subdir,
                               userns=s.mode == "namespaces", hide=hide)
        self.report: Report | None = None

    @property
    def workdir(self) -> str:
        return self._launch.workdir

    def command(self, argv: Sequence[str]) -> tuple[list[str], dict[str, Any]]:
        return self._launch.command(argv)

    def started(self) -> None:
        self._launch.started()

    def finish(self) -> Report:
        """Call once the process has been waited for. Returns when no process of the bot is left."""
        if self.report is None:
            self.report = self._launch.finish()
            if not self._launch.wait_empty():
                log.error("the sandbox of %s did not end within 2 s", self.workdir)
        return self.report

    def exceeded(self) -> str:
        """The caps of the bot's cgroup it has run into so far ("" when none, or no cgroup)."""
        return self._launch.exceeded()

    def close(self) -> None:
        self._launch.cleanup()


def run_command(argv: Sequence[str], files: Path, limits: SandboxLimits, timeout_s: float,
                keep: Path | None = None, output_cap: int = 1 << 16
                ) -> tuple[int | None, str, Report]:
    """Run a command (a bot's build) in the sandbox, in a copy of ``files``; afterwards the copy,
    with whatever the command made, is saved as ``keep``. Returns the exit status (None: timed
    out), the last ``output_cap`` bytes of its output (stdout and stderr) and the launcher's report."""
    sandbox = Sandbox(limits, files=files)
    try:
        command, kwargs = sandbox.command(argv)
        env = minimal_env(sandbox.workdir)
        with tempfile.TemporaryFile() as out:
            proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, env=env, start_new_session=True,
                                    close_fds=True, **kwargs)
            sandbox.started()
            try:
                status: int | None = proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                status = None
            _kill_group(proc.pid)
            proc.wait()
            report = sandbox.finish()
            size = out.seek(0, os.SEEK_END)
            out.seek(max(0, size - output_cap))
            text = out.read().decode(errors="replace")
        if status is not None:
            status = report.status if report.status is not None else (127 if report.error
                                                                       else status)
        if keep is not None:
            shutil.copytree(sandbox.workdir, keep, symlinks=True)
            _chown_tree(str(keep), os.geteuid())
        return status, text, report
    finally:
        sandbox.close()


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
