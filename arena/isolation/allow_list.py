"""What of the machine a bot's root holds: the allow-list, every path bind-mounted read-only into
the empty root of the namespaced levels, and the folders that must never be among them.

The sandbox's strongest promise rests on this list (a bot sees nothing of the arena's data, the
records, other runs, the caller's home), so it is kept in one place, with what decides it: the
fixed part every bot gets, a bot's own program folder as its arguments name it, and the private
folders that, found inside the fixed part, stop every bot (``SandboxUnavailable``).
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Sequence

from arena import arena_folders
from arena.isolation.bot_folders import UID_LOCKS, folder_parent
from arena.isolation.launcher import cache_folder
from arena.isolation.levels import SandboxUnavailable

# What of the machine every bot sees, read-only (the interpreter and the installation are added
# by ``allow_list``). /bin, /lib... are links to /usr on most systems: the launcher makes them
# links again. /etc holds only what the dynamic loader, a C library and a JVM read: the machine's
# user and group lists and hosts are not among them (issue 29), the launcher writes its own
# (sandbox_launch.c: write_etc: root, the bot's own user, nobody; localhost).
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_PATHS = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
             "/etc/localtime")


# Folders never exposed whole as a bot's own folder: they hold other users' and services' files,
# sockets (/run, /tmp) and the other bots' folders. A bot program directly in one gets that file
# alone.
SHARED_FOLDERS = ("/", "/tmp", "/var/tmp", "/run", "/var/run", "/var", "/dev", "/dev/shm", "/proc",
                  "/sys", "/home", "/root", "/etc", "/mnt", "/media", "/srv", "/opt")


def data_folders() -> list[str]:
    """The arena's data folder (registry, default results) as an absolute path: whatever the
    working folder of a later step, it names the same folder."""
    return [os.path.realpath(os.environ.get("ARENA_DATA") or "results")]


def arena_own_folders() -> list[str]:
    """The arena's folders that count as such whether marked or not (``arena_folders.holder``):
    the data folder and the launcher's cache."""
    return [*data_folders(), os.path.realpath(cache_folder())]


def _inside(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies inside it (both absolute and resolved)."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _installation() -> list[str]:
    """The interpreter and the arena's installation: the packages themselves, not the checkout
    around them (which holds results/ by default)."""
    import arena
    import bots
    import protocol

    paths = {sys.base_prefix, sys.prefix, sys.exec_prefix, os.path.dirname(sys.executable)}
    paths |= {os.path.dirname(os.path.abspath(m.__file__ or "")) for m in (arena, bots, protocol)}
    return [os.path.realpath(p) for p in paths]


@functools.cache
def _fixed_allow_list() -> tuple[tuple[str, ...], tuple[str, ...], frozenset[str], frozenset[str]]:
    """What every bot's allow-list holds, the folders a bot's own folder may not contain, the
    shared folders, and which of the first are links: the same for every bot of a process, so
    found once (it costs milliseconds)."""
    keep_out = (os.path.realpath(tempfile.gettempdir()), os.path.realpath(folder_parent()),
                os.path.realpath(cache_folder()), str(UID_LOCKS))
    shared = frozenset({os.path.realpath(p) for p in SHARED_FOLDERS} |
                       {os.path.realpath(Path.home())})
    paths: list[str] = [p for p in SYSTEM_PATHS if os.path.lexists(p)]
    paths += [p for p in ETC_PATHS if os.path.lexists(p)]
    paths += sorted(str(p) for p in Path("/etc").glob("java-*"))
    paths += _installation()
    return tuple(paths), keep_out, shared, frozenset(p for p in paths if os.path.islink(p))


@functools.cache
def _fixed_real() -> tuple[tuple[str, str], ...]:
    """The fixed allow-list with each path resolved: found once, like the list (resolving it
    again for every bot was a third of the referee's share of a start, issue 18)."""
    return tuple((p, os.path.realpath(p)) for p in _fixed_allow_list()[0])


def exposed_private(private: Sequence[str | Path], created: Sequence[str | Path] = ()
                    ) -> list[tuple[str, str]]:
    """Private folders that lie inside what every bot sees (an output folder under the arena's
    installation or the venv, say): (private folder, the allow-listed path holding it). Only
    those that exist: the default data folder is relative (``results``), and an arena started
    inside the installation that writes nothing there has nothing to hide. ``created``: folders
    checked whether they exist or not (a tournament's, about to be made)."""
    found = []
    for path in [*private, *created]:
        real = os.path.realpath(path)
        if not os.path.exists(real) and path not in created:
            continue
        for allowed, allowed_real in _fixed_real():
            if _inside(real, allowed_real):
                found.append((real, allowed))
                break
    return found


def allow_list(argv: Sequence[str], private: Sequence[str] = ()) -> list[str]:
    """Every path of the machine a bot's root holds, read-only: ``SYSTEM_PATHS``, ``ETC_PATHS``,
    the interpreter and the arena's installation, and the bot's own program folder: the folder of
    its program and of each file it names (a command bot: ``python3 /home/me/bot/main.py``).

    A private folder inside the fixed part of the list is ``SandboxUnavailable``: no bot runs.
    The bot's own folders are where its arguments have a say, so they are checked: one inside a
    private folder (the data folder, a tournament's, the records), or inside any arena folder
    (``arena_folders.holder``: another run's, a league, a published site), is never exposed,
    whatever the argument (``bot_specs.check_bot_paths`` refuses such a bot with a clear error
    before it gets here); a program directly in a shared folder (/tmp, /home, /) or in a folder that holds a
    private folder, the temporary folder or the launcher's cache is exposed as that file alone."""
    for folder, allowed in exposed_private(private):
        # Fail closed: every bot would see it.
        raise SandboxUnavailable(f"bots do not run: the private folder {folder} lies inside "
                                 f"{allowed}, which every bot sees read-only; choose another "
                                 "folder for the arena's data and tournaments")
    private_real = [os.path.realpath(p) for p in private]
    _, never_inside, shared, _ = _fixed_allow_list()
    keep_out = [*private_real, *never_inside]
    paths: list[str] = []
    program = shutil.which(argv[0]) if argv else None
    for item in [program, *argv[1:]] if program else argv[1:]:
        if not item or not os.path.isabs(item) or not os.path.exists(item):
            continue
        real = os.path.realpath(item)
        folder = real if os.path.isdir(real) else os.path.dirname(real)
        if any(_inside(real, p) or _inside(folder, p) for p in private_real):
            continue  # fail closed: the bot will not find it
        if arena_folders.holder_of_real(real) is not None:
            continue  # in another run's folder, say (issue 29): refused before, never shown
        if folder in shared or any(_inside(p, folder) for p in keep_out):
            if os.path.isfile(real):
                paths.append(real)
            continue
        paths.append(folder)
    return list(_outermost(tuple(sorted(set(paths)))))


@functools.lru_cache(maxsize=256)
def _outermost(own: tuple[str, ...]) -> tuple[str, ...]:
    """The fixed allow-list and a bot's own paths, outermost first, without a path inside one
    already bound (it comes with it). The same for every start of a bot: kept (issue 18: this
    loop was the largest part of the referee's Python at a start)."""
    fixed, _, _, links = _fixed_allow_list()
    out: list[str] = []
    for path in sorted({*fixed, *own}, key=lambda p: (p.count("/"), p)):
        if not any(_inside(path, o) and o not in links for o in out):
            out.append(path)
    return tuple(out)
