"""The competition's league, as ``arena serve`` runs it: ``python -m arena.web.league_child DIR``,
a child process of the server (a league's stop handling and worker pool belong to a process's
main thread; uvicorn holds the server's). Plays ``DIR/league`` with the registry ``DIR/data``
until SIGINT or SIGTERM, printing the league's events.

Not ``arena league``: the site decides whether the league publishes its static pages
(``publish_every`` in competition.toml, 0: never). The site's API reads the league's store
itself, and a stop without a publish to finish ends within a second or two, where the league's
last publish may take its whole bound (compete/league.STOP_PUBLISH_S, 6 s) on a loaded machine,
and ``arena serve`` must be down within ten."""

from __future__ import annotations

import sys
from pathlib import Path

from arena import console as term
from arena.types import ConfigError


def main(folder: Path) -> int:
    from arena.compete.league import LeagueProgress, run_league
    from arena.compete.league_config import LeagueError
    from arena.compete.stopping import Stopped
    from arena.report import ReportError
    from arena.web.settings import load_settings

    stored = 0

    def show(progress: LeagueProgress) -> None:
        nonlocal stored
        stored = progress.stored
        if progress.event:
            term.data(progress.event, limit=None)

    try:
        settings = load_settings(folder)
        run_league(settings.league_dir, data=settings.data_dir, on_progress=show,
                   publish=settings.publish_every > 0)
    except (ConfigError, ReportError) as err:
        term.error(str(err))
        return 2
    except LeagueError as err:
        term.error(str(err))
        return 1
    except Stopped as stop:
        term.err.print(f"the league stopped: {stored} matches stored", soft_wrap=True,
                       markup=False)
        return stop.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
