"""Match records as JSON Lines: the raw truth that everything else is derived from.

A record is written line by line while the match runs (a crash keeps everything up to the last
time the referee waited for a bot). Types:

- ``header``: format version, match id, first dealer, the full rules, both bots, the limits (with
  ``first_decision_ms`` and ``bank_ms`` when a match has either: PROTOCOL.md §6); never the seed or
  key the deals came from: records are published, and the key must stay secret while its
  tournament runs (version 1 records held a seed);
- ``msg``: one protocol line, ``dir`` "out" (referee to bot) or "in" (bot to referee), with ``t``, the
  milliseconds since the match started, and the ``seat``;
- ``action``: an action accepted by the referee, with the bot's thinking time (and ``bank_ms``,
  what is left of its time bank after it, when the match has one);
- ``fault``: a protocol fault, its word (PROTOCOL.md §5), detail and offending line;
- ``decline``: a seat that declined the N-seat variant, with its text (PROTOCOL.md §9);
- ``deal_start``: a deal's number, dealer and pack order (so it replays without any seed or key);
- ``deal``: a settled deal and its settlement (figures per side; with three or four players also
  ``awards``, each side's game points, since several sides may score: RULES.md §10.2);
- ``result``: the outcome, claim statistics and decision-time figures;
- ``debug``: what a bot wrote to its stderr, as ``lines``, since its previous answer up to its
  answer to the decision numbered ``decision`` (an index into the record's actions and deal
  forfeits, in order; a decision that ended in a fault, or what came after the bot's last answer,
  has the number of actions then recorded), at most ``DEBUG_DECISION_BYTES`` a
  decision and ``DEBUG_MATCH_BYTES`` a match, ``dropped`` the bytes beyond. They are for the
  bot's author: a published record leaves them out (``arena.report.public``).

``replay_record`` rebuilds the match with the engine from the header and the actions, and checks
that every deal settles exactly as recorded. Records of 3 and 4 players are the same lines with one
entry per seat in ``bots`` and per side in the deal figures.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from json.encoder import encode_basestring_ascii
from pathlib import Path
from typing import IO, Any, Iterable, Iterator

from arena.arena_folders import open_private, private_subfolder
from arena.game import Action, Card, MatchState, Rules

# A bot's stderr kept in the record beside its decisions, for its author to read in the replay
# (issue 33): enough for a few lines of reasoning a decision, and a record stays a record, not a log.
# Here, not in bot_process.py (which caps what it keeps by them), so that a replay page's reader
# does not import the bot processes and the sandbox to learn them.
DEBUG_DECISION_BYTES = 4096
DEBUG_MATCH_BYTES = 256 * 1024

RECORD_FORMAT = "sixtysix-record"
RECORD_VERSION = 3           # 2: no seed in the header; 3: debug lines, a bank in the limits
READABLE_VERSIONS = (1, 2, 3)


class RecordError(ValueError):
    """A record file that cannot be read or does not replay."""


_ENCODE = json.JSONEncoder(separators=(",", ":")).encode
_STRING = encode_basestring_ascii  # what the encoder above writes for a string


class RecordWriter:
    """Appends JSON lines to a record file. Lines are buffered until ``flush()``, which the referee
    calls whenever it is about to wait for a bot: a bot that hangs or a referee killed while
    waiting leaves every line up to that moment on disk. Flushing each line was a write call
    per line, six or so per decision (issue 18)."""

    def __init__(self, path: Path):
        private_subfolder(path.parent)
        self.path = path
        # 0600 whatever the umask: a record holds every hand, and a bot of the running match
        # may run on this file system as a user of its own (issue 29).
        fd = open_private(path, os.O_WRONLY | os.O_TRUNC)
        self._file: IO[str] | None = open(fd, "w", encoding="utf-8")

    def write(self, kind: str, **fields: Any) -> None:
        if self._file is None:
            return
        self._file.write(_ENCODE({"type": kind, **fields}) + "\n")

    def msg(self, t: float, seat: int, direction: str, line: str) -> None:
        """``write("msg", t=t, seat=seat, dir=direction, line=line)``, byte for byte, without
        building a dict for the JSON encoder: most of a record's lines are these, several per
        decision (issue 18). ``direction`` is "in" or "out"."""
        if self._file is None:
            return
        if type(t) is float and type(seat) is int and type(line) is str:
            self._file.write(f'{{"type":"msg","t":{t!r},"seat":{seat},"dir":"{direction}",'
                             f'"line":{_STRING(line)}}}\n')
        else:
            self.write("msg", t=t, seat=seat, dir=direction, line=line)

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


@dataclass
class Record:
    header: dict[str, Any]
    messages: list[dict[str, Any]] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)  # actions and deal forfeits, in order
    deal_starts: list[dict[str, Any]] = field(default_factory=list)
    deals: list[dict[str, Any]] = field(default_factory=list)
    faults: list[dict[str, Any]] = field(default_factory=list)
    declines: list[dict[str, Any]] = field(default_factory=list)
    debug: list[dict[str, Any]] = field(default_factory=list)  # the bots' stderr, per decision
    result: dict[str, Any] | None = None

    @property
    def rules(self) -> Rules:
        return Rules.from_dict(self.header["rules"])

    @property
    def names(self) -> tuple[str, ...]:
        """Every seat's bot name, in seat order."""
        return tuple(bot["name"] for bot in self.header["bots"])


