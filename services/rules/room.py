"""Room settings: the stake, the multiplier bounds, the variant fields a room overrides, and
the table settings: the timers (:class:`TableSettings`) and the skill window seating uses
(:class:`SkillSettings`).  The rules never read the table settings; the matchmaker runs them,
and a game record keeps those its room sets (a room that sets none has none in its record).

>>> Room.from_dict({"stake": 2, "max_multiplier": 8, "spring_factor": 4}).to_dict()
{'stake': 2, 'max_multiplier': 8, 'escape_multiplier': None, 'spring_factor': 4}

**Bounds.** Every score of every game must fit a signed 64-bit integer (protobuf ``int64``,
the database's ``BIGINT``) — and more: it stays within :data:`MAX_SCORE` = 10^15, below 2^53,
so a score is exact in every JSON reader (JavaScript numbers are doubles) and a running total
of 9,000 worst-case games still fits ``int64``.  A room is refused (``VariantError`` naming
the field) unless the worst score its variant's settlement can produce fits:

* each field alone: ``stake``, ``max_multiplier`` and ``escape_multiplier`` are 1..MAX_SCORE;
  every numeric override has its range in ``variants.INT_LIMITS`` (factors 1..1,000);
* Dou Dizhu, finished: ``landlord_share × stake × 3 × M`` with ``M`` the room's
  ``max_multiplier``, or without one the largest product its factors allow
  (``Variant.max_bomb_product`` × show-hand factor × the larger of spring and anti-spring);
* Dou Dizhu, escape (§5.2): ``stake × 3 × escape_base × m``, ``m`` = that bomb product
  clamped to ``max_multiplier``, raised to ``escape_multiplier``;
* Zheng Shangyou (§5.3; from rules version 2 the stake counts, before it is 1): the winner
  ``(players − 1) × hand_size × 4 × stake``, an escape ``hand_size × escape_card_factor ×
  stake``.

So the stake a room allows is ``MAX_SCORE // (the worst of these at stake 1)`` (see
:func:`max_stake`): 5,086,263,020 in a default ``doudizhu3`` room, 3,871,762 in
``doudizhu4``, 6,410,256,410,256 in ``zhengshangyou1`` and 3,086,419,753,086 in
``zhengshangyou2``.  When even stake 1 is too much, the multiplier is to blame: the room must
set (or lower) ``max_multiplier`` or ``escape_multiplier``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Final

from .variants import RULES_VERSION, VARIANTS, Variant, VariantError

#: No score of any game may exceed this in absolute value (see the module's docstring).
MAX_SCORE: Final = 10**15
#: The room's own fields (every key but these and the table fields is a variant override).
ROOM_FIELDS: Final = ("stake", "max_multiplier", "escape_multiplier")
#: Timeouts and grace times, in seconds: up to one day (a datetime can add them).
MAX_SECONDS: Final = 86_400


@dataclasses.dataclass(frozen=True)
class TableSettings:
    """The timers of RULES.md §6, with their defaults (seconds).  Not rules: no game's result
    depends on them, so changing one makes no new variant."""

    start_timeout_s: int = 30  # a seated player not ready by then is removed
    bid_timeout_s: int = 30  # a bid not made by then is a pass (a forced bidder's: a 1)
    turn_timeout_s: int = 30  # a turn not played by then is the auto-play move
    disconnect_grace_s: int = 60  # a seat disconnected this long has escaped


@dataclasses.dataclass(frozen=True)
class SkillSettings:
    """Seating by skill (services/matchmaker/seating.py): how far apart in rating (mu,
    OpenSkill's units: a new player's sigma is 8.3; whole numbers) the tickets of a table may
    be.  A ticket's window starts at ``skill_narrow_mu``, widens evenly to ``skill_wide_mu``
    and takes anyone at its bot fill time (a ticket that never gets bots: after
    ``skill_anyone_s``).  Not rules either: the room's seating, not its games."""

    skill_narrow_mu: int = 2
    skill_wide_mu: int = 10  # at least skill_narrow_mu
    skill_anyone_s: int = 30


