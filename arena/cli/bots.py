"""``arena submit`` and ``arena bots list|show|remove``: the command line of the bot registry."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Optional

import typer

from arena import console as term
from arena.cli.common import unfinished
from arena.cli.options import DEFAULT_DATA, ISOLATION_HELP, LIMIT_HELP, DataOption
from arena.entrants.manifest import check_profiles
from arena.entrants.qualify import QUALIFYING_MATCHES
from arena.entrants.registry import RegisteredBot, Registry, RegistryError
from arena.isolation.limits import SandboxLimits, parse_limits
from arena.match.bot_process import DEFAULT_DECISION_MS, DEFAULT_STARTUP_MS, Limits

bots_app = typer.Typer(help="The registry of submitted bots (see arena submit).",
                       no_args_is_help=True)
# Every line goes through arena.console: names, manifests, answers and stderr come from bots.
console, safe = term.out, term.safe



def _fail(message: str) -> typer.Exit:
    return term.fail(message)


def submit(
    target: str = typer.Argument(..., metavar="PATH|COMMAND",
                                 help="A bot folder holding bot.toml, or a command (with --name)."),
    name: Optional[str] = typer.Option(None, help="The bot's name (needed for a command; "
                                       "overrides the manifest's; default: the manifest's)."),
    data: DataOption = DEFAULT_DATA,
    decision_ms: int = typer.Option(DEFAULT_DECISION_MS, min=1, help="Time limit per decision "
                                    "while qualifying (ms)."),
    startup_ms: int = typer.Option(DEFAULT_STARTUP_MS, min=1, help="Time limit to start (ms)."),
    limit: Optional[list[str]] = typer.Option(None, "--limit", help=LIMIT_HELP),
    matches: int = typer.Option(QUALIFYING_MATCHES, min=1, help="Qualifying matches against "
                                "the random bot (seats alternate)."),
    isolation: Optional[str] = typer.Option(None, "--isolation", help=ISOLATION_HELP),
    profile: Optional[list[str]] = typer.Option(None, "--profile", help="A variant a command "
                                                "plays (repeat; default: the two-player "
                                                "profiles). A folder declares them in bot.toml."),
) -> None:
    """Build a bot, qualify it against the random bot, and register it (or say why not)."""
    from arena.entrants.submit import submit as run_submit
    from arena.isolation.levels import SandboxUnavailable
    from arena.isolation.probe import set_isolation, support

    try:
        set_isolation(isolation)
        support()
    except (SandboxUnavailable, ValueError) as err:
        raise _fail(str(err)) from None

    try:
        sandbox = SandboxLimits.from_mapping(parse_limits(limit or []))
        if profile:
            check_profiles(profile, "--profile")
    except ValueError as err:  # ManifestError included
        raise _fail(str(err)) from None
    limits = Limits(decision_ms=decision_ms, startup_ms=startup_ms, sandbox=sandbox)
    console.print(f"submitting {safe(target, limit=None)}", soft_wrap=True)
    from arena.compete.stopping import Stopped, stop_on_signals

    try:
        # SIGTERM (the web site's upload queue stopping, `kill`) unwinds as Ctrl-C does: the
        # qualifying match's bots are ended and its temporary folder removed, where the default
        # action would leave that folder behind.
        with stop_on_signals():
            outcome = run_submit(target, name=name, data=data, limits=limits, matches=matches,
                                 profiles=profile or ())
    except OSError as err:  # the data folder cannot be written (permissions, a full disk)
        raise _fail(f"cannot submit into {data}: {term.os_error(err)}") from None
    except Stopped as stop:
        raise unfinished(stop, f"the submission of {safe(target, limit=None)}") from None
    if outcome.mistake:
        raise _fail(outcome.reason)
    if outcome.build_output and outcome.status == "rejected" and outcome.report is None:
        console.print("build output (end):", soft_wrap=True)
        for line in outcome.build_output.splitlines()[-20:]:
            term.data(line, indent="  ")
    if outcome.report is not None:
        for line in outcome.report.lines():
            term.data(line)
    if outcome.accepted:
        console.print(f"[bold green]{outcome.status}:[/] {safe(outcome.reason)}", soft_wrap=True)
        return
    console.print(f"[bold red]rejected:[/] {safe(outcome.reason)}", soft_wrap=True)
    raise typer.Exit(code=1)


def _open(data: Path) -> Registry:
    try:
        return Registry.open(data, create=False)
    except RegistryError as err:
        raise _fail(str(err)) from None


def _find(registry: Registry, text: str) -> RegisteredBot:
    name, _, version = text.partition("@")
    try:
        bot = registry.find(name, version or None)
    except RegistryError as err:
        raise _fail(str(err)) from None
    if bot is None:
        known = ", ".join(b.name for b in registry.newest()) or "none"
        raise _fail(f"no registered bot {text!r} (registered: {known})")
    return bot


@bots_app.command("list")
def bots_list(data: DataOption = DEFAULT_DATA) -> None:
    """Registered bots, newest version of each."""
    with _open(data) as registry:
        bots = registry.newest()
        if not bots:
            term.say("no registered bots")
        for bot in bots:
            count = len(registry.versions(bot.name))
            language = bot.manifest.get("language") or "-"
            term.data(f"{bot.name:<20} {bot.version}  {bot.submitted}  {language:<10} "
                      f"{count} version{'s' if count > 1 else ''}")


@bots_app.command("show")
def bots_show(
    bot_name: str = typer.Argument(..., metavar="NAME[@VERSION]"),
    data: DataOption = DEFAULT_DATA,
) -> None:
    """A registered bot: manifest, command, versions and qualification."""
    with _open(data) as registry:
        bot = _find(registry, bot_name)
        versions = registry.versions(bot.name)
    console.print(f"[bold]{safe(bot.name)}[/] version {safe(bot.version)}, submitted "
                  f"{safe(bot.submitted)}", soft_wrap=True)
    for key in ("version", "language", "author", "build"):
        if bot.manifest.get(key):
            label = "author's version" if key == "version" else key
            term.data(f"  {label}: {bot.manifest[key]}")
    term.data(f"  command: {shlex.join(bot.argv)} (in {bot.workdir})", limit=None)
    term.data(f"  profiles: {', '.join(bot.profiles)}", limit=None)
    term.data(f"  folder: {bot.folder or '(a command: its files stay where they are)'}",
              limit=None)
    q = bot.qualification
    outcomes = "; ".join(f"{m['profile'] + ' ' if m.get('profile') else ''}seat {m['seat']}: "
                         f"{m['outcome']}" for m in q.get("matches", []))
    term.data(f"  qualified: {outcomes}")
    for warning in q.get("warnings", []):
        term.data(f"  warning: {warning}")
    term.data("  versions: " + ", ".join(f"{v.version} ({v.submitted})" for v in versions),
              limit=None)


@bots_app.command("remove")
def bots_remove(
    bot_name: str = typer.Argument(..., metavar="NAME[@VERSION]",
                                    help="A name removes every version."),
    data: DataOption = DEFAULT_DATA,
) -> None:
    """Remove a registered bot (every version, or one). Tournaments already run keep their
    results."""
    name, _, version = bot_name.partition("@")
    with _open(data) as registry:
        _find(registry, bot_name)
        removed = registry.remove(name, version or None)
    term.data(f"removed {name}: version{'s' if len(removed) > 1 else ''} {', '.join(removed)}",
              limit=None)
