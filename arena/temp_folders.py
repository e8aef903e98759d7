"""The arena's own temporary folders, and the removal of those an arena killed with ``kill -9`` left.

A check's records, a start-up check's logs, a launcher being compiled, a served site, an upload
being received: each lives in a temporary folder for one command (or request), removed when it
ends, a stop signal included. A process killed with ``kill -9`` removes nothing, so each folder
says whose it is and whether it is still in use, and the next arena process that makes one
removes those whose owner is gone:

- **The owner's PID in the name**: ``sixtysix-<kind>-<pid>-<random>``, in the temporary folder
  (an upload's in the site's uploads folder, which the site sweeps when it starts; a build's in
  the registry, which ``arena submit`` sweeps).
- **A lock held while it is in use** (``flock``, shared), by the process that made it and any child
  it forked; the kernel drops it however they end. A folder is removed only when its owner's PID no
  longer runs *and* its lock can be taken: a PID that means another process from here (another PID
  namespace sharing /tmp, a PID reused) never costs a folder in use.
- Only this user's folders, and never through a symbolic link.

The bots' own folders (``isolation/bot_folders.py``) follow the same scheme with their own sweep.
"""

from __future__ import annotations

import fcntl
import functools
import os
import re
import shutil
import stat
import tempfile
import weakref
from pathlib import Path
from types import TracebackType

PREFIX = "sixtysix-"
KINDS = ("preflight", "launcher", "check", "check-bot", "qualify", "batch", "serve", "incoming",
         "staging")
"""What each folder is for, the middle of its name: ``sweep`` looks for these names only."""
_NAME = re.compile(r"(?P<kind>[a-z]+(?:-[a-z]+)*)-(?P<pid>[0-9]+)-[^/]+")


class TempFolder:
    """A temporary folder of ``kind`` (one of ``KINDS``) in ``parent`` (default: the temporary
    folder), removed by ``cleanup()`` or at the end of a ``with`` block, whose value is its path;
    until then it is locked as in use. The first one a process makes sweeps the temporary
    folder's folders of dead owners first (``sweep``). Moved away before the end (renamed into
    place), it is not removed."""

    def __init__(self, kind: str, parent: Path | None = None) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown kind of temporary folder {kind!r}; one of {', '.join(KINDS)}")
        sweep_once()
        self._folder = tempfile.TemporaryDirectory(prefix=f"{PREFIX}{kind}-{os.getpid()}-",
                                                   dir=parent, ignore_cleanup_errors=True)
        self.path = Path(self._folder.name)
        # Between mkdtemp and the lock the PID in the name is alive, so no sweep can take it.
        try:
            held = hold(self.path)
        except OSError:
            self._folder.cleanup()
            raise
        self._let_go = weakref.finalize(self, os.close, held)

    def cleanup(self) -> None:
        """Remove the folder and let go of its lock (again: nothing)."""
        self._folder.cleanup()
        self._let_go()

    def __enter__(self) -> Path:
        return self.path

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.cleanup()


def hold(folder: Path) -> int:
    """Lock ``folder`` as in use until the descriptor returned is closed (or the process ends)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)  # cannot block for long: a sweep's test holds it a moment
    except BaseException:
        os.close(fd)
        raise
    return fd


@functools.cache
def sweep_once() -> None:
    """``sweep`` of the temporary folder, once per process (a listing of /tmp each time a folder
    is made would cost more than the folders)."""
    sweep(Path(tempfile.gettempdir()))


def sweep(root: Path) -> list[Path]:
    """Remove this user's folders of ``KINDS`` in ``root`` whose owner no longer runs and that no
    process holds; returns those removed."""
    removed: list[Path] = []
    try:
        names = [entry.name for entry in os.scandir(root) if entry.name.startswith(PREFIX)]
    except OSError:
        return removed
    for name in names:
        match = _NAME.fullmatch(name[len(PREFIX):])
        if match is None or match["kind"] not in KINDS:
            continue  # another kind of ours (a bot's folder, the caches) or an older name
        path = root / name
        if stale(path, int(match["pid"])):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def stale(folder: Path, owner: int) -> bool:
    """Whether ``folder``, named after process ``owner``, is a folder of this user's that its owner
    left: that process no longer runs and no process holds it. Never a symbolic link."""
    try:
        info = os.lstat(folder)
    except OSError:
        return False  # gone since it was listed: its owner cleaned up
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        return False  # a symbolic link, a file, another user's
    return not running(owner) and not in_use(folder)


def running(pid: int) -> bool:
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


def in_use(folder: Path) -> bool:
    """Whether a live process holds ``folder``'s lock (``TempFolder``, a bot's ``Sandbox``); a
    folder that cannot be opened is taken as in use too."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # and with it the lock just taken
    return False
