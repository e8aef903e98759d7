"""The report: its figures equal the store's, the charts plot exactly those figures, the files are
valid PNG and SVG, names never overlap with thirty bots, and the page holds what it promises."""

from __future__ import annotations

import html.parser
import itertools
import os
import re
import socket
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from matplotlib.collections import LineCollection
from matplotlib.lines import Line2D
from PIL import Image
from typer.testing import CliRunner

import synthetic_store
from arena.cli.main import app
from arena.results.ratings import MU, SIGMA
from arena.report import ReportError, write_report
from arena.report.charts import CHARTS, build_charts, label, save
from arena.report.data import DEAL_ENDINGS, read_report_data
from arena.results.stats import comparisons, fit_elo, interval_text, leaderboard as stats_leaderboard
from arena.results.store import Store, connect_read_only

runner = CliRunner()


def read(folder: Path):
    db = connect_read_only(folder / "results.sqlite")
    try:
        return read_report_data(db)
    finally:
        db.close()


def store_sql(folder: Path, query: str, *args) -> list[tuple]:
    db = sqlite3.connect(folder / "results.sqlite")
    try:
        return db.execute(query, args).fetchall()
    finally:
        db.close()


def with_gid(fig, gid: str) -> list:
    return fig.findobj(lambda a: a.get_gid() == gid)


# -- the figures are the store's -----------------------------------------------------------------

def test_head_to_head_counts_every_match_of_every_pair(real_tournament):
    data = read(real_tournament)
    score, count = data.score_matrix()
    for a, b in itertools.permutations(data.order, 2):
        rows = store_sql(real_tournament, "SELECT seat0, winner FROM matches WHERE "
                         "(seat0 = ? AND seat1 = ?) OR (seat0 = ? AND seat1 = ?)", a, b, b, a)
        wins = sum(1 for seat0, winner in rows if winner is not None and (seat0 == a) == (winner == 0))
        undecided = sum(1 for _, winner in rows if winner is None)
        assert count.loc[a, b] == len(rows) == 2
        assert score.loc[a, b] == pytest.approx(100 * (wins + undecided / 2) / len(rows))
    assert np.isnan(np.diag(score.to_numpy())).all()


def test_deal_endings_and_mistakes_are_counted_from_the_store(real_tournament):
    data = read(real_tournament)
    for bot in data.order:
        def deals(where: str, bot: str = bot) -> int:
            # The bot's seat in each match decides whose win a deal is.
            return store_sql(real_tournament, "SELECT COUNT(*) FROM deals d JOIN matches m USING "
                             "(match_id) WHERE (m.seat0 = ? AND " + where.format(seat=0) + ") OR "
                             "(m.seat1 = ? AND " + where.format(seat=1) + ")", bot, bot)[0][0]

        row = data.outcomes.loc[bot]
        assert row.sum() == deals("1")
        for points in (1, 2, 3):
            assert row[f"won by claim for {points}"] == deals(
                f"d.winner = {{seat}} AND d.reason IN ('claim', 'claim_against_close') "
                f"AND d.points = {points}")
        assert row["lost: own wrong claim"] == deals("d.winner = 1 - {seat} AND d.reason = 'wrong_claim'")
        assert row["lost: own failed close"] == deals("d.winner = 1 - {seat} AND d.reason = 'close_failed'")
        assert row.sum() - row[list(DEAL_ENDINGS[:5])].sum() - row["drawn"] == \
            deals("d.winner = 1 - {seat}")
        mistakes = data.mistakes.loc[bot]
        assert mistakes["missed claims"] == store_sql(
            real_tournament, "SELECT COALESCE(SUM(missed_claims), 0) FROM seats WHERE bot = ?", bot)[0][0]
        assert mistakes["forfeits: exit"] == store_sql(
            real_tournament, "SELECT COUNT(*) FROM matches WHERE fault = 'exit' AND "
            "((seat0 = ? AND offender = 0) OR (seat1 = ? AND offender = 1))", bot, bot)[0][0]
    # The crashing bot forfeits all six of its matches; the others never do.
    assert data.mistakes["forfeits: exit"].to_dict() == {"greedy": 0, "random": 0, "c-counter": 0,
                                                         "bad_bot": 6}
    assert data.outcomes.loc["random", "lost: own wrong claim"] > 0  # it claims at random


