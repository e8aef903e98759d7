"""A league's own page, ``league.html``, written into a build beside the report (``league_publish``).

It reads as the report does (``templates/league.html.j2`` extends the report's ``base.html.j2``:
the same CSS, no script, relative links only) and shows what a league's followers come for: the
ladder now (W-D-L, score with its interval, the rank's movement since the previous build, a mark
on provisional ratings, version and the day it joined), the latest matches with their replays,
each bot's rating across its versions, and every version that ever played.

Each build also writes ``league.json``: the ladder as ``arena league status --format json`` gives
it, with the time of the build. The next build reads the current one's to show how ranks moved.

Every value on the page comes from the build's snapshot of the store (``report.snapshot``), as the
report's pages do, so the counts agree across the build.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sqlite3
import time
import urllib.parse
from pathlib import Path
from typing import Any, Mapping, Sequence

import jinja2

from arena import __version__
from arena.report.archive import located
from arena.report.page import MATCH_ENDINGS
from arena.report.public import public_version, publishable_record, scrub_paths
from arena.report.replay import replay_name
from arena.results.league_ladder import (
    SETTLED_MATCHES,
    SETTLED_SIGMA,
    LadderRow,
    as_records,
    ranked,
)
from arena.results.stats import interval_text
from arena.results.rating_replay import side_of
from arena.results.store import store_players

PAGE = "league.html"
CHART = "league_history"
LADDER_JSON = "league.json"
FILES = (PAGE, LADDER_JSON, f"{CHART}.svg")
CHART_INCHES = (9.0, 4.5)
"""What this module writes into a build (publish() refuses a folder holding them: a build seeded
from the previous one drops them first)."""
# The report's templates, with page.py's settings: league.html.j2 extends its base.html.j2.
_ENV = jinja2.Environment(loader=jinja2.PackageLoader("arena.report", "templates"),
                          autoescape=True, undefined=jinja2.StrictUndefined,
                          trim_blocks=True, lstrip_blocks=True)
RECENT = 20          # matches in the page's list of the latest
CHART_FAMILIES = 10  # bots drawn in the history chart: the ladder's first (more is a tangle)


def previous_ranks(previous: Path | None) -> tuple[dict[str, int], str]:
    """{store name: rank} and the build time of the build at ``previous`` (its ``league.json``);
    empty when there is none or it cannot be read (the page then shows no movement)."""
    if previous is None:
        return {}, ""
    try:
        data = json.loads((previous / LADDER_JSON).read_text(encoding="utf-8"))
        ranks = {str(b["name"]): int(b["rank"]) for b in data["bots"] if b.get("rank")}
        return ranks, str(data.get("built", ""))
    except (OSError, ValueError, KeyError, TypeError):
        return {}, ""


def movement(rank: int | None, before: int | None, had_previous: bool) -> tuple[str, str]:
    """(text, CSS class) of a rank's move since the previous build: ▲2, ▼1, – or new."""
    if rank is None or not had_previous:
        return "", ""
    if before is None:
        return "new", "new"
    if before > rank:
        return f"▲{before - rank}", "won"
    if before < rank:
        return f"▼{rank - before}", "lost"
    return "–", "undecided"


