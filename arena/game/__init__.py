"""The rules engine: pure, immutable, no I/O and no processes (a leaf of the project).

Data flow: ``rules`` (a profile) -> ``dealing`` (seeded order) -> ``state.DealState`` (one deal) ->
``match.MatchState`` (deals to the target) -> ``observe`` (what a seat may see).
"""

from arena.game.actions import CLAIM, CLOSE, EXCHANGE, PASS, Action, ActionKind, Decision
from arena.game.cards import CARDS, PACKS, Card, Rank, Suit
from arena.game.dealing import deal_layout, shuffled_order
from arena.game.errors import IllegalActionError
from arena.game.events import Event, EventKind
from arena.game.match import DealResult, MatchEnd, MatchOutcome, MatchState, replay, replay_states
from arena.game.observe import Observation, observe
from arena.game.rules import PROFILES, Rules, RulesError, load_rules, profile
from arena.game.scoring import DealSettlement, SettleReason
from arena.game.state import DealState

__all__ = [
    "CARDS", "CLAIM", "CLOSE", "EXCHANGE", "PACKS", "PASS", "PROFILES", "Action", "ActionKind", "Card",
    "DealResult", "DealSettlement", "DealState", "Decision", "Event", "EventKind", "IllegalActionError",
    "MatchEnd", "MatchOutcome", "MatchState", "Observation", "Rank", "Rules", "RulesError",
    "SettleReason", "Suit", "deal_layout", "load_rules", "observe", "profile", "replay", "replay_states",
    "shuffled_order",
]
