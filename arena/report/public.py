"""What a published report may say: bot commands and texts without the local machine's paths.

The store keeps each bot's command as it ran: the arena's own Python in its virtual environment,
bundled bots under the checkout, a submitted script under somebody's home or a temporary folder.
None of that belongs on a public page (it names users, folders and the data folder that holds the
tournaments' databases). The report shows instead:

- a bundled bot: its bundled name and its options (``strong --budget-ms 25``);
- a registered bot: its command as its ``bot.toml`` wrote it (already relative to its folder; the
  arena's Python is shown as ``python3``, which is what the manifest means by it);
- a bare command: the program's name, and each argument that is a path made relative to the bot's
  own folder (the folder of its script or program) or, outside that folder, cut to ``…/NAME``.

Fault details and other free text pass through ``scrub_paths``, which cuts every absolute path in
them the same way. All of this works on the text alone, so a report built on another machine from a
copied database is as clean as one built here.
"""

from __future__ import annotations

import functools
import hashlib
import json
import posixpath
import re
import sqlite3
from pathlib import Path
from typing import Any, Sequence

from bots import BUNDLED_PYTHON

ELIDED = "…/"
_PYTHON = re.compile(r"python(\d+(\.\d+)*)?")
# An absolute path (or ~/...) inside free text: starts after a space, a quote, a bracket or '=',
# and runs to the next space, quote or bracket.
_PATH_IN_TEXT = re.compile(r"(?<![\w.\-~/])(?:~/|/)[^\s'\"`<>()\[\]{},;]+")
_MODULES = {module: name for name, module in BUNDLED_PYTHON.items()}
# Programs that run a bot's file given as an argument: the bot's folder is that file's.
_INTERPRETERS = {"node", "deno", "bun", "bash", "sh", "java", "ruby", "perl", "php", "lua",
                 "julia", "Rscript", "dotnet", "pypy", "pypy3"}


@functools.cache
def _bundled_files() -> tuple[dict[str, str], dict[str, str]]:
    """The bundled bots that are a script or a C program: {file name: bundled name} each.
    Imported here, not at the top: ``bot_specs`` brings in the referee, which a report reading a
    database has no use for."""
    from arena.entrants import bot_specs

    scripts = {path.name: name for name, path in bot_specs._PYTHON_SCRIPTS.items()}
    programs = {target: name for name, target in bot_specs._C_TARGETS.items()}
    return scripts, programs


def _is_python(program: str) -> bool:
    return _PYTHON.fullmatch(posixpath.basename(program)) is not None


def _bundled(argv: Sequence[str]) -> list[str] | None:
    """The bundled bot's name and options if ``argv`` starts one (recognised by its shape, not by
    this machine's paths), else None."""
    program = argv[0]
    # bots.python_bot_command: PYTHON -I -S .../bots/start.py MODULE OPTIONS...
    if _is_python(program) and len(argv) >= 5 and list(argv[1:3]) == ["-I", "-S"] \
            and posixpath.basename(argv[3]) == "start.py" and argv[4] in _MODULES:
        return [_MODULES[argv[4]], *argv[5:]]
    scripts, programs = _bundled_files()
    parent = posixpath.dirname(program)
    if parent.endswith("/bots/c/build") and posixpath.basename(program) in programs:
        return [programs[posixpath.basename(program)], *argv[1:]]
    if _is_python(program) and len(argv) >= 2 and posixpath.basename(argv[1]) in scripts \
            and posixpath.dirname(argv[1]).endswith("/bots/minimal"):
        return [scripts[posixpath.basename(argv[1])], *argv[2:]]
    return None


def _elide(path: str) -> str:
    """``/somewhere/private/bot.py`` as ``…/bot.py``."""
    name = posixpath.basename(path.rstrip("/"))
    return ELIDED + name if name else ELIDED


def public_argv(argv: Sequence[str]) -> list[str]:
    """A bot's command with nothing of the local machine in it (see the module's docstring)."""
    argv = [str(a) for a in argv]
    if not argv:
        return []
    bundled = _bundled(argv)
    if bundled is not None:
        return [bundled[0], *(scrub_paths(a) for a in bundled[1:])]
    program = argv[0]
    # The bot's own folder: where its script is (an interpreter's first absolute argument), or
    # where its program is.
    home = None
    if _is_python(program) or not program.startswith("/") \
            or posixpath.basename(program) in _INTERPRETERS:
        home = next((posixpath.dirname(a) for a in argv[1:] if a.startswith("/")), None)
    else:
        home = posixpath.dirname(program)
    # The program: the arena's Python as the manifest names it, an interpreter by its name, the
    # bot's own program relative to its folder.
    shown = ["python3" if _is_python(program) else
             posixpath.basename(program) if posixpath.basename(program) in _INTERPRETERS else
             _relative(program, home) if program.startswith("/") else scrub_paths(program)]
    for arg in argv[1:]:
        key, eq, value = arg.partition("=")
        if eq and value.startswith("/") and key.startswith("-"):  # --weights=/path/to/file
            shown.append(f"{key}={_relative(value, home)}")
        elif arg.startswith("/"):
            shown.append(_relative(arg, home))
        else:
            shown.append(scrub_paths(arg))
    return shown


