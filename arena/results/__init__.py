"""Results: the SQLite store of a tournament or league, and what is derived from it.

``store`` is the one writer's store (matches, deals, seats, the secret deal key); ``ratings``
derives TrueSkill ratings and the leaderboard from it; ``stats`` says what is noise (intervals,
Elo, likelihood of superiority); ``rating_replay`` replays TrueSkill match by match, and continues
a replay; ``league_ladder`` is the ratings table a running league keeps beside its matches;
``tables`` writes a store's leaderboard as text in the formats the command line prints.

May import: arena.game, arena.match, arena.types, arena.arena_folders
"""
