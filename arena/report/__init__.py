"""A tournament's report: charts and a static web page in ``DIR/report/``, rebuilt from the store.

``data`` reads the store through pandas, ``charts`` draws with matplotlib, ``page`` writes the HTML,
``serve`` shows the folder on localhost. ``write_report`` runs the three in that order.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from pandas.errors import DatabaseError as PandasDatabaseError

from arena.report.charts import CHARTS, write_charts
from arena.report.data import read_report_data
from arena.report.page import render_page
from arena.store import StoreError, connect_read_only

REPORT_DIR = "report"
DB_NAME = "results.sqlite"  # tournament.DB_NAME, not imported: the report needs no process pool


class ReportError(ValueError):
    """A folder that holds no tournament the report can read."""


def write_report(folder: Path) -> Path:
    """Write ``folder/report/`` (four charts as PNG and SVG, and index.html) from the tournament's
    store; returns the page's path. The store is only read, so a running tournament may be
    reported on: the page then says how many matches are still to play."""
    db_path = folder / DB_NAME
    if not db_path.is_file():
        raise ReportError(f"{folder} holds no tournament (no {DB_NAME})")
    try:
        db = connect_read_only(db_path)
    except (StoreError, sqlite3.Error) as err:
        raise ReportError(f"cannot open {db_path}: {err}") from None
    try:
        data = read_report_data(db)
    except (sqlite3.Error, PandasDatabaseError) as err:  # pandas wraps sqlite3's errors
        raise ReportError(f"{db_path} is not a results database this arena can read: {err}") \
            from None
    finally:
        db.close()
    if data.leaderboard.empty:
        raise ReportError(f"{db_path} holds no bots: nothing to report")
    out = folder / REPORT_DIR
    figures = write_charts(data, out)
    sizes = {name: tuple(figures[name].get_size_inches()) for name in CHARTS}
    page = out / "index.html"
    # Write then rename: a browser or web server never sees half a page.
    partial = page.with_name(".index.html.partial")
    partial.write_text(render_page(data, sizes), encoding="utf-8")
    os.replace(partial, page)
    return page

