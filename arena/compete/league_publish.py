"""Publishing a running league: the tournament report (``arena.report.publish``: pages, charts,
statistics, replays and public records), plus the league's own page (the ladder now, every version
of every bot) and a chart of each bot's rating across its versions, switched in atomically.

Layout of the publish folder ``PUBLISH`` (``league.toml``'s ``publish``, default ``DIR/public``)::

    PUBLISH/builds/000042/   one complete build (index.html, league.html, charts, records, ...)
    PUBLISH/current          a symbolic link to the newest complete build: serve this

A build is written whole into a new folder, then ``current`` is pointed at it by renaming a new
link over the old one (``os.replace``: one atomic rename, so a static host following ``current``
sees the old build or the new one, never half of one). The build before the current one is kept
(a request that started on it may still be reading); older ones are removed.

While the league runs, ``Publisher`` publishes in a process of its own, one publish at a time,
and the league plays on meanwhile.

Only matches whose duplicate partner is stored are published (``arena.report.public`` withholds
the records and replays of a half-played deal set: its deals would tell a bot the cards of a match
still to be played).
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import sqlite3
import time
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path

from arena.arena_folders import public_folder_mark
from arena.compete.league_config import LeagueConfig
from arena.compete.league_store import read_ladder
from arena.compete.pool import main_left_out, stop_signals_held
from arena.report.league_page import CHART, PAGE  # noqa: F401 (CHART: as before)
from arena.results.league_ladder import LadderRow
from arena.results.store import DB_NAME

CURRENT = "current"
BUILDS = "builds"
_PR_SET_PDEATHSIG = 1

def publish_league(folder: Path, config: LeagueConfig, data: Path | None = None) -> Path:
    """Build the league's public folder anew and switch ``PUBLISH/current`` to it; returns the
    path of ``PUBLISH/current/index.html``. Raises ``arena.report.ReportError`` (a store the
    report cannot read, a folder it cannot write)."""
    from arena.report import ReportError, publish
    from arena.report.prune import ReplayPolicy
    from arena.report.snapshot import read_snapshot
    from arena.results.store import StoreError

    target = config.publish_dir(folder).absolute()
    builds = target / BUILDS
    # Every page of the build from one state of the store (report.snapshot), without the matches
    # waiting for their duplicate partner: the report, the ladder and its chart count the same
    # matches, and none of them shows a match held back.
    try:
        snapshot = read_snapshot(folder / DB_NAME, hold_back=True)
    except (StoreError, sqlite3.Error) as err:
        raise ReportError(f"cannot open {folder / DB_NAME}: {err}") from None
    try:
        builds.mkdir(parents=True, exist_ok=True)
        public_folder_mark(target)  # public, but no bot is given a path in it (arena_folders.py)
        numbers = [int(p.name) for p in builds.iterdir() if p.name.isdigit()]
        build = builds / f"{max(numbers, default=0) + 1:06d}"
        # The current build's records, archives, charts and replay pages are linked into the new
        # one where made from the same data, not made again; a replay page only for the matches
        # people come to watch (report.prune); the records of each closed block of matches in
        # one archive (report.archive).
        current = target / CURRENT
        publish(folder, build, beside=[("The league's ladder", PAGE)], snapshot=snapshot,
                policy=ReplayPolicy(), previous=current.resolve() if current.is_dir() else None,
                packed=True)
        rows, counts = read_ladder(folder, data, db=snapshot.db)
        _write_league_page(snapshot.db, build, config.name, rows, counts,
                           previous=target / CURRENT)
        _switch(target, build)
    except OSError as err:
        raise ReportError(f"cannot publish the league to {target}: {err.strerror or err}") \
            from None
    finally:
        snapshot.close()
    return target / CURRENT / "index.html"

class Publisher:
    """Publishes a running league in a process of its own while its workers play on. Between two
    pairs, a publish held every worker idle for as long as it took: it draws every chart and
    renders the new replay pages, seconds for a few hundred matches, more as the league grows.

    One publish at a time, in a process made ready beforehand (``prepare``): it imports the
    report's libraries (pandas, matplotlib: seconds of CPU on a busy machine) and then waits for
    its turn, so that a publish, the stop's last one above all (which must fit in
    league.STOP_PUBLISH_S), starts at once. The process stays for the next turn: what it keeps
    (the rating replay it continues, ratings.rate) makes the next publish cheaper. ``stop()``
    ends the publish in progress and the process: the half-written build it leaves is never
    current, and the next publish's switch removes it (``_switch``)."""

    def __init__(self, folder: Path, config: LeagueConfig, data: Path | None):
        self.folder, self.config, self.data = folder, config, data
        self._process: BaseProcess | None = None
        self._conn: Connection | None = None
        self._busy = False
        self.stored = 0  # the league's matches when the publish in progress started
        self._started = 0.0  # time.monotonic() then

    @property
    def busy(self) -> bool:
        return self._busy

    def prepare(self) -> None:
        """Have a publishing process ready (started, its libraries imported, waiting)."""
        if self._process is not None:
            return
        context = multiprocessing.get_context("spawn")  # not forked: the league has threads
        ours, theirs = context.Pipe(duplex=True)
        process = context.Process(target=_publish_apart, name="publisher", daemon=True,
                                  args=(self.folder, self.config, self.data, theirs, os.getpid()))
        # Known before it starts, so that a stop raised meanwhile still ends it (stop()): two
        # publishes at once would race for the next build's number.
        self._process, self._conn = process, ours
        # Started with the stop signals held (pool.stop_signals_held), whose mask it inherits: a
        # Ctrl-C to the process group while it imports would print its traceback (it ignores
        # SIGINT once it runs).
        try:
            with stop_signals_held(), main_left_out(_publish_apart):
                process.start()
        except BaseException:
            self.stop()
            raise
        finally:
            theirs.close()

    def start(self, stored: int) -> None:
        """Begin a publish of the league as its store holds it now (``stored`` matches)."""
        if self._busy:
            raise RuntimeError("a publish is already in progress")
        self.prepare()
        assert self._conn is not None
        try:
            self._conn.send(stored)  # its turn
        except OSError:  # it died waiting (killed from outside): a new one
            self.stop()
            self.prepare()
            assert self._conn is not None
            self._conn.send(stored)
        self._busy, self.stored, self._started = True, stored, time.monotonic()

    def running_s(self) -> float:
        """Seconds since the publish in progress started (0 when none is)."""
        return time.monotonic() - self._started if self._busy else 0.0

    def outcome(self) -> tuple[Path | None, str] | None:
        """None while a publish runs or when none was started; else what the finished one gave:
        (the path of ``PUBLISH/current/index.html``, "") or (None, why it failed)."""
        if not self._busy or self._process is None or self._conn is None:
            return None
        if self._conn.poll():
            try:
                result: tuple[Path | None, str] = self._conn.recv()
            except (EOFError, OSError):  # it ended without a word
                self._process.join()
                result = (None, f"the publishing process ended (exit status "
                                f"{self._process.exitcode}) before it was done")
            else:
                self._busy = False  # it waits for its next turn
                return result
        elif self._process.is_alive():
            return None
        else:
            result = (None, f"the publishing process ended (exit status "
                            f"{self._process.exitcode}) before it was done")
        self.stop()
        return result

    def wait(self, timeout: float) -> tuple[Path | None, str] | None:
        """``outcome()`` once the publish in progress has ended, waiting at most ``timeout``
        seconds for it; None if it is still running then (or none was started)."""
        deadline = time.monotonic() + timeout
        while self._busy and self._conn is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self._conn.poll(min(left, 0.1))  # its answer, or its death, ends the wait early
            found = self.outcome()
            if found is not None:
                return found
        return None

    def stop(self) -> None:
        """End the publish in progress and the process waiting, if any, and wait for them."""
        process, conn = self._process, self._conn
        self._process = self._conn = None
        self._busy = False
        if process is not None and process.pid is not None:  # None: it never started
            if process.is_alive():
                process.kill()
            process.join()
            process.close()
        if conn is not None:
            conn.close()

