"""The report's five charts, drawn with matplotlib on its Agg canvas (no display, no pyplot state).

Each chart function takes the ``ReportData`` frames and returns a ``Figure``; nothing here reads the
store or computes a figure of its own, so what is drawn is what ``data.py`` read. Figures grow with
the number of bots (a fixed height per bot, a fixed size per heatmap cell) so that names never
overlap, whether two bots play or thirty. Artists that carry data have a ``gid`` naming it, which
the tests use to compare the plotted values with the store's.
"""

from __future__ import annotations

import math
import textwrap
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any, Callable, Sequence

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from arena.report.data import (
    ALWAYS_SHOWN,
    DRAWN,
    LOST,
    LOST_FAILED_CLOSE,
    LOST_FORFEITED_DEAL,
    LOST_PARTNER_WRONG_CLAIM,
    LOST_WRONG_CLAIM,
    WON_BY_CLAIM,
    WON_ON_MISTAKE,
    WON_PLAYED_OUT,
    ReportData,
)
from arena.results.ratings import MU, SIGMA

CHARTS = ("leaderboard", "elo", "ratings", "head_to_head", "outcomes")
SINGLE = {"leaderboard": "svg", "elo": "svg", "ratings": "png", "head_to_head": "svg",
          "outcomes": "svg"}
"""The one format each chart is written in where one suffices (a league's build, which draws
them at every publish): SVG for the charts of text and bars (as small as their PNG, sharp at any
zoom, and cheaper to save), PNG for the ratings' thousands of steps (its SVG was 1.3 MB at 10,000
matches). Measured at 10,000 matches (2 cores, load 4): drawing, laying out and saving the five
took 5.2 s in both formats, 3.2 s in these."""
PNG_DPI = 144
NAME_WIDTH = 28        # characters of a bot's name on an axis; the page's tables show it whole
ROW_INCHES = 0.34      # height of one bot's row in the ranked charts
STYLE: dict[Any, Any] = {  # (matplotlib types rc keys as literals)
    "font.family": "DejaVu Sans",    # ships with matplotlib: the same glyphs on every machine
    "font.size": 10,
    "axes.titlesize": 12,
    "axes.titleweight": "bold",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "svg.hashsalt": "sixtysix-arena",  # stable ids: the same results give the same SVG bytes
}
ACCENT = "#1f5fa8"
NOT_SEPARATED_COLOUR = "#b3261e"  # the page's ≈ mark
MUTED = "#9a9a9a"
ENDING_COLOURS = {
    WON_BY_CLAIM[0]: "#0b6b2e",  # for 3
    WON_BY_CLAIM[1]: "#2f9e4f",  # for 2
    WON_BY_CLAIM[2]: "#8fd18f",  # for 1
    WON_ON_MISTAKE: "#5fb5b0",
    WON_PLAYED_OUT: "#cfe8cf",
    DRAWN: "#e3e3e3",
    LOST: "#a8a8a8",
    LOST_WRONG_CLAIM: "#f4a13a",
    LOST_PARTNER_WRONG_CLAIM: "#f8cd8c",
    LOST_FAILED_CLOSE: "#d9412b",
    LOST_FORFEITED_DEAL: "#6b0f1a",
}
DARK_ENDINGS = {WON_BY_CLAIM[0], WON_BY_CLAIM[1], LOST_FAILED_CLOSE,
                LOST_FORFEITED_DEAL}  # white numbers on these
# Red (the row loses) through white (even) to blue (the row wins); NaN cells (a bot against
# itself, pairs that have not met) are drawn light grey.
SCORE_COLOURS = LinearSegmentedColormap.from_list("score", ["#c0392b", "#f7f7f7", "#2166ac"])


def label(name: str, width: int = NAME_WIDTH) -> str:
    """A bot's name cut to ``width`` characters for an axis (an ellipsis marks the cut)."""
    return name if len(name) <= width else name[:width - 1] + "…"


def ranked_labels(data: ReportData, width: int = NAME_WIDTH) -> list[str]:
    return [f"{rank}. {label(bot, width)}" for rank, bot in zip(data.leaderboard["rank"], data.order)]


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)  # Agg: raster and vector output with no display and no GUI toolkit
    return fig


