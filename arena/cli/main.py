"""The ``arena`` command line (Typer). Each command is a thin layer over a module that does the work."""

from __future__ import annotations

import os
import random
import time
from dataclasses import replace
from pathlib import Path
from typing import Optional

import typer

from arena import __version__
from arena import console as term
from arena.arena_folders import private_folder
from arena.cli.bots import ISOLATION_HELP, LIMIT_HELP, bots_app, submit
from arena.cli.common import make_report, require_isolation
from arena.cli.league import league_app
from arena.cli.options import DEFAULT_DATA, SEED_HELP, AffinityOption, DataOption, not_a_folder
from arena.cli.sprt import HELP as SPRT_HELP
from arena.cli.serve import serve
from arena.cli.sprt import sprt
from arena.entrants.bot_specs import BotSpecError, resolve_bot
from arena.game import PROFILES, MatchState, Rules, RulesError, load_rules
from arena.game.rules import FLAG_FIELDS, allowed_values, flag_section
from arena.match.bot_process import DEFAULT_DECISION_MS, DEFAULT_STARTUP_MS, Limits
from arena.match.deal_keys import SEED_WARNING, deal_secret, key_from_seed, new_key, new_match_id
from arena.match.narrate import deal_line, match_line, narrate_deal, narrate_outcome, side_names
from arena.match.records import RecordError, read_record, replay_record
from arena.match.referee import MatchConfig, run_match
from arena.types import BotSpec, MatchEnding
from bots import BUNDLED_PROFILES

app = typer.Typer(help="Sixty-Six Arena: run bot matches and tournaments for Sixty-Six and Schnapsen.",
                  no_args_is_help=True, add_completion=False)
rules_app = typer.Typer(help="Rules profiles and their flags (RULES.md §11).", no_args_is_help=True)
app.add_typer(rules_app, name="rules")
app.add_typer(bots_app, name="bots")
app.add_typer(league_app, name="league")
app.command()(submit)
app.command(help=SPRT_HELP)(sprt)
app.command()(serve)

# Every line goes through arena.console, which escapes what bots wrote (names, lines, details).
console, err_console, safe = term.out, term.err, term.safe
PLAY_DEAL_SET = "play"  # the deal set of arena play's one match (deal_keys.py)
# The profile arena play uses for a number of bots when --profile is not given (RULES.md §10).
PLAY_PROFILES = {2: "sixty_six", 3: "three_player", 4: "four_player"}


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


# The demo's round robin, which scripts/bench_tournament.py times too. The strong bot thinks 30% of
# the decision limit by default; a small budget keeps the demo to a minute or two on two cores (it
# is then weaker than in a real tournament). The C bot is left out where it cannot be built.
DEMO_BOTS = ("random", "greedy", "first-legal", "strong --budget-ms 25", "c-counter")


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
    import os

    from arena.entrants.bot_specs import BotSpecError
    from arena.entrants.bot_specs import resolve_bot as check
    from arena.entrants.registry import data_dir
    from arena.isolation.sandbox import PER_PROCESS_ENV, best_level

    # The demo's bots are the arena's own code: it runs them in the strongest sandbox this machine
    # has, and says which (a tournament of untrusted bots asks for `isolated` unless told not to);
    # where that caps memory per process only, that will do for them too (sandbox.check_memory).
    level = best_level()
    os.environ.setdefault(PER_PROCESS_ENV, "1")
    console.print(f"sandbox level for the demo: {level} (the strongest this machine gives; the "
                  "demo's bots are the arena's own, so the demo opts in to it)", soft_wrap=True)
    from bots import BUNDLED_PROFILES

    # Only the bots that declare the profile: one that declines it would stop the tournament.
    bots = [b for b in DEMO_BOTS if profile in BUNDLED_PROFILES.get(b.split()[0], (profile,))]
    try:
        check("c-counter")
    except BotSpecError as err:
        if "c-counter" in bots:
            bots.remove("c-counter")
        err_console.print(f"note: the C bot is left out of the demo: {safe(err, limit=None)}",
                          soft_wrap=True)
    # Each demo run has its own folder: a demo never overwrites earlier results.
    output = Path("results") / f"demo-{time.strftime('%Y%m%d-%H%M%S')}"
    deals = "a secret key" if seed is None else f"seed {seed}"
    players = _rules_or_fail(profile, None, None).players
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
    """One match between two random players in-process, printed deal by deal."""
    try:
        rules = load_rules(profile)
    except RulesError as err:
        raise _fail(str(err)) from None
    names = tuple(f"random-{'abcd'[seat]}" for seat in range(rules.players))
    # No bot process plays here, so nothing can eavesdrop; a seed still makes the run repeatable.
    key = new_key() if seed is None else key_from_seed(seed)
    rng = random.Random(deal_secret(key, "demo-players"))
    state = MatchState.new(rules, seed=deal_secret(key, "demo"), first_dealer=0)
    deals = "a secret key" if seed is None else f"seed {seed}"
    console.print(f"[bold]{' vs '.join(side_names(names))}[/], profile {rules.name}, deals from {deals}, "
                  f"first to {rules.match_target} game points\n")
    printed = 0
    while not state.is_over:
        legal = state.legal_actions()
        state = state.apply(legal[rng.randrange(len(legal))])
        for result in state.results[printed:]:
            for line in narrate_deal(result, names):
                console.print(line)
            console.print()
        printed = len(state.results)
    assert state.outcome is not None
    console.print(f"[bold]{narrate_outcome(state.outcome, names)}[/]")


