"""The four games as data (RULES.md §2–6).

A :class:`Variant` is a frozen value listing every parameter of a game.  The classifier, the
move generator, the game state machine and the scorer read it; nothing in the rules branches
on a variant's name.  Every "choice" of RULES.md is a field marked ``choice``: a room may
override it with :meth:`Variant.override`, which validates the mapping and names the first
bad field.

>>> variant("ddz3").players
3
>>> variant("zhengshangyou1").override({"aaa_bomb_highest": True}).aaa_bomb_highest
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from functools import cached_property
from typing import Any, Final, NamedTuple

from .cards import (
    ACE,
    BLACK_JOKER,
    BLACK_JOKER_CARD,
    FOUR,
    NUM_RANKS,
    RED_JOKER,
    RED_JOKER_CARD,
    SUITED_RANKS,
    THREE,
    TWO,
)
from .errors import Reason, RulesError
from .kinds import SHAPED_KINDS, SHAPES, Kind, Wings

#: The rules version stored with every game; bumped whenever any rule, the shuffle or the
#: auto-play policy changes, so an old game is always replayed by the rules it was played by.
#: Version 2: a Zheng Shangyou room's stake multiplies its scores, escapes included (RULES.md
#: §5.3); version 1 ignored it.  Nothing else differs.
RULES_VERSION: Final = 2
#: Every version this engine plays (a game keeps the version it started with).
RULES_VERSIONS: Final = (1, 2)

#: The largest factor a room may give one bomb, rocket, spring, anti-spring, shown hand or
#: escape step.  Known rule sets use ×2 to ×4; the bound keeps each factor small enough to
#: name when it is wrong — whether a room's factors *together* fit is checked by the room
#: (``room.py``: every score within ``MAX_SCORE``).
MAX_FACTOR: Final = 1_000
#: Deals in a row with no bid before a Dou Dizhu game is disbanded: each redeal is a whole
#: round of bids, so the bound keeps every game finite even when every seat always passes.
MAX_DEALS: Final = 100

#: The range of every whole-number field a room may override.
INT_LIMITS: Final[dict[str, tuple[int, int]]] = {
    "min_straight": (2, SUITED_RANKS),  # and at most the ranks a chain may use: check_playable
    "min_triple_chain": (2, SUITED_RANKS),
    "max_plane": (0, SUITED_RANKS),  # 0: no limit but the hand
    "forced_bid_bombs": (0, SUITED_RANKS),  # 0: every hand is forced to bid when nobody has
    "max_deals": (1, MAX_DEALS),
    "show_hand_factor": (0, MAX_FACTOR),  # 0: the landlord may not show his hand
    "rocket_factor": (1, MAX_FACTOR),
    "spring_factor": (1, MAX_FACTOR),
    "anti_spring_factor": (1, MAX_FACTOR),
    "escape_base": (1, MAX_FACTOR),
    "escape_card_factor": (1, MAX_FACTOR),
}


#: Per-pattern-key tables shared between variants (see Variant.pattern_key); bounded like the
#: rooms' variant cache, since rooms may override pattern fields.
_READINGS_MEMOS: dict[tuple[Any, ...], Any] = {}
MAX_SHARED_TABLES: Final = 256


def _shared(table: dict[tuple[Any, ...], Any], key: tuple[Any, ...], build: Any) -> Any:
    found = table.get(key)
    if found is None:
        if len(table) >= MAX_SHARED_TABLES:
            table.clear()
        found = table[key] = build()
    return found


#: Fields that were variant fields once and live elsewhere now (named when a caller uses them).
_ELSEWHERE: Final = {
    name: " (a table setting of the room, not a rule: Room / TableSettings)"
    for name in ("start_timeout_s", "bid_timeout_s", "turn_timeout_s", "disconnect_grace_s")
}


class VariantError(RulesError):
    """An unknown variant name, or a bad room override; ``field`` names the culprit."""

    reason = Reason.INVALID_OVERRIDE

    def __init__(self, message: str, field: str = "") -> None:
        self.field = field
        super().__init__(message)


class Run(NamedTuple):
    """A run of consecutive ranks a chain may use, with its comparison order."""

    ranks: tuple[int, ...]  # rank indices, in the order read (low to high)
    top: int  # the key rank: the top of the run in the order it is read in
    low: bool  # read in the low order A 2 3 … K (zhengshangyou2 only)
    order: int  # comparison value: low-order runs rank below every high-order run


def _choice(default: Any) -> Any:
    return dataclasses.field(default=default, metadata={"choice": True})


@dataclasses.dataclass(frozen=True)
class Variant:
    # --- what the game is (fixed) ---
    name: str
    family: str  # "doudizhu" or "zhengshangyou": which scoring and which running total
    players: int
    decks: int
    jokers: bool  # two jokers per deck, or none
    hand_size: int
    bottom_size: int
    bottom_public: bool  # bottom cards shown to every seat, or to the landlord only
    bidding: bool
    opener: str  # "landlord", or "spade_three" (the first ♠3 dealt opens)
    landlord_share: int  # the landlord wins or loses this many times each farmer's score
    min_pair_chain: int
    bomb_min: int
    bomb_max: int
    # --- choices a room may switch (RULES.md "choice") ---
    patterns: frozenset[Kind] = _choice(frozenset())
    chain_wraps_ace_two: bool = _choice(False)  # RULES.md §3.2: A and 2 at either end
    low_runs_may_end_at_three: bool = _choice(True)  # §3.2: 2233 and 222333 read low
    min_straight: int = _choice(5)
    min_triple_chain: int = _choice(2)
    max_plane: int = _choice(0)  # longest plane with wings; 0 = no limit but the hand
    aaa_bomb: bool = _choice(False)  # zsy1: three aces alone are a bomb
    aaa_bomb_highest: bool = _choice(False)  # …ranked above every other bomb, not below
    first_lead_holds_spade_three: bool = _choice(False)
    bid_three_ends_bidding: bool = _choice(True)
    forced_bid: bool = _choice(False)  # ddz4: 4 jokers or 3 bombs must bid when nobody has
    forced_bid_bombs: int = _choice(3)
    max_deals: int = _choice(3)  # deals in a row with no bid before the game is disbanded
    rotate_first_bidder: bool = _choice(False)
    show_hand_factor: int = _choice(0)  # 0: the landlord may not show his hand
    bomb_factors: tuple[tuple[int, int], ...] = _choice(((4, 2),))  # (bomb size, factor)
    rocket_factor: int = _choice(2)
    led_bombs_count: bool = _choice(True)  # ddz4: a bomb that was led counts ×1
    spring_factor: int = _choice(2)
    anti_spring_factor: int = _choice(2)
    escape_base: int = _choice(3)  # Dou Dizhu: penalty = stake × bid × base × m
    escape_card_factor: int = _choice(4)  # Zheng Shangyou: penalty = cards left × factor
    # Timers are not rules: a room's table settings (room.TableSettings) hold them.

    # ---------------------------------------------------------------- derived tables
    @cached_property
    def copies(self) -> tuple[int, ...]:
        """How many cards of each rank index the whole deck holds."""
        jokers = self.decks if self.jokers else 0
        return (*(4 * self.decks for _ in range(SUITED_RANKS)), jokers, jokers)

    @cached_property
    def deck(self) -> tuple[int, ...]:
        """Every card id in the game, sorted (two copies of each in a two-deck game)."""
        ids = [i for i in range(BLACK_JOKER_CARD) for _ in range(self.decks)]
        if self.jokers:
            ids += [BLACK_JOKER_CARD] * self.decks + [RED_JOKER_CARD] * self.decks
        return tuple(sorted(ids))

    @cached_property
    def rocket_counts(self) -> tuple[int, ...] | None:
        """The rank counts of a rocket (every joker of the game), or None without jokers."""
        if not self.jokers:
            return None
        return tuple([0] * SUITED_RANKS + [self.decks, self.decks])

    @cached_property
    def runs(self) -> tuple[tuple[Run, ...], ...]:
        """``runs[n]``: every run of n ranks a chain may use, lowest first."""
        high = list(range(THREE, (TWO if self.chain_wraps_ace_two else ACE) + 1))
        by_len: list[list[Run]] = [[] for _ in range(len(high) + 1)]
        for length in range(2, len(high) + 1):
            if self.chain_wraps_ace_two:
                # Low order A 2 3 … K: a run holding 2 and 3 that is not all 13 ranks.
                low_seq = [ACE, TWO, *range(THREE, ACE)]
                for start in (0, 1):
                    seq = low_seq[start : start + length]
                    reaches = THREE in seq and (FOUR in seq or self.low_runs_may_end_at_three)
                    if len(seq) == length and reaches and length < SUITED_RANKS:
                        order = start + length - 1 - SUITED_RANKS  # below every high run
                        by_len[length].append(Run(tuple(seq), seq[-1], True, order))
            for start in range(len(high) - length + 1):
                seq = high[start : start + length]
                by_len[length].append(Run(tuple(seq), seq[-1], False, seq[-1]))
        return tuple(tuple(r) for r in by_len)

    @cached_property
    def run_of(self) -> dict[tuple[int, ...], Run]:
        """The run of a sorted tuple of distinct rank indices, for the chains this game allows."""
        return {tuple(sorted(run.ranks)): run for runs in self.runs for run in runs}

    @cached_property
    def shapes_by_size(self) -> tuple[tuple[tuple[Kind, int], ...], ...]:
        """``shapes_by_size[n]``: the (kind, body length) pairs a play of n cards may be,
        among the shaped kinds this game allows (bombs and rockets are read apart)."""
        longest = len(self.deck)  # seed examples may be longer than any hand
        table: list[list[tuple[Kind, int]]] = [[] for _ in range(longest + 1)]
        for kind in SHAPED_KINDS:
            if kind not in self.patterns:
                continue
            unit, chain, wings, wing_count = SHAPES[kind]
            per_rank = unit + wing_count * (2 if wings is Wings.PAIRS else 1)
            if not chain:
                lengths = [1]
            else:
                minimum = self.min_chain(kind)
                maximum = len(self.runs) - 1
                if wings is not Wings.NONE and self.max_plane:
                    maximum = min(maximum, self.max_plane)
                lengths = list(range(minimum, maximum + 1))
            for k in lengths:
                if per_rank * k <= longest:
                    table[per_rank * k].append((kind, k))
        return tuple(tuple(t) for t in table)

    def min_chain(self, kind: Kind) -> int:
        """The fewest ranks a chain of this kind may have."""
        unit = SHAPES[kind].unit
        if unit == 1:
            return self.min_straight
        if unit == 2:
            return self.min_pair_chain
        return self.min_triple_chain

    @cached_property
    def pattern_key(self) -> tuple[Any, ...]:
        """The fields that decide what is a pattern and how patterns compare.  Variants that
        agree on them (rooms that change only factors, say) share the classifier's memo and
        the generator's tables, so overriding a scoring value never rebuilds them."""
        return (
            self.decks, self.jokers, self.patterns, self.chain_wraps_ace_two,
            self.low_runs_may_end_at_three, self.min_straight, self.min_pair_chain,
            self.min_triple_chain, self.max_plane, self.aaa_bomb, self.aaa_bomb_highest,
            self.bomb_min, self.bomb_max,
        )  # fmt: skip

    @cached_property
    def readings_memo(self) -> dict[int, Any]:
        """The classifier's memo (see patterns._entry), shared by every variant with the same
        :attr:`pattern_key`."""
        memo: dict[int, Any] = _shared(_READINGS_MEMOS, self.pattern_key, dict)
        return memo

    @cached_property
    def bomb_factor_of(self) -> dict[int, int]:
        return dict(self.bomb_factors)

    @cached_property
    def max_bomb_product(self) -> int:
        """The largest product of bomb and rocket factors (RULES.md §5.1) one game can reach:
        the whole deck played as bombs, each rank split into the bombs whose factors multiply
        highest, every bomb over a play (a led one may count ×1, never more), plus the
        rocket.  An upper bound: a game ends when the first hand empties, before all that."""
        product = 1
        if Kind.BOMB in self.patterns:
            for r in range(SUITED_RANKS):
                sizes = list(range(self.bomb_min, self.bomb_max + 1))
                if r == ACE and self.aaa_bomb:
                    sizes.append(3)
                best = [1] * (self.copies[r] + 1)  # best[n]: the best product from n cards
                for n in range(1, len(best)):
                    best[n] = max(
                        [best[n - 1]]
                        + [best[n - s] * self.bomb_factor_of.get(s, 1) for s in sizes if s <= n]
                    )
                product *= best[-1]
        if self.rocket_counts is not None and Kind.ROCKET in self.patterns:
            product *= self.rocket_factor
        return product

    # ---------------------------------------------------------------- overrides
    def override(self, changes: Mapping[str, Any]) -> Variant:
        """A copy with a room's overrides applied; raises :class:`VariantError` naming the
        first unknown, fixed or badly typed field."""
        if not changes:
            return self
        fields = {f.name: f for f in dataclasses.fields(self)}
        clean: dict[str, Any] = {}
        for key, value in changes.items():
            f = fields.get(key)
            if f is None:
                raise VariantError(f"unknown variant field {key!r}{_ELSEWHERE.get(key, '')}", key)
            if not f.metadata.get("choice"):
                raise VariantError(f"variant field {key!r} is fixed by the game", key)
            clean[key] = _validate(key, getattr(self, key), value)
        out = dataclasses.replace(self, **clean)
        out.check_playable(tuple(clean))
        return out

    def check_playable(self, changed: tuple[str, ...] = ()) -> None:
        """Refuse a variant whose games could stall or whose patterns cannot exist, naming
        the field (the first of ``changed`` that takes part, when several do).

        * ``patterns`` must hold ``single``: a player must always be able to lead (a pass is
          no lead), and a hand of one card — any hand can come down to one — has no other
          lead.  With singles, every non-empty hand leads, every follow may pass, each trick
          ends after ``players - 1`` passes and every lead removes a card: every game ends.
        * chain minimums lie between 2 (a chain of one rank is a single, pair or triple) and
          the number of ranks a chain may use (12 for 3..A, 13 with the A/2 rule);
        * ``max_plane`` is 0 (no limit) or between ``min_triple_chain`` and that number;
        * ``straight_flush`` comes with ``straight``: a straight flush is a straight in one
          suit (RULES.md §3), read and compared as one.
        """
        if Kind.SINGLE not in self.patterns:
            raise VariantError(
                "variant field 'patterns' must hold 'single': every hand, even one card, "
                "must have a lead",
                "patterns",
            )
        if Kind.STRAIGHT_FLUSH in self.patterns and Kind.STRAIGHT not in self.patterns:
            raise VariantError(
                "variant field 'patterns' holds 'straight_flush' without 'straight': a "
                "straight flush is a straight in one suit",
                "patterns",
            )
        ranks = len(self.runs) - 1
        # Which field to blame: one the room changed, else the first that takes part.
        for key in ("min_straight", "min_triple_chain"):
            value = getattr(self, key)
            if not 2 <= value <= ranks:
                raise VariantError(
                    f"variant field {key!r} must be 2..{ranks} (the ranks a chain may use), "
                    f"not {value}",
                    _blame(changed, key, "chain_wraps_ace_two"),
                )
        if self.max_plane and not self.min_triple_chain <= self.max_plane <= ranks:
            raise VariantError(
                f"variant field 'max_plane' must be 0 (no limit) or "
                f"{self.min_triple_chain}..{ranks} (from min_triple_chain to the ranks a "
                f"chain may use), not {self.max_plane}",
                _blame(changed, "max_plane", "min_triple_chain", "chain_wraps_ace_two"),
            )

    def choices(self) -> dict[str, Any]:
        """Every field a room may override, with this variant's value (JSON-friendly)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.metadata.get("choice"):
                out[f.name] = _jsonable(getattr(self, f.name))
        return out

    def describe(self) -> dict[str, Any]:
        """Every field, JSON-friendly."""
        return {f.name: _jsonable(getattr(self, f.name)) for f in dataclasses.fields(self)}


def _jsonable(value: Any) -> Any:
    if isinstance(value, frozenset):
        return sorted(str(v) for v in value)
    if isinstance(value, tuple):
        return [list(v) if isinstance(v, tuple) else v for v in value]
    return value


def _validate(key: str, current: Any, value: Any) -> Any:
    if isinstance(current, bool):
        if not isinstance(value, bool):
            raise VariantError(f"variant field {key!r} must be true or false", key)
        return value
    if isinstance(current, int):
        low, high = INT_LIMITS[key]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise VariantError(
                f"variant field {key!r} must be a whole number {low:,}..{high:,}",
                key,
            )
        return value
    if key == "patterns":
        if isinstance(value, str) or not isinstance(value, list | tuple | set | frozenset):
            raise VariantError("variant field 'patterns' must be a list of pattern kinds", key)
        try:
            return frozenset(Kind(v) for v in value)
        except ValueError as exc:
            raise VariantError(f"variant field 'patterns': {exc}", key) from None
    if key == "bomb_factors":
        items = value.items() if isinstance(value, Mapping) else value
        try:
            pairs = tuple(sorted((_whole(s), _whole(f)) for s, f in items))
        except (TypeError, ValueError):
            raise VariantError(
                "variant field 'bomb_factors' must map bomb sizes to factors", key
            ) from None
        sizes = [s for s, _ in pairs]
        if len(set(sizes)) != len(sizes) or any(
            not 3 <= s <= 8 or not 1 <= f <= MAX_FACTOR for s, f in pairs
        ):
            raise VariantError(
                f"variant field 'bomb_factors' needs distinct sizes 3..8 and factors "
                f"1..{MAX_FACTOR:,}",
                key,
            )
        return pairs
    raise VariantError(f"variant field {key!r} cannot be overridden", key)  # pragma: no cover


def _whole(value: Any) -> int:
    """A whole number from JSON (an int, or a string of digits as a JSON object key)."""
    if isinstance(value, bool | float):
        raise TypeError("not a whole number")
    if isinstance(value, str) and len(value) > 20:
        raise ValueError("too long")
    return int(value)


def _blame(changed: tuple[str, ...], *fields: str) -> str:
    """The first of ``fields`` the room changed, else the first of them."""
    return next((f for f in fields if f in changed), fields[0])


def _kinds(names: str) -> frozenset[Kind]:
    return frozenset(Kind(name) for name in names.split())


VARIANTS: Final[dict[str, Variant]] = {
    "doudizhu3": Variant(
        name="doudizhu3",
        players=3,
        decks=1,
        jokers=True,
        hand_size=17,
        bottom_size=3,
        bottom_public=True,
        landlord_share=2,
        min_pair_chain=3,
        bomb_min=4,
        bomb_max=4,
        patterns=_kinds(
            "single pair triple triple_single triple_pair straight pair_chain "
            "triple_chain plane_single plane_pair four_two four_pairs bomb rocket"
        ),
        family="doudizhu",
        bidding=True,
        opener="landlord",
        chain_wraps_ace_two=False,
    ),
    "doudizhu4": Variant(
        name="doudizhu4",
        players=4,
        decks=2,
        jokers=True,
        hand_size=25,
        bottom_size=8,
        bottom_public=False,
        landlord_share=3,
        min_pair_chain=3,
        bomb_min=4,
        bomb_max=8,
        patterns=_kinds(
            "single pair triple triple_pair straight pair_chain triple_chain plane_pair bomb rocket"
        ),
        forced_bid=True,
        rotate_first_bidder=True,
        show_hand_factor=3,
        bomb_factors=((4, 1), (5, 1), (6, 2), (7, 2), (8, 3)),
        rocket_factor=3,
        led_bombs_count=False,
        family="doudizhu",
        bidding=True,
        opener="landlord",
        chain_wraps_ace_two=False,
    ),
    "zhengshangyou1": Variant(
        name="zhengshangyou1",
        players=4,
        decks=1,
        jokers=False,
        hand_size=13,
        bomb_min=4,
        bomb_max=4,
        patterns=_kinds(
            "single pair triple triple_single triple_two straight straight_flush "
            "pair_chain triple_chain plane_two four_two bomb"
        ),
        max_plane=3,
        aaa_bomb=True,
        chain_wraps_ace_two=False,
        family="zhengshangyou",
        bidding=False,
        opener="spade_three",
        bottom_size=0,
        bottom_public=False,
        landlord_share=0,
        min_pair_chain=2,
        max_deals=1,
    ),
    "zhengshangyou2": Variant(
        name="zhengshangyou2",
        players=4,
        decks=2,
        jokers=True,
        hand_size=27,
        bomb_min=4,
        bomb_max=8,
        patterns=_kinds(
            "single pair triple triple_pair straight straight_flush pair_chain "
            "triple_chain plane_pair bomb rocket"
        ),
        chain_wraps_ace_two=True,
        family="zhengshangyou",
        bidding=False,
        opener="spade_three",
        bottom_size=0,
        bottom_public=False,
        landlord_share=0,
        min_pair_chain=2,
        max_deals=1,
    ),
}

ALIASES: Final = {
    "ddz3": "doudizhu3",
    "ddz4": "doudizhu4",
    "zsy1": "zhengshangyou1",
    "zsy2": "zhengshangyou2",
    "doudizhu": "doudizhu3",
    "zhengshangyou": "zhengshangyou1",
}


def variant(name: str) -> Variant:
    """The variant of a name or alias (``doudizhu3``/``ddz3``, …); :class:`VariantError`
    lists the known names otherwise."""
    key = name.strip().lower()
    found = VARIANTS.get(ALIASES.get(key, key))
    if found is None:
        known = ", ".join(VARIANTS)
        raise VariantError(f"unknown variant {name!r} (known: {known})", "variant")
    return found


assert BLACK_JOKER + 1 == RED_JOKER and NUM_RANKS == 15
for _v in VARIANTS.values():
    _v.check_playable()
assert all(isinstance(getattr(_v, k), int) for k in INT_LIMITS), "a limit for a non-int field"
assert {
    f.name for f in dataclasses.fields(Variant) if f.metadata.get("choice") and f.type == "int"
} == set(INT_LIMITS), "every whole-number choice needs its limits"
