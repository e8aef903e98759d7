"""One match between the bots a user names (``arena play``): its rules, its seats, its deals and
where its record goes, each checked before any bot runs, then the match itself.

Each step raises ``PlayError`` with the line to show (exit 2 at the command line): the command
calls them in order and prints between them, so what it says comes in the order it always did.
"""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Sequence

from arena.arena_folders import not_a_folder, private_folder
from arena.entrants.bot_specs import BotSpecError, resolve_bot
from arena.entrants.preflight import PreflightError, problems, raise_problems
from arena.game import Rules, RulesError, load_rules
from arena.isolation.levels import SandboxUnavailable
from arena.isolation.probe import check_memory
from arena.match.bot_process import Limits
from arena.match.deal_keys import deal_secret, key_from_seed, new_key, new_match_id
from arena.match.referee import MatchConfig, run_match
from arena.types import BotSpec, MatchResult
from bots import BUNDLED_PROFILES

__all__ = ["PLAY_DEAL_SET", "PLAY_PROFILES", "PlayError", "check_bots", "match_key",
           "match_rules", "play_match", "record_path", "seat_bots"]

PLAY_DEAL_SET = "play"  # the deal set of arena play's one match (deal_keys.py)
# The profile arena play uses for a number of bots when --profile is not given (RULES.md §10).
PLAY_PROFILES = {2: "sixty_six", 3: "three_player", 4: "four_player"}


class PlayError(ValueError):
    """Why the match cannot be played as asked (one line for the user)."""


def _rules_with_target(profile: str, rules_file: Path | None, target: int | None) -> Rules:
    """A profile with its overrides, and ``target`` game points to win the match if given."""
    try:
        return load_rules(profile, rules_file,
                          overrides={"match_target": target} if target is not None else None)
    except RulesError as err:
        raise PlayError(str(err)) from None


def match_rules(bots: int, profile: str | None, rules_file: Path | None, target: int | None,
                first_dealer: int) -> Rules:
    """The rules ``bots`` bots play (the profile for their number unless one is named), checked
    against the number of bots and the first dealer's seat."""
    if not 2 <= bots <= 4:
        raise PlayError(f"arena play needs 2, 3 or 4 bots (one per seat), not {bots}")
    if profile is None:
        profile = PLAY_PROFILES[bots]
    rules = _rules_with_target(profile, rules_file, target)
    if rules.players != bots:
        raise PlayError(f"profile {rules.name} is for {rules.players} players, but {bots} bots "
                        f"were given (give {rules.players} bots, or leave out --profile)")
    if first_dealer >= rules.players:
        raise PlayError(f"--first-dealer must be a seat from 0 to {rules.players - 1}, "
                        f"not {first_dealer}")
    return rules


def seat_bots(bots: Sequence[str], rules: Rules,
              data: Path) -> tuple[tuple[BotSpec, ...], list[str]]:
    """The bot on each seat, in seat order, and the names they had before equal names were told
    apart by their seat number."""
    try:
        specs = tuple(resolve_bot(bot, data=data) for bot in bots)
    except BotSpecError as err:
        raise PlayError(str(err)) from None
    for text in bots:
        # A bundled bot that does not play the variant would only decline it at the greeting.
        first = text.strip().split(" ")[0]
        if first in BUNDLED_PROFILES and rules.name not in BUNDLED_PROFILES[first]:
            raise PlayError(f"{first} does not support {rules.name} (it plays "
                            f"{', '.join(BUNDLED_PROFILES[first])})")
    base = [spec.name for spec in specs]
    if len(set(base)) < len(base):
        # Seats told apart by their seat number; replace, not a new BotSpec: a registered bot
        # keeps its folder and version.
        specs = tuple(replace(spec, name=f"{spec.name}-{seat}") for seat, spec in enumerate(specs))
    return specs, base


def match_key(seed: int | None) -> tuple[bytes, str]:
    """The key the deals come from and the match's id.

    Deals from a fresh secret key (deal_keys.py), or from ``seed`` in a research run. The match id
    is random and unrelated to the key; with a seed it is fixed, because bots may seed themselves
    from it (the bundled random bot does) and the same command must then give the same match."""
    if seed is None:
        return new_key(), new_match_id("play")
    return key_from_seed(seed), "play-seeded"


def record_path(record: Path | None, data: Path, specs: Sequence[BotSpec], match_id: str) -> Path:
    """Where the match's record goes: ``record``, never written over, or a new file in DATA/play;
    its folder must be able to hold the bots' logs."""
    if record is None:
        private_folder(data, "data")  # the record holds every hand (arena_folders.py)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        record = data / "play" / f"{stamp}-{'-vs-'.join(s.name for s in specs)}-{match_id}.jsonl"
    elif os.path.lexists(record):
        # A record is never written over: the path may be another match's, stored in a
        # tournament's folder (nothing already stored is lost).
        raise PlayError(f"--record {record} already exists: give a new path (a record is never "
                        "written over)")
    problem = not_a_folder(record.parent / "logs")
    if problem:  # found before any bot runs
        raise PlayError(f"cannot write the record {record}: {problem}")
    return record


def check_bots(specs: tuple[BotSpec, ...], limits: Limits, rules: Rules,
               hide: list[Path]) -> None:
    """Start every bot once before the match, as a tournament does (preflight.py): one that
    cannot start is an error with its stderr's last lines, and nothing is played or stored (it
    was a forfeit, exit 0). A bot that declines the variant is left to the match, which records
    and says so. First, whether the sandbox can hold the memory cap as asked: a ``memory_mb`` it
    can only hold per process is refused here, in one message, before any bot starts (it was a
    traceback from the first bot's start)."""
    try:
        check_memory(limits.sandbox)
    except SandboxUnavailable as err:
        raise PlayError(str(err)) from None
    try:
        raise_problems([p for p in problems(specs, limits, [h for h in hide if h.is_dir()],
                                            rules) if p[0] == 0])
    except PreflightError as err:
        raise PlayError(f"not every bot can start, so nothing was played:\n{err}") from None


def play_match(specs: tuple[BotSpec, ...], rules: Rules, key: bytes, match_id: str,
               first_dealer: int, limits: Limits, record: Path) -> MatchResult:
    """Play the match, writing its record to ``record`` and the bots' stderr beside it."""
    config = MatchConfig(rules=rules, seed=deal_secret(key, PLAY_DEAL_SET),
                         first_dealer=first_dealer, match_id=match_id, limits=limits)
    logs = record.parent / "logs"
    try:
        logs.mkdir(parents=True, exist_ok=True)
        return run_match(specs, config, record_path=record, log_dir=logs)
    except SandboxUnavailable as err:  # the record's folder inside what every bot sees, say
        raise PlayError(str(err)) from None
    except OSError as err:  # the folder cannot be written (permissions, a full disk)
        raise PlayError(f"cannot write the record {record}: {err.strerror or err}") from None
