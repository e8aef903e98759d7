"""The ``arena`` command line (Typer): commands parse, check and delegate to the layer that works.

``main`` holds the app and the ``rules`` commands and registers the others: ``play`` (``play``,
``replay``), ``tournament`` (``tournament``, ``demo``), ``report`` (``leaderboard``, ``report``,
``publish``), ``bots`` (``submit``, ``bots``), ``league``, ``sprt``, ``serve`` (the
competition website, ``arena.web``), and a bot author's
``check`` (``arena check``) and ``new`` (``arena new``); ``options`` the options
several commands share; ``common`` what several commands do alike (the isolation check, writing a
report, printing a leaderboard). The work is below: a command parses, calls it and prints.

May import: arena.game, arena.isolation, arena.match, arena.results, arena.entrants, arena.report,
arena.compete, arena.web, arena.types, arena.arena_folders, arena.temp_folders, arena.console
"""
