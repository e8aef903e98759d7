"""A match record as a web page people can watch: deal by deal, trick by trick.

``replay_page(record)`` rebuilds the match with the engine from the record (the record's actions
replayed as ``records.replay_record`` does, which checks them first) and writes one static HTML page:
its CSS and script are inline, the match is a JSON block inside it, and it fetches nothing, so it
works from ``file://`` and from any static host (``arena replay FILE --html OUT``, the report's
``replays/`` folder, ``arena publish``).

What the page holds, per deal (``page_data``):

- frames: the deal as dealt, then one per trick, then its end. Each frame has every hand (as held
  before the trick's first card), the up-card and stock size, the trick's cards, who led and who won
  it, and notes for what happened since the previous trick: exchanges, marriages, closes, claims
  with the TRUE totals at that moment (right or wrong), claim windows a side let pass with 66 or
  more (as the referee counts missed claims, ``referee._count_missed_claims``), faults, and at the
  end the settlement. The engine's omniscient totals (RULES.md §7.1) are shown with each frame.
- per seat, what the referee SENT that seat (the record's ``msg`` lines with ``dir`` "out"): the
  lines themselves, cut at the same tricks, and what they told the seat (its hand, the up-card, the
  stock size, every seat's number of cards), folded by the bot SDK's own ``BotView`` so the page
  knows exactly what a bot could know. The page's "as seat K saw it" view renders only that: the
  other hands are never put into the page's DOM, and no total appears before the settle line
  (RULES.md §3, the mental count).
- per seat, what that seat's bot wrote to its stderr (the record's ``debug`` lines), at the frame
  of the decision it wrote them for: in that seat's view and, every seat's, in "everything". A
  published record has none (``public.py``): they are for the bot's author.

Everything that came from a bot (names, decline texts, fault details and offending lines, the lines
it was sent, which quote names, its stderr) is data: the script sets it as text, never as markup, and the JSON
block escapes ``<``, ``>`` and ``&`` so no text can end the block.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Mapping, Sequence

import jinja2
from markupsafe import Markup

from arena import __version__
from arena.game import CLAIM, Action, Card, EventKind, MatchState, Suit
from arena.game.cards import cards_of_mask
from arena.game.dealing import deal_layout
from arena.game.state import DealState
from arena.match.narrate import (
    REASON_TEXT,  # the deal endings in words, as on the terminal
    SUIT_SYMBOLS,
    side_names,
)
from arena.match.records import (
    DEBUG_DECISION_BYTES,
    DEBUG_MATCH_BYTES,
    Record,
    RecordError,
    check_settlements,
    read_record,
)
from arena.report.rules_page import link_citations
from arena.types import DealEnding, MatchEnding
from protocol.codec import ProtocolError, decode_from_referee
from protocol.messages import DealStart, Played, Trick
from protocol.view import BotView

SUIT_LETTERS = {Suit.CLUBS: "C", Suit.SPADES: "S", Suit.HEARTS: "H", Suit.DIAMONDS: "D"}



def _cards(cards: Sequence[Card]) -> str:
    """Cards as the wire writes them, space-separated: the page's compact form."""
    return " ".join(str(c) for c in cards)


def _figures(values: Sequence[int]) -> str:
    return "–".join(str(v) for v in values)


