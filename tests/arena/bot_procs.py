"""Finding the processes a test session started, by a tag in their command line or by user id.

Hostile bots get ``TAG`` as an argument; a forked child keeps its parent's command line, so even a
fork bomb's processes carry it.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from arena.sandbox import UID_BASE, UID_COUNT

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


def sandbox_user_processes() -> list[int]:
    """Processes running as one of the sandbox's user ids."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            uid = os.stat(f"/proc/{entry}").st_uid
        except OSError:
            continue
        if UID_BASE <= uid < UID_BASE + UID_COUNT:
            found.append(int(entry))
    return found