def _rules_or_fail(profile: str, rules_file: Optional[Path], target: Optional[int]):  # noqa: ANN202
    try:
        return load_rules(profile, rules_file,
                          overrides={"match_target": target} if target is not None else None)
    except RulesError as err:
        raise _fail(str(err)) from None


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
    if not 2 <= len(bots) <= 4:
        raise _fail(f"arena play needs 2, 3 or 4 bots (one per seat), not {len(bots)}")
    if profile is None:
        profile = PLAY_PROFILES[len(bots)]
    rules = _rules_or_fail(profile, rules_file, target)
    if rules.players != len(bots):
        raise _fail(f"profile {rules.name} is for {rules.players} players, but {len(bots)} bots "
                    f"were given (give {rules.players} bots, or leave out --profile)")
    if first_dealer >= rules.players:
        raise _fail(f"--first-dealer must be a seat from 0 to {rules.players - 1}, "
                    f"not {first_dealer}")
    require_isolation(isolation)
    try:
        specs = tuple(resolve_bot(bot, data=data) for bot in bots)
    except BotSpecError as err:
        raise _fail(str(err)) from None
    for text in bots:
        # A bundled bot that does not play the variant would only decline it at the greeting.
        first = text.strip().split(" ")[0]
        if first in BUNDLED_PROFILES and rules.name not in BUNDLED_PROFILES[first]:
            raise _fail(f"{first} does not support {rules.name} (it plays "
                        f"{', '.join(BUNDLED_PROFILES[first])})")
    base = [spec.name for spec in specs]
    if len(set(base)) < len(base):
        # Seats told apart by their seat number; replace, not a new BotSpec: a registered bot
        # keeps its folder and version.
        specs = tuple(replace(spec, name=f"{spec.name}-{seat}") for seat, spec in enumerate(specs))
    # Deals from a fresh secret key (deal_keys.py), or from --seed in a research run. The match id
    # is random and unrelated to the key; with --seed it is fixed, because bots may seed themselves
    # from it (the bundled random bot does) and the same command must then give the same match.
    if seed is None:
        key, match_id = new_key(), new_match_id("play")
    else:
        err_console.print(SEED_WARNING.format(seed=seed), soft_wrap=True)
        key, match_id = key_from_seed(seed), "play-seeded"
    if record is None:
        private_folder(data, "data")  # the record holds every hand (arena_folders.py)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        record = data / "play" / f"{stamp}-{'-vs-'.join(s.name for s in specs)}-{match_id}.jsonl"
    elif os.path.lexists(record):
        # A record is never written over: the path may be another match's, stored in a
        # tournament's folder (nothing already stored is lost).
        raise _fail(f"--record {record} already exists: give a new path (a record is never "
                    "written over)")
    logs = record.parent / "logs"
    problem = not_a_folder(logs)
    if problem:  # found before any bot runs
        raise _fail(f"cannot write the record {record}: {problem}")
    limits = Limits(decision_ms=decision_ms, startup_ms=startup_ms)
    _check_bots(specs, limits, rules, hide=[record.parent])
    config = MatchConfig(rules=rules, seed=deal_secret(key, PLAY_DEAL_SET),
                         first_dealer=first_dealer, match_id=match_id, limits=limits)
    from arena.isolation.sandbox import SandboxUnavailable

    try:
        logs.mkdir(parents=True, exist_ok=True)
        result = run_match(specs, config, record_path=record, log_dir=logs)
    except SandboxUnavailable as err:  # the record's folder inside what every bot sees, say
        raise _fail(str(err)) from None
    except OSError as err:  # the folder cannot be written (permissions, a full disk)
        raise _fail(f"cannot write the record {record}: {err.strerror or err}") from None
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


