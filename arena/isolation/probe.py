"""Which isolation level this process runs bots at: the one asked for (``--isolation``, the
tournament key ``isolation``, ``ARENA_ISOLATION``), found by starting a trivial sandboxed program
once per process, and never silently lowered: ``support()`` raises ``SandboxUnavailable`` naming
what is missing and the explicit opt-in for a weaker level, and ``describe()`` says what holds.

What depends on the level found is decided here too: whether ``memory_mb`` can cap a bot as a
whole (``check_memory``), and whether a waiting bot yields its share of a core
(``waiting_bots_yield``). And ``not_dumpable``: ``support()`` and ``adopt()`` are what every
process that runs bots calls before its first bot, and they make it so.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time

from arena.isolation import cgroups
from arena.isolation.bot_folders import UidLease
from arena.isolation.launch import Launch
from arena.isolation.launcher import launcher, minimal_env
from arena.isolation.levels import ISOLATION_ENV, LEVELS, SandboxUnavailable, Support, check_level
from arena.isolation.limits import PER_PROCESS_ENV, PER_PROCESS_OPT_IN, SandboxLimits

log = logging.getLogger("arena.isolation.probe")

# A test hook: makes every namespace probe fail with this text, as on a machine without them.
PROBE_FAIL_ENV = "ARENA_SANDBOX_PROBE_FAIL"
# A level found missing is probed again before it is refused, or (best_level) stepped down from:
# on a loaded machine one probe can fail by chance (a start of `true` past its 10 s, a cgroup
# swept by another arena meanwhile), and what it decides holds for the whole process. A suite
# worker once stepped down from isolated to limits that way, and its Python bots, run from a venv
# under root's 0700 home, could no longer start. A level truly missing fails every time, at the
# cost of a few trivial starts.
PROBE_ATTEMPTS = 3
PROBE_PAUSE_S = 0.5

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
        _support = _probe_again_if_missing(level)
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
            _probe_again_if_missing(level)
        except SandboxUnavailable:
            continue
        return level
    return "limits"


def _probe_again_if_missing(level: str) -> Support:
    """``_probe(level)``, tried ``PROBE_ATTEMPTS`` times before its ``SandboxUnavailable`` holds
    (a simulated failure, ``PROBE_FAIL_ENV``, holds at once)."""
    for attempt in range(1, PROBE_ATTEMPTS + 1):
        try:
            return _probe(level)
        except SandboxUnavailable as err:
            if attempt == PROBE_ATTEMPTS or os.environ.get(PROBE_FAIL_ENV) \
                    or _missing_for_sure(level):
                raise
            log.info("the %r sandbox probe failed (attempt %d of %d), trying again: %s", level,
                     attempt, PROBE_ATTEMPTS, err)
            time.sleep(PROBE_PAUSE_S * attempt)
    raise AssertionError("unreachable")


def _unavailable(level: str, missing: str) -> SandboxUnavailable:
    weaker = LEVELS[LEVELS.index(level) + 1:]
    return SandboxUnavailable(
        f"bots do not run: the {level!r} sandbox is not available here: {missing}. A weaker "
        f"sandbox needs an explicit opt-in: --isolation {' or '.join(weaker)} (or "
        f"{ISOLATION_ENV}={weaker[-1]}, or isolation = \"{weaker[0]}\" in a tournament file); "
        f"see docs/organisers/isolation.md for what each level lets a bot do")


def _missing_for_sure(level: str) -> bool:
    """A level ``_probe`` refuses before trying anything: no probe again can change it."""
    return level != "limits" and (not sys.platform.startswith("linux")
                                  or level == "isolated" and os.geteuid() != 0)


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
        run = Launch(SandboxLimits(memory_per_process=1),
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
