"""The types that cross layers: a bot to run, a match to play and its result, and the words for how
things end.

The referee makes these; the tournament, the store, the registry, the report and the narration
read them. They live here, below all of their users, so that reading a result never imports the
code that plays a match (STYLE.md: types that cross layers belong in a module below their users).

How things end is data, not free text (STYLE.md: ``Termination`` in python-chess). Each ending has one
enum, str-valued, whose values are the exact words of the wire protocol, the match records and the
store's columns, so a member compares equal to the stored word and stored data never changes:

- ``Fault``: what a bot did wrong, the forfeit reason (PROTOCOL.md §5). The protocol owns these
  words (``protocol.messages.Fault``); this is the same enum, not a copy. A bot that cannot even be
  started is an ``EXIT`` fault: the wire has no other word for it, and records already say so.
- ``DealEnding``: how a deal ended (PROTOCOL.md §4.3, RULES.md §7): the engine's ``SettleReason``.
- ``MatchEnding``: how a match ended as the referee records it: the engine's ``MatchEnd`` (the
  ``match_end`` reasons of PROTOCOL.md §4.4) plus ``NO_CONTEST`` and ``DECLINED``, which only the
  referee knows (neither bot started, or a bot declined an N-seat variant: the engine never got to
  play).

Results are per seat (``seats``: 2, 3 or 4) and per side (``game_points``, ``winner``): with two or
three players a side is a seat, with four a partnership (RULES.md §10.3, PROTOCOL.md §9).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from arena.game import DealResult, MatchState
from arena.game.match import MatchEnd
from arena.game.scoring import SettleReason
from protocol.messages import Fault

if TYPE_CHECKING:  # only an annotation here: reading a result must not load the sandbox
    from arena.isolation.launch import Report

__all__ = ["BotSpec", "ConfigError", "DealEnding", "Fault", "MatchEnding", "MatchResult",
           "SeatStats"]

DealEnding = SettleReason


class MatchEnding(StrEnum):
    """How a match ended (the ``reason`` of a result, a record's ``result`` line, the store's
    ``matches.reason``). The first three are the engine's ``MatchEnd``, value for value."""

    TARGET = MatchEnd.TARGET.value          # a player reached the match target
    FORFEIT = MatchEnd.FORFEIT.value        # a player forfeited: see the result's fault
    DEAL_LIMIT = MatchEnd.DEAL_LIMIT.value  # the arena's cap on deals per match was reached
    NO_CONTEST = "no_contest"               # neither bot started: nothing was played
    DECLINED = "declined"                   # a bot declined the N-seat variant (PROTOCOL.md §9):
                                            # nothing was played and nobody forfeits

    def __repr__(self) -> str:
        return f"MatchEnding.{self.name}"


class ConfigError(ValueError):
    """Tournament settings that cannot run; raised before anything is played. Here, not in
    tournament.py, because cluster.py raises it too (``ClusterError``) and must not import the
    module that imports it."""


@dataclass(frozen=True)
class BotSpec:
    """A bot to run: its display name and the argument list that starts it (no shell)."""

    name: str
    argv: tuple[str, ...]
    folder: str | None = None     # a registered bot's files, copied in as its working folder
    workdir: str = "."            # where in that folder the command runs
    version: str = ""             # a registered bot's content hash


@dataclass
class SeatStats:
    """What the referee saw of one seat, beyond the score."""

    name: str = ""
    correct_claims: int = 0
    wrong_claims: int = 0
    missed_claims: int = 0  # claim windows in which the seat had 66 and did not claim
    decision_ms: list[float] = field(default_factory=list)
    sandbox: Report | None = None  # how the process ended (status, processes left running)

    def timing(self) -> dict[str, float]:
        times = sorted(self.decision_ms)
        if not times:
            return {"decisions": 0}
        p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
        return {"decisions": len(times), "median_ms": round(statistics.median(times), 3),
                "p99_ms": round(p99, 3), "max_ms": round(times[-1], 3)}


@dataclass
class MatchResult:
    match_id: str
    # The winning side (a seat with two or three players). None: no contest, a decline, a tie at
    # the deal limit, or a forfeit with three players (two others remain: RULES.md §10.4).
    winner: int | None
    reason: MatchEnding
    game_points: tuple[int, ...]  # per side (RULES.md §10: more than two with three players)
    deals: tuple[DealResult, ...]
    seats: tuple[SeatStats, ...]  # per seat, in seat order
    offender: int | None = None   # the seat that forfeited
    fault: Fault | None = None    # set exactly when reason is FORFEIT
    detail: str = ""
    line: str | None = None       # the offending line, when there was one
    record_path: Path | None = None
    state: MatchState | None = None
    play_ms: float = 0.0          # from the first deal to the end: the match without start-up
    declined: tuple[int, ...] = ()  # seats that declined the variant (reason DECLINED)

    @property
    def players(self) -> int:
        return len(self.seats)


@dataclass(frozen=True)
class ScheduledMatch:
    """One match to play. ``order`` is its place in the schedule: ratings are updated in this order,
    whatever order the workers finish in."""

    order: int
    match_id: str
    seats: tuple[str, ...]  # bot name per seat (2, 3 or 4 seats)
    deal_set: str           # label of the match's deals (shared by every seating of one set)
    first_dealer: int
    group: tuple[str, ...]  # the bots the set is for, in tournament order (the pairing with two)
    set_index: int          # which deal set of this group (the duplicate pair with two players)
    seating: int            # which seating of the set; with two players 1 is the swapped match

    @property
    def seat0(self) -> str:
        return self.seats[0]

    @property
    def seat1(self) -> str:
        return self.seats[1]

    @property
    def pairing(self) -> tuple[str, ...]:
        return self.group

    @property
    def pair_index(self) -> int:
        return self.set_index

    @property
    def swapped(self) -> bool:
        return self.seating == 1
