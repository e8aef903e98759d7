"""The scripted situations of the conformance check (``conformance.py``): crafted deals and the
seats the check plays itself.

Each situation is one short match: the checked bot in one seat, every other seat a ``Scripted``
player (an SDK bot run in-process, ``conformance.ScriptedSeat``), the first deal's pack order
chosen so that the situation arises whatever the checked bot decides. What cannot be forced (the
bot's own exchanges, marriages and closes) is offered, and whatever the bot answers is judged.

How a claim window is made to come, the two tools:

- **Ducking and feeding.** A scripted player that follows throws the card worth most among those
  that do not win the trick. In the first phase nothing obliges it to follow suit (RULES.md §5.2),
  so the bot, leading first, wins trick after trick whatever it plays, and its count climbs by the
  aces and tens thrown on it. In ``four_player`` the hands make this sure: the side's count reaches
  101 in the first phase in every line of play. In ``feed``, ``schnapsen`` and ``three_player``
  some lines of play still miss it (a bot that closes early, or spends its cheapest cards until
  an opponent holds a trump), and most reach the target.
- **The follow rules after a close** (RULES.md §6): in ``close_last_trick`` the opponent closes at
  once and holds only jacks and nines of the suits where the bot holds ace and ten. The bot must
  follow suit and win every trick; each trick is worth 10 to 13, all six 69: its count is below 66
  after five tricks in any order and 69 after the sixth, so its only correct claim is at the
  ``after_trick?`` that follows the last trick.

``Situation.forced_claim`` names the window where it is sure; ``tests/arena/test_check.py``
searches every line of play of those with the engine alone and finds the window in each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from arena.game import (CLAIM, CLOSE, EXCHANGE, PASS, Action, ActionKind, Card, Rules, Suit,
                        profile, shuffled_order)
from arena.game.cards import beats
from arena.game.rules import DealPattern
from protocol import Bot, BotView

# The scripted players' names on the wire (PROTOCOL.md §3: 1-64 of A-Z a-z 0-9 _ . + -).
SCRIPTED_NAME = "checker"


@dataclass(frozen=True)
class Policy:
    """How a scripted seat plays. It never claims, closes, exchanges or marries unless told to;
    it follows by ducking and feeding (see the module's text) and leads its cheapest card, or its
    highest trump with ``lead_trump`` (the trump ace: a trick it surely wins)."""

    close: bool = False           # close the stock at its first chance
    exchange: bool = False        # exchange whenever offered
    marry: bool = False           # show a marriage whenever offered once its side has a trick
                                  # (the marriage then counts at once: RULES.md §5.4)
    claim_after_marriage: bool = False  # claim right after showing one (a wrong claim: the
                                        # situation keeps its count low)
    lead_trump: bool = False      # lead its highest trump
    fault_at_request: int = 0     # answer its n-th request (1-based) with a line that is no action

    def bot(self) -> Scripted:
        return Scripted(self)


class Scripted(Bot):
    """A seat the check plays itself (see ``Policy``). An SDK bot: it reads the same lines as the
    checked bot, through the same codec."""

    name = SCRIPTED_NAME
    player_counts = (2, 3, 4)

    def __init__(self, policy: Policy):
        self.policy = policy

    def decide(self, view: BotView, legal: tuple[Action, ...]) -> Action:
        assert view.trump is not None and view.decision is not None
        return scripted_action(self.policy, view.decision, legal, view.trump,
                               [card for _, card in view.table],
                               any(m.who == view.me for m in view.marriages),
                               view.tricks_won[_side_index(view)] > 0)


def _side_index(view: BotView) -> int:
    """The index of the seat's side in ``tricks_won``: (mine, theirs) with two players."""
    return 0 if view.players == 2 else int(view.my_side)


def scripted_action(policy: Policy, decision: str, legal: tuple[Action, ...], trump: Suit,
                    table: list[Card], married: bool, won_trick: bool) -> Action:
    """What a scripted seat answers: from the request, the trump, the cards of the trick so far,
    whether it has shown a marriage this deal and whether its side has won a trick. A function of
    what the seat sees, so that the tests can also search every line of play with the engine
    alone."""
    if policy.claim_after_marriage and CLAIM in legal and married and decision == "lead":
        return CLAIM
    if policy.exchange and EXCHANGE in legal:
        return EXCHANGE
    if policy.close and CLOSE in legal:
        return CLOSE
    if policy.marry and won_trick:
        for action in legal:
            if action.kind is ActionKind.MARRY:
                return action
    cards = [a.card for a in legal if a.card is not None]
    if not cards:
        return PASS if PASS in legal else next(a for a in legal if a is not CLAIM)
    if decision == "lead" or not table:
        return Action.play(_lead(cards, trump, policy.lead_trump))
    return Action.play(_duck_and_feed(cards, trump, table))


def _lead(cards: list[Card], trump: Suit, trump_first: bool) -> Card:
    trumps = [c for c in cards if c.suit is trump]
    if trump_first and trumps:
        return min(trumps, key=lambda c: int(c.rank))  # the lowest rank index is the highest
    return min(cards, key=lambda c: (c.points, c.suit is trump, -int(c.rank)))


def _duck_and_feed(cards: list[Card], trump: Suit, table: list[Card]) -> Card:
    """The card worth most that does not win the trick; the cheapest when every card wins."""
    best = table[0]
    for card in table[1:]:
        if beats(card.index, best.index, int(trump)):
            best = card
    losing = [c for c in cards if not beats(c.index, best.index, int(trump))]
    if losing:
        return max(losing, key=lambda c: (c.points, -int(c.rank), c.suit is not trump))
    return min(cards, key=lambda c: (c.points, -int(c.rank)))


@dataclass(frozen=True)
class Situation:
    """One scripted match. ``seat`` is the checked bot's; every other seat plays ``others``."""

    name: str
    title: str                    # what it sets up, in a line
    rules: Rules
    seat: int
    dealer: int
    first_deal: tuple[Card, ...]  # the pack order of deal 1
    others: Mapping[int, Policy]
    sections: tuple[str, ...]     # the PROTOCOL.md sections it exercises
    max_deals: int = 1            # then the match ends at the deal limit (PROTOCOL.md §4.4)
    unknown_lines: bool = False   # add lines the bot must ignore (PROTOCOL.md §1, §8)
    # Flags changed from the named profile: the bot may refuse them by exiting (PROTOCOL.md §3).
    overridden: bool = False
    forced_claim: str = ""        # the claim window it forces, in words ("" when none)

    @property
    def profile(self) -> str:
        return self.rules.name

    def orders(self) -> tuple[tuple[Card, ...], ...]:
        """One pack order per deal the match may reach: the crafted first, then shuffled ones, and
        one more, which the engine deals as the last deal ends (the referee stops the match at the
        deal limit before it is played)."""
        later = tuple(shuffled_order(self.rules, f"check/{self.name}", n)
                      for n in range(2, self.max_deals + 2))
        return (self.first_deal, *later)


def arrange(rules: Rules, dealer: int, hands: Mapping[int, str], up: str, stock: str = "",
            dead: str = "") -> tuple[Card, ...]:
    """The pack order that deals ``hands`` (seat -> cards) with ``dealer`` dealing, ``up`` face up,
    ``stock`` the first cards drawn (the rest of the pack follows in pack order) and ``dead`` the
    dead pile of three players: the inverse of ``dealing.deal_layout`` (RULES.md §2.4, §10.4)."""
    def parse(text: str) -> list[Card]:
        return [Card.parse(word) for word in text.split()]

    n, h = rules.players, rules.hand_size
    by_hand = [parse(hands[(dealer + 1 + k) % n]) for k in range(n)]  # clockwise from the dealer's left
    chosen = [c for hand in by_hand for c in hand] + parse(up) + parse(stock) + parse(dead)
    rest = list(rules.pack.cards)
    for card in chosen:
        rest.remove(card)  # ValueError: a card given more often than the pack holds it
    dead_cards = parse(dead) + [rest.pop(0) for _ in range(rules.dead_size - len(parse(dead)))]
    hidden = parse(stock) + rest
    [up_card] = parse(up)
    if any(len(hand) != h for hand in by_hand):
        raise ValueError(f"every hand needs {h} cards")
    pattern = rules.deal_pattern
    if pattern is DealPattern.THREE_THREE:
        nd, dl = by_hand
        order = nd[:3] + dl[:3] + nd[3:] + dl[3:] + [up_card] + hidden
    elif pattern is DealPattern.THREE_UP_TWO:
        nd, dl = by_hand
        order = nd[:3] + dl[:3] + [up_card] + nd[3:] + dl[3:] + hidden
    elif pattern is DealPattern.VU_ALTERNATE:
        nd, dl = by_hand
        order = [c for pair in zip(nd, dl) for c in pair] + hidden + [up_card]
    else:
        order = [c for hand in by_hand for c in hand[:3]] + \
            [c for hand in by_hand for c in hand[3:]] + dead_cards + [up_card] + hidden
    return tuple(order)


# -- the situations ----------------------------------------------------------------------------------

_FEED = Policy()
_CLOSER = Policy(close=True)
_SHOWS_OFF = Policy(exchange=True, marry=True, claim_after_marriage=True, lead_trump=True)
_TRUMP_LEAD = Policy(lead_trump=True)


def _two_player() -> list[Situation]:
    sixty_six = profile("sixty_six")
    one_deal = sixty_six.with_overrides({"match_target": 1})
    # The bot leads first (the non-dealer, RULES.md §2.5) with the trump nine and the trump
    # marriage. It holds and draws clubs and trumps only (and 9H), the opponent spades and hearts
    # only: whatever the bot leads, even after closing, the opponent can throw an ace or a ten on
    # it, and the bot wins every trick until the opponent draws the up-card.
    feed = arrange(sixty_six, dealer=0, hands={1: "9D KD QD AC TC 9C", 0: "AS AH TS TH KS KH"},
                   up="AD", stock="KC QS QC QH JC JS TD JH JD 9S 9H")
    out = [
        Situation(
            "feed", "sixty_six: the bot leads; it is offered the exchange, the trump marriage and "
            "the close, and the aces and tens thrown on its tricks take its count to 66 in most "
            "lines of play", sixty_six, seat=1, dealer=0, first_deal=feed, others={0: _FEED},
            sections=("§3", "§4", "§4.1", "§4.2", "§4.3", "§4.4")),
        Situation(
            "unknown_lines", "sixty_six: the deal of 'feed', with lines of an unknown first word "
            "among the referee's, which the bot must ignore", sixty_six, seat=1, dealer=0,
            first_deal=feed, others={0: _FEED}, sections=("§1", "§8"), unknown_lines=True),
        Situation(
            "close_last_trick", "sixty_six: the opponent closes at once; the follow rules make "
            "the bot win every trick, and its count reaches 66 only with the last one",
            one_deal, seat=0, dealer=0,
            first_deal=arrange(one_deal, dealer=0, hands={0: "AC TC AS TS AH TH",
                                                           1: "JC 9C JS 9S JH 9H"}, up="AD"),
            others={1: _CLOSER}, sections=("§4.1", "§4.2", "§4.3", "§4.4"),
            forced_claim="the after_trick? after the last trick (69 points; at most 59 before)"),
        Situation(
            "opponent_wrong_claim", "sixty_six: the opponent wins a trick with the trump ace, "
            "exchanges, shows a marriage and claims below 66", one_deal, seat=1, dealer=1,
            first_deal=arrange(one_deal, dealer=1, hands={0: "AD 9D KS QS 9C JH",
                                                           1: "AC TC KC QH JS 9H"}, up="TD"),
            others={0: _SHOWS_OFF}, sections=("§4.2", "§4.3", "§4.4")),
        Situation(
            "between_tricks", "sixty_six with exchange_who=between_tricks: the opponent wins the "
            "first trick, and the bot, holding the trump nine, is asked between_tricks?",
            sixty_six.with_overrides({"exchange_who": "between_tricks",
                                      "exchange_requires_trick": False}),
            seat=0, dealer=0,
            first_deal=arrange(sixty_six, dealer=0, hands={0: "9D QC JC 9S JH 9H",
                                                            1: "AD KD AS TS AH TH"}, up="TD"),
            others={1: _TRUMP_LEAD}, sections=("§3", "§4.1"), overridden=True),
        Situation(
            "opponent_fault", "sixty_six: the opponent answers its first request with a line "
            "that is no action; the bot is told it won by forfeit", sixty_six, seat=0, dealer=1,
            first_deal=feed, others={1: Policy(fault_at_request=1)}, sections=("§4.4", "§5")),
    ]
    schnapsen = profile("schnapsen")
    out.append(Situation(
        "schnapsen", "schnapsen: the bot leads holding the trump jack and two marriages (it may "
        "exchange without a trick); aces and tens are thrown on its tricks", schnapsen,
        seat=1, dealer=0,
        first_deal=arrange(schnapsen, dealer=0, hands={1: "JD KD QD KC QC", 0: "AS TS AH TH TC"},
                           up="AD"),
        others={0: _FEED}, sections=("§3", "§4.1", "§4.2")))
    vu = profile("vu_compat")
    out.append(Situation(
        "vu_compat", "vu_compat: claims are automatic (claim_mode=auto_after_trick): no claim is "
        "ever offered, and the referee ends the deal when the bot reaches 66", vu, seat=0,
        dealer=1,
        first_deal=arrange(vu, dealer=1, hands={0: "JD KD QD KC QC", 1: "AS TS AH TH TC"},
                           up="AD"),
        others={1: _FEED}, sections=("§4.1", "§4.2")))
    return out


def _three_player() -> list[Situation]:
    rules = profile("three_player")
    return [
        Situation(
            "three_player", "three_player: the bot leads with the trump seven and the trump "
            "marriage; the two others throw aces and tens on its tricks", rules, seat=2, dealer=1,
            first_deal=arrange(rules, dealer=1, hands={2: "7D KD QD 9C 8C 9S 8S",
                                                       0: "AC TC AS 7C 7S JH 9H",
                                                       1: "TS AH TH JC JS 8H 7H"},
                               up="AD", dead="KC KS"),
            others={0: _FEED, 1: _FEED}, sections=("§9.1", "§9.2", "§9.3", "§9.4", "§9.5")),
        Situation(
            "three_player_wrong_claim", "three_player: another seat wins with the trump ace, "
            "exchanges, shows a marriage and claims below 66 (each other seat scores)", rules,
            seat=0, dealer=0,
            first_deal=arrange(rules, dealer=0, hands={1: "AD 7D KS QS 9C 8C 7H",
                                                       2: "AC TC KC QC JH 9H 8H",
                                                       0: "TS JS 9S 8S AH TH KH"},
                               up="TD"),
            others={1: _SHOWS_OFF, 2: _FEED}, sections=("§9.3", "§9.4", "§9.5")),
    ]


def _four_player() -> list[Situation]:
    rules = profile("four_player")
    return [
        Situation(
            "four_player", "four_player (two packs): the bot leads holding both trump kings and "
            "queens and a trump nine; partner and opponents throw aces and tens on its tricks",
            rules, seat=3, dealer=2,
            first_deal=arrange(rules, dealer=2, hands={3: "9D KD KD QD QD 9C 9S",
                                                       0: "AC AC TC TC JS 9H JH",
                                                       1: "AS AS TS TS JC 9C JH",
                                                       2: "AH AH TH TH JC JS 9H"},
                               up="AD"),
            others={0: _FEED, 1: _FEED, 2: _FEED},
            sections=("§9.1", "§9.2", "§9.3", "§9.4", "§9.5"),
            forced_claim="a window of the first phase (its side's count reaches 101 whatever it "
                         "plays)"),
        Situation(
            "four_player_wrong_claim", "four_player: an opponent wins with the trump ace, "
            "exchanges, shows a marriage and claims below 101 (the bot's side scores)", rules,
            seat=1, dealer=3,
            first_deal=arrange(rules, dealer=3, hands={0: "AD 9D KS QS 9C JC 9H",
                                                       1: "AC TC KC QC JH 9H JS",
                                                       2: "AS TS AH TH KH QH 9S",
                                                       3: "AC TC AS TS AH TH JD"},
                               up="TD"),
            others={0: _SHOWS_OFF, 2: _FEED, 3: _FEED}, sections=("§9.3", "§9.4", "§9.5")),
    ]


def situations(profiles: tuple[str, ...] | None = None) -> list[Situation]:
    """Every situation, or those of ``profiles`` (a situation whose rules override a profile's
    flags counts as that profile's)."""
    every = _two_player() + _three_player() + _four_player()
    if profiles is None:
        return every
    return [s for s in every if s.profile in profiles]


__all__ = ["SCRIPTED_NAME", "Policy", "Scripted", "Situation", "arrange", "scripted_action",
           "situations"]
