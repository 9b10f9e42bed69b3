"""Apply's history_delta over a real server: a caller that keeps its own history rebuilds the
full one from the deltas, every other field of the views is the same, and the default is the
whole history.  public_history_delta trims the public view alone: the seat view is the full
one."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from cardroom.v1 import engine_pb2

from .test_game import apply, new_game


def _without_history(view: Any) -> dict[str, Any]:
    data = json.loads(view.view_json)
    data.pop("history")
    return data


def _fields(view: Any) -> Any:
    """The view's proto fields but its view_json and history (what a delta trims)."""
    out = engine_pb2.View()
    out.CopyFrom(view)
    out.ClearField("view_json")
    out.ClearField("history")
    return out


@pytest.mark.parametrize("variant", ["doudizhu3", "doudizhu4", "zhengshangyou1"])
def test_deltas_rebuild_the_history_and_the_rest_is_unchanged(stub: Any, variant: str) -> None:
    rnd = random.Random(variant)
    state = new_game(stub, variant, seed=f"delta-{variant}").state
    kept: list[Any] = []  # the caller's own history of the current deal
    deal_no = 0
    deltas = 0
    for _ in range(400):
        legal = stub.ListLegalActions(engine_pb2.ListLegalActionsRequest(state=state), timeout=10)
        action = rnd.choice(list(legal.actions))
        seat = legal.seat
        full = apply(stub, state, action, view_seat=seat)
        delta = apply(stub, state, action, view_seat=seat, history_delta=True)
        public = apply(stub, state, action, view_seat=seat, public_history_delta=True)
        assert delta.state.seq == full.state.seq == public.state.seq
        assert public.seat_view == full.seat_view
        assert public.public_view.view_json == delta.public_view.view_json
        assert _fields(public.public_view) == _fields(full.public_view)  # turn, phase, ...
        assert [(e.type, e.data_json) for e in delta.events] == [
            (e.type, e.data_json) for e in full.events
        ]
        for a, b in ((full.public_view, delta.public_view), (full.seat_view, delta.seat_view)):
            assert _without_history(a) == _without_history(b)
        public = json.loads(delta.public_view.view_json)
        if public["deal_no"] != deal_no:
            deal_no, kept = public["deal_no"], []  # a redeal: the deal's history starts anew
        added = public["history"]
        deltas += len(added)
        assert len(added) <= 1  # one action per call
        kept += added
        assert kept == json.loads(full.public_view.view_json)["history"]
        assert json.loads(delta.seat_view.view_json)["history"] == added
        state = full.state
        if full.game_over:
            break
    assert full.game_over and deltas > 10


def test_the_default_view_holds_the_whole_history(stub: Any) -> None:
    g = new_game(stub)
    r = apply(stub, g.state, engine_pb2.Action(seat=0, bid=1))
    r = apply(stub, r.state, engine_pb2.Action(seat=1, bid=2))
    history = json.loads(r.public_view.view_json)["history"]
    assert [a["seat"] for a in history] == [0, 1]
    delta = apply(stub, r.state, engine_pb2.Action(seat=2, bid=3), history_delta=True)
    assert [a["seat"] for a in json.loads(delta.public_view.view_json)["history"]] == [2]
