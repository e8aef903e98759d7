"""Which duplicate pair a standing league plays next: shares that hold, then what teaches the most.

A round robin (``schedule.py``) fixes every pairing in advance; a league that never closes cannot,
and pairing uniformly at random wastes most matches on bots whose order is already known. The rule
is a pure function of what the league knows: the ratings, the pairs in flight, and the **window**,
the last ``W`` pairs it started (in flight included) with the one being chosen, where ``W = 2 x``
the pairings of the current bots (``n (n - 1)`` pairs, two round robins' worth; a league younger
than that uses all its pairs). docs/organisers/league.md says the same for organisers.

1. **Shares, first.** Over every window:

   - *every bot plays in at least half the mean bot's pairs*: the first bot is the one with the
     fewest pairs in the window, so a bot is chosen before it falls short, and an opponent that
     would fall short is taken before any other;
   - *no pairing takes more than twice its even share* (``2 W / pairings``: 4 of the ``W``
     pairs): a pairing at that limit is not chosen while the first bot has another (were all at
     it, the one least over).

2. **Then information.** The first bot, among those of the fewest pairs, is the most uncertain
   (TrueSkill sigma with TrueSkill's drift ``tau`` per pair sat out), then the one of fewer
   matches, then the first name. A new bot has no pair in the window: it plays in every pair
   until it has caught up with the others, against the opponents it is closest to. Its opponent
   is the one whose match teaches the most: TrueSkill's expected reduction of the two bots'
   variance from one match (``information``: high for ratings close for their spread, and more
   for uncertain ones), damped by ``(1 - played / limit) ** 2`` as the pairing fills its share of
   the window; one already playing it in a pair in flight only when no other is left.

3. **A decided pairing goes last**: one whose expected score is beyond 0.95 (``decided``; the two
   sigmas are in the spread, so an uncertain rating decides nothing) comes after every undecided
   opponent, and the least played of the decided ones first. It is played when its bots' turns
   come and nothing better is left: about its even share, never more than twice it.

**Three and four players** (``next_group``): a group of three or four bots plays one deal set in
its six seatings (``schedule.group_seatings``), and the same rule holds with groups for pairs and
the pairings *inside* groups for pairings: the window is the last ``2 x C(n, 2) / C(k, 2)``
groups (every pairing twice, with ``C(k, 2)`` pairings in a group of ``k``); every bot plays in at
least half the mean bot's groups, no pairing within groups takes more than twice its even share.
The first bot is chosen as above; each further member, in turn, as an opponent is, its limits and
information weighed against every member chosen so far.

4. A bot never meets itself; with fewer than two bots there is no pair. The same standings and
   window always give the same pair (no randomness), so a league's choices can be replayed and
   tested (``tests/arena/test_league_matchmaking.py`` simulates bots of known strength).

**Why not the most uncertain bot first** (this module's rule until issue 30): TrueSkill adds
``tau ** 2`` to a bot's variance before every match it plays and takes back little when the
result was predictable, so the two bots of the most predictable pairing became, and stayed, the
most uncertain ones; the opponent of highest match quality is then the one of the largest sigma,
i.e. the same partner. The pairing that taught least was replayed (a league of 2,471 matches
spent 60% of them on one bot against random, 532-0), and nothing counted how often a pairing had
been played. Uncertainty is now a tie-break only, and counts come first.

**What was taken from others.** psyleague (``choose_match``) plays a bot with fewer games than a
minimum first, against an opponent drawn at random: *fewest games first* is taken, counted in the
window so that it keeps every bot playing, not only new ones; the random opponent is not (the rule
is deterministic and the opponent chosen by information). Kaggle's simulation competitions give
episodes to submissions of high uncertainty, against opponents of similar rating: *similar rating*
is taken, as TrueSkill's expected information, which also weighs both uncertainties; uncertainty
to choose the first bot only as a tie-break (above). fishtest (``rundb.request_task``) gives every
active test some workers before any gets more, then the test furthest below its share, and stops
a test once its SPRT has decided: *a floor for everyone and the fewest first* are taken, and a
decided pairing goes last; it is not stopped, as a league never closes and a rating may be wrong.

Choosing costs one pass over the bots for each of the two (``PairWindow`` keeps the window's
counts as pairs come and go): a league keeps the window in memory, never reads its history.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from typing import Iterable, Iterator, Mapping, Sequence

import trueskill

from arena.results.rating_replay import ENV

WINDOW_ROUNDS = 2      # the window: this many round robins' worth of pairs (W = ROUNDS x pairings)
MOST_SHARE = 2.0       # a pairing takes at most this many times its even share of a window
LEAST_SHARE = 0.5      # a bot plays in at least this share of the mean bot's pairs of a window
DECIDED_SCORE = 0.95   # a pairing whose expected score is beyond this (or 1 minus it) is decided


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
        """Sigma with TrueSkill's drift for every pair sat out (a tie-break of the first bot)."""
        return math.sqrt(self.sigma ** 2 + self.idle * ENV.tau ** 2)


