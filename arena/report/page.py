"""The report's web pages (Jinja2 templates): ``index.html`` beside the chart files, and a page
per bot in ``bots/``.

The pages need no server and no network: their CSS is inline, they have no script, and they refer
only to the chart files, to each other and to the match records, by relative links, so they work
from ``file://`` and from any static host. Where the records are is the caller's choice: beside the
report in the tournament folder (``DIR/records/``, for ``arena report``), or inside the published
folder (``OUT/records/``, for ``arena publish``). Every value is escaped by Jinja2 (bot names and
fault details come from strangers' programs), and nothing on a page names a path of this machine
(``public.py``).
"""

from __future__ import annotations

import hashlib
import math
import re
import urllib.parse
from typing import Any, Mapping, Sequence

import jinja2
import pandas as pd

from arena import __version__
from arena.report.charts import SINGLE
from arena.report.data import ReportData
from arena.report.public import public_version, publishable_record, scrub_paths
from arena.results.stats import NOT_SEPARATED, SEPARATED_LOS, interval_text, likelihood_text
from arena.types import MatchEnding

CHART_TEXT = {
    "leaderboard": ("Leaderboard",
                    "Bots ranked by conservative rating (mu − 3 sigma): the dot is TrueSkill mu, "
                    "the bar mu ± 3 sigma, and the number the conservative rating."),
    "elo": ("Elo with 95% intervals",
            "Each bot's Elo from a batch fit of all results (mean 0) with its 95% interval, duplicate "
            "pairs (three or four players: deal sets) as units; in red a bot not separated from the "
            "one above (the fit's likelihood that the one above is stronger is under 95%)."),
    "ratings": ("Ratings over the tournament",
                "Each bot's mu after each of its matches, in schedule order, with a band of "
                "± 1 sigma; the other bots in grey."),
    "head_to_head": ("Head to head",
                     "The row's match score against the column (a win counts 1, a match without "
                     "a winner ½), and the number of matches they played."),
    "outcomes": ("Outcomes",
                 "How each bot's deals ended, as shares of its deals, and its mistakes counted: "
                 "wrong claims, failed closes, missed claims, forfeits by fault."),
}
# With three or four players a chart's figures are per side (PROTOCOL.md §9).
SEATED_CAPTIONS = {
    "head_to_head": "The row's score against the column in the matches they both played, on "
                    "different sides: its side placed ahead counts 1, level ½ (by game points, a "
                    "forfeit last; with four players the winning side); and the number of such "
                    "matches.",
    "outcomes": "How the deals of each bot's side ended (its partnership's with four players), as "
                "shares of its deals, and its own mistakes counted: wrong and missed claims, "
                "forfeits by fault, declined matches.",
}
SETTING_NAMES = {
    "profile": "rules profile", "rules": "rule overrides", "matches_per_pairing":
    "matches per pairing", "deal_sets": "deal sets per group (each in six seatings)", "decision_ms": "time per decision (ms)",
    "startup_ms": "start-up time (ms)", "max_deals": "deal limit per match",
    "first_decision_ms": "first decision's limit (ms)", "bank_ms": "time bank per bot and match (ms)",
}

_ENV = jinja2.Environment(loader=jinja2.PackageLoader("arena.report", "templates"),
                          autoescape=True, undefined=jinja2.StrictUndefined,
                          trim_blocks=True, lstrip_blocks=True)


def _num(value: Any, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.{digits}f}"


def _statistics_row(r: Mapping[str, Any]) -> dict[str, Any]:
    """A leaderboard row's issue-17 figures (stats.leaderboard), as the page shows them."""
    return {"mark": "" if r["separated"] else NOT_SEPARATED,
            "wdl": f"{int(r['wins'])}–{int(r['draws'])}–{int(r['losses'])}",
            "score_ci": interval_text(r["score_pct"], r["score_low"], r["score_high"]),
            "elo_ci": interval_text(r["elo"], r["elo_low"], r["elo_high"], digits=0),
            "los_above": likelihood_text(None if math.isnan(r["los_above"]) else r["los_above"] / 100)}


def _los_matrix(data: ReportData, pages: dict[str, str]) -> dict[str, Any] | None:
    """The Elo fit's likelihood of superiority of each row over each column, in leaderboard order;
    a cell of at least SEPARATED_LOS is 'sure', of at most 1 - SEPARATED_LOS 'sure-not'."""
    if data.los.empty or len(data.order) < 2:
        return None
    rows = []
    for bot in data.order:
        cells = []
        for other in data.order:
            p = data.los.at[bot, other]
            cls = "" if math.isnan(p) else "sure" if p >= SEPARATED_LOS else \
                "sure-not" if p <= 1 - SEPARATED_LOS else ""
            cells.append({"text": "" if bot == other else likelihood_text(p), "cls": cls})
        rows.append({"bot": bot, "rank": data.order.index(bot) + 1, "page": pages[bot],
                     "cells": cells})
    # Columns are headed by rank (the name in a tooltip): thirty long names across would make
    # the table far wider than any screen.
    return {"columns": [{"bot": b, "rank": i + 1, "page": pages[b]}
                        for i, b in enumerate(data.order)], "rows": rows}


