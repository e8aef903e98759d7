"""A standing league (issue 19): a ladder that keeps playing duplicate pairs, takes new bots and new
versions while it runs, and republishes its report every few minutes.

A league lives in a folder ``DIR``:

- ``DIR/league.toml``: the settings (``EXAMPLE``; ``arena league init DIR`` writes it). Which bots
  take part (``bots``, ``registered``) is read again between pairs; the rest is fixed per run.
- ``DIR/members.sqlite``: bots added and removed with ``arena league add|remove`` (those commands
  are its only writers, so they never contend with the running league for the results store).
- ``DIR/results.sqlite``: a tournament store (``store.py``) written by the running league only:
  every match in one transaction, the secret deal key, and two tables of the league's own:
  ``league_bots`` (every bot version that joined, with the spec it ran with) and ``league_pairs``
  (every duplicate pair, stored *before* its matches are sent out).

Nothing is lost or played twice after any stop, ``kill -9`` included: a pair is written down before
it is played, its two matches share one deal set (the same cards, seats swapped: RULES.md §8), and
a continued league first completes every pair the store holds only part of, dealt from the same
key and label, with the bot versions the pair was started with. Match ids are the primary key of
the store, so a match is never stored twice.

Who plays next is ``matchmaking.py``'s rule. A registered bot takes part as its newest version: a
new ``arena submit`` of it is a new bot of the store (``NAME@VERSION``, the registry's own way to
name a version) that replaces the old one in the ladder; the old version's matches stay in the
history (``league_publish.py`` draws every version's rating).

Three- and four-player profiles play **groups** instead of pairs: ``matchmaking.next_group``
chooses three or four bots by the same rule, and the group's one deal set is played in its six
seatings (``schedule.group_seatings``, as a tournament plays a set), rated with TrueSkill's teams
(``ratings.rate_match``). A group (its bots and seatings) is written to ``league_groups`` before
its matches are sent out, and completed as a pair is after a stop. A group needs as many bots as
seats (no bot partners itself in a league).

This module runs a league; beside it, each with one job: ``league_config`` (the settings),
``league_members`` (who plays), ``league_store`` (the league's tables, and reading a league back
for ``status`` and the page), ``league_publish`` (the published site), ``matchmaking`` (who plays
next); its ratings table is ``results/league_ladder.py``.
"""

from __future__ import annotations

import json
import logging
import math
import sqlite3
import time
from contextlib import ExitStack, closing
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Sequence

import trueskill

from arena.compete.folder_lock import FolderLock, FolderLockedError
from arena.compete.league_config import (
    LeagueConfig,
    LeagueError,
    load_league_config,
    rules_of,
    sandbox_limits,
)
from arena.compete.league_members import (
    Member,
    current_members,
    rating_reset_requests,
    utc_now,
)
from arena.compete.league_store import (
    LEAGUE_SCHEMA,
    SEATINGS,
    group_matches,
    has_league_tables,
    league_bots,
    league_groups,
    league_pairs,
    pair_matches,
    played_through,
    transaction,
    unfinished_pairs,
)
from arena.compete.match_job import MatchJob, play_job
from arena.compete.matchmaking import (
    GroupWindow,
    PairWindow,
    Standing,
    group_window_size,
    next_group,
    next_pair,
    window_size,
)
from arena.compete.pool import Pool, WorkerError
from arena.compete.schedule import group_seatings
from arena.compete.tournament import run_log
from arena.entrants.preflight import PreflightError, preflight
from arena.entrants.registry import data_dir
from arena.game import Rules
from arena.isolation.allow_list import data_folders
from arena.isolation.levels import SandboxUnavailable
from arena.isolation.probe import check_memory, waiting_bots_yield
from arena.isolation.worker_cores import for_run
from arena.match.bot_process import Limits
from arena.match.deal_keys import deal_secret, new_key
from arena.results.league_ladder import SCHEMA as RATINGS_SCHEMA
from arena.results.league_ladder import kept_ratings, rating_start, reset_ratings, settle
from arena.results.rating_replay import ENV, ranks_of, rate_match, side_of
from arena.results.store import DB_NAME, DiskFullError, Store, StoreError, store_players
from arena.types import BotSpec, ConfigError, MatchEnding, MatchResult, ScheduledMatch

if TYPE_CHECKING:  # imported where used: it imports the report (pandas, matplotlib, a second)
    from arena.compete.league_publish import Publisher

log = logging.getLogger("arena.compete.league")

