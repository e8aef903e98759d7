"""The ``arena`` command line (Typer). Each command is a thin layer over a module that does the work."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Optional

import typer

from arena import __version__
from arena import console as term
from arena.cli.bots import ISOLATION_HELP, LIMIT_HELP, bots_app, submit
from arena.cli.common import make_report, require_isolation
from arena.cli.league import league_app
from arena.cli.options import DEFAULT_DATA, SEED_HELP, AffinityOption, DataOption
from arena.cli.sprt import HELP as SPRT_HELP
from arena.cli.sprt import sprt
from arena.game import PROFILES, RulesError, load_rules
from arena.game.rules import FLAG_FIELDS, allowed_values, flag_section
from arena.match.bot_process import DEFAULT_DECISION_MS, DEFAULT_STARTUP_MS, Limits
from arena.match.deal_keys import SEED_WARNING
from arena.match.narrate import deal_line, match_line, narrate_deal, narrate_outcome, side_names
from arena.match.records import RecordError, read_record, replay_record
from arena.types import MatchEnding

app = typer.Typer(help="Sixty-Six Arena: run bot matches and tournaments for Sixty-Six and Schnapsen.",
                  no_args_is_help=True, add_completion=False)
rules_app = typer.Typer(help="Rules profiles and their flags (RULES.md §11).", no_args_is_help=True)
app.add_typer(rules_app, name="rules")
app.add_typer(bots_app, name="bots")
app.add_typer(league_app, name="league")
app.command()(submit)
app.command(help=SPRT_HELP)(sprt)

# Every line goes through arena.console, which escapes what bots wrote (names, lines, details).
console, err_console, safe = term.out, term.err, term.safe


def _fail(message: str) -> typer.Exit:
    return term.fail(message)


def _version(value: bool) -> None:
    if value:
        console.print(f"arena {__version__}")
        raise typer.Exit()


@app.callback()
def main(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                      help="Print the version and exit.")) -> None:
    """Sixty-Six Arena."""


@rules_app.command("list")
def rules_list() -> None:
    """List the named rules profiles."""
    for name, rules in PROFILES.items():
        console.print(f"{name:<10} {rules.deck_size} cards, {rules.hand_size} each, "
                      f"match to {rules.match_target}")


@rules_app.command("show")
def rules_show(
    profile: str = typer.Argument("sixty_six", help="Profile name: " + ", ".join(PROFILES)),
    rules_file: Optional[Path] = typer.Option(None, "--rules-file", "-r",
                                              help="TOML file of flag overrides (default: none, "
                                                   "the profile as it is)."),
    as_toml: bool = typer.Option(False, "--toml",
                                 help="Print the flags as a TOML file, a starting point for overrides."),
) -> None:
    """Print every flag of a profile with its value and allowed values."""
    try:
        rules = load_rules(profile, rules_file)
    except RulesError as err:
        raise _fail(str(err)) from None
    values = rules.to_dict()
    if as_toml:
        console.print(f'profile = "{rules.name}"', soft_wrap=True)
        for name in rules.flags():
            value = values[name]
            text = str(value).lower() if isinstance(value, bool) else \
                (str(value) if isinstance(value, int) else f'"{value}"')
            console.print(f"{name} = {text}", soft_wrap=True)
        return
    source = f" (with overrides from {safe(rules_file, limit=None)})" if rules_file else ""
    console.print(f"rules profile [bold]{rules.name}[/]{source}: flags of RULES.md §11 (and §10.4)", soft_wrap=True)
    for name in rules.flags():
        meta = FLAG_FIELDS[name].metadata
        value = values[name]
        text = str(value).lower() if isinstance(value, bool) else str(value)
        console.print(f"  {flag_section(name):<6} {name:<29} = [bold]{text:<22}[/] {meta['doc']}; "
                      f"allowed: {allowed_values(name)}", soft_wrap=True)


@app.command()
def demo(
    seed: Optional[int] = typer.Option(None, help=SEED_HELP),
    profile: str = typer.Option("sixty_six", help="Rules profile."),
    matches: Optional[int] = typer.Option(None, "--matches", "-n",
                                          help="Matches per pairing (even; default 20); for a "
                                               "three- or four-player profile, deal sets per "
                                               "group of bots (default 1), each played in six "
                                               "seatings."),
    one_match: bool = typer.Option(False, "--one-match",
                                   help="Instead: one in-process match between two random "
                                        "players, printed deal by deal."),
) -> None:
    """A round robin among the bundled bots: prints the leaderboard and where the results are."""
    if one_match:
        _demo_match(seed, profile)
        return
    from arena.compete.demo import demo_bots, demo_folder, demo_level
    from arena.entrants.registry import data_dir

    level = demo_level()
    console.print(f"sandbox level for the demo: {level} (the strongest this machine gives; the "
                  "demo's bots are the arena's own, so the demo opts in to it)", soft_wrap=True)
    bots, left_out = demo_bots(profile)
    if left_out is not None:
        err_console.print(f"note: the C bot is left out of the demo: {safe(left_out, limit=None)}",
                          soft_wrap=True)
    output = demo_folder()
    deals = "a secret key" if seed is None else f"seed {seed}"
    try:
        players = load_rules(profile).players
    except RulesError as err:
        raise _fail(str(err)) from None
    if players == 2:
        matches = 20 if matches is None else matches
        plan = f"{matches} matches per pairing ({matches // 2} duplicate pairs)"
    else:  # tournament.py: -n counts deal sets per group with three or four players
        matches = 1 if matches is None else matches
        plan = f"{matches} deal set(s) per group of {min(players, len(bots))} bots, six seatings each"
    console.print(f"[bold]demo tournament[/]: {', '.join(bots)}; {plan}, profile {profile}, "
                  f"deals from {deals}", soft_wrap=True)
    tournament(config_file=None, bot=bots, name="demo", profile=profile,
               matches_per_pairing=matches, rounds=None, seed=seed, workers=None, affinity=None,
               allow_self_partner=False, decision_ms=None, startup_ms=None, output=output,
               resume=None, limit=None, cluster=None, isolation=level, data=data_dir(),
               write_report=True)


def _demo_match(seed: int | None, profile: str) -> None:
    """One match between random players in-process, printed deal by deal."""
    from arena.compete.demo import random_match

    try:
        rules = load_rules(profile)
    except RulesError as err:
        raise _fail(str(err)) from None
    names, state = random_match(rules, seed)
    deals = "a secret key" if seed is None else f"seed {seed}"
    console.print(f"[bold]{' vs '.join(side_names(names))}[/], profile {rules.name}, deals from {deals}, "
                  f"first to {rules.match_target} game points\n")
    for result in state.results:
        for line in narrate_deal(result, names):
            console.print(line)
        console.print()
    assert state.outcome is not None
    console.print(f"[bold]{narrate_outcome(state.outcome, names)}[/]")


@app.command()
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
    record: Optional[Path] = typer.Option(None, help="Where to write the match record (JSON Lines; "
                                          "default: in DATA/play)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Print the protocol transcript."),
    isolation: Optional[str] = typer.Option(None, "--isolation", help=ISOLATION_HELP),
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
        raise _fail(str(err)) from None
    require_isolation(isolation)
    try:
        specs, base = seat_bots(bots, rules, data)
        if seed is not None:
            err_console.print(SEED_WARNING.format(seed=seed), soft_wrap=True)
        key, match_id = match_key(seed)
        record = record_path(record, data, specs, match_id)
        limits = Limits(decision_ms=decision_ms, startup_ms=startup_ms)
        check_bots(specs, limits, rules, hide=[record.parent])
        result = play_match(specs, rules, key, match_id, first_dealer, limits, record)
    except PlayError as err:
        raise _fail(str(err)) from None
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


@app.command()
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
        raise _fail(str(err)) from None
    names = rec.names
    if seat is not None and not 0 <= seat < len(names):
        raise _fail(f"--seat {seat} is not a seat of this match: it has seats 0 to {len(names) - 1}")
    if html is not None:
        from arena.report.replay import write_replay_page  # the page's code only when asked

        if os.path.lexists(html) and not _is_replay_page(html):
            # Only a page written here before is written over: OUT may name anything, a stored
            # record or a tournament's database among them (nothing already stored is lost).
            raise _fail(f"--html {html} already exists and is not a replay page: give a new path")
        try:
            write_replay_page(rec, html)
        except RecordError as err:
            raise _fail(str(err)) from None
        except OSError as err:
            raise _fail(f"cannot write {html}: {err.strerror or err}") from None
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


BAR_UPDATE_S = 0.25  # the tournament's progress bar and leader are redrawn at most this often


@app.command()
def tournament(
    config_file: Optional[Path] = typer.Argument(None, metavar="[CONFIG.toml]",
                                                 help="Tournament settings (flags override them)."),
    bot: Optional[list[str]] = typer.Option(None, "--bot", "-b",
                                            help="A bot's name (bundled or registered) or a "
                                                 "command (repeat; default: the settings "
                                                 "file's bots)."),
    name: Optional[str] = typer.Option(None, help="Tournament name (default: tournament)."),
    profile: Optional[str] = typer.Option(None, help="Rules profile (default: sixty_six)."),
    matches_per_pairing: Optional[int] = typer.Option(
        None, "--matches", "-n", help="Matches per pairing (even; default 4). For a three- or "
        "four-player profile: deal sets per group of bots (default 1), each played in six "
        "seatings (docs/organisers/tournaments.md: what a schedule costs)."),
    seed: Optional[int] = typer.Option(None, help=SEED_HELP),
    rounds: Optional[int] = typer.Option(None, "--rounds", min=1, help="Duplicate pairs per "
                                         "pairing, as cutechess's and fastchess's -rounds with "
                                         "-games 2 -repeat: -n 2×ROUNDS; for three or four "
                                         "players, deal sets per group (default: none; -n "
                                         "decides)."),
    workers: Optional[int] = typer.Option(None, "--workers", "-w", "--concurrency", min=1,
                                          help="Worker processes of a local run (default: all "
                                          "cores; on a cluster, each Dask worker's threads)."),
    affinity: AffinityOption = None,
    allow_self_partner: bool = typer.Option(False, "--allow-self-partner", help="With four "
                                            "players and fewer than four bots, let each bot "
                                            "partner itself: its two instances could signal "
                                            "each other their hands (docs/organisers/isolation.md), so "
                                            "for bots you trust."),
    decision_ms: Optional[int] = typer.Option(None, help="Time limit per decision (ms; default: "
                                              f"{DEFAULT_DECISION_MS})."),
    startup_ms: Optional[int] = typer.Option(None, help="Time limit to start (ms; default: "
                                             f"{DEFAULT_STARTUP_MS})."),
    output: Optional[Path] = typer.Option(None, "--output", "-o",
                                          help="Output folder (default: DATA/<name>)."),
    resume: Optional[Path] = typer.Option(None, "--resume", help="Finish the tournament in DIR: "
                                          "play exactly the matches it does not hold yet "
                                          "(default: a new tournament)."),
    limit: Optional[list[str]] = typer.Option(None, "--limit", help=LIMIT_HELP),
    cluster: Optional[str] = typer.Option(None, "--cluster", help="Run the matches on the Dask "
                                          "cluster whose scheduler is at tcp://HOST:PORT "
                                          "(needs the dask extra; default: on this machine)."),
    isolation: Optional[str] = typer.Option(None, "--isolation", help=ISOLATION_HELP),
    data: DataOption = DEFAULT_DATA,
    write_report: bool = typer.Option(True, "--report/--no-report",
                                      help="Write DIR/report/ at the end (arena report DIR "
                                           "writes it later)."),
) -> None:
    """Run a round-robin tournament on all cores (or a Dask cluster), store every result, print
    the leaderboard."""
    from arena.compete.tournament import (
        ConfigError,
        Progress,
        Stopped,
        TournamentError,
        new_config,
        resumed_config,
        run_notes,
        run_tournament,
    )
    from arena.isolation.levels import SandboxUnavailable
    from arena.isolation.limits import parse_limits
    from arena.isolation.probe import describe as describe_sandbox
    from arena.results.store import StoreError

    if rounds is not None and matches_per_pairing is not None:
        raise _fail("give -n (matches per pairing) or --rounds (duplicate pairs per pairing), "
                    "not both")
    try:
        if resume is not None:
            # The stored settings define the tournament; a flag that would change them is refused
            # rather than silently ignored. Where and how fast it runs may change.
            given = {"CONFIG.toml": config_file, "--bot": bot, "--name": name, "--profile": profile,
                     "--matches": matches_per_pairing, "--rounds": rounds, "--seed": seed,
                     "--decision-ms": decision_ms,
                     "--startup-ms": startup_ms, "--output": output, "--limit": limit}
            changing = [flag for flag, value in given.items() if value not in (None, [], ())]
            if changing:
                raise ConfigError(f"--resume continues the tournament stored in {resume} with its "
                                  f"own settings; these would change it: {', '.join(changing)} "
                                  "(only --workers, --affinity, --allow-self-partner, --cluster, "
                                  "--isolation and --data may be given with --resume)")
            # A flag not given leaves the stored setting (None would drop it).
            config = resumed_config(resume, {"workers": workers, "cluster": cluster,
                                             "data": str(data), "affinity": affinity,
                                             "allow_self_partner": allow_self_partner or None})
        else:
            config = new_config(config_file, {
                "bots": bot, "name": name, "profile": profile,
                "matches_per_pairing": matches_per_pairing,
                "seed": seed, "workers": workers,
                "decision_ms": decision_ms, "startup_ms": startup_ms,
                "output": str(output) if output else None, "cluster": cluster,
                "sandbox": parse_limits(limit) if limit else None, "data": str(data),
                "affinity": affinity,
                "allow_self_partner": allow_self_partner or None}, rounds)
    except (ConfigError, StoreError, ValueError) as err:
        raise _fail(str(err)) from None
    require_isolation(isolation or config.isolation or None)
    for note in run_notes(config, workers):
        err_console.print(note, soft_wrap=True)
    if config.seed is not None:
        err_console.print(SEED_WARNING.format(seed=config.seed), soft_wrap=True)
    try:
        console.print(describe_sandbox(), soft_wrap=True)
    except SandboxUnavailable as err:
        raise _fail(str(err)) from None
    out = config.out_dir()
    interactive = console.is_terminal
    bar = None
    if interactive:
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
        from rich.progress import Progress as Bar
        bar = Bar(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[rate]}"), TimeRemainingColumn(),
                  TextColumn("{task.fields[leader]}"), console=console)
        task = bar.add_task(safe(config.name), total=None, rate="", leader="")
        bar.start()
    session_done = 0
    live = None  # the leader, rated match by match (arena/compete/live_leader.py)
    shown_at = 0.0

    def report(p: Progress) -> None:
        nonlocal session_done, live, shown_at
        if bar is None:
            return
        from arena.compete.live_leader import LiveLeader

        if live is None:
            # One read of the store when the run starts or resumes; afterwards each stored match
            # updates the ratings (issue 18: the whole store was re-read every tenth of the run).
            live = LiveLeader.of_store(config.out_dir() / "results.sqlite")
        if p.last is not None and p.last_entry is not None:
            live.add(p.last_entry, p.last)
            session_done += 1
        now = time.monotonic()
        if now - shown_at < BAR_UPDATE_S and p.done != p.total and p.last is not None:
            return  # the bar redraws a few times a second: more updates would only cost
        shown_at = now
        elapsed = now - p.started
        leader = live.leader()
        bar.update(task, total=p.total, completed=p.done,
                   leader=f"leader: {safe(leader)}" if leader and p.done else "",
                   rate=f"{session_done / elapsed:.1f} matches/s" if elapsed > 0 and session_done
                   else "")

    try:
        db_path = run_tournament(config, resume=resume is not None, on_progress=report)
    except (ConfigError, StoreError) as err:
        raise _fail(str(err)) from None
    except TournamentError as err:
        raise term.fail(str(err), code=1) from None
    except Stopped as stop:
        # stderr: stdout may be a pipe nobody reads any more (| head)
        if stop.total and stop.done == stop.total:  # the signal came as the run ended
            err_console.print(f"stopped after the last match: the tournament in "
                              f"{safe(out, limit=None)} is complete; its report: arena report "
                              f"{safe(out, limit=None)}", soft_wrap=True, markup=False)
        elif (out / "results.sqlite").exists():
            err_console.print(f"stopped: {stop.done} of {stop.total} matches stored; resume "
                              f"with: arena tournament --resume {out}", soft_wrap=True,
                              markup=False)
        else:
            err_console.print("stopped before anything was stored", markup=False)
        raise typer.Exit(code=stop.exit_code) from None
    finally:
        if bar is not None:
            bar.stop()
    from arena.compete.tournament import stop_on_signals

    try:
        with stop_on_signals():
            _print_leaderboard(db_path, "table")
            console.print(f"results: {safe(out, limit=None)} (database {db_path.name}, records in "
                          "records/, log tournament.log)", soft_wrap=True)
            if write_report:
                make_report(out)
    except Stopped as stop:
        # Every match is stored: only the table or the report was cut short.
        err_console.print(f"stopped after the last match: the tournament in {safe(out, limit=None)} "
                          f"is complete; its report: arena report {safe(out, limit=None)}",
                          soft_wrap=True)
        raise typer.Exit(code=stop.exit_code) from None


def _print_leaderboard(db_path: Path, fmt: str) -> None:
    from arena.results.tables import leaderboard_text

    # Bot names are data: arena.console shows them as written, never as markup.
    for block in leaderboard_text(db_path, fmt):
        term.data(block, limit=None)


@app.command()
def leaderboard(
    folder: Path = typer.Argument(..., help="A tournament folder (holding results.sqlite)."),
    fmt: str = typer.Option("table", "--format", "-f", help="table, csv, json or markdown."),
) -> None:
    """Print a tournament's leaderboard, rebuilt from its stored results."""
    if fmt not in ("table", "csv", "json", "markdown"):
        raise _fail(f"unknown format {fmt!r}: use table, csv, json or markdown")
    from arena.results.store import StoreError

    db_path = folder / "results.sqlite"
    if not db_path.is_file():
        raise _fail(f"{folder} holds no tournament (no results.sqlite)")
    import sqlite3

    from pandas.errors import DatabaseError as PandasDatabaseError

    try:
        _print_leaderboard(db_path, fmt)
    except StoreError as err:
        raise _fail(str(err)) from None
    except (sqlite3.Error, PandasDatabaseError) as err:  # (pandas wraps sqlite3's errors)
        raise _fail(f"{db_path} is not a results database this arena can read: {err}") from None


