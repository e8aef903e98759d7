"""``arena check BOT``: the conformance battery for a bot's author (``arena.entrants.check``);
docs/authors/check.md says what it checks and the JSON it writes."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Optional

import typer

from arena import console as term
from arena.cli.options import ISOLATION_HELP, LIMIT_HELP
from arena.cli.common import require_isolation, unfinished
from arena.cli.options import DEFAULT_DATA, DataOption
from arena.isolation.limits import SandboxLimits, parse_limits
from arena.match.bot_process import DEFAULT_DECISION_MS, DEFAULT_STARTUP_MS, Limits


class Format(StrEnum):
    TEXT = "text"
    JSON = "json"


def check(
    bot: str = typer.Argument(..., metavar="BOT",
                              help="A bot folder holding bot.toml, a bot's name (bundled or "
                                   "registered) or a command."),
    output_format: Format = typer.Option(Format.TEXT, "--format",
                                         help="text, or json for a CI job "
                                              "(docs/authors/check.md)."),
    profile: Optional[list[str]] = typer.Option(None, "--profile",
                                                help="Check only this profile's situations "
                                                     "(repeat; default: the profiles the bot "
                                                     "declares, every one for a command)."),
    ignore_claims: bool = typer.Option(False, "--ignore-claims",
                                       help="Report wrong and missed claims as warnings (a bot "
                                            "that plays at random on purpose)."),
    decision_ms: int = typer.Option(DEFAULT_DECISION_MS, min=1,
                                    help="Time limit per decision (ms)."),
    startup_ms: int = typer.Option(DEFAULT_STARTUP_MS, min=1, help="Time limit to start (ms)."),
    limit: Optional[list[str]] = typer.Option(None, "--limit", help=LIMIT_HELP),
    isolation: Optional[str] = typer.Option(None, "--isolation", help=ISOLATION_HELP),
    data: DataOption = DEFAULT_DATA,
) -> None:
    """Check that a bot speaks the protocol: scripted situations of every kind.

    Each answer is judged against PROTOCOL.md: exit 0 if the bot conforms, 1 if not (each failure
    with the line sent, the line received and the section it breaks)."""
    from arena.compete.stopping import Stopped, stop_on_signals
    from arena.entrants.check import CheckError, check_bot
    from arena.isolation.levels import SandboxUnavailable

    require_isolation(isolation)
    try:
        sandbox = SandboxLimits.from_mapping(parse_limits(limit or []))
    except ValueError as err:
        raise term.fail(str(err)) from None
    limits = Limits(decision_ms=decision_ms, startup_ms=startup_ms, sandbox=sandbox)
    try:
        # SIGTERM (`kill`, a supervisor) unwinds as Ctrl-C does: the bot is ended and the check's
        # temporary folders (a copy of the bot, its stderr) are removed, where the default action
        # would leave them behind.
        with stop_on_signals():
            report = check_bot(bot, limits, data=data, profiles=profile or (),
                               ignore_claims=ignore_claims)
    except (CheckError, SandboxUnavailable) as err:
        raise term.fail(str(err)) from None
    except OSError as err:  # a folder that cannot be read or copied
        raise term.fail(f"cannot check {bot}: {term.os_error(err)}") from None
    except Stopped as stop:
        raise unfinished(stop, f"the check of {term.safe(bot, limit=None)}") from None
    if output_format is Format.JSON:
        term.data(json.dumps(report.to_dict(), indent=2), limit=None)
    else:
        for line in report.lines():
            term.data(line, limit=None)
    if not report.passed:
        raise typer.Exit(code=1)
