"""Events as the replay store keeps them: ``cardroom.v1.Event`` messages, serialized
deterministically — those bytes are what is stored and hashed — plus their key columns.

This module knows the shape of a game's log (DESIGN.md): the first event is the header
(``game_header``, whose body is the game record without its actions, for auditors only), then
the events the rules produce; ``game_over`` ends the game.  It checks the shape of what a writer
sends (envelopes, types, ids, the header) and derives the store's :class:`GameHeader` from the
events themselves; whether each event follows from the game, and the game's result, are the
rules' to say (``games.py`` re-executes every append).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from services import rules
from services.common import limits
from services.common.reasons import RulesReason, ServiceReason
from services.common.wire import EVENT_TYPES, GAME_OVER, HEADER, common_pb2, without_body

from .store import PUBLIC, GameHeader, NewEvent

MAX_TYPE = limits.MAX_EVENT_TYPE
MAX_ACTOR = limits.MAX_PLAYER_ID
MAX_DATA = 64 * 1024
#: The store's visibility column: the one seat of a private event, or one of these.
AUDITORS = -2

CAUSE_NAMES = limits.CAUSES


class EventError(ValueError):
    """An event a writer sent that can never be stored: ``reason`` and the field path."""

    def __init__(self, reason: str, message: str, field: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.field = field


def encode(event: common_pb2.Event) -> bytes:
    """The bytes stored and hashed: deterministic serialization (map order fixed) of the event
    without its typed body, which is derived from data_json whenever an event is sent (so a
    reader re-hashing a streamed event gets the stored link, and the chains stored before the
    typed bodies existed stay valid)."""
    if event.WhichOneof("body") is not None:
        event = without_body(_copy(event))
    data: bytes = event.SerializeToString(deterministic=True)
    return data


def _copy(event: common_pb2.Event) -> common_pb2.Event:
    out = common_pb2.Event()
    out.CopyFrom(event)
    return out


def decode(payload: bytes) -> common_pb2.Event:
    event = common_pb2.Event()
    event.ParseFromString(payload)
    return event


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


def header_of(
    data: Mapping[str, Any], field: str, game_id: str
) -> tuple[GameHeader, rules.Variant]:
    """The store's header for a ``game_header`` body, and the game's variant (with its room's
    overrides).  Raises :class:`EventError` (``BAD_HEADER``) naming the bad field."""
    try:
        record = header_record(data)
        state = rules.initial_state(record)
    except rules.RecordError as exc:
        path = f"{field}.{exc.field}" if exc.field else field
        raise EventError(ServiceReason.BAD_HEADER, f"bad game header: {exc}", path) from None
    except (rules.RulesError, rules.VariantError) as exc:
        raise EventError(ServiceReason.BAD_HEADER, f"bad game header: {exc}", field) from None
    v: rules.Variant = state.variant
    if "game_id" in data and data["game_id"] != game_id:
        # A game's events belong to its id: they are refused elsewhere, never re-addressed.
        raise EventError(
            ServiceReason.BAD_HEADER, f"the header is game {data['game_id']!r}, not {game_id!r}",
            f"{field}.game_id",
        )  # fmt: skip
    players = data.get("players") or []
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise EventError(
            ServiceReason.BAD_HEADER, "players must be a list of player ids", f"{field}.players"
        )
    for i, p in enumerate(players):
        try:
            limits.player_id(p, f"{field}.players[{i}]")
        except limits.LimitError as exc:
            raise EventError(ServiceReason.BAD_HEADER, str(exc), exc.field) from None
    if players and len(players) != v.players:
        raise EventError(
            ServiceReason.BAD_HEADER, f"{v.name} seats {v.players} players, not {len(players)}",
            f"{field}.players",
        )  # fmt: skip
    return GameHeader(v.name, record.rules_version, players), v


# --------------------------------------------------------------------------- appending
@dataclass(frozen=True)
class Prepared:
    """What the store needs for one append, built from the events a writer sent: the events
    with their envelopes completed (``sent``, in order) and serialized (``events``)."""

    events: list[NewEvent]
    sent: list[common_pb2.Event]
    header: GameHeader | None
    variant: rules.Variant | None  # the header's, when this append carries it


def prepare_append(
    game_id: str,
    expected_seq: int,
    sent: Sequence[common_pb2.Event],
    variant: rules.Variant | None,
    now: datetime,
) -> Prepared:
    """Check and complete the envelopes (game id, sequence numbers, server time) and serialize
    each event.  ``variant`` is the game's (None for a new game: the header gives it).  This
    checks the shape of each event; whether it follows from the game is the rules' to say
    (:meth:`~services.replay.games.ReplayGames.append`)."""
    if not sent:
        raise EventError(ServiceReason.NO_EVENTS, "an append needs at least one event", "events")
    header: GameHeader | None = None
    ended = False
    out: list[NewEvent] = []
    completed: list[common_pb2.Event] = []
    stamp = timestamp_of(now)
    for i, original in enumerate(sent):
        where = f"events[{i}]"
        seq = expected_seq + i + 1
        ev = without_body(_copy(original))  # the stored form: data_json is the body that counts
        env = ev.envelope
        if env.game_id and env.game_id != game_id:
            raise EventError(
                ServiceReason.BAD_EVENT, f"event for game {env.game_id!r}", f"{where}.envelope"
            )
        if env.seq and env.seq != seq:
            raise EventError(
                ServiceReason.BAD_EVENT,
                f"event seq {env.seq} where {seq} comes next",
                f"{where}.envelope.seq",
            )
        if ev.type not in EVENT_TYPES:
            raise EventError(
                ServiceReason.BAD_EVENT,
                f"unknown event type {ev.type[:MAX_TYPE]!r}"
                f" (known: {', '.join(sorted(EVENT_TYPES))})",
                f"{where}.type",
            )
        try:
            limits.player_id(env.actor, f"{where}.envelope.actor", required=False)
            limits.cause(env.cause, f"{where}.envelope.cause")
            for name in ("server_time", "turn_deadline"):
                if env.HasField(name):
                    limits.timestamp(getattr(env, name), f"{where}.envelope.{name}")
        except limits.LimitError as exc:
            raise EventError(ServiceReason.BAD_EVENT, str(exc), exc.field) from None
        if len(ev.data_json) > MAX_DATA:
            raise EventError(ServiceReason.BAD_EVENT, "data_json is too long", f"{where}.data_json")
        try:
            data = json.loads(ev.data_json) if ev.data_json else {}
        except (ValueError, RecursionError):
            data = None
        if not isinstance(data, dict):
            raise EventError(
                ServiceReason.BAD_EVENT, "data_json must be a JSON object", f"{where}.data_json"
            )
        if ended:
            raise EventError(ServiceReason.EVENTS_AFTER_END, "no event may follow game_over", where)
        if seq == 1:
            if ev.type != HEADER:
                raise EventError(
                    ServiceReason.NO_HEADER, "a game's first event is its game_header", where
                )
            header, variant = header_of(data, f"{where}.data_json", game_id)
            if env.visibility == common_pb2.VISIBILITY_UNSPECIFIED:
                env.visibility = common_pb2.VISIBILITY_AUDITOR
            if env.visibility != common_pb2.VISIBILITY_AUDITOR:
                raise EventError(
                    ServiceReason.BAD_HEADER,
                    "the game_header is for auditors only (its seed reveals every hand)",
                    f"{where}.envelope.visibility",
                )
        elif ev.type == HEADER:
            raise EventError(
                ServiceReason.HEADER_NOT_FIRST, "only a game's first event is its header", where
            )
        assert variant is not None  # seq 1 set it, or the caller knew the game
        if env.visibility == common_pb2.VISIBILITY_UNSPECIFIED:
            env.visibility = common_pb2.VISIBILITY_PUBLIC
        if env.visibility == common_pb2.VISIBILITY_SEAT:
            if not env.HasField("seat") or not 0 <= env.seat < variant.players:
                raise EventError(
                    RulesReason.NO_SUCH_SEAT,
                    f"a private event names one seat of {variant.players}",
                    f"{where}.envelope.seat",
                )
            visibility = int(env.seat)
        elif env.HasField("seat"):
            # A seat on a public (or the header's) event would be dropped silently: a writer
            # that sets one means something this envelope cannot say.
            raise EventError(
                RulesReason.NO_SUCH_SEAT,
                "only a seat's private event names a seat (visibility SEAT)",
                f"{where}.envelope.seat",
            )
        elif env.visibility == common_pb2.VISIBILITY_PUBLIC:
            visibility = PUBLIC
        elif env.visibility == common_pb2.VISIBILITY_AUDITOR and ev.type == HEADER:
            visibility = AUDITORS
        else:
            raise EventError(
                ServiceReason.BAD_EVENT, "unknown visibility", f"{where}.envelope.visibility"
            )
        ended = ev.type == GAME_OVER
        env.game_id = game_id
        env.seq = seq
        if not env.HasField("server_time"):
            env.server_time.CopyFrom(stamp)
        completed.append(ev)
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
    return Prepared(out, completed, header, variant if header is not None else None)
