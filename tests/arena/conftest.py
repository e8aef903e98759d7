"""Tournament folders shared by the report's tests: a real one, and a synthetic one of thirty bots."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import synthetic_store
from arena.tournament import load_config, run_tournament

BAD_BOT = Path(__file__).parent / "fixtures" / "bad_bot.py"


@pytest.fixture(scope="session")
def real_tournament(tmp_path_factory) -> Path:
    """A real round robin: three bundled bots and one that crashes at its first request (every
    match of it is a forfeit for the fault 'exit')."""
    out = tmp_path_factory.mktemp("report") / "real"
    crash = f"{sys.executable} {BAD_BOT} crash"
    run_tournament(load_config(None, {"name": "real", "bots": ["greedy", "random", "c-counter", crash],
                                      "matches_per_pairing": 2, "seed": 11, "workers": 2,
                                      "output": str(out)}))
    return out


@pytest.fixture(scope="session")
def thirty_bots(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report") / "thirty"
    out.mkdir()
    synthetic_store.fill(out / "results.sqlite", bots=30)
    return out
