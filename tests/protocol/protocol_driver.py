"""An in-process referee for tests: the engine produces what each seat would receive (through
``protocol.from_engine`` and the codec, as text), and two ``BotSession``s answer. No processes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from arena.game import CLAIM, CLOSE, Action, MatchState, Rules
from bots.random_bot import RandomBot
from protocol import Bot, BotSession, BotView, Hello, Ready, decode_from_bot, encode
from protocol import from_engine
from protocol.messages import RefereeMessage

# Called before each request with the match state, the seat to act and that seat's view.
RequestHook = Callable[[MatchState, int, BotView], None]


@dataclass
class InProcessMatch:
    state: MatchState
    transcripts: tuple[list[str], list[str]] = field(default_factory=lambda: ([], []))


def play(rules: Rules, bots: Sequence[Bot], seed: int | str = 0, first_dealer: int = 0,
         match_id: str = "t1", on_request: RequestHook | None = None) -> InProcessMatch:
    """Play a whole match between ``bots`` (seat 0, seat 1); every line goes through the codec."""
    sessions = (BotSession(bots[0]), BotSession(bots[1]))
    out = InProcessMatch(MatchState.new(rules, seed, first_dealer))

    def send(seat: int, msg: RefereeMessage) -> str | None:
        line = encode(msg)
        out.transcripts[seat].append("> " + line)
        reply = sessions[seat].feed(line + "\n")
        if reply is not None:
            out.transcripts[seat].append("< " + reply)
        return reply

    for seat in (0, 1):
        ready = decode_from_bot(send(seat, Hello()) or "", "ready")
        assert isinstance(ready, Ready)
    for seat in (0, 1):
        send(seat, from_engine.match_start(match_id, rules, seat, [b.name for b in bots], 1000))
        for line in from_engine.rules_lines(rules):
            send(seat, line)

    state = out.state
    announced, sent = 0, 0
    while not state.is_over:
        if announced != state.deal_no:
            for seat in (0, 1):
                send(seat, from_engine.deal_start(state, seat))
            announced, sent = state.deal_no, 0
        sent = _send_events(send, state, sent)
        seat = state.to_act
        if on_request is not None:
            on_request(state, seat, sessions[seat].view)
        reply = send(seat, from_engine.request(state.deal))
        action = decode_from_bot(reply or "", "action").action  # type: ignore[union-attr]
        before = len(state.results)
        state = state.apply(action)
        if len(state.results) > before:
            result = state.results[-1]
            events = result.final.events()
            for event in events[sent:]:
                for s in (0, 1):
                    msg = from_engine.event_message(event, s)
                    if msg is not None:
                        send(s, msg)
            for s in (0, 1):
                send(s, from_engine.settle(result, s, rules))
    assert state.outcome is not None
    for seat in (0, 1):
        send(seat, from_engine.match_end(state.outcome, seat))
        assert sessions[seat].finished
    out.state = state
    return out


def _send_events(send: Callable[[int, RefereeMessage], str | None], state: MatchState,
                 sent: int) -> int:
    events = state.deal.events()
    for event in events[sent:]:
        for seat in (0, 1):
            msg = from_engine.event_message(event, seat)
            if msg is not None:
                assert send(seat, msg) is None  # events are never answered
    return len(events)


class PatientRandomBot(RandomBot):
    """Random, but never claims and rarely closes: deals then run to the last trick (and its bonus)
    more often, and the other seat meets more claim windows."""

    name = "patient"

    def decide(self, view: BotView, legal: tuple[Action, ...]) -> Action:
        choices = [a for a in legal
                   if a is not CLAIM and (a is not CLOSE or self.rng.random() < 0.1)]
        return self.rng.choice(choices or legal)