#: The most a skill window's mu may be: beyond any rating gap (ratings stay within ±100).
MAX_SKILL_MU: Final = 1000
#: The table fields a room may set, with their ranges.
TABLE_LIMITS: Final = {
    "start_timeout_s": (1, MAX_SECONDS),
    "bid_timeout_s": (1, MAX_SECONDS),
    "turn_timeout_s": (1, MAX_SECONDS),
    "disconnect_grace_s": (0, MAX_SECONDS),
    "skill_narrow_mu": (0, MAX_SKILL_MU),
    "skill_wide_mu": (0, MAX_SKILL_MU),
    "skill_anyone_s": (0, MAX_SECONDS),
}
TABLE_FIELDS: Final = tuple(TABLE_LIMITS)
_TIMER_FIELDS: Final = frozenset(f.name for f in dataclasses.fields(TableSettings))
_ROOM_FIELDS = ROOM_FIELDS
#: The highest bid (Dou Dizhu), a factor of every Dou Dizhu score.
MAX_BID: Final = 3
#: The Zheng Shangyou base of a loser who played no card (§5.3), the highest base.
ZSY_MAX_BASE: Final = 4
#: The first rules version in which a Zheng Shangyou room's stake multiplies its scores.
ZSY_STAKE_VERSION: Final = 2


def _positive(name: str, value: Any, optional: bool) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_SCORE:
        what = f"a whole number 1..{MAX_SCORE:,}" + (" or null" if optional else "")
        raise VariantError(f"room field {name!r} must be {what}, not {value!r}", name)


def zsy_stake(room: Room, rules_version: int) -> int:
    """The stake a Zheng Shangyou game multiplies its scores by: the room's from rules
    version 2 (RULES.md §5.3), 1 before."""
    return room.stake if rules_version >= ZSY_STAKE_VERSION else 1


def worst_scores(v: Variant, room: Room) -> list[tuple[str, int, str]]:
    """The worst |score| of each way a game of ``v`` in ``room`` can end, at stake 1: (what,
    amount, the field to blame when even stake 1 is too much)."""
    if v.family != "doudizhu":
        return [
            ("a win", (v.players - 1) * v.hand_size * ZSY_MAX_BASE, "stake"),
            ("an escape", v.hand_size * v.escape_card_factor, "escape_card_factor"),
        ]
    product = v.max_bomb_product
    full = product * max(v.show_hand_factor, 1) * max(v.spring_factor, v.anti_spring_factor)
    if room.max_multiplier is not None:
        full = min(full, room.max_multiplier)
        product = min(product, room.max_multiplier)
    m, blame = product, "max_multiplier"
    if room.escape_multiplier is not None and room.escape_multiplier > m:
        m, blame = room.escape_multiplier, "escape_multiplier"
    return [
        ("a finished game", v.landlord_share * MAX_BID * full, "max_multiplier"),
        ("an escape", MAX_BID * v.escape_base * m, blame),
    ]


def max_stake(v: Variant, room: Room, rules_version: int = RULES_VERSION) -> int:
    """The largest stake ``room`` (its multiplier bounds, with ``v``'s factors) allows."""
    if v.family != "doudizhu" and rules_version < ZSY_STAKE_VERSION:
        return MAX_SCORE  # the stake does not count
    return MAX_SCORE // max(amount for _, amount, _ in worst_scores(v, room))


def check_room(v: Variant, room: Room, rules_version: int = RULES_VERSION) -> None:
    """Refuse (:class:`VariantError` naming the field) a room in which a game of ``v`` could
    score beyond :data:`MAX_SCORE`."""
    for what, amount, blame in worst_scores(v, room):
        if amount > MAX_SCORE:
            raise VariantError(
                f"in this {v.name} room {what} can score {amount:,} even at stake 1, over the "
                f"limit {MAX_SCORE:,}: lower {blame!r}"
                + (" (or set one)" if blame == "max_multiplier" else ""),
                blame,
            )
    top = max_stake(v, room, rules_version)
    if room.stake > top:
        raise VariantError(
            f"room field 'stake' {room.stake:,} lets a {v.name} score exceed {MAX_SCORE:,}: "
            f"this room allows a stake up to {top:,}",
            "stake",
        )


