"""A tournament's report: charts and static web pages, rebuilt from the store.

``data`` reads the store through pandas, ``charts`` draws with matplotlib, ``page`` writes the HTML,
``serve`` shows a published folder on localhost. ``write_report`` runs the three in that order into
``DIR/report/`` (for the tournament's owner: its record links lead into ``DIR/records/``);
``publish`` writes the same report, plus the match records, into a folder of its own that can go on
any static host and holds nothing private (no database, logs or local paths: ``public.py``).

May import: arena.game, arena.match, arena.results, arena.entrants, arena.types, arena.arena_folders,
arena.temp_folders
"""

from __future__ import annotations

import ctypes
import glob
import os
import shutil
import sqlite3
import multiprocessing
import signal
import threading
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Mapping, Sequence

from pandas.errors import DatabaseError as PandasDatabaseError

from arena.arena_folders import MARKER, public_folder_mark
from arena.report import archive
from arena.report.charts import CHARTS, SINGLE, start_charts, write_charts
from arena.report.data import ReportData, read_report_data
from arena.report.page import render_pages, tournament_id
from arena.report.prune import ReplayPolicy
from arena.report.public import public_record_line, public_version, publishable_record
from arena.report.replay import REPLAYS_DIR, write_replays
from arena.report.rules_page import RULES_PAGE, write_rules_page
from arena.report.snapshot import Snapshot, read_snapshot
from arena.results.store import DB_NAME, StoreError
from arena.temp_folders import hold, stale

REPORT_DIR = "report"
RECORDS_DIR = "records"


class ReportError(ValueError):
    """A folder that holds no tournament the report can read, or a place it cannot write."""


def write_report(folder: Path) -> Path:
    """Write ``folder/report/`` (five charts as PNG and SVG, index.html, a page per bot in bots/
    and a replay page per match in replays/) from the tournament's store; returns the path of
    index.html. The store is only read, so a running tournament may be reported on: the page then
    says how many matches are left. Replay pages are rewritten only for records that changed."""
    out = folder / REPORT_DIR
    data, _ = _read(folder)
    try:
        rules = write_rules_page(out)
        replays = write_replays([(r, folder / r) for r in _records(data)], out, rules=rules)
    except OSError as err:
        raise ReportError(f"cannot write the report in {out}: {err.strerror or err}") from None
    _write_pages(data, out, records="../", published=False, replays=replays,
                 beside=_rules_link(rules))
    return out / "index.html"


def _rules_link(rules: str | None) -> list[tuple[str, str]]:
    """The index's link to the rules page (rules_page.py), if one was written."""
    return [] if rules is None else [("Rules", rules)]


def _records(data: ReportData) -> list[str]:
    """The stored record paths a report may link (public.publishable_record), each once."""
    return [r for r in sorted(set(data.matches["record"].dropna())) if publishable_record(r)]


def _read(folder: Path, hold_back: bool = False,
          snapshot: Snapshot | None = None) -> tuple[ReportData, frozenset[str]]:
    """The report's figures from one snapshot of the tournament's store (snapshot.py): the one
    given, else one read now (``hold_back``: without the matches waiting for their duplicate
    partner, as a publish shows them). Returns them with the matches held back."""
    db_path = folder / DB_NAME
    if snapshot is None:
        if not db_path.is_file():
            raise ReportError(f"{folder} holds no tournament (no {DB_NAME})")
        try:
            with read_snapshot(db_path, hold_back) as taken:
                return _read(folder, snapshot=taken)
        except (StoreError, sqlite3.Error) as err:
            raise ReportError(f"cannot open {db_path}: {err}") from None
    try:
        data = read_report_data(snapshot.db)
    except (sqlite3.Error, PandasDatabaseError) as err:  # (pandas wraps sqlite3's errors)
        raise ReportError(f"{db_path} is not a results database this arena can read: {err}") \
            from None
    if data.leaderboard.empty:
        raise ReportError(f"{db_path} holds no bots: nothing to report")
    return data, snapshot.held_back


