"""The ``arena`` command line (Typer). Each command is a thin layer over a module that does the work."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from arena import __version__
from arena.game import PROFILES, MatchState, RulesError, load_rules
from arena.game.rules import FLAG_FIELDS, allowed_values
from arena.narrate import narrate_deal, narrate_outcome

app = typer.Typer(help="Sixty-Six Arena: run bot matches and tournaments for Sixty-Six and Schnapsen.",
                  no_args_is_help=True, add_completion=False)
rules_app = typer.Typer(help="Rules profiles and their flags (RULES.md §11).", no_args_is_help=True)
app.add_typer(rules_app, name="rules")

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)


def _fail(message: str) -> typer.Exit:
    err_console.print(f"[bold red]error:[/] {message}")
    return typer.Exit(code=2)


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
                                              help="TOML file of flag overrides."),
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
    source = f" (with overrides from {rules_file})" if rules_file else ""
    console.print(f"rules profile [bold]{rules.name}[/]{source}: flags of RULES.md §11", soft_wrap=True)
    for name in rules.flags():
        meta = FLAG_FIELDS[name].metadata
        value = values[name]
        text = str(value).lower() if isinstance(value, bool) else str(value)
        console.print(f"  §11.{meta['row']:<3} {name:<29} = [bold]{text:<22}[/] {meta['doc']}; "
                      f"allowed: {allowed_values(name)}", soft_wrap=True)


@app.command()
def demo(
    seed: int = typer.Option(1, help="Seed of the match's deals and of the players' choices."),
    profile: str = typer.Option("sixty_six", help="Rules profile."),
) -> None:
    """Play one match between two random players in-process and print it deal by deal."""
    try:
        rules = load_rules(profile)
    except RulesError as err:
        raise _fail(str(err)) from None
    names = ("random-a", "random-b")
    rng = random.Random(seed)
    state = MatchState.new(rules, seed=seed, first_dealer=0)
    console.print(f"[bold]{names[0]} vs {names[1]}[/], profile {rules.name}, seed {seed}, "
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


if __name__ == "__main__":  # pragma: no cover
    app()
