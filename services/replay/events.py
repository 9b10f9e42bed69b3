"""Events as the replay store keeps them: ``cardroom.v1.Event`` messages, serialized
deterministically — those bytes are what is stored and hashed — plus their key columns.

This module knows the shape of a game's log (DESIGN.md): the first event is the header
(``game_header``, whose body is the game record without its actions), then the events the rules
produce; ``game_over`` ends the game and carries the settlement.  It checks what a writer sends
against that shape and derives the store's :class:`GameHeader` and :class:`GameEnding` from the
events themselves, so a writer cannot declare one thing and log another.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cardroom.v1 import common_pb2

from services.engine import rules

from .store import PUBLIC, GameEnding, GameHeader, NewEvent, StoredEvent

HEADER = "game_header"
GAME_OVER = "game_over"
#: Events that are a seat's action (re-executed); every other type is a result of one.
ACTION_TYPES = frozenset({"bid", "pass", "play", "show_hand", "leave", "autoplay"})
END_STATUSES = frozenset({"finished", "escaped", "disbanded", "redeal"})
MAX_TYPE = 32
MAX_ACTOR = 128
MAX_DATA = 64 * 1024

CAUSE_NAMES = {
    common_pb2.CAUSE_UNSPECIFIED: "unspecified",
    common_pb2.CAUSE_PLAYER: "player",
    common_pb2.CAUSE_TIMEOUT: "timeout",
    common_pb2.CAUSE_AUTOPLAY: "autoplay",
    common_pb2.CAUSE_BOT: "bot",
    common_pb2.CAUSE_DISCONNECT: "disconnect",
}
#: The record's "by" of an action, from its event's cause (DESIGN.md action forms).
BY_OF_CAUSE = {common_pb2.CAUSE_TIMEOUT: "timeout", common_pb2.CAUSE_AUTOPLAY: "autoplay"}
CAUSE_OF_BY = {"timeout": common_pb2.CAUSE_TIMEOUT, "autoplay": common_pb2.CAUSE_AUTOPLAY}


class EventError(ValueError):
    """An event a writer sent that can never be stored: ``reason`` and the field path."""

    def __init__(self, reason: str, message: str, field: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.field = field


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def encode(event: common_pb2.Event) -> bytes:
    """The bytes stored and hashed: deterministic serialization (map order fixed)."""
    data: bytes = event.SerializeToString(deterministic=True)
    return data


def decode(payload: bytes) -> common_pb2.Event:
    event = common_pb2.Event()
    event.ParseFromString(payload)
    return event


def data_of(event: common_pb2.Event) -> dict[str, Any]:
    """An event's body; {} when it is not a JSON object (only a tampered row can be)."""
    try:
        value = json.loads(event.data_json) if event.data_json else {}
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def seat_of_event(event: common_pb2.Event) -> int | None:
    """The one seat a private event is for, or None for a public one."""
    env = event.envelope
    if env.visibility == common_pb2.VISIBILITY_SEAT and env.HasField("seat"):
        return int(env.seat)
    return None


def timestamp_of(when: datetime) -> Any:
    from google.protobuf import timestamp_pb2

    ts = timestamp_pb2.Timestamp()
    ts.FromDatetime(when.astimezone(UTC) if when.tzinfo else when.replace(tzinfo=UTC))
    return ts


# --------------------------------------------------------------------------- the header
def header_record(data: Mapping[str, Any]) -> rules.Record:
    """The header's record (no actions), validated by the rules' record loader."""
    if "actions" in data:
        raise rules.RecordError("a header holds no actions", "actions")
    return rules.load_record({**data, "actions": []})


