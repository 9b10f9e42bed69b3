"""The one conversion between the rules' values and protobuf, used by every service.

The rules' values and their JSON (record) forms are converted in :mod:`services.rules.codec`;
this module puts them into and takes them out of the ``cardroom.v1`` messages: actions, the
event envelope every event travels in (DESIGN.md "The event envelope"), views, settlements and
patterns.  The generated modules are imported here and only here (import-linter checks it):
services take ``wire.engine_pb2`` and friends from this module.
"""

from __future__ import annotations

import functools
import json
from collections.abc import AsyncIterable, AsyncIterator, Mapping
from typing import Any, Final

from cardroom.v1 import (
    common_pb2,
    engine_pb2,
    engine_pb2_grpc,
    matchmaker_pb2,
    matchmaker_pb2_grpc,
    replay_pb2,
    replay_pb2_grpc,
)
from google.protobuf import timestamp_pb2

from services import rules
from services.common.reasons import RulesReason

from .fields import cards_of, text
from .grpc_errors import invalid, missing

__all__ = [
    "common_pb2",
    "engine_pb2",
    "engine_pb2_grpc",
    "matchmaker_pb2",
    "matchmaker_pb2_grpc",
    "replay_pb2",
    "replay_pb2_grpc",
    "timestamp_pb2",
]

# --------------------------------------------------------------------------- events
HEADER: Final = rules.EventType.GAME_HEADER
GAME_OVER: Final = rules.EventType.GAME_OVER
#: Events that are a seat's action (re-executed); every other type is a result of one.
ACTION_TYPES: Final = frozenset(t for t in rules.EventType if t.is_action)
#: Every event type a game's log may hold: the header and what the rules produce.
EVENT_TYPES: Final = frozenset(rules.EventType)
#: The record's "by" of an action, from its event's cause (DESIGN.md action forms), and back.
BY_OF_CAUSE: Final = {
    common_pb2.CAUSE_TIMEOUT: "timeout",
    common_pb2.CAUSE_AUTOPLAY: "autoplay",
}
CAUSE_OF_BY: Final = {by: cause for cause, by in BY_OF_CAUSE.items()}

_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def dumps(value: Any) -> str:
    """Compact JSON, as event bodies are written (one encoder: this runs per event)."""
    return _ENCODER.encode(value)


def now() -> timestamp_pb2.Timestamp:
    ts = timestamp_pb2.Timestamp()
    ts.GetCurrentTime()
    return ts


def event_data(e: rules.Event) -> dict[str, Any]:
    """A rules event's body, as its ``data_json`` holds it: the acting seat and its data."""
    return {"seat": e.seat, **e.data}


def event_message(
    e: rules.Event,
    *,
    game_id: str = "",
    seq: int = 0,
    actor: str = "",
    cause: common_pb2.Cause = common_pb2.CAUSE_UNSPECIFIED,
    deadline: timestamp_pb2.Timestamp | None = None,
    server_time: timestamp_pb2.Timestamp | None = None,
    typed: bool = False,
) -> common_pb2.Event:
    """A rules event in its envelope: public, or private to the one seat it is for.  With
    ``typed``, its typed body too (for an answer; the stored form has none)."""
    env = common_pb2.EventEnvelope(game_id=game_id, seq=seq, actor=actor, cause=cause)
    if server_time is not None:
        env.server_time.CopyFrom(server_time)
    if e.to is None:
        env.visibility = common_pb2.VISIBILITY_PUBLIC
    else:
        env.visibility = common_pb2.VISIBILITY_SEAT
        env.seat = e.to
    if deadline is not None:
        env.turn_deadline.CopyFrom(deadline)
    data = event_data(e)
    msg = common_pb2.Event(envelope=env, type=e.type, data_json=dumps(data))
    if typed:
        _fill_event_body(msg, data)
    return msg


