"""Games for the replay tests: records from self-play, and the events a writer (the matchmaker)
appends for them, one batch per action, as the engine service produces them."""

from __future__ import annotations

from typing import Any

import grpc
from cardroom.v1 import common_pb2

from services import rules
from services.common.wire import CAUSE_OF_BY, event_message, header_message
from services.engine.game_cli import play_out

WRITER = "writer-token-0123456789"
AUDITOR = "auditor-token-0123456789"
ALICE = "alice-token-0123456789ab"
BOB = "bob-token-0123456789abcd"
MALLORY = "mallory-token-0123456789"
PLAYERS = ["alice", "bob", "bot:carol"]


def meta(token: str | None) -> list[tuple[str, str]]:
    return [] if token is None else [("authorization", f"Bearer {token}")]


def record(variant: str = "doudizhu3", seed: str = "r/0", **extra: Any) -> dict[str, Any]:
    state = play_out(rules.new_game(variant, seed=seed))
    return rules.write_record(state, extra)


def batches(rec: dict[str, Any], game_id: str) -> list[list[common_pb2.Event]]:
    """The appends of game ``game_id``: header and deal, then one batch per action."""
    loaded = rules.load_record(rec)
    state = rules.initial_state(loaded, game_id)
    players = rec.get("players") or []
    header = {k: v for k, v in rec.items() if k not in ("actions", "result")}
    header["game_id"] = game_id
    out = [[header_message(header), *(event_message(e) for e in rules.deal_events(state))]]
    for action in loaded.actions:
        state, produced = rules.apply(state, action)
        actor = players[action.seat] if players else ""
        cause = CAUSE_OF_BY.get(getattr(action, "by", None) or "", common_pb2.CAUSE_PLAYER)
        out.append([event_message(e, actor=actor, cause=cause) for e in produced])
    return out


def escape_record(room: dict[str, Any] | None = None) -> dict[str, Any]:
    """A doudizhu3 game where a bomb is played over a play, and then a farmer leaves."""
    for i in range(500):
        state = rules.new_game("doudizhu3", rules.Room.from_dict(room or {}), seed=f"esc/{i}")
        while not state.over:
            assert state.turn is not None
            state, _ = rules.apply(state, rules.autoplay_action(rules.seat_view(state, state.turn)))
            if any(not b.led for b in state.bombs) and not state.over:
                leaver = next(s for s in range(3) if s != state.landlord)
                state, _ = rules.apply(state, rules.Leave(leaver))
                return rules.write_record(state, {"players": PLAYERS})
    raise AssertionError("no seed with a bomb over a play")


def code_and_reason(exc: grpc.RpcError) -> tuple[grpc.StatusCode, str]:
    from services.common.grpc_errors import details

    d = details(exc)
    return d.code, d.reason
