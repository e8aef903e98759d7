"""One match job, played anywhere: in a local worker process (``tournament.py``) or on a Dask worker
(``cluster.py``).

A job is everything a worker needs to play one scheduled match and write its record; playing it
returns the result slimmed for the trip back to the coordinator. It lives below both runners, so
neither imports the other for it (STYLE.md, "Our own house").
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

from arena.game import Rules
from arena.isolation import levels, probe, zygote
from arena.match.bot_process import Limits
from arena.match.referee import MatchConfig, run_match
from arena.results.store import MatchRows, match_rows
from arena.types import BotSpec, MatchResult, ScheduledMatch

# The tournament's logger: a match's line in tournament.log reads as it did before the move.
log = logging.getLogger("arena.compete.tournament")


@dataclass(frozen=True)
class MatchJob:
    entry: ScheduledMatch
    deal_secret: str    # deal_keys.deal_secret of the entry's deal set: workers never see the key
    bots: tuple[BotSpec, ...]  # one per seat: 2, 3 or 4 (a bot partnering itself fills two)
    rules: Rules
    limits: Limits
    max_deals: int
    record: Path
    log_dir: Path


def log_stored(matches: Sequence[tuple[ScheduledMatch, MatchRows]]) -> None:
    """The lines of matches just committed together, in tournament.log: one record for the group
    (a record each was a tenth of the coordinator's CPU per match of cheap bots, issue 18)."""
    if not matches or not log.isEnabledFor(logging.INFO):
        return
    lines = [f"match {entry.match_id} {entry.seat0} vs {entry.seat1}: {match.reason}, winner seat "
             f"{match.winner}" if len(entry.seats) == 2 else
             f"match {entry.match_id} {' | '.join(entry.seats)}: {match.reason}, winner side "
             f"{match.winner}" for entry, match in matches]
    if len(lines) == 1:
        log.info("%s", lines[0])
    else:
        log.info("%d matches stored:\n  %s", len(lines), "\n  ".join(lines))


def prepare_worker(bots: tuple[BotSpec, ...], found: levels.Support | None = None) -> None:
    """Runs in a worker process as it starts (``Pool(on_start=...)``): takes the sandbox level
    the coordinator found (``found``; probes it when None) and boots the worker's zygote when a
    bot will start from it, which its first match did before (~0.2 s of wall time; the pool now
    starts beside the pre-flight, so this overlaps it)."""
    if found is not None:
        probe.adopt(found)
    if any(zygote.serves(bot.argv) for bot in bots) and probe.support().mode != "limits":
        zygote.get([bot.argv for bot in bots])


def play_job(job: MatchJob) -> MatchResult:
    """Runs in a worker process: one match, its record written by the referee as it goes."""
    result = _run(job)
    # The match's line in tournament.log is written by the coordinator as it stores the result
    # (log_stored): sent from here it cost a second message per match (issue 18).
    # The coordinator stores settlements: the final states, each deal's event log and its pack
    # order would only cost pickling (the record on disk keeps every event and every order).
    return replace(result, state=None,
                   deals=tuple(replace(d, final=None, order=()) for d in result.deals))


def play_for_store(job: MatchJob) -> MatchRows:
    """Runs in a worker process: one match, returned as the store's rows (``store.match_rows``),
    which the coordinator inserts as they are: it unpickles a few tuples instead of a result's
    objects (issue 18). The record's path is relative to the tournament's folder."""
    return match_rows(job.entry, _run(job), record=f"records/{job.record.name}")


def _run(job: MatchJob) -> MatchResult:
    entry = job.entry
    config = MatchConfig(rules=job.rules, seed=job.deal_secret, first_dealer=entry.first_dealer,
                         match_id=entry.match_id, limits=job.limits, max_deals=job.max_deals,
                         private=(job.log_dir.parent,))  # the tournament's folder: its database
    return run_match(job.bots, config, record_path=job.record, log_dir=job.log_dir)