def _ranked_frame(ax: Any, data: ReportData, y: Any, left: float, right: float) -> None:
    """What the two ranked charts (leaderboard, Elo) share: a bot per row, best at the top, the
    names with their ranks, a light vertical grid behind the bars."""
    ax.set_xlim(left, right)
    ax.set_yticks(y, ranked_labels(data))
    ax.set_ylim(len(y) - 0.5, -0.5)  # best at the top
    ax.tick_params(axis="y", length=0)
    ax.grid(axis="x", color="#e6e6e6")
    ax.set_axisbelow(True)


def leaderboard_chart(data: ReportData) -> Figure:
    """Bots ranked by conservative rating: mu with a bar of mu ± 3 sigma; the bar's left end, the
    conservative rating, is marked and written out because it is what ranks the table."""
    board = data.leaderboard
    n = len(board)
    fig = _figure(9.5, max(2.8, 1.5 + ROW_INCHES * n))
    ax = fig.add_subplot()
    y = np.arange(n)
    mu, sigma, cons = board["mu"].to_numpy(), board["sigma"].to_numpy(), \
        board["conservative"].to_numpy()
    ax.axvline(MU, color=MUTED, linestyle=":", linewidth=1)
    ax.errorbar(mu, y, xerr=3 * sigma, fmt="o", color=ACCENT, ecolor="#8fb3dc", elinewidth=5,
                capsize=0, markersize=6, gid="mu", label="mu ± 3 sigma")
    ax.scatter(cons, y, marker="|", s=220, linewidths=2.5, color="#0d2c54", zorder=3,
               gid="conservative", label="conservative rating (mu − 3 sigma)")
    right = float(np.max(mu + 3 * sigma)) if n else MU + 3 * SIGMA
    left = float(np.min(cons)) if n else MU - 3 * SIGMA
    pad = 0.02 * (right - left)
    for yi, c, top in zip(y, cons, mu + 3 * sigma):
        ax.text(top + pad, float(yi), f"{c:.1f}", va="center", fontsize=9, color="#0d2c54")
    _ranked_frame(ax, data, y, left - 2 * pad, right + 8 * pad)
    ax.set_xlabel(f"TrueSkill rating (every bot starts at mu {MU:g}, dotted line); "
                  "the number is the conservative rating")
    ax.set_title(f"Leaderboard: {data.name}", loc="left")
    ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), ncols=2, fontsize=8.5, frameon=False)
    return fig


def elo_chart(data: ReportData) -> Figure:
    """Each bot's Elo from the batch fit with its 95% interval (stats.py), in leaderboard order; a
    bot whose order against the one above is not established (LOS under 95%) is drawn in red, so
    overlapping bars and the mark say the same thing. A bot without results has no bar."""
    board = data.leaderboard
    n = len(board)
    fig = _figure(9.5, max(2.8, 1.5 + ROW_INCHES * n))
    ax = fig.add_subplot()
    y = np.arange(n)
    elo = board["elo"].to_numpy(dtype=float)
    low, high = board["elo_low"].to_numpy(dtype=float), board["elo_high"].to_numpy(dtype=float)
    apart = board["separated"].to_numpy(dtype=bool)
    ax.axvline(0, color=MUTED, linestyle=":", linewidth=1)
    for keep, colour, bar, text in ((apart, ACCENT, "#8fb3dc", "Elo, 95% interval"),
                                    (~apart, NOT_SEPARATED_COLOUR, "#e8a9a3",
                                     "not separated from the bot above (LOS < 95%)")):
        shown = keep & ~np.isnan(elo)
        if shown.any():
            ax.errorbar(elo[shown], y[shown],
                        xerr=[elo[shown] - low[shown], high[shown] - elo[shown]], fmt="o",
                        color=colour, ecolor=bar, elinewidth=5, capsize=0, markersize=6,
                        gid="elo" if colour == ACCENT else "elo-not-separated", label=text)
    finite = np.concatenate([low[~np.isnan(low)], high[~np.isnan(high)], [-100.0, 100.0]])
    left, right = float(finite.min()), float(finite.max())
    pad = 0.02 * (right - left)
    for yi, e, top in zip(y, elo, high):
        if not math.isnan(e):
            ax.text(top + pad, float(yi), f"{e:+.0f}", va="center", fontsize=9, color="#0d2c54")
    _ranked_frame(ax, data, y, left - 2 * pad, right + 8 * pad)
    ax.set_xlabel("Elo from a fit of all results (mean 0, dotted line), 95% interval with each "
                  "duplicate pair (deal set) one unit")
    ax.set_title(f"Elo: {data.name}", loc="left")
    if ax.get_legend_handles_labels()[0]:  # nothing played yet: no bars, no legend
        ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), ncols=2, fontsize=8.5,
                  frameon=False)
    return fig