def _publish_apart(folder: Path, config: LeagueConfig, data: Path | None, conn: Connection,
                   parent: int) -> None:
    """The publisher's process: imports what a publish needs, then at each turn publishes and
    sends the outcome back."""
    import ctypes

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the league's: it ends this process
    # Blocked while it was started (Publisher.prepare): SIGTERM is how the league ends it.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    try:  # and so does the league's end, however it ends (Linux; elsewhere it finishes alone)
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        return
    # It reads the store (with its deal key) beside the league's running bots: at `limits` as a
    # normal user they share its user id, and must not attach to it (issue 29), as to a worker.
    from arena.isolation.probe import not_dumpable

    not_dumpable()
    # A publish forks processes that pack the records and draw the charts beside the pages
    # (report._packers). multiprocessing lets no daemonic process have children, lest they be
    # orphaned when it is terminated; this one's end ends them (their PR_SET_PDEATHSIG), and its
    # own daemon flag is only for the league's exit, which kills it in any case.
    multiprocessing.current_process().daemon = False
    # What a publish imports, imported while it waits: pandas, matplotlib, the report.
    import arena.report.charts  # noqa: F401
    import arena.report.replay  # noqa: F401
    from arena.report import ReportError

    while True:
        try:
            conn.recv()
        except (EOFError, OSError):  # the league has ended
            return
        try:
            outcome: tuple[Path | None, str] = (publish_league(folder, config, data), "")
        except (ReportError, OSError) as err:
            outcome = (None, str(err))
        except Exception as err:  # noqa: BLE001 - said by the league in one line, not here
            outcome = (None, f"{type(err).__name__}: {err}")
        conn.send(outcome)