def header_of(data: Mapping[str, Any], field: str) -> tuple[GameHeader, rules.Variant]:
    """The store's header for a ``game_header`` body, and the game's variant (with its room's
    overrides).  Raises :class:`EventError` (``BAD_HEADER``) naming the bad field."""
    try:
        record = header_record(data)
        state = rules.initial_state(record)
    except rules.RecordError as exc:
        path = f"{field}.{exc.field}" if exc.field else field
        raise EventError("BAD_HEADER", f"bad game header: {exc}", path) from None
    except (rules.RulesError, rules.VariantError) as exc:
        raise EventError("BAD_HEADER", f"bad game header: {exc}", field) from None
    v: rules.Variant = state.variant
    players = data.get("players") or []
    if not isinstance(players, list) or not all(
        isinstance(p, str) and 0 < len(p) <= MAX_ACTOR for p in players
    ):
        raise EventError("BAD_HEADER", "players must be a list of player ids", f"{field}.players")
    if players and len(players) != v.players:
        raise EventError(
            "BAD_HEADER", f"{v.name} seats {v.players} players, not {len(players)}",
            f"{field}.players",
        )  # fmt: skip
    return GameHeader(v.name, record.rules_version, players), v


def ending_of(data: Mapping[str, Any], v: rules.Variant, field: str) -> GameEnding:
    """The store's ending for a ``game_over`` body: status and scores from its settlement; the
    family from the game's variant, not from anything the writer says."""
    settlement = data.get("settlement")
    if not isinstance(settlement, dict):
        raise EventError("BAD_GAME_OVER", "game_over needs its settlement", f"{field}.settlement")
    status = settlement.get("status")
    if status not in END_STATUSES:
        raise EventError(
            "BAD_GAME_OVER",
            f"settlement status must be one of {', '.join(sorted(END_STATUSES))}",
            f"{field}.settlement.status",
        )
    scores = settlement.get("scores")
    if (
        not isinstance(scores, list)
        or len(scores) != v.players
        or not all(isinstance(s, int) and not isinstance(s, bool) for s in scores)
        or not all(abs(s) < 2**62 for s in scores)
    ):
        raise EventError(
            "BAD_GAME_OVER",
            f"settlement scores must be {v.players} whole numbers",
            f"{field}.settlement.scores",
        )
    return GameEnding(str(status), [int(s) for s in scores], v.family, settlement)


# --------------------------------------------------------------------------- appending
@dataclass(frozen=True)
class Prepared:
    """What the store needs for one append, built from the events a writer sent."""

    events: list[NewEvent]
    header: GameHeader | None
    ending: GameEnding | None
    variant: rules.Variant | None  # the header's, when this append carries it