@dataclass
class _Frame:
    kind: str                     # "start", "trick" or "end"
    n: int                        # tricks completed before it (start: 0; trick k: k - 1)
    hands: list[str] = field(default_factory=list)
    up: str | None = None
    stock: int = 0
    stock_state: str = "open"
    lead: int | None = None
    plays: list[tuple[int, str]] = field(default_factory=list)
    won: int | None = None
    notes: list[tuple[str, str]] = field(default_factory=list)   # (class, text)
    totals: list[int] = field(default_factory=list)
    tricks: list[int] = field(default_factory=list)
    snapped: bool = False

    def snap(self, deal: DealState) -> None:
        """The table as it is before this frame's first card: hands, up-card, stock."""
        self.hands = [_cards(deal.hand(s)) for s in range(deal.players)]
        up = deal.up_card
        self.up = str(up) if up is not None and deal.stock_status == "open" else None
        self.stock, self.stock_state = deal.stock_size, deal.stock_status
        self.lead = deal.leader
        self.snapped = True

    def close(self, deal: DealState) -> None:
        sides = deal.rules.sides
        self.totals = [deal.total(side) for side in range(sides)]
        self.tricks = list(deal.settlement.tricks) if deal.settlement is not None else \
            _tricks_of(deal)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"k": self.kind, "n": self.n, "hands": self.hands, "up": self.up,
                               "stock": self.stock, "ss": self.stock_state, "lead": self.lead,
                               "plays": self.plays, "won": self.won, "notes": self.notes,
                               "totals": self.totals, "tricks": self.tricks}
        return {k: v for k, v in out.items() if v not in (None, [], "")}


def _tricks_of(deal: DealState) -> list[int]:
    return [int(t) for t in deal.tricks]


