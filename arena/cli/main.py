"""The ``arena`` command (Typer): the app, its ``--version`` and ``rules`` commands, and every other
command registered from its own module of ``arena.cli`` (each a thin layer over the work below)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from arena import __version__
from arena import console as term
from arena.cli.bots import bots_app, submit
from arena.cli.check import check
from arena.cli.league import league_app
from arena.cli.new import new
from arena.cli.play import play, replay
from arena.cli.report import leaderboard, publish, report
from arena.cli.sprt import HELP as SPRT_HELP
from arena.cli.serve import serve
from arena.cli.sprt import sprt
from arena.cli.tournament import demo, tournament
from arena.game import PROFILES, RulesError, load_rules
from arena.game.rules import FLAG_FIELDS, allowed_values, flag_section

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
console, safe = term.out, term.safe


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


# The commands of a match, a tournament and its results, in the order `arena --help` lists them.
app.command()(demo)
app.command()(play)
app.command()(replay)
app.command()(tournament)
app.command()(leaderboard)
app.command()(report)
app.command()(publish)
# A bot author's: a new bot from a kit, and its conformance check.
app.command()(new)
app.command()(check)


if __name__ == "__main__":  # pragma: no cover
    app()
