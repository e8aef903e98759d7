"""One sandboxed start of a program: its folder, its leased user id and cgroup, the launcher's
command line (the allow-list, the limits, the namespaces of its level), and afterwards the
launcher's report and the cleaning up.

Below the probe and the ``Sandbox`` both: the probe finds a level by running ``true`` exactly as a
bot is run, through this, so that a level is only ever said to hold where a real start holds it.
Which level to run at, and whether its limits can be held here, is decided above (``probe.py``,
``sandbox.py``); ``launcher.py`` builds the C launcher this runs.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Sequence

from arena.isolation import cgroups
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
from arena.isolation.launcher import BOT_HOME, launcher, launcher_fd
from arena.isolation.limits import RESOURCES, SandboxLimits, apply_limits


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


class Launch:
    """One sandboxed run: its folder, user id and status pipe. ``command()`` gives what to start;
    ``finish()`` reads the launcher's report after the process ended; ``cleanup()`` always.

    ``private`` are folders no bot may see (the match's record and logs, the tournament's folder;
    the data folder is always added): with the allow-list they are not in the bot's root anyway,
    and a bot's own folder inside one is not exposed at all. ``keep_disk``: the working folder is
    on disk and outlives the run (a build, whose output is kept), not the size-capped tmpfs.

    ``mode`` is taken as given: whether the machine gives that level, and can hold the limits at
    it, is the ``Sandbox``'s to check first (``support()``, ``check_memory``)."""

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
            # Emptied: the next bot's (issue 34). give_back looks whether it is empty first: a
            # look of its own before it read the same files again (step four).
            if not cgroups.give_back(self._cgroup):
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
    return cgroups.take(limits.memory_mb, limits.processes, limits.cores)