def _seeded(config: dict[str, Any]) -> bool:
    """Whether the run was given a seed on purpose (``--seed N``, for research runs). Otherwise its
    deals come from a secret key that stays in the database, and the page shows no seed at all.
    Read defensively: a store may say ``seed: null``, ``seeded: false``, or (before secret keys)
    hold the seed every run had."""
    seed = config.get("seed")
    return isinstance(seed, int) and not isinstance(seed, bool) \
        and config.get("seeded") is not False


def _settings(config: dict[str, Any]) -> list[tuple[str, str]]:
    rows = []
    for key in ("profile", "rules", "matches_per_pairing", "deal_sets", "seed", "decision_ms", "startup_ms",
                "first_decision_ms", "bank_ms", "max_deals"):
        if key == "seed":  # deal_keys.py: a tournament without --seed deals from a secret key
            rows.append(("deals", f"from research seed {config['seed']} (bots that know it can "
                         "derive every deal)") if _seeded(config) else
                        ("deals", "from a secret key (not published)"))
            continue
        if key not in config:
            continue
        value = config[key]
        if key == "rules":
            text = ", ".join(f"{k} = {v}" for k, v in sorted(value.items())) or \
                "none (the profile as it is)"
        else:
            text = str(value)
        rows.append((SETTING_NAMES[key], text))
    return rows


def page_names(order: list[str]) -> dict[str, str]:
    """Each bot's page, ``bots/NAME.html`` with the name cut to letters, digits, '-' and '_', and
    unique even on file systems that ignore case."""
    taken: set[str] = set()
    pages = {}
    for bot in order:
        base = re.sub(r"[^A-Za-z0-9_-]+", "-", bot).strip("-")[:60] or "bot"
        slug, n = base, 1
        while slug.lower() in taken:
            n += 1
            slug = f"{base}-{n}"
        taken.add(slug.lower())
        pages[bot] = f"bots/{slug}.html"
    return pages


MATCH_ENDINGS = {MatchEnding.TARGET: "played to the target",
                 MatchEnding.DEAL_LIMIT: "stopped at the deal limit",
                 MatchEnding.NO_CONTEST: "no contest: neither bot started"}


def _match_row(m: Any, records: str) -> dict[str, Any]:
    ending = MATCH_ENDINGS.get(m.reason, m.reason)
    seated = hasattr(m, "others")  # a three- or four-player match (data._seated_per_bot)
    if m.reason == MatchEnding.FORFEIT:
        who = "forfeited" if m.forfeited else \
            f"{m.offender_bot} forfeited" if seated else "opponent forfeited"
        ending = f"{who}: {m.fault}" + (f" ({scrub_paths(m.detail)})" if m.detail else "")
    if m.reason == MatchEnding.DECLINED:
        ending = "not played: " + ("it declined the variant" if m.declined
                                   else "another bot declined the variant")
    if seated:
        # The match's figures are its sides' (PROTOCOL.md §9): the result is the side's.
        result = {"won": "won", "lost": "lost"}.get(m.side_result, "undecided")
        return {"order": int(m.sched_order) + 1, "id": m.match_id, "opponent": m.others,
                "href": records + m.record if publishable_record(m.record) else None,
                "seat": int(m.seat), "result": result, "score": m.score, "ending": ending}
    return {"order": int(m.sched_order) + 1, "id": m.match_id, "opponent": m.opponent,
            "href": records + m.record if publishable_record(m.record) else None,
            "seat": int(m.seat), "result": m.result, "score": f"{m.points_for}–{m.points_against}",
            "ending": ending}


def _listed_row(m: Any, records: str, replays: Mapping[str, str],
                hidden: frozenset[str], located: Mapping[str, str] | None = None
                ) -> dict[str, Any]:
    """A row of a bot's match list with its replay page (report/replays/, one folder up from the
    bot's page) where one was written. A published match still waiting for its duplicate partner
    links neither record nor replay: neither was published (public.waiting_for_partner)."""
    row = _match_row(m, records)
    if located is not None and row["href"] is not None:  # the file holding it, if any
        where = located.get(m.record)
        row["href"] = records + urllib.parse.quote(where) if where else None
    if m.match_id in hidden:
        row["href"] = None
    page = None if m.match_id in hidden else replays.get(m.record)
    row["replay"] = "../" + urllib.parse.quote(page) if page else None
    return row


