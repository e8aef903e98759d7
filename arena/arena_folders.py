"""The arena's own folders: private to the arena's user, marked as the arena's, and never a bot's.

A tournament's folder holds its deal key (the store), every hand dealt so far (the records) and the
bots' stderr; the registry holds the other bots; a data folder holds all of those. Two rules keep
them from the bots (issue 29):

- **Private.** Every folder the arena makes for them is mode 0700 and every file in them 0600,
  whatever the umask (``private_folder``, ``private_file``, ``open_private``): a bot that runs as a
  user of its own (the ``isolated`` level, and ``limits`` as root) cannot enter them, even where
  its own program folder holds one or it runs on the machine's real file system. A folder or store
  made looser by an older version is tightened when opened, with one line on the log saying so.
  ``SQLite`` gives a database's ``-wal``, ``-shm`` and ``-journal`` files the database's own mode,
  so a store made 0600 has them 0600 too.
- **Marked, and refused as a bot's path.** Each such folder holds ``MARKER`` (a line of text, no
  secret), so that a bot command naming a path in ANY arena folder, not only the current run's, is
  recognised and refused (``holder``; ``bot_specs.check_bot_paths``, ``allow_list.allow_list``).
  Folders an older version made carry no marker; their layout gives them away: a results store
  (``results.sqlite``), a tournament's or league's lock, a league's members, a registry.

A published site (``arena publish``) is meant for a public web server, so it is not private; it
holds no key, no log and no private record (``report/public.py``), but it is marked too: a bot is
never pointed at any arena folder, public or not, and a league republishing into it while a bot
reads it would be a channel between matches.
"""

from __future__ import annotations

import contextvars
import logging
import os
import stat
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterable, Iterator, TypeVar

T = TypeVar("T")

log = logging.getLogger("arena.folders")

MARKER = ".sixtysix-arena"
# Names that make a folder an arena folder: the marker, and the layouts of folders made before it
# (a tournament's store and lock, a league's members, a registry and the data folder holding one).
_LAYOUT = (MARKER, "results.sqlite", "tournament.lock", "members.sqlite", "registry.sqlite",
           os.path.join("registry", "registry.sqlite"))
FOLDER_MODE = 0o700
FILE_MODE = 0o600


def not_a_folder(path: Path) -> str:
    """Why ``path`` cannot be (or become) a folder: '' when it is one, or when the first part of
    it that exists is one (the rest can be made); else which part is something else. Reads only:
    a command checks before it starts a bot or writes anything."""
    for place in (path, *path.parents):
        if os.path.lexists(place):
            if os.path.isdir(place):
                return ""
            return f"{place} is not a folder" if place == path else \
                f"{place}, on the way to {path}, is not a folder"
    return ""


def private_folder(folder: Path, kind: str) -> Path:
    """Make ``folder`` (and any missing parent) mode 0700 and mark it as an arena folder of
    ``kind`` ("tournament", "data", ...); an existing one looser than 0700 is tightened, said
    once on the log. Returns ``folder``. ``OSError`` when it cannot be made."""
    private_subfolder(folder)  # one another run made meanwhile is tightened below, as any other
    if folder.stat().st_uid != os.geteuid():
        return folder  # another user's (their registry, read): not ours to change or mark
    tighten(folder)
    marker = folder / MARKER
    if not marker.exists():
        fd = open_private(marker, os.O_WRONLY)
        try:
            os.write(fd, f"sixtysix-arena {kind} folder: private to the arena; no bot may be "
                         "given a path in here\n".encode())
        finally:
            os.close(fd)
    return folder


def public_folder_mark(folder: Path) -> None:
    """Mark a folder meant to be public (a published site) as the arena's, leaving its mode."""
    (folder / MARKER).write_text("sixtysix-arena published site: no bot may be given a path "
                                 "in here\n", encoding="utf-8")


def private_subfolder(folder: Path) -> None:
    """``mkdir -p`` of a folder inside an arena folder (records/, logs/): missing folders 0700."""
    if folder.is_dir():
        return
    missing = []
    parent = folder
    while not parent.exists() and parent != parent.parent:
        missing.append(parent)
        parent = parent.parent
    for path in reversed(missing):
        try:
            os.mkdir(path, FOLDER_MODE)
        except FileExistsError:  # another run made it since
            pass


def open_private(path: Path | str, flags: int) -> int:
    """``os.open`` of a file that is created 0600 whatever the umask (and tightened if it exists
    looser): a descriptor, ``O_CREAT`` and ``O_CLOEXEC`` added."""
    fd = os.open(path, flags | os.O_CREAT | os.O_CLOEXEC, FILE_MODE)
    try:
        info = os.fstat(fd)
        mode = stat.S_IMODE(info.st_mode)
        # A regular file only: a device the user named (``--record /dev/null``) is the machine's,
        # and as root an fchmod of it made /dev/null 0600 for every other user of the machine.
        if mode & 0o077 and stat.S_ISREG(info.st_mode):
            os.fchmod(fd, mode & 0o700)
    except BaseException:
        os.close(fd)
        raise
    return fd


def private_file(path: Path) -> None:
    """Create ``path`` empty and 0600 if it is missing (before SQLite or a logger opens it, which
    would make it 0644 under the usual umask); tighten it if it is looser."""
    os.close(open_private(path, os.O_RDONLY))


