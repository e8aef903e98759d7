"""Entrants: who may play, and how a name or a folder becomes a bot to run.

``bot_specs`` turns what a user types into a bot to run; ``manifest`` reads a bot's ``bot.toml``;
``registry`` keeps the submitted bots; ``submit`` builds, qualifies and registers one
(``qualify``: quick matches under real limits, then ``arena check``'s situations); ``check``
resolves a bot for ``arena check``; ``kits`` makes a bot folder from a starter kit (``arena new``);
``preflight`` starts every bot of a run once before its first match.

May import: arena.game, arena.isolation, arena.match, arena.types, arena.arena_folders,
arena.temp_folders
"""
