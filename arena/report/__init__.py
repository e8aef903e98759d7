"""A tournament's report: charts and static web pages in ``DIR/report/``, rebuilt from the store.

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
from arena.report.page import render_pages
from arena.store import DB_NAME, StoreError, connect_read_only

REPORT_DIR = "report"


class ReportError(ValueError):
    """A folder that holds no tournament the report can read."""


def write_report(folder: Path) -> Path:
    """Write ``folder/report/`` (four charts as PNG and SVG, index.html and a page per bot in
    bots/) from the tournament's store; returns the path of index.html. The store is only read,
    so a running tournament may be reported on: the page then says how many matches are left."""
    db_path = folder / DB_NAME
    if not db_path.is_file():
        raise ReportError(f"{folder} holds no tournament (no {DB_NAME})")
    try:
        db = connect_read_only(db_path)
    except (StoreError, sqlite3.Error) as err:
        raise ReportError(f"cannot open {db_path}: {err}") from None
    try:
        data = read_report_data(db)
    except (sqlite3.Error, PandasDatabaseError) as err:  # (pandas wraps sqlite3's errors)
        raise ReportError(f"{db_path} is not a results database this arena can read: {err}") \
            from None
    finally:
        db.close()
    if data.leaderboard.empty:
        raise ReportError(f"{db_path} holds no bots: nothing to report")
    out = folder / REPORT_DIR
    try:
        figures = write_charts(data, out)
        sizes = {name: tuple(figures[name].get_size_inches()) for name in CHARTS}
        for name, text in render_pages(data, sizes).items():
            page = out / name
            page.parent.mkdir(parents=True, exist_ok=True)
            # Write then rename: a browser or web server never sees half a page.
            partial = page.with_name(f".{page.name}.partial")
            partial.write_text(text, encoding="utf-8")
            os.replace(partial, page)
    except OSError as err:
        raise ReportError(f"cannot write the report in {out}: {err.strerror or err}") from None
    return out / "index.html"