LOG_NAME = "league.log"
IDLE_POLL_S = 1.0   # with fewer than two bots, how often the league looks for new members
# A publish in the background that takes longer than this is ended and said (the league plays on,
# the previous build stays current, the next turn publishes again): one stuck would hold every
# later publish back. An hour is many times what a league of 100,000 matches needs.
PUBLISH_TIMEOUT_S = 3600.0
# The last publish, as the league stops, must end within this many seconds of the stop signal:
# `docker stop` and systemd kill ten seconds after their SIGTERM, and the bots and workers must
# be ended and the store closed as well. A publish that has not finished by then is ended, the
# previous build stays current, and the next start (or `arena league publish DIR`) publishes.
# 6 s: with 7, a league stopped as a normal user on a machine at load 10 exited after 10.2 s (the
# bots' pool, the store and the interpreter's end took the other 3.2 s).
STOP_PUBLISH_S = 6.0
REFRESH_S = 1.0     # how often membership (settings, members.sqlite, registry) is read again
# ... or less often, so that reading it takes at most this share of the league's time: each read
# resolves and checks every bot's command, 1 s for 200 bots on a loaded machine, and a league that
# read them every second played one pair a second (scripts/bench_league_scale.py).
REFRESH_SHARE = 0.1
# A version that cannot start (no "ready" within startup_ms when it joins) is tried again after
# this long, then twice as long each time, up to RETRY_MAX_S: a league runs for weeks, and a
# moment's load or a full disk at a bot's first start must not keep it out until a restart; a
# bot broken for good costs one start an hour.
RETRY_FIRST_S = 30.0
RETRY_MAX_S = 3600.0

class Ladder:
    """Every bot version's TrueSkill rating, matches and last pair, updated match by match as the
    league stores them (the report and ``status`` recompute theirs from the store in pair order;
    matchmaking only needs a current estimate)."""

    def __init__(self) -> None:
        self.ratings: dict[str, trueskill.Rating] = {}
        self.matches: dict[str, int] = {}
        self.last_pair: dict[str, int] = {}

    def add(self, seat0: str, seat1: str, winner: int | None) -> None:
        a = self.ratings.setdefault(seat0, ENV.create_rating())
        b = self.ratings.setdefault(seat1, ENV.create_rating())
        if winner == 0:
            self.ratings[seat0], self.ratings[seat1] = trueskill.rate_1vs1(a, b, env=ENV)
        elif winner == 1:
            self.ratings[seat1], self.ratings[seat0] = trueskill.rate_1vs1(b, a, env=ENV)
        for bot in (seat0, seat1):
            self.matches[bot] = self.matches.get(bot, 0) + 1

    def add_seated(self, seats: Sequence[str], game_points: Sequence[int], winner: int | None,
                   offender: int | None, reason: str) -> None:
        """A three- or four-player match (``offender`` a seat): its sides as TrueSkill teams,
        ranked as the report ranks them (``ratings.ranks_of``)."""
        players = len(seats)
        sides = 2 if players == 4 else players
        teams = tuple(tuple(bot for seat, bot in enumerate(seats) if side_of(players, seat) == side)
                      for side in range(sides))
        side = None if offender is None else side_of(players, offender)
        ranks = ranks_of(players, tuple(game_points), winner, side,
                         no_contest=reason in (MatchEnding.NO_CONTEST, MatchEnding.DECLINED))
        rate_match(self.ratings, teams, ranks)
        for bot in set(seats):
            self.matches[bot] = self.matches.get(bot, 0) + 1

    def started(self, pair_no: int, *bots: str) -> None:
        for bot in bots:
            self.last_pair[bot] = pair_no

    def standings(self, names: Sequence[str], next_pair_no: int,
                  in_flight: Sequence[Sequence[str]] = (),
                  joined: Mapping[str, int] | None = None) -> list[Standing]:
        busy: dict[str, int] = {}
        for group in in_flight:  # a pair's two matches, a group's six
            for bot in group:
                busy[bot] = busy.get(bot, 0) + (2 if len(group) == 2 else SEATINGS)
        out = []
        for name in names:
            rating = self.ratings.get(name) or ENV.create_rating()
            since = self.last_pair.get(name, (joined or {}).get(name, next_pair_no))
            out.append(Standing(name, rating.mu, rating.sigma,
                                self.matches.get(name, 0) + busy.get(name, 0),
                                max(0, next_pair_no - 1 - since)))
        return out

    @classmethod
    def from_store(cls, db: sqlite3.Connection) -> Ladder:
        """The ladder of the stored matches: the ratings the league keeps (league_ladder.py),
        continued over the matches after them, else every match replayed (a replay from the
        first match took 57 s at the start of a league of 100,000). The same ratings either way:
        the kept ones are TrueSkill's own figures after the same updates in the same order."""
        ladder = cls()
        if store_players(db) > 2:
            return cls._from_seated_store(db)
        # From the newest reset of the ratings on (a final), continued from the ratings kept.
        start = since = rating_start(db)
        kept = kept_ratings(db)
        if kept is not None:
            since, ratings = kept
            ladder.ratings.update(ratings)
            for bot, count in db.execute(
                    "SELECT bot, COUNT(*) FROM (SELECT seat0 AS bot FROM matches WHERE "
                    "sched_order >= :start AND sched_order < :since UNION ALL SELECT seat1 FROM "
                    "matches WHERE sched_order >= :start AND sched_order < :since) GROUP BY bot",
                    {"start": start, "since": since}):
                ladder.matches[bot] = int(count)
        for seat0, seat1, winner in db.execute(
                "SELECT seat0, seat1, winner FROM matches WHERE sched_order >= ? "
                "ORDER BY sched_order", (since,)):
            ladder.add(seat0, seat1, winner)
        if has_league_tables(db):
            for pair_no, a, b in db.execute("SELECT pair_no, a, b FROM league_pairs"):
                ladder.started(pair_no, a, b)
        return ladder

    @classmethod
    def _from_seated_store(cls, db: sqlite3.Connection) -> Ladder:
        ladder = cls()
        seats: dict[str, list[str]] = {}
        for match_id, bot in db.execute("SELECT match_id, bot FROM seats ORDER BY match_id, seat"):
            seats.setdefault(match_id, []).append(bot)
        points: dict[str, list[int]] = {}
        for match_id, value in db.execute("SELECT match_id, points FROM sides "
                                          "ORDER BY match_id, side"):
            points.setdefault(match_id, []).append(value)
        for match_id, winner, reason, offender in db.execute(
                "SELECT match_id, winner, reason, offender FROM matches WHERE sched_order >= ? "
                "ORDER BY sched_order", (rating_start(db),)):
            ladder.add_seated(seats.get(match_id, []), points.get(match_id, ()), winner,
                              offender, reason)
        for group_no, bots in db.execute("SELECT group_no, bots FROM league_groups"):
            ladder.started(group_no, *json.loads(bots))
        return ladder


