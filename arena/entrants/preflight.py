"""Before a tournament: every bot is started once and must answer the greeting (PROTOCOL.md §3).

A bot whose program is missing, or that cannot read its own script, used to forfeit every match of
a tournament that then exited 0, with the reason only in a stderr log (issue 14). As cutechess
refuses to start a tournament with an engine that fails to start, the arena starts each bot once,
through the same sandbox and limits as a match, sends ``sixtysix 1`` and waits for ``ready`` within
the start-up limit. A bot that fails is an error naming it, with its fault and the last lines of
its stderr; nothing is played or stored. Faults after this check stay forfeits, as before.

In the ``isolated`` sandbox a bot runs as an unprivileged user of its own, so a script in a folder
only its owner may enter (``mktemp -d`` makes mode 0700) cannot be read: the error then says so and
how to fix it, instead of the bot's bare "permission denied".
"""

from __future__ import annotations

import os
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

from arena.entrants.bot_specs import BotSpecError, check_arena_paths
from arena.game import Rules
from arena.isolation.probe import support
from arena.match.bot_process import BotFault, BotProcess, Limits, stderr_tail
from arena.temp_folders import TempFolder
from arena.types import BotSpec, Fault
from protocol import from_engine
from protocol import messages as m
from protocol.codec import PROTOCOL_VERSION, ProtocolError, decode_from_bot, encode

STDERR_LINES = 8  # lines of a failed bot's stderr shown in the error


class PreflightError(ValueError):
    """One or more bots cannot start; the message names each, with why."""


def preflight(bots: Sequence[BotSpec], limits: Limits, hide: Sequence[Path] = (),
              rules: Rules | None = None) -> None:
    """Start every bot at once, greet it, and end it. Raises ``PreflightError`` for those that do
    not answer ``ready`` within ``limits.startup_ms``. With ``rules`` of three or four players the
    greeting names the variant (PROTOCOL.md §9), and a bot that declines it is an error too: a
    tournament of that variant refuses to start rather than play matches nobody can rate."""
    raise_problems(problems(bots, limits, hide, rules))


def raise_problems(found: Sequence[tuple[int, int, str]]) -> None:
    """``PreflightError`` naming each problem ``problems`` found (those of several calls, each
    numbering its bots from where its share starts), bots that did not start first."""
    if found:
        raise PreflightError("\n".join(text for _, _, text in sorted(found)))


def problems(bots: Sequence[BotSpec], limits: Limits, hide: Sequence[Path] = (),
             rules: Rules | None = None, first: int = 0,
             logs: Path | None = None) -> list[tuple[int, int, str]]:
    """What ``preflight`` checks, as (0 did not start / 1 declined, bot number, text) for each
    bot that fails, the bots numbered from ``first``. A tournament runs it on its workers, each
    for a share of the bots, through their zygotes (tournament.py), with the stderr logs in
    ``logs``, a folder the tournament removes."""
    problems: list[tuple[int, int, str]] = []
    for i, bot in enumerate(bots):
        try:
            # Whoever built the specs (a script, a cluster's worker), no bot is started with a
            # path into an arena folder (issue 29): the sandbox would not show it, and this says so.
            check_arena_paths(bot)
        except BotSpecError as err:
            problems.append((0, first + i, str(err)))
    if problems:
        return problems
    hello = from_engine.hello(rules) if rules is not None else m.Hello(PROTOCOL_VERSION)
    declines: dict[int, str] = {}
    with _logs_folder(logs) as folder:
        procs: list[BotProcess] = []
        try:
            faults: dict[int, BotFault] = {}
            for i, bot in enumerate(bots):
                proc = BotProcess(bot.argv, limits, stderr_log=folder / f"{first + i}.stderr.log",
                                  files=Path(bot.folder) if bot.folder else None,
                                  subdir=bot.workdir, hide=hide)
                procs.append(proc)
                try:
                    proc.start()
                    proc.send(encode(hello))
                except BotFault as fault:
                    faults[i] = fault
            for i, proc in enumerate(procs):
                if i not in faults:
                    try:
                        text = _read_ready(proc, allow_decline=hello.players > 2)
                        if text is not None:
                            declines[i] = text
                    except BotFault as fault:
                        faults[i] = fault
        finally:
            for proc in procs:
                proc.close(grace_s=0.0)  # it said ready, or it failed: either way it is done
        for i, failure in sorted(faults.items()):
            bot = bots[i]
            text = f"bot {bot.name!r} ({' '.join(bot.argv)}) did not start: {failure.fault}: " \
                   f"{failure.detail}"
            reason = private_path_reason(bot)
            if reason:
                text += f"; {reason}"
            tail = stderr_tail(folder / f"{first + i}.stderr.log", STDERR_LINES, 300)
            if tail:
                text += "\n  last lines of its stderr:\n" + "\n".join(f"    {line}"
                                                                      for line in tail)
            problems.append((0, first + i, text))
        for i, text in sorted(declines.items()):
            problems.append((1, first + i,
                             f"bot {bots[i].name!r} does not support {hello.profile}"
                             + (f" ({text})" if text else "") + ": leave it out, or choose a "
                             "profile it plays"))
    return problems


@contextmanager
def _logs_folder(logs: Path | None) -> Iterator[Path]:
    """``logs`` when the caller owns the folder (a tournament's workers: a worker ended mid-check
    by a stop signal exits at once and could not remove a folder of its own), else a temporary
    folder of this call's."""
    if logs is not None:
        yield logs
        return
    with TempFolder("preflight") as folder:
        yield folder


def _read_ready(proc: BotProcess, allow_decline: bool = False) -> str | None:
    """Reads the answer to the greeting: None for ``ready``, the text of a ``decline``."""
    line = proc.read_ready_line()
    try:
        answer = decode_from_bot(line, expect="ready", allow_decline=allow_decline)
        return answer.text if isinstance(answer, m.Decline) else None
    except ProtocolError as err:
        shown = line[:80].decode("utf-8", "replace")
        raise BotFault(Fault(err.fault), f"bad answer to the greeting ({err.reason}): {shown!r}",
                       line) from None


def private_path_reason(bot: BotSpec) -> str:
    """Why the bot's user cannot read one of the bot's files, when the sandbox runs bots as users
    of their own; '' when nothing is in the way. The sandbox makes the folders leading to a file
    passable (read-only binds of the allow-list), but not the file's own folder, nor the file itself."""
    if support().mode != "isolated":
        return ""
    for arg in bot.argv:
        if not os.path.isabs(arg) or not os.path.exists(arg):
            continue
        path = os.path.realpath(arg)
        folder = path if os.path.isdir(path) else os.path.dirname(path)
        mode = os.stat(folder).st_mode
        if not mode & stat.S_IXOTH:
            return (f"{arg} is in a folder only its owner can read (mode "
                    f"{stat.S_IMODE(mode):04o}); bots run as an unprivileged user: chmod o+rx "
                    f"{folder}")
        mode = os.stat(path).st_mode
        if not os.path.isdir(path) and not mode & stat.S_IROTH:
            return (f"{arg} can be read only by its owner (mode {stat.S_IMODE(mode):04o}); bots "
                    f"run as an unprivileged user: chmod o+r {path}")
    return ""