def tighten(path: Path, names: Iterable[str] = ()) -> None:
    """An existing folder (0700) or file (0600) made looser by an older version, and the files
    ``names`` beside it (a store's ``-wal``, ``-shm``, ``-journal``), tightened, with one line on
    the log (the run's log, or stderr before it is open)."""
    for item in [path, *(path.with_name(path.name + n) for n in names)]:
        try:
            info = item.lstat()
        except FileNotFoundError:
            continue
        if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)) \
                or info.st_uid != os.geteuid():
            continue  # not ours to change: a link's target, a device, another user's file
        mode = stat.S_IMODE(info.st_mode)
        if mode & 0o077:
            os.chmod(item, mode & 0o700)
            log.warning("%s was readable by other users (mode %04o): made private (%04o), as "
                        "the arena's data must be", item, mode, mode & 0o700)


# Within ``folders_looked_up_once``: each folder's answer (is it an arena folder?) by its path,
# and each path's real path (``("real", path)``).
_looked_up: contextvars.ContextVar[dict[object, object] | None] = \
    contextvars.ContextVar("arena_folders_looked_up", default=None)


@contextmanager
def folders_looked_up_once() -> Iterator[None]:
    """Within: ``holder`` looks at each folder once. For one pass over many paths that share their
    parents: a league's 200 members, checked each time it reads its members and by ``arena league
    status``, looked at the same folders some 30,000 times, most of a status's second (issue 30).
    Nothing is kept after the pass, so a folder marked later is seen by the next one."""
    token = _looked_up.set({})
    try:
        yield
    finally:
        _looked_up.reset(token)


def holder(path: str, also: Iterable[str] = ()) -> str | None:
    """The arena folder ``path`` lies in (the path itself, or its nearest parent that is one), or
    None. ``also``: more folders that count (the data folder, the launcher's cache), resolved.
    ``path`` need not exist: a file about to be written in a tournament's folder is in it."""
    memo = _looked_up.get()
    real = _realpath(path, memo)
    own = [_realpath(p, memo) for p in also]
    for folder in own:
        if real == folder or real.startswith(folder.rstrip("/") + "/"):
            return folder
    for current in _folder_and_parents(real):
        marked = memo.get(current) if memo is not None else None
        if not isinstance(marked, bool):
            marked = _marked(current)
            if memo is not None:
                memo[current] = marked
        if marked:
            return current
    return None


def _folder_and_parents(real: str) -> Iterator[str]:
    """``real``, then each folder above it up to the root."""
    current = real
    while True:
        yield current
        parent = os.path.dirname(current)
        if parent == current:
            return
        current = parent


def _marked(folder: str) -> bool:
    return any(os.path.lexists(os.path.join(folder, name)) for name in _LAYOUT)


# ``holder_of_real``'s answers, by folder: what was seen of the folder and of its ``registry``
# subfolder (None: there was none), which a layout name lies in, and whether it was marked.
_Seen = tuple[int, int, int, int]
_kept: dict[str, tuple[_Seen, _Seen | None, bool]] = {}
_KEPT_MAX = 4096
# A folder changed this close to when it is looked at may change again with the same mtime (the
# kernel stamps a change with a clock that moves a tick at a time, up to 10 ms; FAT keeps 2 s):
# its answer is not kept. Git's racy-clean rule, with room to spare.
RACY_NS = 3_000_000_000


def _seen(path: str) -> _Seen | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_ctime_ns)


def holder_of_real(real: str) -> str | None:
    """``holder`` of a resolved path, for a bot's every start (``allow_list``): each folder's
    answer is kept while the folder is seen unchanged, one ``stat`` of it instead of a look for
    each layout name (issue 34: those were ~115 ``lstat``s of a start). A name added to or
    removed from a folder changes its mtime and ctime, a folder put in its place its inode, a
    mount over it its device: any of these, and it is looked at again, so a folder marked after
    a bot's first start is seen at its next. Its ``registry`` folder, where there is one, is
    seen the same way (a name in it counts). An answer is kept only when neither had changed for
    ``RACY_NS`` before the look (a change after the look then has a later mtime)."""
    for current in _folder_and_parents(real):
        before = time.time_ns()
        seen = _seen(current)
        if seen is None:
            marked = False  # not there, or not a folder one can enter: nothing in it to find
        else:
            registry = os.path.join(current, "registry")
            kept = _kept.get(current)
            if kept is not None and kept[0] == seen and (kept[1] is None or
                                                          kept[1] == _seen(registry)):
                marked = kept[2]
            else:
                registry_seen = _seen(registry)
                marked = _marked(current)
                newest = max(t[i] for t in (seen, registry_seen) if t is not None for i in (2, 3))
                if before - newest > RACY_NS:
                    if len(_kept) >= _KEPT_MAX:
                        _kept.clear()
                    _kept[current] = (seen, registry_seen, marked)
                else:
                    _kept.pop(current, None)
        if marked:
            return current
    return None


def _realpath(path: str, memo: dict[object, object] | None) -> str:
    if memo is None:
        return os.path.realpath(path)
    found = memo.get(("real", path))
    if not isinstance(found, str):
        found = memo[("real", path)] = os.path.realpath(path)
    return found


def once_per_pass(key: object, compute: Callable[[], T]) -> T:
    """``compute()``, once per ``folders_looked_up_once`` pass for the same ``key`` (every call
    outside a pass computes): what every member's check asks alike (the arena's own folders)."""
    memo = _looked_up.get()
    if memo is None:
        return compute()
    if key not in memo:
        memo[key] = compute()
    return memo[key]  # type: ignore[return-value]
