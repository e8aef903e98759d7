"""The conformance check (``arena check``): the scripted situations of ``situations.py`` played
through the real referee, and every answer of the checked bot judged against PROTOCOL.md.

The referee (``referee.run_match``) plays each situation as it plays any match: the same lines
(``protocol.from_engine``), the same deadlines and sandbox (``bot_process``), the same verdicts on
what the bot writes. Two things differ, both given to it from here: the deal is the situation's
crafted pack order (``MatchConfig.orders``), and the other seats are ``ScriptedSeat``s, SDK bots
answering in-process. The checked bot runs as a ``WatchedBot``: a real ``BotProcess`` that also
keeps the lines it was sent (for the report's "sent" line, and the coverage) and times its start.

What is judged, each finding with the line sent, the line received and the PROTOCOL.md section:

- every fault the referee finds (§5: ``timeout``, ``illegal_action``, ``malformed``,
  ``unsolicited``, ``line_too_long``, ``exit``), placed in the section it breaks (the greeting's
  in §3, an action's in §4.1, framing in §1, time in §6);
- the claims, from the match record replayed through the engine: at every request that lists
  ``claim``, the bot's own count (its side's, with three or four players) decides whether it must
  claim (at the target or more: §4.2, §9.3) or must not (a wrong claim). A bot that plays at random
  on purpose may have these reported as warnings (``ignore_claims``);
- how it ends: it exits within the grace period once its input closes, leaving nothing running
  (§4.4);
- time: its start and its slowest decision against the limits; one that uses more than
  ``SLOW_SHARE`` of a limit is warned (§6: leave a margin).

A bot may refuse what it does not play: a three- or four-player variant by ``decline`` (§9.1; a
failure only if its manifest declares that profile), overridden rules by exiting before its
first request (§3). Such a situation is skipped, and the report says why.
"""

from __future__ import annotations

import statistics
import time
from collections import deque
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

from arena.game import CLAIM, Action, MatchState
from arena.isolation.probe import describe, support
from arena.match.bot_process import EXIT_GRACE_S, BotFault, BotProcess, Limits, stderr_tail
from arena.match.records import RecordError, iter_lines, read_record
from arena.match.referee import MatchConfig, run_match
from arena.match.situations import SCRIPTED_NAME, Policy, Situation, situations
from arena.temp_folders import TempFolder
from arena.types import BotSpec, Fault, MatchEnding, MatchResult
from protocol import BotSession, from_engine

CHECK_FORMAT = "sixtysix-check"
CHECK_VERSION = 1
SLOW_SHARE = 0.8            # a start or decision above this share of its limit is warned (§6)
STDERR_LINES = 10
UNKNOWN_LINES = (
    "x-checker this line's first word is unknown to protocol version 1: ignore it",
    "note 1 2 3",
)
"""Lines of a first word no version-1 bot knows, sent in the situation ``unknown_lines``."""


class Severity:
    FAILURE = "failure"     # the check fails (exit 1)
    WARNING = "warning"     # reported; the check still passes