# -- running ---------------------------------------------------------------------------------------

@dataclass
class LeagueProgress:
    """What the runner reports after each stored match and each publish."""

    stored: int = 0            # matches in the store
    played: int = 0            # matches stored by this run
    pairs: int = 0             # pairs started by this run
    members: tuple[str, ...] = ()
    last: MatchResult | None = None
    published: Path | None = None
    event: str = ""            # a line for people: who joined, left, failed to start, ...
    ladder: Ladder | None = None  # the ratings matchmaking uses (from the newest reset on)


def run_league(folder: Path, overrides: Mapping[str, Any] | None = None,
               data: Path | None = None, max_pairs: int | None = None,
               on_progress: Callable[[LeagueProgress], None] | None = None,
               publish: bool = True) -> LeagueProgress:
    """Start or continue the league in ``folder`` and play until stopped (SIGINT or SIGTERM raise
    ``stopping.Stopped`` after publishing once more), or until ``max_pairs`` new pairs were
    played. First completes every pair a previous run left half-played. ``publish=False`` (tests)
    publishes never. Returns the progress."""
    from arena.compete.stopping import Stopped, stop_on_signals

    config = load_league_config(folder, overrides)
    data = data or data_dir()
    rules = rules_of(config)
    limits = config.limits(sandbox_limits(config))
    try:
        check_memory(limits.sandbox)  # before any bot: a memory_mb this level cannot hold whole
    except SandboxUnavailable as err:
        raise ConfigError(str(err)) from None
    db_path = folder / DB_NAME
    progress = LeagueProgress()

    def tell(event: str = "") -> None:
        progress.event = event
        if event:
            log.info("%s", event)
        if on_progress:
            on_progress(progress)
        progress.event = ""

    with ExitStack() as cleanup:
        stop = cleanup.enter_context(stop_on_signals())
        try:
            cleanup.enter_context(FolderLock(folder, "league"))
        except FolderLockedError as err:
            raise ConfigError(str(err).replace("tournament run", "league run")) from None
        except OSError as err:
            raise ConfigError(f"cannot use the folder {folder}: {err.strerror or err}") from None
        try:
            cleanup.enter_context(run_log(folder / LOG_NAME))
        except OSError as err:
            raise ConfigError(f"cannot write {folder / LOG_NAME}: {err.strerror or err}") from None
        try:
            store = Store.open(db_path, create=True)
        except StoreError as err:
            raise ConfigError(str(err)) from None
        cleanup.callback(store.close)
        try:
            store.begin_tournament(config.name, config.settings())
        except StoreError as err:
            raise ConfigError(f"{err}: a league's name and game settings stay as they started "
                              "(profile, rules, limits)") from None
        store.db.executescript(LEAGUE_SCHEMA + RATINGS_SCHEMA)
        with transaction(store.db):  # the kept ratings fit the store (league_ladder.py)
            settle(store.db, played_through(store.db, unfinished_pairs(store.db)), check=True)
        key = store.deal_key()
        if key is None:
            key = new_key()  # kept in the store before any match is dealt from it (deal_keys.py)
            store.set_deal_key(key)
        runner = _Runner(folder, config, rules, limits, data, store, key, progress, tell)
        stop.out = folder
        cluster = None
        if config.cluster:
            from arena.compete.cluster import Cluster

            members, _ = current_members(folder, config, data)
            cluster = cleanup.enter_context(Cluster.connect(
                config.cluster, [(m.text, m.spec) for m in members]))
            runner.cluster = cluster
        else:
            pool: Pool[MatchJob, MatchResult] = cleanup.enter_context(
                Pool(play_job, config.worker_count(), name_of=lambda job: job.entry.match_id,
                     exclusive=lambda job: job.entry.deal_set,  # a pair's two matches in turn
                     affinity=for_run(config.affinity, limits.sandbox.cores,
                                      waiting_bots_yield())))
            runner.pool = pool
        # The league publishes in a process of its own and plays on meanwhile
        # (league_publish.Publisher): first thing at the start (a stop's last publish may not
        # have finished in time: STOP_PUBLISH_S), then every publish_every seconds, and last as
        # it stops, within STOP_PUBLISH_S.
        publisher = None
        if publish:
            from arena.compete.league_publish import Publisher

            publisher = Publisher(folder, config, data)
            cleanup.callback(publisher.stop)
        published_at = time.monotonic()
        if publisher is not None:
            try:
                if progress.stored:
                    publisher.start(progress.stored)
                else:
                    publisher.prepare()
            except OSError as err:  # no process to be had now: the next turn tries again
                tell(f"publishing failed, the league plays on: {err.strerror or err}")

        def between_pairs() -> None:
            nonlocal published_at
            if publisher is None:
                return
            _report_publish(publisher, progress, tell)
            if publisher.busy:
                return
            try:
                if config.publish_every \
                        and time.monotonic() - published_at >= config.publish_every:
                    published_at = time.monotonic()
                    publisher.start(progress.stored)
                else:
                    publisher.prepare()  # ready for the next turn, or the stop's publish
            except OSError as err:  # no process to be had now: the next turn tries again
                tell(f"publishing failed, the league plays on: {err.strerror or err}")

        try:
            while max_pairs is None or progress.pairs < max_pairs:
                budget = None if max_pairs is None else max_pairs - progress.pairs
                if not runner.play(budget, between_pairs):
                    time.sleep(IDLE_POLL_S)  # fewer than two bots: wait for members
                between_pairs()
        except Stopped:
            stopped_at = time.monotonic()
            if runner.pool is not None:
                runner.pool.close(graceful=False)  # the bots go first; then the last publish
            if publisher is not None and progress.stored:
                _last_publish(publisher, progress, tell, stopped_at + STOP_PUBLISH_S)
            raise
        except DiskFullError as err:
            raise LeagueError(f"the disk holding {folder} is full ({err}); every stored match is "
                              f"whole: free some space, then arena league {folder} continues") \
                from None
        except WorkerError as err:
            raise LeagueError(f"{str(err).splitlines()[0]}; see {folder / LOG_NAME}, then "
                              f"arena league {folder} continues") from None
        except (StoreError, sqlite3.Error) as err:
            raise LeagueError(f"storing a match in {db_path} failed: {err}; every stored match "
                              f"is whole: arena league {folder} continues") from None
        if publisher is not None:
            publisher.stop()
        if publish:
            _publish(folder, config, progress, tell)
    return progress


