"""Finding the processes a test session started, by a tag in their command line or by user id.

Hostile bots get ``TAG`` as an argument; a forked child keeps its parent's command line, so even a
fork bomb's processes carry it. Other arenas (another engineer's tests, a tournament) may run on
the same machine at the same time, with bots of the same sandbox user ids: only processes this
session started count, tagged or descended from this process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

from arena.isolation.bot_folders import UID_BASE, UID_COUNT

TAG = uuid.uuid4().hex


def tagged_processes(tag: str = TAG) -> list[tuple[int, str]]:
    """(pid, command line) of every process whose command line holds ``tag``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if tag.encode() in cmdline:
            found.append((int(entry), cmdline.replace(b"\0", b" ").decode(errors="replace")))
    return found


def ended_pid() -> int:
    """The PID of a process that has ended (and been reaped): an owner the sweeps of
    temp_folders.py judge gone."""
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    return int(proc.stdout)


def parent_of(pid: int) -> int:
    """``pid``'s parent (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return int(fh.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def _ours(pid: int, tag: str) -> bool:
    """Whether this session started ``pid``: it carries the tag, or this process is an ancestor."""
    try:
        if tag.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
            return True
    except OSError:
        return False
    me = os.getpid()
    for _ in range(64):
        pid = parent_of(pid)
        if pid == me:
            return True
        if pid <= 1:
            return False
    return False


def sandbox_user_processes(tag: str = TAG) -> list[int]:
    """Processes this session started that run as one of the sandbox's user ids."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            uid = os.stat(f"/proc/{entry}").st_uid
        except OSError:
            continue
        if UID_BASE <= uid < UID_BASE + UID_COUNT and _ours(int(entry), tag):
            found.append(int(entry))
    return found


# -- the processes a test started, and only those ---------------------------------------------------
# Other arenas may run on the same machine (other users, other checkouts): their bots have sandbox
# user ids too. A test's processes are told apart by a tag: in the environment of every process it
# starts (ENV_TAG, inherited by coordinators and workers), in the command line of its hostile bots,
# and, for a sandboxed bot (whose environment is the sandbox's own), through its referee: the bot's
# folder, its TMPDIR, names the referee's PID (bot_folders.FOLDER_PREFIX).

ENV_TAG = "ARENA_TEST_TAG"


def _state(pid: str) -> bytes:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return b"X"


def _environ(pid: str) -> dict[bytes, bytes]:
    try:
        data = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return {}
    return dict(item.partition(b"=")[::2] for item in data.split(b"\0") if item)


def _carries(pid: str, tag: str) -> bool:
    try:
        if tag.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
            return True
    except OSError:
        return False
    return _environ(pid).get(ENV_TAG.encode()) == tag.encode()


def processes_of(tag: str = TAG) -> list[int]:
    """Live (not zombie) processes carrying ``tag`` in their command line or environment, and
    sandboxed bots whose referee does; never this process."""
    from arena.isolation.bot_folders import FOLDER_PREFIX

    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid() or _state(entry) in (b"Z", b"X"):
            continue
        if _carries(entry, tag):
            found.append(int(entry))
            continue
        try:
            uid = os.stat(f"/proc/{entry}").st_uid
        except OSError:
            continue
        if UID_BASE <= uid < UID_BASE + UID_COUNT:
            folder = Path(_environ(entry).get(b"TMPDIR", b"").decode(errors="replace"))
            names = [p.name for p in (folder, *folder.parents) if p.name.startswith(FOLDER_PREFIX)]
            referee = names[0][len(FOLDER_PREFIX):].split("-", 1)[0] if names else ""
            if referee.isdigit() and (int(referee) == os.getpid() or _carries(referee, tag)):
                found.append(int(entry))
    return found
