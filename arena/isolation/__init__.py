"""Isolation: how an untrusted bot process is confined, and where the arena's workers run.

``sandbox`` is the ``Sandbox`` a bot process runs in (and ``run_command`` for a build); it takes
the level from ``probe`` (which level this process runs bots at, found once and never lowered,
and whether its limits hold there) and has ``launch`` make one sandboxed start (folder, user id,
cgroup, the launcher's command line and report). Below them: ``levels`` (the levels' names and
``SandboxUnavailable``), ``limits`` (a bot's resource limits), ``allow_list`` (what of the machine
a bot's root holds), ``bot_folders`` (user-id leases, bot folders, sweeping and removing them),
``launcher`` (builds and trusts ``sandbox_launch.c``, the small C launcher that enters the
sandbox, and a bot's environment), ``zygote`` (forks Python bots from a pre-imported interpreter
inside the same sandbox), ``cgroups`` (caps a bot's memory and processes as a whole) and
``worker_cores`` (keeps each worker of a local run on a core of its own).

May import: arena.arena_folders, arena.temp_folders
"""