def recent_matches(db: sqlite3.Connection, build: Path, names: dict[str, str],
                   count: int = RECENT) -> list[dict[str, Any]]:
    """The latest ``count`` matches of the snapshot ``db`` (schedule order: the pairs in the order
    they were started), each linked to its replay page where the build holds one, else to its
    published record (loose, or the archive of its block: ``report.archive``), else to nothing
    (the build decides which replays it keeps: look, do not assume)."""
    rows = db.execute("SELECT match_id, pair_index, seat0, seat1, winner, reason, points0, points1, "
                      "offender, fault, record, finished FROM matches "
                      "ORDER BY sched_order DESC LIMIT ?", (count,)).fetchall()
    players = store_players(db)
    seated: dict[str, list[str]] = {}
    points: dict[str, list[int]] = {}
    if players > 2:  # a group's match: every seat (seats), every side's game points (sides)
        marks = ",".join("?" * len(rows))
        ids = [row[0] for row in rows]
        for match_id, bot in db.execute(f"SELECT match_id, bot FROM seats WHERE match_id IN "
                                        f"({marks}) ORDER BY match_id, seat", ids):
            seated.setdefault(match_id, []).append(bot)
        for match_id, value in db.execute(f"SELECT match_id, points FROM sides WHERE match_id IN "
                                          f"({marks}) ORDER BY match_id, side", ids):
            points.setdefault(match_id, []).append(int(value))
    packed = located(build)  # records of closed blocks are in archives (report.archive)
    out = []
    for match_id, pair, seat0, seat1, winner, reason, p0, p1, offender, fault, record, when in rows:
        seats = seated.get(match_id) or [seat0, seat1]
        score = "–".join(map(str, points[match_id])) if match_id in points else f"{p0}–{p1}"
        link, kind = None, ""
        if publishable_record(record):
            page = replay_name(record)
            if (build / page).is_file():
                link, kind = page, "replay"
            elif (build / record).is_file():
                link, kind = record, "record"
            elif record in packed:
                link, kind = packed[record], "archive"
        ending = MATCH_ENDINGS.get(reason, reason)
        if reason == "forfeit" and offender is not None:
            ending = f"{names.get(seats[offender], seats[offender])} forfeited: {fault}"
        out.append({"id": match_id, "pair": int(pair), "when": _when(when),
                    "seats": [{"bot": names.get(b, b), "won": winner == side_of(players, k)}
                              for k, b in enumerate(seats)],
                    "score": score, "ending": scrub_paths(str(ending)),
                    "href": urllib.parse.quote(link) if link else None, "kind": kind})
    return out


def _when(stamp: object) -> str:
    text = str(stamp or "")
    return f"{text[:10]} {text[11:16]}" if len(text) >= 16 else text


def _figure(value: float, digits: int) -> str:
    return "–" if math.isnan(value) else f"{value:.{digits}f}"


def _shown(rank: int | None, row: LadderRow, before: dict[str, int],
           had_previous: bool) -> dict[str, Any]:
    move, move_class = movement(rank, before.get(row.name), had_previous)
    return {"rank": rank, "family": scrub_paths(row.family), "version": row.version or "–",
            "joined": row.joined[:10] or "–", "mu": _figure(row.mu, 2),
            "sigma": _figure(row.sigma, 2), "conservative": _figure(row.conservative, 2),
            "matches": row.matches, "wdl": f"{row.wins}–{row.draws}–{row.losses}",
            "score": interval_text(row.score, row.score_low, row.score_high),
            "provisional": row.provisional, "active": row.active,
            "move": move, "move_class": move_class}


def _tournament_id(db: sqlite3.Connection) -> str:
    """The report's id of the tournament (``page.tournament_id``), read from the store."""
    row = db.execute("SELECT name, created FROM tournament").fetchone()
    name, created = row if row is not None else ("", "")
    return hashlib.sha256(f"{name}\0{created}".encode()).hexdigest()[:16]


def write_league_page(db: sqlite3.Connection, build: Path, name: str, rows: list[LadderRow],
                      counts: dict[str, int], previous: Path | None = None,
                      partners: Sequence[Mapping[str, object]] = ()) -> None:
    """Write ``league.html``, ``league.json`` and the history chart into ``build`` from the
    snapshot ``db`` and the ladder read from it (``league.read_ladder``). ``previous``: the build
    current until now, whose ``league.json`` gives the ranks to compare with. ``partners``: a
    four-player league's partner table (``league_publish.partner_rows``), shown after the ladder."""
    before, before_built = previous_ranks(previous)
    had_previous = bool(before)
    built = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    shown = [_shown(rank, row, before, had_previous) for rank, row in ranked(rows)]
    names = {row.name: scrub_paths(row.name) for row in rows}  # with the version: which one
    write_chart(db, build, rows, previous=previous)
    width, height = CHART_INCHES  # (constrained layout keeps a figure's size)
    text = _ENV.get_template("league.html.j2").render(
        name=name, version=__version__, tournament_id=_tournament_id(db), published=True,
        public_version=public_version(),
        counts=counts, built=_when(built), before_built=_when(before_built),
        had_previous=had_previous, active=[r for r in shown if r["active"]],
        versions=shown, recent=recent_matches(db, build, names), chart=CHART,
        chart_width=round(width * 96), chart_height=round(height * 96),
        chart_families=CHART_FAMILIES, settled_matches=SETTLED_MATCHES,
        settled_sigma=f"{SETTLED_SIGMA:g}", partners=partners,
        unit="duplicate pair" if store_players(db) == 2 else "group")
    _write(build / PAGE, text)
    ladder = {"league": name, "built": built, **counts, "bots": as_records(rows)}
    _write(build / LADDER_JSON, json.dumps(ladder, indent=1, ensure_ascii=False) + "\n")