def _stairs(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The vertices of a steps-post line through (x, y), for a LineCollection."""
    xs = np.repeat(x, 2)[1:]
    ys = np.repeat(y, 2)[:-1]
    return np.column_stack([xs, ys])


# A panel is some 450 pixels wide: more steps than this per line draw nothing more, and a league
# of 10,000 matches made a ratings chart of megabytes that took seconds to save.
MAX_STEPS = 600


def visible_points(x: np.ndarray, ys: Sequence[np.ndarray], columns: int = MAX_STEPS // 3,
                   rows: int = 1000) -> np.ndarray:
    """The indices of the points of a step line (x sorted) worth drawing when it has more than
    ``3 * columns``: the line cut into ``columns`` equal spans of x (a few pixels each), and in
    each the points where the first of ``ys`` is lowest and highest and the span's last point (so
    a spike narrower than a pixel keeps its height, and the line where it crosses into the next
    span its value); then of those only the points where some of ``ys`` moved by a ``rows``-th
    of its range or more since the last point kept (less is under half a pixel on any panel).
    The first and last points are always kept: where the line starts and where it stands."""
    n = len(x)
    if n <= 3 * columns:
        return np.arange(n)
    span = float(x[-1] - x[0]) or 1.0
    column = np.minimum(((x - x[0]) / span * columns).astype(int), columns - 1)
    starts = np.flatnonzero(np.r_[True, column[1:] != column[:-1]])
    ends = np.r_[starts[1:], n]
    main = ys[0]
    picked = {0, n - 1}
    for first, end in zip(starts.tolist(), ends.tolist()):
        part = main[first:end]
        picked.update((first + int(np.argmin(part)), first + int(np.argmax(part)), end - 1))
    order = sorted(picked)
    steps = [max(float(np.ptp(y)), 1e-12) / rows for y in ys]
    keep = [order[0]]
    for i in order[1:-1]:
        if any(abs(float(y[i] - y[keep[-1]])) >= step for y, step in zip(ys, steps)):
            keep.append(i)
    keep.append(order[-1])
    return np.asarray(keep)


def _thinned(x: np.ndarray, mu: np.ndarray, sigma: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A line of more than MAX_STEPS steps cut to the points that show (``visible_points``):
    at most MAX_STEPS."""
    keep = visible_points(x, (mu, sigma))
    return x[keep], mu[keep], sigma[keep]


