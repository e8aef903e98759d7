"""Which core each worker of a local run keeps to, and the claims that keep two arenas off one core.

A match of cheap bots is a ping-pong of wake-ups between the referee and a bot. With two workers
free to use any core, each wake-up often crossed to the other core, behind the other worker's
match: a match took ~1.25x as long as with one worker, at the same CPU (issue 18,
``scripts/match_timeline.py``). Kept to a core of its own, a worker's match wakes on that core, and
two workers play ~1.9x as many matches as one. It is also the fairer placement: both bots of a
match run on the same core and meet the same load there, where free ones may each land on a
different one.

What keeps it from hurting as the default (``affinity = "auto"``):

- A worker keeps to a core only if it can *claim* it: a lock (``flock``) on a file per core in
  ``/tmp/sixtysix-arena-cores``, held for the worker's life and let go by the kernel however it
  ends. A second arena on the machine (the test suite beside a tournament, two users' runs) finds
  the cores taken and its workers run free, as every run did before: two arenas never stack their
  workers on one core while another idles. Arenas that share no claims folder (containers on one
  large machine, each with its own /tmp) mostly keep apart too: each run starts at a random core.
- Only where a bot may use one core (the sandbox's ``cores``, default 1) and its cgroup holds it to
  spare CPU while it waits (``probe.waiting_bots_yield``): the two bots of a match share the
  core, and one computing while its opponent decides must not take it (``for_run``).

What remains: a busy program that is not an arena may share a worker's core, and that worker's
bots cannot move away from it, where free ones could move to a core the other worker's match left
idle for a moment; both bots of the match meet it alike. (Pinning was once tried as the default
without claims, and the test suite, run on a busy machine, saw the strong bot forfeit on time.)

``True`` (``--affinity``) keeps each worker to its core whatever is claimed (and claims it when
it can), as fastchess's ``-use-affinity``; ``False`` (``--no-affinity``) leaves them all free.
With more workers than cores (they would share cores) every worker runs free.

Another process on the machine could hold every claim file, and a run would then play on free
cores: slower, never weaker. Nothing here is a protection; the claim files hold no data.
"""

from __future__ import annotations

import fcntl
import os
import random
from pathlib import Path
from typing import Literal, Union

Affinity = Union[bool, Literal["auto"]]  # a run's setting: keep to cores, never, or where free

AUTO: Literal["auto"] = "auto"
AFFINITY_WORDS = 'true, false or "auto"'  # what a settings file may say, for its errors
CLAIMS_ENV = "ARENA_CORE_CLAIMS"  # the claims folder (tests use a private one)
_CLAIMS = "/tmp/sixtysix-arena-cores"

_held: list[int] = []  # in a worker: the claim's descriptor, open for its life


def is_affinity(value: object) -> bool:
    """Whether a settings file's ``affinity`` is one of ``AFFINITY_WORDS``."""
    return isinstance(value, bool) or value == AUTO


def for_run(affinity: Affinity, bot_cores: int, waiting_bots_yield: bool) -> Affinity:
    """The pool's setting for a run whose bots may each use ``bot_cores`` cores' worth of CPU (the
    sandbox's ``cores``; 0: unlimited) and, if ``waiting_bots_yield``, have a cgroup that holds a
    waiting bot to spare CPU (``probe.waiting_bots_yield``). "auto" keeps workers free unless
    both hold: a bot kept to one core could not use more, and without the weight a bot computing
    while its opponent decides would take half of the core they share. ``True`` is kept as
    asked."""
    if affinity == AUTO and (bot_cores != 1 or not waiting_bots_yield):
        return False
    return affinity


def usable_cores() -> list[int]:
    """This process's cores (its affinity mask, which a container or ``taskset`` may narrow), or
    [] where the system cannot pin a process (not Linux)."""
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return []


def default_workers() -> int:
    """A local run's workers when none are asked for: one per core this process may use (its
    affinity mask: ``taskset``, a container's cpuset), not per core of the machine, which a
    container given 2 of 64 cores would have filled with 64 workers."""
    return len(usable_cores()) or os.cpu_count() or 1


def cores_for(workers: int, affinity: Affinity, first: int = 0) -> list[int]:
    """The core each worker keeps to (worker i: the i-th; with ``"auto"``, if it can claim it), or
    [] when they run free: ``False``, or more workers than cores. ``first``: where in the usable
    cores a run starts (``start_at``)."""
    cores = _from(first)
    if affinity is False or workers > len(cores):
        return []
    return cores[:workers]


def _from(first: int) -> list[int]:
    """The usable cores in turn, starting at the ``first``-th (modulo their number)."""
    cores = usable_cores()
    if not cores:
        return []
    first %= len(cores)
    return cores[first:] + cores[:first]


def start_at() -> int:
    """Where a run's workers start among the cores: at random. Claims keep arenas that share a
    claims folder apart; this keeps apart most of those that do not (two containers on one large
    machine, each with its own /tmp), which would otherwise all begin with the first core."""
    return random.randrange(1 << 16)


def keep_to_a_core(index: int, workers: int, affinity: Affinity,
                   first: int = 0) -> tuple[int | None, str]:
    """In worker ``index`` as it starts, before it starts any process (its zygote, launchers and
    bots inherit the mask): keep to a core, claimed when it can be. Returns the core (None: free)
    and what happened, in words, for the run's log."""
    cores = cores_for(workers, affinity, first)
    if not cores:
        return None, "runs on any core"
    mine = cores[index]
    if affinity is True:
        _claim(mine)  # so that auto runs keep off it; kept to it either way, as asked
        return _keep_to(mine)
    # Its own core first; another free one if another arena holds it (the usable cores in turn
    # from its own, so that workers taking a second choice spread too).
    for core in _from(first + index):
        if _claim(core):
            return _keep_to(core)
    return None, "runs on any core: every core is claimed by another arena's worker"


def _keep_to(core: int) -> tuple[int | None, str]:
    try:
        os.sched_setaffinity(0, {core})
    except OSError as err:  # the core went away (a changed cpuset): run anywhere
        _release()
        return None, f"runs on any core: cannot keep to core {core} ({err.strerror})"
    return core, f"keeps to core {core}"


def _claim(core: int) -> bool:
    """Take the lock on ``core``'s claim file, without waiting; False if another process holds
    it or the folder cannot be used (then no claim: the worker runs free)."""
    folder = _folder()
    try:
        try:
            folder.mkdir(mode=0o1777)
            os.chmod(folder, 0o1777)  # every user's arenas claim here; the sticky bit as /tmp's
        except FileExistsError:
            pass
        # O_NOFOLLOW: a link planted in the shared folder is refused, never followed. Read-only
        # is enough for flock, and lets another user's arena open a file this one created.
        fd = os.open(folder / f"core-{core}", os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW |
                     os.O_CLOEXEC, 0o644)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return False
    _release()
    _held.append(fd)
    return True


def _folder() -> Path:
    return Path(os.environ.get(CLAIMS_ENV) or _CLAIMS)


def _release() -> None:
    while _held:
        os.close(_held.pop())



def claimed(cores: list[int]) -> list[int]:
    """Which of ``cores`` another process claims now (a benchmark checks that its default runs
    will be kept to cores)."""
    folder = _folder()
    taken = []
    for core in cores:
        try:
            fd = os.open(folder / f"core-{core}", os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue  # never claimed
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            taken.append(core)
        finally:
            os.close(fd)
    return taken
