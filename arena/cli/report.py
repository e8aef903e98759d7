"""``arena leaderboard``, ``arena report`` and ``arena publish``: a tournament's results, rebuilt
from its store, as a table, a report (``arena/report/``) or a folder for a static web host."""

from __future__ import annotations

from pathlib import Path

import typer

from arena import console as term
from arena.cli.common import make_report, print_leaderboard
from arena.temp_folders import TempFolder

console, safe = term.out, term.safe


def leaderboard(
    folder: Path = typer.Argument(..., help="A tournament folder (holding results.sqlite)."),
    fmt: str = typer.Option("table", "--format", "-f", help="table, csv, json or markdown."),
) -> None:
    """Print a tournament's leaderboard, rebuilt from its stored results."""
    if fmt not in ("table", "csv", "json", "markdown"):
        raise term.fail(f"unknown format {fmt!r}: use table, csv, json or markdown")
    from arena.results.store import StoreError

    db_path = folder / "results.sqlite"
    if not db_path.is_file():
        raise term.fail(f"{folder} holds no tournament (no results.sqlite)")
    import sqlite3

    from pandas.errors import DatabaseError as PandasDatabaseError

    try:
        print_leaderboard(db_path, fmt)
    except StoreError as err:
        raise term.fail(str(err)) from None
    except (sqlite3.Error, PandasDatabaseError) as err:  # (pandas wraps sqlite3's errors)
        raise term.fail(f"{db_path} is not a results database this arena can read: {err}") from None


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

    from arena.compete.stopping import Stopped, stop_on_signals
    from arena.report import ReportError
    from arena.report import publish as publish_report
    from arena.report.serve import make_server, report_url

    if not (folder / "results.sqlite").is_file():
        raise term.fail(f"{folder} holds no tournament (no results.sqlite)")
    # What is served is what `arena publish` writes, in a temporary folder: never the tournament
    # folder, whose database (the deal key) and logs (the bots' stderr) are private.
    with TempFolder("serve") as scratch:
        site = scratch / "site"
        try:  # the port first: a taken port fails at once, not after the charts are drawn
            server = make_server(site, port)
        except OSError as err:
            raise term.fail(f"cannot serve on port {port}: {err.strerror or err}; try --port 0") \
                from None
        try:
            make_report(folder, hint=False)
            try:
                publish_report(folder, site)
            except ReportError as err:
                raise term.fail(str(err)) from None
            console.print(f"serving the published report of {safe(folder, limit=None)} at "
                          f"{report_url(server)} (Ctrl-C stops)", soft_wrap=True)
            # SIGTERM (`kill`, a service manager's stop) ends it as Ctrl-C does: by its default
            # action the process would die on the spot, and leave the temporary folder behind.
            with stop_on_signals():
                server.serve_forever()
        except (KeyboardInterrupt, Stopped):
            pass
        finally:
            server.server_close()


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
        raise term.fail(str(err)) from None
    console.print(f"published: {safe(page.parent, limit=None)} (index.html, charts, bots/, "
                  "records/, replays/): copy the folder to any static host", soft_wrap=True)
