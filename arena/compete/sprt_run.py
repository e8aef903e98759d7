"""Running an SPRT test in a folder, resumable: ``arena sprt NEW BASE`` (the test itself: sprt.py).

The run is a two-bot tournament (``run_tournament``: the same store, deal key, pool, resume and
stop on signals) whose schedule is ``max_pairs`` duplicate pairs of NEW against BASE, stopped as
soon as the test on the complete pairs accepts a hypothesis (``should_stop``). The test's own
settings (Elo bounds, alpha, beta) are kept beside the store in ``DIR/sprt.json``; the stored
pairs, fed to the test in schedule order (``Watch``), are its whole state, so a resumed run finds
the same LLR and a concluded test the same verdict.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Callable, Optional

from arena.arena_folders import MARKER, private_folder
from arena.compete.sprt import SequentialTest, Sprt, SprtState, Verdict, pair_results_from_store
from arena.compete.tournament import (
    ConfigError,
    Progress,
    TournamentConfig,
    TournamentError,
    load_config,
    resolve_bots,
    run_tournament,
)
from arena.game import RulesError, load_rules
from arena.isolation.limits import parse_limits
from arena.results.stats import Pentanomial
from arena.results.store import StoreError, connect_read_only, stored_settings

__all__ = ["NAME", "SETTINGS_NAME", "Watch", "bot_names", "new_test", "play_test", "resumed_test",
           "write_settings"]

SETTINGS_NAME = "sprt.json"
NAME = "sprt"  # the tournament's name in the store (match ids derive from it: schedule.py)


def new_test(new: str, base: str, *, profile: str, max_pairs: int, seed: Optional[int],
             workers: Optional[int], decision_ms: int, startup_ms: int, output: Optional[Path],
             cluster: Optional[str], limit: Optional[list[str]], data: Path,
             affinity: Optional[bool]) -> TournamentConfig:
    """The tournament that runs a new test of NEW against BASE: at most ``max_pairs`` duplicate
    pairs, in ``output`` (default: a new folder in ``data``). A ``ConfigError`` (or ``ValueError``
    for a limit) says what no test can run with."""
    _check_two_players(profile)
    return load_config(None, {
        "name": NAME, "bots": [new, base], "profile": profile,
        "matches_per_pairing": 2 * max_pairs, "seed": seed, "workers": workers,
        "decision_ms": decision_ms, "startup_ms": startup_ms,
        "output": str(output or _new_folder(data)), "cluster": cluster,
        "sandbox": parse_limits(limit) if limit else None, "data": str(data),
        "affinity": affinity})


def resumed_test(folder: Path, *, workers: Optional[int], cluster: Optional[str], data: Path,
                 affinity: Optional[bool]) -> tuple[Sprt, TournamentConfig]:
    """The test stored in ``folder`` and its tournament, with where and how it now runs."""
    test, stored = _read_settings(folder)
    return test, load_config(None, {**stored, "output": str(folder), "workers": workers,
                                    "cluster": cluster, "data": str(data), "affinity": affinity})


def _new_folder(data: Path) -> Path:
    """DATA/sprt-DATE-TIME: every test its own folder (``arena sprt`` twice in one second gets a
    suffix), so a second test never meets the first one's store."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    folder = data / f"sprt-{stamp}"
    count = 1
    while folder.exists():
        count += 1
        folder = data / f"sprt-{stamp}-{count}"
    return folder


def _check_two_players(profile: str) -> None:
    try:
        players = load_rules(profile).players
    except RulesError as err:
        raise ConfigError(str(err)) from None
    if players != 2:
        raise ConfigError(f"arena sprt plays duplicate pairs of two bots: profile {profile} is "
                          f"for {players} players")


def bot_names(config: TournamentConfig) -> tuple[str, str]:
    """The names the store gives NEW and BASE (BASE gets a suffix when both are the same bot)."""
    specs = resolve_bots(config)
    return specs[0].name, specs[1].name


def write_settings(out: Path, test: Sprt) -> None:
    """The test's settings beside the store (written before the first match, so a run killed at
    any point can be resumed). A folder that already holds a tournament is left alone."""
    if (out / "results.sqlite").exists():
        raise ConfigError(f"{out} already holds a tournament; resume the test with --resume "
                          f"{out}, or choose another --output")
    try:
        private_folder(out, "tournament")
        (out / SETTINGS_NAME).write_text(json.dumps(
            {"elo0": test.elo0, "elo1": test.elo1, "alpha": test.alpha, "beta": test.beta},
            indent=2) + "\n")
    except OSError as err:
        raise ConfigError(f"cannot write {out / SETTINGS_NAME}: {err.strerror or err}") from None


def _forget_settings(out: Path) -> None:
    try:
        (out / SETTINGS_NAME).unlink(missing_ok=True)
        if {p.name for p in out.iterdir()} <= {MARKER}:  # the mark made with it goes with it
            (out / MARKER).unlink(missing_ok=True)
        out.rmdir()  # only when nothing else is in it
    except OSError:
        pass


def _read_settings(folder: Path) -> tuple[Sprt, dict[str, Any]]:
    """A stored test: its SPRT settings (sprt.json) and its tournament settings (the store)."""
    db = folder / "results.sqlite"
    path = folder / SETTINGS_NAME
    if not db.is_file() or not path.is_file():
        raise ConfigError(f"{folder} holds no SPRT test (no {SETTINGS_NAME} and results.sqlite)")
    try:
        values = json.loads(path.read_text())
        test = Sprt(**{key: float(values[key]) for key in ("elo0", "elo1", "alpha", "beta")})
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise ConfigError(f"{path} is not an SPRT settings file this arena wrote: {err}") from None
    return test, stored_settings(db)


class Watch:
    """The test, fed the store's complete pairs in schedule order: after each stored match while
    the run goes on, and once from a resumed folder."""

    def __init__(self, test: Sprt, out: Path, new: str):
        self.sequence, self.db, self.new = SequentialTest(test), out / "results.sqlite", new

    @property
    def test(self) -> Sprt:
        return self.sequence.test

    @property
    def state(self) -> SprtState:
        return self.sequence.current

    @property
    def penta(self) -> Pentanomial:
        return self.sequence.penta

    def read(self) -> SprtState:
        db = connect_read_only(self.db)
        try:
            results = pair_results_from_store(db, self.new)
        finally:
            db.close()
        return self.sequence.feed(results)


def play_test(config: TournamentConfig, watch: Watch, resume: bool,
              on_progress: Callable[[Progress, SprtState], None]) -> None:
    """Play pairs until the test concludes or the schedule ends; ``on_progress`` hears of each
    stored match with the test as it then stands. A run that stored nothing leaves no half-made
    test behind; a run cut short (``TournamentError``) says to resume it with ``arena sprt``;
    ``Stopped`` (a signal) passes through, the stored pairs kept for ``--resume``."""

    def report(p: Progress) -> None:
        on_progress(p, watch.read())

    try:
        run_tournament(config, resume=resume, on_progress=report,
                       should_stop=lambda: watch.state.verdict is not Verdict.CONTINUE)
    except (ConfigError, StoreError):
        if not (config.out_dir() / "results.sqlite").exists():
            _forget_settings(config.out_dir())  # nothing was played: leave no half-made test
        raise
    except TournamentError as err:
        raise TournamentError(str(err).replace("arena tournament --resume",
                                               "arena sprt --resume")) from None
    watch.read()
