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
from multiprocessing import resource_tracker
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path

import jinja2

from arena.arena_folders import public_folder_mark
from arena.league import LeagueConfig, LadderRow, league_bots, read_ladder
from arena.pool import main_left_out
from arena.store import DB_NAME

CURRENT = "current"
BUILDS = "builds"
PAGE = "league.html"
CHART = "league_history"
_PR_SET_PDEATHSIG = 1

_PAGE = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined).from_string("""\
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>League {{ name }}</title>
<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}
table{border-collapse:collapse}td,th{padding:.2em .6em;border-bottom:1px solid #ddd;text-align:right}
td:nth-child(2),th:nth-child(2){text-align:left}.retired{color:#777}img{max-width:100%}</style>
</head><body>
<h1>League {{ name }}</h1>
<p>{{ counts.matches }} matches in {{ counts.pairs }} duplicate pairs{% if counts.waiting %};
{{ counts.waiting }} pair(s) waiting for a match{% endif %}. <a href="index.html">The full report</a>
(statistics, head to head, every match and its replay).</p>
<h2>The ladder</h2>
<table><tr><th>#</th><th>bot</th><th>version</th><th>mu</th><th>sigma</th><th>mu − 3σ</th><th>matches</th></tr>
{% for row in active %}<tr><td>{{ loop.index }}</td><td>{{ row.family }}</td><td>{{ row.version }}</td>
<td>{{ "%.2f"|format(row.mu) }}</td><td>{{ "%.2f"|format(row.sigma) }}</td>
<td>{{ "%.2f"|format(row.conservative) }}</td><td>{{ row.matches }}</td></tr>
{% endfor %}</table>
{% if partners %}<h2>Partners</h2>
<p>Four players: each bot with each partner (the bot in the seat opposite), matches played
together and the side's mean share of the game points.</p>
<table class="partners"><tr><th>bot</th><th>partner</th><th>matches</th><th>won</th><th>lost</th><th>undecided</th><th>score %</th></tr>
{% for p in partners %}<tr><td>{{ p.bot }}</td><td>{{ p.partner }}</td><td>{{ p.matches }}</td>
<td>{{ p.wins }}</td><td>{{ p.losses }}</td><td>{{ p.undecided }}</td><td>{{ "%.1f"|format(p.score_pct) }}</td></tr>
{% endfor %}</table>{% endif %}
<h2>Rating history across versions</h2>
<p>Each bot's TrueSkill mu after each of its matches, by league pair; a new version of a bot starts
a new line of the bot's colour (a circle marks where it joined).</p>
<img src="{{ chart }}.svg" alt="rating history">
<h2>Every version</h2>
<table><tr><th></th><th>bot</th><th>version</th><th>mu</th><th>sigma</th><th>mu − 3σ</th><th>matches</th></tr>
{% for row in versions %}<tr class="{{ '' if row.active else 'retired' }}">
<td>{{ 'in the ladder' if row.active else 'retired' }}</td><td>{{ row.family }}</td><td>{{ row.version }}</td>
<td>{{ "%.2f"|format(row.mu) }}</td><td>{{ "%.2f"|format(row.sigma) }}</td>
<td>{{ "%.2f"|format(row.conservative) }}</td><td>{{ row.matches }}</td></tr>
{% endfor %}</table>
</body></html>
""")


def publish_league(folder: Path, config: LeagueConfig, data: Path | None = None) -> Path:
    """Build the league's public folder anew and switch ``PUBLISH/current`` to it; returns the
    path of ``PUBLISH/current/index.html``. Raises ``arena.report.ReportError`` (a store the
    report cannot read, a folder it cannot write)."""
    from arena.report import ReportError, publish
    from arena.report.snapshot import read_snapshot
    from arena.store import StoreError

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
        _seed(target / CURRENT, build)
        publish(folder, build, beside=[("The league's ladder", PAGE)], snapshot=snapshot)
        rows, counts = read_ladder(folder, data, db=snapshot.db)
        _write_league_page(snapshot.db, build, config.name, rows, counts)
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
    One publish at a time. ``stop()`` ends one in progress: the half-written build it leaves is
    never current, and the next publish's switch removes it (``_switch``)."""

    def __init__(self, folder: Path, config: LeagueConfig, data: Path | None):
        self.folder, self.config, self.data = folder, config, data
        self._process: BaseProcess | None = None
        self._answer: Connection | None = None
        self.stored = 0  # the league's matches when the publish in progress started
        self._started = 0.0  # time.monotonic() then

    @property
    def busy(self) -> bool:
        return self._process is not None

    def start(self, stored: int) -> None:
        """Begin a publish of the league as its store holds it now (``stored`` matches)."""
        if self._process is not None:
            raise RuntimeError("a publish is already in progress")
        context = multiprocessing.get_context("spawn")  # not forked: the league has threads
        answer, theirs = context.Pipe(duplex=False)
        process = context.Process(target=_publish_apart, name="publisher", daemon=True,
                                  args=(self.folder, self.config, self.data, theirs, os.getpid()))
        # Known before it starts, so that a stop raised meanwhile still ends it (stop()): two
        # publishes at once would race for the next build's number.
        self._process, self._answer, self.stored = process, answer, stored
        self._started = time.monotonic()
        # Started with SIGINT blocked, which it inherits: a Ctrl-C to the process group while
        # it imports would print its traceback (it ignores SIGINT once it runs). The resource
        # tracker first: its own start would unblock SIGINT again (pool.py, Pool._start).
        resource_tracker.ensure_running()
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            with main_left_out(_publish_apart):
                process.start()
        except BaseException:
            self.stop()
            raise
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
            theirs.close()

    def running_s(self) -> float:
        """Seconds since the publish in progress started (0 when none is)."""
        return time.monotonic() - self._started if self._process is not None else 0.0

    def outcome(self) -> tuple[Path | None, str] | None:
        """None while a publish runs or when none was started; else what the finished one gave:
        (the path of ``PUBLISH/current/index.html``, "") or (None, why it failed)."""
        if self._process is None or self._answer is None:
            return None
        if self._answer.poll():
            try:
                result: tuple[Path | None, str] = self._answer.recv()
            except (EOFError, OSError):  # it ended without a word
                self._process.join()
                result = (None, f"the publishing process ended (exit status "
                                f"{self._process.exitcode}) before it was done")
        elif self._process.is_alive():
            return None
        else:
            result = (None, f"the publishing process ended (exit status "
                            f"{self._process.exitcode}) before it was done")
        self.stop()
        return result

    def stop(self) -> None:
        """End the publish in progress, if any, and wait for its process."""
        process, answer = self._process, self._answer
        self._process = self._answer = None
        if process is not None and process.pid is not None:  # None: it never started
            if process.is_alive():
                process.kill()
            process.join()
            process.close()
        if answer is not None:
            answer.close()


