"""Running an untrusted bot: a root of its own built from an allow-list, resource limits, its own
user, no network, no orphans; and an isolation level that is asked for, never silently lowered.

The isolation level is a setting (``--isolation``, the tournament key ``isolation``, or
``ARENA_ISOLATION``; default ``isolated``). If the machine cannot give the level asked for, no bot
runs: ``support()`` (``probe.py``) raises ``SandboxUnavailable`` naming what is missing and the
explicit opt-in for a weaker level. ``describe()`` says what holds in one plain sentence.

- ``isolated`` (Linux, as root): each bot runs through ``sandbox_launch.c`` in new network, mount,
  PID, IPC, UTS and cgroup namespaces, as an unprivileged user id of its own (leased from a range,
  so two bots never share one: ``bot_folders.py``), with resource limits and no capability. Its root
  is an empty tmpfs into which only the ALLOW-LIST is bind-mounted read-only (``allow_list.py``:
  system folders, a minimal /etc, the interpreter, the arena's installation, the bot's own program
  folder), plus a minimal /dev, a fresh /proc, and one size-capped tmpfs (``workdir_mb``) for its
  working folder ``/bot``, ``/tmp`` and ``/dev/shm``; the old root is detached (pivot_root). Nothing
  else of the machine exists for it: not the arena's data, records or logs, not /run's sockets, not
  the caller's home or the launcher's cache. No network (a new network namespace has only a loopback
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
output (``bot_process.py``) and the limits of ``SandboxLimits`` (``limits.py``).

In the namespaced levels a Python bot may start as a child of the zygote (``zygote.py``,
``Sandbox.from_zygote``) instead of by exec: the same launcher code builds the same sandbox
(``sandbox_launch.c`` as a library), with the same arguments; only the interpreter is not new.

This module is the ``Sandbox`` a ``BotProcess`` runs its bot in, and ``run_command`` for a bot's
build: it asks ``probe.py`` for the level and whether its limits hold there, and has
``launch.py`` make one sandboxed start at it.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Sequence

from arena.isolation import zygote
from arena.isolation.bot_folders import chown_tree
from arena.isolation.launch import Launch, Report
from arena.isolation.launcher import minimal_env
from arena.isolation.limits import SandboxLimits
from arena.isolation.probe import check_memory, support

log = logging.getLogger("arena.isolation.sandbox")


class Sandbox:
    """The sandbox of one bot process, as ``BotProcess`` uses it."""

    def __init__(self, limits: SandboxLimits, files: Path | None = None, subdir: str = ".",
                 hide: Sequence[Path] = (), keep_disk: bool = False):
        s = support()  # SandboxUnavailable: the level asked for cannot be had, no bot runs
        check_memory(limits, s.mode)  # said before any bot ran; fail closed all the same
        self.limits = limits
        self._launch = Launch(limits, s.mode, files=files, subdir=subdir,
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
