"""Typed bodies (wire.py) say what data_json says: for every event of whole games of every
variant (every event type among them), for every view along the way, and for every item of
a seat's stream and of replay's stream on real servers.  Every event type and table event
type has its typed message, so a new type without one fails here.

The comparison is written apart from the conversion: ``expected_*`` says, from the JSON,
which field of the message holds which key, and :func:`differences` walks the message's
descriptor, so a key that no field holds, a field left unset, or a value that differs is
reported."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any

import pytest
from google.protobuf.message import Message

from services import rules
from services.common import wire
from services.common.wire import common_pb2, matchmaker_pb2

VARIANTS = ["doudizhu3", "doudizhu4", "zhengshangyou", "zhengshangyou2"]


# --------------------------------------------------------------------------- the comparison
def differences(msg: Message, want: Mapping[str, Any], path: str = "") -> list[str]:
    """Where ``msg`` and the JSON object ``want`` (keys named like the fields; None or no key:
    the field unset) part.  Enums are compared by value name; *_json fields as JSON."""
    out: list[str] = []
    fields = {f.name: f for f in msg.DESCRIPTOR.fields}
    for key in want:
        if key not in fields:
            out.append(f"{path}{key}: no field holds it")
    for name, field in fields.items():
        where = f"{path}{name}"
        value = want.get(name)
        got = getattr(msg, name)
        repeated = field.is_repeated
        if field.message_type is not None:
            if repeated:
                items = list(value or [])
                if len(got) != len(items):
                    out.append(f"{where}: {len(got)} items, JSON has {len(items)}")
                    continue
                for i, (g, w) in enumerate(zip(got, items, strict=True)):
                    out.extend(differences(g, w, f"{where}[{i}]."))
            elif value is None:
                if msg.HasField(name):
                    out.append(f"{where}: set, JSON has none")
            elif not msg.HasField(name):
                out.append(f"{where}: unset, JSON has {value!r}")
            else:
                out.extend(differences(got, value, f"{where}."))
            continue
        if field.enum_type is not None:
            got = field.enum_type.values_by_number[got].name
            value = value if value is not None else field.enum_type.values[0].name
        elif repeated:
            got, value = list(got), list(value or [])
        elif name.endswith("_json"):
            got = json.loads(got) if got else None
        elif field.has_presence:
            if msg.HasField(name) != (value is not None):
                out.append(f"{where}: presence {msg.HasField(name)}, JSON has {value!r}")
                continue
            if value is None:
                continue
        elif value is None:
            value = field.default_value
        if got != value:
            out.append(f"{where}: {got!r}, JSON has {value!r}")
    return out


def expected_settlement(s: Mapping[str, Any]) -> dict[str, Any]:
    """A settlement message's fields from its JSON (settlement_json left empty)."""
    return {**s, "status": f"GAME_STATUS_{s['status'].upper()}"}


def expected_room(room: Mapping[str, Any]) -> dict[str, Any]:
    bounds = ("stake", "max_multiplier", "escape_multiplier")
    rest = {k: v for k, v in room.items() if k not in bounds}
    return {**{k: room.get(k) for k in bounds}, "overrides_json": rest or None}