def test_rating_history_ends_where_the_leaderboard_does(real_tournament):
    data = read(real_tournament)
    decided = store_sql(real_tournament, "SELECT COUNT(*) FROM matches WHERE winner IS NOT NULL")[0][0]
    assert len(data.history) == 2 * decided
    assert list(data.history["order"]) == sorted(data.history["order"])
    last = data.history.groupby("bot").last()
    for row in data.leaderboard.itertuples():
        assert (last.loc[row.bot, "mu"], last.loc[row.bot, "sigma"]) == (row.mu, row.sigma)


def test_settings_and_progress_come_from_the_store(real_tournament):
    data = read(real_tournament)
    assert data.name == "real" and data.config["seed"] == 11
    assert data.scheduled == data.played == 12
    assert list(data.bots["name"]) == data.order


# -- the charts plot those figures ----------------------------------------------------------------

@pytest.fixture(scope="module")
def real_charts(real_tournament):
    data = read(real_tournament)
    return data, build_charts(data)


def test_leaderboard_chart_plots_mu_sigma_and_the_conservative_rating(real_charts):
    data, charts = real_charts
    fig = charts["leaderboard"]
    board = data.leaderboard
    (mu_line,) = [a for a in with_gid(fig, "mu") if isinstance(a, Line2D)]
    assert list(mu_line.get_xdata()) == list(board["mu"])
    (bars,) = [a for a in with_gid(fig, "mu") if isinstance(a, LineCollection)]
    for segment, m, s in zip(bars.get_segments(), board["mu"], board["sigma"]):
        assert segment[:, 0] == pytest.approx([m - 3 * s, m + 3 * s])
    (cons,) = with_gid(fig, "conservative")
    assert list(cons.get_offsets()[:, 0]) == pytest.approx(list(board["conservative"]))
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == [f"{r}. {b}" for r, b in zip(board["rank"], board["bot"])]


def test_elo_chart_plots_each_bots_interval_and_marks_the_unseparated(real_charts):
    data, charts = real_charts
    fig = charts["elo"]
    board = data.leaderboard
    plotted = {}
    for gid, separated in (("elo", True), ("elo-not-separated", False)):
        rows = board[board["separated"] == separated]
        lines = [a for a in with_gid(fig, gid) if isinstance(a, Line2D)]
        bars = [a for a in with_gid(fig, gid) if isinstance(a, LineCollection)]
        if rows.empty:
            assert not lines
            continue
        (line,), (bar,) = lines, bars
        assert list(line.get_xdata()) == pytest.approx(list(rows["elo"]))
        assert list(line.get_ydata()) == list(rows.index)  # the bot's row, in leaderboard order
        for segment, low, high in zip(bar.get_segments(), rows["elo_low"], rows["elo_high"]):
            assert segment[:, 0] == pytest.approx([low, high])
        plotted.update(dict(zip(rows["bot"], line.get_xdata())))
    assert set(plotted) == set(board["bot"])
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == [f"{r}. {b}" for r, b in zip(board["rank"], board["bot"])]


def test_ratings_chart_plots_each_bots_history(real_charts):
    data, charts = real_charts
    fig = charts["ratings"]
    for bot in data.order:
        mine = data.history[data.history["bot"] == bot]
        (line,) = with_gid(fig, f"mu:{bot}")
        x, y = line.get_xdata(), line.get_ydata()
        assert y[0] == MU and list(y[1:-1]) == list(mine["mu"]) and y[-1] == y[-2]
        assert list(x[1:-1]) == list(mine["order"] + 1)  # after the match: matches played
        (band,) = with_gid(fig, f"sigma:{bot}")
        top = band.get_paths()[0].vertices[:, 1].max()
        assert top == pytest.approx(max(np.concatenate([[MU + SIGMA], mine["mu"] + mine["sigma"]])))