def _bot_page(data: ReportData, bot: str, pages: dict[str, str], records: str,
              replays: Mapping[str, str] | None = None,
              hidden: frozenset[str] = frozenset(),
              located: Mapping[str, str] | None = None) -> dict[str, Any]:
    """What a bot's page shows. Its links are relative to ``bots/``: other bots' pages are its
    neighbours, the match records one folder up and then as ``records`` says."""
    records = "../" + records
    row = data.leaderboard.set_index("bot").loc[bot]
    command = data.bots.set_index("name").loc[bot]
    mine = data.matches[data.matches["bot"] == bot]
    if data.players > 2:  # a row per opponent met: the bot's list shows each match once
        mine = mine.drop_duplicates("match_id")
    endings = data.outcomes.loc[bot]
    deals = int(endings.sum())
    h2h = data.head_to_head[data.head_to_head["bot"] == bot].set_index("opponent")
    stats = data.h2h_stats[data.h2h_stats["bot"] == bot].set_index("opponent") \
        if len(data.h2h_stats) else pd.DataFrame()
    opponents = [{
        "name": o, "page": pages[o].removeprefix("bots/"), "matches": int(h.matches),
        "record": f"{int(h.wins)}–{int(h.losses)}" + (f"–{int(h.undecided)}" if h.undecided else ""),
        "score": _num(h.score_pct), "points": f"{int(h.points_for)}–{int(h.points_against)}",
        **_pair_statistics(stats.loc[o] if o in stats.index else None),
    } for o in data.order if o in h2h.index for h in [h2h.loc[o]]]
    timing = data.timing.loc[bot]
    return {
        "name": bot, "rank": int(row["rank"]), "command": command["command"],
        "version": command["version"] or "–",
        "mu": _num(row["mu"], 2), "sigma": _num(row["sigma"], 2),
        "conservative": _num(row["conservative"], 2), "matches": int(row["matches"]),
        "win_pct": _num(row["win_pct"]), "points_per_deal": _num(row["points_per_deal"], 3),
        "score_pct": _num(row["score_pct"]) if "score_pct" in row else None,
        **_statistics_row(row),
        "deals": deals,
        "partners": [{"name": p.partner, "page": pages[p.partner].removeprefix("bots/"),
                      "matches": int(p.matches),
                      "record": f"{int(p.wins)}–{int(p.losses)}" +
                      (f"–{int(p.undecided)}" if p.undecided else ""),
                      "score": _num(p.score_pct)}
                     for p in sorted(data.partners.itertuples(),
                                     key=lambda p: data.order.index(p.partner))
                     if p.bot == bot],  # in leaderboard order, as the opponents
        "endings": [(e, int(endings[e]), _num(100 * endings[e] / deals) if deals else "–")
                    for e in data.outcomes.columns if endings[e]],
        "mistakes": [(k, int(v)) for k, v in data.mistakes.loc[bot].items()],
        "forfeits": [_listed_row(m, records, replays or {}, hidden, located)
                     for m in mine[mine["forfeited"]].itertuples()],
        "timing": {"decisions": int(timing["decisions"]), "median": _num(timing["median_ms"], 2),
                   "p99": _num(timing["p99_ms"], 1), "max": _num(timing["max_ms"], 1)},
        "opponents": opponents,
        "rows": [_listed_row(m, records, replays or {}, hidden, located) for m in mine.itertuples()],
    }


def _pair_statistics(row: Any) -> dict[str, Any]:
    """A head-to-head's issue-17 figures (stats.head_to_head) as the bot page shows them: units (pairs
    or deal sets), the pentanomial 'LL–LD–DD+WL–WD–WW', score and Elo with intervals, LOS."""
    if row is None:
        return {"units": 0, "penta": "–", "score_ci": "–", "elo_ci": "–", "los": "–"}
    penta = row["penta"]
    return {"units": int(row["pairs"]),
            "penta": "–".join(str(c) for c in penta) if isinstance(penta, tuple) else "–",
            "score_ci": interval_text(100 * row["score"], 100 * row["score_low"],
                                      100 * row["score_high"]),
            "elo_ci": interval_text(row["elo"], row["elo_low"], row["elo_high"], digits=0),
            "los": likelihood_text(row["los"])}


def _partner_matrix(data: ReportData, pages: dict[str, str]) -> dict[str, Any] | None:
    """Four players: each bot (row) with each partner (column): its side's score share in % and the
    matches they played together, in leaderboard order. None for other tournaments."""
    if data.players != 4:
        return None
    table = data.partners.set_index(["bot", "partner"])
    rows = []
    for bot in data.order:
        cells: list[dict[str, Any] | None] = []
        for partner in data.order:
            if (bot, partner) in table.index:
                t = table.loc[(bot, partner)]
                cells.append({"score": _num(t["score_pct"]), "matches": int(t["matches"]),
                              "record": f"{int(t['wins'])}–{int(t['losses'])}"})
            else:
                cells.append(None)
        rows.append({"bot": bot, "page": pages[bot], "cells": cells})
    return {"columns": [{"bot": b, "page": pages[b]} for b in data.order], "rows": rows}


