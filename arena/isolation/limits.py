"""What a bot may use: its resource limits (``SandboxLimits``: a tournament's ``[sandbox]``
table, ``--limit KEY=VALUE``), and setting them as the kernel's limits of a process.

A settings file's limits are read and checked long before a bot starts, by code that has no
business with namespaces or launchers: this is all it needs. The launcher (``sandbox_launch.c``)
sets the same kernel limits in C; ``apply_limits`` is the ``limits`` level's stand-in for it.
Where a bot gets a cgroup (``cgroups.py``), that caps its memory and processes as a whole instead.
"""

from __future__ import annotations

import resource
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Mapping, Sequence


@dataclass(frozen=True)
class SandboxLimits:
    """Limits of a bot (0: unlimited). Tournaments override them with ``[sandbox]``.

    Where the bot gets a cgroup (``cgroups.py``), ``memory_mb`` and ``processes`` cap the whole bot,
    all its processes together; elsewhere they are per process (address space) and per user id.
    ``cores`` needs the cgroup: without one it is not held."""

    cpu_s: int = 300          # CPU seconds for the whole match (SIGXCPU, then SIGKILL)
    memory_mb: int = 2048     # the bot's memory (cgroup), else each process's address space
    processes: int = 128      # the bot's processes and threads (fork bombs stop here)
    file_mb: int = 64         # largest file the bot may write (SIGXFSZ beyond)
    open_files: int = 512     # open file descriptors
    workdir_mb: int = 64      # what it may write beyond its own files: folder, /tmp, /dev/shm (ENOSPC)
    cores: int = 1            # cores' worth of CPU time its processes may use at once (cgroup)
    # 1: where the bot gets no cgroup, memory_mb may cap each process alone (``check_memory``)
    memory_per_process: int = 0

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> "SandboxLimits":
        """From a settings table; unknown keys and bad values raise ``ValueError`` naming them."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown sandbox limit(s): {', '.join(unknown)}; known: "
                             f"{', '.join(sorted(known))}")
        for key, value in values.items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"sandbox limit {key} must be a whole number >= 0 (0: unlimited), "
                                 f"not {value!r}")
        if values.get("memory_per_process", 0) > 1:
            raise ValueError(f"sandbox limit memory_per_process is 0 or 1 (an opt-in), not "
                             f"{values['memory_per_process']!r}")
        return replace(cls(), **dict(values))

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


RESOURCES = {  # limit -> (resource, scale to the kernel's unit); sandbox_launch.c has the same
    "cpu_s": (resource.RLIMIT_CPU, 1),
    "memory_mb": (resource.RLIMIT_AS, 1 << 20),
    "processes": (resource.RLIMIT_NPROC, 1),
    "file_mb": (resource.RLIMIT_FSIZE, 1 << 20),
    "open_files": (resource.RLIMIT_NOFILE, 1),
}


def apply_limits(limits: Mapping[str, int]) -> None:
    """Resource limits for the calling process and its children (0: leave unlimited); the
    ``limits`` mode's stand-in for the launcher."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crashing bot writes no core file
    for key, (which, scale) in RESOURCES.items():
        value = int(limits.get(key, 0))
        if value > 0:
            # CPU: SIGXCPU at the soft limit, SIGKILL one second later for a bot that catches it.
            hard = value + 1 if key == "cpu_s" else value
            resource.setrlimit(which, (value * scale, hard * scale))


def parse_limits(items: Sequence[str]) -> dict[str, int]:
    """``KEY=VALUE`` options (``--limit cpu_s=60``) as a table for ``SandboxLimits.from_mapping``."""
    table: dict[str, int] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not value.strip().isdigit():
            raise ValueError(f"a limit is KEY=NUMBER, like cpu_s=60, not {item!r}")
        table[key.strip()] = int(value)
    SandboxLimits.from_mapping(table)  # names the unknown key, if any
    return table


# Where a bot gets no cgroup, a memory_mb that caps each process alone holds only by this
# opt-in (``check_memory``).
PER_PROCESS_OPT_IN = "--limit memory_per_process=1"
# The same opt-in for a shell, and for `arena play`, which has no --limit: "1"
PER_PROCESS_ENV = "ARENA_MEMORY_PER_PROCESS"
