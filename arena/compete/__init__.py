"""Competitions: who plays whom, where the matches run, and the runs that store their results.

``single_match`` plays the one match ``arena play`` asks for; ``schedule`` and ``play_order`` plan
a round robin; ``tournament`` runs one on a local ``pool`` of workers or a Dask ``cluster`` (each
match a ``match_job``), holding its folder with ``folder_lock`` and telling the leader with
``live_leader``; ``league`` keeps a standing ladder playing (its settings
``league_config``, its members ``league_members``, its tables ``league_store``), chosen by
``matchmaking``, published by ``league_publish``; ``sprt`` tests a new version against its base,
``sprt_run`` runs that test in a folder (a tournament the test stops, resumable); ``demo`` is
``arena demo``'s choice of bots, sandbox and folder, and its in-process match of random players.

May import: arena.game, arena.isolation, arena.match, arena.results, arena.entrants, arena.report,
arena.types, arena.arena_folders, arena.temp_folders, arena.console
"""
