"""Play a match between in-process bots: for bot authors' tests and benchmarks.

Two, three or four ``Bot`` objects play one match of ``rules``, each through its own ``BotSession``.
Every line a seat receives is built by ``protocol.from_engine`` and written by the codec, exactly
as the referee sends it (PROTOCOL.md), and every answer is decoded as the referee decodes it; only
the processes, the clocks and the sandbox are missing. That keeps it fast: the cost per line is
the encode, the bot's decode and its view update, nothing else.

It is not the referee: a bot that breaks the protocol or answers an illegal action raises here
(``ProtocolError``, ``IllegalActionError``) instead of forfeiting, which is what a test wants.

::

    from protocol.local import play
    result = play(profile("three_player"), [MyBot(), RandomBot(), RandomBot()], seed=7)
    print(result.state.outcome, result.transcripts[0][:5])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from arena.game import Action, Card, Event, MatchState, Rules
from protocol import from_engine
from protocol.codec import decode_from_bot, encode
from protocol.messages import Decline, RefereeMessage
from protocol.sdk import Bot, BotSession
from protocol.view import BotView

RequestHook = Callable[[MatchState, int, BotView], None]
"""Called before each request with the match state, the seat to act and that seat's view."""


@dataclass
class LocalMatch:
    """The end of a local match: the final state and what each seat read and wrote (``> `` lines
    from the referee, ``< `` answers), in seat order."""

    state: MatchState
    transcripts: tuple[list[str], ...] = ()
    declined: dict[int, str] = field(default_factory=dict)
    """Seats that declined the greeting (PROTOCOL.md §9), with their text: then nothing was played."""
    sessions: tuple[BotSession, ...] = ()
    actions: list[Action] = field(default_factory=list)
    """Every action played, in order: with the rules, seed and first dealer, the match's record
    (``arena.game.replay``)."""


def play(rules: Rules, bots: Sequence[Bot], seed: int | str = 0, first_dealer: int = 0,
         match_id: str = "t1", on_request: RequestHook | None = None, *,
         transcripts: bool = True, decision_ms: int = 1000, max_deals: int | None = None,
         orders: Iterable[Sequence[Card]] | None = None) -> LocalMatch:
    """Play a whole match between ``bots`` (seat 0 first). ``transcripts=False`` skips keeping the
    lines (benchmarks); ``max_deals`` stops the match at the deal limit as the arena does (two
    bots that never claim in ``sixty_six`` would otherwise draw for ever); ``orders`` deals the
    given pack orders instead of the seed's (``MatchState.new``)."""
    players = rules.players
    if len(bots) != players:
        raise ValueError(f"{rules.name} is played by {players} bots, not {len(bots)}")
    seats = range(players)
    sessions = tuple(BotSession(bot) for bot in bots)
    logs: tuple[list[str], ...] = tuple([] for _ in seats)
    out = LocalMatch(MatchState.new(rules, seed, first_dealer, orders), logs if transcripts else (),
                     sessions=sessions)

    def send(seat: int, msg: RefereeMessage) -> str | None:
        line = encode(msg)
        reply = sessions[seat].feed(line + "\n")
        if transcripts:
            logs[seat].append("> " + line)
            if reply is not None:
                logs[seat].append("< " + reply)
        return reply

    hello = from_engine.hello(rules)
    for seat in seats:
        answer = decode_from_bot(send(seat, hello) or "", "ready", allow_decline=players != 2)
        if isinstance(answer, Decline):
            out.declined[seat] = answer.text
    if out.declined:
        return out  # PROTOCOL.md §9: the match is not played and nobody forfeits
    names = [bot.name for bot in bots]
    for seat in seats:
        send(seat, from_engine.match_start(match_id, rules, seat, names, decision_ms))
        for line in from_engine.rules_lines(rules):
            send(seat, line)

    state = out.state
    announced, sent = 0, 0
    while not state.is_over:
        if announced != state.deal_no:
            if max_deals is not None and state.deal_no > max_deals:
                state = state.stop_at_deal_limit()
                break
            for seat in seats:
                send(seat, from_engine.deal_start(state, seat))
            announced, sent = state.deal_no, 0
        events = state.deal.events()
        sent = _send_events(send, events, sent, players)
        seat = state.to_act
        if on_request is not None:
            on_request(state, seat, sessions[seat].view)
        reply = send(seat, from_engine.request(state.deal))
        action = decode_from_bot(reply or "", "action").action
        before = len(state.results)
        state = state.apply(action)
        out.actions.append(action)
        if len(state.results) > before:
            result = state.results[-1]
            assert result.final is not None  # in-process results are never slimmed
            _send_events(send, result.final.events(), sent, players)
            for s in seats:
                send(s, from_engine.settle(result, s, rules))
    assert state.outcome is not None
    for seat in seats:
        send(seat, from_engine.match_end(state.outcome, seat, players=players))
        assert sessions[seat].finished
    out.state = state
    return out


def _send_events(send: Callable[[int, RefereeMessage], str | None], events: Sequence[Event], sent: int,
                 players: int) -> int:
    for event in events[sent:]:
        for seat in range(players):
            msg = from_engine.event_message(event, seat, players)
            if msg is not None and send(seat, msg) is not None:
                raise AssertionError(f"seat {seat} answered an event")  # events are never answered
    return len(events)
