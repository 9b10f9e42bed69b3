"""The replay viewer's data: a stored game read from the replay service (through the
terminal watcher's loader, so both show the same steps), its VerifyGame answer and, for an
escape, the replay service's audit — as JSON for the viewer page.

A game still running is refused as replay refuses it to a player, whatever token this back
end holds: a link must not show a game before it ended."""

from __future__ import annotations

import json
from typing import Any

import grpc

from services import rules
from services.client import render, watch
from services.common.grpc_errors import details
from services.common.wire import replay_pb2

from . import convert
from .relay import Backend

RUNNING_REFUSED = "a running game can be read only by its writer and auditors"


class ViewerError(Exception):
    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.status, self.reason, self.message = status, reason, message


async def load_game(backend: Backend, game_id: str, seat: int | None) -> dict[str, Any]:
    import asyncio

    md = backend.rp_metadata()
    try:
        game = await backend.rp.GetGame(replay_pb2.GetGameRequest(game_id=game_id), metadata=md,
                                        timeout=10)  # fmt: skip
    except grpc.RpcError as exc:
        d = details(exc)
        status = 404 if d.code == grpc.StatusCode.NOT_FOUND else 400
        if d.code == grpc.StatusCode.PERMISSION_DENIED:
            status = 403
        raise ViewerError(status, d.reason or d.code.name, d.message) from None
    if game.game.status == replay_pb2.REPLAY_GAME_STATUS_RUNNING:
        raise ViewerError(409, "GAME_RUNNING", RUNNING_REFUSED)
    if seat is not None and not 0 <= seat < len(game.game.players or [0, 0, 0, 0]):
        raise ViewerError(400, "INVALID_FIELD", f"seat must be 0 to {len(game.game.players) - 1}")
    token = backend.replay_token
    try:
        stored = await asyncio.to_thread(watch.load, backend.replay, game_id, seat, token)
    except watch.LoadError as exc:
        raise ViewerError(400, "LOAD_FAILED", str(exc)) from None
    verify = await backend.rp.VerifyGame(replay_pb2.VerifyGameRequest(game_id=game_id),
                                         metadata=md, timeout=30)  # fmt: skip
    return game_json(stored, verify)


def game_json(g: watch.StoredGame, verify: Any) -> dict[str, Any]:
    status = replay_pb2.ReplayGameStatus.Name(g.summary.status)
    return {
        "game_id": g.game_id,
        "variant": g.summary.variant,
        "status": status.removeprefix("REPLAY_GAME_STATUS_").lower(),
        "players": g.players,
        "seat": g.seat,
        "verify": {
            "ok": verify.ok,
            "chain_ok": verify.chain_ok,
            "replay_ok": verify.replay_ok,
            "reason": verify.reason,
            "detail": verify.detail,
            "events": int(verify.events),
            "first_bad_seq": int(verify.first_bad_seq),
        },
        "steps": [step_json(g, i) for i in range(len(g.events))],
        "settlement_lines": render.settlement_lines(g.settlement, g.players),
        "audit_lines": render.audit_lines(g.audit) if g.audit is not None else [],
    }


def step_json(g: watch.StoredGame, i: int) -> dict[str, Any]:
    """Step ``i`` as :func:`watch.step_text` shows it: the event, its envelope, the table."""
    ev, state = g.events[i], g.states[i]
    data = json.loads(ev.data_json or "{}")
    if data.get("seat") is None and ev.envelope.HasField("seat"):
        data["seat"] = ev.envelope.seat
    face_up = g.ended and (g.seat is None or state.phase is rules.Phase.OVER)
    seats = []
    for seat, hand in enumerate(state.hands):
        shown = face_up or g.seat == seat
        seats.append({
            "seat": seat,
            "name": render.seat_name(g.players, seat),
            "count": len(hand),
            "landlord": state.landlord == seat,
            "turn": state.turn == seat,
            "cards": [rules.format_cards((c,)) for c in sorted(hand)] if shown else None,
        })  # fmt: skip
    bottom_seen = state.landlord is not None and (
        face_up or state.variant.bottom_public or g.seat == state.landlord
    )
    out: dict[str, Any] = {
        "seq": int(ev.envelope.seq),
        "type": ev.type,
        "say": {
            lang: render.event_text_in(ev.type, data, g.players, lang) for lang in render.LANGS
        },
        "envelope": watch.envelope_text(ev),
        "actor": ev.envelope.actor,
        "cause": convert.cause_name(ev.envelope.cause),
        "seats": seats,
        "bottom": [rules.format_cards((c,)) for c in state.bottom] if bottom_seen else None,
        "to_beat": None,
    }
    if state.last is not None:
        out["to_beat"] = {
            "cards": [rules.format_cards((c,)) for c in render.play_order(state.last.cards)],
            "say": convert.both(render.pattern_name_in, state.last.pattern.reading),
            "seat": state.last_seat,
        }
    return out