def pairings(bots: int) -> int:
    return bots * (bots - 1) // 2


def window_size(bots: int) -> int:
    """W, the pairs of a window for this many bots (the new pair included)."""
    return max(1, WINDOW_ROUNDS * pairings(bots))


class PairWindow:
    """The last ``size`` pairs a league started (in flight included), oldest first, with each bot's
    and each pairing's count kept up to date as pairs come and go: choosing a pair reads counts,
    never the history. A league keeps one of ``window_size(bots) - 1`` pairs."""

    def __init__(self, size: int, pairs: Iterable[tuple[str, str]] = ()) -> None:
        if size < 0:
            raise ValueError(f"a window of {size} pairs")
        self.size = size
        self._pairs: deque[tuple[str, str]] = deque()
        self._bots: dict[str, int] = {}
        self._with: dict[str, dict[str, int]] = {}  # bot -> opponent -> pairs (both ways)
        for a, b in pairs:
            self.push(a, b)

    def _count(self, a: str, b: str, step: int) -> None:
        for me, other in ((a, b), (b, a)):
            self._bots[me] = self._bots.get(me, 0) + step
            row = self._with.setdefault(me, {})
            row[other] = row.get(other, 0) + step
            if not row[other]:  # gone from the window: a league's bots come and go for ever
                del row[other]
                if not row:
                    del self._with[me]
            if not self._bots[me]:
                del self._bots[me]

    def push(self, a: str, b: str) -> None:
        """A pair started; the oldest leaves once the window is full."""
        if self.size == 0:
            return
        if len(self._pairs) == self.size:
            self._count(*self._pairs.popleft(), -1)
        self._pairs.append((a, b))
        self._count(a, b, 1)

    def __len__(self) -> int:
        return len(self._pairs)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self._pairs)

    def bot(self, name: str) -> int:
        """Pairs of the window the bot plays in."""
        return self._bots.get(name, 0)

    def pairing(self, a: str, b: str) -> int:
        """Pairs of the window between ``a`` and ``b`` (either order)."""
        return self._with.get(a, {}).get(b, 0)

    def opponents(self, name: str) -> Mapping[str, int]:
        """{opponent: pairs of the window between the two} of one bot."""
        return self._with.get(name, {})


def match_quality(a: Standing, b: Standing) -> float:
    """TrueSkill's match quality of a 1-vs-1 game between two ratings (0..1)."""
    return float(trueskill.quality_1vs1(ENV.create_rating(a.mu, a.sigma),
                                        ENV.create_rating(b.mu, b.sigma), env=ENV))


def _spread(a: Standing, b: Standing) -> float:
    """c, the spread of the performance difference of ``a`` and ``b`` in TrueSkill's model."""
    return math.sqrt(_BASE + a.sigma ** 2 + b.sigma ** 2)


_BASE = 2 * ENV.beta ** 2  # c's part of TrueSkill's performance noise


# TrueSkill's normal distribution from the C library's erfc: the trueskill package's own (pure
# Python, an approximation good to 1e-7) made choosing among 200 bots take 9 ms.
def _cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / _SQRT_2)


def _pdf(x: float) -> float:
    return math.exp(-x * x / 2) / _SQRT_2PI


_SQRT_2, _SQRT_2PI = math.sqrt(2), math.sqrt(2 * math.pi)


_DECIDED_T = float(ENV.ppf(DECIDED_SCORE))  # |mu_a - mu_b| / c beyond this: decided


def expected_score(a: Standing, b: Standing) -> float:
    """The chance that ``a`` beats ``b`` by the two ratings (TrueSkill's model, no draws)."""
    return _cdf((a.mu - b.mu) / _spread(a, b))


def decided(a: Standing, b: Standing) -> bool:
    """Whether the ratings already tell how a match of the two ends (expected score beyond
    ``DECIDED_SCORE``): the sigmas are in the spread, so two uncertain ratings are not decided."""
    return _decided(a, b, _spread(a, b))


def _decided(a: Standing, b: Standing, c: float) -> bool:
    return abs(a.mu - b.mu) >= _DECIDED_T * c


def information(a: Standing, b: Standing) -> float:
    """What one match of ``a`` and ``b`` is expected to teach: TrueSkill's expected reduction of
    the two bots' variance (``sigma**4 / c**2`` times the update's ``w`` factor, weighted by the
    chance of each result: largest for an even match, nearly nothing for a foregone one)."""
    return _information(a, b, _spread(a, b))


