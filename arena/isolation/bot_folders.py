"""What a bot is given of the machine's shared things, and how each goes back: a user id no other
running bot has (a lease), a folder of its own named after the arena that made it, and the
removal of both when the bot is done, off the match's critical path.

These outlive one bot, and sometimes the arena: a lease is a lock held by the process, a folder of
an arena killed with ``kill -9`` is found and swept by the next one, and removals wait in a thread
for the process to exit. The sandbox takes them; nothing here knows about levels,
namespaces or the launcher.
"""

from __future__ import annotations

import atexit
import errno
import fcntl
import functools
import logging
import multiprocessing.util
import os
import queue
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Callable

from arena.isolation import cgroups
from arena.temp_folders import running, stale

log = logging.getLogger("arena.isolation.bot_folders")

FOLDER_PREFIX = "sixtysix-bot-"  # each bot's folder: in the temporary folder, or /dev/shm
UID_BASE = 2_000_000_000          # far above any real user or subordinate-id range
UID_COUNT = 4096
# One lock folder for the whole machine, whatever TMPDIR each arena has (/run is root's, and empty
# after a reboot, as leases should be).
UID_LOCKS = Path("/run/sixtysix-arena-uids" if os.access("/run", os.W_OK)
                 else "/tmp/sixtysix-arena-uids")


class UidLease:
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


@functools.cache
def sweep_stale_folders() -> None:
    """Remove the bot folders of arenas that died without cleaning up (a referee killed with
    ``kill -9``, a machine that lost power before /tmp was emptied): once per process, those
    whose owner PID no longer runs. A folder of a PID now reused by another process is left for
    a later sweep; a folder we may not remove (another user's) is left alone."""
    found = [path for root in dict.fromkeys((tempfile.gettempdir(), folder_parent()))
             for path in Path(root).glob(f"{FOLDER_PREFIX}*-*")]
    for path in found:
        pid = path.name[len(FOLDER_PREFIX):].split("-", 1)[0]
        # stale() never raises: a folder gone since the listing (its owner, another arena, cleaned
        # up) once failed this sandbox's start from here ("cannot create namespaces").
        if pid.isdigit() and stale(path, int(pid)):
            remove_later(str(path))
    cgroups.sweep_stale(running)  # the cgroups of such arenas' bots, named the same way


@functools.cache
def folder_parent() -> str:
    """Where the folders of namespaced bots go: /dev/shm where it is a tmpfs we may write (only
    mount points are made there; the folder is ours, mode 0700, in a sticky folder), else the
    temporary folder."""
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as fh:
            tmpfs = {fields[1] for fields in map(str.split, fh)
                     if len(fields) > 2 and fields[2] == "tmpfs"}
    except OSError:
        tmpfs = set()
    if "/dev/shm" in tmpfs and os.access("/dev/shm", os.W_OK | os.X_OK):
        return "/dev/shm"
    return tempfile.gettempdir()


# -- removing bot folders off the match's critical path -------------------------------------------
# On ext4 each rmdir waits ~3 ms for the journal (measured on these machines), and every bot has
# folders to remove when it closes: done inline, that was the largest part of a short match's end.
# A thread of this process removes them instead, and the process waits for it when it exits
# (normally, or as a multiprocessing worker, which skips atexit). The folder is root's, mode 0700,
# so nothing can use it in the meantime, not even a bot given the same user id next.
_removals: queue.Queue[str | Callable[[], object]] | None = None
_removals_pid = 0


def remove_later(path: str | Callable[[], object]) -> None:
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


def chown_tree(path: str, uid: int) -> None:
    for root, dirs, files in os.walk(path):
        os.lchown(root, uid, uid)
        for name in dirs + files:
            os.lchown(os.path.join(root, name), uid, uid)