def _write_pages(data: ReportData, out: Path, records: str, published: bool,
                 replays: dict[str, str] | None = None,
                 hidden: frozenset[str] = frozenset(),
                 beside: Sequence[tuple[str, str]] = (), previous: Path | None = None,
                 located: Mapping[str, str] | None = None, single: bool = False,
                 charts: Callable[[], dict[str, tuple[float, float]]] | None = None) -> None:
    """The charts (``charts``: those started before, ``start_charts``) and the pages in ``out``."""
    try:
        sizes = charts() if charts is not None else \
            write_charts(data, out, previous=previous, single=single)
        for name, text in render_pages(data, sizes, records=records, published=published,
                                       replays=replays, hidden=hidden, beside=beside,
                                       located=located, single=single).items():
            page = out / name
            page.parent.mkdir(parents=True, exist_ok=True)
            # Write then rename: a browser or web server never sees half a page.
            partial = page.with_name(f".{page.name}.partial")
            partial.write_text(text, encoding="utf-8")
            os.replace(partial, page)
    except OSError as err:
        raise ReportError(f"cannot write the report in {out}: {err.strerror or err}") from None


# What a published folder holds at its top: the pages, the charts, the bots' pages and the records.
# A folder holding anything else is not one ``publish`` wrote, and it is never replaced.
_PUBLISHED_NAMES = {"index.html", RULES_PAGE, "bots", RECORDS_DIR, REPLAYS_DIR, MARKER} | \
    {f"{chart}.{ext}" for chart in CHARTS for ext in ("png", "svg")} | \
    {f"{chart}.{ext}" for chart, ext in SINGLE.items()}