def _switch(target: Path, build: Path) -> Path | None:
    """Point ``target/current`` at ``build`` in one rename, then remove every build but this one
    and the one it replaces (a request that began there may still be reading it, and so may an
    interrupted publish's leftovers: they go too). Returns the build it pointed at before."""
    current = target / CURRENT
    previous = (target / os.readlink(current)) if current.is_symlink() else None
    link = target / f".{CURRENT}.{os.getpid()}"
    if link.is_symlink() or link.exists():
        link.unlink()
    os.symlink(os.path.relpath(build, target), link)  # relative: the folder may be moved or served
    os.replace(link, current)
    for old in build.parent.iterdir():
        if old not in (build, previous):
            shutil.rmtree(old, ignore_errors=True)
    return previous

def _write_league_page(db: sqlite3.Connection, build: Path, name: str, rows: list[LadderRow],
                       counts: dict[str, int], previous: Path | None = None) -> None:
    """The league's page, its ladder as JSON and its chart (``report.league_page``)."""
    from arena.report.league_page import write_league_page

    write_league_page(db, build, name, rows, counts, previous=previous,
                      partners=partner_rows(db))

def partner_rows(db: sqlite3.Connection) -> list[dict[str, object]]:
    """The league page's partner table (``ratings.partner_table``: four players only, else empty),
    one dict per bot and partner, names scrubbed as the page's others are."""
    from arena.report.public import scrub_paths
    from arena.results.ratings import partner_table

    try:
        table = partner_table(db)
    except sqlite3.Error:
        return []
    rows: list[dict[str, object]] = []
    for row in table.itertuples(index=False):
        rows.append({"bot": scrub_paths(str(row.bot)), "partner": scrub_paths(str(row.partner)),
                     "matches": int(row.matches), "wins": int(row.wins),
                     "losses": int(row.losses), "undecided": int(row.undecided),
                     "score_pct": float(row.score_pct)})
    return rows
