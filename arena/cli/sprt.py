"""``arena sprt NEW BASE``: is a new version of a bot stronger than its base? (arena/compete/sprt.py)

A thin layer, as every command: the run is a two-bot tournament (``run_tournament``: the same
store, deal key, pool, resume and stop on signals) whose schedule is ``--max-pairs`` duplicate
pairs of NEW against BASE, stopped as soon as the test on the complete pairs accepts a hypothesis
(``should_stop``). The test's own settings (Elo bounds, alpha, beta) are kept beside the store in
``DIR/sprt.json``; the stored pairs, fed to the test in schedule order, are its whole state, so
``--resume`` finds the same LLR and a concluded test the same verdict.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer

from arena import console as term
from arena.cli.bots import ISOLATION_HELP, LIMIT_HELP
from arena.cli.options import DEFAULT_DATA, SEED_HELP, AffinityOption, DataOption
from arena.match.bot_process import DEFAULT_DECISION_MS, DEFAULT_STARTUP_MS

if TYPE_CHECKING:
    from arena.compete.sprt import SprtState
    from arena.compete.sprt_folder import StoreWatch

# arena.compete.sprt and arena.results.stats (numpy, scipy, pandas: about a second) are imported where a command
# runs, never when the CLI starts: `arena --help` and every other command would pay for them.

console, err_console, safe = term.out, term.err, term.safe

DEFAULT_MAX_PAIRS = 1000
# A tenth of a tournament's limit: a bot that wins every pair still needs ~104 of them to pass
# the default bounds (0 and 10 Elo), and the strong bot thinks 30% of the limit per decision.
SPRT_DECISION_MS = DEFAULT_DECISION_MS // 10
NAME = "sprt"  # the tournament's name in the store (match ids derive from it: schedule.py)

# Exit statuses (documented in the command's help and docs/authors/sprt.md).
EXIT_VERDICT = 0      # H0 or H1 accepted: the verdict line says which
EXIT_NO_VERDICT = 1   # --max-pairs played and neither accepted
EXIT_CUT_SHORT = 3    # the run could not go on (a full disk, a failing worker): --resume DIR

# The command's --help, one line per paragraph: Typer keeps a later paragraph's line breaks.
HELP = ("Test a new version of a bot: play duplicate pairs of NEW against BASE until a sequential "
        "probability ratio test accepts H0 (NEW at most --elo0 logistic Elo stronger) or H1 (at "
        "least --elo1).\n\n"
        "Everything is stored like a tournament: arena leaderboard, arena report and --resume "
        "work on its folder.\n\n"
        "Exit status: 0 with a verdict (H0 or H1 accepted, printed), 1 when --max-pairs were "
        "played without one, 2 for a mistake in the command, 3 when the run could not go on (a "
        "full disk, a failing worker), 130 or 143 when stopped by Ctrl-C or kill (resume with "
        "--resume DIR).")

# Flags that define the test or its matches: --resume takes them from the folder instead.
_FIXED = ("new", "base", "elo0", "elo1", "alpha", "beta", "max_pairs", "profile", "decision_ms",
          "startup_ms", "seed", "output", "limit")


def sprt(
    ctx: typer.Context,
    new: Optional[str] = typer.Argument(None, metavar="NEW", show_default=False,
                                        help="The new version: a bot's name (bundled or "
                                             "registered) or a command."),
    base: Optional[str] = typer.Argument(None, metavar="BASE", show_default=False,
                                         help="The version to beat, named the same way."),
    elo0: float = typer.Option(0.0, "--elo0", help="H0: NEW is at most this many logistic Elo "
                               "stronger than BASE."),
    elo1: float = typer.Option(10.0, "--elo1", help="H1: NEW is at least this many logistic Elo "
                               "stronger (above elo0)."),
    alpha: float = typer.Option(0.05, "--alpha", help="The test's chance of accepting H1 when H0 "
                                "holds."),
    beta: float = typer.Option(0.05, "--beta", help="The test's chance of accepting H0 when H1 "
                               "holds."),
    max_pairs: int = typer.Option(DEFAULT_MAX_PAIRS, "--max-pairs", "--rounds", min=1,
                                  help="Duplicate pairs (two matches, the same deals, seats "
                                       "swapped) to play at most; --rounds as in fastchess with "
                                       "-games 2 -repeat."),
    profile: str = typer.Option("sixty_six", help="Rules profile (two players)."),
    decision_ms: int = typer.Option(SPRT_DECISION_MS, min=1,
                                    help="Time limit per decision (ms). Shorter than a "
                                         "tournament's: a test needs many pairs, and like "
                                         "fishtest's short time control it asks whether NEW is "
                                         "better, not how good both are at length."),
    startup_ms: int = typer.Option(DEFAULT_STARTUP_MS, min=1, help="Time limit to start (ms)."),
    workers: Optional[int] = typer.Option(None, "--workers", "-w", "--concurrency", min=1,
                                          help="Worker processes (default: all cores)."),
    affinity: AffinityOption = None,
    seed: Optional[int] = typer.Option(None, help=SEED_HELP),
    output: Optional[Path] = typer.Option(None, "--output", "-o",
                                          help="Output folder (default: DATA/sprt-DATE-TIME)."),
    resume: Optional[Path] = typer.Option(None, "--resume", metavar="DIR",
                                          help="Continue the test stored in DIR (its own "
                                               "settings and deals; default: a new test)."),
    limit: Optional[list[str]] = typer.Option(None, "--limit", help=LIMIT_HELP),
    cluster: Optional[str] = typer.Option(None, "--cluster", help="Run the matches on the Dask "
                                          "cluster whose scheduler is at tcp://HOST:PORT "
                                          "(default: on this machine)."),
    isolation: Optional[str] = typer.Option(None, "--isolation", help=ISOLATION_HELP),
    data: DataOption = DEFAULT_DATA,
    write_report: bool = typer.Option(True, "--report/--no-report",
                                      help="Write DIR/report/ at the end (arena report DIR "
                                           "writes it later)."),
) -> None:
    """Test a new version of a bot (HELP says how, and the exit statuses)."""
    from arena.cli.common import make_report, require_isolation
    from arena.compete.sprt import Sprt, SprtError, Verdict
    from arena.compete.sprt_folder import StoreWatch, read_test, write_test
    from arena.compete.tournament import ConfigError, load_config
    from arena.isolation.levels import SandboxUnavailable
    from arena.isolation.limits import parse_limits
    from arena.isolation.probe import describe as describe_sandbox
    from arena.results.store import StoreError

    given = {name for name in _FIXED if _from_command_line(ctx, name)}
    try:
        if resume is not None:
            if given:
                flags = ", ".join(sorted({"NEW BASE" if n in ("new", "base") else
                                          "--" + n.replace("_", "-") for n in given}))
                raise ConfigError(f"--resume continues the test stored in {resume} with its own "
                                  f"settings; these would change it: {flags} (only --workers, "
                                  "--affinity, --cluster, --isolation and --data may be given "
                                  "with --resume)")
            test, stored = read_test(resume)
            config = load_config(None, {**stored, "output": str(resume), "workers": workers,
                                        "cluster": cluster, "data": str(data),
                                        "affinity": affinity})
        else:
            if new is None or base is None:
                raise ConfigError("give the two bots: arena sprt NEW BASE (or --resume DIR)")
            test = Sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta)
            _check_two_players(profile)
            config = load_config(None, {
                "name": NAME, "bots": [new, base], "profile": profile,
                "matches_per_pairing": 2 * max_pairs, "seed": seed, "workers": workers,
                "decision_ms": decision_ms, "startup_ms": startup_ms,
                "output": str(output or _new_folder(data)), "cluster": cluster,
                "sandbox": parse_limits(limit) if limit else None, "data": str(data),
                "affinity": affinity})
    except (ConfigError, SprtError, StoreError, ValueError) as err:
        raise term.fail(str(err)) from None
    require_isolation(isolation or config.isolation or None)
    if config.seed is not None:
        from arena.match.deal_keys import SEED_WARNING

        err_console.print(SEED_WARNING.format(seed=config.seed), soft_wrap=True)
    try:
        console.print(describe_sandbox(), soft_wrap=True)
    except SandboxUnavailable as err:
        raise term.fail(str(err)) from None
    out = config.out_dir()
    new_name, base_name = _bot_names(config)
    console.print(f"[bold]sprt[/]: {safe(new_name)} (NEW) against {safe(base_name)} (BASE), "
                  f"H0 elo <= {test.elo0:g}, H1 elo >= {test.elo1:g} (logistic), alpha "
                  f"{test.alpha:g}, beta {test.beta:g}, at most {config.matches_per_pairing // 2} "
                  f"pairs; folder {safe(out, limit=None)}", soft_wrap=True)
    watch = StoreWatch(test, out, new_name)
    max_pairs = config.matches_per_pairing // 2
    if resume is None:
        try:
            write_test(out, test)
        except ConfigError as err:
            raise term.fail(str(err)) from None
    else:
        state = watch.read()
        console.print(f"resuming: {state.pairs} complete pairs stored, LLR {state.llr:+.3f}",
                      soft_wrap=True)
    if watch.state.verdict is Verdict.CONTINUE and watch.state.pairs < max_pairs:
        _play(config, watch, resume is not None)
    _print_verdict(watch, new_name, base_name, config)
    if not write_report:
        console.print(f"report: arena report {safe(out, limit=None)}", soft_wrap=True)
        raise typer.Exit(code=_exit_code(watch.state))
    from arena.compete.tournament import Stopped, stop_on_signals

    try:
        with stop_on_signals():
            make_report(out, hint=False)
    except Stopped as stop:
        err_console.print(f"stopped while writing the report; the test is complete: arena report "
                          f"{safe(out, limit=None)}", soft_wrap=True)
        raise typer.Exit(code=stop.exit_code) from None
    raise typer.Exit(code=_exit_code(watch.state))


def _exit_code(state: SprtState) -> int:
    from arena.compete.sprt import Verdict

    return EXIT_NO_VERDICT if state.verdict is Verdict.CONTINUE else EXIT_VERDICT


def _from_command_line(ctx: typer.Context, name: str) -> bool:
    # By name: Typer may run its own copy of click, whose ParameterSource is another enum.
    source = ctx.get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"


def _new_folder(data: Path) -> Path:
    """DATA/sprt-DATE-TIME: every test its own folder (``arena sprt`` twice in one second gets a
    suffix), so a second test never meets the first one's store."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    folder = data / f"sprt-{stamp}"
    count = 1
    while folder.exists():
        count += 1
        folder = data / f"sprt-{stamp}-{count}"
    return folder