def _check_bots(specs: tuple[BotSpec, ...], limits: Limits, rules: Rules,
                hide: list[Path]) -> None:
    """Start every bot once before the match, as a tournament does (preflight.py): one that
    cannot start is an error with its stderr's last lines, and nothing is played or stored (it
    was a forfeit, exit 0). A bot that declines the variant is left to the match, which records
    and says so."""
    from arena.entrants.preflight import PreflightError, problems, raise_problems

    try:
        raise_problems([p for p in problems(specs, limits, [h for h in hide if h.is_dir()],
                                            rules) if p[0] == 0])
    except PreflightError as err:
        raise _fail(f"not every bot can start, so nothing was played:\n{err}") from None


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
        load_config,
        run_tournament,
    )
    from arena.isolation.sandbox import SandboxUnavailable, parse_limits
    from arena.isolation.sandbox import describe as describe_sandbox
    from arena.results.store import Store, StoreError

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
            db = resume / "results.sqlite"
            if not db.is_file():
                raise ConfigError(f"{resume} holds no tournament (no results.sqlite)")
            if (resume / "sprt.json").is_file():  # its schedule is only a cap: the test stops it
                raise ConfigError(f"{resume} holds an SPRT test; resume it with: arena sprt "
                                  f"--resume {resume}")
            from arena.results.store import connect_read_only

            reader = connect_read_only(db)  # checked, and never written: another run may own it
            try:
                stored = Store(reader, db).tournament_config()
            finally:
                reader.close()
            if stored is None:
                raise ConfigError(f"{db} holds no tournament settings")
            # A flag not given leaves the stored setting (None would drop it).
            config = load_config(None, {**stored, "output": str(resume), "workers": workers,
                                        "cluster": cluster, "data": str(data),
                                        "affinity": affinity,
                                        "allow_self_partner": allow_self_partner or None})
        else:
            config = load_config(config_file, {
                "bots": bot, "name": name, "profile": profile,
                "matches_per_pairing": 2 * rounds if rounds else matches_per_pairing,
                "seed": seed, "workers": workers,
                "decision_ms": decision_ms, "startup_ms": startup_ms,
                "output": str(output) if output else None, "cluster": cluster,
                "sandbox": parse_limits(limit) if limit else None, "data": str(data),
                "affinity": affinity,
                "allow_self_partner": allow_self_partner or None})
            if rounds and config.deal_sets is not None:
                # Three or four players: a round is one deal set per group (-n counts those).
                config = replace(config, deal_sets=rounds)
    except (ConfigError, StoreError, ValueError) as err:
        raise _fail(str(err)) from None
    require_isolation(isolation or config.isolation or None)
    if config.cluster and workers is not None:
        err_console.print(f"note: --workers {workers} does not apply on a cluster: each Dask worker "
                          "runs as many matches at once as it has threads (dask worker --nthreads)",
                          soft_wrap=True)
    if config.affinity is True:
        from arena.isolation.worker_cores import cores_for

        if config.cluster:
            err_console.print("note: --affinity does not apply on a cluster", soft_wrap=True)
        elif not cores_for(config.worker_count(), True):
            err_console.print(f"note: --affinity: {config.worker_count()} workers are not kept "
                              "to cores (more workers than this process's cores would share "
                              "them; or not Linux)", soft_wrap=True)
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


def _read_leaderboard(db_path: Path):  # noqa: ANN202 - a pandas DataFrame
    """The leaderboard rebuilt from a results database, opened read-only (a running tournament may
    be writing it)."""
    from arena.results.ratings import leaderboard as table_of
    from arena.results.store import connect_read_only

    db = connect_read_only(db_path)
    try:
        return table_of(db)
    finally:
        db.close()


def _print_leaderboard(db_path: Path, fmt: str) -> None:
    # TrueSkill's table with the statistics of issue 17 (arena/results/stats.py): W-D-L, score and Elo with
    # 95% intervals (duplicate pairs as units), and which neighbours are not separated.
    from arena.results.stats import LEGEND, display_table
    from arena.results.stats import leaderboard as table_of
    from arena.results.store import connect_read_only

    db = connect_read_only(db_path)
    try:
        table = table_of(db)
    finally:
        db.close()
    shown = table.round({"mu": 2, "sigma": 2, "conservative": 2, "win_pct": 1, "score_pct": 1,
                         "points_per_deal": 3, "score_low": 1, "score_high": 1, "elo": 1,
                         "elo_low": 1, "elo_high": 1, "los_above": 1})
    # Bot names are data: arena.console shows them as written, never as markup.
    if fmt == "csv":
        term.data(shown.to_csv(index=False).removesuffix("\n"), limit=None)
    elif fmt == "json":
        term.data(shown.to_json(orient="records", indent=2), limit=None)
    elif fmt == "markdown":
        term.data(display_table(table).to_markdown(index=False), limit=None)
    else:
        term.data(display_table(table).to_string(index=False), limit=None)
    if fmt in ("table", "markdown"):
        term.data(LEGEND, limit=None)
    if fmt in ("table", "markdown"):
        # Four players (issue 16): each bot's results with each partner, below the ratings.
        from arena.results.ratings import partner_table
        from arena.results.store import connect_read_only

        db = connect_read_only(db_path)
        try:
            partners = partner_table(db).round({"score_pct": 1})
        finally:
            db.close()
        if len(partners):
            term.data("\nwith each partner (score_pct: the side's share of the game points):",
                      limit=None)
            term.data(partners.to_markdown(index=False) if fmt == "markdown"
                      else partners.to_string(index=False), limit=None)


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
