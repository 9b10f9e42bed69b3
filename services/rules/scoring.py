"""Scoring (RULES.md §5): pure functions from a game's facts to a :class:`Settlement` that lists
every factor and every step, so a person can check it by hand.

Dou Dizhu: ``base = stake × bid``; ``M`` = the product of the bomb factors (per the variant's
``bomb_factors``/``rocket_factor``; a led bomb counts ×1 unless ``led_bombs_count``), the
show-hand factor, spring or anti-spring; capped by the room's ``max_multiplier``.  The landlord
scores ``±landlord_share × base × M``, each farmer ``∓base × M``.

Escape (§5.2): ``m = B`` (the bomb factor so far), clamped down to ``max_multiplier``, then
raised to ``escape_multiplier``; Dou Dizhu ``penalty = stake × b × escape_base × m`` (``b`` the
highest bid so far, or 1); Zheng Shangyou ``penalty = cards left × escape_card_factor × stake``.
The escaper scores ``-penalty``, every other seat 0.

Zheng Shangyou multiplies by the room's stake from rules version 2 (§5.3); a game of version
1 scores as version 1 did, without it.  Every score is within ``room.MAX_SCORE``: the room
refuses values that could go beyond (``room.check_room``).

>>> title_for(59), title_for(60)[2], title_for(1_000_000)[0]
((1, '蜗牛', 'Snail'), 'Pony', 23)
"""

from __future__ import annotations

import dataclasses
from typing import Any, Final, NamedTuple

from .cards import RANK_NAMES
from .room import Room, zsy_stake
from .variants import RULES_VERSION, Variant


class BombRecord(NamedTuple):
    """A bomb or rocket played: who, what, and whether it was led (not played over a play)."""

    seat: int
    kind: str  # "bomb" or "rocket"
    size: int
    rank: int
    led: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "kind": self.kind,
            "size": self.size,
            "rank": RANK_NAMES[self.rank],
            "led": self.led,
        }


class Factor(NamedTuple):
    """One factor of the multiplier: its name (``bomb``, ``rocket``, ``show_hand``, ``spring``,
    ``anti_spring``), its value and why."""

    name: str
    value: int
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "detail": self.detail}


class Step(NamedTuple):
    """One step of the computation: a name, its value and how it was obtained."""

    name: str
    value: int
    how: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "how": self.how}


@dataclasses.dataclass(frozen=True)
class Settlement:
    variant: str
    family: str
    status: str  # finished, escaped, disbanded, redeal
    scores: tuple[int, ...]
    stake: int
    max_multiplier: int | None
    escape_multiplier: int | None
    landlord: int | None = None
    winner: int | None = None
    escaper: int | None = None
    bid: int = 0
    base: int = 0
    bombs: tuple[BombRecord, ...] = ()
    factors: tuple[Factor, ...] = ()
    multiplier_before_cap: int = 1
    multiplier: int = 1
    steps: tuple[Step, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "family": self.family,
            "status": self.status,
            "scores": list(self.scores),
            "stake": self.stake,
            "max_multiplier": self.max_multiplier,
            "escape_multiplier": self.escape_multiplier,
            "landlord": self.landlord,
            "winner": self.winner,
            "escaper": self.escaper,
            "bid": self.bid,
            "base": self.base,
            "bombs": [b.to_dict() for b in self.bombs],
            "factors": [f.to_dict() for f in self.factors],
            "multiplier_before_cap": self.multiplier_before_cap,
            "multiplier": self.multiplier,
            "steps": [s.to_dict() for s in self.steps],
        }


def _bomb_text(b: BombRecord) -> str:
    what = "rocket" if b.kind == "rocket" else f"{b.size}-card bomb of {RANK_NAMES[b.rank]}"
    return f"seat {b.seat}: {what}, {'led' if b.led else 'over a play'}"


def bomb_factors(v: Variant, bombs: tuple[BombRecord, ...]) -> tuple[Factor, ...]:
    """One factor per bomb or rocket played, under the variant's bomb row of §5.1."""
    out = []
    for b in bombs:
        if b.led and not v.led_bombs_count:
            value = 1
        elif b.kind == "rocket":
            value = v.rocket_factor
        else:
            value = v.bomb_factor_of.get(b.size, 1)
        out.append(Factor(b.kind, value, _bomb_text(b)))
    return tuple(out)


def _product(factors: tuple[Factor, ...]) -> int:
    m = 1
    for f in factors:
        m *= f.value
    return m