class _DealBuilder:
    """The frames of one deal, built while its actions are replayed."""

    def __init__(self, deal: DealState, deal_no: int, order: Sequence[Card], names: Sequence[str]):
        self.deal_no = deal_no
        self.names = names
        self.rules = deal.rules
        self.dealer = deal.dealer
        self.trump = SUIT_LETTERS[deal.trump_suit]
        start = _Frame("start", 0)
        start.snap(deal)
        start.close(deal)
        self.frames: list[_Frame] = [start]
        self.current = _Frame("trick", 0)
        self.events_seen = 0
        # Claim windows (RULES.md §7.2) in which a side held the target: (trick_no, seat) ->
        # (frame, total); those not ended by a claim are missed (as the referee counts them).
        self.windows: dict[tuple[int, int], tuple[_Frame, int]] = {}
        self.claimed: set[tuple[int, int]] = set()
        # Three players: the cards dealt to nobody (RULES.md §10.2), shown to the seats only by
        # the settle line.
        dead = deal_layout(self.rules, tuple(order)).dead
        self.dead = _cards(cards_of_mask(dead)) if dead else ""

    def before(self, deal: DealState, seat: int, action: Action | None) -> None:
        """Called before each action (``None``: an illegal action that costs the deal)."""
        side = self.rules.side_of[seat]
        window = (deal.trick_no, seat)
        if action is not None and CLAIM in deal.legal_actions():
            total = deal.total(side)
            if total >= self.rules.claim_target and window not in self.windows:
                self.windows[window] = (self.current, total)
        if action is CLAIM:
            self.claimed.add(window)
            totals = [deal.total(s) for s in range(self.rules.sides)]
            right = totals[side] >= self.rules.claim_target
            self.current.notes.append((
                "claim-ok" if right else "claim-wrong",
                f"{self.names[seat]} claims {self.rules.claim_target}: "
                f"{'right' if right else 'WRONG'}, true totals {_figures(totals)}"
                f"{self._sides_hint()}"))
        if action is not None and str(action).startswith("play:") and not self.current.snapped:
            self.current.snap(deal)
        if action is None:
            self.current.notes.append(("fault", f"{self.names[seat]} made an illegal action: "
                                       "it forfeits the deal (illegal_move_policy=forfeit_deal)"))

    def _sides_hint(self) -> str:
        return f" ({' – '.join(side_names(self.names, self.rules.players))})" \
            if self.rules.players > 2 else ""

    def after(self, deal: DealState) -> None:
        """Called after each action with the deal as it now stands (its final state if it ended)."""
        events = deal.events()
        for event in events[self.events_seen:]:
            kind, who = event.kind, (self.names[event.seat] if event.seat >= 0 else "")
            if kind is EventKind.PLAY:
                self.current.plays.append((event.seat, str(event.cards[0])))
            elif kind is EventKind.TRICK:
                self.current.won = event.seat
                self.current.close(deal)
                self.frames.append(self.current)
                self.current = _Frame("trick", len(self.frames) - 1)
            elif kind is EventKind.MARRIAGE:
                assert event.suit is not None
                self.current.notes.append(("marriage", f"{who} shows the "
                                           f"{SUIT_SYMBOLS[event.suit]} marriage ({event.value})"))
            elif kind is EventKind.EXCHANGE:
                self.current.notes.append(("exchange", f"{who} exchanges {event.cards[1]} for the "
                                           f"up-card {event.cards[0]}"))
            elif kind is EventKind.CLOSE:
                totals = [deal.total(s) for s in range(self.rules.sides)]
                self.current.notes.append(("close", f"{who} closes the stock (true totals "
                                           f"{_figures(totals)})"))
        self.events_seen = len(events)

    def finish(self, deal: DealState, result: Any | None, faults: Sequence[dict[str, Any]],
               outcome: str | None) -> dict[str, Any]:
        """The deal's frames and settlement (``result`` None: the match ended inside this deal)."""
        end = self.current
        end.kind = "end"
        if not end.snapped:
            end.snap(deal)
        for (trick_no, seat), (frame, total) in sorted(self.windows.items()):
            if (trick_no, seat) not in self.claimed:
                whose = "its side" if self.rules.players == 4 else "it"
                frame.notes.insert(0, ("missed", f"{self.names[seat]} could claim with {total} "
                                       f"({whose} had reached {self.rules.claim_target}) and did "
                                       f"not: a missed claim window"))
        for fault in faults:
            by = fault.get("seat")
            who = self.names[by] if isinstance(by, int) and 0 <= by < len(self.names) else "a bot"
            line = fault.get("line")
            end.notes.append(("fault", f"fault by {who}: {fault.get('fault', '?')}"
                              + (f" ({fault['detail']})" if fault.get("detail") else "")
                              + (f"; offending line: {line!r}" if line is not None else "")))
        settle = None
        if result is not None:
            s = result.settlement
            sides = side_names(self.names, self.rules.players)
            if s.winner is not None:
                carried = result.awarded - s.game_points
                who = f"{sides[s.winner]} +{result.awarded}" + \
                    (f" (with {carried} carried)" if carried > 0 else "")
            elif s.scorers:
                who = ", ".join(f"{sides[side]} +{s.awards[side]}" for side in s.scorers)
            else:
                who = f"no score, pot now {result.pot_after}"
            by = f" by {self.names[s.claimant]}" if s.claimant is not None else ""
            settle = (f"{REASON_TEXT.get(s.reason, str(s.reason))}{by}: {who}; totals "
                      f"{_figures(s.totals)}, tricks {_figures(s.tricks)}{self._sides_hint()}; "
                      f"match {_figures(result.game_points_after)}")
            end.notes.append(("settle-" + ("wrong" if s.reason in (
                DealEnding.WRONG_CLAIM, DealEnding.CLOSE_FAILED, DealEnding.FORFEIT) else "ok"),
                settle))
        if outcome:
            end.notes.append(("outcome", outcome))
        end.close(deal)
        self.frames.append(end)
        out: dict[str, Any] = {"no": self.deal_no, "dealer": self.dealer, "trump": self.trump,
                               "frames": [f.as_json() for f in self.frames]}
        if self.dead:
            out["dead"] = self.dead
        if settle:
            out["settle"] = settle
        return out