def ratings_chart(data: ReportData) -> Figure:
    """Each bot's mu over the tournament with its ± sigma band, one small panel per bot in rank
    order (every other bot's mu in grey behind it): thirty lines in one panel could not be read."""
    order = data.order
    n = len(order)
    # At most four panels a row: wider, the chart would be shrunk to fit a page and its text with it.
    ncols = n if n <= 3 else min(4, math.ceil(math.sqrt(n)))
    nrows = math.ceil(n / ncols)
    fig = _figure(0.6 + 3.2 * ncols, 0.9 + 2.3 * nrows)
    axes = fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False)
    history = data.history
    end = float(history["order"].max() + 1) if len(history) else 1.0
    series = {}
    for bot in order:
        mine = history[history["bot"] == bot]
        x = mine["order"].to_numpy(dtype=float) + 1  # after the match: matches played so far
        mu = np.concatenate([[MU], mine["mu"].to_numpy(dtype=float)])
        sigma = np.concatenate([[SIGMA], mine["sigma"].to_numpy(dtype=float)])
        series[bot] = _thinned(np.concatenate([[0.0], x, [end]]), np.concatenate([mu, mu[-1:]]),
                               np.concatenate([sigma, sigma[-1:]]))
    titles = ranked_labels(data, width=20)  # leaves room for the final rating on the right
    for i, bot in enumerate(order):
        ax = axes[i // ncols][i % ncols]
        # One collection for the grey context lines: thirty bots make 870 of them in all.
        ax.add_collection(LineCollection([_stairs(*series[o][:2]) for o in order if o != bot],
                                         colors="#d4d4d4", linewidths=0.8))
        x, mu, sigma = series[bot]
        ax.fill_between(x, mu - sigma, mu + sigma, step="post", color=ACCENT, alpha=0.2,
                        linewidth=0, gid=f"sigma:{bot}")
        ax.plot(x, mu, drawstyle="steps-post", color=ACCENT, linewidth=1.8, gid=f"mu:{bot}")
        ax.plot(x[-1:], mu[-1:], "o", color=ACCENT, markersize=4)  # where the bot ended
        # y=1.0, where matplotlib would place them anyway (the x ticks are below), but fixed: a
        # placed title is not measured against its axes' tick labels at each layout and draw,
        # which cost a third of this chart's time with thirty panels.
        ax.set_title(titles[i], loc="left", fontsize=10, gid="panel-title", y=1.0)
        ax.set_title(f"{mu[-1]:.1f} ± {sigma[-1]:.1f}", loc="right", fontsize=8.5,
                     color="#333333", gid="panel-title", y=1.0)
        ax.grid(color="#ececec")
    for j in range(n, nrows * ncols):
        axes[j // ncols][j % ncols].set_visible(False)
        # The panel above an empty slot ends its column: it needs the x labels itself.
        axes[j // ncols - 1][j % ncols].xaxis.set_tick_params(labelbottom=True)
    fig.supxlabel("matches played in the tournament (schedule order)", fontsize=10)
    fig.supylabel("TrueSkill mu (band: ± 1 sigma)", fontsize=10)
    fig.suptitle(f"Ratings over the tournament: {data.name}", x=0.01, ha="left",
                 fontweight="bold")
    return fig


def head_to_head_chart(data: ReportData) -> Figure:
    """Match score of each row against each column in %, and the number of matches they played."""
    score, count = data.score_matrix()
    n = len(score)
    cell = min(1.0, max(0.46, 5.0 / max(n, 1)))  # inches: large for a few bots, never cramped
    names = max((len(label(b)) for b in data.order), default=4)
    margin = 0.8 + 0.075 * names  # room for the longest name, along either axis
    width = max(6.5, margin + cell * n + 1.4)
    fig = _figure(width, margin + cell * n + 1.1)
    ax = fig.add_subplot()
    cmap = SCORE_COLOURS.with_extremes(bad="#ececec")
    image = ax.imshow(np.ma.masked_invalid(score.to_numpy()), cmap=cmap, vmin=0, vmax=100,
                      interpolation="nearest",
                      gid="score")
    big, small = (10, 8) if cell >= 0.8 else (9, 7.5) if cell > 0.5 else (8.5, 6.5)
    unit = "%" if cell > 0.5 else ""  # small cells: the number alone, in a larger font
    for r in range(n):
        for c in range(n):
            value = score.iat[r, c]
            if math.isnan(value):
                continue
            ink = "white" if abs(value - 50) > 32 else "#222222"
            ax.text(c, r - 0.12, f"{value:.0f}{unit}", ha="center", va="center", fontsize=big,
                    color=ink, fontweight="bold", in_layout=False)
            ax.text(c, r + 0.24, f"{count.iat[r, c]}", ha="center", va="center", fontsize=small,
                    color=ink, in_layout=False)
    labels = ranked_labels(data)
    ax.set_xticks(range(n), labels, rotation=50, ha="left", rotation_mode="anchor")
    ax.set_yticks(range(n), labels)
    ax.xaxis.tick_top()
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_xticks(np.arange(-0.5, n, 1), minor=True)
    ax.set_yticks(np.arange(-0.5, n, 1), minor=True)
    ax.grid(which="minor", color="white", linewidth=1.5)
    ax.tick_params(which="minor", length=0)
    bar = fig.colorbar(image, ax=ax, shrink=min(1.0, 4 / max(cell * n, 1)), pad=0.02)
    bar.set_label("score %")
    ax.set_title(f"Head to head: {data.name}", loc="left")
    note = ("Each cell: the row's match score against the column in % (a win counts 1, a match "
            "without a winner ½), and below it the number of matches they played."
            if data.players == 2 else
            "Each cell: the row's score against the column in % in the matches they played on "
            "different sides (its side placed ahead counts 1, level ½), and below it the number "
            "of those matches.")
    fig.supxlabel(textwrap.fill(note, width=int(12 * width)),
                  x=0.02, ha="left", fontsize=9)
    return fig


def outcomes_chart(data: ReportData) -> Figure:
    """Left: how each bot's deals ended, as shares of its deals. Right: its mistakes, counted
    (each column shaded against its own largest count, so a rare fault still stands out)."""
    outcomes = data.outcomes
    mistakes = data.mistakes
    n = len(outcomes)
    # The columns are DEAL_ENDINGS (SEATED_DEAL_ENDINGS with three or four players).
    shown = [e for e in outcomes.columns if e in ALWAYS_SHOWN or outcomes[e].any()]
    deals = outcomes.sum(axis=1)
    shares = 100 * outcomes[shown].div(deals.where(deals > 0), axis=0).fillna(0.0)
    columns = ["deals", *mistakes.columns]
    matrix = mistakes.assign(deals=deals)[columns]
    fig = _figure(7.6 + 0.72 * len(columns), max(3.4, 2.4 + ROW_INCHES * n))
    left_ax, right_ax = fig.subplots(1, 2, sharey=True,
                                     gridspec_kw={"width_ratios": [6.0, 0.72 * len(columns)]})
    y = np.arange(n)
    start = np.zeros(n)
    for ending in shown:
        width = shares[ending].to_numpy()
        left_ax.barh(y, width, left=start, height=0.72, color=ENDING_COLOURS[ending],
                     label=ending, gid=f"ending:{ending}", edgecolor="white", linewidth=0.5)
        for yi, x0, w in zip(y, start, width):
            if w >= 7:
                left_ax.text(x0 + w / 2, yi, f"{w:.0f}", ha="center", va="center", fontsize=8,
                             color="white" if ending in DARK_ENDINGS else "#222222",
                             in_layout=False)
        start = start + width
    for yi in np.flatnonzero(deals.to_numpy() == 0):
        # A bot that never got to play a deal (it failed at the start of every match).
        left_ax.text(1, float(yi), "no deals played", va="center", fontsize=8.5, color="#555555",
                     in_layout=False)
    left_ax.set_xlim(0, 100)
    left_ax.set_yticks(y, ranked_labels(data))
    left_ax.set_ylim(n - 0.5, -0.5)
    left_ax.tick_params(axis="y", length=0)
    left_ax.set_xlabel("% of the bot's deals")
    left_ax.set_title("How each bot's deals ended", loc="left")
    # Shade each column by its own maximum: counts of missed claims and of forfeits differ by
    # orders of magnitude, and one scale would hide the forfeits.
    values = matrix.to_numpy(dtype=float)
    peaks = np.where(values.max(axis=0) > 0, values.max(axis=0), 1)
    shade = values / peaks
    shade[:, 0] = 0  # the deal count is context, not a mistake
    right_ax.imshow(np.ma.masked_equal(shade, 0), cmap=matplotlib.colormaps["Reds"].with_extremes(
        bad="white"), vmin=0, vmax=1.6, aspect="auto", interpolation="nearest", gid="mistakes")
    for r in range(n):
        for c in range(len(columns)):
            v = int(values[r, c])
            right_ax.text(c, r, "·" if v == 0 and c else f"{v}", ha="center", va="center",
                          fontsize=8.5, color="#222222", in_layout=False)
    # Headers wrapped level rather than slanted: the two panels' titles then stay aligned.
    headers = [textwrap.fill(c.replace("_", " "), 9, break_long_words=False) for c in columns]
    right_ax.set_xticks(range(len(columns)), headers, fontsize=8.5)
    right_ax.xaxis.tick_top()
    right_ax.tick_params(length=0)
    right_ax.tick_params(axis="y", left=False, labelleft=False)
    for spine in right_ax.spines.values():
        spine.set_visible(False)
    right_ax.set_title("Mistakes, counted", loc="left")
    handles = [Patch(color=ENDING_COLOURS[e], label=e) for e in shown]
    fig.legend(handles=handles, loc="outside lower left", ncols=min(4, len(shown)), fontsize=8.5,
               frameon=False)
    fig.align_titles()  # the two panels' titles on one line, above the matrix's headers
    fig.suptitle(f"Outcomes: {data.name}", x=0.01, ha="left", fontweight="bold")
    return fig


_DRAW = {"leaderboard": leaderboard_chart, "elo": elo_chart, "ratings": ratings_chart,
         "head_to_head": head_to_head_chart, "outcomes": outcomes_chart}


def build_charts(data: ReportData) -> dict[str, Figure]:
    with matplotlib.rc_context(STYLE):
        return {name: _DRAW[name](data) for name in CHARTS}


def write_charts(data: ReportData, folder: Path, previous: Path | None = None,
                 single: bool = False) -> dict[str, tuple[float, float]]:
    """Each chart as ``NAME.png`` and ``NAME.svg`` in ``folder`` (``single``: in the one format
    ``SINGLE`` gives it); returns each chart's size in inches. A chart whose figures are those
    of its file in ``previous`` (an earlier publish: ``chart_key``) is taken from there (linked)
    instead of drawn again: drawing and saving the five charts is most of a small publish's
    time."""
    return start_charts(data, folder, previous, single)()


def start_charts(data: ReportData, folder: Path, previous: Path | None = None,
                 single: bool = False, pool: ProcessPoolExecutor | None = None
                 ) -> Callable[[], dict[str, tuple[float, float]]]:
    """``write_charts``, the charts to draw drawn by ``pool``'s processes (when given) while the
    caller goes on: returns the call that waits for them and gives the sizes. (Processes only:
    matplotlib's settings are global, so threads could not draw side by side.)"""
    folder.mkdir(parents=True, exist_ok=True)
    sizes: dict[str, tuple[float, float]] = {}
    drawing: dict[str, Future[tuple[float, float]]] = {}
    for name in CHARTS:
        formats = (SINGLE[name],) if single else ("png", "svg")
        key = chart_key(data, name)
        if previous is not None and key is not None:
            found = drawn(previous / f"{name}.{formats[-1]}", key)
            if found is not None and link_files(previous, folder,
                                                [f"{name}.{ext}" for ext in formats]):
                sizes[name] = found
                continue
        if pool is None:
            sizes[name] = _draw_and_save(data, folder, name, formats, key)
        else:
            drawing[name] = pool.submit(_draw_and_save, data, folder, name, formats, key)

    def done() -> dict[str, tuple[float, float]]:
        sizes.update((name, future.result()) for name, future in drawing.items())
        return {name: sizes[name] for name in CHARTS}

    return done


def _draw_and_save(data: ReportData, folder: Path, name: str, formats: Sequence[str],
                   key: str | None) -> tuple[float, float]:
    with matplotlib.rc_context(STYLE):
        return save(_DRAW[name](data), folder, name, formats, key)


def save(fig: Figure, folder: Path, name: str, formats: Sequence[str], key: str | None,
         dpi: float = PNG_DPI) -> tuple[float, float]:
    """``fig`` as ``folder/NAME.EXT`` for each of ``formats``; returns its size in inches. The
    files carry ``key`` (what they were drawn from: ``chart_key``) and the size, for the next
    publish (``drawn``); no dates or software versions: the same results give the same bytes."""
    # Lay out once for every file: the layout is half the cost of a save with many bots. Then no
    # engine at all: "none" leaves a placeholder, and with any engine savefig draws the whole
    # figure once more, rendering nothing, before it draws the file (a third of a save's time).
    engine = fig.get_layout_engine()
    if engine is not None:
        engine.execute(fig)
        with matplotlib.rc_context({"figure.autolayout": False,
                                    "figure.constrained_layout.use": False}):
            fig.set_layout_engine(None)  # (None follows these settings; both off: no engine)
    width, height = (float(v) for v in fig.get_size_inches())
    # Ended by " ;": in a PNG the text chunk's checksum follows it, in an SVG a tag.
    mark = f"{_KEY_MARK} {key or '-'} {width!r} {height!r} ;"
    # Stable SVG ids for every chart saved here, drawn in STYLE or not (the league page's).
    with matplotlib.rc_context({"svg.hashsalt": STYLE["svg.hashsalt"]}):
        _save_each(fig, folder, name, formats, mark, dpi)
    return width, height


def _save_each(fig: Figure, folder: Path, name: str, formats: Sequence[str], mark: str,
               dpi: float) -> None:
    for ext in formats:
        if ext == "png":
            fig.savefig(folder / f"{name}.png", dpi=dpi,
                        metadata={"Software": None, "Description": mark})
        else:
            fig.savefig(folder / f"{name}.svg",
                        metadata={"Date": None, "Creator": None, "Description": mark})


_KEY_MARK = "sixtysix-chart"
# What each chart draws from ``ReportData`` (besides its name): its key covers these only.
_INPUTS = {"leaderboard": ("leaderboard",), "elo": ("leaderboard",),
           "ratings": ("leaderboard", "history"),
           "head_to_head": ("leaderboard", "head_to_head"),
           "outcomes": ("leaderboard", "outcomes", "mistakes")}


def chart_key(data: ReportData, name: str) -> str | None:
    """A digest of what chart ``name`` shows of ``data`` and of the code that draws it; None when
    a figure cannot be digested (it is then always drawn)."""
    import hashlib
    import inspect

    import pandas as pd

    digest = hashlib.sha256(f"{name}\0{data.name}\0{data.players}\0{matplotlib.__version__}"
                            .encode())
    digest.update(inspect.getsource(_DRAW[name]).encode())
    digest.update(repr(sorted(STYLE.items())).encode())
    try:
        for field in _INPUTS[name]:
            frame = getattr(data, field)
            digest.update(repr((list(frame.columns), list(frame.index))).encode())
            digest.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
    except (TypeError, ValueError):
        return None
    return digest.hexdigest()[:32]


def drawn(path: Path, key: str) -> tuple[float, float] | None:
    """The size of the chart in ``path`` (a PNG or SVG ``save`` wrote) if it was drawn from
    ``key``; its mark is in the file's first kilobytes (the SVG's description, the PNG's text
    chunk, both before the drawing)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096).decode("latin-1")
    except OSError:
        return None
    mark = f"{_KEY_MARK} {key} "
    at = head.find(mark)
    if at < 0:
        return None
    try:
        width, height = head[at + len(mark):].split("<", 1)[0].split(";", 1)[0].split()[:2]
        return float(width), float(height)
    except ValueError:
        return None


def link_files(previous: Path, folder: Path, names: Sequence[str]) -> bool:
    """Each of ``names`` in ``folder`` as a hard link to (or, across devices, a copy of) the one
    in ``previous``; False, and nothing made, if one cannot be."""
    import os
    import shutil

    made = []
    try:
        for name in names:
            target = folder / name
            target.unlink(missing_ok=True)
            try:  # a publish never changes a file in place: the earlier one's will do
                os.link(previous / name, target)
            except OSError:
                shutil.copyfile(previous / name, target)
            made.append(target)
    except OSError:
        for target in made:
            target.unlink(missing_ok=True)
        return False
    return True