@dataclasses.dataclass(frozen=True)
class Room:
    """``stake`` is the room's base (底分); ``max_multiplier`` caps the whole multiplier and
    the escape multiplier; ``escape_multiplier`` is the least escape multiplier (None: unset);
    ``overrides`` are variant "choice" fields, as sorted (name, JSON value) pairs; ``table``
    the table settings the room sets (sorted pairs; :attr:`timers` fills in the defaults)."""

    stake: int = 1
    max_multiplier: int | None = None
    escape_multiplier: int | None = None
    overrides: tuple[tuple[str, Any], ...] = ()
    table: tuple[tuple[str, int], ...] = ()

    def __post_init__(self) -> None:
        _positive("stake", self.stake, False)
        _positive("max_multiplier", self.max_multiplier, True)
        _positive("escape_multiplier", self.escape_multiplier, True)
        # JSON-canonical values, sorted by name: a room equals its own round trip.
        try:
            clean = tuple(sorted((str(k), json.loads(json.dumps(v))) for k, v in self.overrides))
        except (TypeError, ValueError):
            raise VariantError("room overrides must be JSON values", "room") from None
        object.__setattr__(self, "overrides", clean)
        for name, value in self.table:
            low, high = TABLE_LIMITS.get(name, (0, -1))
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise VariantError(
                    f"table field {name!r} must be a whole number {low}..{high}, not {value!r}",
                    name,
                )
        object.__setattr__(self, "table", tuple(sorted(self.table)))
        skill = self.skill
        if skill.skill_wide_mu < skill.skill_narrow_mu:
            # Name the field the room set (both, the wide one): the default is not to blame.
            name = "skill_wide_mu" if "skill_wide_mu" in dict(self.table) else "skill_narrow_mu"
            raise VariantError(
                f"table field {name!r}: the skill window widens, so skill_wide_mu "
                f"({skill.skill_wide_mu}) must be at least skill_narrow_mu "
                f"({skill.skill_narrow_mu})",
                name,
            )

    @property
    def timers(self) -> TableSettings:
        """The table's timers (RULES.md §6): the room's, else the defaults."""
        return TableSettings(**{k: v for k, v in self.table if k in _TIMER_FIELDS})

    @property
    def skill(self) -> SkillSettings:
        """The skill window seating uses: the room's, else the defaults."""
        return SkillSettings(**{k: v for k, v in self.table if k not in _TIMER_FIELDS})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Room:
        """A room from its JSON form; every key but the three room fields and the table fields
        (:data:`TABLE_FIELDS`) is a variant
        override (checked when a game starts, by :meth:`variant_for`)."""
        if not isinstance(data, Mapping):
            raise VariantError("room must be an object", "room")
        overrides = tuple(
            (k, v) for k, v in data.items() if k not in _ROOM_FIELDS and k not in TABLE_LIMITS
        )
        return cls(
            stake=data.get("stake", 1),
            max_multiplier=data.get("max_multiplier"),
            escape_multiplier=data.get("escape_multiplier"),
            overrides=overrides,
            table=tuple((k, v) for k, v in data.items() if k in TABLE_LIMITS),
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "stake": self.stake,
            "max_multiplier": self.max_multiplier,
            "escape_multiplier": self.escape_multiplier,
        }
        out.update(self.overrides)
        out.update(self.table)
        return out

    def variant_for(self, name: str, rules_version: int = RULES_VERSION) -> Variant:
        """The variant ``name`` with this room's overrides, for a game of ``rules_version``
        (validated, the score bounds included; :class:`VariantError` names the first bad
        field).  Built once per distinct room and variant."""
        # Kept on the room (a frozen value: the answer cannot change), as
        # functools.cached_property would: a new game asks once per deal.
        memo: dict[tuple[str, int], Variant] = self.__dict__.setdefault("_variants", {})
        v = memo.get((name, rules_version))
        if v is None:
            v = _variant_for(name, json.dumps(self.overrides))
            check_room(v, self, rules_version)
            memo[name, rules_version] = v
        return v


@lru_cache(maxsize=256)
def _variant_for(name: str, overrides_json: str) -> Variant:
    base = VARIANTS.get(name)
    if base is None:
        raise VariantError(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})", "variant")
    pairs = json.loads(overrides_json)
    return base.override({k: v for k, v in pairs})