def header_message(
    header: Mapping[str, Any],
    *,
    game_id: str = "",
    actor: str = "",
    server_time: timestamp_pb2.Timestamp | None = None,
    typed: bool = False,
) -> common_pb2.Event:
    """The ``game_header`` event (a game record without actions or result), for auditors
    only: its seed reveals every hand.  It is always a game's seq 1.  ``typed``: as in
    :func:`event_message`."""
    data = {k: v for k, v in header.items() if k not in ("actions", "result")}
    env = common_pb2.EventEnvelope(
        game_id=game_id, actor=actor, visibility=common_pb2.VISIBILITY_AUDITOR
    )
    if game_id:
        env.seq = 1
    if server_time is not None:
        env.server_time.CopyFrom(server_time)
    msg = common_pb2.Event(envelope=env, type=HEADER, data_json=dumps(data))
    if typed:
        _fill_event_body(msg, data)
    return msg


def data_of(event: common_pb2.Event) -> dict[str, Any]:
    """An event's body; {} when it is not a JSON object (only a tampered row can be)."""
    try:
        value = json.loads(event.data_json) if event.data_json else {}
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def seat_of_event(event: common_pb2.Event) -> int | None:
    """The one seat a private event is for, or None for a public (or auditor-only) one."""
    env = event.envelope
    if env.visibility == common_pb2.VISIBILITY_SEAT and env.HasField("seat"):
        return int(env.seat)
    return None


class BadEvent(ValueError):
    """An action event that names no valid action."""


def action_of_event(ev: common_pb2.Event, state: rules.GameState) -> rules.Action:
    """The rules action an action event records.  ``by`` comes from the envelope's cause; a
    lead whose cards read several ways names the reading the event recorded."""
    data = data_of(ev)
    seat = data.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise BadEvent("the event names no seat")
    by = BY_OF_CAUSE.get(ev.envelope.cause)
    kind = ev.type
    if kind == "bid":
        amount = data.get("amount")
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise BadEvent("a bid event needs its amount")
        return rules.Bid(seat, amount, by)
    if kind == "pass":
        return rules.Pass(seat, by)
    if kind == "play":
        cards_text = data.get("cards")
        if not isinstance(cards_text, str):
            raise BadEvent("a play event needs its cards")
        try:
            cards = rules.parse_cards(cards_text)
            reading = None
            pattern = data.get("pattern")
            if (
                state.last is None
                and isinstance(pattern, str)
                and len(rules.readings(state.variant, cards)) > 1
            ):
                reading = pattern
        except rules.RulesError as exc:
            raise BadEvent(str(exc)) from None
        return rules.PlayCards(seat, cards, reading, by)
    if kind == "show_hand":
        return rules.ShowHand(seat)
    if kind == "leave":
        return rules.Leave(seat)
    on = data.get("on")
    if not isinstance(on, bool):
        raise BadEvent("an autoplay event needs on: true or false")
    return rules.SetAutoplay(seat, on)


# --------------------------------------------------------------------------- typed bodies
# Every event travels with its body as JSON (data_json: what the store hashes and auditors
# re-execute) and, when sent, as a typed message too: the member of the ``body`` oneof named
# like the event's type.  This is the one place that converts the JSON bodies into the typed
# ones; the fields of a typed body are named like the keys of the JSON object, so most of a
# body is copied by name (_copy_fields) and only nested objects are converted by hand.
# tests/common/test_typed_bodies.py checks, for every event of whole games, that both say
# the same thing.

#: Every table event type a seat's stream carries besides "game" (the matchmaker writes no
#: other: services/matchmaker/store.py's table_event refuses an unknown one).
TABLE_EVENT_TYPES: Final = frozenset(
    {
        "seated",
        "bot_joined",
        "ready",
        "connected",
        "reconnected",
        "disconnected",
        "game_started",
        "deadline",
        "game_over",
        "series",
        "player_left",
        "table_closed",
    }
)
#: The type of a table event that carries a game event (in ``game_event``).
GAME: Final = "game"
#: Keys of a settlement's JSON that its message holds in other fields, or not at all.
_SETTLEMENT_SPECIAL: Final = frozenset({"status", "factors", "steps", "bombs"})
_ROOM_FIELDS: Final = ("stake", "max_multiplier", "escape_multiplier")


@functools.cache
def _scalar_fields(descriptor: Any) -> tuple[tuple[str, bool], ...]:
    """The scalar fields of a message type (name, repeated): what _copy_fields sets."""
    return tuple((f.name, f.is_repeated) for f in descriptor.fields if f.message_type is None)


