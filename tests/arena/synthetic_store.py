"""A results store with many bots, filled through the real ``Store`` API with made-up match results.

A real tournament of thirty bots would take minutes; the report's layout only needs a store shaped
like a real one. Bots have a hidden strength; each deal goes to the stronger bot more often, ends in
one of the ways the engine settles deals, and scores like one. A few bots forfeit now and then.
A standing league's folder (``fill_league``) is filled the same way, with the league's own tables,
and ``play_synthetic`` makes up the results of a running league's matches (scripts/
bench_league_scale.py).
"""

from __future__ import annotations

import json
import random
import shutil
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Sequence

from arena.game.match import DealResult
from arena.game.scoring import DealSettlement, SettleReason
from arena.match.referee import MatchResult, SeatStats
from arena.types import ScheduledMatch
from arena.compete.schedule import partnership_groups, round_robin, three_player_sets
from arena.entrants.bot_specs import resolve_bot
from arena.match.deal_keys import new_key
from arena.compete.match_job import MatchJob
from arena.types import Fault, MatchEnding
from arena.results.store import DB_NAME, Store, match_rows

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


def _result(rng: random.Random, match_id: str, seats: Sequence[str], strength: dict[str, float],
            flaky: set[str]) -> MatchResult:
    """A made-up two-player match: deals to the stronger bot more often, a flaky bot's forfeit
    now and then."""
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
        return MatchResult(match_id, 1 - offender, "forfeit", (totals[0], totals[1]),
                           tuple(deals), stats, offender=offender, fault=fault,
                           detail=f"made-up {fault}")
    return MatchResult(match_id, 0 if totals[0] > totals[1] else 1, "target",
                       (totals[0], totals[1]), tuple(deals), stats)


