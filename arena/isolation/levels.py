"""The isolation levels by name, what a probe found (``Support``), and the refusal when the level
asked for cannot be had (``SandboxUnavailable``): no bot runs then, never one at a weaker level.

Below everything that builds a sandbox or probes for one: the allow-list and a bot's launch refuse
with the same error as the probe, which starts a sandboxed program to find the level.
"""

from __future__ import annotations

from dataclasses import dataclass

LEVELS = ("isolated", "namespaces", "limits")  # strongest first
ISOLATION_ENV = "ARENA_ISOLATION"


@dataclass(frozen=True)
class Support:
    mode: str                 # "isolated", "namespaces" or "limits": what bots run in
    reason: str = ""          # why a stronger level is not available or not used
    requested: str = "isolated"


class SandboxUnavailable(RuntimeError):
    """The isolation level asked for cannot be had on this machine: no bot may run."""


def check_level(level: str) -> str:
    """``level`` if it names an isolation level, else ``ValueError`` listing them."""
    if level not in LEVELS:
        raise ValueError(f"unknown isolation level {level!r}; levels: {', '.join(LEVELS)}")
    return level