def _copy_fields(msg: Any, data: Mapping[str, Any], skip: frozenset[str] = frozenset()) -> None:
    """Set every scalar (and repeated scalar) field of ``msg`` that ``data`` holds under its
    name, not null; the rest of ``data`` is the caller's."""
    for name, repeated in _scalar_fields(msg.DESCRIPTOR):
        value = data.get(name)
        if value is None or name in skip:
            continue
        if repeated:
            getattr(msg, name).extend(value)
        else:
            setattr(msg, name, value)


def room_message(room: Mapping[str, Any]) -> common_pb2.Room:
    """A room in its JSON form (a game record's) as its message: the stake and bounds in their
    fields, the rest (variant overrides, table settings) in overrides_json."""
    msg = common_pb2.Room()
    _copy_fields(msg, room, skip=frozenset({"overrides_json"}))
    rest = {k: v for k, v in room.items() if k not in _ROOM_FIELDS}
    if rest:
        msg.overrides_json = dumps(rest)
    return msg


def settlement_of_dict(data: Mapping[str, Any], msg: common_pb2.Settlement) -> None:
    """Fill ``msg`` from a settlement's JSON (rules.Settlement.to_dict); settlement_json is
    left to the caller (a typed event body leaves it empty: data_json holds the object)."""
    _copy_fields(msg, data, skip=_SETTLEMENT_SPECIAL | {"settlement_json"})
    msg.status = _STATUSES.get(data.get("status", ""), common_pb2.GAME_STATUS_UNSPECIFIED)
    for f in data.get("factors") or ():
        msg.factors.add(name=f["name"], value=f["value"], detail=f["detail"])
    for t in data.get("steps") or ():
        msg.steps.add(name=t["name"], value=t["value"], how=t["how"])
    for b in data.get("bombs") or ():
        msg.bombs.add(seat=b["seat"], kind=b["kind"], size=b["size"], rank=b["rank"], led=b["led"])


def _header_body(msg: common_pb2.GameHeaderEvent, data: Mapping[str, Any]) -> None:
    _copy_fields(msg, data)
    if isinstance(data.get("room"), Mapping):
        msg.room.CopyFrom(room_message(data["room"]))
    deal = data.get("deal")
    if isinstance(deal, Mapping):
        if "seed" in deal:
            msg.seed = deal["seed"]
        else:
            _copy_fields(msg.hands, deal)
            msg.hands.SetInParent()  # an explicit deal with empty hands is still one
    table = data.get("table")
    if isinstance(table, Mapping):
        msg.table_id = table.get("id", "")
        msg.game_no = table.get("game_no", 0)


def _game_over_body(msg: Any, data: Mapping[str, Any]) -> None:
    _copy_fields(msg, data)
    if isinstance(data.get("settlement"), Mapping):
        settlement_of_dict(data["settlement"], msg.settlement)
    if isinstance(msg, matchmaker_pb2.TableGameOverEvent):
        for h in data.get("hands") or ():  # every seat's cards left, public at the end
            msg.hands.add(seat=h["seat"], cards=h["cards"])


def _fill_body(msg: Any, data: Mapping[str, Any]) -> None:
    if isinstance(msg, common_pb2.GameHeaderEvent):
        _header_body(msg, data)
    elif isinstance(msg, common_pb2.GameOverEvent | matchmaker_pb2.TableGameOverEvent):
        _game_over_body(msg, data)
    else:
        _copy_fields(msg, data)
    msg.SetInParent()  # a body with every field at its default (seat 0 passes) is still set


def _fill_event_body(event: common_pb2.Event, data: Mapping[str, Any]) -> None:
    if event.type in EVENT_TYPES:
        _fill_body(getattr(event, event.type), data)


def with_body(event: common_pb2.Event) -> common_pb2.Event:
    """``event`` with its typed body (in place, and returned), from its data_json; one whose
    body is set already is left as it is."""
    if event.WhichOneof("body") is None:
        _fill_event_body(event, data_of(event))
    return event


