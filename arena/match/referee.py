"""The referee: runs one match between 2, 3 or 4 bot processes (PROTOCOL.md, RULES.md).

The loop is short and linear: deal, tell every bot what it may see, ask the player to act, check
the answer against the engine, apply, repeat. Every fault a bot commits becomes a result (a forfeit
with the fault's word, detail and offending line), never an exception that escapes. The referee
owns the seeded deals; bots only ever see what ``observe`` allows, translated into protocol lines.

One process per seat, as many as the profile's players (``rules.players``). Two-player lines are
those of PROTOCOL.md §3-§7; with three or four players (§9) the greeting names the variant and a bot
may decline it (the match is then not played and nobody forfeits), players are named by seat
number and side figures are lists. ``protocol.from_engine`` makes every line either way.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from arena.game import CLAIM, Action, Card, DealResult, DealState, MatchEnd, MatchState, Rules
from arena.match.bot_process import EXIT_GRACE_S, BotFault, BotProcess, Limits
from arena.match import phases
from arena.match.deal_keys import deal_secret, new_key
from arena.match.records import RECORD_FORMAT, RECORD_VERSION, RecordWriter

# BotSpec, MatchResult and SeatStats are imported from here by older code: they live in types.py.
from arena.types import BotSpec, DealEnding, Fault, MatchEnding, MatchResult, SeatStats
from protocol import from_engine
from protocol import messages as m
from protocol.codec import ProtocolError, decode_from_bot, encode


@dataclass(frozen=True)
class MatchConfig:
    rules: Rules
    # The engine's seed of the match's deals: a deal-set secret (deal_keys.deal_secret) in every
    # match the arena runs. It never reaches a bot or the record, which stores each deal's order.
    # Left out, it is a fresh secret: forgetting it must not deal from a guessable seed.
    seed: int | str = field(default_factory=lambda: deal_secret(new_key(), "match"))
    first_dealer: int = 0
    match_id: str = ""
    limits: Limits = Limits()
    max_deals: int = 200  # see MatchState.stop_at_deal_limit: a match between bots that never
                          # claim would otherwise never end
    private: tuple[Path, ...] = ()  # folders hidden from the bots (besides the record's and logs')
    # Each deal's pack order, instead of dealing from ``seed``: a scripted situation of the
    # conformance check (conformance.py), never a match of a tournament. One order per deal the
    # match may reach (``max_deals``).
    orders: tuple[tuple[Card, ...], ...] | None = None


class _Match:
    """One match in progress. ``run()`` returns the result and always ends both processes."""

    def __init__(self, bots: Sequence[BotSpec], config: MatchConfig, record_path: Path | None,
                 log_dir: Path | None, processes: Mapping[int, BotProcess] | None = None):
        players = config.rules.players
        if len(bots) != players:
            raise ValueError(f"profile {config.rules.name} is for {players} players, "
                             f"not {len(bots)} bots")
        self.players = players
        self.bots = tuple(bots)
        self.config = config
        self.match_id = config.match_id or uuid.uuid4().hex[:12]
        self.limits = config.limits
        self._decision_s = self.limits.decision_ms / 1000
        # PROTOCOL.md §6: each bot's time bank left (seconds), and whether it has decided yet.
        self._bank_s = [self.limits.bank_ms / 1000] * players
        self._decided = [False] * players
        self._decisions = 0  # the record's actions so far (action and forfeit_deal lines)
        self.writer = RecordWriter(record_path) if record_path else None
        self.record_path = record_path
        given = processes or {}
        self.procs = tuple(
            given[seat] if seat in given else
            BotProcess(b.argv, self.limits,
                       stderr_log=(log_dir / f"{self.match_id}.seat{seat}.stderr.log")
                       if log_dir else None,
                       files=Path(b.folder) if b.folder else None, subdir=b.workdir,
                       hide=[p for p in (record_path and record_path.parent, log_dir,
                                         *config.private) if p])
            for seat, b in enumerate(self.bots))
        self.seats = tuple(SeatStats(b.name) for b in self.bots)
        self.t0 = time.monotonic()
        self.state: MatchState | None = None
        self._play_started = 0.0
        self._could_claim: set[tuple[int, int, int]] = set()
        self._offender: int | None = None
        self._did_claim: set[tuple[int, int, int]] = set()

    # -- I/O with the record ---------------------------------------------------------------------

    def _ms(self) -> float:
        return round((time.monotonic() - self.t0) * 1000, 3)

    def _record(self, kind: str, **fields: object) -> None:
        if self.writer is not None:
            self.writer.write(kind, **fields)

    def _flush_record(self) -> None:
        """Before waiting for a bot: what happened so far reaches the record's file."""
        if self.writer is not None:
            self.writer.flush()

    def _send(self, seat: int, message: m.Message) -> None:
        """Queue a line for ``seat``. Queued lines go out in one write with the seat's next request
        (or at the end of the match): each write wakes the bot, and wake-ups are what cost
        (PROTOCOL.md §4.2: events arrive in order, at the latest with the next request)."""
        self._send_line(seat, encode(message))

    def _send_line(self, seat: int, line: str) -> None:
        """``_send`` of a line already made (``protocol.from_engine`` builds the per-move lines
        directly)."""
        if self.writer is not None:
            self.writer.msg(self._ms(), seat, "out", line)
        self.procs[seat].queue(line)

    # -- the match -------------------------------------------------------------------------------

    def run(self) -> MatchResult:
        config = self.config
        # No seed in the header (deal_keys.py): the deal_start lines hold the pack orders instead.
        self._record("header", format=RECORD_FORMAT, version=RECORD_VERSION, match_id=self.match_id,
                     first_dealer=config.first_dealer, rules=config.rules.to_dict(),
                     bots=[{"seat": s, "name": b.name, "command": list(b.argv)}
                           for s, b in enumerate(self.bots)],
                     limits={"decision_ms": self.limits.decision_ms,
                             "startup_ms": self.limits.startup_ms,
                             "max_line_bytes": self.limits.max_line_bytes,
                             **({"first_decision_ms": self.limits.first_limit_ms,
                                 "bank_ms": self.limits.bank_ms} if self.limits.clocked else {})},
                     started=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        # The match exists from the start, so a fault in the handshake is a forfeit of it.
        self.state = MatchState.new(config.rules, config.seed, config.first_dealer, config.orders)
        clock = phases.clock()  # None unless a benchmark asked where the time goes
        try:
            failed = self._start_and_greet()
            if clock is not None:
                clock.lap(phases.READY)  # the bots' set-up and spawn are taken out below
            if failed is not None:
                return failed
            self._play_started = time.monotonic()
            try:
                self._play()
            except _SeatFault as sf:
                return self._forfeit(sf.seat, sf.fault)
            return self._finish()
        finally:
            if clock is not None:
                clock.lap(phases.PLAY)
            for seat, proc in enumerate(self.procs):
                # Every bot is waited for now (the only place a bot's weight is lowered is this
                # referee): each gets the CPU to exit at once, not in turn.
                proc.asked(True)
                if seat != self._offender:
                    proc.end_input()  # all of them first: they exit side by side (issue 34)
            for seat, proc in enumerate(self.procs):
                # A bot that broke a rule is not waited for: a hung one would only cost time.
                proc.close(grace_s=0.0 if seat == self._offender else EXIT_GRACE_S)
                self.seats[seat].sandbox = proc.report
                self._record_debug(seat)  # what it wrote after its last decision
            if self.writer is not None:
                self.writer.close()
            if clock is not None:
                clock.lap(phases.TEARDOWN)
                clock.add(proc.times for proc in self.procs)
                # The set-up and spawn happened within READY's lap: what is left is the wait.
                clock.ns[phases.READY] -= sum(clock.ns.get(p, 0) for p in (phases.SANDBOX_SETUP,
                                                                           phases.SPAWN))
                clock.write(match=self.match_id)

    def _start_and_greet(self) -> MatchResult | None:
        """Start every bot and read its ``ready`` (or, N-seat, ``decline``) line within the start-up
        limit."""
        faults: dict[int, BotFault] = {}
        declines: dict[int, str] = {}
        hello = from_engine.hello(self.config.rules)
        for seat, proc in enumerate(self.procs):
            try:
                proc.start()
                self._send(seat, hello)
                proc.flush()
            except BotFault as err:
                faults[seat] = err
        for seat, proc in enumerate(self.procs):
            if seat in faults:
                continue
            try:
                self._flush_record()
                line = proc.read_ready_line()
                proc.asked(False)  # from now on it has a core's time only when asked (_ask)
                if self.writer is not None:
                    self.writer.msg(self._ms(), seat, "in", line.decode("utf-8", "replace"))
                try:
                    # PROTOCOL.md §9: decline is an answer to the N-seat greeting only.
                    ready = decode_from_bot(line, "ready", allow_decline=self.players > 2)
                except ProtocolError as err:
                    raise BotFault(err.fault, f"bad answer to the greeting: {err.reason}", line) \
                        from None
                if isinstance(ready, m.Decline):
                    declines[seat] = ready.text
                    continue
                self.seats[seat].name = self.bots[seat].name or ready.name
            except BotFault as err:
                faults[seat] = err
        if declines:
            return self._declined(declines, faults)
        if len(faults) == self.players:
            for seat, fault in faults.items():
                self._record("fault", seat=seat, fault=fault.fault, detail=fault.detail,
                             line=_text(fault.line))
            result = MatchResult(self.match_id, None, MatchEnding.NO_CONTEST,
                                 (0,) * self.config.rules.sides, (), self.seats,
                                 detail=("neither bot" if self.players == 2 else "no bot") +
                                 " started: " + "; ".join(
                                     f"seat {s}: {f}" for s, f in sorted(faults.items())),
                                 record_path=self.record_path)
            self._record("result", **_result_fields(result))
            return result
        if faults:
            seat, fault = next(iter(faults.items()))
            return self._forfeit(seat, fault)
        names = tuple(m.wire_name(b.name) for b in self.bots)
        for seat in range(self.players):
            try:
                self._send(seat, from_engine.match_start(self.match_id, self.config.rules, seat,
                                                         names, self.limits.decision_ms))
                if self.limits.clocked:  # only then: a match without either reads as before
                    self._send(seat, m.Clock(self.limits.first_limit_ms, self.limits.bank_ms))
                for rules_line in from_engine.rules_lines(self.config.rules):
                    self._send(seat, rules_line)
                self.procs[seat].flush()
            except BotFault as err:
                return self._forfeit(seat, err)
        return None

    def _play(self) -> None:
        state = self.state
        assert state is not None
        deal_announced = 0
        sent: DealState | None = None  # the deal's state whose events every bot has been sent
        side_of, claim_target = state.rules.side_of, state.rules.claim_target
        while not state.is_over:
            deal = state.deal
            if deal_announced != state.deal_no:
                self._announce_deal(state)
                deal_announced, sent = state.deal_no, None
            self._send_events(deal, sent)
            sent = deal
            seat = deal.to_act
            legal = deal.legal_actions()
            # The mental count is per side (RULES.md §10.3): a window the seat's side could have
            # claimed in.
            if CLAIM in legal and deal.total(side_of[seat]) >= claim_target:
                self._could_claim.add((state.deal_no, deal.trick_no, seat))
            action = self._ask(seat, deal, legal)
            if action is None:  # an illegal action that only costs the deal (forfeit_deal)
                self._record("forfeit_deal", seat=seat, detail="illegal action")
                self._decided_debug(seat)
                before = len(state.results)
                after = state.forfeit(seat, "illegal action", illegal_action=True)
            else:
                if action is CLAIM:
                    self._did_claim.add((state.deal_no, deal.trick_no, seat))
                before = len(state.results)
                after = state.apply_unchecked(action)  # one of ``legal``: _ask checked it
            if after.is_over:
                self._check_caps()
            state = self.state = after
            if len(state.results) > before:
                result = state.results[-1]
                assert result.final is not None  # slimmed only to leave this process
                self._send_events(result.final, sent)
                self._deal_over(result)
                if not state.is_over and result.deal_no >= self.config.max_deals:
                    self._check_caps()
                    state = self.state = state.stop_at_deal_limit()

    def _check_caps(self) -> None:
        """Before the match ends: a cap of its cgroup that a bot ran into and survived (a refused
        fork, a child killed for memory) is its forfeit, however quickly the match went (the
        sandbox's watcher ends such a bot too, but only at its next look: launch.py)."""
        for seat, proc in enumerate(self.procs):
            exceeded = proc.exceeded()
            if exceeded:
                raise _SeatFault(seat, BotFault(Fault.EXIT, f"killed at its cap: {exceeded}"))

    def _announce_deal(self, state: MatchState) -> None:
        if self.writer is not None:
            self._record("deal_start", deal=state.deal_no, dealer=state.dealer,
                         order=[str(c) for c in state.order])
        for seat in range(self.players):
            self._send_line(seat, from_engine.deal_start_line(state, seat))

    def _send_events(self, deal: DealState, sent: DealState | None) -> None:
        """The events of ``deal`` since ``sent``, each as every seat may see it."""
        players, procs, writer = self.players, self.procs, self.writer
        for event in deal.events_after(sent):
            for seat, line in enumerate(from_engine.event_lines(event, players)):
                if line is not None:  # _send_line, inlined: a few lines every decision
                    if writer is not None:
                        writer.msg(self._ms(), seat, "out", line)
                    procs[seat].queue(line)

    def _ask(self, seat: int, deal: DealState, legal: tuple[Action, ...]) -> Action | None:
        """Ask ``seat`` to act; the accepted action, or None for a deal-forfeiting illegal action."""
        proc = self.procs[seat]
        writer = self.writer
        try:
            unread = proc.unread_output()
            if unread:
                raise BotFault(Fault.UNSOLICITED, "wrote output when no request was pending", unread)
            request = from_engine.request_line(deal)
            if writer is not None:  # _send_line and _flush_record, inlined: once a decision
                writer.msg(self._ms(), seat, "out", request)
            proc.queue(request)
            # Its share of a busy core while it decides, the least there is once it has answered:
            # a bot cannot take its opponent's decision time by computing while it waits.
            proc.asked(True)
            proc.flush()
            if writer is not None:
                writer.flush()
            asked = time.monotonic()
            own_s = self._decision_s if self._decided[seat] else self.limits.first_limit_ms / 1000
            bank_s = self._bank_s[seat]
            line = proc.read_line(own_s + bank_s, self._limit_text(seat, own_s, bank_s))
            proc.asked(False)
            elapsed = (time.monotonic() - asked) * 1000
            self._decided[seat] = True
            # Beyond its own limit, a decision draws on the bank. An answer already waiting when
            # the referee looks is on time however late it looks (read_line): the bank then
            # ends at 0, not below.
            self._bank_s[seat] = max(0.0, bank_s - max(0.0, elapsed / 1000 - own_s))
            if writer is not None:
                writer.msg(self._ms(), seat, "in", _text(line) or "")
            try:
                reply = decode_from_bot(line, expect="action")
            except ProtocolError as err:
                raise BotFault(err.fault, err.reason, line) from None
        except BotFault as err:
            raise _SeatFault(seat, err) from None
        action = reply.action
        self.seats[seat].decision_ms.append(elapsed)
        if action not in legal:
            fault = BotFault(Fault.ILLEGAL_ACTION, f"{action} is not among the legal actions "
                             f"({' '.join(str(a) for a in legal)}): "
                             f"{_illegal_reason(deal, action)}", line)
            if self.config.rules.illegal_move_policy == "forfeit_deal":
                self._record("fault", seat=seat, fault=fault.fault, detail=fault.detail,
                             line=_text(line))
                return None
            raise _SeatFault(seat, fault)
        if self.writer is not None:
            self._record("action", deal=self.state.deal_no if self.state else 0, seat=seat,
                         action=str(action), ms=round(elapsed, 3),
                         **({"bank_ms": round(self._bank_s[seat] * 1000, 3)}
                            if self.limits.bank_ms else {}))
            self._decided_debug(seat)
        return action

    def _limit_text(self, seat: int, own_s: float, bank_s: float) -> str:
        """Which limit a timeout of ``seat``'s decision would have run out (PROTOCOL.md §6), for
        its detail; a constant without a bank or a first decision's limit (once a decision)."""
        if not self.limits.clocked:
            return ": the decision limit ran out"
        first = not self._decided[seat] and self.limits.first_decision_ms
        own = "the first decision's limit" if first else "the decision limit"
        if not self.limits.bank_ms:
            return f": {own}{' (first_decision_ms)' if first else ''} ran out"
        return f": {own} of {own_s * 1000:.0f} ms and then the {bank_s * 1000:.0f} ms left of its " \
               "time bank ran out (bank exhausted)"

    # -- the bots' debug lines ---------------------------------------------------------------

    def _decided_debug(self, seat: int) -> None:
        """After a decision's action (or forfeit_deal) line: the stderr ``seat`` wrote since its
        previous answer goes with this decision, and the record's decision count moves on."""
        self._record_debug(seat)
        self._decisions += 1

    def _record_debug(self, seat: int) -> None:
        """A ``debug`` line (records.py) with what ``seat`` wrote to stderr since the last one,
        if anything: ``decision`` is the index of the decision among the record's actions (the
        one being made, or, once the match is over, one past the last)."""
        if self.writer is None:
            return
        taken = self.procs[seat].take_debug()
        if taken is not None:
            lines, dropped = taken
            self._record("debug", seat=seat, decision=self._decisions, lines=lines,
                         dropped=dropped)

    def _deal_over(self, result: DealResult) -> None:
        s = result.settlement
        extra = {} if self.players == 2 else {"awards": list(s.awards)}  # several may score (§10.2)
        if self.writer is not None:
            self._record("deal", deal=result.deal_no, dealer=result.dealer, reason=str(s.reason),
                         winner=s.winner, points=s.game_points, awarded=result.awarded,
                         totals=list(s.totals), tricks=list(s.tricks), claimant=s.claimant,
                         closer=s.closer, score=list(result.game_points_after),
                         pot=result.pot_after, **extra)
        if s.claimant is not None:
            correct = s.reason in (DealEnding.CLAIM, DealEnding.CLAIM_AGAINST_CLOSE) or \
                (s.reason == DealEnding.DRAW)  # a correct claim voided by undeclared_66_voids_claim
            stats = self.seats[s.claimant]
            if correct:
                stats.correct_claims += 1
            else:
                stats.wrong_claims += 1
        rules = self.config.rules
        for seat in range(self.players):
            self._send_line(seat, from_engine.settle_line(result, seat, rules))

    # -- endings ---------------------------------------------------------------------------------

    def _finish(self) -> MatchResult:
        state = self.state
        assert state is not None and state.outcome is not None
        outcome = state.outcome
        result = self._result(outcome.winner, MatchEnding(outcome.reason))
        self._tell_end(result)
        return result

    def _forfeit(self, seat: int, fault: BotFault) -> MatchResult:
        self._offender = seat
        exceeded = self.procs[seat].exceeded()  # a bot slowed or broken at its cap: say which
        if exceeded and exceeded not in fault.detail:
            fault = BotFault(fault.fault, f"{fault.detail}; {exceeded}", fault.line)
        self._record("fault", seat=seat, fault=fault.fault, detail=fault.detail,
                     line=_text(fault.line))
        self._record_debug(seat)  # what it wrote before its fault
        state = self.state
        if state is not None and not state.is_over:
            self.state = state = state.forfeit(seat, f"{fault.fault}: {fault.detail}")
        # The engine's outcome: the other side with two sides (four players: the offender's
        # partnership loses); with three players nobody wins alone (RULES.md §10.4).
        outcome = state.outcome if state is not None else None
        winner = outcome.winner if outcome is not None and outcome.reason == MatchEnd.FORFEIT \
            else _forfeit_winner(self.config.rules, seat)
        result = self._result(winner, MatchEnding.FORFEIT, seat, fault)
        self._tell_end(result)
        return result

    def _result(self, winner: int | None, reason: MatchEnding, offender: int | None = None,
                fault: BotFault | None = None) -> MatchResult:
        state = self.state
        self._count_missed_claims()
        play_ms = (time.monotonic() - self._play_started) * 1000 if self._play_started else 0.0
        result = MatchResult(
            match_id=self.match_id, winner=winner, reason=reason,
            game_points=state.game_points if state else (0,) * self.config.rules.sides,
            deals=state.results if state else (), seats=self.seats, offender=offender,
            fault=fault.fault if fault else None, detail=fault.detail if fault else "",
            line=_text(fault.line) if fault else None, record_path=self.record_path, state=state,
            play_ms=round(play_ms, 3))
        self._record("result", **_result_fields(result))
        return result

    def _tell_end(self, result: MatchResult) -> None:
        state = self.state
        if state is None or state.outcome is None:
            return
        for seat in range(self.players):
            try:
                self._send(seat, from_engine.match_end(state.outcome, seat, result.fault,
                                                       players=self.players))
                self.procs[seat].flush()
            except BotFault:
                pass  # a bot that is gone cannot be told; the result stands

    def _declined(self, declines: dict[int, str], faults: dict[int, BotFault]) -> MatchResult:
        """PROTOCOL.md §9: a bot declined the variant. The match is not played and nobody
        forfeits (a fault of another bot in the same greeting is recorded, not judged: there is no
        match to lose); every process is ended by ``run``."""
        profile = self.config.rules.name
        for seat, text in sorted(declines.items()):
            self._record("decline", seat=seat, text=text)
        for seat, fault in sorted(faults.items()):
            self._record("fault", seat=seat, fault=fault.fault, detail=fault.detail,
                         line=_text(fault.line))
        detail = "; ".join(f"{self.bots[seat].name} does not support {profile}" +
                           (f" ({text})" if text else "") for seat, text in sorted(declines.items()))
        result = MatchResult(self.match_id, None, MatchEnding.DECLINED,
                             (0,) * self.config.rules.sides, (), self.seats, detail=detail,
                             record_path=self.record_path, declined=tuple(sorted(declines)))
        self._record("result", **_result_fields(result))
        return result

    def _count_missed_claims(self) -> None:
        for deal_no, trick_no, seat in self._could_claim - self._did_claim:
            self.seats[seat].missed_claims += 1
        self._could_claim.clear()


class _SeatFault(Exception):
    def __init__(self, seat: int, fault: BotFault):
        super().__init__(str(fault))
        self.seat = seat
        self.fault = fault


def _forfeit_winner(rules: Rules, offender: int) -> int | None:
    """Who wins when ``offender`` forfeits and the engine could not say (no match state)."""
    others = rules.other_sides[rules.side_of[offender]]
    return others[0] if len(others) == 1 else None


def _text(line: bytes | None) -> str | None:
    if line is None:
        return None
    return line[:200].decode("utf-8", "replace") + ("..." if len(line) > 200 else "")


def _illegal_reason(deal: DealState, action: Action) -> str:
    try:
        deal.apply(action)
    except ValueError as err:
        return str(err)
    return "not offered at this decision point"


def _result_fields(result: MatchResult) -> dict[str, object]:
    return {
        "winner": result.winner, "reason": result.reason, "game_points": list(result.game_points),
        "offender": result.offender, "fault": result.fault, "detail": result.detail,
        "line": result.line,
        **({"declined": list(result.declined)} if result.declined else {}),
        "seats": [{"name": s.name, "correct_claims": s.correct_claims, "wrong_claims": s.wrong_claims,
                   "missed_claims": s.missed_claims, **s.timing()} for s in result.seats],
    }


def run_match(bots: Sequence[BotSpec], config: MatchConfig, record_path: Path | None = None,
              log_dir: Path | None = None,
              processes: Mapping[int, BotProcess] | None = None) -> MatchResult:
    """Play one match between ``bots`` (seat 0, 1, ...: as many as the profile's players). Never
    raises for anything a bot does. ``processes``: a seat's process made by the caller instead of
    from its ``BotSpec`` (the conformance check's scripted seats and its watched bot)."""
    return _Match(bots, config, record_path, log_dir, processes).run()
