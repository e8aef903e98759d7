"""``arena serve DIR``: a competition's website and JSON API, and its league, in one command
(arena/web/). Parses, checks and delegates to ``arena.web.server``."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from arena import console as term
from arena.types import ConfigError

if TYPE_CHECKING:
    from arena.web.settings import Settings

console, safe = term.out, term.safe

SERVE_LOCK = "serve.lock"  # in the competition's folder, held while a server runs


def serve(
    folder: Path = typer.Argument(..., metavar="DIR", help="The competition's folder "
                                  "(competition.toml; a commented one is written if missing)."),
    host: str = typer.Option("127.0.0.1", help="The address to listen on (put a reverse proxy "
                             "with HTTPS in front for anything but this machine)."),
    port: int = typer.Option(8066, min=0, max=65535, help="The port (0: any free port)."),
    add_admin: str | None = typer.Option(None, "--add-admin", metavar="NAME", help="Make an "
                                         "admin account NAME (the password is asked for, or "
                                         "read from the first line of stdin when it is not a "
                                         "terminal), then exit. Default: serve."),
) -> None:
    """Serve a competition: authors register and upload bots (built and qualified in the
    sandbox), its league plays them; both stop on Ctrl-C or SIGTERM."""
    try:
        from arena.web.server import bind, isolation_env, run_site
        from arena.web.settings import init_competition, load_settings
    except ImportError as err:  # the web extra is not installed
        raise term.fail(f"arena serve needs the web extra ({err.name} is missing): pip install "
                        "'sixtysix-arena[web]'") from None
    from arena.cli.common import require_isolation
    from arena.compete.folder_lock import FolderLock, FolderLockedError
    from arena.isolation.levels import SandboxUnavailable
    from arena.isolation.probe import describe

    try:
        written = init_competition(folder)
        if written is not None:
            console.print(f"wrote {safe(written, limit=None)}: the competition's settings, "
                          "commented; edit them and start again to change them", soft_wrap=True)
        settings = load_settings(folder)
    except ConfigError as err:
        raise term.fail(str(err)) from None
    if add_admin is not None:
        _add_admin(settings, add_admin)
        return
    isolation_env(settings)
    require_isolation(settings.isolation or None)  # before any upload is built or bot plays
    try:
        console.print(describe(), soft_wrap=True)
    except SandboxUnavailable as err:
        raise term.fail(str(err)) from None
    with ExitStack() as held:
        # One server per folder, before anything is written or started: a second one wrote the
        # league's settings again and put a submission under way back in the queue, then stopped
        # when its league found the league's folder taken.
        try:
            held.enter_context(FolderLock(settings.folder, "competition", SERVE_LOCK))
        except FolderLockedError as err:
            who = f"process {err.holder}" if err.holder.isdigit() else "another process"
            raise term.fail(f"{folder} is served already, by {who}: stop that arena serve "
                            f"first (kill {err.holder or 'PID'}), or serve another folder") \
                from None
        except OSError as err:
            raise term.fail(f"cannot use the folder {folder}: {term.os_error(err)}") from None
        try:  # the port first: a taken port fails at once, before the league starts
            sock = bind(host, port)
        except OSError as err:
            raise term.fail(f"cannot serve on {host}:{port}: {err.strerror or err}; try --port "
                            "0") from None
        try:
            outcome = run_site(settings, sock, say=lambda line: console.print(
                safe(line, limit=None), soft_wrap=True, markup=False))
        except ConfigError as err:
            raise term.fail(str(err)) from None
        finally:
            sock.close()
    if outcome.exit_code:
        raise typer.Exit(code=outcome.exit_code)


def _add_admin(settings: Settings, name: str) -> None:
    """Make the admin account ``name`` in the competition's site store (arena/web/admin.py)."""
    import sys

    from arena.web import admin
    from arena.web.accounts import AccountError
    from arena.web.site_store import SiteStore

    if sys.stdin.isatty():
        password = typer.prompt(f"password for the admin {name}", hide_input=True,
                                confirmation_prompt=True)
    else:  # a script: the first line of stdin (as docker login --password-stdin)
        password = sys.stdin.readline().rstrip("\r\n")
    try:
        admin.add_admin(SiteStore(settings.folder), name, password)
    except AccountError as err:
        raise term.fail(str(err)) from None
    console.print(f"admin {safe(name)} made; POST /api/tokens with its name and password gives "
                  "its API token", soft_wrap=True)