def _check_two_players(profile: str) -> None:
    from arena.compete.tournament import ConfigError
    from arena.game import RulesError, load_rules

    try:
        players = load_rules(profile).players
    except RulesError as err:
        raise ConfigError(str(err)) from None
    if players != 2:
        raise ConfigError(f"arena sprt plays duplicate pairs of two bots: profile {profile} is "
                          f"for {players} players")


def _bot_names(config: Any) -> tuple[str, str]:
    """The names the store gives NEW and BASE (BASE gets a suffix when both are the same bot)."""
    from arena.compete.tournament import ConfigError, resolve_bots

    try:
        specs = resolve_bots(config)
    except ConfigError as err:
        raise term.fail(str(err)) from None
    return specs[0].name, specs[1].name


def _play(config: Any, watch: StoreWatch, resume: bool) -> None:
    """Play pairs until the test concludes or the schedule ends; the live line shows the LLR
    between its bounds (on a terminal)."""
    from arena.compete.sprt import Verdict
    from arena.compete.sprt_folder import forget_test
    from arena.compete.tournament import (
        ConfigError,
        Progress,
        Stopped,
        TournamentError,
        run_tournament,
    )
    from arena.results.store import StoreError

    bar = None
    lower, upper = watch.test.bounds
    max_pairs = config.matches_per_pairing // 2
    if console.is_terminal:
        from rich.progress import BarColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as Bar
        # The bar is the LLR's way from H0's bound (empty) to H1's (full), starting half way.
        bar = Bar(TextColumn(f"H0 {lower:+.2f}"), BarColumn(), TextColumn(f"{upper:+.2f} H1"),
                  TextColumn("{task.fields[llr]}"), TimeElapsedColumn(), console=console)
        task = bar.add_task("sprt", total=upper - lower, llr="")
        bar.update(task, completed=-lower)  # (add_task's completed is typed int)
        bar.start()

    def report(p: Progress) -> None:
        state = watch.read()
        if bar is not None:
            bar.update(task, completed=min(max(state.llr, lower), upper) - lower,
                       llr=f"LLR {state.llr:+.2f}, {state.pairs} of at most {max_pairs} pairs "
                           f"({p.done} matches)")

    try:
        run_tournament(config, resume=resume, on_progress=report,
                       should_stop=lambda: watch.state.verdict is not Verdict.CONTINUE)
    except (ConfigError, StoreError) as err:
        if not (config.out_dir() / "results.sqlite").exists():
            forget_test(config.out_dir())  # nothing was played: leave no half-made test
        raise term.fail(str(err)) from None
    except TournamentError as err:
        raise term.fail(str(err).replace("arena tournament --resume", "arena sprt --resume"),
                        code=EXIT_CUT_SHORT) from None
    except Stopped as stop:
        out = config.out_dir()
        if (out / "results.sqlite").exists():
            err_console.print(f"stopped: {stop.done} of {stop.total} matches stored, LLR "
                              f"{watch.state.llr:+.2f} after {watch.state.pairs} pairs; resume "
                              f"with: arena sprt --resume {out}", soft_wrap=True, markup=False)
        else:
            err_console.print("stopped before anything was stored", markup=False)
        raise typer.Exit(code=stop.exit_code) from None
    finally:
        if bar is not None:
            bar.stop()
    watch.read()