def _report_publish(publisher: Publisher, progress: LeagueProgress,
                    tell: Callable[[str], None]) -> None:
    """Say how the publish in the background ended, once it has (``Publisher.outcome``); end one
    that has run longer than ``PUBLISH_TIMEOUT_S``."""
    outcome = publisher.outcome()
    if outcome is None:
        if publisher.busy and publisher.running_s() > PUBLISH_TIMEOUT_S:
            publisher.stop()
            tell(f"publishing took more than {PUBLISH_TIMEOUT_S:g} s and was ended; the league "
                 "plays on and publishes again at its next turn")
        return
    _say_published(outcome, publisher.stored, progress, tell)


def _say_published(outcome: tuple[Path | None, str], stored: int, progress: LeagueProgress,
                   tell: Callable[[str], None]) -> None:
    path, error = outcome
    if path is None:
        tell(f"publishing failed, the league plays on: {error}")
        return
    progress.published = path
    tell(f"published {path} ({stored} matches)")


def _last_publish(publisher: Publisher, progress: LeagueProgress, tell: Callable[[str], None],
                  deadline: float) -> None:
    """The stop's publish, of every match stored, in the publisher's process, ended at
    ``deadline`` (time.monotonic()) if it has not finished by then: the stop must not wait for
    it (STOP_PUBLISH_S)."""
    if publisher.busy:
        publisher.stop()  # one publish at a time: the last one shows everything
    try:
        publisher.start(progress.stored)
    except OSError as err:
        tell(f"the last publish could not start: {err.strerror or err}; arena league publish "
             f"{publisher.folder} publishes it")
        return
    outcome = publisher.wait(max(0.0, deadline - time.monotonic()))
    if outcome is None:
        publisher.stop()
        tell(f"the last publish did not finish within {STOP_PUBLISH_S:g} s of the stop and was "
             f"ended; the previous build stays current, and the next start (or arena league "
             f"publish {publisher.folder}) publishes the {progress.stored} matches stored")
        return
    _say_published(outcome, publisher.stored, progress, tell)


