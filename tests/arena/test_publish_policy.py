"""A league's build costs what is new (issue 30, point 5): replay pages only by the policy of
``report.prune`` (every record still published), and a republish links the previous build's
records, replay pages and charts where they were made from the same data, rendering only the
rest. A synthetic league filled through the real ``Store`` API, its records copies of real matches
of the bundled C bots (synthetic_store.fill_league_with_records)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.compete.league_config import load_league_config
from arena.compete.league_publish import CHART, publish_league
from arena.report.archive import located, records_in
from arena.report.charts import CHARTS, SINGLE
from arena.report.data import read_report_data
from arena.report.prune import ReplayPolicy, upsets
from arena.report.snapshot import read_snapshot
from arena.results.store import DB_NAME
from league_util import read_store
from synthetic_store import fill_league_with_records, play_templates

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def templates(tmp_path_factory):  # noqa: ANN201
    return play_templates(tmp_path_factory.mktemp("templates"), 4)


def build_of(league: Path) -> Path:
    return publish_league(league, load_league_config(league), league / "data").parent.resolve()


def expected_pages(league: Path, policy: ReplayPolicy) -> set[str]:
    """The policy worked out from the store: each bot's last matches, the last pairs, upsets."""
    rows = read_store(league, "SELECT match_id, sched_order, seat0, seat1 FROM matches")
    keep = {m for m, *_ in sorted(rows, key=lambda r: -r[1])[:2 * policy.last_pairs]}
    for bot in {r[2] for r in rows} | {r[3] for r in rows}:
        mine = sorted((r for r in rows if bot in r[2:]), key=lambda r: -r[1])
        keep |= {m for m, *_ in mine[:policy.last_per_bot]}
    with read_snapshot(league / DB_NAME, hold_back=True) as snapshot:
        data = read_report_data(snapshot.db)
    keep |= {m for m, chance in upsets(data)[:policy.upsets] if chance < policy.upset_chance}
    return keep


def test_a_league_build_renders_the_pages_of_its_policy_and_publishes_every_record(
        tmp_path, templates):
    league = tmp_path / "league"
    fill_league_with_records(league, 200, templates)
    build = build_of(league)
    stored = {m for (m,) in read_store(league, "SELECT match_id FROM matches")}
    assert {Path(r).stem for r in records_in(build)} == stored
    pages = {p.stem for p in (build / "replays").glob("*.html")}
    assert pages == expected_pages(league, ReplayPolicy())
    assert 50 <= len(pages) < len(stored) // 2
    # Each bot's page links the replay pages there are, and every match's record: the file that
    # holds it, loose or the archive of its block.
    page = (build / "bots" / "random.html").read_text(encoding="utf-8")
    mine = {m for (m,) in read_store(league, "SELECT match_id FROM matches WHERE seat0 = "
                                             "'random' OR seat1 = 'random'")}
    where = located(build)
    assert all(f'href="../{where[f"records/{m}.jsonl"]}">{m}</a>' in page for m in mine)
    assert any(where[f"records/{m}.jsonl"].endswith(".tar.gz") for m in mine)
    assert {m for m in mine if f"../replays/{m}.html" in page} == pages & mine


def test_a_republish_renders_what_is_new_and_links_the_rest(tmp_path, templates):
    league = tmp_path / "league"
    fill_league_with_records(league, 100, templates)
    first = build_of(league)
    fill_league_with_records(league, 3, templates)
    second = build_of(league)

    def inode(path: Path) -> int:
        return os.stat(path).st_ino

    # Records (loose and archives) and replay pages of the first build are the same files in
    # the second.
    records = [*(first / "records").glob("*.jsonl"), *(first / "records").glob("*.tar.gz")]
    assert records and all(inode(r) == inode(second / "records" / r.name) for r in records)
    kept = [p for p in (first / "replays").glob("*.html")
            if (second / "replays" / p.name).is_file()]
    assert kept and all(inode(p) == inode(second / "replays" / p.name) for p in kept)
    # Six more matches: every chart is drawn anew; with nothing new, none is.
    # (A league's build has each chart in one format: charts.SINGLE.)
    charts = [f"{c}.{SINGLE[c]}" for c in CHARTS] + [f"{CHART}.svg"]
    assert all(inode(first / c) != inode(second / c) for c in charts)
    third = build_of(league)
    assert all(inode(second / c) == inode(third / c) for c in charts)


def test_a_long_rating_line_is_drawn_thinned_and_ends_where_the_bot_stands(tmp_path):
    """A ratings chart of 4,200 matches drew every step of every bot (megabytes of SVG, seconds to
    save); each line now has at most MAX_STEPS points, its first and last kept."""
    from arena.report.charts import MAX_STEPS, ratings_chart
    from synthetic_store import fill

    names = fill(tmp_path / DB_NAME, bots=3, matches_per_pairing=1400)
    with read_snapshot(tmp_path / DB_NAME, hold_back=False) as snapshot:
        data = read_report_data(snapshot.db)
    fig = ratings_chart(data)
    board = data.leaderboard.set_index("bot")
    for bot in names:
        line = next(a for ax in fig.axes for a in ax.lines if a.get_gid() == f"mu:{bot}")
        x, mu = line.get_xdata(), line.get_ydata()
        assert len(x) <= MAX_STEPS and x[0] == 0 and x[-1] == data.history["order"].max() + 1
        assert mu[-1] == board.loc[bot, "mu"]