def test_head_to_head_chart_plots_the_score_matrix(real_charts):
    data, charts = real_charts
    (image,) = with_gid(charts["head_to_head"], "score")
    score, _ = data.score_matrix()
    plotted = image.get_array()
    assert plotted.mask.tolist() == np.isnan(score.to_numpy()).tolist()
    assert plotted.filled(-1).tolist() == score.fillna(-1).to_numpy().tolist()


def test_outcomes_chart_plots_each_ending_as_a_share_of_the_bots_deals(real_charts):
    data, charts = real_charts
    fig = charts["outcomes"]
    deals = data.outcomes.sum(axis=1)
    for ending in DEAL_ENDINGS:
        bars = with_gid(fig, f"ending:{ending}")
        if not bars:
            assert not data.outcomes[ending].any()
            continue
        assert [b.get_width() for b in bars] == pytest.approx(
            list((100 * data.outcomes[ending] / deals).fillna(0)))  # 0 for a bot without deals
    (matrix,) = with_gid(fig, "mistakes")
    texts = [t.get_text() for t in matrix.axes.texts]
    expected = data.mistakes.assign(deals=deals)[["deals", *data.mistakes.columns]]
    assert texts == [("·" if v == 0 and c else str(v)) for row in expected.to_numpy()
                     for c, v in enumerate(row)]


# -- thirty bots ----------------------------------------------------------------------------------

def drawn_ticks(axis) -> list[tuple]:
    """(label, location) of the tick labels matplotlib draws: it skips those of ticks outside the
    view limits."""
    lo, hi = sorted(axis.get_view_interval())
    return [(t, at) for t, at in zip(axis.get_ticklabels(), axis.get_ticklocs())
            if t.get_visible() and t.get_text() and lo - 1e-9 <= at <= hi + 1e-9]


def drawn_labels(axis) -> list:
    return [t for t, _ in drawn_ticks(axis)]


def overlapping(boxes) -> list[tuple[int, int]]:
    return [(i, j) for (i, a), (j, b) in itertools.combinations(enumerate(boxes), 2)
            if a.width and b.width and a.overlaps(b)]


def labels_collide(axis, renderer) -> bool:
    """Whether any two drawn tick labels of ``axis`` overlap. Level or upright labels are compared
    by their boxes; slanted ones (whose boxes overlap though the words do not) by the gap between
    neighbouring baselines, which must be at least the height of a line of text."""
    ticks = drawn_ticks(axis)
    labels = [t for t, _ in ticks]
    if len(labels) < 2:
        return False
    rotation = labels[0].get_rotation() % 180
    if rotation in (0, 90):
        return bool(overlapping([t.get_window_extent(renderer) for t in labels]))
    ax = axis.axes
    at = [ax.transData.transform((loc, 0) if axis is ax.xaxis else (0, loc)) for _, loc in ticks]
    gaps = [float(np.hypot(*(b - a))) for a, b in zip(at, at[1:])]
    height = max(renderer.get_text_width_height_descent(t.get_text(), t.get_fontproperties(),
                                                        ismath=False)[1] for t in labels)
    return min(gaps) * abs(np.sin(np.radians(rotation))) < height


def test_with_thirty_bots_figures_grow_and_names_never_overlap(thirty_bots, real_charts):
    data = read(thirty_bots)
    assert len(data.order) == 30
    charts = build_charts(data)
    small = real_charts[1]  # the four-bot tournament's charts, built once for the module
    for name in CHARTS:
        assert charts[name].get_size_inches()[1] > small[name].get_size_inches()[1], name
    for name, fig in charts.items():
        renderer = fig.canvas.get_renderer()
        fig.draw(renderer)
        for ax in fig.axes:
            for axis in (ax.xaxis, ax.yaxis):
                assert not labels_collide(axis, renderer), f"{name}: tick labels overlap"
        if name == "ratings":  # each panel: the bot's name on the left, its rating on the right
            titles = with_gid(fig, "panel-title")
            assert len(titles) == 60
            assert not overlapping([t.get_window_extent(renderer) for t in titles])
        # Nothing is drawn outside the figure: a name cut at the edge cannot be read.
        width, height = fig.canvas.get_width_height()
        for ax in fig.axes:
            if not ax.get_visible():
                continue
            for t in [*drawn_labels(ax.xaxis), *drawn_labels(ax.yaxis), *ax.texts,
                      *with_gid(ax, "panel-title")]:
                if t.get_visible() and t.get_text():
                    box = t.get_window_extent(renderer)
                    assert box.x0 >= -1 and box.y0 >= -1 and box.x1 <= width + 1 and \
                        box.y1 <= height + 1, f"{name}: {t.get_text()!r} leaves the figure"
    long = synthetic_store.NAMES[7]  # 47 characters: cut on the axes, whole in the page's tables
    assert len(label(long)) == 28 and label(long).endswith("…")
    assert any(t.get_text().endswith(label(long))
               for t in charts["leaderboard"].axes[0].get_yticklabels())


