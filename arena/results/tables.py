"""A store's leaderboard as text, in each format ``arena leaderboard`` and ``arena tournament``
print: TrueSkill's table with the statistics of issue 17 (``stats.py``: W-D-L, score and Elo with
95% intervals, duplicate pairs as units, and which neighbours are not separated), and with four
players each bot's results with each partner (issue 16)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from arena.results.ratings import partner_table
from arena.results.stats import LEGEND, display_table, leaderboard
from arena.results.store import connect_read_only

__all__ = ["FORMATS", "leaderboard_text"]

FORMATS = ("table", "csv", "json", "markdown")


def leaderboard_text(db_path: Path, fmt: str) -> Iterator[str]:
    """The leaderboard rebuilt from the results database at ``db_path`` (opened read-only: a
    running tournament may be writing it), as blocks of text to print one after another, each
    read when it is asked for. Bot names are in it as written: the caller shows it as data, never
    as markup."""
    db = connect_read_only(db_path)
    try:
        table = leaderboard(db)
    finally:
        db.close()
    shown = table.round({"mu": 2, "sigma": 2, "conservative": 2, "win_pct": 1, "score_pct": 1,
                         "points_per_deal": 3, "score_low": 1, "score_high": 1, "elo": 1,
                         "elo_low": 1, "elo_high": 1, "los_above": 1})
    if fmt == "csv":
        yield shown.to_csv(index=False).removesuffix("\n")
    elif fmt == "json":
        yield shown.to_json(orient="records", indent=2)
    elif fmt == "markdown":
        yield display_table(table).to_markdown(index=False)
    else:
        yield display_table(table).to_string(index=False)
    if fmt in ("table", "markdown"):
        yield LEGEND
        # Four players (issue 16): each bot's results with each partner, below the ratings.
        db = connect_read_only(db_path)
        try:
            partners = partner_table(db).round({"score_pct": 1})
        finally:
            db.close()
        if len(partners):
            yield "\nwith each partner (score_pct: the side's share of the game points):"
            yield (partners.to_markdown(index=False) if fmt == "markdown"
                   else partners.to_string(index=False))
