"""Options that several ``arena`` commands share: defined once here, so that they read, default and
behave alike everywhere: ``data: DataOption = DEFAULT_DATA`` in a command's parameters.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Annotated, Optional

import typer

from arena.arena_folders import not_a_folder
from arena.entrants.registry import DATA_ENV, DEFAULT_DATA
from arena.isolation.limits import SandboxLimits

__all__ = ["AffinityOption", "BANK_HELP", "DEFAULT_DATA", "DataOption", "FIRST_DECISION_HELP",
           "ISOLATION_HELP", "LIMIT_HELP", "SEED_HELP"]

DATA_HELP = ("The arena's data folder: the registry of submitted bots (DATA/registry), found by "
             "name by every command, and where results go by default.")

# Every command that starts a bot (`play`, `tournament`, `sprt`, `submit`, `league`).
ISOLATION_HELP = ("Sandbox level: isolated (default; needs root), namespaces or limits. Bots do "
                  "not run if the machine cannot give it. Default: $ARENA_ISOLATION, else isolated.")
LIMIT_HELP = ("A sandbox limit, KEY=NUMBER (repeat); 0 is unlimited. Default: "
              + ", ".join(f"{f.name}={getattr(SandboxLimits(), f.name)}"
                          for f in fields(SandboxLimits)) + ".")

# `arena demo`, `play`, `tournament` and `sprt`: deals come from a fresh secret key unless a research
# run asks for a seed (deal_keys.py).
SEED_HELP = ("Research runs only: deal from this public seed (default: a fresh secret key; bots "
             "could derive the deals from a seed).")

# `arena play` and `tournament`: the time bank and the first decision's limit (PROTOCOL.md §6).
BANK_HELP = ("A time bank per bot and match (ms), drawn on by a decision once its own limit is "
             "spent (default 0: none).")
FIRST_DECISION_HELP = ("The limit of each bot's first decision (ms), for a runtime that warms up "
                       "(default 0: the decision limit).")

# `arena play`, `tournament`, `submit`, `bots ...` and `replay` take it, so that a bot submitted
# into a data folder is found by name in all of them (issue 14). Typer reads $ARENA_DATA when the
# flag is not given; an empty value counts as unset, as in ``registry.data_dir()``.
def _data_folder(value: Path) -> Path:
    # Checked once here for every command: a file given as DATA was a traceback in whichever
    # step first made a folder in it (issue 28).
    problem = not_a_folder(value)
    if problem:
        raise typer.BadParameter(problem)
    return value


DataOption = Annotated[Path, typer.Option("--data", metavar="DIR", envvar=DATA_ENV,
                                          show_envvar=True, help=DATA_HELP,
                                          callback=_data_folder)]

# `arena tournament` and `sprt`: where a local run's workers run (worker_cores.py). Not given: None,
# the run's setting ("auto" unless a settings file says otherwise).
AffinityOption = Annotated[Optional[bool], typer.Option(
    "--affinity/--no-affinity",
    help="Keep each worker, with its bots, to a core of its own (as fastchess's -use-affinity). "
         "Default: where it can claim a core no other arena on this machine holds, else free; "
         "--affinity: always; --no-affinity: never (docs/organisers/tournaments.md).")]
