"""The game record of DESIGN.md: load and validate one, replay it to its final state, and write
the record of a state (the record form of each value is :mod:`.codec`'s).

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

from .actions import Action, IllegalAction
from .codec import action_from_dict, deal_from_dict
from .deal import DealSpec, ExplicitDeal
from .errors import Reason, RecordError, RulesError
from .game import apply, new_game
from .room import ROOM_FIELDS, TABLE_FIELDS, Room
from .state import GameState, write_record
from .variants import RULES_VERSION, RULES_VERSIONS, VariantError, variant

__all__ = [
    "Record",
    "RecordError",
    "ReplayError",
    "initial_state",
    "load_record",
    "replay",
    "write_record",
]


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
    deal: DealSpec
    first_bidder: int | None
    actions: tuple[Action, ...]
    extra: Mapping[str, Any] = dataclasses.field(default_factory=dict)  # game_id, players, …


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
    if isinstance(version, bool) or version not in RULES_VERSIONS:
        versions = ", ".join(map(str, RULES_VERSIONS))
        raise RecordError(f"this engine plays rules versions {versions} only", "rules_version")
    room_data = data.get("room", {})
    try:
        room = Room.from_dict(room_data if room_data is not None else {})
        v = room.variant_for(base.name, version)
    except VariantError as exc:
        room_field = exc.field in ROOM_FIELDS or exc.field in TABLE_FIELDS or exc.field == "room"
        raise RecordError(
            str(exc),
            f"room.{exc.field}" if exc.field != "room" else "room",
            Reason.INVALID_ROOM if room_field else Reason.INVALID_OVERRIDE,
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
    parsed = tuple(action_from_dict(a, i) for i, a in enumerate(actions))
    known = {"variant", "rules_version", "room", "deal", "first_bidder", "actions"}
    extra = {k: data[k] for k in data if k not in known}
    return Record(base.name, version, room, deal, fb, parsed, extra)


def initial_state(record: Record, game_id: str | None = None) -> GameState:
    """The state of a record before its first action (bound to ``game_id`` when given)."""
    try:
        if isinstance(record.deal, ExplicitDeal):
            return new_game(
                record.variant,
                record.room,
                deal=record.deal,
                first_bidder=record.first_bidder,
                rules_version=record.rules_version,
                game_id=game_id,
            )
        return new_game(
            record.variant,
            record.room,
            seed=record.deal.seed,
            first_bidder=record.first_bidder,
            rules_version=record.rules_version,
            game_id=game_id,
        )
    except IllegalAction as exc:
        raise RecordError(str(exc), "deal") from None


def replay(record: Record | Mapping[str, Any]) -> GameState:
    """The final state of a record.  Raises :class:`RecordError` for a malformed record and
    :class:`ReplayError` for an illegal action in it."""
    rec = record if isinstance(record, Record) else load_record(record)
    state = initial_state(rec)
    for i, action in enumerate(rec.actions):
        try:
            state, _ = apply(state, action)
        except RulesError as exc:
            raise ReplayError(i, action.seat, exc.reason, str(exc)) from None
    return state
