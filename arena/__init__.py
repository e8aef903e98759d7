"""Sixty-Six Arena: a tournament runner and bot-competition platform for Sixty-Six and Schnapsen.

The packages, each a job, lowest layer first (a package imports only those below it, as its own
``__init__`` says; ``tests/test_architecture.py`` holds every import to that and finds no circle):

- ``game``: the rules engine, pure (no I/O, no processes);
- ``isolation``: confining a bot process (the sandbox, its C launcher, the zygote, cgroups, cores);
- ``match``: one match (the referee, bot processes, deal keys, records, narration);
- ``results``: the SQLite store and what is derived from it (ratings, statistics);
- ``entrants``: who may play (bot specs, manifests, the registry, submitting, qualifying);
- ``report``: the report's charts and static pages, and publishing them;
- ``compete``: tournaments, leagues and SPRT runs, their schedules, workers and clusters;
- ``web``: the competition's website and JSON API (``arena serve``);
- ``cli``: the ``arena`` command line.

Beside them, modules every layer may use:

- ``arena_folders``: the arena's private and public folders and their permissions (imports none);
- ``console``: writing to a terminal, safely (imports none);
- ``temp_folders``: its temporary folders, and those of a killed arena removed (imports none);
- ``types``: the values that cross layers (May import: arena.game, arena.isolation);
- ``__main__``: the console script's entry point (May import: arena.cli).

The data flow of one match: ``compete`` schedules it and hands a ``match_job`` to a worker, which
starts each bot through ``isolation`` and has ``match.referee`` play it on the ``game`` engine,
writing its record; the coordinator stores the result in ``results.store``; ``report`` and the
league's publishing read the store.
"""

__version__ = "0.1.0"