def _relative(path: str, home: str | None) -> str:
    if home and home != "/" and (path == home or path.startswith(home.rstrip("/") + "/")):
        return posixpath.relpath(path, home)
    return _elide(path)


def public_command(argv: Sequence[str]) -> str:
    """``public_argv`` as one line of text, for a page."""
    return " ".join(public_argv(argv))


def scrub_paths(text: str) -> str:
    """Free text (a fault detail, an error) with every absolute path in it cut to ``…/NAME``."""
    return _PATH_IN_TEXT.sub(lambda m: _elide(m.group(0)), text)


def publishable_record(path: object) -> bool:
    """Whether a stored record path (relative to the tournament folder) is one a report links and
    ``arena publish`` copies: a ``.jsonl`` file below the folder, never outside it."""
    if not isinstance(path, str) or not path.endswith(".jsonl") or "\\" in path:
        return False
    parts = path.split("/")
    return not path.startswith("/") and ".." not in parts and "" not in parts


_AS_THEY_ARE = tuple(f'{{"type":"{kind}",' for kind in ("msg", "action", "deal_start", "deal"))


@functools.cache
def public_version() -> str:
    """Changes whenever what ``public_record_line`` makes of a record may change: the arena's
    version, this module's code and the bundled bots it recognises. A published record made
    under the same version is reused as it is (``arena.report.publish``)."""
    from arena import __version__

    scripts, programs = _bundled_files()
    digest = hashlib.sha256(__version__.encode())
    digest.update(Path(__file__).read_bytes())
    digest.update(json.dumps([sorted(_MODULES.items()), sorted(scripts.items()),
                              sorted(programs.items())]).encode())
    return digest.hexdigest()[:16]


def public_record_line(line: str) -> str:
    """One line of a match record as published: the header's bot commands made public and every
    other text the arena wrote (fault details, and whatever a later version adds) scrubbed of
    paths. What a bot wrote (``line``: the lines it exchanged, its offending line) is the bot's
    own and stays, as do the deals and actions, so ``arena replay`` gives the same match. What it
    wrote to stderr (the ``debug`` lines) is for its author only and is not published: "" here."""
    if line.startswith(_AS_THEY_ARE):
        # Most of a record's lines, as records.RecordWriter writes them (type first): nothing to
        # scrub, and parsing each was most of a publish's time for its records.
        return line
    if line.startswith('{"type":"debug",'):
        return ""
    if "/" not in line and "\\" not in line and '"header"' not in line and '"debug"' not in line:
        # Neither a header (its commands are made public) nor debug lines, however written, and no
        # path to scrub, written or escaped (a JSON "\u002f" has a backslash): a record's result
        # line, most often. Parsing it twice was a tenth of a publish's records.
        return line
    try:
        item: Any = json.loads(line)
    except ValueError:
        return line  # not JSON: kept, as ``arena replay`` would report it
    if isinstance(item, dict) and item.get("type") == "debug":
        return ""  # however it is written
    if not isinstance(item, dict) or item.get("type") in ("msg", "action", "deal_start", "deal"):
        return line  # nothing but the bots' words, cards and numbers
    if item.get("type") == "header" and isinstance(item.get("bots"), list):
        for bot in item["bots"]:
            if isinstance(bot, dict) and isinstance(bot.get("command"), list):
                bot["command"] = public_argv(bot["command"])
    public = _scrubbed(item)
    if public == json.loads(line):
        return line
    end = "\n" if line.endswith("\n") else ""
    return json.dumps(public, separators=(",", ":")) + end  # as records.RecordWriter writes


def _scrubbed(value: Any, key: str = "") -> Any:
    if isinstance(value, str):
        return value if key == "line" else scrub_paths(value)
    if isinstance(value, list):
        return [_scrubbed(v, key) for v in value]
    if isinstance(value, dict):
        return {k: _scrubbed(v, k) for k, v in value.items()}
    return value


def waiting_for_partner(db: sqlite3.Connection) -> frozenset[str]:
    """The stored matches whose deals must not be published yet: those of a deal set on which the
    schedule still has a match to play. The matches on one deal set are dealt the same cards (a
    duplicate pair; the six seatings of a three- or four-player set: schedule.py), so the record
    of a finished match shows every card its partners, still to be played by bots that may read
    the published folder, will be dealt. A tournament that stopped early keeps its unfinished
    sets unpublished: ``--resume`` may still play them.

    How many matches a deal set has follows from the schedule's shape (schedule.round_robin,
    three_player_sets, partnership_groups): two with two players, six with three, and six with
    four (two when only two bots play, each partnering itself). A store older than deal sets
    (schema 1) has nothing to withhold."""
    try:
        rows = db.execute("SELECT match_id, deal_set FROM matches").fetchall()
    except sqlite3.Error:
        return frozenset()
    try:
        players = db.execute("SELECT MAX(players) FROM matches").fetchone()[0] or 2
    except sqlite3.Error:
        players = 2  # schema 2: two players only
    bots = db.execute("SELECT COUNT(*) FROM bots").fetchone()[0]
    size = 2 if players == 2 or (players == 4 and bots == 2) else 6
    per_set: dict[str, list[str]] = {}
    for match_id, deal_set in rows:
        per_set.setdefault(deal_set, []).append(match_id)
    return frozenset(m for ids in per_set.values() if len(ids) < size for m in ids)
