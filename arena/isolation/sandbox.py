"""Running an untrusted bot: a root of its own built from an allow-list, resource limits, its own
user, no network, no orphans; and an isolation level that is asked for, never silently lowered.

The isolation level is a setting (``--isolation``, the tournament key ``isolation``, or
``ARENA_ISOLATION``; default ``isolated``). If the machine cannot give the level asked for, no bot
runs: ``support()`` raises ``SandboxUnavailable`` naming what is missing and the explicit opt-in
for a weaker level. ``describe()`` says what holds in one plain sentence.

- ``isolated`` (Linux, as root): each bot runs through ``sandbox_launch.c`` in new network, mount,
  PID, IPC, UTS and cgroup namespaces, as an unprivileged user id of its own (leased from a range, so two
  bots never share one), with resource limits and no capability. Its root is an empty tmpfs into
  which only the ALLOW-LIST is bind-mounted read-only (``allow_list()``: system folders, a minimal
  /etc, the interpreter, the arena's installation, the bot's own program folder), plus a minimal
  /dev, a fresh /proc, and one size-capped tmpfs (``workdir_mb``) for its working folder
  ``/bot``, ``/tmp`` and ``/dev/shm``; the old root is detached (pivot_root). Nothing else of the
  machine exists for it: not the arena's data, records or logs, not /run's sockets, not the
  caller's home or the launcher's cache. No network (a new network namespace has only a loopback
  device, and it is down; abstract unix sockets belong to the network namespace too).
- ``namespaces`` (Linux, not root, user namespaces allowed): the same root and namespaces inside a
  user namespace; the bot keeps the caller's user id outside (root inside, without any
  capability). As root this level is the same as ``isolated``: a bot never runs as root.
- ``limits``: resource limits and a process group only, in a fresh working folder; the bot has the
  network and sees the caller's files, and a ``setsid`` child can outlive the match. As root the
  bot runs as a leased unprivileged user id. Meant for benchmarks and machines without
  namespaces, and only when asked for (``ARENA_SANDBOX=limits`` is kept as an alias).

Where the machine allows it (root, or cgroup v2 delegated), each bot also gets a cgroup of its own
(``cgroups.py``) that caps its memory and processes as a whole and gives it a share of a busy core
only while the referee waits for its answer; the ``isolated`` level requires it.

Every level gives a bot a fresh working folder (deleted afterwards), a minimal environment, capped
output (``bot_process.py``) and the limits of ``SandboxLimits``.

In the namespaced levels a Python bot may start as a child of the zygote (``zygote.py``,
``Sandbox.from_zygote``) instead of by exec: the same launcher code builds the same sandbox
(``sandbox_launch.c`` as a library), with the same arguments; only the interpreter is not new.
"""

from __future__ import annotations

import errno
import fcntl
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Sequence

from arena.isolation import cgroups, zygote
from arena.isolation.allow_list import allow_list, data_folders
from arena.isolation.bot_folders import (
    FOLDER_PREFIX,
    UidLease,
    chown_tree,
    folder_parent,
    remove_later,
    running,
    sweep_stale_folders,
)
from arena.isolation.launcher import BOT_HOME, launcher, launcher_fd, minimal_env
from arena.isolation.levels import ISOLATION_ENV, LEVELS, SandboxUnavailable, Support, check_level
from arena.isolation.limits import (
    PER_PROCESS_ENV,
    PER_PROCESS_OPT_IN,
    RESOURCES,
    SandboxLimits,
    apply_limits,
)

log = logging.getLogger("arena.isolation.sandbox")


# A test hook: makes every namespace probe fail with this text, as on a machine without them.
PROBE_FAIL_ENV = "ARENA_SANDBOX_PROBE_FAIL"


_support: Support | None = None
_requested: str | None = None