# What each finding breaks: its PROTOCOL.md section and the rule in words. Faults of the greeting
# and of an action are placed apart (_fault_section).
RULES: dict[str, tuple[str, str]] = {
    "greeting": ("§3", "answer the greeting 'sixtysix 1' with one line 'ready <name>' (a name of "
                       "1-64 of A-Z a-z 0-9 _ . + -) within the start-up limit, and keep running"),
    Fault.TIMEOUT: ("§6", "answer every request within decision_ms (measured from the moment the "
                          "request is written), and flush the answer"),
    Fault.ILLEGAL_ACTION: ("§4.1", "answer with exactly one of the actions the request lists, "
                                   "written exactly as listed"),
    Fault.MALFORMED: ("§4.1", "answer a request with one action word (play:<card>, marry:<suit>, "
                              "exchange, close, claim, pass) on one line of UTF-8"),
    "utf8": ("§1", "write UTF-8 text, one message per line"),
    Fault.UNSOLICITED: ("§1", "write nothing but one answer to each request (and 'ready' to the "
                              "greeting): no second answer, no logging on stdout"),
    Fault.LINE_TOO_LONG: ("§1", "lines are at most 1024 bytes before the newline"),
    Fault.EXIT: ("§5", "keep running and reading until match_end"),
    "unknown_line": ("§1", "ignore a line from the referee whose first word you do not know "
                           "(§8: version 1 may add informational messages)"),
    "wrong_claim": ("§4.2", "claim only when your own count has reached 66"),
    "missed_claim": ("§4.2", "count for yourself, and claim when your count reaches 66"),
    "wrong_claim_nseat": ("§9.3", "claim only when your side's count has reached the target (66 "
                                  "with three players, 101 with four)"),
    "missed_claim_nseat": ("§9.3", "count for your side, and claim when it reaches the target "
                                   "(66 with three players, 101 with four)"),
    "no_exit": ("§4.4", "exit once match_end is sent and your input closes (within 1 s)"),
    "left_running": ("§4.4", "every process the bot starts ends when the bot does"),
    "declined": ("§9.1", "play every profile your bot.toml lists in 'profiles' (decline only a "
                         "variant you do not play)"),
    "slow": ("§6", "leave a margin: pipes and scheduling cost a little, and a tournament's machine "
                   "may be slower than yours"),
}


@dataclass(frozen=True)
class Finding:
    """One thing the bot did against PROTOCOL.md."""

    kind: str               # a fault word of §5, or wrong_claim, missed_claim, no_exit, ...
    severity: str
    section: str            # "PROTOCOL.md §4.1"
    rule: str               # the rule, in words
    detail: str
    sent: str | None = None       # the last line the bot was sent before it
    received: str | None = None   # what it answered (None: nothing)


@dataclass
class SituationResult:
    name: str
    title: str
    profile: str
    seat: int
    status: str = "passed"  # passed, failed, skipped (the bot may refuse it), not_run
    note: str = ""
    findings: list[Finding] = field(default_factory=list)
    startup_ms: float | None = None
    decisions: int = 0
    median_ms: float | None = None
    max_ms: float | None = None
    kinds_sent: list[str] = field(default_factory=list)  # the kinds of message it was sent
    stderr_tail: list[str] = field(default_factory=list)


