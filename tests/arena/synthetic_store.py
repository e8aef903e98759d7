"""A results store with many bots, filled through the real ``Store`` API with made-up match results.

A real tournament of thirty bots would take minutes; the report's layout only needs a store shaped
like a real one. Bots have a hidden strength; each deal goes to the stronger bot more often, ends in
one of the ways the engine settles deals, and scores like one. A few bots forfeit now and then.
"""

from __future__ import annotations

import random
from pathlib import Path

from arena.game.match import DealResult
from arena.game.scoring import DealSettlement, SettleReason
from arena.referee import MatchResult, SeatStats
from arena.schedule import round_robin
from arena.store import Store

NAMES = [
    "greedy", "c-counter", "random", "first-legal", "mcts", "mcts-fast", "alpha66",
    "monte-carlo-tree-search-with-determinization-v2", "pimc", "pimc-64", "expectiminimax",
    "rule-based", "rule-based-2", "schnapsi", "trumpf", "ober", "unter", "marriage-hunter",
    "closer", "never-close", "cautious", "bold", "counter-v3", "counter-v4", "nn-policy",
    "nn-policy-large", "tabular-q", "sarsa", "heuristic-fr", "x",
]
MATCH_TARGET = 7
FAULTS = ("timeout", "illegal_action", "exit")


def _deal(rng: random.Random, deal_no: int, winner: int, totals: list[int]) -> DealResult:
    loser = 1 - winner
    reason = rng.choices([SettleReason.CLAIM, SettleReason.CLAIM_AGAINST_CLOSE,
                          SettleReason.WRONG_CLAIM, SettleReason.CLOSE_FAILED,
                          SettleReason.HIGHER_TOTAL], weights=[70, 5, 12, 8, 5])[0]
    points = rng.choice([1, 1, 1, 2, 2, 3]) if reason is SettleReason.CLAIM else 2
    claimant = {SettleReason.CLAIM: winner, SettleReason.CLAIM_AGAINST_CLOSE: winner,
                SettleReason.WRONG_CLAIM: loser}.get(reason)
    closer = {SettleReason.CLOSE_FAILED: loser, SettleReason.CLAIM_AGAINST_CLOSE: loser}.get(reason)
    totals[winner] += points
    settlement = DealSettlement(reason=reason, winner=winner, game_points=points, claimant=claimant,
                                closer=closer, totals=(66, 40) if winner == 0 else (40, 66),
                                tricks=(3, 2), last_trick_winner=None)
    return DealResult(deal_no=deal_no, dealer=deal_no % 2, order=(), settlement=settlement,
                      awarded=points, pot_after=0, game_points_after=(totals[0], totals[1]),
                      final=None)


def fill(path: Path, bots: int = 30, matches_per_pairing: int = 2, seed: int = 7,
         names: list[str] | None = None) -> list[str]:
    """A finished synthetic round robin of ``names`` (default: the first ``bots`` NAMES) in a new
    store at ``path``."""
    names = names or NAMES[:bots]
    rng = random.Random(seed)
    strength = {n: rng.gauss(0, 1) for n in names}
    flaky = set(names[3::7])  # these forfeit a match now and then
    store = Store.open(path)
    try:
        store.begin_tournament("synthetic", {"name": "synthetic", "bots": names,
                                             "profile": "sixty_six", "rules": {},
                                             "matches_per_pairing": matches_per_pairing,
                                             "seed": seed})
        store.register_bots([(n, ["./" + n], "") for n in names])
        for entry in round_robin("synthetic", names, matches_per_pairing // 2):
            seats = (entry.seat0, entry.seat1)
            edge = strength[seats[0]] - strength[seats[1]]
            p0 = 1 / (1 + 10 ** (-edge / 2))
            totals = [0, 0]
            deals = []
            offender = fault = None
            while max(totals) < MATCH_TARGET:
                for seat in (0, 1):
                    if seats[seat] in flaky and rng.random() < 0.02:
                        offender, fault = seat, rng.choice(FAULTS)
                if offender is not None:
                    break
                deals.append(_deal(rng, len(deals) + 1, 0 if rng.random() < p0 else 1, totals))
            stats = tuple(SeatStats(seats[s], correct_claims=rng.randrange(6),
                                    wrong_claims=rng.randrange(2), missed_claims=rng.randrange(3),
                                    decision_ms=[rng.uniform(0.1, 5) for _ in range(40)])
                          for s in (0, 1))
            if offender is not None:
                result = MatchResult(entry.match_id, 1 - offender, "forfeit", (totals[0], totals[1]),
                                     tuple(deals), stats, offender=offender, fault=fault,
                                     detail=f"made-up {fault}")
            else:
                result = MatchResult(entry.match_id, 0 if totals[0] > totals[1] else 1, "target",
                                     (totals[0], totals[1]), tuple(deals), stats)
            store.record_match(entry, result, record=f"records/{entry.match_id}.jsonl")
    finally:
        store.close()
    return names
