"""What a seat reads says nothing about the cards it may not see (PROTOCOL.md §9, RULES.md §3).

A match is played through the in-process driver; then the same actions are replayed on the same deal
with two cards swapped that the seat could not see (other hands, the stock, the dead pile). The seat's
lines must stay the same, word for word, up to the first line that shows one of the two cards (or
until the replayed actions stop being legal, because another seat holds different cards now)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.game import Action, Card, MatchState, Rules, profile
from protocol import encode
from protocol import from_engine
from protocol.local import play
from protocol_driver import PatientRandomBot
from bots.random_bot import RandomBot


class Player(RandomBot):
    player_counts = (2, 3, 4)


def seat_lines(rules: Rules, order: tuple[Card, ...], dealer: int, actions: list[Action],
               seat: int) -> list[str]:
    """The lines ``seat`` reads in deal 1 of ``order`` while ``actions`` are played, built the
    referee's way (from_engine + codec); stops at the first action that is not legal."""
    players = rules.players
    state = MatchState.new(rules, 0, dealer, orders=[order] * 2)
    lines = [encode(from_engine.deal_start(state, seat))]
    sent = 0

    def events_since(events: list, sent: int) -> int:  # type: ignore[type-arg]
        for event in events[sent:]:
            msg = from_engine.event_message(event, seat, players)
            if msg is not None:
                lines.append(encode(msg))
        return len(events)

    for action in actions:
        sent = events_since(state.deal.events(), sent)
        if state.to_act == seat:
            lines.append(encode(from_engine.request(state.deal)))
        if action not in state.legal_actions():
            break  # another seat's hand changed: the rest of the deal is another deal
        state = state.apply(action)
        if state.results:
            result = state.results[0]
            assert result.final is not None
            events_since(result.final.events(), sent)
            lines.append(encode(from_engine.settle(result, seat, rules)))
            break
    return lines


def _shows(line: str, cards: set[str]) -> bool:
    return any(word.rpartition(":")[2] in cards for word in line.split(" "))


def first_leak(rules: Rules, order: tuple[Card, ...], dealer: int, actions: list[Action], seat: int,
               i: int, j: int) -> tuple[str, str] | None:
    """Swap ``order[i]`` and ``order[j]`` and replay: the first pair of lines (before, after) that
    differ although neither shows one of the two cards; None if there is none."""
    swapped = list(order)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    original = seat_lines(rules, order, dealer, actions, seat)
    changed = seat_lines(rules, tuple(swapped), dealer, actions, seat)
    cards = {str(order[i]), str(order[j])}
    me = "me" if rules.players == 2 else str(seat)
    for before, after in zip(original, changed):
        shown = [line for line in (before, after) if _shows(line, cards)]
        for line in shown:
            # Another seat's draw shows its card only when it is the face-up card, which is never
            # one of the swapped two: anything else is a leak.
            words = line.split(" ")
            if words[0] == "draw" and words[1] != me:
                return before, after
        if shown:
            return None  # the seat may see them from here on (played, shown, drawn, the dead pile)
        if before != after:
            return before, after
    return None


def hidden_positions(rules: Rules, order: tuple[Card, ...], dealer: int, seat: int) -> list[int]:
    """Where in ``order`` the cards are that ``seat`` cannot see when the deal starts: every card
    but its hand and the up-card (two packs: nor the twins of those)."""
    first = MatchState.new(rules, 0, dealer, orders=[order] * 2).deal
    visible = set(first.hand(seat)) | {first.up_card}
    return [i for i, card in enumerate(order) if card not in visible]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["three_player", "four_player", "sixty_six"]), st.integers(0, 10**6),
       st.data())
def test_hidden_cards_never_reach_a_seats_lines(name: str, seed: int, data: st.DataObject) -> None:
    rules = profile(name)
    players = rules.players
    bots = [(PatientRandomBot if s % 2 else Player)() for s in range(players)]
    match = play(rules, bots, seed=seed, first_dealer=seed % players, match_id=f"h{seed}",
                 max_deals=1)
    result = match.state.results[0]
    order, dealer = result.order, result.dealer
    seat = data.draw(st.integers(0, players - 1), label="seat")

    # The replayer builds exactly the lines the driver sent (deal 1 is the whole match here).
    original = seat_lines(rules, order, dealer, match.actions, seat)
    read = [line[2:] for line in match.transcripts[seat] if line.startswith("> ")]
    start = read.index(original[0])
    assert read[start:start + len(original)] == original and len(original) > 1

    hidden = hidden_positions(rules, order, dealer, seat)
    i, j = data.draw(st.lists(st.sampled_from(hidden), min_size=2, max_size=2, unique=True),
                     label="swap")
    assert first_leak(rules, order, dealer, match.actions, seat, i, j) is None


def test_the_check_finds_a_leak_when_draws_are_not_masked(monkeypatch) -> None:
    # A check that cannot fail proves nothing: without visible_event's masking, other seats' draws
    # show their cards, and the check must report it.
    monkeypatch.setattr(from_engine, "visible_event", lambda event, seat: event)
    rules = profile("three_player")
    rng = random.Random(3)
    leaks = 0
    for seed in range(10):
        match = play(rules, [Player() for _ in range(3)], seed=seed, match_id=f"c{seed}",
                     max_deals=1)
        result = match.state.results[0]
        hidden = hidden_positions(rules, result.order, result.dealer, 0)
        for _ in range(5):
            i, j = rng.sample(hidden, 2)
            leaks += first_leak(rules, result.order, result.dealer, match.actions, 0, i, j) is not None
    assert leaks > 0