def _outcome_text(record: Record, state: MatchState, names: Sequence[str]) -> str:
    sides = side_names(names, len(names))
    outcome = record.result or {}
    reason = outcome.get("reason")
    points = _figures(outcome.get("game_points") or state.game_points)
    if reason == MatchEnding.FORFEIT:
        winner = outcome.get("winner") if "winner" in outcome else 1 - outcome.get("offender", 0)
        offender = outcome.get("offender")
        by = names[offender] if isinstance(offender, int) and 0 <= offender < len(names) else "?"
        who = "nobody wins" if winner is None else f"{sides[winner]} wins"
        return (f"{who}: {by} forfeits ({outcome.get('fault', '?')}: "
                f"{outcome.get('detail', '')}); game points {points}")
    if reason == MatchEnding.DECLINED:
        return f"not played: {outcome.get('detail', '')}"
    if reason == MatchEnding.NO_CONTEST:
        return f"no contest: {outcome.get('detail', '')}"
    if state.outcome is not None:
        o = state.outcome
        if o.winner is None:
            return f"nobody wins: game points {points}"
        double = " (a shut-out, counts double)" if o.value == 2 else ""
        how = "at the deal limit" if reason == MatchEnding.DEAL_LIMIT else ""
        return f"{sides[o.winner]} wins the match {how} {points}{double}".replace("  ", " ")
    if reason == MatchEnding.DEAL_LIMIT:
        winner = outcome.get("winner")
        who = "nobody wins" if winner is None else f"{sides[winner]} wins"
        return f"the deal limit ended the match: {who}, game points {points}"
    return "the record ends before the match did"


def _seat_views(record: Record, deal_frames: list[int]) -> list[list[list[dict[str, Any]]]]:
    """For each seat, per deal, per frame: what the referee sent that seat (the record's "out"
    lines, cut where the public frames are cut: a ``deal`` line closes the start frame, each
    ``trick`` line closes its trick's frame, the rest belongs to the deal's end) and what those
    lines told it, folded by the SDK's ``BotView``: its hand before the frame's first card, the
    up-card, the stock size and every seat's number of cards."""
    players = len(record.header["bots"])
    out: list[list[list[dict[str, Any]]]] = []
    for seat in range(players):
        view = BotView()
        deals: list[list[dict[str, Any]]] = [[{"lines": []} for _ in range(count)]
                                             for count in deal_frames]
        deal_index, frame = 0, 0
        snapped = False
        slot: dict[str, Any] | None = None

        def snap() -> dict[str, Any]:
            sizes = list(view.hand_sizes)
            if players == 2 and seat == 1:  # two players: (mine, theirs), as seats 1 and 0
                sizes.reverse()
            return {"hand": _cards(view.hand), "up": str(view.upcard) if view.upcard else None,
                    "stock": view.stock_size, "sizes": sizes}

        for item in record.messages:
            if item.get("seat") != seat or item.get("dir") != "out":
                continue
            line = str(item.get("line", "")).rstrip("\n")
            msg = None
            # Requests (most of the lines) tell the view nothing it keeps between frames.
            if not line.split(" ", 1)[0].endswith("?"):
                try:
                    msg = decode_from_referee(line)
                except ProtocolError:
                    pass
            if isinstance(msg, DealStart):
                if slot is not None and not snapped:
                    slot.update(snap())  # the previous deal's end: what the seat then held
                deal_index, frame, snapped = msg.deal_no - 1, 0, False
            if not 0 <= deal_index < len(deals):
                continue  # lines of a deal the record does not play (none, in a sound record)
            frames = deals[deal_index]
            slot = frames[min(frame, len(frames) - 1)]
            if isinstance(msg, Played) and not snapped:
                slot.update(snap())
                snapped = True
            slot["lines"].append(line)
            if msg is not None:
                try:
                    view.update(msg)
                except (ValueError, KeyError, AssertionError):
                    pass  # the view is a courtesy; the lines themselves are what was sent
            if isinstance(msg, DealStart) or isinstance(msg, Trick):
                if not snapped:
                    slot.update(snap())
                frame, snapped = frame + 1, False
        if slot is not None and not snapped:
            slot.update(snap())
        for frames in deals:  # (a frame no line reached: none, in a sound record)
            for slot in frames:
                slot.setdefault("hand", None)
        out.append(deals)
    return out