def no_score(v: Variant, room: Room, status: str) -> Settlement:
    """A game without a score (disbanded, or an explicit deal that ended in all passes)."""
    return Settlement(
        v.name,
        v.family,
        status,
        (0,) * v.players,
        room.stake,
        room.max_multiplier,
        room.escape_multiplier,
    )


def settle_doudizhu(
    v: Variant,
    room: Room,
    *,
    landlord: int,
    bid: int,
    winner: int,
    bombs: tuple[BombRecord, ...],
    shown: bool,
    cards_played: tuple[int, ...],
    plays_made: tuple[int, ...],
) -> Settlement:
    """A finished Dou Dizhu game.  ``cards_played``/``plays_made``: per seat, for spring
    (no farmer played a card) and anti-spring (the landlord made only his first lead)."""
    stake = room.stake
    base = stake * bid
    steps = [Step("base", base, f"stake {stake} × bid {bid}")]
    factors = list(bomb_factors(v, bombs))
    if shown and v.show_hand_factor:
        factors.append(Factor("show_hand", v.show_hand_factor, f"seat {landlord} showed hand"))
    landlord_won = winner == landlord
    farmers = [s for s in range(v.players) if s != landlord]
    if landlord_won and all(cards_played[s] == 0 for s in farmers):
        factors.append(Factor("spring", v.spring_factor, "no farmer played a card"))
    if not landlord_won and plays_made[landlord] == 1:
        factors.append(
            Factor("anti_spring", v.anti_spring_factor, "the landlord played only his first lead")
        )
    raw = _product(tuple(factors))
    m = raw
    names = " × ".join(str(f.value) for f in factors) or "no factor"
    steps.append(Step("multiplier", raw, f"product of factors: {names}"))
    if room.max_multiplier is not None and m > room.max_multiplier:
        m = room.max_multiplier
        steps.append(Step("multiplier", m, f"capped by the room's max_multiplier {m}"))
    unit = base * m
    sign = 1 if landlord_won else -1
    scores = [-sign * unit if s != landlord else 0 for s in range(v.players)]
    scores[landlord] = sign * v.landlord_share * unit
    who = "landlord" if landlord_won else "farmers"
    steps.append(Step("unit", unit, f"base {base} × multiplier {m}; the {who} win"))
    steps.append(
        Step(
            "landlord",
            scores[landlord],
            f"{'+' if sign > 0 else '-'}{v.landlord_share} × {unit}",
        )
    )
    steps.append(Step("farmer", scores[farmers[0]], f"{'-' if sign > 0 else '+'}{unit} each"))
    return Settlement(
        v.name,
        v.family,
        "finished",
        tuple(scores),
        stake,
        room.max_multiplier,
        room.escape_multiplier,
        landlord=landlord,
        winner=winner,
        bid=bid,
        base=base,
        bombs=bombs,
        factors=tuple(factors),
        multiplier_before_cap=raw,
        multiplier=m,
        steps=tuple(steps),
    )


def zsy_base(dealt: int, played: int) -> int:
    """The Zheng Shangyou base of a loser (§5.3), in integer comparisons."""
    if played == 0:
        return 4
    if 4 * played < dealt:
        return 3
    if 2 * played < dealt:
        return 2
    return 1


def settle_zhengshangyou(
    v: Variant,
    room: Room,
    *,
    winner: int,
    dealt: tuple[int, ...],
    left: tuple[int, ...],
    rules_version: int = RULES_VERSION,
) -> Settlement:
    """A finished Zheng Shangyou game: each loser −(cards left × base × stake; version 1:
    without the stake), the winner the sum."""
    scores = [0] * v.players
    steps = []
    stake = zsy_stake(room, rules_version)
    times = f" × stake {stake}" if rules_version >= 2 else ""
    for s in range(v.players):
        if s == winner:
            continue
        played = dealt[s] - left[s]
        base = zsy_base(dealt[s], played)
        scores[s] = -left[s] * base * stake
        steps.append(
            Step(
                f"seat {s}",
                scores[s],
                f"dealt {dealt[s]}, played {played} → base {base}; "
                f"−({left[s]} left × {base}{times})",
            )
        )
    scores[winner] = -sum(scores)
    steps.append(Step(f"seat {winner}", scores[winner], "the winner: the sum of the losses"))
    return Settlement(
        v.name,
        v.family,
        "finished",
        tuple(scores),
        room.stake,
        room.max_multiplier,
        room.escape_multiplier,
        winner=winner,
        steps=tuple(steps),
    )


