"""``arena play`` and ``arena replay``: one match between bot programs, printed deal by deal, and a
recorded one replayed through the engine. The match itself is ``arena/compete/single_match.py``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import typer

from arena import console as term
from arena.cli.common import require_isolation
from arena.cli.options import (
    BANK_HELP,
    DEFAULT_DATA,
    FIRST_DECISION_HELP,
    ISOLATION_HELP,
    LIMIT_HELP,
    SEED_HELP,
    DataOption,
)
from arena.isolation.limits import SandboxLimits, parse_limits
from arena.match.bot_process import DEFAULT_DECISION_MS, DEFAULT_STARTUP_MS, Limits, clock_problem
from arena.match.deal_keys import SEED_WARNING
from arena.match.narrate import deal_line, match_line, narrate_deal, narrate_outcome, side_names
from arena.match.records import RecordError, read_record, replay_record
from arena.types import MatchEnding

# Every line goes through arena.console, which escapes what bots wrote (names, lines, details).
console, err_console, safe = term.out, term.err, term.safe


def play(
    bots: list[str] = typer.Argument(..., metavar="A B [C [D]]",
                                     help="One bot per seat, in seat order: a bot's name (bundled "
                                          "or registered) or a command. Three bots play "
                                          "three_player, four play four_player (partners A+C "
                                          "against B+D)."),
    profile: Optional[str] = typer.Option(None, help="Rules profile (default: sixty_six for two "
                                          "bots, three_player or four_player for three or four)."),
    rules_file: Optional[Path] = typer.Option(None, "--rules-file", "-r",
                                              help="TOML flag overrides (default: none, the "
                                                   "profile as it is)."),
    seed: Optional[int] = typer.Option(None, help=SEED_HELP),
    target: Optional[int] = typer.Option(None, help="Game points that win the match (default: "
                                         "the profile's match_target)."),
    first_dealer: int = typer.Option(0, min=0, max=3, help="Seat of the first dealer."),
    decision_ms: int = typer.Option(DEFAULT_DECISION_MS, min=1, help="Time limit per decision (ms)."),
    startup_ms: int = typer.Option(DEFAULT_STARTUP_MS, min=1, help="Time limit to start (ms)."),
    bank_ms: int = typer.Option(0, min=0, help=BANK_HELP),
    first_decision_ms: int = typer.Option(0, min=0, help=FIRST_DECISION_HELP),
    record: Optional[Path] = typer.Option(None, help="Where to write the match record (JSON Lines; "
                                          "default: in DATA/play)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Print the protocol transcript."),
    isolation: Optional[str] = typer.Option(None, "--isolation", help=ISOLATION_HELP),
    limit: Optional[list[str]] = typer.Option(None, "--limit", help=LIMIT_HELP),
    data: DataOption = DEFAULT_DATA,
) -> None:
    """Play one match between 2, 3 or 4 bot programs and print each deal's settlement."""
    from arena.compete.single_match import (
        PlayError,
        check_bots,
        match_key,
        match_rules,
        play_match,
        record_path,
        seat_bots,
    )

    try:
        rules = match_rules(len(bots), profile, rules_file, target, first_dealer)
    except PlayError as err:
        raise term.fail(str(err)) from None
    clock = clock_problem(decision_ms, first_decision_ms)
    if clock:
        raise term.fail(clock)
    try:
        sandbox = SandboxLimits.from_mapping(parse_limits(limit or []))
    except ValueError as err:
        raise term.fail(str(err)) from None
    require_isolation(isolation)
    try:
        specs, base = seat_bots(bots, rules, data)
        if seed is not None:
            err_console.print(SEED_WARNING.format(seed=seed), soft_wrap=True)
        key, match_id = match_key(seed)
        record = record_path(record, data, specs, match_id)
        limits = Limits(decision_ms=decision_ms, startup_ms=startup_ms, bank_ms=bank_ms,
                        first_decision_ms=first_decision_ms, sandbox=sandbox)
        check_bots(specs, limits, rules, hide=[record.parent])
        result = play_match(specs, rules, key, match_id, first_dealer, limits, record)
    except PlayError as err:
        raise term.fail(str(err)) from None
    names = tuple(spec.name for spec in specs)
    if verbose:
        for item in read_record(record).messages:
            arrow = "->" if item["dir"] == "out" else "<-"
            # The referee's lines are whole; a bot's are cut when very long (PROTOCOL.md §1 caps
            # them at 1024 bytes, a forfeited line may be longer).
            line = safe(item["line"], limit=None if item["dir"] == "out" else term.MAX_SHOWN)
            console.print(f"{item['t']:>10.1f} ms  {safe(names[item['seat']]):<12} {arrow} {line}",
                          soft_wrap=True)
        console.print()
    # Four players: sides named by both bots, "strong+strong", without the seat numbers that only
    # tell equal names apart (unless the two sides would then read the same).
    shown = names
    if len(names) == 4 and len(set(side_names(base))) == 2:
        shown = tuple(base)
    for deal in result.deals:
        console.print(deal_line(deal, names, side_names(shown)), soft_wrap=True)
    console.print(f"[bold]{match_line(result, names, side_names(shown))}[/]", soft_wrap=True)
    for seat, stats in enumerate(result.seats):
        timing = stats.timing()
        if timing["decisions"]:
            console.print(f"  {safe(names[seat])}: claims {stats.correct_claims} correct, {stats.wrong_claims} "
                          f"wrong, {stats.missed_claims} missed; decisions {timing['decisions']}, "
                          f"median {timing['median_ms']:.2f} ms, max {timing['max_ms']:.2f} ms",
                          soft_wrap=True)
    console.print(f"record: {safe(record, limit=None)}", soft_wrap=True)
    if result.reason == MatchEnding.DECLINED:
        # Nothing was played: a script running `arena play` must not read this as a result.
        raise typer.Exit(2)