def _information(a: Standing, b: Standing, c: float) -> float:
    """``information`` with the spread ``c`` known (``next_pair`` has it from ``decided``)."""
    t = (a.mu - b.mu) / c
    shrink = 0.0
    for x in (t, -t):  # a wins (x = t) or b wins
        win = 0.5 * math.erfc(-x / _SQRT_2)  # _cdf and _pdf, written out: called 200 times a pair
        if win > 0:
            v = math.exp(-x * x / 2) / _SQRT_2PI / win
            shrink += win * v * (v + x)
    return (a.sigma ** 4 + b.sigma ** 4) / c ** 2 * shrink


def next_pair(standings: Sequence[Standing],
              recent: PairWindow | Sequence[tuple[str, str]] = (),
              in_flight: Sequence[tuple[str, str]] = ()) -> tuple[str, str] | None:
    """The next duplicate pair to play, (first bot, opponent), or None with fewer than two bots.
    ``recent``: the pairs the league started last, oldest first (in flight included), as a
    ``PairWindow`` of ``window_size(len(standings)) - 1`` pairs or a list (its tail is used);
    ``in_flight``: the pairs started and not yet stored."""
    names = [s.name for s in standings]
    if len(set(names)) != len(names):
        twice = sorted(n for n in set(names) if names.count(n) > 1)
        raise ValueError(f"a bot is listed twice: {twice}")
    if len(standings) < 2:
        return None
    size = window_size(len(standings)) - 1
    if isinstance(recent, PairWindow):
        if recent.size != size:
            raise ValueError(f"a window of {recent.size} pairs for {len(standings)} bots: "
                             f"the rule's is {size}")
        window = recent
    else:
        window = PairWindow(size, recent[max(0, len(recent) - size):])
    span = len(window) + 1                               # L: the window with the new pair
    most = MOST_SHARE * span / pairings(len(standings))  # pairs of one pairing, at most
    least = LEAST_SHARE * 2 * span / len(standings)      # pairs of one bot, at least

    in_window = [window.bot(s.name) for s in standings]  # pairs of the window, per bot
    fewest = min(in_window)
    first = min((s for s, n in zip(standings, in_window) if n == fewest),
                key=lambda s: (-s.uncertainty, s.matches, s.name))
    busy = {b if a == first.name else a for a, b in in_flight if first.name in (a, b)}

    # Two steps, so that the information (the costly part) is weighed only among the opponents
    # left by the limits: (over the limit, not short, in flight, decided) first, the least of it
    # kept as the loop goes. Each opponent's spread c is worked out once, for both steps, from
    # the first bot's part of it (the sum in _spread's order: the same float to the last bit).
    row = window.opponents(first.name)
    base = _BASE + first.sigma ** 2
    best: tuple[float, bool, bool, bool] | None = None
    left: list[tuple[int, int, Standing, float]] = []  # (played, in window, standing, c)
    for s, n in zip(standings, in_window):
        if s.name == first.name:
            continue
        played = row.get(s.name, 0)
        c = math.sqrt(base + s.sigma ** 2)
        cheap = (max(0.0, played + 1 - most), n >= least, s.name in busy, _decided(first, s, c))
        if best is None or cheap < best:
            best, left = cheap, [(played, n, s, c)]
        elif cheap == best:
            left.append((played, n, s, c))
    assert best is not None
    if best[3]:  # only decided ones left: the least played first
        opponent = min(left, key=lambda e: (e[0], e[1], e[2].name))[2]
    else:
        opponent = min(left, key=lambda e: (-_information(first, e[2], e[3])
                                            * (1 - e[0] / most) ** 2, e[1], e[2].name))[2]
    return first.name, opponent.name


# -- three and four players ------------------------------------------------------------------------

def group_window_size(bots: int, players: int) -> int:
    """W for groups of ``players``: enough groups for every pairing of the bots to meet
    ``WINDOW_ROUNDS`` times (the new group included)."""
    return max(1, math.ceil(WINDOW_ROUNDS * pairings(bots) / pairings(players)))


