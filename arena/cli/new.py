"""``arena new DIR --lang L``: a new bot folder from a starter kit (``arena.entrants.kits``)."""

from __future__ import annotations

from pathlib import Path

import typer

from arena import console as term


def new(
    folder: Path = typer.Argument(..., metavar="DIR",
                                  help="The new bot's folder (new, or empty); its name is the "
                                       "bot's name."),
    lang: str = typer.Option(..., "--lang", help="The kit's language: a folder of kits/ (an "
                                                 "unknown one lists them)."),
) -> None:
    """Copy a starter kit to DIR as a new bot, and print the next commands.

    The bot is named after DIR; the commands printed check it, play it against greedy and submit
    it."""
    from arena.entrants.kits import KitError, new_bot

    try:
        made = new_bot(folder, lang)
    except KitError as err:
        raise term.fail(str(err)) from None
    term.data(f"created {made.folder}: bot {made.manifest.name}, from the {made.language} kit "
              "(its README says what is where)", limit=None)
    term.data("next:", limit=None)
    for step in made.next_steps:
        term.data(f"  {step}", limit=None)