def trick_move(event: common_pb2.Event) -> tuple[int | None, str]:
    """A play's or a pass's seat and cards ("" for a pass): from its typed body when it has
    one (the engine's answers do: no JSON to parse), else from data_json."""
    body = event.WhichOneof("body")
    if body == "play":
        return event.play.seat, event.play.cards
    if body == "pass":
        return getattr(event, "pass").seat, ""
    data = data_of(event)
    seat = data.get("seat", event.envelope.seat)
    return (seat if isinstance(seat, int) else None), str(data.get("cards", ""))


def without_body(event: common_pb2.Event) -> common_pb2.Event:
    """``event`` without its typed body (in place, and returned): the form the replay store
    keeps and hashes, whatever a writer sent (data_json is the body that counts)."""
    event.ClearField("body")
    return event


async def batched_events(
    call: AsyncIterable[matchmaker_pb2.TableEventBatch],
) -> AsyncIterator[matchmaker_pb2.TableEvent]:
    """The items of a SubscribeBatched stream one by one, as Subscribe would give them."""
    async for batch in call:
        for event in batch.events:
            yield event


def table_event_with_body(event: matchmaker_pb2.TableEvent) -> matchmaker_pb2.TableEvent:
    """A seat stream's item with its typed body (in place, and returned): the table event's
    own, or its game event's."""
    if event.type == GAME:
        with_body(event.game_event)
    elif event.WhichOneof("body") is None and event.type in TABLE_EVENT_TYPES:
        try:
            data = json.loads(event.data_json) if event.data_json else {}
        except ValueError:
            data = {}
        _fill_body(getattr(event, event.type), data if isinstance(data, dict) else {})
    return event


# --------------------------------------------------------------------------- actions
def action_of(msg: engine_pb2.Action, field: str = "action") -> rules.Action:
    """The rules action of a message; the seat is checked by the rules (NO_SUCH_SEAT)."""
    kind = msg.WhichOneof("kind")
    seat = msg.seat
    if kind is None:
        raise missing(f"{field}.kind")
    if kind == "bid":
        if not 1 <= msg.bid <= 3:
            raise invalid(RulesReason.BAD_BID, f"a bid is 1, 2 or 3, not {msg.bid}", f"{field}.bid")
        return rules.Bid(seat, msg.bid)
    if kind == "pass":
        if not getattr(msg, "pass"):  # a Python keyword: no attribute syntax
            raise invalid(RulesReason.BAD_ACTION, "pass must be true", f"{field}.pass")
        return rules.Pass(seat)
    if kind == "play":
        cards = cards_of(msg.play.cards, f"{field}.play.cards")
        reading = text(msg.play.reading, f"{field}.play.reading", required=False) or None
        return rules.PlayCards(seat, tuple(cards), reading)
    if kind == "autoplay":
        return rules.SetAutoplay(seat, msg.autoplay)
    flag: bool = getattr(msg, kind)
    if not flag:
        raise invalid(RulesReason.BAD_ACTION, f"{kind} must be true", f"{field}.{kind}")
    if kind == "show_hand":
        return rules.ShowHand(seat)
    if kind == "leave":
        return rules.Leave(seat)
    return rules.Timeout(seat)


def action_message(action: rules.Action) -> engine_pb2.Action:
    msg = engine_pb2.Action()
    fill_action(msg, action)
    return msg


def fill_action(msg: engine_pb2.Action, action: rules.Action) -> None:
    """Set an empty Action message to ``action`` (in place: a list of legal actions is built
    in its response, not copied into it message by message)."""
    msg.seat = action.seat
    if isinstance(action, rules.Bid):
        msg.bid = action.amount
    elif isinstance(action, rules.Pass):
        setattr(msg, "pass", True)
    elif isinstance(action, rules.PlayCards):
        msg.play.cards = rules.format_cards(action.cards)
        msg.play.reading = action.reading or ""
    elif isinstance(action, rules.ShowHand):
        msg.show_hand = True
    elif isinstance(action, rules.Leave):
        msg.leave = True
    elif isinstance(action, rules.SetAutoplay):
        msg.autoplay = action.on
    else:
        msg.timeout = True


