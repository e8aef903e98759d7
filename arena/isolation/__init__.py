"""Isolation: how an untrusted bot process is confined, and where the arena's workers run.

``sandbox`` builds a bot's root from an allow-list, its own user id, resource limits and the
isolation levels (isolated, namespaces, limits); ``sandbox_launch.c`` is the small C launcher that
enters it; ``zygote`` forks Python bots from a pre-imported interpreter inside the same sandbox;
``cgroups`` caps a bot's memory and processes as a whole; ``worker_cores`` keeps each worker of a
local run on a core of its own.

May import: arena.arena_folders
"""