def page_data(record: Record) -> dict[str, Any]:
    """Everything the replay page shows, as JSON-ready data; ``RecordError`` if the record does not
    replay."""
    rules = record.rules
    names = [str(n) for n in record.names]
    if len(names) != rules.players:
        raise RecordError(f"{len(names)} bots for a profile of {rules.players} players")
    orders = [tuple(Card.parse(c) for c in d["order"]) for d in record.deal_starts]
    # As records.replay_record: the deal after the last recorded one is never played.
    state = MatchState.new(rules, record.header.get("seed", 0), record.header["first_dealer"],
                           orders=[*orders, rules.pack.cards])
    deals: list[dict[str, Any]] = []
    played = bool(record.deal_starts or record.actions)
    builder = _DealBuilder(state.deal, 1, state.order, names) if played else None
    # The record's actions replayed as records.replay_record does (and checked as it checks
    # them), each step shown to the frames being built.
    outcome = ""
    # Where each action is shown: (deal, frame), the frame its builder is building at the time.
    places: list[tuple[int, int]] = []
    for item in record.actions:
        if state.is_over or builder is None:
            raise RecordError("record has actions after the end of the match")
        places.append((len(deals), len(builder.frames)))
        seat = int(item["seat"])
        deal = state.deal
        if item["type"] != "forfeit_deal" and state.to_act != seat:
            raise RecordError(f"action {item['action']} by seat {seat} out of turn")
        if item["type"] == "forfeit_deal":
            builder.before(deal, seat, None)
            after = state.forfeit(seat, item.get("detail", ""), illegal_action=True)
        else:
            action = Action.parse(item["action"])
            builder.before(deal, seat, action)
            after = state.apply(action)
        if len(after.results) > len(state.results):
            result = after.results[-1]
            assert result.final is not None
            builder.after(result.final)
            last = after.is_over and after.outcome is not None
            if last and not record.faults:
                outcome = _outcome_text(record, after, names)
            deals.append(builder.finish(result.final, result, [],
                                        outcome if last and not record.faults else None))
            builder = None if after.is_over else _DealBuilder(after.deal, after.deal_no, after.order, names)
        else:
            builder.after(after.deal)
        state = after
    check_settlements(record, state)  # every deal settled as the record says
    if not outcome:
        outcome = _outcome_text(record, state, names)
    started = {d.get("deal") for d in record.deal_starts}
    if builder is not None and builder.deal_no not in started and len(started) == len(deals):
        builder = None  # the engine's next deal, never dealt: the match ended between deals
    if builder is not None:
        # The match ended inside this deal (a fault, the deal limit) or the record stops here.
        deals.append(builder.finish(state.deal, None, record.faults, outcome))
    elif deals and record.faults:
        deals[-1]["frames"][-1].setdefault("notes", []).extend(
            [["fault", f"fault: {f.get('fault')}"] for f in record.faults])
    counts = [len(d["frames"]) for d in deals]
    seen = _seat_views(record, counts)
    for index, deal_out in enumerate(deals):
        deal_out["seen"] = [seen[seat][index] for seat in range(len(names))]
    unplaced = _place_debug(record, deals, places)
    return {
        "format": 1,
        "match": str(record.header.get("match_id", "")),
        "profile": str(record.header.get("rules", {}).get("name", "")),
        "players": rules.players,
        "names": names,
        "sides": list(side_names(names, rules.players)),
        "target": rules.claim_target,
        "match_target": rules.match_target,
        "outcome": outcome,
        "declines": [{"seat": d.get("seat"), "text": str(d.get("text", ""))}
                     for d in record.declines],
        "faults": [{"seat": f.get("seat"), "fault": str(f.get("fault", "")),
                    "detail": str(f.get("detail", "")), "line": f.get("line")}
                   for f in record.faults],
        "deals": deals,
        **({"debug": unplaced} if unplaced else {}),
        "debug_caps": [DEBUG_DECISION_BYTES, DEBUG_MATCH_BYTES],
    }