@dataclass
class CheckReport:
    bot: str
    command: tuple[str, ...]
    sandbox: str
    decision_ms: int
    startup_ms: int
    ignore_claims: bool = False
    situations: list[SituationResult] = field(default_factory=list)

    @property
    def failures(self) -> list[Finding]:
        return [f for s in self.situations for f in s.findings if f.severity == Severity.FAILURE]

    @property
    def warnings(self) -> list[Finding]:
        return [f for s in self.situations for f in s.findings if f.severity == Severity.WARNING]

    @property
    def passed(self) -> bool:
        return not self.failures and any(s.status == "passed" for s in self.situations)

    def covered(self) -> list[str]:
        seen = {kind for s in self.situations for kind in s.kinds_sent}
        return [kind for kind in MESSAGE_KINDS if kind in seen]

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON data (docs/authors/check.md describes it)."""
        covered = self.covered()
        return {
            "format": CHECK_FORMAT, "version": CHECK_VERSION, "bot": self.bot,
            "command": list(self.command), "passed": self.passed,
            "failures": len(self.failures), "warnings": len(self.warnings),
            "sandbox": self.sandbox,
            "limits": {"decision_ms": self.decision_ms, "startup_ms": self.startup_ms},
            "ignore_claims": self.ignore_claims,
            "situations": [asdict(s) for s in self.situations],
            "coverage": {"sent": covered,
                         "not_sent": [k for k in MESSAGE_KINDS if k not in covered]},
        }

    def lines(self) -> list[str]:
        """The report as text, for the command line."""
        verdict = "PASSED" if self.passed else "FAILED"
        out = [f"arena check {self.bot}: {verdict} ({len(self.situations)} situations, "
               f"{len(self.failures)} failures, {len(self.warnings)} warnings)",
               f"  {self.sandbox}",
               f"  limits: start-up {self.startup_ms} ms, decision {self.decision_ms} ms"]
        for s in self.situations:
            label = {"passed": "ok  ", "failed": "FAIL", "skipped": "skip",
                     "not_run": "----"}[s.status]
            timing = ""
            if s.decisions:
                timing = (f": {s.decisions} decision{'s' if s.decisions > 1 else ''}, slowest "
                          f"{s.max_ms:.1f} ms")
            if s.startup_ms is not None:
                timing += f"{',' if timing else ':'} started in {s.startup_ms:.0f} ms"
            out.append(f"  {label} {s.name} ({s.profile}, seat {s.seat}){timing}")
            if s.note:
                out.append(f"         {s.note}")
            for f in s.findings:
                out.append(f"         {f.severity}: {f.kind}: {f.detail}")
                out.append(f"           breaks PROTOCOL.md {f.section.removeprefix('PROTOCOL.md ')}"
                           f": {f.rule}")
                if f.sent is not None:
                    out.append(f"           sent:     > {_clip(f.sent)}")
                out.append("           received: " + ("(nothing)" if f.received is None
                                                      else f"< {_clip(f.received)}"))
            if s.stderr_tail and s.status == "failed":
                out.append("         end of the bot's stderr:")
                out.extend(f"           {line}" for line in s.stderr_tail)
        covered = self.covered()
        missing = [k for k in MESSAGE_KINDS if k not in covered]
        out.append(f"  coverage: the bot was sent {len(covered)} of {len(MESSAGE_KINDS)} kinds of "
                   "message" + (f"; not reached: {', '.join(missing)}" if missing else ""))
        return out


# The kinds of line PROTOCOL.md defines, as the coverage names them (``_kind``).
MESSAGE_KINDS: tuple[str, ...] = (
    "sixtysix 1", "sixtysix 1 players", "match", "rules", "deal",
    "lead?", "follow?", "after_trick?", "close_exchange?", "between_tricks?",
    "played", "trick", "marriage", "exchange", "close", "draw (own card)", "draw (hidden)",
    "draw (face-up card)", "claim",
    "settle claim", "settle wrong_claim", "settle close_failed", "settle claim_against_close",
    "settle last_trick", "settle higher_total", "settle draw",
    "match_end target", "match_end forfeit", "match_end deal_limit", "unknown line",
)


def _kind(line: str, me: str) -> str:
    words = line.split()
    first = words[0] if words else ""
    if first == "sixtysix":
        return "sixtysix 1 players" if "players" in words else "sixtysix 1"
    if first == "draw":
        if len(words) == 2:
            return "draw (hidden)"
        return "draw (own card)" if words[1] == me else "draw (face-up card)"
    if first == "settle" and len(words) > 4:
        return f"settle {words[4]}"
    if first == "match_end" and len(words) > 4:
        return f"match_end {words[4]}"
    if line in UNKNOWN_LINES:
        return "unknown line"
    return first


# -- the seats -----------------------------------------------------------------------------------


class ScriptedSeat(BotProcess):
    """A seat the check plays in-process: an SDK bot (``situations.Scripted``) behind the
    interface of a bot process, so that the referee speaks to it as to any other. It answers at
    once; with ``Policy.fault_at_request`` it answers that request with a line that is no action,
    and the referee forfeits it (PROTOCOL.md §5), which the checked bot is told."""

    def __init__(self, policy: Policy):
        super().__init__(("(scripted)",))
        self._session = BotSession(policy.bot())
        self._fault_at = policy.fault_at_request
        self._requests = 0
        self._answers: deque[bytes] = deque()

    def start(self) -> None:
        self.started_at = time.monotonic()

    def queue(self, line: str) -> None:
        answer = self._session.feed(line)
        if answer is None:
            return
        first = line.split(" ", 1)[0]
        if first.endswith("?"):
            self._requests += 1
            if self._requests == self._fault_at:
                answer = "let me think"
        self._answers.append(answer.encode())

    def flush(self, timeout_s: float | None = None) -> None:
        pass

    def read_line(self, timeout_s: float, limit: str = "") -> bytes:
        if not self._answers:
            raise BotFault(Fault.TIMEOUT, "the scripted seat had no answer")
        return self._answers.popleft()

    def read_ready_line(self) -> bytes:
        return self.read_line(0)

    def unread_output(self) -> bytes:
        return b""

    def asked(self, asked: bool) -> None:
        pass

    def exceeded(self) -> str:
        return ""

    def close(self, grace_s: float = EXIT_GRACE_S) -> int | None:
        return 0


class WatchedBot(BotProcess):
    """The checked bot: a real bot process that also keeps what it was sent and times its
    start; in ``unknown_lines`` it adds lines of an unknown first word before the first deal
    and the first request (PROTOCOL.md §1)."""

    def __init__(self, *args: Any, unknown_lines: bool = False, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._inject = unknown_lines
        self._queued: list[str] = []
        self.sent: list[str] = []          # every line written to it, in order
        self.requests = 0                  # requests written to it
        # The last line of the last write before the one that told it the match was over: what
        # it was answering, or had just been told, when it broke a rule. (Lines queued in
        # between went out only with that match_end: a bot that broke a rule never saw them.)
        self.last_sent: str | None = None
        self.startup_ms: float | None = None

    def queue(self, line: str) -> None:
        if self._inject and (line.startswith("deal ") and UNKNOWN_LINES[0] not in self.sent
                             or _is_request(line) and UNKNOWN_LINES[1] not in self.sent):
            unknown = UNKNOWN_LINES[0] if line.startswith("deal ") else UNKNOWN_LINES[1]
            self._queued.append(unknown)
            self.sent.append(unknown)  # counted now: each is sent once
            super().queue(unknown)
        self._queued.append(line)
        super().queue(line)

    def flush(self, timeout_s: float | None = None) -> None:
        queued, self._queued = self._queued, []
        if queued and not any(line.startswith("match_end ") for line in queued):
            self.last_sent = queued[-1]
        self.sent.extend(line for line in queued if line not in UNKNOWN_LINES)
        self.requests += sum(1 for line in queued if _is_request(line))
        super().flush(timeout_s)

    def read_ready_line(self) -> bytes:
        line = super().read_ready_line()
        self.startup_ms = round((time.monotonic() - self.started_at) * 1000, 1)
        return line


def _is_request(line: str) -> bool:
    return line.split(" ", 1)[0].endswith("?")


# -- the check ------------------------------------------------------------------------------------


def check(bot: BotSpec, limits: Limits = Limits(), profiles: Sequence[str] | None = None,
          declared: Sequence[str] = (), ignore_claims: bool = False,
          work: Path | None = None) -> CheckReport:
    """Play every situation of ``profiles`` (default: all) with ``bot`` and judge it.
    ``declared``: the profiles the bot's manifest (or the bundled list) says it plays; declining
    one of them fails. Records and logs go to ``work`` (a temporary folder if None)."""
    report = CheckReport(bot.name, bot.argv, describe(), limits.decision_ms, limits.startup_ms,
                         ignore_claims)
    with TempFolder("check") as scratch:
        folder = work or scratch
        started = False
        for situation in situations(tuple(profiles) if profiles is not None else None):
            result = SituationResult(situation.name, situation.title, situation.profile,
                                     situation.seat)
            report.situations.append(result)
            if report.situations[0] is not result and not started:
                result.status = "not_run"
                result.note = "not run: the bot did not start in the first situation"
                continue
            _play(situation, bot, limits, folder, declared, ignore_claims, result, report)
            started = started or result.startup_ms is not None
    return report


def _play(situation: Situation, bot: BotSpec, limits: Limits, folder: Path,
          declared: Sequence[str], ignore_claims: bool, out: SituationResult,
          report: CheckReport) -> None:
    match_id = f"check-{situation.name}"
    record = folder / f"{match_id}.jsonl"
    logs = folder / "logs"
    watched = WatchedBot(bot.argv, limits, stderr_log=logs / f"{match_id}.stderr.log",
                         files=Path(bot.folder) if bot.folder else None, subdir=bot.workdir,
                         hide=[folder], unknown_lines=situation.unknown_lines)
    processes: dict[int, BotProcess] = {seat: ScriptedSeat(policy)
                                        for seat, policy in situation.others.items()}
    processes[situation.seat] = watched
    specs = [BotSpec(f"{SCRIPTED_NAME}-{seat}", ("(scripted)",))
             for seat in range(situation.rules.players)]
    specs[situation.seat] = bot
    config = MatchConfig(rules=situation.rules, first_dealer=situation.dealer, match_id=match_id,
                         limits=limits, max_deals=situation.max_deals, orders=situation.orders())
    result = run_match(specs, config, record_path=record, log_dir=logs, processes=processes)
    out.startup_ms = watched.startup_ms
    me = "me" if situation.rules.players == 2 else str(situation.seat)
    out.kinds_sent = sorted({_kind(line, me) for line in watched.sent} & set(MESSAGE_KINDS),
                            key=MESSAGE_KINDS.index)
    stats = result.seats[situation.seat]
    timing = stats.timing()
    out.decisions = int(timing["decisions"])
    if out.decisions:
        out.median_ms, out.max_ms = timing["median_ms"], timing["max_ms"]
    out.findings.extend(_judge(situation, result, watched, record, declared, ignore_claims,
                               report, out, limits))
    if any(f.severity == Severity.FAILURE for f in out.findings):
        out.status = "failed"
        out.stderr_tail = stderr_tail(logs / f"{match_id}.stderr.log", STDERR_LINES, 200)


def _judge(situation: Situation, result: MatchResult, watched: WatchedBot, record: Path,
           declared: Sequence[str], ignore_claims: bool, report: CheckReport,
           out: SituationResult, limits: Limits) -> list[Finding]:
    seat = situation.seat
    findings: list[Finding] = []
    if result.reason == MatchEnding.DECLINED and seat in result.declined:
        if situation.profile in declared:
            findings.append(_finding("declined", f"it declined {situation.profile}, which it "
                                     f"declares: {result.detail}", sent=watched.sent[0]
                                     if watched.sent else None))
        else:
            out.status = "skipped"
            out.note = f"skipped: it declined {situation.profile} ({result.detail}), as a bot " \
                       "that does not play a variant may (PROTOCOL.md §9.1)"
        return findings
    if result.offender == seat and result.fault is not None:
        if situation.overridden and result.fault == Fault.EXIT and watched.startup_ms is not None \
                and not result.seats[seat].decision_ms:
            out.status = "skipped"
            out.note = ("skipped: it exited on the overridden rules before its first request, "
                        "as a bot that does not play them may (PROTOCOL.md §3)")
            return findings
        findings.append(_fault_finding(situation, result, watched, report))
    else:
        findings.extend(_exit_findings(result, seat, watched))
    findings.extend(_claim_findings(situation, record, ignore_claims))
    findings.extend(_time_findings(watched, result, seat, limits))
    return findings


def _finding(kind: str, detail: str, severity: str = Severity.FAILURE, sent: str | None = None,
             received: str | None = None, rule: str | None = None) -> Finding:
    section, text = RULES[rule or kind]
    return Finding(kind, severity, f"PROTOCOL.md {section}", text, detail, sent, received)


def _fault_finding(situation: Situation, result: MatchResult, watched: WatchedBot,
                   report: CheckReport) -> Finding:
    fault = result.fault
    assert fault is not None
    rule: str = fault
    # The greeting's answer never came, or came wrong: §3 (a bot that exits or hangs before it,
    # or answers it with something else than 'ready <name>').
    if watched.startup_ms is None or (fault == Fault.MALFORMED and watched.requests == 0):
        rule = "greeting"
    elif fault == Fault.MALFORMED and "UTF-8" in result.detail:
        rule = "utf8"
    sent, detail = watched.last_sent, result.detail
    if situation.unknown_lines and not _failed_without_unknown_lines(report):
        # The same deal without those lines went well: they are what it tripped on.
        rule, sent = "unknown_line", UNKNOWN_LINES[0]
        detail = (f"after lines of a first word it cannot know ({' / '.join(UNKNOWN_LINES)}): "
                  f"{detail}")
    return _finding(fault, detail, sent=sent, received=result.line, rule=rule)


def _failed_without_unknown_lines(report: CheckReport) -> bool:
    """Whether the situation ``feed`` (the deal of ``unknown_lines`` without its extra lines)
    found a fault too: then a fault in ``unknown_lines`` is not the extra lines' doing."""
    faults = {str(fault) for fault in Fault}
    for s in report.situations:
        if s.name == "feed":
            return any(f.kind in faults for f in s.findings)
    return True


