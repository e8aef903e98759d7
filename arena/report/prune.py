"""Which matches of a league's build get a replay page (issue 30): a replay page is some 32 kB of
HTML and 10 ms of CPU, and a league of 2,400 matches published 97 MB in a minute. So a league's
build renders the pages people come to watch, and every other match stays public as its record
(``records/ID.jsonl``, which ``arena replay`` plays and ``arena replay --html`` renders), linked
from its bots' pages as before. The policy (``ReplayPolicy``), for each build:

- every bot's last ``last_per_bot`` (10) matches: what it plays now;
- every match of the last ``last_pairs`` (25) duplicate pairs: what the league plays now;
- the ``upsets`` (50) biggest upsets: matches won by the bot that TrueSkill, with the ratings both
  bots had before the match, gave less than ``upset_chance`` (25%) to win; the least likely
  first. With three or four players no match is counted an upset (the chance of a ranking of
  three sides is not one number).

A tournament's report and ``arena publish`` keep a page for every match (no policy).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from arena.report.data import ReportData
from arena.results.ratings import ENV, MU, SIGMA


@dataclass(frozen=True)
class ReplayPolicy:
    last_per_bot: int = 10
    last_pairs: int = 25
    upsets: int = 50
    upset_chance: float = 0.25

    def chosen(self, data: ReportData) -> set[str]:
        """The match ids of ``data`` whose replay page the build holds."""
        matches = data.matches
        if not len(matches):
            return set()
        keep: set[str] = set()
        for _, mine in matches.groupby("bot", sort=False):
            once = mine.drop_duplicates("match_id")
            keep |= set(once.nlargest(self.last_per_bot, "sched_order")["match_id"])
        once = matches.drop_duplicates("match_id")
        keep |= set(once.nlargest(2 * self.last_pairs, "sched_order")["match_id"])
        if data.players == 2:
            keep |= {m for m, _ in upsets(data)[:self.upsets] if _ < self.upset_chance}
        return keep


def upsets(data: ReportData) -> list[tuple[str, float]]:
    """Every two-player match with a winner, as (match id, the winner's chance to win it as the
    ratings before the match gave it), least likely first."""
    before = _ratings_before(data.history)
    won = data.matches[data.matches["result"] == "won"]
    out = []
    for match_id, order, winner, loser in zip(won["match_id"], won["sched_order"], won["bot"],
                                              won["opponent"]):
        w = before.get((int(order), winner), (MU, SIGMA))
        lo = before.get((int(order), loser), (MU, SIGMA))
        spread = math.sqrt(2 * ENV.beta ** 2 + w[1] ** 2 + lo[1] ** 2)
        out.append((str(match_id), _phi((w[0] - lo[0]) / spread)))
    out.sort(key=lambda item: (item[1], item[0]))
    return out


def _ratings_before(history: pd.DataFrame) -> dict[tuple[int, str], tuple[float, float]]:
    """{(schedule order, bot): (mu, sigma) the bot had before that match} for each rated match."""
    now: dict[str, tuple[float, float]] = {}
    before = {}
    for order, bot, mu, sigma in zip(history["order"], history["bot"], history["mu"],
                                     history["sigma"]):
        before[(int(order), bot)] = now.get(bot, (MU, SIGMA))
        now[bot] = (float(mu), float(sigma))
    return before


def _phi(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2))
