"""The game record of DESIGN.md: load and validate one, replay it to its final state, and write
the record of a state.

>>> rec = load_record({"variant": "ddz3", "deal": {"seed": "cardroom"},
...                    "actions": [{"seat": 0, "bid": 3}, {"seat": 0, "leave": True}]})
>>> state = replay(rec)
>>> state.status.value, state.settlement.scores
('escaped', (-9, 0, 0))
>>> write_record(state)["actions"]
[{'seat': 0, 'bid': 3}, {'seat': 0, 'leave': True}]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from .actions import (
    Action,
    Bid,
    IllegalAction,
    Leave,
    Pass,
    PlayCards,
    SetAutoplay,
    ShowHand,
    Timeout,
)
from .cards import CardParseError, format_cards, parse_cards
from .errors import RulesError
from .room import Room
from .variants import RULES_VERSION, Variant, VariantError, variant


class RecordError(RulesError):
    """A malformed record; ``field`` is the path of the bad field (``actions[3].play``)."""

    reason = "BAD_RECORD"

    def __init__(self, message: str, field: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}" if field else message)


class ReplayError(RulesError):
    """An illegal action in a record: ``index`` (0-based, in ``actions``), ``seat`` and the
    rules' ``reason`` code."""

    def __init__(self, index: int, seat: int, reason: str, message: str) -> None:
        self.index = index
        self.seat = seat
        super().__init__(f"actions[{index}] (seat {seat}): {reason}: {message}", reason)


@dataclasses.dataclass(frozen=True)
class Record:
    variant: str
    rules_version: int
    room: Room
    deal: Any  # SeedDeal | ExplicitDeal
    first_bidder: int | None
    actions: tuple[Action, ...]
    extra: Mapping[str, Any] = dataclasses.field(default_factory=dict)  # game_id, players, …


_BY = frozenset({"player", "timeout", "autoplay", "bot", "disconnect"})
_ACTION_KEYS = ("bid", "pass", "play", "show_hand", "leave", "autoplay", "timeout")


def _cards(text: Any, field: str) -> tuple[int, ...]:
    if not isinstance(text, str):
        raise RecordError('must be a string of cards like "3s3h4d"', field)
    try:
        return parse_cards(text)
    except CardParseError as exc:
        raise RecordError(str(exc), field) from None


def deal_to_dict(deal: Any) -> dict[str, Any]:
    from .game import SeedDeal

    if isinstance(deal, SeedDeal):
        return {"seed": deal.seed}
    out: dict[str, Any] = {"hands": [format_cards(h) for h in deal.hands]}
    if deal.bottom:
        out["bottom"] = format_cards(deal.bottom)
    if deal.opener is not None:
        out["opener"] = deal.opener
    return out


def deal_from_dict(data: Any, v: Variant) -> Any:
    from .game import ExplicitDeal, SeedDeal

    if not isinstance(data, Mapping):
        raise RecordError('must be {"seed": …} or {"hands": […], "bottom": …}', "deal")
    if "seed" in data:
        seed = data["seed"]
        if not isinstance(seed, str) or not seed:
            raise RecordError("must be a non-empty string", "deal.seed")
        extra = set(data) - {"seed"}
        if extra:
            raise RecordError(f"a seeded deal has no {sorted(extra)[0]!r}", "deal")
        return SeedDeal(seed)
    hands = data.get("hands")
    if not isinstance(hands, list) or len(hands) != v.players:
        raise RecordError(f"must be a list of {v.players} hands", "deal.hands")
    parsed = tuple(_cards(h, f"deal.hands[{i}]") for i, h in enumerate(hands))
    bottom = _cards(data.get("bottom", ""), "deal.bottom")
    opener = data.get("opener")
    if opener is not None and (
        isinstance(opener, bool) or not isinstance(opener, int) or not 0 <= opener < v.players
    ):
        raise RecordError(f"must be a seat 0..{v.players - 1}", "deal.opener")
    extra = set(data) - {"hands", "bottom", "opener"}
    if extra:
        raise RecordError(f"unknown field {sorted(extra)[0]!r}", "deal")
    return ExplicitDeal(parsed, bottom, opener)


def action_to_dict(action: Action) -> dict[str, Any]:
    out: dict[str, Any] = {"seat": action.seat}
    if isinstance(action, Bid):
        out["bid"] = action.amount
    elif isinstance(action, Pass):
        out["pass"] = True
    elif isinstance(action, PlayCards):
        out["play"] = format_cards(action.cards)
        if action.reading is not None:
            out["as"] = action.reading
    elif isinstance(action, ShowHand):
        out["show_hand"] = True
    elif isinstance(action, Leave):
        out["leave"] = True
    elif isinstance(action, SetAutoplay):
        out["autoplay"] = action.on
    else:
        out["timeout"] = True
    by = getattr(action, "by", None)
    if by is not None:
        out["by"] = by
    return out