def _write(path: Path, text: str) -> None:
    partial = path.with_name(f".{path.name}.partial")  # a server never sees half a file
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


def history_lines(history: Any, rows: Sequence[LadderRow], unit_of: Mapping[int, int],
                  shown: int = CHART_FAMILIES) -> list[tuple[str, str, list[int], list[float]]]:
    """The chart's lines: (family, version, league pairs, mu) for every version of the ladder's
    first ``shown`` bots (their ladder order), one point per pair the version played: its mu after
    the pair (both of the pair's matches at one x drew a vertical stroke, which between pairs read
    as a zigzag), in pair order."""
    order = []
    for rank, row in ranked(rows):
        if rank is not None and row.family not in order:
            order.append(row.family)
    order = order[:shown]
    family_of = {row.name: row.family for row in rows}
    lines = []
    if len(history):
        history = history.assign(pair=history["order"].map(unit_of))
        for bot, mine in history.groupby("bot", sort=False):
            family = family_of.get(str(bot), str(bot).split("@")[0])
            if family not in order:
                continue
            last = mine.sort_values("order", kind="stable").groupby("pair", sort=True).last()
            lines.append((family, str(bot), [int(p) for p in last.index],
                          [float(m) for m in last["mu"]]))
    lines.sort(key=lambda line: (order.index(line[0]), line[2][0] if line[2] else 0))
    return lines


def write_chart(db: sqlite3.Connection, build: Path, rows: Sequence[LadderRow],
                previous: Path | None = None) -> Any:
    """Draw each shown bot's mu by league pair (``history_lines``), a step per pair it played, one
    colour per bot across its versions (a circle where a version joined), as SVG into ``build``;
    returns the figure, or None when ``previous`` (the build current until now) holds the chart
    drawn from the same lines, which is then linked instead (``charts.chart_key``'s way).

    SVG only: a line is cut to the points that show (``charts.visible_points``: one league pair
    is a fraction of a pixel at thousands of them), which keeps its SVG small, and the PNG beside
    it was a second save for the same picture."""
    import inspect

    import matplotlib
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from arena.report.charts import drawn, link_files, save, visible_points
    from arena.results.ratings import rating_history

    try:
        history = rating_history(db)
    except sqlite3.Error:
        history = None
    # A match's pair or group (a pair's two matches, a group's six seatings), by schedule order.
    unit_of = dict(db.execute("SELECT sched_order, pair_index FROM matches"))
    lines = history_lines(history, rows, unit_of) if history is not None else []
    shown = []
    for family, version, x, y in lines:
        keep = visible_points(np.asarray(x, dtype=float), (np.asarray(y, dtype=float),))
        shown.append((family, version, [x[i] for i in keep], [y[i] for i in keep]))
    key = hashlib.sha256(f"{matplotlib.__version__}\0{shown!r}".encode() +
                         inspect.getsource(write_chart).encode()).hexdigest()[:32]
    if previous is not None and drawn(previous / f"{CHART}.svg", key) is not None and \
            link_files(previous, build, [f"{CHART}.svg"]):
        return None
    fig = Figure(figsize=CHART_INCHES, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.set_xlabel("league pair" if store_players(db) == 2 else "league group")
    ax.set_ylabel("TrueSkill mu")
    ax.grid(True, color="#e4e7ec", linewidth=0.6)
    colours = matplotlib.colormaps["tab10"]
    families = list(dict.fromkeys(family for family, _, _, _ in shown))
    for family, _, x, y in shown:
        colour = colours(families.index(family) % 10)
        # Steps: a rating holds from one pair the bot played to its next.
        ax.plot(x, y, color=colour, linewidth=1.3, drawstyle="steps-post")
        ax.plot(x[:1], y[:1], "o", color=colour, markersize=4)
    for family in families:
        ax.plot([], [], color=colours(families.index(family) % 10), label=family)
    if shown:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small", frameon=False)
    else:
        ax.text(0.5, 0.5, "no rated match yet", ha="center", va="center", transform=ax.transAxes)
    save(fig, build, CHART, ("svg",), key)
    return fig
