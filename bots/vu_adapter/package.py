"""Loading the ``schnapsen`` package's engine and bots, and translating cards and moves.

The package's ``schnapsen/bots/__init__.py`` imports every bot it ships, among them an ML bot
(scikit-learn, joblib) and a web GUI (Flask): seconds of start-up, and dependencies whose exact
pins clash with the arena's lock. The bots used here (``rand``, ``bully``, ``rdeep``, ``alphabeta``)
need nothing but ``schnapsen.game`` and the standard library, so ``schnapsen.bots`` is registered
as a bare package of its folder and only their modules are imported from it: the package's own
code, unchanged, without its ``__init__``. So ``pip install --no-deps schnapsen==0.0.5`` is all
the adapter needs (``requirements-vu.txt``).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import types
from typing import Any

from arena.game import Card, Rank, Suit

VERSION = "0.0.5"
"""The release RULES.md §13 was read from and ``vu_compat`` agrees with."""


class PackageMissing(RuntimeError):
    """The ``schnapsen`` package (the right release) is not importable by this Python."""


def load() -> types.SimpleNamespace:
    """The package's modules this adapter uses: ``game``, ``deck``, ``rand``, ``bully``, ``rdeep``,
    ``alphabeta``. Raises ``PackageMissing`` when it is not installed, or another release is."""
    try:
        from importlib.metadata import PackageNotFoundError, version
        found = version("schnapsen")
    except PackageNotFoundError:
        raise PackageMissing(f"the schnapsen package is not installed for {sys.executable} "
                             f"(pip install --no-deps schnapsen=={VERSION}; scripts/bench_vu.py "
                             "makes .venv-vu with it)") from None
    if found != VERSION:
        raise PackageMissing(f"schnapsen {found} is installed for {sys.executable}; the adapter "
                             f"and the vu_compat profile are written for {VERSION}")
    spec = importlib.util.find_spec("schnapsen")
    assert spec is not None and spec.submodule_search_locations
    if "schnapsen.bots" not in sys.modules:
        bots = types.ModuleType("schnapsen.bots")
        bots.__path__ = [os.path.join(list(spec.submodule_search_locations)[0], "bots")]
        bots.__package__ = "schnapsen.bots"
        sys.modules["schnapsen.bots"] = bots
    names = {"game": "schnapsen.game", "deck": "schnapsen.deck", "rand": "schnapsen.bots.rand",
             "bully": "schnapsen.bots.bully_bot", "rdeep": "schnapsen.bots.rdeep",
             "alphabeta": "schnapsen.bots.alphabeta"}
    return types.SimpleNamespace(**{key: importlib.import_module(module)
                                    for key, module in names.items()})


class Cards:
    """Our cards <-> the package's (``schnapsen.deck.Card``), for the 20-card pack."""

    def __init__(self, vu: types.SimpleNamespace):
        deck = vu.deck
        ranks = {Rank.ACE: deck.Rank.ACE, Rank.TEN: deck.Rank.TEN, Rank.KING: deck.Rank.KING,
                 Rank.QUEEN: deck.Rank.QUEEN, Rank.JACK: deck.Rank.JACK}
        suits = {Suit.CLUBS: deck.Suit.CLUBS, Suit.SPADES: deck.Suit.SPADES,
                 Suit.HEARTS: deck.Suit.HEARTS, Suit.DIAMONDS: deck.Suit.DIAMONDS}
        self.suit_to_vu = suits
        self.to_vu: dict[Card, Any] = {Card(s, r): deck.Card.get_card(vr, vs)
                                       for r, vr in ranks.items() for s, vs in suits.items()}
        self.from_vu: dict[Any, Card] = {v: k for k, v in self.to_vu.items()}
        self.suit_from_vu = {v: k for k, v in suits.items()}
