"""``arena serve DIR``: the site under uvicorn and the competition's league beside it, started and
stopped together.

The league runs in a child process (``league_child``): it installs its own signal handling
(compete/stopping.stop_on_signals) and its worker pool, which belong to a process's main thread,
and uvicorn holds this one's. SIGINT or SIGTERM to this process stops the site (uvicorn's graceful
shutdown, ``SITE_STOP_S``), ends the upload under way (it waits again for the next start), and
passes SIGTERM to the league, which stores what it finished and stops: both are down within ten
seconds, the bound ``docker stop`` and systemd give (a league that publishes static pages may take
its last publish's bound, compete/league.STOP_PUBLISH_S, first). A league that ends by itself (an error) stops the site too:
a competition whose league does not play is not served as if it did."""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass
from types import FrameType
from typing import Callable

import uvicorn

from arena.arena_folders import private_file
from arena.web.api import create_app
from arena.web.child import guarded
from arena.web.settings import Settings, write_league_settings

SITE_LOG = "site.log"
SITE_STOP_S = 3          # uvicorn's grace for requests in flight
LEAGUE_STOP_S = 9.0      # the league's own stop is bounded by 6 s; SIGKILL after this
_LEAGUE_CHECK_S = 0.5


@dataclass
class Outcome:
    signum: int = 0          # the signal that stopped it, 0 when none did
    league_status: int | None = None
    league_failed: bool = False

    @property
    def exit_code(self) -> int:
        if self.league_failed:
            return 1
        return 128 + self.signum if self.signum else 0


class _Server(uvicorn.Server):
    """uvicorn's server, whose stop signals also reach the league, and which does not raise the
    signal again once it has stopped (uvicorn's default): the league must be waited for first."""

    def __init__(self, config: uvicorn.Config, on_signal: Callable[[int], None]):
        super().__init__(config)
        self.on_signal = on_signal
        self.signum = 0

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.should_exit and sig == signal.SIGINT:
            self.force_exit = True  # a second Ctrl-C: do not wait for requests in flight
        self.should_exit = True
        self.signum = self.signum or sig
        self.on_signal(sig)


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound before anything else starts: a taken port fails at once.
    ``OSError`` when it cannot be had."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
        sock.set_inheritable(False)
    except BaseException:
        sock.close()
        raise
    return sock


def site_log(settings: Settings) -> logging.Handler:
    """The site's log file (private: it holds the server's paths and tracebacks)."""
    path = settings.folder / SITE_LOG
    private_file(path)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("arena.web")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    return handler


def run_site(settings: Settings, sock: socket.socket,
             say: Callable[[str], None] = print) -> Outcome:
    """Serve the site on ``sock`` and play the league until a stop signal (or the league's end)."""
    write_league_settings(settings)
    handler = site_log(settings)
    app = create_app(settings)
    league = subprocess.Popen(guarded([sys.executable, "-m", "arena.web.league_child",
                                       str(settings.folder)]), stdin=subprocess.DEVNULL)
    outcome = Outcome()
    told = threading.Event()

    def tell_league(sig: int) -> None:
        if not told.is_set() and league.poll() is None:
            told.set()
            league.send_signal(signal.SIGTERM)

    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on",
                            timeout_graceful_shutdown=SITE_STOP_S)
    server = _Server(config, tell_league)

    def watch_league() -> None:
        while not server.should_exit:
            try:
                status = league.wait(_LEAGUE_CHECK_S)
            except subprocess.TimeoutExpired:
                continue
            if not told.is_set():
                outcome.league_failed = True
                say(f"error: the league stopped by itself (status {status}); see "
                    f"{settings.league_dir / 'league.log'}; stopping the site")
                server.should_exit = True
            return

    watcher = threading.Thread(target=watch_league, name="league-watch", daemon=True)
    watcher.start()
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    say(f"serving the competition {settings.name} at http://{shown}:{port}/ "
        f"(its league in {settings.league_dir}; Ctrl-C or kill -TERM stops both)")
    try:
        server.run(sockets=[sock])
    finally:
        tell_league(signal.SIGTERM)
        try:
            outcome.league_status = league.wait(LEAGUE_STOP_S)
        except subprocess.TimeoutExpired:
            say("error: the league did not stop in time; ended")
            league.kill()
            outcome.league_status = league.wait()
        logging.getLogger("arena.web").removeHandler(handler)
        handler.close()
    outcome.signum = server.signum
    return outcome


def isolation_env(settings: Settings) -> None:
    """The competition's sandbox level for every child (the league's and the queue's ``arena``
    commands read ``ARENA_ISOLATION`` when given no --isolation)."""
    from arena.isolation.levels import ISOLATION_ENV

    if settings.isolation:
        os.environ[ISOLATION_ENV] = settings.isolation