def requested_level() -> str:
    """The level asked for: ``set_isolation()``, else ``ARENA_ISOLATION``, else the old
    ``ARENA_SANDBOX=limits``, else ``isolated``."""
    if _requested is not None:
        return _requested
    env = os.environ.get(ISOLATION_ENV, "").strip()
    if env:
        return check_level(env)
    if os.environ.get("ARENA_SANDBOX") == "limits":
        return "limits"
    return "isolated"


def set_isolation(level: str | None) -> None:
    """Ask for an isolation level for this process and those it starts (worker processes inherit
    the environment variable); None keeps what the environment asks for. Probed again at the next
    ``support()``."""
    global _requested, _support
    if level is None:
        return
    _requested = check_level(level)
    os.environ[ISOLATION_ENV] = level
    _support = None


_undumpable_pid = 0


def not_dumpable() -> None:
    """Make this process not dumpable (``PR_SET_DUMPABLE`` 0), once; its forks inherit it, an exec
    does not. Every process that runs bots (``support()``, ``adopt()``, a pool worker as it starts)
    does this before its first bot: a bot of the ``limits`` level run by a normal user has that
    user's id, and could otherwise attach to the coordinator, a worker or the referee with
    ``ptrace`` or read their ``/proc/PID/mem`` and ``environ`` (they hold every hand and the deal
    keys; issue 29). Not dumpable, only a process with ``CAP_SYS_PTRACE`` may, and this process's
    ``/proc/PID`` files belong to root (its own ``/proc/self`` stays readable to it). A bot cannot
    be made so: an exec makes a process dumpable again, so at ``limits`` as a normal user the bots
    of one match can still trace each other."""
    global _undumpable_pid
    if _undumpable_pid == os.getpid() or not sys.platform.startswith("linux"):
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE
        code = ctypes.get_errno()
        raise OSError(code, f"prctl(PR_SET_DUMPABLE, 0): {os.strerror(code)}")
    _undumpable_pid = os.getpid()


def support() -> Support:
    """The sandbox bots run in: the level asked for, found once per process by starting a trivial
    sandboxed program. ``SandboxUnavailable`` when it cannot be had (never a weaker one)."""
    global _support
    not_dumpable()
    level = requested_level()
    if _support is None or _support.requested != level:
        _support = _probe(level)
        if _support.mode == "limits":
            log.warning("%s", describe())
    return _support


def adopt(found: Support) -> None:
    """Take ``found``, what a parent process's ``support()`` found on this machine, as this
    process's own, if it answers the level asked for here: a tournament's worker then skips its
    probe (a sandboxed start, ~25 ms before its first match: issue 18). Each bot's launch still
    builds its sandbox or fails: the probe only chooses the level, never weakens it."""
    global _support
    not_dumpable()
    if found.requested == requested_level():
        _support = found


def describe() -> str:
    s = support()
    asked = "" if s.requested == "isolated" else f" (isolation {s.requested} was asked for)"
    if s.mode == "isolated":
        return ("sandbox: isolated: bots run without network, in a root of their own holding only "
                "the allow-list, in their own PID and mount namespaces, each as an unprivileged "
                "user of its own, with resource limits and a cgroup capping each bot's memory, "
                "processes and cores as a whole, and its CPU while it is not asked to act"
                f"{asked}")
    if s.mode == "namespaces":
        return ("sandbox: namespaces: bots run without network, in a root of their own holding "
                "only the allow-list, in their own PID and mount namespaces, with resource limits, "
                f"but as your user ({s.reason}); {_caps()}{asked}")
    user = "an unprivileged user of its own" if os.geteuid() == 0 else "YOUR USER (they can " \
        "read and write your files)"
    return (f"sandbox: limits: resource limits only; bots HAVE NETWORK ACCESS, see the machine's "
            f"files, run as {user}, and a process that leaves its process group can outlive a "
            f"match; memory_mb is per process, processes per user, and cores not held{asked}")