def _place_debug(record: Record, deals: list[dict[str, Any]],
                 places: Sequence[tuple[int, int]]) -> list[dict[str, Any]]:
    """Each of the record's ``debug`` lines into the seat's view of the frame its decision is
    shown in (``seen[seat][frame]["debug"]``, a list of {"at", "lines", "dropped"}); a decision
    past the last action (a fault, what came after the last answer) goes to the last frame.
    Returns those with no frame to go to (a match that dealt nothing), each with its seat."""
    unplaced: list[dict[str, Any]] = []
    players = len(record.header["bots"])
    offender = (record.result or {}).get("offender")
    for item in record.debug:
        seat, decision = item.get("seat"), item.get("decision")
        lines = item.get("lines")
        if not isinstance(seat, int) or not 0 <= seat < players or not isinstance(decision, int) \
                or not isinstance(lines, list):
            continue  # not as the referee writes them: left out, as the page leaves out nothing else
        dropped = item.get("dropped")
        if decision < len(record.actions):
            action = record.actions[decision]
            at = f"before it answered {action['action']}" if action["type"] == "action" else \
                "before its illegal action"
        else:
            at = "before its fault" if seat == offender else "after its last answer"
        entry = {"at": at, "lines": [str(line) for line in lines],
                 "dropped": dropped if isinstance(dropped, int) else 0}
        if 0 <= decision < len(places):
            deal_index, frame = places[decision]
        elif deals:
            deal_index, frame = len(deals) - 1, len(deals[-1]["frames"]) - 1
        else:
            unplaced.append({"seat": seat, **entry})
            continue
        slots = deals[deal_index]["seen"][seat]
        slots[min(frame, len(slots) - 1)].setdefault("debug", []).append(entry)
    return unplaced


@functools.cache
def _asset(name: str) -> str:
    return (resources.files("arena.report") / "static" / name).read_text(encoding="utf-8")


@functools.cache
def renderer_version() -> str:
    """Changes whenever what the page looks like may change: the arena's version and the page's
    own script, style and template (a report keeps a replay page only while this is the same)."""
    digest = hashlib.sha256(__version__.encode())
    for name in ("replay.js", "replay.css"):
        digest.update(_asset(name).encode())
    digest.update((resources.files("arena.report") / "templates" / "replay.html.j2").read_bytes())
    return digest.hexdigest()[:16]


def _json_for_script(data: Any) -> str:
    """JSON that is safe inside ``<script type="application/json">``: no ``<``, ``>`` or ``&``
    survives as itself, so no text from a bot can close the block or open a comment."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e") \
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


# Jinja2 escapes the title and the link; the style, the script and the JSON block go in as they
# are (``Markup``): the first two are the arena's own files, the third is made safe for a script
# element by ``_json_for_script``.
_ENV = jinja2.Environment(loader=jinja2.PackageLoader("arena.report", "templates"),
                          autoescape=True, undefined=jinja2.StrictUndefined)


def render_page(data: dict[str, Any], back: str | None = None, source: str = "",
                rules: str | None = None, record: str | None = None) -> str:
    """The page for ``page_data``'s data; ``back`` is a link to show above it (the report's
    index), relative to the page; ``source`` what it was made from (``write_replays``);
    ``rules`` the report's rules page relative to the page (``rules_page.py``), which the
    page's citations of the rules link to (none: they stay text); ``record`` a link to the
    match's record (a ``.jsonl`` file, or the archive holding it)."""
    return _ENV.get_template("replay.html.j2").render(
        title=f"{' vs '.join(data['sides']) or 'match'}: {data['match']}",
        version=__version__, back=back, source=source, rules=rules,
        cite=lambda text: link_citations(text, rules), record=record,
        archived=bool(record) and not str(record).endswith(".jsonl"),
        css=Markup(_asset("replay.css")), js=Markup(_asset("replay.js")),
        data=Markup(_json_for_script(data)))


