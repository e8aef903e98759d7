"""What every kit's suite test checks of its matches (issue 33's acceptance): ``MATCHES`` matches
against greedy in one profile, the kit in every seat in turn, through the real referee and sandbox,
with no fault, no wrong claim and no claim window at the target let pass."""

from __future__ import annotations

from pathlib import Path

from arena.entrants.bot_specs import resolve_bot
from arena.game import profile
from arena.match.referee import MatchConfig, run_match
from arena.types import BotSpec

MATCHES = 20  # per profile: the acceptance figure


def play_against_greedy(kit: BotSpec, profile_name: str, tmp_path: Path, label: str) -> None:
    rules = profile(profile_name)
    for i in range(MATCHES):
        seat = i % rules.players  # every seat in turn; greedy in the others
        bots = [resolve_bot("greedy") for _ in range(rules.players)]
        bots[seat] = kit
        record = tmp_path / f"m{i}.jsonl"
        result = run_match(bots, MatchConfig(rules=rules, seed=i, match_id=f"{label}-{i}"),
                           record)
        where = f"match {i} (seat {seat}, record {record})"
        assert result.fault is None, f"{where}: {result.fault} by seat {result.offender}: " \
                                     f"{result.detail} {result.line!r}"
        assert str(result.reason) in ("target", "deal_limit"), f"{where}: {result.reason}"
        stats = result.seats[seat]
        # The count is the kit's own (RULES.md §3): never a claim below the target, and, since it
        # claims the moment it reaches it, never a window at the target let pass.
        assert stats.wrong_claims == 0, f"{where}: {stats.wrong_claims} wrong claim(s)"
        assert stats.missed_claims == 0, f"{where}: {stats.missed_claims} missed claim(s)"
        assert stats.decision_ms, f"{where}: the kit was never asked to decide"