def check_memory(limits: SandboxLimits, mode: str | None = None) -> None:
    """``SandboxUnavailable`` when ``limits.memory_mb`` cannot cap a bot as a whole here and the
    operator has not opted in to a cap per process (``memory_per_process``): the ``namespaces``
    level without a cgroup per bot (a normal user, no cgroup v2 delegated), where a bot of 8
    processes x 512 MB held 4.2 GB (issue 29). ``limits`` is the level of resource limits only,
    per process by its own opt-in; ``isolated`` needs the cgroup. ``mode``: the level bots run
    in (default: ``support()``'s)."""
    if not limits.memory_mb or limits.memory_per_process or \
            os.environ.get(PER_PROCESS_ENV) == "1" or (mode or support().mode) != "namespaces":
        return
    missing = cgroups.available()
    if missing is None:
        return
    raise SandboxUnavailable(
        f"bots do not run: memory_mb={limits.memory_mb} cannot cap a bot's memory as a whole "
        f"here, only each of its processes (no cgroup per bot: {missing}); a bot of N processes "
        f"could hold N x {limits.memory_mb} MB. To accept a cap per process: "
        f"{PER_PROCESS_OPT_IN} (memory_per_process = 1 in a [sandbox] table, or "
        f"{PER_PROCESS_ENV}=1), or memory_mb=0 for none; see docs/organisers/isolation.md")


def waiting_bots_yield() -> bool:
    """Whether each bot gets a cgroup that holds it to spare CPU while it is not asked to act
    (``cgroups.BotCgroup.asked``): the ``isolated`` level, or ``namespaces`` where cgroups can be
    had. Workers keep to a core by default only then (worker_cores.for_run): there a match's two
    bots share one core, and without the weight a bot computing while its opponent decides would
    take half of it."""
    s = support()
    return s.mode == "isolated" or s.mode == "namespaces" and cgroups.available() is None


def _caps() -> str:
    missing = cgroups.available()
    if missing is None:
        return ("a cgroup caps each bot's memory, processes and cores as a whole and keeps a "
                "waiting bot from taking the CPU of the one deciding")
    return (f"memory_mb is per process only, processes per user, cores not held, and a waiting "
            f"bot may take the CPU of the one deciding ({missing})")


def best_level() -> str:
    """The strongest level this machine gives (for the demo, whose bots are the arena's own)."""
    for level in LEVELS:
        try:
            _probe(level)
        except SandboxUnavailable:
            continue
        return level
    return "limits"


def _unavailable(level: str, missing: str) -> SandboxUnavailable:
    weaker = LEVELS[LEVELS.index(level) + 1:]
    return SandboxUnavailable(
        f"bots do not run: the {level!r} sandbox is not available here: {missing}. A weaker "
        f"sandbox needs an explicit opt-in: --isolation {' or '.join(weaker)} (or "
        f"{ISOLATION_ENV}={weaker[-1]}, or isolation = \"{weaker[0]}\" in a tournament file); "
        f"see docs/organisers/isolation.md for what each level lets a bot do")


def _probe(level: str) -> Support:
    if level == "limits":
        if os.geteuid() == 0:
            UidLease().release()  # bots need an unprivileged user id of their own
        return Support("limits", "asked for", level)
    if not sys.platform.startswith("linux"):
        raise _unavailable(level, f"namespaces are a Linux feature; this is {sys.platform}")
    if level == "isolated" and os.geteuid() != 0:
        raise _unavailable(level, "bots get user ids of their own only when the arena runs as "
                                  "root")
    try:
        launcher()
    except OSError as err:
        where = f" ({err.filename})" if err.filename else ""
        raise _unavailable(level, f"cannot build the sandbox launcher: {err.strerror or err}"
                                  f"{where}") from None
    if os.geteuid() == 0:
        # As root, `namespaces` is `isolated`: the bot gets a user id of its own, never root's.
        # Fail closed: without a cgroup per bot, one bot could hold processes x memory_mb.
        missing = cgroups.available()
        if missing is not None:
            raise _unavailable(level, "cannot cap each bot's memory and processes as a whole, "
                                      "nor keep a waiting bot off the CPU of the one deciding: "
                                      f"{missing}")
        failure = _try_launch(userns=False, as_user=True)
        if failure is None:
            return Support("isolated", "", level)
        raise _unavailable(level, f"cannot create namespaces as root: {failure}")
    failure = _try_launch(userns=True, as_user=False)
    if failure is None:
        return Support("namespaces", "not running as root, so bots cannot get user ids of their "
                                     "own", level)
    raise _unavailable(level, f"cannot create user namespaces: {failure}")