def replay(
    record: Path = typer.Argument(..., help="A match record (JSON Lines) written by arena play "
                                  "or a tournament; a relative path not found here is looked for "
                                  "in DATA."),
    seat: Optional[int] = typer.Option(None, help="Show what this seat (0 to players-1) saw, its "
                                       "protocol transcript (default: the omniscient view)."),
    html: Optional[Path] = typer.Option(None, "--html", metavar="OUT",
                                        help="Write the match as a web page to watch, deal by deal "
                                        "and trick by trick (one static file; opens from disk; "
                                        "default: none, print the match)."),
    data: DataOption = DEFAULT_DATA,
) -> None:
    """Print a recorded match deal by deal, replayed through the engine."""
    if not record.exists() and not record.is_absolute() and (data / record).is_file():
        record = data / record  # e.g. play/<record>.jsonl, as arena play printed it under DATA
    try:
        rec = read_record(record)
        state = replay_record(rec)
    except RecordError as err:
        raise term.fail(str(err)) from None
    names = rec.names
    if seat is not None and not 0 <= seat < len(names):
        raise term.fail(f"--seat {seat} is not a seat of this match: it has seats 0 to {len(names) - 1}")
    if html is not None:
        from arena.report.replay import write_replay_page  # the page's code only when asked

        if os.path.lexists(html) and not _is_replay_page(html):
            # Only a page written here before is written over: OUT may name anything, a stored
            # record or a tournament's database among them (nothing already stored is lost).
            raise term.fail(f"--html {html} already exists and is not a replay page: give a new path")
        try:
            write_replay_page(rec, html)
        except RecordError as err:
            raise term.fail(str(err)) from None
        except OSError as err:
            raise term.fail(f"cannot write {html}: {err.strerror or err}") from None
        term.say(f"replay page: {term.safe(str(html))}")
        return
    if seat is not None:
        console.print(f"[bold]{safe(names[seat])}[/] (seat {seat}) in match "
                      f"{safe(rec.header['match_id'])}: > referee to bot, < bot to referee",
                      soft_wrap=True)
        for item in rec.messages:
            if item["seat"] == seat:
                out = item["dir"] == "out"
                console.print(f"{'>' if out else '<'} "
                              f"{safe(item['line'], limit=None if out else term.MAX_SHOWN)}",
                              soft_wrap=True)
        return
    console.print(f"[bold]{' vs '.join(side_names([safe(n) for n in names]))}[/], match "
                  f"{safe(rec.header['match_id'])}, profile {safe(rec.header['rules']['name'])}\n",
                  soft_wrap=True)
    for result in state.results:
        for line in narrate_deal(result, names):
            console.print(line, soft_wrap=True)
        console.print()
    outcome = rec.result or {}
    if outcome.get("reason") == MatchEnding.FORFEIT:
        winner = outcome.get("winner")
        if "winner" not in outcome:  # older records: two players, the other seat won
            winner = 1 - outcome["offender"]
        who = "nobody wins" if winner is None else \
            f"{side_names([safe(n) for n in names])[winner]} wins"
        console.print(f"[bold]{who}: "
                      f"{safe(names[outcome['offender']])} forfeits ({safe(outcome['fault'])}: "
                      f"{safe(outcome['detail'])})[/]", soft_wrap=True)
    elif outcome.get("reason") == MatchEnding.DECLINED:
        console.print(f"[bold]not played: {safe(outcome.get('detail', ''))}[/]", soft_wrap=True)
    elif outcome.get("reason") == MatchEnding.DEAL_LIMIT:  # the referee's cap, not an action
        winner = outcome.get("winner")
        who = "nobody wins" if winner is None else \
            f"{side_names([safe(n) for n in names])[winner]} wins"
        points = "-".join(str(p) for p in outcome.get("game_points", state.game_points))
        console.print(f"[bold]the deal limit ended the match: {who}, game points {points}[/]",
                      soft_wrap=True)
    elif state.outcome is not None:
        console.print(f"[bold]{narrate_outcome(state.outcome, names)}[/]", soft_wrap=True)
    else:
        console.print("[bold]the record ends before the match did[/]")


def _is_replay_page(path: Path) -> bool:
    """Whether ``path`` is a file that ``arena replay --html`` (the replay page's template) wrote."""
    try:
        with open(path, "rb") as page:
            head = page.read(1024)
    except OSError:
        return False
    return os.path.isfile(path) and b'<meta name="generator" content="Sixty-Six Arena' in head
