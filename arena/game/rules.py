"""Rules profiles: every disputed point of RULES.md §11 as a named flag.

A profile is a frozen ``Rules`` object. The named profiles are ``sixty_six`` (the default),
``schnapsen`` (§9), ``vu_compat`` (§13), ``three_player`` (§10.2) and ``four_player`` (§10.3).
Seats and sides are data derived from ``players`` (``side_of``, ``next_seat``, ...), so the engine
has one code path for 2, 3 and 4 seats. Any flag can be overridden from a mapping or a TOML file;
an unknown flag or a bad value is a ``RulesError`` that names the flag and the allowed values.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import TYPE_CHECKING, Any, Mapping

from arena.game.cards import PACKS, Pack

if TYPE_CHECKING:
    from pathlib import Path

CLAIM_TARGET = 66
"""Card points a two-player claim needs (RULES.md §7.3)."""


class RulesError(ValueError):
    """A rules profile or override is not valid."""


class DealPattern(StrEnum):
    THREE_THREE = "3_3"
    THREE_UP_TWO = "3_up_2"
    VU_ALTERNATE = "vu_alternate"
    THREE_FOUR = "3_4"  # RULES.md §10.4: 3 then 4 to each of 3 or 4 players, left of the dealer first


class ExchangeWho(StrEnum):
    LEADER_OR_FOLLOWER = "leader_or_follower"
    LEADER_ONLY = "leader_only"
    BETWEEN_TRICKS = "between_tricks"


class MarriageCredit(StrEnum):
    ONCE_ANY_TRICK = "once_any_trick"
    NEXT_TRICK_AFTER_MELD = "next_trick_after_meld"


class MarriageLeadCard(StrEnum):
    KING_OR_QUEEN = "king_or_queen"
    KING_ONLY = "king_only"


class CloserTierBasis(StrEnum):
    FINAL = "final"
    AT_CLOSE = "at_close"


class CloseFailThreeIf(StrEnum):
    OPP_NO_TRICK_AT_CLOSE = "opp_no_trick_at_close"
    CLOSER_NO_TRICK_AT_CLOSE = "closer_no_trick_at_close"
    NEVER = "never"
    ALWAYS = "always"


class OpponentOutAfterClose(StrEnum):
    AS_CLOSE_FAIL = "as_close_fail"
    TWO = "two"


class Phase2Follow(StrEnum):
    STRICT = "strict"
    FOLLOW_ONLY = "follow_only"


class ClaimMode(StrEnum):
    EXPLICIT = "explicit"
    AUTO_AFTER_TRICK = "auto_after_trick"


class ClaimWindow(StrEnum):
    AFTER_TRICK_OR_MELD = "after_trick_or_meld"
    ON_LEAD_ANY_TIME = "on_lead_any_time"


class WrongClaimAward(StrEnum):
    TWO_OR_THREE = "two_or_three"
    TWO = "two"
    MIRROR = "mirror"


class SchwarzTest(StrEnum):
    NO_TRICKS = "no_tricks"
    ZERO_POINTS = "zero_points"


class EndWithoutClaim(StrEnum):
    DRAW_CARRY = "draw_carry"
    HIGHER_TOTAL = "higher_total"
    LAST_TRICK_WINS_1 = "last_trick_wins_1"


class NextDealer(StrEnum):
    ALTERNATE = "alternate"
    WINNER_DEALS = "winner_deals"
    LOSER_DEALS = "loser_deals"


class DealerAfterDraw(StrEnum):
    ALTERNATE = "alternate"
    SAME_DEALER = "same_dealer"


class IllegalMovePolicy(StrEnum):
    FORFEIT_MATCH = "forfeit_match"
    FORFEIT_DEAL = "forfeit_deal"


def _flag(row: int, doc: str, choices: tuple[Any, ...] | None = None, lo: int | None = None,
          hi: int | None = None, section: str | None = None) -> dict[str, Any]:
    """Field metadata: the RULES.md §11 row, a one-line meaning, the allowed values, and the section
    of RULES.md that defines the flag (``§11.<row>`` unless it is named elsewhere)."""
    return {"row": row, "doc": doc, "choices": choices, "lo": lo, "hi": hi,
            "section": section or f"§11.{row}"}


@dataclass(frozen=True)
class Rules:
    """The flags of RULES.md §11 (rows 1-35) and §10. Defaults are the ``sixty_six`` profile."""

    name: str = field(default="sixty_six", metadata=_flag(0, "profile this was built from"))
    deck_size: int = field(default=24, metadata=_flag(1, "cards in the pack", choices=(20, 24, 32, 48)))
    hand_size: int = field(default=6, metadata=_flag(2, "cards in each hand", choices=(5, 6, 7)))
    deal_pattern: DealPattern = field(default=DealPattern.THREE_THREE,
                                      metadata=_flag(3, "batches of the deal (§2.4)"))
    exchange_who: ExchangeWho = field(default=ExchangeWho.LEADER_OR_FOLLOWER,
                                      metadata=_flag(4, "who may exchange the lowest trump (§5.3)"))
    exchange_requires_trick: bool = field(default=True,
                                          metadata=_flag(5, "an exchange needs a trick won this deal"))
    exchange_min_stock: int = field(default=2, metadata=_flag(6, "least stock size for an exchange",
                                                               choices=(2, 4)))
    exchange_on_opponent_close: bool = field(
        default=True, metadata=_flag(7, "the closer's opponent may exchange at the close"))
    marriage_requires_prior_trick: bool = field(
        default=False, metadata=_flag(8, "a marriage needs a trick already won"))
    marriage_credit: MarriageCredit = field(default=MarriageCredit.ONCE_ANY_TRICK,
                                            metadata=_flag(9, "when marriage points count"))
    marriage_in_phase2: bool = field(default=False,
                                     metadata=_flag(10, "marriages after the stock is closed or gone"))
    marriage_on_closing_lead: bool = field(
        default=True, metadata=_flag(11, "a marriage on the lead at which the leader closes"))
    marriage_lead_card: MarriageLeadCard = field(default=MarriageLeadCard.KING_OR_QUEEN,
                                                 metadata=_flag(12, "which card a marriage leads"))
    claim_after_meld: bool = field(default=True, metadata=_flag(13, "claim right after a marriage"))
    close_enabled: bool = field(default=True, metadata=_flag(14, "closing the stock exists"))
    close_before_draw: bool = field(default=True,
                                    metadata=_flag(16, "close after winning a trick, before the draw"))
    close_min_stock: int = field(default=2, metadata=_flag(17, "least stock size for a close after "
                                                                "the draw", choices=(2, 4)))
    close_pre_draw_min_stock: int = field(default=4, metadata=_flag(
        17, "least stock size for a close before the draw", choices=(2, 4)))
    close_before_first_trick: bool = field(default=True,
                                           metadata=_flag(18, "the non-dealer may close before trick 1"))
    closer_tier_basis: CloserTierBasis = field(default=CloserTierBasis.FINAL,
                                               metadata=_flag(19, "figures a closer's 1/2/3 is read from"))
    close_fail_three_if: CloseFailThreeIf = field(default=CloseFailThreeIf.OPP_NO_TRICK_AT_CLOSE,
                                                  metadata=_flag(20, "when a failed close costs 3"))
    opponent_out_after_close: OpponentOutAfterClose = field(
        default=OpponentOutAfterClose.AS_CLOSE_FAIL,
        metadata=_flag(21, "award when the closer's opponent claims first, correctly"))
    phase2_follow: Phase2Follow = field(default=Phase2Follow.STRICT,
                                        metadata=_flag(22, "follow rule once the stock is gone (§6)"))
    claim_mode: ClaimMode = field(default=ClaimMode.EXPLICIT, metadata=_flag(23, "how claims happen"))
    claim_window: ClaimWindow = field(default=ClaimWindow.AFTER_TRICK_OR_MELD,
                                      metadata=_flag(24, "when a claim may be made (§7.2)"))
    wrong_claim_award: WrongClaimAward = field(default=WrongClaimAward.TWO_OR_THREE,
                                               metadata=_flag(25, "award for a wrong claim (§7.3)"))
    schwarz_test: SchwarzTest = field(default=SchwarzTest.NO_TRICKS,
                                      metadata=_flag(26, "what makes the loser schwarz"))
    schneider_below: int = field(default=33, metadata=_flag(27, "loser below this is schneider",
                                                             lo=1, hi=66))
    last_trick_bonus: int = field(default=10, metadata=_flag(28, "points for the last trick when the "
                                                                  "stock was exhausted", choices=(0, 10)))
    end_without_claim: EndWithoutClaim = field(default=EndWithoutClaim.DRAW_CARRY,
                                               metadata=_flag(29, "a deal played out without a claim"))
    undeclared_66_voids_claim: bool = field(
        default=False, metadata=_flag(30, "a correct claim against an undeclared 66 is a draw"))
    draw_carry_points: int = field(default=1, metadata=_flag(31, "game points a draw carries",
                                                              choices=(0, 1)))
    draw_carry_accumulates: bool = field(default=True, metadata=_flag(31, "consecutive draws add up"))
    match_target: int = field(default=7, metadata=_flag(32, "game points that win the match",
                                                         lo=1, hi=1000))
    shutout_double: bool = field(default=False, metadata=_flag(32, "a 7-0 match counts double (§8)"))
    next_dealer: NextDealer = field(default=NextDealer.ALTERNATE,
                                    metadata=_flag(33, "who deals the next deal"))
    dealer_after_draw: DealerAfterDraw = field(default=DealerAfterDraw.ALTERNATE,
                                               metadata=_flag(33, "who deals after a drawn deal"))
    illegal_move_policy: IllegalMovePolicy = field(default=IllegalMovePolicy.FORFEIT_MATCH,
                                                   metadata=_flag(34, "what an illegal action costs"))
    # RULES.md §10: the three- and four-player variants. Row 35 is §11's; the other two are the
    # names §10.4 introduces (§11 has no row for them).
    players: int = field(default=2, metadata=_flag(35, "seats at the table (§10)", choices=(2, 3, 4)))
    claim_target: int = field(default=CLAIM_TARGET, metadata=_flag(
        35, "card points a side needs to claim (§10.3: 101 with four players)", choices=(66, 101),
        section="§10.4"))
    must_beat_partner: bool = field(default=True, metadata=_flag(
        35, "phase 2: beat the winning card even when it is the partner's (§10.4)", section="§10.4"))

    def __post_init__(self) -> None:
        problems = _consistency_problems(self)
        if problems:
            raise RulesError(f"rules profile {self.name!r}: " + "; ".join(problems))

    # -- derived facts, computed once -----------------------------------------------------------

    @property
    def pack(self) -> Pack:
        return PACKS[self.deck_size]

    @property
    def stock_size(self) -> int:
        """Cards in the stock at the start of a deal, the up-card included."""
        return self.deck_size - self.players * self.hand_size - self.dead_size

    @cached_property
    def dead_size(self) -> int:
        """Cards laid aside face down after the deal so that the stock divides by the number of
        players (RULES.md §10.2: 2 with three players and 32 cards); they count for nobody."""
        return (self.deck_size - self.players * self.hand_size) % self.players

    # Seats and sides as tables (RULES.md §10.4): seats 0..n-1 clockwise; with four players seats 0+2
    # and 1+3 are partners. Every per-player figure of a deal except the hands is kept per side.

    @cached_property
    def sides(self) -> int:
        return 2 if self.players == 4 else self.players

    @cached_property
    def side_of(self) -> tuple[int, ...]:
        return tuple(seat % self.sides for seat in range(self.players))

    @cached_property
    def next_seat(self) -> tuple[int, ...]:
        """The seat that plays after each seat (clockwise)."""
        return tuple((seat + 1) % self.players for seat in range(self.players))

    @cached_property
    def draw_orders(self) -> tuple[tuple[int, ...], ...]:
        """Who draws after a trick won by each seat: the winner first, then clockwise (§5.2, §10)."""
        n = self.players
        return tuple(tuple((w + k) % n for k in range(n)) for w in range(n))

    @cached_property
    def other_sides(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(o for o in range(self.sides) if o != s) for s in range(self.sides))

    def partner(self, seat: int) -> int | None:
        """The partner of ``seat`` (four players), else None."""
        return (seat + 2) % 4 if self.players == 4 else None

    # -- building -------------------------------------------------------------------------------

    def with_overrides(self, overrides: Mapping[str, Any]) -> Rules:
        """A copy with some flags changed. Values may be given as text (from TOML or a command line)."""
        changes = {name: _coerce_flag(name, value) for name, value in overrides.items()}
        return dataclasses.replace(self, **changes)

    def flags(self) -> dict[str, Any]:
        """Every flag with its value, in RULES.md §11 order."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "name"}

    def to_dict(self, *, compact: bool = False) -> dict[str, Any]:
        """Plain values (str/int/bool), for records, TOML and the protocol's rules line.

        ``compact``: a two-player profile leaves out the §10 flags while they hold their defaults,
        so that the protocol's rules line of a two-player match stays byte for byte what it was
        before those flags existed (issue 15); ``from_dict`` restores the defaults."""
        out: dict[str, Any] = {"name": self.name}
        for key, value in self.flags().items():
            if compact and self.players == 2 and key in N_PLAYER_FLAGS and value == N_PLAYER_FLAGS[key]:
                continue
            out[key] = str(value) if isinstance(value, StrEnum) else value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Rebuild from ``to_dict()`` output (or any mapping with an optional ``name``/``profile``)."""
        data = dict(data)
        base = data.pop("profile", None) or data.pop("name", "sixty_six")
        data.pop("name", None)
        return profile(str(base)).with_overrides(data)

FLAG_FIELDS = {f.name: f for f in dataclasses.fields(Rules) if f.name != "name"}
N_PLAYER_FLAGS = {name: FLAG_FIELDS[name].default for name in ("players", "claim_target",
                                                                "must_beat_partner")}
"""The flags RULES.md §10 adds, with their two-player defaults."""


def allowed_values(name: str) -> str:
    """The allowed values of a flag, as text for error messages and ``arena rules show``."""
    f = FLAG_FIELDS[name]
    meta = f.metadata
    if meta["choices"]:
        return " | ".join(str(c) for c in meta["choices"])
    if isinstance(f.default, StrEnum):
        return " | ".join(str(v) for v in type(f.default))
    if isinstance(f.default, bool):
        return "true | false"
    return f"a whole number from {meta['lo']} to {meta['hi']}"


def flag_section(name: str) -> str:
    """The section of RULES.md that defines a flag, as ``arena rules show`` labels it: ``§11.<row>``
    for the rows of the §11 table; ``§10.4`` for ``claim_target`` and ``must_beat_partner``, which
    §10.4 introduces (§11 row 35 is ``players`` alone)."""
    return str(FLAG_FIELDS[name].metadata["section"])


def _coerce_flag(name: str, value: Any) -> Any:
    if name not in FLAG_FIELDS:
        close = [n for n in FLAG_FIELDS if n.split("_")[0] == name.split("_")[0]]
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise RulesError(f"unknown rules flag {name!r}{hint}; known flags: {', '.join(FLAG_FIELDS)}")
    f = FLAG_FIELDS[name]
    default = f.default
    bad = RulesError(f"bad value {value!r} for rules flag {name!r}: allowed {allowed_values(name)}")
    if isinstance(default, StrEnum):
        try:
            return type(default)(str(value))
        except ValueError:
            raise bad from None
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        raise bad
    if isinstance(default, int):
        if isinstance(value, bool):
            raise bad
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise bad from None
        if str(number) != str(value).strip():
            raise bad
        meta = f.metadata
        if meta["choices"] and number not in meta["choices"]:
            raise bad
        if meta["lo"] is not None and not meta["lo"] <= number <= meta["hi"]:
            raise bad
        return number
    raise AssertionError(f"flag {name} has no coercion")  # pragma: no cover - a new flag type


_PATTERN_HAND = {DealPattern.THREE_THREE: 6, DealPattern.THREE_UP_TWO: 5, DealPattern.THREE_FOUR: 7}


def _consistency_problems(rules: Rules) -> list[str]:
    """Flag combinations that cannot describe a deal."""
    problems = []
    n = rules.players
    if rules.deck_size == 48 and n != 4:
        problems.append("deck_size 48 (two packs) belongs to the four-player variant of RULES.md §10.3; "
                        f"{n} players use 20, 24 or 32")
    expected = _PATTERN_HAND.get(rules.deal_pattern)
    if expected is not None and rules.hand_size != expected:
        problems.append(f"deal_pattern {rules.deal_pattern} deals {expected} cards each, "
                        f"but hand_size is {rules.hand_size}")
    if (rules.deal_pattern is DealPattern.THREE_FOUR) != (n > 2):
        problems.append(f"{n} players need deal_pattern {'3_4' if n > 2 else '3_3, 3_up_2 or vu_alternate'}"
                        f" (RULES.md §10.4), not {rules.deal_pattern}")
    if rules.stock_size < n:
        problems.append(f"hand_size {rules.hand_size} leaves no stock for {n} players in a "
                        f"{rules.deck_size}-card pack")
    if n > 2:
        # §10.2-§10.3 define no closing and a leader-only exchange; the two-player-only flags below
        # name "the opponent", who does not exist with more than two players.
        if rules.close_enabled:
            problems.append(f"{n} players have no closing (RULES.md §10): set close_enabled = false")
        if rules.exchange_who is not ExchangeWho.LEADER_ONLY:
            problems.append(f"{n} players exchange as leader only (RULES.md §10.4): "
                            "set exchange_who = leader_only")
        if rules.next_dealer is not NextDealer.ALTERNATE:
            problems.append(f"{n} players pass the deal clockwise (RULES.md §10.4): "
                            "set next_dealer = alternate")
    return problems


PROFILES: dict[str, Rules] = {
    "sixty_six": Rules(),
    # RULES.md §9.
    "schnapsen": Rules(
        name="schnapsen", deck_size=20, hand_size=5, deal_pattern=DealPattern.THREE_UP_TWO,
        exchange_who=ExchangeWho.LEADER_ONLY, exchange_requires_trick=False,
        exchange_on_opponent_close=False, marriage_in_phase2=True, close_before_draw=False,
        closer_tier_basis=CloserTierBasis.AT_CLOSE, last_trick_bonus=0,
        end_without_claim=EndWithoutClaim.LAST_TRICK_WINS_1,
    ),
    # RULES.md §13: replays deals of the VU Amsterdam `schnapsen` package. A single deal is a match
    # to 1 game point (VU has no draws, so the first deal always decides it).
    "vu_compat": Rules(
        name="vu_compat", deck_size=20, hand_size=5, deal_pattern=DealPattern.VU_ALTERNATE,
        exchange_who=ExchangeWho.LEADER_ONLY, exchange_requires_trick=False, exchange_min_stock=2,
        exchange_on_opponent_close=False, close_enabled=False, marriage_in_phase2=True,
        marriage_lead_card=MarriageLeadCard.KING_ONLY,
        marriage_credit=MarriageCredit.NEXT_TRICK_AFTER_MELD, claim_after_meld=False,
        claim_mode=ClaimMode.AUTO_AFTER_TRICK, last_trick_bonus=0,
        end_without_claim=EndWithoutClaim.LAST_TRICK_WINS_1, schwarz_test=SchwarzTest.ZERO_POINTS,
        match_target=1,
    ),
    # RULES.md §10.2 and §10.4: 32 cards, 7 each, a 2-card dead pile, a 9-card stock, no closing.
    "three_player": Rules(
        name="three_player", players=3, deck_size=32, hand_size=7, deal_pattern=DealPattern.THREE_FOUR,
        close_enabled=False, exchange_who=ExchangeWho.LEADER_ONLY, exchange_on_opponent_close=False,
        end_without_claim=EndWithoutClaim.HIGHER_TOTAL, wrong_claim_award=WrongClaimAward.TWO,
    ),
    # RULES.md §10.3 and §10.4: partners 0+2 against 1+3, two 24-card packs, 7 each, a 20-card stock,
    # target 101; "2 if the other side's total x 2 < 101" is schneider below 51.
    "four_player": Rules(
        name="four_player", players=4, deck_size=48, hand_size=7, deal_pattern=DealPattern.THREE_FOUR,
        close_enabled=False, exchange_who=ExchangeWho.LEADER_ONLY, exchange_on_opponent_close=False,
        end_without_claim=EndWithoutClaim.HIGHER_TOTAL, wrong_claim_award=WrongClaimAward.TWO,
        must_beat_partner=True, claim_target=101, schneider_below=51,
    ),
}


def profile(name: str) -> Rules:
    """A named profile."""
    try:
        return PROFILES[name]
    except KeyError:
        raise RulesError(f"unknown rules profile {name!r}; known profiles: "
                         f"{', '.join(PROFILES)}") from None


def load_rules(name: str = "sixty_six", toml_path: str | Path | None = None,
               overrides: Mapping[str, Any] | None = None) -> Rules:
    """A profile, then the flags of a TOML file, then explicit overrides (later ones win).

    The TOML file holds flags at its top level (or under a ``[rules]`` table), and may name its base
    profile with ``profile = "schnapsen"``, which then replaces ``name``.
    """
    data: dict[str, Any] = {}
    if toml_path is not None:
        # Here, not at the top: every bot process imports this module at its start, few read TOML.
        import tomllib
        from pathlib import Path

        path = Path(toml_path)
        try:
            with path.open("rb") as fh:
                data = tomllib.load(fh)
        except OSError as err:
            raise RulesError(f"cannot read rules file {path}: {err.strerror}") from err
        except tomllib.TOMLDecodeError as err:
            raise RulesError(f"rules file {path} is not valid TOML: {err}") from err
        except UnicodeDecodeError:  # tomllib decodes the whole file first (a binary file, say)
            raise RulesError(f"rules file {path} is not a text file (not UTF-8): give a TOML "
                             "file of flags") from None
        if "rules" in data and isinstance(data["rules"], dict):
            data = {**{k: v for k, v in data.items() if k != "rules"}, **data["rules"]}
        name = str(data.pop("profile", name))
    rules = profile(name)
    if data:
        rules = rules.with_overrides(data)
    if overrides:
        rules = rules.with_overrides(overrides)
    return rules
