"""Issue 8 repros over gRPC: a room either deals a game that can be played to its end with every
score within the bounds, or NewGame and Settle refuse it (INVALID_ARGUMENT, naming the field)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from cardroom.v1 import common_pb2, engine_pb2

from services import rules

from .test_basics import INVALID, refused
from .test_game import act, apply, play_out

INT64_MAX = 2**63 - 1


def _new_game(variant: str, room: common_pb2.Room, seed: str = "cardroom") -> Any:
    return engine_pb2.NewGameRequest(variant=variant, room=room, deal=engine_pb2.Deal(seed=seed))


def _record(variant: str, room: dict[str, Any], actions: list[dict[str, Any]]) -> str:
    return json.dumps(
        {"variant": variant, "room": room, "deal": {"seed": "cardroom"}, "actions": actions}
    )


@pytest.mark.parametrize(
    ("room", "reason", "field"),
    [
        (common_pb2.Room(stake=4611686018427387904), "INVALID_ROOM", "room.stake"),
        (common_pb2.Room(stake=10**15), "INVALID_ROOM", "room.stake"),
        (common_pb2.Room(max_multiplier=2**62), "INVALID_ROOM", "room.max_multiplier"),
        (common_pb2.Room(escape_multiplier=2**62), "INVALID_ROOM", "room.escape_multiplier"),
        (common_pb2.Room(max_multiplier=0), "INVALID_ROOM", "room.max_multiplier"),
        (
            common_pb2.Room(overrides_json=json.dumps({"rocket_factor": 10**18})),
            "INVALID_OVERRIDE",
            "room.overrides_json.rocket_factor",
        ),
        (
            common_pb2.Room(overrides_json=json.dumps({"bomb_factors": {"4": 10**18}})),
            "INVALID_OVERRIDE",
            "room.overrides_json.bomb_factors",
        ),
        (
            common_pb2.Room(overrides_json=json.dumps({"spring_factor": 0})),
            "INVALID_OVERRIDE",
            "room.overrides_json.spring_factor",
        ),
    ],
)
def test_huge_room_values_are_refused_at_new_game(
    stub: Any, room: common_pb2.Room, reason: str, field: str
) -> None:
    err = refused(stub.NewGame, _new_game("ddz3", room))
    assert (err.code, err.reason, err.fields) == (INVALID, reason, [field])


@pytest.mark.parametrize(
    ("variant", "overrides", "field"),
    [
        ("zsy1", {"min_straight": 13}, "min_straight"),
        ("ddz3", {"min_straight": 13}, "min_straight"),
        ("zsy1", {"max_plane": 1}, "max_plane"),
        ("ddz3", {"max_plane": 1}, "max_plane"),
        ("zsy1", {"min_triple_chain": 13}, "min_triple_chain"),
        ("ddz3", {"min_triple_chain": 13}, "min_triple_chain"),
        ("zsy1", {"min_straight": 1}, "min_straight"),
        ("zsy1", {"patterns": []}, "patterns"),
        ("zsy1", {"patterns": ["bomb"]}, "patterns"),
        ("zsy2", {"chain_wraps_ace_two": False, "min_straight": 13}, "min_straight"),
        ("ddz3", {"max_deals": 0}, "max_deals"),
    ],
)
def test_rooms_that_could_stall_or_crash_are_refused(
    stub: Any, variant: str, overrides: dict[str, Any], field: str
) -> None:
    room = common_pb2.Room(overrides_json=json.dumps(overrides))
    err = refused(stub.NewGame, _new_game(variant, room))
    assert (err.code, err.reason, err.fields) == (
        INVALID,
        "INVALID_OVERRIDE",
        [f"room.overrides_json.{field}"],
    )
    # Settle refuses the same room, in a JSON record and in a structured one.
    bad = engine_pb2.SettleRequest(record_json=_record(variant, overrides, []))
    err = refused(stub.Settle, bad)
    assert (err.code, err.reason, err.fields) == (INVALID, "INVALID_OVERRIDE", [f"room.{field}"])
    structured = engine_pb2.GameRecord(variant=variant, room=room, deal=engine_pb2.Deal(seed="x"))
    err = refused(stub.Settle, engine_pb2.SettleRequest(structured=structured))
    assert (err.code, err.reason, err.fields) == (
        INVALID,
        "INVALID_OVERRIDE",
        [f"structured.room.overrides_json.{field}"],
    )


def test_settle_refuses_a_huge_stake(stub: Any) -> None:
    actions = [{"seat": 0, "bid": 3}, {"seat": 0, "leave": True}]
    bad = engine_pb2.SettleRequest(record_json=_record("ddz3", {"stake": 2**62}, actions))
    err = refused(stub.Settle, bad)
    assert (err.code, err.reason, err.fields) == (INVALID, "INVALID_ROOM", ["room.stake"])


@pytest.mark.parametrize("variant", list(rules.VARIANTS))
def test_the_largest_stake_a_room_allows_plays_to_its_end(stub: Any, variant: str) -> None:
    """The stake bound is exact: one more is refused, the bound itself plays to the end (and
    an escape at once, the other worst case) with every score within int64."""
    v = rules.variant(variant)
    top = rules.max_stake(v, rules.Room())
    err = refused(stub.NewGame, _new_game(variant, common_pb2.Room(stake=top + 1)))
    assert (err.reason, err.fields) == ("INVALID_ROOM", ["room.stake"])
    start = stub.NewGame(_new_game(variant, common_pb2.Room(stake=top)), timeout=10)
    answer, _ = play_out(stub, start.state, random.Random(variant))
    assert all(abs(s) <= rules.MAX_SCORE for s in answer.settlement.scores)
    escaped = apply(stub, start.state, act(0, leave=True))
    assert escaped.game_over and all(abs(s) <= INT64_MAX for s in escaped.settlement.scores)


@pytest.mark.parametrize("variant", ["zsy1", "zsy2"])
def test_playable_overrides_list_their_actions(stub: Any, variant: str) -> None:
    """max_plane and chain minimums at the edges the room allows: every turn has its actions."""
    edges = {"min_straight": 12, "min_triple_chain": 12, "max_plane": 12}
    room = common_pb2.Room(overrides_json=json.dumps(edges))
    start = stub.NewGame(_new_game(variant, room), timeout=10)
    answer, _ = play_out(stub, start.state, random.Random(1))
    assert answer.game_over
    hint = stub.GetHint(engine_pb2.GetHintRequest(state=start.state, seat=0), timeout=10)
    assert hint is not None


def test_settle_scores_zsy_by_the_rules_version_of_the_record(stub: Any) -> None:
    """RULES.md §5.3: version 1 ignored a Zheng Shangyou room's stake, version 2 multiplies."""
    path = Path(__file__).parents[1] / "rules" / "fixtures" / "zsy_v1_stake5.json"
    for game in json.loads(path.read_text(encoding="utf-8"))["games"]:
        v1 = stub.Settle(engine_pb2.SettleRequest(record_json=json.dumps(game["record"])))
        assert json.loads(v1.settlement.settlement_json) == game["settlement"]
        v2_record = {**game["record"], "rules_version": 2}
        v2 = stub.Settle(engine_pb2.SettleRequest(record_json=json.dumps(v2_record)))
        assert list(v2.settlement.scores) == [5 * s for s in game["settlement"]["scores"]]
    # A new game is of the current version: its stake counts.
    start = stub.NewGame(_new_game("zsy1", common_pb2.Room(stake=5)), timeout=10)
    escaped = apply(stub, start.state, act(start.public_view.turn, leave=True))
    assert list(escaped.settlement.scores).count(-13 * 4 * 5) == 1


def test_table_settings_are_room_values_not_rules(stub: Any) -> None:
    """Timers ride in the room (records written before they left the variant still load),
    are checked as room values, and make no new variant."""
    room = common_pb2.Room(overrides_json=json.dumps({"turn_timeout_s": 10**18}))
    err = refused(stub.NewGame, _new_game("ddz3", room))
    assert (err.code, err.reason, err.fields) == (
        INVALID,
        "INVALID_ROOM",
        ["room.overrides_json.turn_timeout_s"],
    )
    bad = engine_pb2.SettleRequest(record_json=_record("ddz3", {"turn_timeout_s": 0}, []))
    err = refused(stub.Settle, bad)
    assert (err.code, err.reason, err.fields) == (INVALID, "INVALID_ROOM", ["room.turn_timeout_s"])
    ok = common_pb2.Room(overrides_json=json.dumps({"turn_timeout_s": 15}))
    game = stub.NewGame(_new_game("ddz3", ok))
    header = json.loads(game.events[0].data_json)
    assert header["room"]["turn_timeout_s"] == 15