@app.command()
def report(
    folder: Path = typer.Argument(..., metavar="DIR",
                                  help="A tournament folder (holding results.sqlite)."),
    serve: bool = typer.Option(False, "--serve", help="Then serve the folder on localhost for a "
                               "look in a browser (Ctrl-C stops)."),
    port: int = typer.Option(8066, min=0, max=65535, help="Port for --serve (0: any free port)."),
) -> None:
    """Write a tournament's report in DIR/report/: five charts (PNG, SVG) and a static web page."""
    if not serve:
        make_report(folder)
        return
    import tempfile

    from arena.report import ReportError
    from arena.report import publish as publish_report
    from arena.report.serve import make_server, report_url

    if not (folder / "results.sqlite").is_file():
        raise _fail(f"{folder} holds no tournament (no results.sqlite)")
    # What is served is what `arena publish` writes, in a temporary folder: never the tournament
    # folder, whose database (the deal key) and logs (the bots' stderr) are private.
    with tempfile.TemporaryDirectory(prefix="sixtysix-serve-") as scratch:
        site = Path(scratch) / "site"
        try:  # the port first: a taken port fails at once, not after the charts are drawn
            server = make_server(site, port)
        except OSError as err:
            raise _fail(f"cannot serve on port {port}: {err.strerror or err}; try --port 0") \
                from None
        try:
            make_report(folder, hint=False)
            try:
                publish_report(folder, site)
            except ReportError as err:
                raise _fail(str(err)) from None
            console.print(f"serving the published report of {safe(folder, limit=None)} at "
                          f"{report_url(server)} (Ctrl-C stops)", soft_wrap=True)
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()


@app.command()
def publish(
    folder: Path = typer.Argument(..., metavar="DIR",
                                  help="A tournament folder (holding results.sqlite)."),
    out: Path = typer.Argument(..., metavar="OUT",
                               help="The folder to write: new, empty, or an earlier publish of "
                               "the same tournament (then replaced)."),
) -> None:
    """Write a tournament's report as a folder for any static web host: the pages, the charts and
    the match records, with no database, logs or local paths."""
    from arena.report import ReportError
    from arena.report import publish as publish_report

    try:
        page = publish_report(folder, out)
    except ReportError as err:
        raise _fail(str(err)) from None
    console.print(f"published: {safe(page.parent, limit=None)} (index.html, charts, bots/, "
                  "records/, replays/): copy the folder to any static host", soft_wrap=True)


if __name__ == "__main__":  # pragma: no cover
    app()