# -- the files and the page -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def real_report(real_tournament) -> Path:
    return write_report(real_tournament)


def test_each_chart_file_is_drawn_once(real_tournament, tmp_path):
    """``save`` lays a chart out once, then draws it once a file: a layout engine left on the
    figure (even "none"'s placeholder) made savefig draw the whole figure once more, rendering
    nothing, before each file."""
    for name, fig in build_charts(read(real_tournament)).items():
        draws = []
        figure_draw = fig.draw

        def counted(renderer, draws=draws, figure_draw=figure_draw):
            draws.append(renderer)
            return figure_draw(renderer)

        fig.draw = counted
        save(fig, tmp_path, name, ("png", "svg"), None)
        assert len(draws) == 2, (name, len(draws))
        assert {p.name for p in tmp_path.glob(f"{name}.*")} == {f"{name}.png", f"{name}.svg"}


def test_report_files_are_valid_png_and_svg_of_sensible_size(real_report):
    folder = real_report.parent
    for name in CHARTS:
        png = folder / f"{name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        with Image.open(png) as image:
            image.verify()
        with Image.open(png) as image:
            width, height = image.size
            assert 600 <= width <= 4000 and 300 <= height <= 4000, (name, image.size)
            assert len(image.convert("RGB").getcolors(1 << 20) or []) > 20  # not blank
        assert 10_000 < png.stat().st_size < 3_000_000
        root = ET.parse(folder / f"{name}.svg").getroot()
        assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("viewBox")
        assert 10_000 < (folder / f"{name}.svg").stat().st_size < 5_000_000


def test_the_report_is_rebuilt_byte_for_byte(real_report, real_tournament):
    files = sorted(p for p in real_report.parent.rglob("*") if p.is_file())
    before = {p: p.read_bytes() for p in files}
    assert write_report(real_tournament) == real_report
    assert {p: p.read_bytes() for p in files} == before
    assert sorted(p for p in real_report.parent.rglob("*") if p.is_file()) == files


