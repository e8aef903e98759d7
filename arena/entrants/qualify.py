"""Qualifying a bot: a few quick matches against the random bot, in both seats, under real limits.

A bot that declares three- or four-player profiles (``profiles`` in its manifest) also plays one
match of each such profile from each seat that differs (three seats with three players; seats 0 and
1 with four, since 2 and 3 are their mirrors), the other seats taken by the random bot. Declining a
declared profile fails qualification; a profile it did not declare is never offered. The two-player
profiles share the wire format of PROTOCOL.md §3-§7, so the two-player matches stand for all of
them.

A bot passes only with no fault at all (PROTOCOL.md §5: no timeout, no illegal action, no malformed,
unsolicited or overlong line, no early exit), and if it ends cleanly after each match: it exits
within the grace period of PROTOCOL.md §4.4 and leaves no process of its own running. A failure
comes back as a report a bot author can act on: the rule broken, the lines exchanged just before,
the offending line and the end of the bot's stderr.

With ``conformance`` (``arena submit`` asks for it), a bot that passed its matches then plays
the scripted situations of ``arena check`` (``arena.match.conformance``) in the profiles it
declares, under the same limits: every message kind of PROTOCOL.md, which a few matches against
the random bot may never bring. Its faults fail qualification as a match's do; its claims are not
judged (a bot that claims badly only loses points, as in a match), and are counted as warnings.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, Sequence

from arena.entrants.bot_specs import resolve_bot
from arena.entrants.manifest import TWO_PLAYER_PROFILES
from arena.game import Rules, profile
from arena.isolation.probe import describe, support
from arena.match.bot_process import Limits, stderr_tail
from arena.match.conformance import Severity, check
from arena.match.deal_keys import deal_secret, deal_set_label, new_key
from arena.match.records import RecordError, read_record
from arena.match.referee import MatchConfig, run_match
from arena.temp_folders import TempFolder
from arena.types import BotSpec, Fault, MatchEnding, MatchResult

QUALIFYING_MATCHES = 4       # two deal sequences, each played from both seats
TRANSCRIPT_LINES = 8         # lines exchanged before a fault, shown in the report
STDERR_LINES = 10


class ExitFault(StrEnum):
    """How a bot that broke no protocol rule still failed to end cleanly (qualification only)."""

    NO_EXIT = "no_exit"            # still running after the grace period of PROTOCOL.md §4.4
    LEFT_RUNNING = "left_running"  # processes it started outlived it
    DECLINED = "declined"          # declined a profile its manifest declares (PROTOCOL.md §9)
    NO_OPPONENT = "no_opponent"    # the arena's opponent declined: the profile could not be
                                   # tried, so the bot is not registered for it (fail closed)


# What each fault word means (PROTOCOL.md §5), for the report.
RULES: dict[Fault | ExitFault, str] = {
    Fault.TIMEOUT: "PROTOCOL.md §5/§6: answer every request (and the greeting) within the time limit",
    Fault.ILLEGAL_ACTION: "PROTOCOL.md §5: answer only with one of the actions the request lists",
    Fault.MALFORMED: "PROTOCOL.md §3/§4.1: answer with 'ready <name>' or one action word, in UTF-8",
    Fault.UNSOLICITED: "PROTOCOL.md §1/§5: write nothing but one answer to each request",
    Fault.LINE_TOO_LONG: "PROTOCOL.md §1: lines are at most 1024 bytes before the newline",
    Fault.EXIT: "PROTOCOL.md §5: keep running (and reading) until the match ends",
    ExitFault.NO_EXIT: "PROTOCOL.md §4.4: exit within 1 s once match_end is sent and input closes",
    ExitFault.LEFT_RUNNING: "every process a bot starts must end when the bot does",
    ExitFault.DECLINED: "bot.toml: play every profile listed in 'profiles', or leave it out "
                        "(PROTOCOL.md §9: decline only a variant you do not play)",
    ExitFault.NO_OPPONENT: "not the bot's fault: the arena's random bot cannot play this profile "
                           "yet; submit again without it in 'profiles'",
}


@dataclass(frozen=True)
class Failure:
    match: int
    seat: int
    deals: int          # which of the qualification's deal sets (1 or 2): each is played twice
    fault: Fault | ExitFault
    detail: str
    rule: str
    line: str | None = None
    transcript: tuple[str, ...] = ()
    stderr_tail: tuple[str, ...] = ()
    profile: str = ""   # the profile of the failed match (its rules)


@dataclass
class QualificationReport:
    bot: str
    sandbox: str
    matches: list[dict[str, Any]] = field(default_factory=list)
    failure: Failure | None = None
    warnings: list[str] = field(default_factory=list)
    # The conformance check's outcome: situations played, passed, skipped (None: not run).
    conformance: dict[str, int] | None = None

    @property
    def passed(self) -> bool:
        return self.failure is None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["passed"] = self.passed
        return data

    def lines(self) -> list[str]:
        """The report as text, for the command line."""
        out = [f"qualification of {self.bot}: {'PASSED' if self.passed else 'FAILED'}",
               f"  {self.sandbox}"]
        for m in self.matches:
            variant = f"{m['profile']}, " if m.get("profile") else ""
            out.append(f"  match {m['match']} ({variant}seat {m['seat']}, deals {m['deals']}): "
                       f"{m['outcome']}")
        if self.conformance is not None:
            c = self.conformance
            out.append(f"  conformance check (arena check): {c['passed']} of {c['situations']} "
                       f"situations passed, {c['skipped']} skipped")
        f = self.failure
        if f is not None:
            variant = f"{f.profile}, " if f.profile else ""
            out.append(f"  broke a rule in match {f.match} ({variant}seat {f.seat}): {f.fault}: "
                       f"{f.detail}")
            out.append(f"  rule: {f.rule}")
            if f.transcript:
                out.append("  last lines exchanged (> arena to bot, < bot to arena):")
                out.extend(f"    {line}" for line in f.transcript)
            if f.line is not None:
                out.append(f"  offending line: {f.line!r}")
            if f.stderr_tail:
                out.append("  end of the bot's stderr:")
                out.extend(f"    {line}" for line in f.stderr_tail)
        out.extend(f"  warning: {w}" for w in self.warnings)
        return out


def qualify(bot: BotSpec, limits: Limits = Limits(), rules: Rules | None = None,
            matches: int = QUALIFYING_MATCHES, work: Path | None = None,
            profiles: Sequence[str] = (), opponent: BotSpec | None = None,
            conformance: bool = False) -> QualificationReport:
    """Play ``matches`` matches against the random bot, alternating seats, then the matches of
    each three- or four-player profile in ``profiles`` (the manifest's; two-player names there
    add nothing), then with ``conformance`` the situations of ``arena check`` in those profiles
    (every two-player one if none is given); stop at the first failure. Records and logs go to
    ``work`` (a temporary folder if None). ``opponent`` replaces the random bot (tests)."""
    report = QualificationReport(bot.name, describe())
    rules = rules or profile("sixty_six")
    opponent = opponent or resolve_bot("random", name="random")
    if opponent.name == bot.name:
        opponent = replace(opponent, name=opponent.name + "-opponent")
    # A fresh secret key for each qualification (deal_keys.py), kept in memory only: a bot that
    # learnt the deals of one qualification could otherwise pass any later one by knowing them.
    key = new_key()
    with TempFolder("qualify") as scratch:
        folder = work or scratch
        for n in range(matches):
            seat, deals = n % 2, 1 + n // 2
            bots = [opponent, opponent]
            bots[seat] = bot
            match_id = f"qualify-{n + 1}"
            config = MatchConfig(rules=rules, seed=deal_secret(key, deal_set_label(deals)),
                                 first_dealer=n % 2, match_id=match_id, limits=limits)
            record = folder / f"{match_id}.jsonl"
            result = run_match(bots, config, record_path=record, log_dir=folder / "logs")
            stderr_log = folder / "logs" / f"{match_id}.seat{seat}.stderr.log"
            report.matches.append({"match": n + 1, "seat": seat, "deals": deals,
                                   "outcome": _outcome(result, seat)})
            report.failure = _failure(result, n + 1, seat, deals, record, stderr_log)
            if report.failure is not None:
                break
            if _stderr_overflowed(stderr_log):
                report.warnings.append(f"match {n + 1}: more than {limits.stderr_cap} bytes of "
                                       "stderr; the rest was discarded")
        if report.failure is None:
            _qualify_nseat(bot, opponent, limits, folder, key, profiles, report)
        if report.failure is None and conformance:
            _conformance(bot, limits, folder / "check", profiles, report)
    return report


def _conformance(bot: BotSpec, limits: Limits, folder: Path, profiles: Sequence[str],
                 report: QualificationReport) -> None:
    """The situations of ``arena check`` (see the module's text); the first failure fails."""
    declared = tuple(profiles) or TWO_PLAYER_PROFILES
    result = check(bot, limits, profiles=declared, declared=declared, ignore_claims=True,
                   work=folder)
    statuses = [s.status for s in result.situations]
    report.conformance = {"situations": len(statuses), "passed": statuses.count("passed"),
                          "skipped": statuses.count("skipped")}
    warned = len(result.warnings)
    if warned:
        report.warnings.append(f"conformance check: {warned} warning(s) (wrong or missed claims, "
                               f"slow answers); arena check {bot.name} shows them")
    for situation in result.situations:
        finding = next((f for f in situation.findings if f.severity == Severity.FAILURE), None)
        if finding is None:
            continue
        fault: Fault | ExitFault = Fault(finding.kind) if finding.kind in _FAULTS \
            else ExitFault(finding.kind)
        transcript = ((f"> {_clip(finding.sent)}",) if finding.sent is not None else ()) + \
            ((f"< {_clip(finding.received)}",) if finding.received is not None else ())
        report.failure = Failure(
            len(report.matches) + 1, situation.seat, 1, fault,
            f"conformance check, situation {situation.name} ({situation.title}): "
            f"{finding.detail}", f"{finding.section}: {finding.rule}", finding.received,
            transcript, tuple(situation.stderr_tail), situation.profile)
        return


_FAULTS = {str(fault) for fault in Fault}


def _qualify_nseat(bot: BotSpec, opponent: BotSpec, limits: Limits, folder: Path,
                   key: bytes, profiles: Sequence[str], report: QualificationReport) -> None:
    """The matches of each declared three- or four-player profile (see the module's text)."""
    n = len(report.matches)
    for name in profiles:
        rules = profile(name)
        if rules.players == 2:
            continue
        # Seats that differ: with four players seats 2 and 3 mirror 0 and 1 (RULES.md §10.3).
        for seat in range(rules.sides):
            n += 1
            bots = [replace(opponent, name=f"{opponent.name}-{s}") for s in range(rules.players)]
            bots[seat] = bot
            match_id = f"qualify-{n}"
            config = MatchConfig(rules=rules, seed=deal_secret(key, deal_set_label(name, seat)),
                                 first_dealer=0, match_id=match_id, limits=limits)
            record = folder / f"{match_id}.jsonl"
            result = run_match(bots, config, record_path=record, log_dir=folder / "logs")
            stderr_log = folder / "logs" / f"{match_id}.seat{seat}.stderr.log"
            report.matches.append({"match": n, "profile": name, "seat": seat, "deals": 1,
                                   "outcome": _outcome(result, seat, rules)})
            if result.reason == MatchEnding.DECLINED:
                report.failure = _declined(result, n, seat, name, record, stderr_log)
            else:
                report.failure = _failure(result, n, seat, 1, record, stderr_log)
                if report.failure is not None:
                    report.failure = replace(report.failure, profile=name)
            if report.failure is not None:
                return


def _declined(result: MatchResult, match: int, seat: int, name: str, record: Path,
              stderr_log: Path) -> Failure:
    if seat in result.declined:
        fault, detail = ExitFault.DECLINED, f"it declares {name} in its manifest but declined " \
            f"it: {result.detail}"
    else:
        fault, detail = ExitFault.NO_OPPONENT, result.detail
    return Failure(match, seat, 1, fault, detail, RULES[fault], None, _transcript(record, seat),
                   tuple(stderr_tail(stderr_log, STDERR_LINES, 200)), name)


def _outcome(result: MatchResult, seat: int, rules: Rules | None = None) -> str:
    if result.reason == MatchEnding.FORFEIT:
        who = "the bot" if result.offender == seat else "the opponent"
        return f"forfeit by {who} ({result.fault})"
    if result.reason == MatchEnding.DECLINED:
        return f"not played: {result.detail}"
    if result.winner is None:
        return f"{result.reason}, no winner"
    if rules is not None and rules.players > 2:
        side = rules.side_of[seat]
        points = "-".join(map(str, result.game_points))
        return (f"{'won' if result.winner == side else 'lost'} {points} (its side: {side}) in "
                f"{len(result.deals)} deals")
    return (f"{'won' if result.winner == seat else 'lost'} {result.game_points[seat]}-"
            f"{result.game_points[1 - seat]} in {len(result.deals)} deals")


def _failure(result: MatchResult, match: int, seat: int, deals: int, record: Path,
             stderr_log: Path) -> Failure | None:
    stats = result.seats[seat]
    if result.reason in (MatchEnding.FORFEIT, MatchEnding.NO_CONTEST) \
            and result.offender in (seat, None):
        fault: Fault | ExitFault = result.fault or Fault.EXIT
        detail = result.detail
        line = result.line
        if result.reason == MatchEnding.NO_CONTEST:
            detail = result.detail  # names both seats' faults
    elif stats.sandbox is not None and stats.sandbox.left:
        fault, line = ExitFault.LEFT_RUNNING, None
        detail = (f"{stats.sandbox.left} process(es) it started were still running after it "
                  "exited (they were killed)")
    elif stats.sandbox is not None and stats.sandbox.status is None \
            and support().mode != "limits":
        fault, line = ExitFault.NO_EXIT, None
        detail = "still running 1 s after match_end; it was killed"
    else:
        return None
    return Failure(match, seat, deals, fault, detail, RULES.get(fault, "PROTOCOL.md §5"), line,
                   _transcript(record, seat), tuple(stderr_tail(stderr_log, STDERR_LINES, 200)))


def _transcript(record: Path, seat: int) -> tuple[str, ...]:
    try:
        messages = read_record(record).messages
    except (RecordError, OSError):
        return ()
    lines = [f"{'>' if m['dir'] == 'out' else '<'} {_clip(m['line'])}" for m in messages
             if m["seat"] == seat]
    return tuple(lines[-TRANSCRIPT_LINES:])


def _clip(line: str, width: int = 120) -> str:
    return line if len(line) <= width else line[:width - 3] + "..."


def _stderr_overflowed(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            fh.seek(max(0, path.stat().st_size - 200))
            return b"more bytes of stderr discarded" in fh.read()
    except OSError:
        return False
