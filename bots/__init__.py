"""Bots bundled with the arena. Each Python bot is a module, started as its own process through
``start.py``: it speaks the wire protocol on stdin/stdout like any other bot, so the referee treats
it as a stranger."""

from __future__ import annotations

import os
import sys

# Not pathlib: every bundled bot imports this package when it starts, and pathlib costs ~10 ms.
START = os.path.join(os.path.dirname(os.path.realpath(__file__)), "start.py")

BUNDLED_PYTHON: dict[str, str] = {
    "random": "bots.random_bot",
    "greedy": "bots.greedy_bot",
    "strong": "bots.strong",
}
"""Bundled Python bots: name -> module."""

# The rules profiles each bundled bot plays (as a submitted bot's manifest declares them: see
# arena/entrants/manifest.py). Names, not imports of arena.game: a bot starting up must not load the engine.
TWO_PLAYER_PROFILES = ("sixty_six", "schnapsen", "vu_compat")
EVERY_PROFILE = TWO_PLAYER_PROFILES + ("three_player", "four_player")
BUNDLED_PROFILES: dict[str, tuple[str, ...]] = {
    "random": EVERY_PROFILE,
    "greedy": EVERY_PROFILE,
    "strong": EVERY_PROFILE,
    "c-counter": EVERY_PROFILE,       # kits/c's sample bot, built by bots/c/Makefile
    "first-legal": EVERY_PROFILE,     # answers every request with its first action, any variant
    "first-legal-c": TWO_PLAYER_PROFILES,
}
"""Bundled bots (Python and C): name -> the profiles it plays."""


def python_bot_command(name: str, *options: str) -> list[str]:
    """The argument list that starts bundled Python bot ``name`` with this interpreter."""
    try:
        module = BUNDLED_PYTHON[name]
    except KeyError:
        raise ValueError(f"no bundled Python bot named {name!r}; bundled: "
                         f"{', '.join(sorted(BUNDLED_PYTHON))}") from None
    return [sys.executable, "-I", "-S", START, module, *options]