class _Page(html.parser.HTMLParser):
    """What a test needs of a page: links, images, element ids, and the body rows of each table
    that has an id."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.images: list[str] = []
        self.ids: list[str] = []
        self.rows: dict[str, int] = {}
        self._tables: list[str] = []
        self._in_body = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.append(a["id"])
        if tag == "a" and "href" in a:
            self.links.append(a["href"])
        elif tag == "img":
            self.images.append(a["src"])
        elif tag == "table":
            self._tables.append(a.get("id", ""))
        elif tag == "tbody":
            self._in_body = True
        elif tag == "tr" and self._in_body and self._tables[-1]:
            self.rows[self._tables[-1]] = self.rows.get(self._tables[-1], 0) + 1

    def handle_endtag(self, tag):
        if tag == "table":
            self._tables.pop()
        elif tag == "tbody":
            self._in_body = False

    @property
    def leaderboard_rows(self) -> int:
        return self.rows.get("leaderboard", 0)


def parse(page: Path) -> _Page:
    parser = _Page()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def test_pages_are_self_contained_and_link_every_match_record(real_report, real_tournament):
    folder = real_report.parent
    index = parse(real_report)
    assert index.leaderboard_rows == 4
    assert sorted(index.images) == sorted(f"{c}.png" for c in CHARTS)
    pages = sorted((folder / "bots").glob("*.html"))
    assert [p.name for p in pages] == ["bad_bot.html", "c-counter.html", "greedy.html",
                                       "random.html"]
    records = set()
    for page in [real_report, *pages]:
        text = page.read_text(encoding="utf-8")
        # No network: nothing is fetched from elsewhere, and every local link resolves.
        assert "http://" not in text and "https://" not in text and "<script" not in text
        parsed = parse(page)
        for link in parsed.links:
            if link.startswith("#"):
                assert link[1:] in parsed.ids, (page.name, link)
            else:
                assert (page.parent / link).is_file(), (page.name, link)
        records |= {(page.parent / link).resolve() for link in parsed.links
                    if link.endswith(".jsonl")}
    stored = {(real_tournament / r).resolve()
              for (r,) in store_sql(real_tournament, "SELECT record FROM matches")}
    assert records == stored and len(records) == 12
    # Each bot's page lists its six matches; the crashing bot's gives the fault of each forfeit.
    for page in pages:
        assert parse(page).rows["matches-table"] == 6
    bad = parse(folder / "bots" / "bad_bot.html")
    assert bad.rows["forfeits"] == 6 and "forfeits" not in parse(folder / "bots" / "greedy.html").rows
    assert (folder / "bots" / "bad_bot.html").read_text(encoding="utf-8").count("forfeited: exit") == 12


def test_the_pages_show_the_statistics_of_issue_17(real_report, real_tournament):
    """Intervals, the not-separated mark and its legend, the LOS matrix, and per opponent the
    pentanomial of the duplicate pairs, as stats.py computes them from the store."""
    folder = real_report.parent
    index = real_report.read_text(encoding="utf-8")
    parsed = parse(real_report)
    assert parsed.rows["los-matrix"] == 4 and "statistics-legend" in parsed.ids
    db = connect_read_only(real_tournament / "results.sqlite")
    try:
        table = stats_leaderboard(db)
        fit = fit_elo(comparisons(db))
    finally:
        db.close()
    rows = re.findall(r"<tr>(.*?)</tr>", re.search(r'<table id="leaderboard">(.*?)</table>', index,
                                                   re.S).group(1), re.S)[1:]
    for row, r in zip(rows, table.itertuples()):
        assert f">{r.bot}</a>" in row
        assert interval_text(r.score_pct, r.score_low, r.score_high) in row
        assert interval_text(r.elo, r.elo_low, r.elo_high, digits=0) in row
        assert ("class=\"mark\"" in row) is (not r.separated)
        assert f"{r.wins}–{r.draws}–{r.losses}" in row
    # The matrix: the Elo fit's LOS of each row over each column, green ("sure") from 95%.
    matrix = re.search(r'<table id="los-matrix">.*?<tbody>(.*?)</tbody>', index, re.S).group(1)
    for bot, row in zip(table["bot"], re.findall(r"<tr>(.*?)</tr>", matrix, re.S)):
        cells = re.findall(r'<td class="n( [a-z-]+)?">([^<]*)</td>', row)
        assert len(cells) == 4
        for other, (cls, text) in zip(table["bot"], cells):
            if bot == other:
                assert text == "" and not cls
                continue
            p = fit.los(bot, other)
            assert (cls == " sure") is (p >= 0.95) and (cls == " sure-not") is (p <= 0.05)
            assert text in ("&gt;99.9", "&lt;0.1") or float(text) == pytest.approx(100 * p, abs=0.1)
    # The crashing bot lost both matches of its one pair against each opponent: pentanomial
    # 1–0–0–0–0 (pairs scoring 0 for it), score 0, and the opponent's view mirrored.
    bad = (folder / "bots" / "bad_bot.html").read_text(encoding="utf-8")
    opponents = re.search(r'<table id="opponents-table">.*?<tbody>(.*?)</tbody>', bad, re.S).group(1)
    assert opponents.count("<td class=\"n\">1–0–0–0–0</td>") == 3
    greedy = (folder / "bots" / "greedy.html").read_text(encoding="utf-8")
    assert "<td class=\"n\">0–0–0–0–1</td>" in greedy
    assert parse(folder / "bots" / "greedy.html").rows["opponents-table"] == 3


def test_names_from_strangers_are_escaped(tmp_path):
    synthetic_store.fill(tmp_path / "results.sqlite", names=["<b>bold</b>", "a&b", "plain"])
    text = write_report(tmp_path).read_text(encoding="utf-8")
    assert "<b>bold</b>" not in text and "&lt;b&gt;bold&lt;/b&gt;" in text and "a&amp;b" in text


def test_a_tournament_without_matches_gets_a_report(tmp_path):
    store = Store.open(tmp_path / "results.sqlite")
    store.begin_tournament("empty", {"matches_per_pairing": 4, "bots": ["a", "b"]})
    store.register_bots([("a", ["./a"], ""), ("b", ["./b"], "")])
    store.close()
    page = write_report(tmp_path)
    text = page.read_text(encoding="utf-8")
    assert "0 of 4 matches played" in " ".join(text.split())
    assert "not finished" in text and parse(page).leaderboard_rows == 2
    assert all((tmp_path / "report" / f"{c}.png").stat().st_size > 1000 for c in CHARTS)


def test_bad_folders_are_clear_errors(tmp_path):
    with pytest.raises(ReportError, match="holds no tournament"):
        write_report(tmp_path)
    (tmp_path / "results.sqlite").write_bytes(b"not a database at all" * 100)
    with pytest.raises(ReportError, match="not a results database"):
        write_report(tmp_path)
    result = runner.invoke(app, ["report", str(tmp_path / "nowhere")])
    assert result.exit_code == 2 and "holds no tournament" in result.output


# -- the command -----------------------------------------------------------------------------------

def test_serving_on_a_taken_port_is_a_clear_error(real_tournament):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = runner.invoke(app, ["report", str(real_tournament), "--serve", "--port", str(port)])
    assert result.exit_code == 2 and f"cannot serve on port {port}" in result.output


def test_report_command_writes_the_page_and_serves_only_the_published_set(real_tournament,
                                                                          tmp_path):
    scratch = tmp_path / "tmp"  # where the command keeps the published copy it serves
    scratch.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "arena.cli.main", "report", str(real_tournament),
                             "--serve", "--port", "0"], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "COLUMNS": "300", "TMPDIR": str(scratch)})
    try:
        lines = [proc.stdout.readline() for _ in range(2)]
        assert lines[0].startswith("report: ") and lines[0].strip().endswith("index.html")
        assert (real_tournament / "report" / "index.html").is_file()
        url = lines[1].split(" at ")[1].split()[0]
        assert url.startswith("http://127.0.0.1:") and url.endswith("/")
        with urllib.request.urlopen(url, timeout=10) as reply:
            assert "<table id=\"leaderboard\">" in reply.read().decode()
        with urllib.request.urlopen(url + "leaderboard.png", timeout=10) as reply:
            assert reply.headers["Content-Type"] == "image/png"
        record = store_sql(real_tournament, "SELECT record FROM matches LIMIT 1")[0][0]
        with urllib.request.urlopen(url + record, timeout=10) as reply:
            assert reply.read().startswith(b"{")
        # Nothing private is there to fetch: the database, its WAL files, the logs, the
        # tournament's own report folder and whatever lies beside the served folder.
        log = sorted((real_tournament / "logs").iterdir())[0].name
        for private in ["results.sqlite", "results.sqlite-wal", "results.sqlite-shm",
                        f"logs/{log}", "logs/", "tournament.log", "report/index.html",
                        "../results.sqlite", "%2e%2e/results.sqlite"]:
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(url + private, timeout=10)
            assert refused.value.code == 404, private
        assert list(scratch.glob("sixtysix-serve-*"))  # whatever else a library puts there
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        proc.stdout.close()
    # SIGTERM stops it as Ctrl-C does: a clean exit, and the published copy is gone.
    assert proc.returncode == 0
    assert not list(scratch.glob("sixtysix-serve-*"))