def _publish(folder: Path, config: LeagueConfig, progress: LeagueProgress,
             tell: Callable[[str], None]) -> None:
    """Publish now. A publish that fails (a full disk, a folder made unwritable) is reported and
    the league plays on: the previous build stays current, and the next publish tries again."""
    from arena.compete.league_publish import publish_league
    from arena.report import ReportError

    try:
        progress.published = publish_league(folder, config)
    except (ReportError, OSError) as err:
        tell(f"publishing failed, the league plays on: {err}")
        return
    tell(f"published {progress.published} ({progress.stored} matches)")


class _Runner:
    """One league run's state between rounds: members, ratings, the pool or the cluster."""

    def __init__(self, folder: Path, config: LeagueConfig, rules: Rules, limits: Limits,
                 data: Path, store: Store, key: bytes, progress: LeagueProgress,
                 tell: Callable[[str], None]):
        self.folder, self.config, self.rules, self.limits = folder, config, rules, limits
        self.data, self.store, self.key, self.progress, self.tell = data, store, key, progress, tell
        self.pool: Pool[MatchJob, MatchResult] | None = None
        self.cluster: Any = None
        self.ladder = Ladder.from_store(store.db)
        self.known = league_bots(store.db)       # every version that ever joined
        # store name -> why it could not join, when it is tried again (monotonic clock), and the
        # wait before that try (a version the store refused: never in this run)
        self.failed: dict[str, tuple[str, float, float]] = {}
        self.members: list[Member] = []
        self.problems: set[str] = set()
        self.joined_at: dict[str, int] = {}
        self.refreshed = 0.0
        self.refresh_every = REFRESH_S
        self.resumed = False
        # pair or group -> (its bots, matches not stored)
        self.running: dict[int, tuple[tuple[str, ...], int]] = {}
        self.window: PairWindow | None = None    # the last pairs started, for matchmaking
        self.players = rules.players             # 2: pairs; 3 or 4: groups (league_groups)
        self.group_window: GroupWindow | None = None
        self.rated_from = rating_start(store.db)
        self.resets = self.store.db.execute("SELECT COALESCE(MAX(request), 0) FROM "
                                            "league_resets").fetchone()[0]
        progress.stored = store.db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        progress.ladder = self.ladder

    # -- membership --

    def refresh(self) -> list[Member]:
        """Read the settings' bot list, the membership table and the registry again (at most every
        ``REFRESH_S``: a league of fast bots would otherwise spend its time reading them; a league
        of many bots reads them at most ``REFRESH_SHARE`` of its time)."""
        if self.members and time.monotonic() - self.refreshed < self.refresh_every:
            return self.members
        self.refreshed = time.monotonic()
        config = self.config
        try:
            fresh = load_league_config(self.folder)
            config = replace(config, bots=fresh.bots, registered=fresh.registered)
        except ConfigError as err:
            self._problem(f"{err}; the bot list stays as it was")
        members, problems = current_members(self.folder, config, self.data)
        self._reset_ratings()
        self.refresh_every = max(REFRESH_S, (time.monotonic() - self.refreshed) / REFRESH_SHARE)
        for line in problems:
            self._problem(line)
        before = {m.name for m in self.members}
        playing = []
        now = time.monotonic()
        for member in members:
            if member.name in self.failed and now < self.failed[member.name][1]:
                continue
            if member.name not in before and not self._join(member):
                continue
            playing.append(member)
        gone = before - {m.name for m in playing}
        for name in sorted(gone):
            self.tell(f"{name} left the ladder")
        if self.cluster is not None and {m.name for m in playing} != before:
            self._update_cluster(playing)
        self.members = playing
        self.progress.members = tuple(m.name for m in playing)
        return playing

    def _reset_ratings(self) -> None:
        """Apply a reset of the ratings asked for since the last (the site's admin, a final):
        they count from the next pair's matches on; pairs in flight finish in the old count."""
        try:
            asked = [r for r in rating_reset_requests(self.folder) if r[0] > self.resets]
        except ConfigError as err:
            self._problem(f"{err}; a reset of the ratings waits")
            return
        if not asked:
            return
        request, requested = asked[-1]
        next_no = self._next_pair_no()
        since = 2 * next_no if self.players == 2 else SEATINGS * next_no
        with transaction(self.store.db):
            reset_ratings(self.store.db, request, requested, since, utc_now())
        self.resets, self.rated_from = request, since
        fresh = Ladder()
        fresh.last_pair = self.ladder.last_pair  # who waited longest still goes first
        self.ladder = self.progress.ladder = fresh
        self.tell(f"the ratings start again from pair {next_no} (reset asked {requested}); "
                  "the matches before stay in the history")

    def _too_few(self, members: list[Member]) -> None:
        names = ", ".join(m.name for m in members) or "none"
        needs = "a pair needs two" if self.players == 2 else \
            f"a group needs {'three' if self.players == 3 else 'four'}"
        self._problem(f"waiting for bots: {needs}, the ladder has {names} "
                      f"(arena league add {self.folder} BOT)")

    def _problem(self, line: str) -> None:
        if line not in self.problems:
            self.problems.add(line)
            self.tell(line)

    def _join(self, member: Member) -> bool:
        """A version new to this run: started once (locally), then written to the store."""
        if self.cluster is None:
            try:
                preflight([member.spec], self.limits,
                          hide=[self.folder, *map(Path, data_folders())], rules=self.rules)
            except PreflightError as err:
                before = self.failed.get(member.name)
                wait = RETRY_FIRST_S if before is None else min(RETRY_MAX_S, 2 * before[2])
                self.failed[member.name] = (str(err), time.monotonic() + wait, wait)
                self.tell(f"{member.name} cannot start and does not join now (tried again in "
                          f"{wait:g} s): {err}")
                return False
        try:
            self.store.register_bots([(member.name, list(member.spec.argv), member.spec.version)])
        except StoreError as err:
            self.failed[member.name] = (str(err), math.inf, math.inf)
            self.tell(f"{member.name} does not join: {err}")
            return False
        self.failed.pop(member.name, None)
        if member.name not in self.known:
            spec = asdict(member.spec)
            self.store.db.execute("INSERT OR IGNORE INTO league_bots VALUES (?, ?, ?, ?, ?)",
                                  (member.name, member.family, member.text, json.dumps(spec),
                                   utc_now()))
            self.known[member.name] = (member.family, member.spec)
            self.tell(f"{member.name} joined the ladder")
        else:
            self.tell(f"{member.name} is in the ladder")
        self.joined_at.setdefault(member.name, self._next_pair_no() - 1)
        return True

    def _update_cluster(self, members: list[Member]) -> None:
        from arena.compete.cluster import WorkerBot

        extra = [(m.text, m.spec) for m in members]
        self.cluster.bots = tuple(WorkerBot.of(text, spec) for text, spec in extra)
        self.cluster.check_workers()

    # -- pairs --

    def _next_pair_no(self) -> int:
        """The next pair's number (a group's, with three or four players)."""
        row = self.store.db.execute(
            "SELECT MAX(pair_no) FROM league_pairs" if self.players == 2 else
            "SELECT MAX(group_no) FROM league_groups").fetchone()
        return 0 if row[0] is None else int(row[0]) + 1

    def play(self, budget: int | None, between_pairs: Callable[[], None]) -> bool:
        """Play until ``budget`` new pairs were started (None: no end) or fewer than two bots are
        left, completing half-played pairs first. False when nothing could be played."""
        if self.cluster is not None:
            return self._play_round_on_cluster(budget)
        assert self.pool is not None
        source = self._job_source(budget, between_pairs)
        played = self.progress.played
        self._store_all(self.pool.run(source))
        return self.progress.played > played

    def _job_source(self, budget: int | None,
                    between_pairs: Callable[[], None]) -> Iterator[MatchJob]:
        """The local pool's jobs, pulled one at a time as workers free up (``Pool.run`` is lazy):
        each next pair is chosen from every result stored so far and the pairs still in flight."""
        yield from self._unfinished_jobs()
        started = 0
        while budget is None or started < budget:
            between_pairs()
            members = self.refresh()
            if len(members) < self.players:
                self._too_few(members)
                return
            jobs = self._new_pairs(members, 1)
            if not jobs:
                return
            started += 1
            yield from jobs

    def _play_round_on_cluster(self, budget: int | None) -> bool:
        """A cluster takes a list (it sizes its batches from it): complete half-played pairs, or
        choose a round of new pairs, one match per thread of the cluster."""
        jobs = self._unfinished_jobs()
        if not jobs:
            members = self.refresh()
            if len(members) < self.players:
                self._too_few(members)
                return False
            per = 2 if self.players == 2 else SEATINGS
            threads = max(1, math.ceil(self.cluster.threads() / per))
            jobs = self._new_pairs(members, threads if budget is None else min(budget, threads))
        self._play_on_cluster(jobs)
        return bool(jobs)

    def _unfinished_jobs(self) -> list[MatchJob]:
        """The matches of pairs an earlier run started and did not store, once per run (later
        pairs of this run are completed by it or by the next run)."""
        if self.resumed:
            return []
        self.resumed = True
        jobs = []
        if self.players > 2:
            for group in league_groups(self.store.db, self.config.name):
                entries = group_matches(self.config.name, group.group_no, group.bots,
                                        group.seatings)
                if len(group.stored) == len(entries):
                    continue
                self.running[group.group_no] = (group.bots, len(entries) - len(group.stored))
                jobs += [self._job(e) for e in entries if e.match_id not in group.stored]
            if jobs:
                self.tell(f"completing {len(jobs)} match(es) of groups started before the last "
                          "stop")
            return jobs
        for pair in league_pairs(self.store.db, self.config.name):
            if len(pair.stored) == 2:
                continue
            self.running[pair.pair_no] = ((pair.a, pair.b), 2 - len(pair.stored))
            for entry in pair_matches(self.config.name, pair.pair_no, pair.a, pair.b):
                if entry.match_id not in pair.stored:
                    jobs.append(self._job(entry))
        if jobs:
            self.tell(f"completing {len(jobs)} match(es) of pairs started before the last stop")
        return jobs

    def _new_pairs(self, members: list[Member], count: int) -> list[MatchJob]:
        """Choose ``count`` new pairs (matchmaking.py, knowing the pairs in flight), write them
        down, and return their matches. With three or four players: new groups."""
        if self.players > 2:
            return self._new_groups(members, count)
        names = [m.name for m in members]
        chosen: list[tuple[str, str]] = []
        first_no = self._next_pair_no()
        window = self._window(len(names))
        for k in range(count):
            in_flight = [(a, b) for (a, b), _ in self.running.values()] + chosen
            standings = self.ladder.standings(names, first_no + k, in_flight, self.joined_at)
            pair = next_pair(standings, window, in_flight)
            if pair is None:
                break
            chosen.append(pair)
            window.push(*pair)
        # Written down before anything is played (one transaction): a stop at any later moment
        # leaves pairs that the next run completes, never a match nobody knows the pair of.
        with transaction(self.store.db):
            for k, (a, b) in enumerate(chosen):
                self.store.db.execute("INSERT INTO league_pairs VALUES (?, ?, ?, ?)",
                                      (first_no + k, a, b, utc_now()))
        jobs = []
        for k, (a, b) in enumerate(chosen):
            self.ladder.started(first_no + k, a, b)
            self.running[first_no + k] = ((a, b), 2)
            entries = pair_matches(self.config.name, first_no + k, a, b)
            jobs += [self._job(entry) for entry in entries]
        self.progress.pairs += len(chosen)
        return jobs

    def _new_groups(self, members: list[Member], count: int) -> list[MatchJob]:
        """``_new_pairs`` for three or four players: ``count`` groups (``matchmaking.next_group``),
        each written down with its seatings before any of its matches is sent out."""
        names = [m.name for m in members]
        chosen: list[tuple[str, ...]] = []
        first_no = self._next_pair_no()
        window = self._group_window(len(names))
        for k in range(count):
            in_flight = [bots for bots, _ in self.running.values()] + chosen
            standings = self.ladder.standings(names, first_no + k, in_flight, self.joined_at)
            group = next_group(standings, self.players, window, in_flight)
            if group is None:
                break
            chosen.append(group)
            window.push(group)
        seatings = [group_seatings(group) for group in chosen]
        with transaction(self.store.db):  # as _new_pairs: before anything is played
            for k, (group, seated) in enumerate(zip(chosen, seatings)):
                self.store.db.execute("INSERT INTO league_groups VALUES (?, ?, ?, ?)",
                                      (first_no + k, json.dumps(group),
                                       json.dumps([list(seats) for seats in seated]), utc_now()))
        jobs = []
        for k, (group, seated) in enumerate(zip(chosen, seatings)):
            self.ladder.started(first_no + k, *group)
            self.running[first_no + k] = (group, len(seated))
            entries = group_matches(self.config.name, first_no + k, group, seated)
            jobs += [self._job(entry) for entry in entries]
        self.progress.pairs += len(chosen)
        return jobs

    def _group_window(self, bots: int) -> GroupWindow:
        """``_window`` for groups: the last groups started, read again only when the membership
        changes its size."""
        size = group_window_size(bots, self.players) - 1
        if self.group_window is None or self.group_window.size != size:
            rows = self.store.db.execute("SELECT bots FROM league_groups ORDER BY group_no DESC "
                                         "LIMIT ?", (size,)).fetchall()
            self.group_window = GroupWindow(size, [json.loads(bots) for (bots,) in reversed(rows)])
        return self.group_window

    def _window(self, bots: int) -> PairWindow:
        """The last pairs started, as many as matchmaking's window for this many bots: kept in
        memory and read again (one bounded query, newest first) only when the membership changes
        its size, so choosing a pair never reads the league's history."""
        size = window_size(bots) - 1
        if self.window is None or self.window.size != size:
            rows = self.store.db.execute("SELECT a, b FROM league_pairs ORDER BY pair_no DESC "
                                         "LIMIT ?", (size,)).fetchall()
            self.window = PairWindow(size, reversed(rows))
        return self.window

    def _job(self, entry: ScheduledMatch) -> MatchJob:
        bots = tuple(self._spec(name) for name in entry.seats)
        return MatchJob(entry, deal_secret(self.key, entry.deal_set), bots, self.rules,
                        self.limits, self.config.max_deals,
                        self.folder / "records" / f"{entry.match_id}.jsonl", self.folder / "logs")

    def _spec(self, name: str) -> BotSpec:
        if name not in self.known:
            raise ConfigError(f"{self.store.path} names bot {name!r} in a pair but not in "
                              "league_bots: the store was changed by hand")
        return self.known[name][1]

    def _play_on_cluster(self, jobs: list[MatchJob]) -> None:
        needed = {spec.name: spec for job in jobs for spec in job.bots}
        have = {bot.name for bot in self.cluster.bots}
        if set(needed) - have:  # a half-played pair of a bot that has left since
            from arena.compete.cluster import WorkerBot

            texts = {m.name: m.text for m in self.members}
            self.cluster.bots += tuple(
                WorkerBot.of(texts.get(n) or self.known[n][0], needed[n])
                for n in sorted(set(needed) - have))
            self.cluster.check_workers()
        self._store_all(self.cluster.play(jobs, self.folder))

    def _store_all(self, finished: Iterator[tuple[MatchJob, MatchResult]]) -> None:
        """Store each finished match (one transaction each) and rate it before the next job is
        pulled, so that matchmaking sees every result so far."""
        with closing(finished):  # type: ignore[type-var]
            for job, result in finished:
                entry = job.entry
                if self._stored(entry.match_id):
                    continue  # a cluster's retried batch: stored once
                bots, left = self.running.get(entry.pair_index, (entry.group, 1))
                still_open = [p for p in self.running if p != entry.pair_index or left > 1]
                # The kept ratings (league_ladder.py: two players) advance in the match's own
                # transaction; a group league's are recomputed when read.
                then = (lambda db: settle(db, played_through(db, still_open))) \
                    if len(entry.seats) == 2 else None
                self.store.record_match(entry, result,
                                        record=str(job.record.relative_to(self.folder)),
                                        then=then)
                if entry.order < self.rated_from:
                    pass  # a pair in flight when the ratings were reset: the old count's
                elif len(entry.seats) == 2:
                    self.ladder.add(entry.seat0, entry.seat1, result.winner)
                else:
                    self.ladder.add_seated(entry.seats, result.game_points, result.winner,
                                           result.offender, result.reason)
                if left <= 1:
                    self.running.pop(entry.pair_index, None)
                else:
                    self.running[entry.pair_index] = (bots, left - 1)
                self.progress.stored += 1
                self.progress.played += 1
                self.progress.last = result
                self.tell("")

    def _stored(self, match_id: str) -> bool:
        # One look-up of the key, not a set of every stored id: in a league that never ends
        # that set grew by a match's id with every match (scripts/bench_league_scale.py).
        return self.store.db.execute("SELECT 1 FROM matches WHERE match_id = ?",
                                     (match_id,)).fetchone() is not None


