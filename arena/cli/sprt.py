"""``arena sprt NEW BASE``: is a new version of a bot stronger than its base? The command parses,
prints and sets the exit status; the run is ``arena/compete/sprt_run.py`` (a two-bot tournament
stopped by the test, resumable), the test itself ``arena/compete/sprt.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from arena import console as term
from arena.cli.options import (
    DEFAULT_DATA,
    ISOLATION_HELP,
    LIMIT_HELP,
    SEED_HELP,
    AffinityOption,
    DataOption,
)
from arena.match.bot_process import DEFAULT_DECISION_MS, DEFAULT_STARTUP_MS

if TYPE_CHECKING:
    from arena.compete.sprt import SprtState
    from arena.compete.sprt_run import Watch
    from arena.compete.tournament import Progress, TournamentConfig

# arena.compete.sprt_run and arena.results.stats (numpy, scipy, pandas: about a second) are
# imported where a command runs, never when the CLI starts: `arena --help` and every other command
# would pay for them.

console, err_console, safe = term.out, term.err, term.safe

DEFAULT_MAX_PAIRS = 1000
# A tenth of a tournament's limit: a bot that wins every pair still needs ~104 of them to pass
# the default bounds (0 and 10 Elo), and the strong bot thinks 30% of the limit per decision.
SPRT_DECISION_MS = DEFAULT_DECISION_MS // 10

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
    from arena.compete.sprt_run import Watch, bot_names, new_test, resumed_test, write_settings
    from arena.compete.tournament import ConfigError
    from arena.isolation.levels import SandboxUnavailable
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
            test, config = resumed_test(resume, workers=workers, cluster=cluster, data=data,
                                        affinity=affinity)
        else:
            if new is None or base is None:
                raise ConfigError("give the two bots: arena sprt NEW BASE (or --resume DIR)")
            test = Sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta)
            config = new_test(new, base, profile=profile, max_pairs=max_pairs, seed=seed,
                              workers=workers, decision_ms=decision_ms, startup_ms=startup_ms,
                              output=output, cluster=cluster, limit=limit, data=data,
                              affinity=affinity)
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
    try:
        new_name, base_name = bot_names(config)
    except ConfigError as err:
        raise term.fail(str(err)) from None
    console.print(f"[bold]sprt[/]: {safe(new_name)} (NEW) against {safe(base_name)} (BASE), "
                  f"H0 elo <= {test.elo0:g}, H1 elo >= {test.elo1:g} (logistic), alpha "
                  f"{test.alpha:g}, beta {test.beta:g}, at most {config.matches_per_pairing // 2} "
                  f"pairs; folder {safe(out, limit=None)}", soft_wrap=True)
    watch = Watch(test, out, new_name)
    max_pairs = config.matches_per_pairing // 2
    if resume is None:
        try:
            write_settings(out, test)
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
    from arena.compete.stopping import Stopped, stop_on_signals

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


def _play(config: TournamentConfig, watch: Watch, resume: bool) -> None:
    """Play pairs until the test concludes or the schedule ends (``play_test``); the live line
    shows the LLR between its bounds (on a terminal)."""
    from arena.compete.sprt_run import play_test
    from arena.compete.stopping import Stopped
    from arena.compete.tournament import ConfigError, TournamentError
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

    def report(p: Progress, state: SprtState) -> None:
        if bar is not None:
            bar.update(task, completed=min(max(state.llr, lower), upper) - lower,
                       llr=f"LLR {state.llr:+.2f}, {state.pairs} of at most {max_pairs} pairs "
                           f"({p.done} matches)")

    try:
        play_test(config, watch, resume, on_progress=report)
    except (ConfigError, StoreError) as err:
        raise term.fail(str(err)) from None
    except TournamentError as err:
        raise term.fail(str(err), code=EXIT_CUT_SHORT) from None
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


def _print_verdict(watch: Watch, new: str, base: str, config: TournamentConfig) -> None:
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
