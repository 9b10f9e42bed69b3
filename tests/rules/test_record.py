"""Game records: validation naming the field, replay errors naming index, seat and reason."""

from __future__ import annotations

import json

import pytest

from services.engine.game_cli import play_out
from services.rules import (
    RecordError,
    ReplayError,
    load_record,
    new_game,
    replay,
    write_record,
)

BASE = {"variant": "doudizhu3", "deal": {"seed": "cardroom"}}


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"variant": "poker"}, "variant"),
        ({"variant": 3}, "variant"),
        ({"rules_version": 99}, "rules_version"),
        ({"deal": {"seed": ""}}, "deal.seed"),
        ({"deal": {"hands": ["3s", "4s"]}}, "deal.hands"),
        ({"deal": {"hands": ["3s", "4x", "5s"], "bottom": ""}, "first_bidder": 0}, "deal.hands[1]"),
        ({"deal": {"hands": ["3s", "4s", "5s"]}}, "first_bidder"),
        ({"first_bidder": 5}, "first_bidder"),
        ({"room": {"stake": 0}}, "room.stake"),
        ({"room": {"no_such_field": 1}}, "room.no_such_field"),
        ({"actions": [{"seat": 0}]}, "actions[0]"),
        ({"actions": [{"seat": 0, "bid": 1, "pass": True}]}, "actions[0]"),
        ({"actions": [{"seat": 0, "play": "3q"}]}, "actions[0].play"),
        ({"actions": [{"seat": "0", "bid": 1}]}, "actions[0].seat"),
        ({"actions": [{"seat": 0, "bid": 1, "by": "magic"}]}, "actions[0].by"),
    ],
)
def test_malformed_records_name_the_field(patch: dict[str, object], field: str) -> None:
    with pytest.raises(RecordError) as exc:
        load_record({**BASE, **patch})
    assert exc.value.field == field


def test_illegal_action_names_index_seat_and_reason() -> None:
    rec = {
        "variant": "doudizhu4",
        "deal": {"hands": ["3s", "BJ BJ RJ RJ 4s", "5s", "6s"], "bottom": "7s"},
        "first_bidder": 0,
        "actions": [{"seat": 0, "pass": True}, {"seat": 1, "pass": True}],
    }
    with pytest.raises(ReplayError) as exc:
        replay(rec)
    assert (exc.value.index, exc.value.seat, exc.value.reason) == (1, 1, "MUST_BID")


def test_record_round_trip_keeps_by_and_timeouts() -> None:
    s = new_game("zsy1", seed="rt")
    s = play_out(s)
    rec = json.loads(json.dumps(write_record(s, {"game_id": "g1"})))
    assert rec["game_id"] == "g1" and all(a.get("by") == "autoplay" for a in rec["actions"])
    assert "first_bidder" not in rec
    assert replay(rec) == s
    timeout_rec = {**rec, "actions": [{"seat": a["seat"], "timeout": True} for a in rec["actions"]]}
    final = replay(timeout_rec)
    assert final.settlement == s.settlement
    assert write_record(final)["actions"][0]["by"] == "timeout"