def expected_event(kind: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """An event's typed body, from its data_json."""
    want = dict(data)
    if want.get("seat", 0) is None:
        del want["seat"]  # deal, redeal, game_over: no seat acts
    if kind == "game_header":
        want["room"] = expected_room(want["room"])
        deal = want.pop("deal", None)
        if deal is not None and "seed" in deal:
            want["seed"] = deal["seed"]
        elif deal is not None:
            want["hands"] = deal
        table = want.pop("table", None)
        if table is not None:
            want["table_id"], want["game_no"] = table["id"], table["game_no"]
    if kind == "game_over":
        want["settlement"] = expected_settlement(want["settlement"])
    return want


def expected_action(a: Mapping[str, Any]) -> dict[str, Any]:
    want = {k: v for k, v in a.items() if k not in ("by", "as")}
    if "play" in want:
        want["play"] = {"cards": want["play"], "reading": a.get("as")}
    return {"action": want, "by": a.get("by")}


def expected_view(d: Mapping[str, Any]) -> dict[str, Any]:
    """A view's typed fields, from its view_json."""
    want = {k: v for k, v in d.items() if k != "record"}  # the record: view_json only
    want["phase"] = f"PHASE_{d['phase'].upper()}"
    want["status"] = f"GAME_STATUS_{d['status'].upper()}"
    want["room"] = expected_room(d["room"])
    want["bids"] = [{"seat": s, "amount": a} for s, a in d["bids"]]
    want["history"] = [expected_action(a) for a in d["history"]]
    want["view_json"] = dict(d)
    if d["settlement"] is not None:
        want["settlement"] = expected_settlement(d["settlement"])
    return want


def check_event(ev: common_pb2.Event) -> list[str]:
    kind = ev.WhichOneof("body")
    if kind != ev.type:
        return [f"{ev.type}: typed body is {kind!r}"]
    return differences(getattr(ev, kind), expected_event(ev.type, json.loads(ev.data_json)))


def check_table_event(ev: matchmaker_pb2.TableEvent) -> list[str]:
    if ev.type == wire.GAME:
        return check_event(ev.game_event)
    kind = ev.WhichOneof("body")
    if kind != ev.type:
        return [f"table {ev.type}: typed body is {kind!r}"]
    want = json.loads(ev.data_json)
    if ev.type == "game_over":
        want["settlement"] = expected_settlement(want["settlement"])
    return differences(getattr(ev, kind), want, f"table {ev.type}.")


# --------------------------------------------------------------------------- every type
def body_members(message: type[Message]) -> set[str]:
    return {f.name for f in message.DESCRIPTOR.oneofs_by_name["body"].fields}


def test_every_event_type_has_its_typed_message() -> None:
    assert body_members(common_pb2.Event) == {t.value for t in rules.EventType}


def test_every_table_event_type_has_its_typed_message() -> None:
    assert body_members(matchmaker_pb2.TableEvent) == wire.TABLE_EVENT_TYPES


def test_a_table_event_type_without_a_typed_message_is_refused() -> None:
    from services.matchmaker.store import table_event

    assert table_event("ready", {"seat": 1}).type == "ready"
    with pytest.raises(ValueError, match="no typed body"):
        table_event("seat_swapped", {"seat": 1})


def test_the_differences_are_found() -> None:
    """The comparison itself: a wrong value, an unset optional, an unheld key."""
    ev = wire.with_body(common_pb2.Event(type="play", data_json='{"seat":0,"cards":"3s"}'))
    assert check_event(ev) == []
    ev.play.left = 3
    assert check_event(ev) == ["left: 3, JSON has 0"]
    deal = common_pb2.DealEvent(deal_no=0)
    assert differences(deal, {"deal_no": 0, "first_bidder": 0, "x": 1}) == [
        "x: no field holds it",
        "first_bidder: presence False, JSON has 0",
    ]


# --------------------------------------------------------------------------- whole games
def choose(state: rules.GameState, rng: random.Random, game: int) -> rules.Action:
    """A move of the seat to move, steered so that the games hold every event type: the
    first and fourth games pass through their first deal (a redeal, where no bid is forced),
    one switches auto-play on and off, one ends in an escape; the rest is legal moves at
    random."""
    seat = state.turn
    assert seat is not None
    moves = len(state.log)
    if game == 1 and moves == 4:
        return rules.Leave(seat)
    if game == 2 and moves in (2, 3):
        return rules.SetAutoplay(seat, moves == 2)
    legal = rules.legal_actions(state)
    if game % 3 == 0 and state.deal_no == 0:
        passes = [a for a in legal if isinstance(a, rules.Pass)]
        if passes:
            return passes[0]
    shows = [a for a in legal if isinstance(a, rules.ShowHand)]
    if shows:
        return shows[0]
    return rng.choice(legal)


def header_of(state: rules.GameState, game_id: str, n: int) -> dict[str, Any]:
    header = {"game_id": game_id, **rules.write_record(state)}
    del header["actions"]
    header["players"] = [f"p{i}" for i in range(state.variant.players)]
    header["table"] = {"id": "t1", "game_no": n}
    return header


def whole_game(variant: str, game: int) -> list[common_pb2.Event]:
    rng = random.Random(f"{variant}/{game}")
    game_id = f"{variant}.{game}"
    room = rules.Room(stake=2, max_multiplier=64, overrides=(("min_straight", 5),))
    state = rules.new_game(variant, room, seed=f"typed/{game}", game_id=game_id)
    events = [wire.header_message(header_of(state, game_id, game), typed=True)]
    produced = rules.deal_events(state)
    while True:
        events.extend(wire.event_message(e, typed=True) for e in produced)
        if state.turn is None:
            return events
        for seat in range(state.variant.players):
            check_view(rules.seat_view(state, seat))
        state, produced = rules.apply(state, choose(state, rng, game))
        check_view(rules.public_view(state))


def check_view(view: rules.SeatView) -> None:
    msg = wire.view_message(view)
    assert differences(msg, expected_view(view.to_dict())) == []


@pytest.mark.parametrize("variant", VARIANTS)
def test_typed_bodies_say_what_data_json_says_in_whole_games(variant: str) -> None:
    seen: set[str] = set()
    for game in range(6):
        for ev in whole_game(variant, game):
            assert check_event(ev) == [], ev
            # The stored form (no body) gets the same body when it is sent.
            stored = wire.without_body(
                common_pb2.Event().__class__.FromString(ev.SerializeToString())
            )
            assert stored.WhichOneof("body") is None
            assert wire.with_body(stored) == ev
            seen.add(ev.type)
    bidding = rules.variant(variant).bidding
    want = {t.value for t in rules.EventType}
    if not bidding:
        want -= {"bid", "landlord", "bottom", "redeal", "show_hand"}
    elif variant == "doudizhu3":
        want -= {"show_hand", "bottom"}  # public bottom, no showing
    else:
        want -= {"bottom"}
    assert seen >= want


def test_a_seats_header_and_an_explicit_deal() -> None:
    """The header a seat's stream shows (without its deal) and one of an explicit deal."""
    no_deal = {"game_id": "g", "variant": "doudizhu3", "rules_version": 1,
               "room": {"stake": 1, "max_multiplier": None, "escape_multiplier": None},
               "first_bidder": 0}  # fmt: skip
    ev = wire.with_body(common_pb2.Event(type="game_header", data_json=wire.dumps(no_deal)))
    assert check_event(ev) == [] and ev.game_header.WhichOneof("deal") is None
    explicit = {**no_deal, "variant": "zhengshangyou",
                "deal": {"hands": ["3s", "4s", "5s", "6s"], "opener": 0}}  # fmt: skip
    ev = wire.with_body(common_pb2.Event(type="game_header", data_json=wire.dumps(explicit)))
    assert check_event(ev) == [] and ev.game_header.WhichOneof("deal") == "hands"
    assert list(ev.game_header.hands.hands) == ["3s", "4s", "5s", "6s"]


def test_a_settlement_answer_is_whole() -> None:
    state = rules.autoplay_out(rules.new_game("doudizhu4", seed="s", game_id="g"))
    assert state.settlement is not None
    msg = wire.settlement_message(state.settlement)
    d = state.settlement.to_dict()
    assert differences(msg, {**expected_settlement(d), "settlement_json": d}) == []


def test_a_table_events_body() -> None:
    from services.matchmaker.store import table_event

    over = rules.autoplay_out(rules.new_game("doudizhu3", seed="s", game_id="g"))
    assert over.settlement is not None
    bodies = {
        "seated": {"seat": 0, "player_id": "a", "bot": False},
        "bot_joined": {"seat": 1, "player_id": "bot:easy", "bot": True},
        "ready": {"seat": 2},
        "connected": {"seat": 0},
        "reconnected": {"seat": 0},
        "disconnected": {"seat": 0, "grace_ms": 1_790_000_000_000},
        "game_started": {"game_id": "t.1", "game_no": 1, "players": ["a", "b", "c"]},
        "deadline": {"seat": 0, "kind": "bid", "deadline_ms": 1_790_000_000_000},
        "game_over": {"game_id": "t.1", "game_no": 1, "scores": list(over.settlement.scores),
                      "settlement": over.settlement.to_dict()},
        "series": {"games": 1, "totals": [2, -1, -1]},
        "player_left": {"seat": 0, "player_id": "a", "why": "escaped"},
        "table_closed": {"games": 1},
    }  # fmt: skip
    assert set(bodies) == wire.TABLE_EVENT_TYPES
    for kind, data in bodies.items():
        ev = wire.table_event_with_body(table_event(kind, data))
        assert check_table_event(ev) == [], kind


def test_a_trick_move_reads_the_typed_body_else_data_json() -> None:
    """wire.trick_move (the matchmaker's trick at a glance): the same seat and cards from the
    typed body and from data_json alone; a body without a seat takes the envelope's."""
    play = rules.Event("play", 1, {"cards": "3s3hTd", "pattern": "x", "left": 4})
    pas = rules.Event("pass", 2, {})
    for e, want in ((play, (1, "3s3hTd")), (pas, (2, ""))):
        typed = wire.event_message(e, typed=True)
        assert typed.WhichOneof("body") == e.type
        assert wire.trick_move(typed) == want
        assert wire.trick_move(wire.without_body(typed)) == want
    bare = common_pb2.Event(type="pass", data_json="{}")
    bare.envelope.seat = 2
    assert wire.trick_move(bare) == (2, "")
    assert wire.trick_move(common_pb2.Event(type="pass", data_json='{"seat": "x"}')) == (None, "")