def _exit_findings(result: MatchResult, seat: int, watched: WatchedBot) -> list[Finding]:
    """PROTOCOL.md §4.4, as qualification judges it: the bot exits within the grace period once
    its input closes, and leaves no process running."""
    sandbox = result.seats[seat].sandbox
    if sandbox is None:
        return []
    if sandbox.left:
        return [_finding("left_running", f"{sandbox.left} process(es) it started were still "
                         "running after it exited (they were killed)")]
    if sandbox.status is None and support().mode != "limits":
        return [_finding("no_exit", "still running 1 s after match_end; it was killed",
                         sent=watched.sent[-1] if watched.sent else None)]
    return []


def _claim_findings(situation: Situation, record: Path, ignore_claims: bool) -> list[Finding]:
    """The first wrong and the first missed claim: the record's actions replayed through the
    engine, the bot's side's count at each request that lists ``claim``."""
    try:
        rec = read_record(record)
    except (RecordError, OSError):
        return []
    rules = situation.rules
    seat, side, target = situation.seat, rules.side_of[situation.seat], rules.claim_target
    orders = situation.orders()
    state = MatchState.new(rules, 0, situation.dealer, orders)
    severity = Severity.WARNING if ignore_claims else Severity.FAILURE
    nseat = "_nseat" if rules.players > 2 else ""
    found: dict[str, Finding] = {}
    answers = iter(_answers_of(record, seat))
    for item in rec.actions:
        if item["type"] != "action" or state.is_over:
            break
        action = Action.parse(item["action"])
        deal = state.deal
        if item["seat"] == seat:
            answer = next(answers, str(action))
            legal = deal.legal_actions()
            if CLAIM in legal:
                count = deal.total(side)
                request = from_engine.request_line(deal)
                whose = "its" if rules.players < 4 else "its side's"
                if action is CLAIM and count < target and "wrong_claim" not in found:
                    found["wrong_claim"] = _finding(
                        "wrong_claim", f"it claimed in deal {state.deal_no} with {whose} count at "
                        f"{count}, below {target}", severity, request, answer,
                        rule="wrong_claim" + nseat)
                elif action is not CLAIM and count >= target and "missed_claim" not in found:
                    found["missed_claim"] = _finding(
                        "missed_claim", f"{whose} count was {count} (the target is "
                        f"{target}) in deal {state.deal_no}, and it did not claim", severity,
                        request, answer, rule="missed_claim" + nseat)
        state = state.apply(action)
    return list(found.values())


def _answers_of(record: Path, seat: int) -> list[str]:
    """The lines ``seat`` answered to requests, in order (its greeting's answer left out)."""
    lines = [item["line"] for item in iter_lines(record)
             if item["type"] == "msg" and item["seat"] == seat and item["dir"] == "in"]
    return lines[1:]


def _time_findings(watched: WatchedBot, result: MatchResult, seat: int,
                   limits: Limits) -> list[Finding]:
    findings = []
    if watched.startup_ms is not None and watched.startup_ms > SLOW_SHARE * limits.startup_ms:
        findings.append(_finding("slow", f"it took {watched.startup_ms:.0f} ms to answer the "
                                 f"greeting, of the start-up limit of {limits.startup_ms} ms",
                                 Severity.WARNING, "sixtysix 1"))
    times = result.seats[seat].decision_ms
    if times and max(times) > SLOW_SHARE * limits.decision_ms:
        findings.append(_finding("slow", f"its slowest decision took {max(times):.0f} ms of the "
                                 f"limit of {limits.decision_ms} ms (median "
                                 f"{statistics.median(times):.1f} ms)", Severity.WARNING))
    return findings


def _clip(line: str, width: int = 160) -> str:
    return line if len(line) <= width else line[:width - 3] + "..."
