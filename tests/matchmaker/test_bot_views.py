"""A bot's view is the deal's history this matchmaker kept plus what each Apply added
(``history_delta``): at every bot and auto-play move of whole games it must equal the
engine's full seat view, redeals included.  (These are the moves the matchmaker chooses
itself: a searching bot's, or every one with engine runs off, as here.)"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from cardroom.v1 import engine_pb2, matchmaker_pb2

from services import rules
from services.matchmaker import bots
from services.matchmaker.runner import Runner

from .conftest import FAST, SHORT, Cluster, seated, wait_for
from .test_games import VARIANTS, act, enqueue

M = matchmaker_pb2


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_bot_view_equals_the_engines_full_view(
    cluster: Cluster, variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked: list[tuple[str, int]] = []
    wrong: list[tuple[str, int]] = []
    deltas: list[int] = []
    turn_view = Runner.turn_view
    view_of = bots.view_of

    def counting_view_of(msg: engine_pb2.View, earlier: Any = None) -> rules.SeatView:
        if earlier is not None:
            deltas.append(len(json.loads(msg.view_json)["history"]))
        return view_of(msg, earlier)

    async def checking(self: Runner, table: Any, seat: int) -> rules.SeatView:
        view = await turn_view(self, table, seat)
        full = view_of(await self.engine.seat_view(self.token_of(table), seat))
        checked.append((table.game_id, table.engine_seq))
        if view != full:
            wrong.append((table.game_id, table.engine_seq))
        return view

    monkeypatch.setattr(bots, "view_of", counting_view_of)
    monkeypatch.setattr(Runner, "turn_view", checking)
    cluster.stop_mm()
    cluster.runner = dataclasses.replace(FAST, engine_runs=False)
    cluster.start_mm()
    stub = cluster.mm()
    ticket = seated(stub, enqueue(stub, "ann", variant, timers=SHORT).ticket_id)
    ids = {"table_id": ticket.table_id, "player_id": "ann"}
    for game_no in (1, 2):
        stub.Ready(M.ReadyRequest(**ids), timeout=10)
        wait_for(lambda g=game_no: stub.GetTable(M.GetTableRequest(**ids)).game_no == g)
        act(stub, ticket.table_id, "ann", engine_pb2.Action(autoplay=True))
        wait_for(
            lambda g=game_no: (
                (s := stub.GetTable(M.GetTableRequest(**ids))).game_no == g
                and s.state != M.TABLE_STATE_PLAYING
            ),
            timeout=60,
        )
    assert len(checked) > 20
    assert wrong == []
    # Most views came from a delta, each of an action or a few (not the whole deal).
    assert len(deltas) > len(checked) // 2
    assert max(deltas) < 10


def test_a_redeal_starts_the_history_anew() -> None:
    """A delta whose deal number changed holds the new deal's actions only: the kept history
    of the old deal is dropped."""
    game = rules.new_game(rules.variant("doudizhu3"), seed="redeal")
    view = rules.seat_view(game, 0)
    data = view.to_dict()
    old_action = rules.Pass(seat=2)
    msg = engine_pb2.View(view_json=json.dumps(data))
    assert bots.view_of(msg, (data["deal_no"], (old_action,))).history[0] == old_action
    assert bots.view_of(msg, (data["deal_no"] + 1, (old_action,))).history == view.history
