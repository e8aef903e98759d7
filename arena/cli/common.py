"""What several commands do alike: check the sandbox level before any bot runs, write a report,
print a leaderboard.

Shared here, below every command module, so that no command module imports another's private
helpers (``arena.cli.main`` imports the others to register them).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Optional

from arena import console as term

if TYPE_CHECKING:
    from arena.compete.stopping import Stopped


def require_isolation(level: Optional[str]) -> None:
    """Ask for a sandbox level (None: ARENA_ISOLATION, else isolated) and check the machine gives
    it, before any bot runs; exit 2 naming what is missing and the opt-in for a weaker one."""
    from arena.isolation.levels import SandboxUnavailable
    from arena.isolation.probe import set_isolation, support

    try:
        set_isolation(level)
        support()
    except (SandboxUnavailable, ValueError) as err:
        raise term.fail(str(err)) from None


def make_report(folder: Path, hint: bool = True) -> Path:
    """Write the tournament's report (``arena.report``) and say where it is; exit 2 if it cannot."""
    from arena.report import ReportError
    from arena.report import write_report as build

    try:
        page = build(folder)
    except ReportError as err:
        raise term.fail(str(err)) from None
    shown = term.safe(folder, limit=None)
    term.out.print(f"report: {term.safe(page, limit=None)}", soft_wrap=True)
    if hint:
        term.out.print(f"  open {term.safe(page.resolve().as_uri(), limit=None)} in a browser, or "
                       f"serve it on localhost: arena report {shown} --serve; to put it on a web "
                       f"server: arena publish {shown} OUT (the page, charts and records, nothing "
                       "private)", soft_wrap=True)
    return page


def print_leaderboard(db_path: Path, fmt: str) -> None:
    """A store's leaderboard in a format of ``arena.results.tables`` (``arena leaderboard``, and
    ``arena tournament`` at its end)."""
    from arena.results.tables import leaderboard_text

    # Bot names are data: arena.console shows them as written, never as markup.
    for block in leaderboard_text(db_path, fmt):
        term.data(block, limit=None)


def unfinished(stop: Stopped, what: str) -> Exception:
    """A one-shot command (a check, a submission) stopped by SIGINT or SIGTERM: one line on stderr
    (``stopped by SIGTERM: the check of X did not finish``) and the exit a shell expects (130,
    143); raise what this returns."""
    import typer

    term.err.print(f"{stop}: {what} did not finish", soft_wrap=True, markup=False)
    return typer.Exit(code=stop.exit_code)