def replay_page(record: Record, back: str | None = None, source: str = "",
                rules: str | None = None, link: str | None = None) -> str:
    """The replay page of ``record``; ``RecordError`` if it does not replay. ``source`` is a key
    the page carries in its head to say what it was made from (``write_replays``); ``rules`` as
    for ``render_page``."""
    try:
        data = page_data(record)
    except (KeyError, TypeError, ValueError, IndexError) as err:
        if isinstance(err, RecordError):
            raise
        raise RecordError(f"record does not replay: {type(err).__name__}: {err}") from err
    return render_page(data, back, source, rules, link)


def write_replay_page(record: Record, out: Path, back: str | None = None) -> None:
    """Write ``record``'s page to ``out``. The page is built first, so a record that does not
    replay writes nothing; then written beside ``out`` and renamed, so a browser or a web server
    never sees half a page."""
    text = replay_page(record, back)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{out.name}.partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, out)


# -- the report's replay pages ------------------------------------------------------------------

REPLAYS_DIR = "replays"
_SOURCE_META = '<meta name="sixtysix-replay" content="{}">'  # as replay.html.j2 writes it


def replay_name(record: str) -> str:
    """Where a stored record's page goes, relative to the report folder: ``records/ID.jsonl`` (as
    tournaments store them) becomes ``replays/ID.html``. ``record`` is a path ``publishable_record``
    accepted (relative, no ``..``)."""
    inner = record.removeprefix("records/")
    return f"{REPLAYS_DIR}/{inner.removesuffix('.jsonl')}.html"


def source_key(text: bytes, rules: str | None = None) -> str:
    """What a page was made from: the record's bytes, the page's own code and whether it links a
    rules page. A page holding the same key needs no rewrite."""
    linked = b"" if rules is None else b"\0rules"
    return hashlib.sha256(renderer_version().encode() + b"\0" + text + linked).hexdigest()[:32]


def _holds(page: Path, key: str) -> bool:
    try:
        with open(page, "rb") as fh:
            head = fh.read(1024)
    except OSError:
        return False
    return _SOURCE_META.format(key).encode() in head


def write_replays(sources: Sequence[tuple[str, Path]], out: Path,
                  previous: Path | None = None, rules: str | None = None,
                  links: Mapping[str, str] | None = None) -> dict[str, str]:
    """Write the replay page of each ``(stored record path, file to read it from)`` under
    ``out/replays/``; returns {stored record path: page path relative to ``out``} for the pages
    that exist afterwards. Incremental: a page already in ``out`` (or in ``previous``, an earlier
    publish, copied over) that was made from the same record bytes by the same page code is kept
    as it is, so a report rewritten while a tournament or a league runs renders only new matches.
    A record that is missing, a symbolic link, or does not replay gets no page (and no link).
    ``rules``: the rules page relative to ``out`` (``rules_page.write_rules_page``), or None.
    ``links``: {stored record path: the file of ``out`` that holds it} (a packed build:
    report/archive.py); each page then links that file, its record or the archive holding it."""
    pages: dict[str, str] = {}
    for stored, source in sources:
        if source.is_symlink():  # the arena writes records as files; a link may lead anywhere
            continue
        try:
            raw = source.read_bytes()
        except OSError:
            continue
        name = replay_name(stored)
        target = out / name
        up = "../" * name.count("/")
        record = None if links is None or stored not in links else up + links[stored]
        # Where the record is (loose, later in an archive) is part of what the page was made of.
        key = source_key(raw if record is None else raw + b"\0" + record.encode(), rules)
        if not _holds(target, key):
            old = previous / name if previous is not None else None
            if old is not None and _holds(old, key):
                target.parent.mkdir(parents=True, exist_ok=True)
                try:  # a page is never changed in place: the earlier publish's file will do
                    os.link(old, target)
                except OSError:
                    shutil.copyfile(old, target)
            else:
                try:
                    text = replay_page(read_record(source), back=up + "index.html",
                                       source=key, rules=None if rules is None else up + rules,
                                       link=record)
                except RecordError:
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                partial = target.with_name(f".{target.name}.partial")
                partial.write_text(text, encoding="utf-8")
                os.replace(partial, target)
        pages[stored] = name
    return pages