def _try_launch(userns: bool, as_user: bool) -> str | None:
    """Start ``true`` in the sandbox; None when it worked, else what went wrong."""
    if os.environ.get(PROBE_FAIL_ENV):
        return os.environ[PROBE_FAIL_ENV]
    try:
        # `true` runs one process: a cap per process is a cap of the whole (check_memory)
        run = _Launch(SandboxLimits(memory_per_process=1),
                      mode="isolated" if as_user else "namespaces", userns=userns)
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


def _found(argv: Sequence[str]) -> list[str]:
    """The bot's command with its program as the arena finds it on its own PATH (``node`` in a
    folder of the user's): the bot's environment has only ``BOT_PATH``."""
    if argv and "/" not in argv[0]:
        program = shutil.which(argv[0])
        if program is not None:
            return [os.path.abspath(program), *argv[1:]]
    return list(argv)


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


class _Launch:
    """One sandboxed run: its folder, user id and status pipe. ``command()`` gives what to start;
    ``finish()`` reads the launcher's report after the process ended; ``cleanup()`` always.

    ``private`` are folders no bot may see (the match's record and logs, the tournament's folder;
    the data folder is always added): with the allow-list they are not in the bot's root anyway,
    and a bot's own folder inside one is not exposed at all. ``keep_disk``: the working folder is
    on disk and outlives the run (a build, whose output is kept), not the size-capped tmpfs."""

    def __init__(self, limits: SandboxLimits, mode: str, files: Path | None = None,
                 subdir: str = ".", userns: bool = False, private: Sequence[Path] = (),
                 keep_disk: bool = False):
        self.limits = limits
        self.private = [*map(str, private), *data_folders()]
        self.mode = mode
        self.userns = userns
        self.files = files
        self.keep_disk = keep_disk
        sweep_stale_folders()
        # The owner's PID in the name: folders of a referee killed with kill -9 can be found.
        # A namespaced bot's folder holds only mount points (its files go to a tmpfs inside its
        # own mount namespace): a tmpfs holds them for less than the disk (issue 18: mkdir and
        # rmdir on ext4 cost ~2.5 ms of CPU per start there, the inode allocator's scans).
        on_disk = mode == "limits" or keep_disk
        self._base = tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-",
                                      dir=None if on_disk else folder_parent())
        # Held until cleanup: another arena's sweep removes a folder only when it can lock it, so
        # a folder in use is never swept, whatever the PID in its name seems to say from there
        # (two test runs at once lost a folder between mkdtemp and the launch). The lock goes
        # with this process, kill -9 included; bots never inherit it (O_CLOEXEC, close_fds).
        self._hold = os.open(self._base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        fcntl.flock(self._hold, fcntl.LOCK_SH)
        self.host_workdir = os.path.join(self._base, "work")  # on disk: limits mode, builds
        # Where the bot's folder is as the bot sees it: inside its own root, always BOT_HOME.
        self.workdir = self.host_workdir if mode == "limits" else BOT_HOME
        self.cwd = os.path.normpath(os.path.join(self.workdir, subdir))
        self._lease: UidLease | None = None
        self._status_r = self._status_w = -1
        self._inner: int | None = None
        self._cgroup: cgroups.BotCgroup | None = None
        try:
            if mode != "limits":
                self._cgroup = _bot_cgroup(limits, required=mode == "isolated")
            if self._cgroup is None and mode == "namespaces":
                check_memory(limits, mode)  # said before any bot ran; fail closed all the same
            # A bot never runs as root: as root every level leases it a user id of its own.
            if mode == "isolated" or (mode == "limits" and os.geteuid() == 0):
                self._lease = UidLease()
            # In its own root the launcher copies the files into the tmpfs itself, and the
            # folder on the host is not used at all.
            if files is not None and on_disk:
                shutil.copytree(files, self.host_workdir, symlinks=True)
            elif on_disk:
                os.mkdir(self.host_workdir)
            if on_disk:
                os.chmod(self.host_workdir, 0o700)  # the bot's alone: no other bot may list it
            if self._lease is not None and on_disk:
                os.chmod(self._base, 0o711)  # the bot may pass through to its folder, not list it
                chown_tree(self.host_workdir, self._lease.uid)
        except BaseException:
            self.cleanup()
            raise

    @property
    def uid(self) -> int | None:
        return self._lease.uid if self._lease else None

    def command(self, argv: Sequence[str]) -> tuple[list[str], dict[str, Any]]:
        """The argument list to start and the extra ``Popen`` arguments."""
        rlimits = {k: v for k, v in self.limits.to_dict().items() if k in RESOURCES}
        argv = _found(argv)
        if self.mode == "limits":
            uid = self.uid
            if uid is None:
                rlimits["processes"] = 0  # would count every process of the caller's user

            def preexec() -> None:
                apply_limits(rlimits)
            extra: dict[str, Any] = {"preexec_fn": preexec, "cwd": self.cwd}
            if uid is not None:
                extra.update(user=uid, group=uid, extra_groups=[])
            return list(argv), extra
        self._status_r, self._status_w = os.pipe()
        os.set_blocking(self._status_r, False)
        command = [str(launcher()), f"--status-fd={self._status_w}", f"--parent={os.getpid()}",
                   f"--cwd={self.cwd}", f"--base={self._base}",
                   f"--workdir-mb={self.limits.workdir_mb}"]
        if self.userns:
            command.append("--userns")
        if self.uid is not None:
            command.append(f"--uid={self.uid}")
        if self._cgroup is not None:
            # The cgroup caps the whole bot; the per-process RLIMIT_AS is dropped, as it only
            # gets in the way (a JVM reserves far more address space than it uses), and so is
            # RLIMIT_NPROC, which would refuse a fork before pids.max could say why.
            rlimits["memory_mb"] = rlimits["processes"] = 0
            command += [f"--cgroup={path}" for path in self._cgroup.paths]
            cgroups.watch(self._cgroup)
        command += [f"--limit={key}={value}" for key, value in rlimits.items()]
        if self.keep_disk:
            command.append("--workdir-disk")
        elif self.files is not None:
            command.append(f"--files={os.path.realpath(self.files)}")
        command += [f"--ro={path}" for path in allow_list(argv, self.private)]
        # The launcher runs from this process's sealed memfd (``launcher()``), which the child
        # must have open to exec it; the launcher closes it first of all.
        return [*command, "--", *argv], {"pass_fds": (self._status_w, launcher_fd()),
                                         "cwd": self._base}

    @property
    def status_w(self) -> int:
        """The writing end of the status pipe, for the launcher (after ``command()``)."""
        return self._status_w

    def reset_status(self) -> None:
        """Forget the status pipe of a start that did not happen (``command()`` makes another)."""
        for fd in (self._status_r, self._status_w):
            if fd >= 0:
                os.close(fd)
        self._status_r = self._status_w = -1

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

    def asked(self, asked: bool) -> None:
        if self._cgroup is not None:
            self._cgroup.asked(asked)

    def wait_empty(self, timeout_s: float = 2.0) -> bool:
        """After the launcher was killed: wait until PID 1 of the bot's namespace is dead, which
        the kernel allows only once every process in the namespace is (``zap_pid_ns_processes``).
        True when it is."""
        inner = self._inner
        deadline = time.monotonic() + timeout_s
        while inner is not None and running(inner):  # a zombie waiting for init counts as dead
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
            remove_later(self._cgroup.remove)
            self._cgroup = None
        remove_later(self._base)
        if self._hold >= 0:
            os.close(self._hold)
            self._hold = -1


def _bot_cgroup(limits: SandboxLimits, required: bool) -> cgroups.BotCgroup | None:
    """A cgroup for one bot, or None where the machine gives none (``describe()`` says so). Where
    one is ``required`` (the ``isolated`` mode), its absence is an error: the bot does not run."""
    missing = cgroups.available()
    if missing is not None:
        if required:
            raise OSError(errno.EPERM, f"cannot cap the bot's memory and processes, nor its "
                                       f"share of a busy core: {missing}")
        return None
    return cgroups.BotCgroup(limits.memory_mb, limits.processes, cores=limits.cores)


class Sandbox:
    """The sandbox of one bot process, as ``BotProcess`` uses it."""

    def __init__(self, limits: SandboxLimits, files: Path | None = None, subdir: str = ".",
                 hide: Sequence[Path] = (), keep_disk: bool = False):
        s = support()  # SandboxUnavailable: the level asked for cannot be had, no bot runs
        self.limits = limits
        self._launch = _Launch(limits, s.mode, files=files, subdir=subdir,
                               userns=s.mode == "namespaces", private=hide, keep_disk=keep_disk)
        self.report: Report | None = None

    @property
    def workdir(self) -> str:
        """The bot's working folder as the bot sees it."""
        return self._launch.workdir

    @property
    def host_workdir(self) -> str:
        """The bot's working folder on disk (the tmpfs of the full sandbox is not)."""
        return self._launch.host_workdir

    def command(self, argv: Sequence[str]) -> tuple[list[str], dict[str, Any]]:
        return self._launch.command(argv)

    def started(self) -> None:
        self._launch.started()

    def from_zygote(self, argv: Sequence[str]) -> "zygote.ZygoteChild | None":
        """The bot started as a child of this process's zygote (``zygote.py``), in the very
        sandbox ``command()`` describes; None when it must start by exec: the ``limits`` level, a
        build, a command the zygote does not serve, no zygote here (``zygote.get()`` says why)."""
        launch = self._launch
        if launch.mode == "limits" or launch.keep_disk or not zygote.serves(argv):
            return None
        z = zygote.get()
        if z is None:
            return None
        command, _ = launch.command(argv)
        try:
            child = z.spawn(command[1:], argv, launch.status_w)  # options, "--", the bot
        except OSError as err:
            log.warning("the zygote failed to start a bot (%s): it starts by exec", err)
            launch.reset_status()
            return None
        launch.started()
        return child

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

    def asked(self, asked: bool) -> None:
        """Whether the referee is waiting for the bot: its share of a busy core follows
        (``cgroups.BotCgroup.asked``; nothing without a cgroup)."""
        self._launch.asked(asked)

    def close(self) -> None:
        self._launch.cleanup()


def run_command(argv: Sequence[str], files: Path, limits: SandboxLimits, timeout_s: float,
                keep: Path | None = None, output_cap: int = 1 << 16
                ) -> tuple[int | None, str, Report]:
    """Run a command (a bot's build) in the sandbox, in a copy of ``files``; afterwards the copy,
    with whatever the command made, is saved as ``keep``. Returns the exit status (None: timed
    out), the last ``output_cap`` bytes of its output (stdout and stderr) and the launcher's report."""
    sandbox = Sandbox(limits, files=files, keep_disk=keep is not None)
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
            shutil.copytree(sandbox.host_workdir, keep, symlinks=True)
            chown_tree(str(keep), os.geteuid())
        return status, text, report
    finally:
        sandbox.close()


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