def publish(folder: Path, out: Path, beside: Sequence[tuple[str, str]] = (),
            snapshot: Snapshot | None = None, policy: ReplayPolicy | None = None,
            previous: Path | None = None, packed: bool = False) -> Path:
    """Write the tournament in ``folder`` as a folder ready for any static host, ``out``: the
    report (index.html, the charts, bots/), the match records (records/) and their replay pages
    (replays/), nothing else; links resolve inside ``out``. A replay page is made from the
    published record (public.py), never from the private one.

    Every figure and list comes from one snapshot of the store (snapshot.py), ``snapshot`` if the
    caller read one for pages of its own (a league's ladder), else one read here, always without
    the matches waiting for their duplicate partner: those are on no page (neither their record,
    replay, score, ending, nor counted in a bot's matches or rating), and the pages say how many
    wait. ``out`` must be new, empty, or a folder this function published
    before from the same tournament; it is then replaced as a whole (written beside it, then
    swapped in), so a web server serving it never shows half of one and half of the other.
    ``beside``: (text, relative address) of pages the caller writes into ``out`` beside the
    report (a league's ladder), linked from the index's navigation. Returns the path of
    index.html.

    A publish costs what is new: the records and replay pages of an earlier publish of the same
    tournament, ``previous`` (default: ``out`` itself), made by the same code, are taken over as
    they are (hard links where the file system allows: no file of a publish is changed in
    place). ``policy``: which matches get a replay page (``prune.ReplayPolicy``, a league's); by
    default every match does. ``packed`` (a league's): the records of each closed block of
    matches go into one archive (``archive.py``), the pages link the archive that holds a
    record, and each replay page links its record where it is; charts are then written in one
    format each (``charts.SINGLE``)."""
    data, hidden = _read(folder, hold_back=True, snapshot=snapshot)
    out = out.absolute()
    staging = out.with_name(f".{out.name}.publishing-{os.getpid()}")
    ident = tournament_id(data)
    held = -1
    try:
        _check_target(out, ident)
        _sweep_publishing(out)
        if previous is None and out.is_dir():
            previous = out
        if previous is not None and not _published_from(previous, ident):
            previous = None
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        held = hold(staging)  # in use: another publish's _sweep_publishing leaves it
        wanted: set[str] | None = None
        if policy is not None:
            chosen = policy.chosen(data)
            wanted = {r for r, m in zip(data.matches["record"], data.matches["match_id"])
                      if m in chosen}
        located: dict[str, str] | None = None
        # (Leaving the with-block waits for every archive, also when a page failed.)
        with _packers() as packers:
            packs_done: Callable[[], None] = lambda: None  # noqa: E731
            # The charts first: the pages wait for them, not for the archives.
            charts = start_charts(data, staging, previous, single=packed,
                                  pool=packers if isinstance(packers, ProcessPoolExecutor)
                                  else None)
            if packed:
                located, sources, packs_done = _pack_records(folder, data, staging, previous,
                                                             wanted, packers)
            else:
                sources = {r: staging / r for r in _copy_records(folder, data, staging, previous)
                           if wanted is None or r in wanted}
            rules = write_rules_page(staging)
            replays = write_replays(sorted(sources.items()), staging, previous=previous,
                                    rules=rules, links=located)
            shutil.rmtree(staging / _SOURCES, ignore_errors=True)
            _write_pages(data, staging, records="", published=True, replays=replays,
                         hidden=hidden, beside=[*beside, *_rules_link(rules)], previous=previous,
                         located=located, single=packed, charts=charts)
            packs_done()
        public_folder_mark(staging)  # public, but no bot is given a path in it (arena_folders.py)
        _swap_in(staging, out)
    except OSError as err:
        raise ReportError(f"cannot publish to {out}: {err.strerror or err}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if held >= 0:
            os.close(held)
    return out / "index.html"


def _sweep_publishing(out: Path) -> None:
    """Remove the copies that publishes to ``out`` killed with kill -9 left beside it (a whole
    site each): named with their process's PID, which no longer runs (temp_folders.stale)."""
    for left in out.parent.glob(f".{glob.escape(out.name)}.publishing-*"):
        pid = left.name.rsplit("-", 1)[1]
        if pid.isdigit() and stale(left, int(pid)):
            shutil.rmtree(left, ignore_errors=True)


def _check_target(out: Path, ident: str) -> None:
    if out.exists() and not out.is_dir():
        raise ReportError(f"{out} exists and is not a folder")
    if not out.is_dir() or not any(out.iterdir()):
        return
    index = out / "index.html"
    try:
        ours = index.is_file() and {p.name for p in out.iterdir()} <= _PUBLISHED_NAMES and \
            f'<meta name="sixtysix-tournament" content="{ident}">' in \
            index.read_text(encoding="utf-8", errors="replace")
    except OSError:
        ours = False
    if not ours:
        raise ReportError(f"{out} is not empty and is not a previous publish of this tournament: "
                          "choose a new or empty folder")


def _published_from(previous: Path, ident: str) -> bool:
    """Whether ``previous`` is a publish of the tournament ``ident`` (its files may be reused)."""
    try:
        index = (previous / "index.html").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return f'<meta name="sixtysix-tournament" content="{ident}">' in index


_PACKERS = 2  # processes writing archives beside the pages: a core each on these machines
_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _packers() -> Executor:
    """Where a build's archives are written while its pages are made. Forked processes: packing
    (public.py on every line, then zlib) is most of a first publish of a league, and threads would
    share one GIL with the charts. Forked from a process with threads, a child might inherit a lock
    another thread held, so a process with other threads packs in threads (slower, as safe), as
    does a daemonic process of ``multiprocessing`` (it may not start children: a league's
    publisher says it is not one, its packers dying with it)."""
    if threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods() \
            and not multiprocessing.current_process().daemon:  # (which may have no children)
        return ProcessPoolExecutor(_PACKERS, mp_context=multiprocessing.get_context("fork"),
                                   initializer=_packer_started, initargs=(os.getpid(),))
    return ThreadPoolExecutor(_PACKERS, thread_name_prefix="arena-pack")


def _packer_started(parent: int) -> None:
    """A packing process ends with the one that forked it, however that ends (a league's publisher
    is killed when a stop cannot wait for it: its packers must not outlive it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is for the process that publishes
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # it died before the line above
        os._exit(0)
_SOURCES = ".replay-sources"  # a packed record a replay page is made from; gone before the swap


def _reuses_records(previous: Path | None) -> bool:
    """Whether ``previous``'s published records were made by this ``public.py`` (its index's
    head says: templates/base.html.j2): then they are public as they are."""
    try:
        return previous is not None and \
            f'<meta name="sixtysix-public" content="{public_version()}">' in \
            (previous / "index.html").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def _public_bytes(folder: Path, record: str, previous: Path | None) -> bytes | None:
    """A stored record as published (``public.public_record_line`` on each line), taken from
    ``previous`` (a build whose records this public.py made: ``_reuses_records``) where it holds
    the record loose; None for a record that is missing or a symbolic link (the arena writes
    records as files; a link may lead anywhere). ``record`` passed ``publishable_record``."""
    if previous is not None:
        old = previous / record
        if not old.is_symlink() and old.is_file():
            try:
                return old.read_bytes()
            except OSError:
                pass
    source = folder / record
    if source.is_symlink():
        return None
    try:
        text = source.read_text(encoding="utf-8", errors="surrogateescape")
    except (FileNotFoundError, IsADirectoryError):
        return None
    return "".join(public_record_line(line) for line in text.splitlines(True)) \
        .encode("utf-8", errors="surrogateescape")


def _pack_records(folder: Path, data: ReportData, staging: Path, previous: Path | None,
                  wanted: set[str] | None, packers: Executor
                  ) -> tuple[dict[str, str], dict[str, Path], Callable[[], None]]:
    """The records of ``data``'s matches as a packed build holds them (archive.py): one archive
    per closed block (linked from ``previous`` when it holds the same one), loose files for the
    open blocks, and ``records/index.json``. Returns {stored record path: the build's file that
    holds it}, {record: a file holding its published bytes} for the records in ``wanted`` (all
    when None) that a replay page may be made from, and a call that waits for the archives and
    writes the manifest.

    The archives to make are written by ``packers`` (threads) while the caller goes on with the
    pages: most of an archive's cost is zlib's, which runs without the GIL, so a first publish of
    10,000 matches packs its 150 MB of records beside its charts rather than before them."""
    public = public_version()
    reuse = _reuses_records(previous)
    manifest = archive.read_manifest(previous if reuse else None)
    once = data.matches.drop_duplicates("match_id")
    orders = {str(r): int(o) for r, o in zip(once["record"], once["sched_order"])
              if publishable_record(r)}
    closed = archive.closed_blocks(once["sched_order"])
    blocks: dict[int, list[str]] = {}
    loose: list[str] = []
    for record in _records(data):
        block = orders[record] // archive.BLOCK
        if block in closed:
            blocks.setdefault(block, []).append(record)
        else:
            loose.append(record)
    located: dict[str, str] = {}
    sources: dict[str, Path] = {}
    entries: dict[str, dict[str, object]] = {}
    packing: list[tuple[str, int, list[str], Future[str]]] = []

    def source_of(record: str, text: bytes) -> None:
        if wanted is None or record in wanted:
            path = staging / _SOURCES / record
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text)
            sources[record] = path

    for block, records in sorted(blocks.items()):
        name = archive.archive_name(block)
        if archive.reusable(previous, manifest, name, records, public):
            assert previous is not None
            archive.link_archive(previous / name, staging / name)
            entries[name] = manifest["archives"][name]
            members = list(manifest["archives"][name]["records"])
            from_build = None
        else:
            members = sorted(r for r in records if _readable(folder, r, previous if reuse else None))
            packing.append((name, block, members, packers.submit(
                _write_block, folder, staging / name, members, previous if reuse else None)))
            from_build = previous if reuse else None
        for record in members:
            if wanted is None or record in wanted:  # its replay page's source
                text = _public_bytes(folder, record, from_build)
                if text is not None:
                    source_of(record, text)
        located.update((record, name) for record in members)
    kept = []
    for record in loose:
        target = staging / record
        target.parent.mkdir(parents=True, exist_ok=True)
        if not (reuse and previous is not None and _link(previous / record, target)):
            text = _public_bytes(folder, record, None)
            if text is None:
                continue
            target.write_bytes(text)
        kept.append(record)
        located[record] = record
        if wanted is None or record in wanted:
            sources[record] = target

    def finish() -> None:
        for name, block, members, digest in packing:
            entries[name] = {"first": block * archive.BLOCK,
                             "last": (block + 1) * archive.BLOCK - 1, "sha256": digest.result(),
                             "records": members}
        archive.write_manifest(staging, public, entries, kept)

    return located, sources, finish


def _readable(folder: Path, record: str, previous: Path | None) -> bool:
    """Whether ``_public_bytes`` finds ``record``: loose in ``previous``, or a file (never a
    symbolic link) in ``folder``."""
    if previous is not None:
        old = previous / record
        if not old.is_symlink() and old.is_file():
            return True
    source = folder / record
    return not source.is_symlink() and source.is_file()


def _write_block(folder: Path, path: Path, members: Sequence[str], previous: Path | None) -> str:
    """One closed block's archive at ``path``, of exactly ``members`` (``_readable`` said each
    is there); returns its sha256. A record gone since is an error, not a smaller archive: the
    pages already link it here."""
    packed = []
    for record in members:
        text = _public_bytes(folder, record, previous)
        if text is None:
            raise OSError(f"{record} went away while the build was made")
        packed.append((record, text))
    return archive.write_archive(path, packed)


def _copy_records(folder: Path, data: ReportData, staging: Path,
                  previous: Path | None = None) -> list[str]:
    """The records of the matches in ``data`` (a snapshot without those waiting for their
    duplicate partner), each with its bot commands made public (public.py); returns the records
    copied. A record ``previous`` (a publish of the same tournament) holds, made by the same
    public.py, is linked from there: a stored match's record never changes. A record that is
    missing (deleted by hand) is left out; its page row then links nowhere useful, which the page
    cannot know: the link check in the tests covers the normal case."""
    reuse = _reuses_records(previous)
    copied = []
    folders: set[Path] = set()
    for record in _records(data):
        source = folder / record
        target = staging / record
        if target.parent not in folders:
            target.parent.mkdir(parents=True, exist_ok=True)
            folders.add(target.parent)
        if reuse and previous is not None and _link(previous / record, target):
            copied.append(record)
            continue
        if source.is_symlink():  # the arena writes records as files; a link may lead anywhere
            continue
        try:
            text = source.read_text(encoding="utf-8", errors="surrogateescape")
        except FileNotFoundError:
            continue
        target.write_text("".join(public_record_line(line) for line in text.splitlines(True)),
                          encoding="utf-8", errors="surrogateescape")
        copied.append(record)
    return copied


def _link(old: Path, new: Path) -> bool:
    """``new`` as a hard link to ``old`` (a file of an earlier publish, never changed in place),
    or a copy where links cannot be made; False when ``old`` is not a plain file."""
    if old.is_symlink() or not old.is_file():
        return False
    try:
        os.link(old, new)
    except OSError:
        try:
            shutil.copyfile(old, new)
        except OSError:
            return False
    return True


_RENAME_EXCHANGE = 2  # linux/fs.h
_AT_FDCWD = -100


def _swap_in(staging: Path, out: Path) -> None:
    """Put ``staging`` where ``out`` is. A new or empty ``out`` is replaced by one rename; a full
    one is exchanged with ``staging`` in one step where the kernel can (Linux renameat2), else in
    two renames (a moment without ``out``); the old content is then deleted."""
    if not out.exists() or not any(out.iterdir()):
        os.replace(staging, out)
        return
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is not None and renameat2(_AT_FDCWD, os.fsencode(staging), _AT_FDCWD,
                                           os.fsencode(out), _RENAME_EXCHANGE) == 0:
        return  # staging now holds the old publish; the caller deletes it
    aside = out.with_name(f".{out.name}.old-{os.getpid()}")
    os.replace(out, aside)
    os.replace(staging, out)
    shutil.rmtree(aside, ignore_errors=True)