def prepare_append(
    game_id: str,
    expected_seq: int,
    sent: Sequence[common_pb2.Event],
    variant: rules.Variant | None,
    now: datetime,
) -> Prepared:
    """Check and complete the envelopes (game id, sequence numbers, server time) and serialize
    each event.  ``variant`` is the game's (None for a new game: the header gives it)."""
    if not sent:
        raise EventError("NO_EVENTS", "an append needs at least one event", "events")
    header: GameHeader | None = None
    ending: GameEnding | None = None
    out: list[NewEvent] = []
    stamp = timestamp_of(now)
    for i, original in enumerate(sent):
        where = f"events[{i}]"
        seq = expected_seq + i + 1
        ev = common_pb2.Event()
        ev.CopyFrom(original)
        env = ev.envelope
        if env.game_id and env.game_id != game_id:
            raise EventError("BAD_EVENT", f"event for game {env.game_id!r}", f"{where}.envelope")
        if env.seq and env.seq != seq:
            raise EventError(
                "BAD_EVENT", f"event seq {env.seq} where {seq} comes next", f"{where}.envelope.seq"
            )
        if not ev.type or len(ev.type) > MAX_TYPE:
            raise EventError("BAD_EVENT", f"type must be 1–{MAX_TYPE} characters", f"{where}.type")
        if len(env.actor) > MAX_ACTOR:
            raise EventError("BAD_EVENT", "actor is too long", f"{where}.envelope.actor")
        if env.cause not in CAUSE_NAMES:
            raise EventError("BAD_EVENT", "unknown cause", f"{where}.envelope.cause")
        if len(ev.data_json) > MAX_DATA:
            raise EventError("BAD_EVENT", "data_json is too long", f"{where}.data_json")
        try:
            data = json.loads(ev.data_json) if ev.data_json else {}
        except (ValueError, RecursionError):
            data = None
        if not isinstance(data, dict):
            raise EventError("BAD_EVENT", "data_json must be a JSON object", f"{where}.data_json")
        if ending is not None:
            raise EventError("EVENTS_AFTER_END", "no event may follow game_over", where)
        if seq == 1:
            if ev.type != HEADER:
                raise EventError("NO_HEADER", "a game's first event is its game_header", where)
            header, variant = header_of(data, f"{where}.data_json")
        elif ev.type == HEADER:
            raise EventError("HEADER_NOT_FIRST", "only a game's first event is its header", where)
        assert variant is not None  # seq 1 set it, or the caller knew the game
        if env.visibility == common_pb2.VISIBILITY_UNSPECIFIED:
            env.visibility = common_pb2.VISIBILITY_PUBLIC
        if env.visibility == common_pb2.VISIBILITY_SEAT:
            if not env.HasField("seat") or not 0 <= env.seat < variant.players:
                raise EventError(
                    "NO_SUCH_SEAT",
                    f"a private event names one seat of {variant.players}",
                    f"{where}.envelope.seat",
                )
            visibility = int(env.seat)
        elif env.visibility == common_pb2.VISIBILITY_PUBLIC:
            env.ClearField("seat")
            visibility = PUBLIC
        else:
            raise EventError("BAD_EVENT", "unknown visibility", f"{where}.envelope.visibility")
        if ev.type == GAME_OVER:
            ending = ending_of(data, variant, f"{where}.data_json")
        env.game_id = game_id
        env.seq = seq
        if not env.HasField("server_time"):
            env.server_time.CopyFrom(stamp)
        out.append(
            NewEvent(
                type=ev.type,
                payload=encode(ev),
                actor=env.actor,
                cause=CAUSE_NAMES[env.cause],
                visibility=visibility,
                server_time=env.server_time.ToDatetime(tzinfo=UTC),
            )
        )
    return Prepared(out, header, ending, variant if header is not None else None)


# --------------------------------------------------------------------------- from the rules
def header_event(record: Mapping[str, Any]) -> common_pb2.Event:
    """The ``game_header`` event of a record (its actions, result and game id left out)."""
    data = {k: v for k, v in record.items() if k not in ("actions", "result", "game_id")}
    return common_pb2.Event(
        envelope=common_pb2.EventEnvelope(visibility=common_pb2.VISIBILITY_PUBLIC),
        type=HEADER,
        data_json=dumps(data),
    )


def rules_event(
    e: rules.Event, actor: str = "", cause: Any = common_pb2.CAUSE_UNSPECIFIED
) -> common_pb2.Event:
    """A rules event in the envelope, as the engine service builds it."""
    env = common_pb2.EventEnvelope(actor=actor, cause=cause)
    if e.to is None:
        env.visibility = common_pb2.VISIBILITY_PUBLIC
    else:
        env.visibility = common_pb2.VISIBILITY_SEAT
        env.seat = e.to
    return common_pb2.Event(envelope=env, type=e.type, data_json=dumps({"seat": e.seat, **e.data}))


def expected_data(e: rules.Event) -> dict[str, Any]:
    """A rules event's body as it appears in data_json (JSON round trip: tuples → lists)."""
    value: dict[str, Any] = json.loads(dumps({"seat": e.seat, **e.data}))
    return value


def stored_events(rows: Sequence[StoredEvent]) -> list[tuple[StoredEvent, common_pb2.Event]]:
    return [(row, decode(row.payload)) for row in rows]