# --------------------------------------------------------------------------- views
def pattern_message(p: rules.Pattern) -> engine_pb2.Pattern:
    d = p.to_dict()
    return engine_pb2.Pattern(
        kind=str(d["kind"]),
        rank=str(d["rank"]),
        length=p.length,
        size=p.size,
        low=p.low,
        wings=str(d["wings"]),
        reading=p.reading,
    )


_PHASES = {p.value: getattr(engine_pb2, f"PHASE_{p.name}") for p in rules.Phase}
_STATUSES = {s.value: getattr(common_pb2, f"GAME_STATUS_{s.name}") for s in rules.Status}


@functools.lru_cache(maxsize=1 << 16)
def _history_item(action: rules.Action) -> bytes:
    """One item of a view's history, as the bytes of a View holding only it: every view
    repeats its deal's whole history after every move, so each action is converted once
    (actions are frozen values; rules.action_to_dict memoises their JSON the same way) and
    a history is the concatenation of its items' bytes, which parsing appends in order."""
    one = engine_pb2.View()
    item = one.history.add(by=getattr(action, "by", None) or "")
    fill_action(item.action, action)
    data: bytes = one.SerializeToString()
    return data


def view_message(view: rules.SeatView) -> engine_pb2.View:
    d = view.to_dict()
    msg = engine_pb2.View(
        variant=view.variant.name,
        phase=_PHASES.get(view.phase, engine_pb2.PHASE_UNSPECIFIED),
        status=_STATUSES.get(view.status, common_pb2.GAME_STATUS_UNSPECIFIED),
        counts=view.counts,
        bid=view.bid,
        view_json=dumps(d),
        deal_no=view.deal_no,
        autoplay=view.autoplay,
        must_bid=bool(view.must_bid),
        must_hold=d["must_hold"] or "",
        room=room_message(d["room"]),
    )
    if view.seat is not None:
        msg.seat = view.seat
    if view.turn is not None:
        msg.turn = view.turn
    if view.hand is not None:
        msg.hand = rules.format_cards(view.hand)
    if view.landlord is not None:
        msg.landlord = view.landlord
    if view.bottom is not None:
        msg.bottom = rules.format_cards(view.bottom)
    if view.last is not None:
        msg.last_play = rules.format_cards(view.last.cards)
        msg.last_pattern = view.last.pattern.reading
    if view.last_seat is not None:
        msg.last_seat = view.last_seat
    if view.shown_hand is not None:
        msg.shown_hand = rules.format_cards(view.shown_hand)
    if view.first_bidder is not None:
        msg.first_bidder = view.first_bidder
    if view.opener is not None:
        msg.opener = view.opener
    for seat, amount in view.bids:
        msg.bids.add(seat=seat, amount=amount)
    if view.history:
        msg.MergeFromString(b"".join(map(_history_item, view.history)))
    if d["settlement"] is not None:
        settlement_of_dict(d["settlement"], msg.settlement)  # view_json holds its JSON
    if d["hands"] is not None:
        msg.hands.extend(d["hands"])
    return msg


def settlement_message(s: rules.Settlement) -> common_pb2.Settlement:
    d = s.to_dict()
    msg = common_pb2.Settlement(settlement_json=dumps(d))
    settlement_of_dict(d, msg)
    return msg


def rating_change(game_id: str, variant: str, change: Mapping[str, Any]) -> replay_pb2.RatingChange:
    """The RatingChange message of one seat's row of a rated game's changes
    (services/ratings: ``seat``, ``player_id``, ``mu_before``, ``sigma_before``, ``mu``,
    ``sigma``), with the displayed ratings before and after."""
    from services.ratings.model import Rating

    before = Rating(float(change["mu_before"]), float(change["sigma_before"]))
    after = Rating(float(change["mu"]), float(change["sigma"]))
    return replay_pb2.RatingChange(
        game_id=game_id, variant=variant, mu_before=before.mu, sigma_before=before.sigma,
        mu=after.mu, sigma=after.sigma, display_before=before.display, display=after.display,
        seat=int(change["seat"]), player_id=str(change["player_id"]),
    )  # fmt: skip