def _publish_apart(folder: Path, config: LeagueConfig, data: Path | None, answer: Connection,
                   parent: int) -> None:
    """The publisher's process: one publish, its outcome sent back."""
    import ctypes

    from arena.report import ReportError

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the league's: it ends this process
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked by Publisher.start
    try:  # and so does the league's end, however it ends (Linux; elsewhere it finishes alone)
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        return
    # It reads the store (with its deal key) beside the league's running bots: at `limits` as a
    # normal user they share its user id, and must not attach to it (issue 29), as to a worker.
    from arena.sandbox import not_dumpable

    not_dumpable()
    try:
        outcome: tuple[Path | None, str] = (publish_league(folder, config, data), "")
    except (ReportError, OSError) as err:
        outcome = (None, str(err))
    except Exception as err:  # noqa: BLE001 - said by the league in one line, not a traceback here
        outcome = (None, f"{type(err).__name__}: {err}")
    answer.send(outcome)
    answer.close()


def _seed(current: Path, build: Path) -> None:
    """Start the new build as hard links to the current one, so that ``publish`` takes it for its
    own earlier publish and copies the replay pages of unchanged records instead of rendering
    every match again (a league's pages grow with every pair). ``publish`` writes a new folder
    and swaps it in, never changing a file in place, so the current build's files stay as they
    were. Where links cannot be made (another file system), the build starts empty."""
    if not current.is_dir():
        return
    try:
        shutil.copytree(current.resolve(), build, symlinks=True, copy_function=os.link)
        for name in (PAGE, f"{CHART}.png", f"{CHART}.svg"):  # not publish's: it would refuse them
            (build / name).unlink(missing_ok=True)
    except OSError:
        shutil.rmtree(build, ignore_errors=True)


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
                       counts: dict[str, int]) -> None:
    from arena.report.public import scrub_paths

    def shown(row: LadderRow) -> dict[str, object]:
        version = row.name.partition("@")[2] or "-"
        return {"family": scrub_paths(row.family), "version": version, "mu": row.mu,
                "sigma": row.sigma, "conservative": row.conservative, "matches": row.matches,
                "active": row.active}

    _write_chart(db, build)
    text = _PAGE.render(name=name, counts=counts, chart=CHART, partners=partner_rows(db),
                        active=[shown(r) for r in rows if r.active],
                        versions=[shown(r) for r in rows])
    partial = build / f".{PAGE}.partial"
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, build / PAGE)


def partner_rows(db: sqlite3.Connection) -> list[dict[str, object]]:
    """The league page's partner table (``ratings.partner_table``: four players only, else empty),
    one dict per bot and partner, names scrubbed as the page's others are."""
    from arena.ratings import partner_table
    from arena.report.public import scrub_paths

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


def _write_chart(db: sqlite3.Connection, build: Path) -> None:
    """Mu per league pair for every version, one colour per bot across its versions, from the
    build's snapshot of the store ``db``."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from arena.ratings import rating_history

    try:
        history = rating_history(db)
        families = {name: family for name, (family, _) in league_bots(db).items()}
    except sqlite3.Error:
        history, families = None, {}
    fig = Figure(figsize=(8, 4.5), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.set_xlabel("league pair")
    ax.set_ylabel("TrueSkill mu")
    colours = matplotlib.colormaps["tab10"]
    order = sorted({families.get(b, b.split("@")[0]) for b in
                    (history["bot"].unique() if history is not None else [])})
    if history is not None and len(history):
        for bot, rows in history.groupby("bot", sort=True):
            family = families.get(str(bot), str(bot).split("@")[0])
            colour = colours(order.index(family) % 10)
            x = rows["order"] // 2
            ax.plot(x, rows["mu"], color=colour, linewidth=1.2)
            ax.plot(x.iloc[:1], rows["mu"].iloc[:1], "o", color=colour, markersize=4)
        for family in order:
            ax.plot([], [], color=colours(order.index(family) % 10), label=family)
        ax.legend(loc="upper left", fontsize="small", ncols=2)
    else:
        ax.text(0.5, 0.5, "no rated match yet", ha="center", va="center", transform=ax.transAxes)
    fig.savefig(build / f"{CHART}.png", dpi=100, metadata={"Software": None})
    fig.savefig(build / f"{CHART}.svg", metadata={"Date": None, "Creator": None})