def fill(path: Path, bots: int = 30, matches_per_pairing: int = 2, seed: int = 7,
         names: list[str] | None = None, strength: dict[str, float] | None = None,
         flaky: Iterable[str] | None = None) -> list[str]:
    """A finished synthetic round robin of ``names`` (default: the first ``bots`` NAMES) in a new
    store at ``path``. Each bot's hidden ``strength`` is drawn from the seed unless given; the
    ``flaky`` bots (default: every seventh from the fourth) forfeit a match now and then, whatever
    their strength."""
    names = names or NAMES[:bots]
    rng = random.Random(seed)
    strength = strength or {n: rng.gauss(0, 1) for n in names}
    flaky = set(names[3::7] if flaky is None else flaky)
    store = Store.open(path)
    try:
        store.begin_tournament("synthetic", {"name": "synthetic", "bots": names,
                                             "profile": "sixty_six", "rules": {},
                                             "matches_per_pairing": matches_per_pairing,
                                             "seed": seed})
        store.register_bots([(n, ["./" + n], "") for n in names])
        for entry in round_robin("synthetic", names, matches_per_pairing // 2):
            result = _result(rng, entry.match_id, (entry.seat0, entry.seat1), strength, flaky)
            store.record_match(entry, result, record=f"records/{entry.match_id}.jsonl")
    finally:
        store.close()
    return names


def _seated_deal(rng: random.Random, deal_no: int, players: int, side_strength: list[float],
                 totals: list[int]) -> DealResult:
    """A made-up deal of three or four players: mostly a claim by the stronger side; with three
    players now and then a wrong claim that pays both opponents (RULES.md §10.4)."""
    sides = len(side_strength)
    weights = [2.0 ** s for s in side_strength]
    winner: int | None = rng.choices(range(sides), weights=weights)[0]
    awards = [0] * sides
    if players == 3 and rng.random() < 0.1:
        claimant = rng.randrange(3)
        for side in range(3):
            awards[side] = 0 if side == claimant else 2
        reason, winner, points = SettleReason.WRONG_CLAIM, None, 2
    else:
        assert winner is not None
        reason = SettleReason.CLAIM
        points = rng.choice([1, 1, 2, 3])
        awards[winner] = points
        claimant = winner
    for side in range(sides):
        totals[side] += awards[side]
    deal_totals = tuple(70 if side == winner else 30 for side in range(sides))
    settlement = DealSettlement(reason=reason, winner=winner, game_points=points,
                                claimant=claimant, closer=None, totals=deal_totals,
                                tricks=tuple(2 for _ in range(sides)), last_trick_winner=None,
                                awards=tuple(awards))
    return DealResult(deal_no=deal_no, dealer=deal_no % players, order=(), settlement=settlement,
                      awarded=points if winner is not None else 0, pot_after=0,
                      game_points_after=tuple(totals), final=None)


def fill_seated(path: Path, players: int, names: list[str], deal_sets: int = 1, seed: int = 7,
                target: int = 7, flaky: str | None = None,
                strength: dict[str, float] | None = None) -> list[ScheduledMatch]:
    """A finished synthetic three- or four-player tournament of ``names`` in a new store at
    ``path``, scheduled as a real one is (schedule.three_player_sets / partnership_groups). A bot
    named ``flaky`` forfeits now and then. Returns the schedule."""
    rng = random.Random(seed)
    strength = strength or {n: rng.gauss(0, 1) for n in names}
    profile = "three_player" if players == 3 else "four_player"
    schedule = (three_player_sets if players == 3 else partnership_groups)("synthetic", names,
                                                                          deal_sets)
    sides = 3 if players == 3 else 2
    store = Store.open(path)
    try:
        store.begin_tournament("synthetic", {"name": "synthetic", "bots": names, "profile": profile,
                                             "rules": {}, "deal_sets": deal_sets, "seed": seed})
        store.register_bots([(n, ["./" + n], "") for n in names])
        for entry in schedule:
            seat_side = [seat % 2 if players == 4 else seat for seat in range(players)]
            side_strength = [sum(strength[entry.seats[k]] for k in range(players)
                                 if seat_side[k] == side) for side in range(sides)]
            totals = [0] * sides
            deals: list[DealResult] = []
            offender = None
            while max(totals) < target or sorted(totals)[-1] == sorted(totals)[-2]:
                if flaky in entry.seats and rng.random() < 0.05:
                    offender = entry.seats.index(flaky)
                    break
                deals.append(_seated_deal(rng, len(deals) + 1, players, side_strength, totals))
            stats = tuple(SeatStats(entry.seats[s], correct_claims=rng.randrange(4),
                                    decision_ms=[rng.uniform(0.1, 5) for _ in range(20)])
                          for s in range(players))
            if offender is not None:
                winner = None if players == 3 else 1 - offender % 2
                result = MatchResult(entry.match_id, winner, MatchEnding.FORFEIT, tuple(totals),
                                     tuple(deals), stats, offender=offender, fault=Fault.TIMEOUT,
                                     detail="made-up timeout")
            else:
                result = MatchResult(entry.match_id, totals.index(max(totals)), MatchEnding.TARGET,
                                     tuple(totals), tuple(deals), stats)
            store.record_match(entry, result, record=f"records/{entry.match_id}.jsonl")
    finally:
        store.close()
    return schedule


# -- a standing league (league.py) -----------------------------------------------------------------

LEAGUE_PROGRAM = "first-legal-c"  # the bundled bot each synthetic league bot is a copy of


def league_programs(folder: Path, count: int) -> list[str]:
    """``count`` bot programs for a synthetic league, ``folder/bot-000`` on: copies of a bundled C
    bot (it starts in a millisecond, so a league's start check of each is cheap), each a bot of
    its own name. ``folder`` must lie outside the league's. Returns their paths, as league.toml
    lists them."""
    binary = resolve_bot(LEAGUE_PROGRAM).argv[0]
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for k in range(count):
        path = folder / f"bot-{k:03d}"
        if not path.exists():
            shutil.copy2(binary, path)
        paths.append(str(path))
    return paths


def bot_strength(name: str) -> float:
    """A synthetic league bot's hidden strength, from its name alone: the store's filler and
    ``play_synthetic`` (in a worker process) agree on it without sharing anything."""
    return random.Random(f"strength/{name}").gauss(0, 1)


def fill_league(folder: Path, bots: Sequence[str], pairs: int, data: Path, seed: int = 7,
                **settings: object) -> list[str]:
    """A synthetic league that has played ``pairs`` duplicate pairs (2 x ``pairs`` matches) among
    ``bots`` (commands, as league.toml lists them), as ``arena league`` leaves its folder:
    league.toml (``settings`` added), and results.sqlite with its deal key and the league's own
    tables (``league_bots``, ``league_pairs``), every pair whole. Bots are resolved, named and
    checked by the league's own functions; matches are stored through ``Store.insert`` with the ids,
    deal sets and order ``league.pair_matches`` gives; pairings are drawn uniformly at random, and
    the stronger bot by ``bot_strength`` wins more often. Results are made up (``_result``) once,
    a few hundred of them, and each match stores one of those its winner won: making one per
    match took most of the minutes a store of 100,000 matches took to fill. No record files are
    written. Returns the bots' store names."""
    from arena.compete.league_store import LEAGUE_SCHEMA, pair_matches
    from arena.compete.league_config import CONFIG_NAME, load_league_config
    from arena.compete.league_members import resolve_member

    folder.mkdir(parents=True, exist_ok=True)
    lines = [f"{key} = {json.dumps(value)}" for key, value in
             {"name": "synthetic", "bots": list(bots), "publish_every": 0, **settings}.items()]
    (folder / CONFIG_NAME).write_text("\n".join(lines) + "\n")
    config = load_league_config(folder)
    members = [resolve_member(text, data, folder) for text in bots]
    names = [m.name for m in members]
    strength = {n: bot_strength(n) for n in names}
    rng = random.Random(seed)
    made: dict[int, list[MatchResult]] = {0: [], 1: []}
    while min(len(results) for results in made.values()) < 100:
        result = _result(rng, "", ("a", "b"), {"a": 0.0, "b": 0.0}, set())
        made[result.winner or 0].append(result)

    def made_up(seats: Sequence[str]) -> MatchResult:
        edge = strength[seats[0]] - strength[seats[1]]
        return rng.choice(made[0 if rng.random() < 1 / (1 + 10 ** (-edge / 2)) else 1])

    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    store = Store.open(folder / DB_NAME)
    try:
        store.begin_tournament(config.name, config.settings())
        store.db.executescript(LEAGUE_SCHEMA)
        store.set_deal_key(new_key())
        store.register_bots([(m.name, list(m.spec.argv), m.spec.version) for m in members])
        # The rows _Runner._join and _Runner._new_pairs write (no function of the league's writes
        # them alone).
        store.db.executemany("INSERT INTO league_bots VALUES (?, ?, ?, ?, ?)",
                             [(m.name, m.family, m.text, json.dumps(asdict(m.spec)), now)
                              for m in members])
        batch = 1000
        for first in range(0, pairs, batch):
            chosen = [(pair_no, a, b) for pair_no in range(first, min(pairs, first + batch))
                      for a, b in [rng.sample(names, 2)]]
            store.db.execute("BEGIN IMMEDIATE")
            store.db.executemany("INSERT INTO league_pairs VALUES (?, ?, ?, ?)",
                                 [(pair_no, a, b, now) for pair_no, a, b in chosen])
            store.db.execute("COMMIT")
            store.insert([match_rows(entry, made_up(entry.seats),
                                     record=f"records/{entry.match_id}.jsonl", finished=now)
                          for pair_no, a, b in chosen
                          for entry in pair_matches(config.name, pair_no, a, b)])
    finally:
        store.close()
    return names


def play_synthetic(job: MatchJob) -> MatchResult:
    """What a league's worker plays in place of ``match_job.play_job`` in a benchmark of the
    coordinator: a made-up result of the job's match (seeded by its id, strengths by
    ``bot_strength``), at once and without a process; no record is written."""
    seats = job.entry.seats
    return _result(random.Random(job.entry.match_id), job.entry.match_id, seats,
                   {n: bot_strength(n) for n in seats}, set())


# -- a synthetic league -----------------------------------------------------------------------------

LEAGUE_BOTS = ["strong", "c-counter", "greedy", "first-legal-c", "first-legal", "random"]


@dataclass(frozen=True)
class Template:
    """A real match of two bundled bots: its result and its record, which a synthetic league
    match copies (with its own id and bots) so that its replay page is a real one."""

    result: MatchResult
    record: Path


def play_templates(folder: Path, count: int = 8) -> list[Template]:
    """``count`` real matches of the two bundled C bots (fast to start), records in ``folder``;
    each seat wins some of them."""
    from arena.entrants.bot_specs import resolve_bot
    from arena.game import load_rules
    from arena.match.referee import MatchConfig, run_match

    bots = [resolve_bot("c-counter"), resolve_bot("first-legal-c")]
    rules = load_rules("sixty_six")
    out = []
    for k in range(count):
        seats = bots if k % 2 == 0 else bots[::-1]
        match_id = f"template-{k}"
        record = folder / f"{match_id}.jsonl"
        result = run_match(seats, MatchConfig(rules, seed=f"template {k}", first_dealer=k % 2,
                                              match_id=match_id), record)
        out.append(Template(result, record))
    return out


def fill_league_with_records(folder: Path, pairs: int, templates: Sequence[Template],
                             seed: int = 7, bots: Sequence[str] = tuple(LEAGUE_BOTS),
                             name: str = "synthetic") -> None:
    """A league folder as ``arena league`` leaves it after ``pairs`` duplicate pairs of ``bots``
    (bundled names): ``league.toml``, a store filled through the ``Store`` API with the league's
    own tables, and a record per match, each a copy of one of ``templates`` (real matches) with
    the match's id and bots. Who wins follows a hidden strength per bot (stronger earlier in
    ``bots``), so ratings settle and upsets are rare. Adds to a league filled before. The kept
    ratings and their history (league_ladder.py) are brought up to the last pair, as the running
    league keeps them with each match it stores."""
    from arena.entrants.bot_specs import resolve_bot
    from arena.compete.league_config import CONFIG_NAME, LeagueConfig
    from arena.compete.league_store import LEAGUE_SCHEMA, pair_matches
    from arena.results.league_ladder import SCHEMA, settle
    from arena.results.store import DB_NAME, match_rows

    config = LeagueConfig(name=name, bots=tuple(bots), publish_every=0)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / CONFIG_NAME).write_text(
        f'name = "{name}"\nbots = {json.dumps(list(bots))}\npublish_every = 0\n')
    (folder / "records").mkdir(exist_ok=True)
    by_winner = {w: [t for t in templates if t.result.winner == w] for w in (0, 1)}
    assert by_winner[0] and by_winner[1], "templates where each seat wins are needed"
    strength = {b: -0.6 * k for k, b in enumerate(bots)}
    store = Store.open(folder / DB_NAME)
    try:
        store.begin_tournament(name, config.settings())
        store.db.executescript(LEAGUE_SCHEMA + SCHEMA)
        specs = {b: resolve_bot(b) for b in bots}
        store.register_bots([(b, list(s.argv), s.version) for b, s in specs.items()])
        for b, spec in specs.items():
            store.db.execute("INSERT OR IGNORE INTO league_bots VALUES (?, ?, ?, ?, ?)",
                             (b, b, b, json.dumps(asdict(spec)), "2026-01-01T00:00:00Z"))
        first = store.db.execute("SELECT COALESCE(MAX(pair_no) + 1, 0) FROM league_pairs") \
            .fetchone()[0]
        rng = random.Random(f"{seed} {first}")
        rows = []
        for pair_no in range(first, first + pairs):
            a, b = rng.sample(list(bots), 2)
            store.db.execute("INSERT INTO league_pairs VALUES (?, ?, ?, ?)",
                             (pair_no, a, b, "2026-01-01T00:00:00Z"))
            for entry in pair_matches(name, pair_no, a, b):
                edge = strength[entry.seat0] - strength[entry.seat1]
                winner = 0 if rng.random() < 1 / (1 + 10 ** (-edge)) else 1
                template = rng.choice(by_winner[winner])
                record = f"records/{entry.match_id}.jsonl"
                _copy_record(template.record, folder / record, entry.match_id, entry.seats,
                             [specs[s] for s in entry.seats])
                result = replace(template.result, match_id=entry.match_id, seats=tuple(
                    replace(s, name=n) for s, n in zip(template.result.seats, entry.seats)))
                rows.append(match_rows(entry, result, record,
                                       finished=f"2026-01-01T{pair_no // 3600 % 24:02d}:"
                                                f"{pair_no // 60 % 60:02d}:{pair_no % 60:02d}Z"))
            if len(rows) >= 500:
                store.insert(rows)
                rows = []
        if rows:
            store.insert(rows)
        store.db.execute("BEGIN IMMEDIATE")
        settle(store.db, 2 * (first + pairs))
        store.db.execute("COMMIT")
    finally:
        store.close()


def _copy_record(template: Path, out: Path, match_id: str, seats: Sequence[str],
                 specs: Sequence[Any]) -> None:
    with open(template, encoding="utf-8") as fh:
        header = json.loads(fh.readline())
        rest = fh.read()
    header["match_id"] = match_id
    header["bots"] = [{"seat": k, "name": n, "command": list(s.argv)}
                      for k, (n, s) in enumerate(zip(seats, specs))]
    out.write_text(json.dumps(header, separators=(",", ":")) + "\n" + rest, encoding="utf-8")
