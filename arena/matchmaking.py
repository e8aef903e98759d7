"""Which duplicate pair a standing league plays next: the one that teaches the ladder the most.

A round robin (``schedule.py``) fixes every pairing in advance; a league that never closes cannot,
and pairing uniformly at random wastes most matches on bots whose ratings are already known. The
rule, a pure function of the current ratings (README, "League"):

1. **The first bot is the most uncertain one**: the highest *effective* TrueSkill sigma, where a
   bot's sigma grows by TrueSkill's own drift ``tau`` for every pair it sat out
   (``sqrt(sigma**2 + idle * tau**2)``, the dynamics TrueSkill assumes between games). A new bot
   (sigma 8.3) is therefore chosen until it is about as well known as the others, and a bot left
   out for long comes back by itself: nobody starves. Ties go to the bot with fewer matches (played
   and in flight), then to the first name in alphabetical order.
2. **Its opponent is the closest one**: the highest TrueSkill match quality with the first bot
   (``quality_1vs1``, the chance of a draw between the two ratings: high when the means are close
   and the sigmas small, i.e. the result is least predictable, which is what moves a rating most),
   preferring an opponent that is not already playing it in a pair in flight. Ties by fewer
   matches, then by name.
3. A bot never meets itself; with fewer than two bots there is no pair.

The same standings always give the same pair (no randomness), so a league's choices can be
replayed and tested: ``tests/arena/test_league_matchmaking.py`` simulates bots of known strength
and shows a new bot settles in far fewer matches than under uniform random pairing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import trueskill

from arena.ratings import ENV


@dataclass(frozen=True)
class Standing:
    """What matchmaking knows of a bot: its TrueSkill rating, its matches (stored plus in flight)
    and how many league pairs were started since it last played (``idle``)."""

    name: str
    mu: float
    sigma: float
    matches: int = 0
    idle: int = 0

    @property
    def uncertainty(self) -> float:
        """Sigma with TrueSkill's drift for every pair sat out (rule 1)."""
        return math.sqrt(self.sigma ** 2 + self.idle * ENV.tau ** 2)


def match_quality(a: Standing, b: Standing) -> float:
    """TrueSkill's match quality of a 1-vs-1 game between two ratings (0..1)."""
    return float(trueskill.quality_1vs1(ENV.create_rating(a.mu, a.sigma),
                                        ENV.create_rating(b.mu, b.sigma), env=ENV))


def first_bot(standings: Sequence[Standing]) -> Standing:
    """Rule 1: the most uncertain bot; ties by fewer matches, then by name."""
    return min(standings, key=lambda s: (-round(s.uncertainty, 9), s.matches, s.name))


def next_pair(standings: Sequence[Standing],
              in_flight: Sequence[tuple[str, str]] = ()) -> tuple[str, str] | None:
    """The next duplicate pair to play, (first bot, opponent), or None with fewer than two bots.
    ``in_flight``: pairs started and not yet stored (their matches are already counted in
    ``matches``); an opponent already playing the first bot is taken only when no other is left."""
    names = [s.name for s in standings]
    if len(set(names)) != len(names):
        twice = sorted(n for n in set(names) if names.count(n) > 1)
        raise ValueError(f"a bot is listed twice: {twice}")
    if len(standings) < 2:
        return None
    first = first_bot(standings)
    busy = {b if a == first.name else a for a, b in in_flight if first.name in (a, b)}
    others = [s for s in standings if s.name != first.name]
    opponent = min(others, key=lambda s: (s.name in busy, -round(match_quality(first, s), 9),
                                          s.matches, s.name))
    return first.name, opponent.name
