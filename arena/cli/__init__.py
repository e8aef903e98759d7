"""The ``arena`` command line (Typer): commands parse, check and delegate to the layer that works.

``main`` holds the app and the commands of a match, a tournament and a report; ``bots`` the
registry's (``submit``, ``bots``); ``league``, ``sprt`` and ``serve`` theirs; ``options`` the
options several commands share; ``common`` what several commands do alike (the isolation check,
writing a report).

May import: arena.game, arena.isolation, arena.match, arena.results, arena.entrants, arena.report,
arena.compete, arena.web, arena.types, arena.arena_folders, arena.console
"""