def _print_verdict(watch: StoreWatch, new: str, base: str, config: Any) -> None:
    from arena.compete.sprt import Verdict
    from arena.results.stats import elo_interval, score_interval

    state, penta, test = watch.state, watch.penta, watch.test
    if state.verdict is Verdict.H1:
        verdict = f"H1 accepted: {safe(new)} is at least {test.elo1:g} Elo stronger than " \
                  f"{safe(base)}"
    elif state.verdict is Verdict.H0:
        verdict = f"H0 accepted: {safe(new)} is at most {test.elo0:g} Elo stronger than " \
                  f"{safe(base)}"
    else:
        verdict = f"no verdict: neither hypothesis accepted within " \
                  f"{config.matches_per_pairing // 2} pairs"
    console.print(f"[bold]{verdict}[/]", soft_wrap=True)
    console.print(f"LLR {state.llr:+.3f} (bounds {state.lower:.3f} and {state.upper:.3f}) after "
                  f"{state.pairs} pairs ({penta.matches} matches)", soft_wrap=True)
    console.print("pentanomial (pairs in which NEW scored 0, 1/2, 1, 1 1/2, 2 match points): "
                  + " ".join(str(c) for c in penta.counts), soft_wrap=True)
    score, elo = score_interval(penta), elo_interval(penta)
    # (+ 0.0: an even score's Elo is -0.0, printed "-0.0")
    console.print(f"score of NEW: {100 * score.estimate:.1f}% (95% interval {100 * score.low:.1f}% "
                  f"to {100 * score.high:.1f}%); Elo of NEW over BASE: {elo.estimate + 0.0:+.1f} "
                  f"(95% interval {elo.low + 0.0:+.1f} to {elo.high + 0.0:+.1f}; logistic, the "
                  "pair as the unit)", soft_wrap=True)
    console.print(f"results: {safe(config.out_dir(), limit=None)}", soft_wrap=True)
