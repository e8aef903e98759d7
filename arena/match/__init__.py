"""One match: the referee, the bot processes it speaks to, its deals and its record.

``referee`` runs a match between 2, 3 or 4 ``bot_process`` children on the engine (``arena.game``);
``deal_keys`` derives every deal from a secret key; ``records`` writes and reads the match record
(JSON Lines, the raw truth); ``narrate`` tells a match as text, deal by deal; ``conformance``
plays the scripted ``situations`` through the referee and judges a bot's every answer (``arena
check``); ``phases`` says where a match's time goes when a benchmark asks (``ARENA_PHASES``).

May import: arena.game, arena.isolation, arena.types, arena.arena_folders, arena.temp_folders,
arena.console
"""
