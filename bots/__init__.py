"""Bots bundled with the arena. Each Python bot is a module run as ``python -m <module>``: it speaks
the wire protocol on stdin/stdout like any other bot, so the referee treats it as a stranger."""

from __future__ import annotations

import sys

BUNDLED_PYTHON: dict[str, str] = {
    "random": "bots.random_bot",
    "greedy": "bots.greedy_bot",
    "strong": "bots.strong",
}
"""Bundled Python bots: name -> module."""


def python_bot_command(name: str) -> list[str]:
    """The argument list that starts bundled Python bot ``name`` with this interpreter."""
    try:
        module = BUNDLED_PYTHON[name]
    except KeyError:
        raise ValueError(f"no bundled Python bot named {name!r}; bundled: "
                         f"{', '.join(sorted(BUNDLED_PYTHON))}") from None
    return [sys.executable, "-m", module]
