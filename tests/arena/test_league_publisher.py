"""A running league publishes in a process of its own and plays on meanwhile
(``league_publish.Publisher``): a publish draws every chart and renders the new replay pages, and
done between two pairs it held both workers idle for as long as it took. Real bots, a real store,
a real spawned publisher; the league is stopped from its progress callback as a signal would."""

from __future__ import annotations

import multiprocessing
import re
import signal
import time

import pytest

from arena.compete.league import run_league
from arena.compete.league_publish import BUILDS, CURRENT
from arena.compete.stopping import Stopped
from league_util import read_store, write_settings

PUBLISHED = re.compile(r"published (\S+) \((\d+) matches\)")


def _stopper():  # noqa: ANN202
    """Raises ``Stopped`` the first time it is called, as a SIGTERM would; later calls (the stop's
    own publish reports too) do nothing."""
    stopped = []

    def stop_once() -> None:
        if not stopped:
            stopped.append(True)
            raise Stopped(signal.SIGTERM)
    return stop_once


def _publishers() -> list[multiprocessing.process.BaseProcess]:
    return [p for p in multiprocessing.active_children() if p.name == "publisher"]


def test_a_league_plays_on_while_it_publishes(tmp_path):
    league = tmp_path / "league"
    write_settings(league, name="apart", bots=["first-legal-c", "c-counter"], workers=1,
                   publish_every=0.5)
    seen: list[tuple[int, str]] = []  # (matches stored, the event) at each report
    deadline = time.monotonic() + 120
    stop_once = _stopper()

    def watch(progress) -> None:  # noqa: ANN001
        seen.append((progress.stored, progress.event))
        # Stop once a publish made in the background has been reported with more matches stored
        # than it published: they were played while it ran.
        if any(int(m[2]) < stored for stored, event in seen if (m := PUBLISHED.match(event))):
            stop_once()
        assert time.monotonic() < deadline, f"no publish beside the play in 120 s: {seen[-5:]}"

    with pytest.raises(Stopped):
        run_league(league, data=tmp_path / "data", on_progress=watch)
    published = [(stored, PUBLISHED.match(event)) for stored, event in seen
                 if PUBLISHED.match(event)]
    # The stop's own publish comes last and sees every stored match (a stop may leave a pair
    # half played: the next run completes it), or, not finished within STOP_PUBLISH_S of the
    # stop, is ended and says so (the next start publishes).
    if "did not finish" in seen[-1][1]:
        background = published
    else:
        background, last = published[:-1], published[-1]
        assert int(last[1][2]) == last[0] == len(read_store(league, "SELECT 1 FROM matches"))
    assert background and any(int(m[2]) + 2 <= stored for stored, m in background), published
    current = league / "public" / CURRENT
    index = (current / "index.html").read_text()
    assert '<a href="league.html">' in index and (current / "league.html").is_file()
    # The current build and the one before it, no more.
    assert len(list((league / "public" / BUILDS).iterdir())) <= 2
    assert _publishers() == []


def test_a_publish_that_fails_in_the_background_is_said_and_the_league_plays_on(tmp_path):
    league = tmp_path / "league"
    (tmp_path / "blocker").write_text("a file where the publish folder's parent should be")
    stop_once = _stopper()
    write_settings(league, name="blocked", bots=["first-legal-c", "c-counter"], workers=1,
                   publish_every=0.05, publish=str(tmp_path / "blocker" / "public"))
    seen: list[tuple[int, str]] = []

    def watch(progress) -> None:  # noqa: ANN001
        seen.append((progress.stored, progress.event))
        failures = [s for s, event in seen if event.startswith("publishing failed")]
        if failures and progress.stored > failures[0]:
            stop_once()

    with pytest.raises(Stopped):
        run_league(league, data=tmp_path / "data", on_progress=watch, max_pairs=200)
    failed = [event for _, event in seen if event.startswith("publishing failed")]
    assert failed and "blocker" in failed[0] and "the league plays on" in failed[0], seen[-5:]
    assert len(read_store(league, "SELECT 1 FROM matches")) >= 2
    assert _publishers() == []


def test_a_publish_that_takes_too_long_is_ended_and_said(tmp_path, monkeypatch):
    """A publish stuck in the background would hold every later one back: past
    ``PUBLISH_TIMEOUT_S`` it is ended (here 0.2 s, less than any real publish takes)."""
    import arena.compete.league

    monkeypatch.setattr(arena.compete.league, "PUBLISH_TIMEOUT_S", 0.2)
    league = tmp_path / "league"
    write_settings(league, name="slow", bots=["first-legal-c", "c-counter"], workers=1,
                   publish_every=0.05)
    seen: list[tuple[int, str]] = []
    stop_once = _stopper()

    def watch(progress) -> None:  # noqa: ANN001
        seen.append((progress.stored, progress.event))
        ended = [s for s, event in seen if "was ended" in event]
        if len(ended) >= 2 and progress.stored > ended[-1]:
            stop_once()

    with pytest.raises(Stopped):
        run_league(league, data=tmp_path / "data", on_progress=watch, max_pairs=2000)
    ended = [event for _, event in seen if "was ended" in event]
    assert len(ended) >= 2 and "publishing took more than 0.2 s" in ended[0], seen[-5:]
    # The stop's own publish only (or, not finished in time, none).
    assert [e for _, e in seen if PUBLISHED.match(e)] in ([seen[-1][1]], [])
    assert _publishers() == []