def iter_lines(path: Path) -> Iterator[dict[str, Any]]:
    try:
        with open(path, encoding="utf-8") as fh:
            yield from _parse_lines(fh, str(path))
    except OSError as err:
        raise RecordError(f"cannot read record {path}: {err.strerror}") from err
    except UnicodeDecodeError:  # a binary file, a database given as a record (issue 28)
        raise RecordError(f"{path} is not a match record (not UTF-8 text)") from None


def _parse_lines(lines: Iterable[str], source: str) -> Iterator[dict[str, Any]]:
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as err:
            raise RecordError(f"{source}:{number}: not a JSON line ({err.msg})") from None
        if not isinstance(item, dict) or "type" not in item:
            raise RecordError(f"{source}:{number}: a record line needs a 'type'")
        yield item


def read_record(path: Path) -> Record:
    return _record_of(iter_lines(path), str(path))


def record_of_lines(lines: Iterable[str], source: str) -> Record:
    """A record from its lines already read (the website passes each through
    ``arena.report.public`` first); ``source`` names it in errors."""
    return _record_of(_parse_lines(lines, source), source)


def _record_of(items: Iterator[dict[str, Any]], source: str) -> Record:
    header = next(items, None)
    if header is None or header.get("type") != "header" or header.get("format") != RECORD_FORMAT:
        raise RecordError(f"{source} is not a match record (no '{RECORD_FORMAT}' header line)")
    if header.get("version") not in READABLE_VERSIONS:
        raise RecordError(f"{source}: record version {header.get('version')} is not supported "
                          f"(this arena reads versions "
                          f"{', '.join(map(str, READABLE_VERSIONS))})")
    record = Record(header)
    for item in items:
        kind = item["type"]
        if kind == "msg":
            record.messages.append(item)
        elif kind in ("action", "forfeit_deal"):
            record.actions.append(item)
        elif kind == "deal_start":
            record.deal_starts.append(item)
        elif kind == "deal":
            record.deals.append(item)
        elif kind == "fault":
            record.faults.append(item)
        elif kind == "decline":
            record.declines.append(item)
        elif kind == "debug":
            record.debug.append(item)
        elif kind == "result":
            record.result = item
    return record


def replay_record(record: Record) -> MatchState:
    """The engine's match state after the record's actions; ``RecordError`` if a deal settles
    differently from what the record says (a corrupted record, or an engine that changed)."""
    header = record.header
    try:
        if len(header["bots"]) != record.rules.players:
            raise ValueError(f"{len(header['bots'])} bots for a profile of {record.rules.players} "
                             "players")
        orders = [tuple(Card.parse(c) for c in d["order"]) for d in record.deal_starts]
        # A match that ended in the handshake dealt nothing, and one stopped at the deal limit
        # never dealt the deal the engine sets up after its last: no action is replayed on that
        # deal, so any order will do for it (version 1 headers had the seed).
        state = MatchState.new(record.rules, header.get("seed", 0), header["first_dealer"],
                               orders=[*orders, record.rules.pack.cards])
    except (KeyError, TypeError, ValueError) as err:
        raise RecordError(f"record's header or deal orders are unusable: {err}") from err
    for item in record.actions:
        if state.is_over:
            raise RecordError("record has actions after the end of the match")
        try:
            if item["type"] == "forfeit_deal":
                state = state.forfeit(item["seat"], item.get("detail", ""), illegal_action=True)
            else:
                if state.to_act != item["seat"]:
                    raise RecordError(f"action {item['action']} by seat {item['seat']} out of turn")
                state = state.apply(Action.parse(item["action"]))
        except ValueError as err:
            if isinstance(err, RecordError):
                raise
            raise RecordError(f"record does not replay: {err}") from err
    check_settlements(record, state)
    return state


def check_settlements(record: Record, state: MatchState) -> None:
    """``RecordError`` unless every deal of ``state`` (the record's actions replayed) settled as
    the record says."""
    for recorded, result in zip(record.deals, state.results):
        s = result.settlement
        if (recorded["reason"], recorded["winner"], recorded["awarded"], tuple(recorded["totals"]),
                tuple(recorded.get("awards", s.awards))) != \
                (str(s.reason), s.winner, result.awarded, s.totals, s.awards):
            raise RecordError(f"deal {result.deal_no} replays as {s.reason} for {s.winner} "
                              f"(+{result.awarded}, totals {s.totals}) but the record says "
                              f"{recorded['reason']} for {recorded['winner']}")
