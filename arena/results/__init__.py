"""Results: the SQLite store of a tournament or league, and what is derived from it.

``store`` is the one writer's store (matches, deals, seats, the secret deal key); ``ratings``
derives TrueSkill ratings and the leaderboard from it; ``stats`` says what is noise (intervals,
Elo, likelihood of superiority).

May import: arena.game, arena.match, arena.types, arena.arena_folders
"""