def settle_escape(
    v: Variant,
    room: Room,
    *,
    escaper: int,
    bid: int,
    bombs: tuple[BombRecord, ...],
    cards_left: int,
    landlord: int | None = None,
    rules_version: int = RULES_VERSION,
) -> Settlement:
    """An escape (§5.2): the escaper pays, every other seat scores 0."""
    scores = [0] * v.players
    if v.family != "doudizhu":
        stake = zsy_stake(room, rules_version)
        penalty = cards_left * v.escape_card_factor * stake
        times = f" × stake {stake}" if rules_version >= 2 else ""
        steps = (
            Step("penalty", penalty, f"{cards_left} cards left × {v.escape_card_factor}{times}"),
            Step("escaper", -penalty, f"seat {escaper} scores −penalty; the others 0"),
        )
        scores[escaper] = -penalty
        return Settlement(
            v.name,
            v.family,
            "escaped",
            tuple(scores),
            room.stake,
            room.max_multiplier,
            room.escape_multiplier,
            escaper=escaper,
            bombs=bombs,
            steps=steps,
        )
    factors = bomb_factors(v, bombs)
    big_b = _product(factors)
    names = " × ".join(str(f.value) for f in factors) or "none"
    steps_l = [Step("B", big_b, f"bomb factor so far, N = {len(bombs)} bombs: {names}")]
    m = big_b
    steps_l.append(Step("m", m, "m = B"))
    if room.max_multiplier is not None and m > room.max_multiplier:
        m = room.max_multiplier
        steps_l.append(Step("m", m, f"m > max_multiplier {m}: m = max_multiplier"))
    if room.escape_multiplier is not None and m < room.escape_multiplier:
        m = room.escape_multiplier
        steps_l.append(Step("m", m, f"m < escape_multiplier {m}: m = escape_multiplier"))
    b = bid or 1
    steps_l.append(Step("b", b, f"highest bid so far {bid}" if bid else "no bid yet: b = 1"))
    penalty = room.stake * b * v.escape_base * m
    steps_l.append(
        Step("penalty", penalty, f"stake {room.stake} × b {b} × {v.escape_base} × m {m}")
    )
    steps_l.append(Step("escaper", -penalty, f"seat {escaper} scores −penalty; the others 0"))
    scores[escaper] = -penalty
    return Settlement(
        v.name,
        v.family,
        "escaped",
        tuple(scores),
        room.stake,
        room.max_multiplier,
        room.escape_multiplier,
        landlord=landlord,
        escaper=escaper,
        bid=bid,
        base=room.stake * b,
        bombs=bombs,
        factors=factors,
        multiplier_before_cap=big_b,
        multiplier=m,
        steps=tuple(steps_l),
    )


#: (minimum total, Chinese title, English title) for levels 1..23 (RULES.md §5.4).
TITLES: Final = (
    (None, "蜗牛", "Snail"),
    (60, "小马驹", "Pony"),
    (140, "三等马", "Third-class Horse"),
    (300, "二等马", "Second-class Horse"),
    (720, "一等马", "First-class Horse"),
    (1_400, "千里马", "Thousand-li Horse"),
    (2_000, "白鹤", "White Crane"),
    (3_000, "紫骍", "Zixing"),
    (4_500, "惊帆", "Jingfan"),
    (6_200, "爪黄飞电", "Zhuahuang Feidian"),
    (8_000, "乌云踏雪", "Wuyun Taxue"),
    (12_000, "照夜玉狮子", "Zhaoye Yushizi"),
    (17_000, "的卢", "Dilu"),
    (22_000, "绝影", "Jueying"),
    (28_000, "赤兔", "Red Hare"),
    (40_000, "乌骓", "Wuzhui"),
    (60_000, "晨凫", "Chenfu"),
    (90_000, "铜爵", "Tongjue"),
    (140_000, "飞翩", "Feipian"),
    (300_000, "追电", "Zhuidian"),
    (450_000, "蹑景", "Niejing"),
    (600_000, "白兔", "White Hare"),
    (1_000_000, "追风", "Zhuifeng"),
)


def title_for(total: int) -> tuple[int, str, str]:
    """(level, Chinese title, English title) of a Zheng Shangyou running total."""
    level = 1
    for i, (minimum, _, _) in enumerate(TITLES):
        if minimum is not None and total >= minimum:
            level = i + 1
    _, chinese, english = TITLES[level - 1]
    return level, chinese, english
