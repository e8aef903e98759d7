"""An SPRT test kept in its folder (``arena sprt``): its settings written beside the store before
the first match, so that a run stopped at any point resumes (``--resume DIR``); read back with the
tournament's own settings; taken away again when nothing was played; and the test fed the store's
complete pairs as they are stored (``StoreWatch``). The test itself is ``sprt.py``; the run is a
tournament's (``tournament.run_tournament``) with the test's stop.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arena.arena_folders import MARKER, private_folder
from arena.compete.sprt import SequentialTest, Sprt, SprtState, pair_results_from_store
from arena.results.stats import Pentanomial
from arena.results.store import connect_read_only, stored_settings
from arena.types import ConfigError

SETTINGS_NAME = "sprt.json"


def write_test(out: Path, test: Sprt) -> None:
    """The test's settings beside the store (written before the first match, so a run killed at
    any point can be resumed). A folder that already holds a tournament is left alone."""
    if (out / "results.sqlite").exists():
        raise ConfigError(f"{out} already holds a tournament; resume the test with --resume {out}, "
                          "or choose another --output")
    try:
        private_folder(out, "tournament")
        (out / SETTINGS_NAME).write_text(json.dumps(
            {"elo0": test.elo0, "elo1": test.elo1, "alpha": test.alpha, "beta": test.beta},
            indent=2) + "\n")
    except OSError as err:
        raise ConfigError(f"cannot write {out / SETTINGS_NAME}: {err.strerror or err}") from None


def forget_test(out: Path) -> None:
    """Take away what ``write_test`` made, when nothing else came into the folder."""
    try:
        (out / SETTINGS_NAME).unlink(missing_ok=True)
        if {p.name for p in out.iterdir()} <= {MARKER}:  # the mark made with it goes with it
            (out / MARKER).unlink(missing_ok=True)
        out.rmdir()  # only when nothing else is in it
    except OSError:
        pass


def read_test(folder: Path) -> tuple[Sprt, dict[str, Any]]:
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


class StoreWatch:
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