def tournament_id(data: ReportData) -> str:
    """A name for the tournament that says nothing private (a hash of its name and start time):
    ``arena publish`` finds it in a folder it published before, and replaces only such a folder."""
    return hashlib.sha256(f"{data.name}\0{data.created}".encode()).hexdigest()[:16]


def _when(stamp: object) -> str | None:
    """'2026-11-21T20:22:54Z' as '2026-11-21 20:22 UTC'."""
    text = str(stamp) if stamp else ""
    return f"{text[:10]} {text[11:16]} UTC" if len(text) >= 16 else (text or None)


def render_pages(data: ReportData, charts: Mapping[str, tuple[float, float]],
                 records: str = "../", published: bool = False,
                 replays: Mapping[str, str] | None = None,
                 hidden: frozenset[str] = frozenset(),
                 beside: Sequence[tuple[str, str]] = (),
                 located: Mapping[str, str] | None = None,
                 single: bool = False) -> dict[str, str]:
    """The report's pages as {path relative to the report folder: HTML}: ``index.html`` (the
    overview) and one page per bot under ``bots/``. ``charts`` maps each chart's name to its size
    in inches: the index shows a chart at its size as drawn (96 CSS pixels an inch), shrunk only
    to fit a narrow window. ``records`` leads from the report folder to the folder the stored
    record paths (``records/...``) are relative to: ``../`` for ``DIR/report/``, nothing for a
    published folder, which holds its records. ``replays`` maps a stored record path to its
    replay page (relative to the report folder); ``hidden`` are matches whose record and replay
    are not published yet (waiting for their duplicate partner: the pages say how many);
    ``beside`` are (text, address) of pages published beside the report, which the index's
    navigation links (a league's ladder). ``located`` (a packed build: archive.py) maps a
    stored record path to the file that holds it (the record, or the archive of its block), which
    the match's link then leads to; a record it does not hold is not linked. ``single``: each
    chart was written in one format only (``charts.SINGLE``)."""
    pages = page_names(data.order)
    finished = data.matches["finished"]
    common = {"name": data.name, "version": __version__, "bot_count": len(data.order),
              "players": data.players,
              "published": published, "tournament_id": tournament_id(data),
              "waiting": len(hidden), "beside": list(beside), "public_version": public_version()}
    leaderboard = [{
        "rank": int(r.rank), "bot": r.bot, "page": pages[r.bot], "mu": _num(r.mu, 2),
        "sigma": _num(r.sigma, 2), "conservative": _num(r.conservative, 2),
        "matches": int(r.matches), "win_pct": _num(r.win_pct),
        "points_per_deal": _num(r.points_per_deal, 3), "forfeits": int(r.forfeits),
        "score_pct": _num(getattr(r, "score_pct", None)), "declined": getattr(r, "declined", 0),
        **_statistics_row(r._asdict()),
    } for r in data.leaderboard.itertuples()]
    bots = data.bots.assign(version=data.bots["version"].replace("", "–"))
    out = {"index.html": _ENV.get_template("index.html.j2").render(
        **common,
        created=_when(data.created),
        last=_when(finished.max()) if len(finished) else None,
        played=data.played,
        scheduled=data.scheduled,
        deals=data.deal_count,
        partners=_partner_matrix(data, pages),
        los=_los_matrix(data, pages),
        separated_los=f"{SEPARATED_LOS:.0%}", unseparated_los=f"{1 - SEPARATED_LOS:.0%}",
        not_separated=NOT_SEPARATED,
        settings=_settings(data.config),
        leaderboard=leaderboard,
        charts=[{"name": c, "title": CHART_TEXT[c][0],
                 "caption": SEATED_CAPTIONS.get(c, CHART_TEXT[c][1]) if data.players > 2
                 else CHART_TEXT[c][1],
                 "width": round(w * 96), "height": round(h * 96),
                 "files": [f"{c}.{SINGLE[c]}"] if single else [f"{c}.png", f"{c}.svg"]}
                for c, (w, h) in charts.items()],
        bots=[{"name": b.name, "page": pages[b.name], "command": b.command, "version": b.version}
              for b in bots.itertuples()],
    )}
    template = _ENV.get_template("bot.html.j2")
    for bot in data.order:
        out[pages[bot]] = template.render(**common, archived=located is not None,
                                          b=_bot_page(data, bot, pages, records, replays,
                                                      hidden, located))
    return out