class GroupWindow:
    """The last ``size`` groups a league started (in flight included), oldest first, with each
    bot's groups and each pairing's groups together counted as groups come and go."""

    def __init__(self, size: int, groups: Iterable[Sequence[str]] = ()) -> None:
        if size < 0:
            raise ValueError(f"a window of {size} groups")
        self.size = size
        self._groups: deque[tuple[str, ...]] = deque()
        self._bots: dict[str, int] = {}
        self._with: dict[str, dict[str, int]] = {}
        for group in groups:
            self.push(group)

    def _count(self, group: tuple[str, ...], step: int) -> None:
        for me in group:
            self._bots[me] = self._bots.get(me, 0) + step
            row = self._with.setdefault(me, {})
            for other in group:
                if other != me:
                    row[other] = row.get(other, 0) + step

    def push(self, group: Sequence[str]) -> None:
        """A group started; the oldest leaves once the window is full."""
        if self.size == 0:
            return
        if len(self._groups) == self.size:
            self._count(self._groups.popleft(), -1)
        self._groups.append(tuple(group))
        self._count(tuple(group), 1)

    def __len__(self) -> int:
        return len(self._groups)

    def __iter__(self) -> Iterator[tuple[str, ...]]:
        return iter(self._groups)

    def bot(self, name: str) -> int:
        """Groups of the window the bot plays in."""
        return self._bots.get(name, 0)

    def pairing(self, a: str, b: str) -> int:
        """Groups of the window that hold both ``a`` and ``b``."""
        return self._with.get(a, {}).get(b, 0)


def next_group(standings: Sequence[Standing], players: int,
               recent: GroupWindow | Sequence[Sequence[str]] = (),
               in_flight: Sequence[Sequence[str]] = ()) -> tuple[str, ...] | None:
    """The next group of ``players`` bots to play a deal set in its six seatings (the module's
    rule, "Three and four players"), in the order chosen, or None with fewer bots than seats.
    ``recent``: the groups started last, oldest first, as a ``GroupWindow`` of
    ``group_window_size(len(standings), players) - 1`` groups or a list (its tail is used);
    ``in_flight``: the groups started and not yet stored."""
    names = [s.name for s in standings]
    if len(set(names)) != len(names):
        twice = sorted(n for n in set(names) if names.count(n) > 1)
        raise ValueError(f"a bot is listed twice: {twice}")
    if players < 2:
        raise ValueError(f"a group of {players}")
    if len(standings) < players:
        return None
    size = group_window_size(len(standings), players) - 1
    if isinstance(recent, GroupWindow):
        if recent.size != size:
            raise ValueError(f"a window of {recent.size} groups for {len(standings)} bots: "
                             f"the rule's is {size}")
        window = recent
    else:
        window = GroupWindow(size, recent[max(0, len(recent) - size):])
    span = len(window) + 1
    # A pairing's even share: each group holds C(k, 2) of the C(n, 2) pairings.
    most = MOST_SHARE * span * pairings(players) / pairings(len(standings))
    least = LEAST_SHARE * span * players / len(standings)
    busy = {bot for group in in_flight for bot in group}

    fewest = min(window.bot(s.name) for s in standings)
    first = min((s for s in standings if window.bot(s.name) == fewest),
                key=lambda s: (-s.uncertainty, s.matches, s.name))
    chosen = [first]
    while len(chosen) < players:
        ranked = []
        others = [s.name for s in standings if s not in chosen]
        for s in standings:
            if s in chosen:
                continue
            together = [window.pairing(c.name, s.name) for c in chosen]
            # Over the limit counts the group it can still become: taken greedily, a member
            # whose every completion is over (all its other partners at the limit) left the last
            # choice no good one.
            over = sum(max(0.0, played + 1 - most) for played in together) + _completion(
                window, [*(c.name for c in chosen), s.name], [o for o in others if o != s.name],
                players - len(chosen) - 1, most)
            short = window.bot(s.name) < least
            ranked.append(((over, not short, s.name in busy, decided(first, s)), together, s))
        best = min(cheap for cheap, _, _ in ranked)

        def rest(together: list[int], s: Standing) -> tuple[float, int, str]:
            if best[3]:  # only decided ones left: the least played first
                return (sum(together), window.bot(s.name), s.name)
            teach = sum(information(c, s) * max(0.0, 1 - played / most) ** 2
                        for c, played in zip(chosen, together))
            return (-teach, window.bot(s.name), s.name)

        left = [(together, s) for cheap, together, s in ranked if cheap == best]
        chosen.append(min(left, key=lambda pair: rest(*pair))[1])
    return tuple(s.name for s in chosen)


def _completion(window: GroupWindow, group: list[str], pool: list[str], need: int,
                most: float) -> float:
    """The least a completion of ``group`` by ``need`` bots of ``pool`` goes over the pairing
    limit ``most`` (summed over its new pairings); the search ends at the first that does not."""
    if need == 0:
        return 0.0
    best = math.inf
    for i, bot in enumerate(pool):
        added = sum(max(0.0, window.pairing(g, bot) + 1 - most) for g in group)
        if added >= best:
            continue
        best = min(best, added + _completion(window, [*group, bot], pool[i + 1:], need - 1,
                                             most))
        if best == 0:
            break
    return best