def action_from_dict(data: Any, v: Variant, index: int) -> Action:
    """One action of a record's ``actions`` list; :class:`RecordError` names the field."""
    where = f"actions[{index}]"
    if not isinstance(data, Mapping):
        raise RecordError('must be an object like {"seat": 0, "bid": 1}', where)
    seat = data.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise RecordError("must be a seat number", f"{where}.seat")
    kinds = [k for k in _ACTION_KEYS if k in data]
    if len(kinds) != 1:
        raise RecordError(f"must hold exactly one of {', '.join(_ACTION_KEYS)}", where)
    kind = kinds[0]
    allowed = {"seat", kind}
    by = data.get("by")
    if kind in ("bid", "pass", "play"):
        allowed.add("by")
        if by is not None and by not in _BY:
            raise RecordError(f"must be one of {', '.join(sorted(_BY))}", f"{where}.by")
    if kind == "play":
        allowed.add("as")
    extra = set(data) - allowed
    if extra:
        raise RecordError(f"unexpected field {sorted(extra)[0]!r}", where)
    value = data[kind]
    if kind == "bid":
        if isinstance(value, bool) or not isinstance(value, int):
            raise RecordError("must be 1, 2 or 3", f"{where}.bid")
        return Bid(seat, value, by)
    if kind == "play":
        reading = data.get("as")
        if reading is not None and not isinstance(reading, str):
            raise RecordError('must be a reading like "plane_single:6"', f"{where}.as")
        return PlayCards(seat, _cards(value, f"{where}.play"), reading, by)
    if kind == "autoplay":
        if not isinstance(value, bool):
            raise RecordError("must be true or false", f"{where}.autoplay")
        return SetAutoplay(seat, value)
    if value is not True:
        raise RecordError("must be true", f"{where}.{kind}")
    if kind == "pass":
        return Pass(seat, by)
    if kind == "show_hand":
        return ShowHand(seat)
    if kind == "leave":
        return Leave(seat)
    return Timeout(seat)


def load_record(data: Any) -> Record:
    """A validated record from its JSON value; :class:`RecordError` names the bad field."""
    if not isinstance(data, Mapping):
        raise RecordError("a game record is a JSON object", "")
    name = data.get("variant")
    if not isinstance(name, str):
        raise RecordError("must name the variant (doudizhu3, …)", "variant")
    try:
        base = variant(name)
    except VariantError as exc:
        raise RecordError(str(exc), "variant") from None
    version = data.get("rules_version", RULES_VERSION)
    if version != RULES_VERSION:
        raise RecordError(f"this engine plays rules version {RULES_VERSION} only", "rules_version")
    room_data = data.get("room", {})
    try:
        room = Room.from_dict(room_data if room_data is not None else {})
        v = room.variant_for(base.name)
    except VariantError as exc:
        raise RecordError(
            str(exc), f"room.{exc.field}" if exc.field != "room" else "room"
        ) from None
    if "deal" not in data:
        raise RecordError("is missing", "deal")
    deal = deal_from_dict(data["deal"], v)
    fb = data.get("first_bidder")
    if v.bidding:
        if fb is None and "seed" not in data["deal"]:
            raise RecordError("is required with an explicit deal", "first_bidder")
        if fb is not None and (
            isinstance(fb, bool) or not isinstance(fb, int) or not 0 <= fb < v.players
        ):
            raise RecordError(f"must be a seat 0..{v.players - 1}", "first_bidder")
    elif fb is not None:
        raise RecordError(f"{v.name} has no bidding", "first_bidder")
    actions = data.get("actions", [])
    if not isinstance(actions, list):
        raise RecordError("must be a list", "actions")
    parsed = tuple(action_from_dict(a, v, i) for i, a in enumerate(actions))
    known = {"variant", "rules_version", "room", "deal", "first_bidder", "actions"}
    extra = {k: data[k] for k in data if k not in known}
    return Record(base.name, version, room, deal, fb, parsed, extra)


def start(record: Record, game_id: str | None = None) -> Any:
    """The state of a record before its first action (bound to ``game_id`` when given)."""
    from .game import ExplicitDeal, new_game

    try:
        if isinstance(record.deal, ExplicitDeal):
            return new_game(
                record.variant,
                record.room,
                deal=record.deal,
                first_bidder=record.first_bidder,
                game_id=game_id,
            )
        return new_game(
            record.variant,
            record.room,
            seed=record.deal.seed,
            first_bidder=record.first_bidder,
            game_id=game_id,
        )
    except IllegalAction as exc:
        raise RecordError(str(exc), "deal") from None


def replay(record: Record | Mapping[str, Any]) -> Any:
    """The final state of a record (a :class:`GameState`).  Raises :class:`RecordError` for
    a malformed record and :class:`ReplayError` for an illegal action in it."""
    from .game import apply

    rec = record if isinstance(record, Record) else load_record(record)
    state = start(rec)
    for i, action in enumerate(rec.actions):
        try:
            state, _ = apply(state, action)
        except RulesError as exc:
            raise ReplayError(i, action.seat, exc.reason, str(exc)) from None
    return state


def write_record(state: Any, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The record of a state (timeouts appear as the moves they made, with ``"by"``)."""
    out: dict[str, Any] = {
        "variant": state.variant.name,
        "rules_version": RULES_VERSION,
        "room": state.room.to_dict(),
        "deal": deal_to_dict(state.deal),
    }
    if state.variant.bidding:
        out["first_bidder"] = state.first_bidder
    out["actions"] = [action_to_dict(a) for a in state.log]
    if extra:
        out.update(extra)
    return out
