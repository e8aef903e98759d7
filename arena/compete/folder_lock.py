"""One coordinator per tournament folder: a lock held while a run owns the folder.

Two ``--resume`` runs of one folder at once both played the missing matches: one failed on the
store's primary key, and their referees wrote the same match records at the same time, corrupting
them (issue 14). The lock is ``flock`` on ``tournament.lock`` in the folder, holding the owner's PID
for the error message: the kernel drops it however the owner dies, so a killed run never leaves the
folder locked.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType

from arena.arena_folders import open_private, private_folder

LOCK_NAME = "tournament.lock"


class FolderLockedError(ValueError):
    """Another process runs a tournament in this folder; ``holder`` is its PID as the lock file
    says (text, "" when unreadable)."""

    def __init__(self, message: str, holder: str = ""):
        super().__init__(message)
        self.holder = holder


class FolderLock:
    """``with FolderLock(folder):`` holds the folder (creating it) or raises ``FolderLockedError``
    at once; ``OSError`` when the folder cannot be created or written."""

    def __init__(self, folder: Path, kind: str = "tournament", name: str = LOCK_NAME):
        self.folder = folder
        self.kind = kind
        self.path = folder / name
        self._fd = -1

    def __enter__(self) -> FolderLock:
        # Private and marked (arena_folders.py): it will hold the deal key, records and logs.
        private_folder(self.folder, self.kind)
        # O_CLOEXEC: neither the workers nor the bots may inherit (and so prolong) the lock.
        fd = open_private(self.path, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode(errors="replace").strip()
            os.close(fd)
            who = f"process {holder}" if holder.isdigit() else "another process"
            raise FolderLockedError(
                f"{self.folder} is in use by another tournament run ({who} holds "
                f"{self.path}); wait for it to finish or stop it (kill {holder or 'PID'}), "
                "then resume", holder) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # the file stays: removing it would race with a run taking it
            self._fd = -1
