"""The rules engine: pure, immutable, no I/O and no processes (a leaf of the project).

Data flow: ``rules`` (a profile) -> ``dealing`` (seeded order) -> ``state.DealState`` (one deal) ->
``match.MatchState`` (deals to the target) -> ``observation.observe`` (what a seat may see).

May import: nothing else of the arena
"""

from typing import TYPE_CHECKING, Any

from arena.game.actions import CLAIM, CLOSE, EXCHANGE, PASS, Action, ActionKind, Decision
from arena.game.cards import CARDS, PACKS, Card, Rank, Suit
from arena.game.errors import IllegalActionError
from arena.game.events import Event, EventKind
from arena.game.rules import PROFILES, Rules, RulesError, load_rules, profile
from arena.game.scoring import DealSettlement, SettleReason

if TYPE_CHECKING:
    from arena.game.dealing import deal_layout, shuffled_order
    from arena.game.match import (
        DealResult,
        MatchEnd,
        MatchOutcome,
        MatchState,
        replay,
        replay_states,
    )
    from arena.game.observation import Observation, observe
    from arena.game.state import DealState

# The deal and match machinery is imported on first use (PEP 562): a bot that only speaks the
# protocol needs cards, actions and rules, and every bot process pays for what it imports at start.
_LAZY = {
    "deal_layout": "dealing", "shuffled_order": "dealing",
    "DealResult": "match", "MatchEnd": "match", "MatchOutcome": "match", "MatchState": "match",
    "replay": "match", "replay_states": "match",
    "Observation": "observation", "observe": "observation",
    "DealState": "state",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'arena.game' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"arena.game.{module}"), name)
    globals()[name] = value
    return value

__all__ = [
    "CARDS", "CLAIM", "CLOSE", "EXCHANGE", "PACKS", "PASS", "PROFILES", "Action", "ActionKind", "Card",
    "DealResult", "DealSettlement", "DealState", "Decision", "Event", "EventKind", "IllegalActionError",
    "MatchEnd", "MatchOutcome", "MatchState", "Observation", "Rank", "Rules", "RulesError",
    "SettleReason", "Suit", "deal_layout", "load_rules", "observe", "profile", "replay", "replay_states",
    "shuffled_order",
]


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
