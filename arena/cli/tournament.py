"""``arena tournament`` and ``arena demo``: a round robin run on all cores (or a Dask cluster), with
its progress, leaderboard and report; the demo's among the bundled bots. The run is
``arena/compete/tournament.py``, the demo's choices ``arena/compete/demo.py``."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Optional

import typer

from arena import console as term
from arena.cli.common import make_report, print_leaderboard, require_isolation
from arena.cli.options import (
    BANK_HELP,
    DEFAULT_DATA,
    FIRST_DECISION_HELP,
    ISOLATION_HELP,
    LIMIT_HELP,
    SEED_HELP,
    AffinityOption,
    DataOption,
)
from arena.game import RulesError, load_rules
from arena.match.bot_process import DEFAULT_DECISION_MS, DEFAULT_STARTUP_MS
from arena.match.deal_keys import SEED_WARNING
from arena.match.narrate import narrate_deal, narrate_outcome, side_names

# Every line goes through arena.console, which escapes what bots wrote (names, lines, details).
console, err_console, safe = term.out, term.err, term.safe


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
        raise term.fail(str(err)) from None
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
               allow_self_partner=False, decision_ms=None, startup_ms=None, bank_ms=None,
               first_decision_ms=None, output=output,
               resume=None, limit=None, cluster=None, isolation=level, data=data_dir(),
               write_report=True)


def _demo_match(seed: int | None, profile: str) -> None:
    """One match between random players in-process, printed deal by deal."""
    from arena.compete.demo import random_match

    try:
        rules = load_rules(profile)
    except RulesError as err:
        raise term.fail(str(err)) from None
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


BAR_UPDATE_S = 0.25  # the tournament's progress bar and leader are redrawn at most this often


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
    bank_ms: Optional[int] = typer.Option(None, min=0, help=BANK_HELP),
    first_decision_ms: Optional[int] = typer.Option(None, min=0, help=FIRST_DECISION_HELP),
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
    from arena.compete.stopping import Stopped
    from arena.compete.tournament import (
        ConfigError,
        Progress,
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
        raise term.fail("give -n (matches per pairing) or --rounds (duplicate pairs per pairing), "
                    "not both")
    try:
        if resume is not None:
            # The stored settings define the tournament; a flag that would change them is refused
            # rather than silently ignored. Where and how fast it runs may change.
            given = {"CONFIG.toml": config_file, "--bot": bot, "--name": name, "--profile": profile,
                     "--matches": matches_per_pairing, "--rounds": rounds, "--seed": seed,
                     "--decision-ms": decision_ms, "--bank-ms": bank_ms,
                     "--first-decision-ms": first_decision_ms,
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
                "decision_ms": decision_ms, "startup_ms": startup_ms, "bank_ms": bank_ms,
                "first_decision_ms": first_decision_ms,
                "output": str(output) if output else None, "cluster": cluster,
                "sandbox": parse_limits(limit) if limit else None, "data": str(data),
                "affinity": affinity,
                "allow_self_partner": allow_self_partner or None}, rounds)
    except (ConfigError, StoreError, ValueError) as err:
        raise term.fail(str(err)) from None
    require_isolation(isolation or config.isolation or None)
    for note in run_notes(config, workers):
        err_console.print(note, soft_wrap=True)
    if config.seed is not None:
        err_console.print(SEED_WARNING.format(seed=config.seed), soft_wrap=True)
    try:
        console.print(describe_sandbox(), soft_wrap=True)
    except SandboxUnavailable as err:
        raise term.fail(str(err)) from None
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
        raise term.fail(str(err)) from None
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
    from arena.compete.stopping import stop_on_signals

    try:
        with stop_on_signals():
            print_leaderboard(db_path, "table")
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
