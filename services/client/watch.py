"""``cardroom replay watch GAME_ID [--seat S]``: step through a stored game from the replay
service, event by event — how a disputed game is looked at.

It reads the game (GetGame), its events (StreamEvents; with ``--seat`` only what that seat
saw) and its record (ExportGame), and re-derives each step's hands with the rules library from
the record's actions, so every hand is face up once the game has ended (with ``--seat``, only
the seat's own until the step at which that seat saw the game end).  Each event shows its
envelope (actor, cause, the deadline that was running); the last step shows the settlement
with every step and each person's rating change (once replay has rated the game), and for an
escape the replay service's AuditEscape: each step recomputed from the log beside the
recorded one.

Keys: → / space / n next, ← / b back, Home / End first and last, q quits.
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass, field
from typing import Any, ClassVar

import grpc
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

from services import rules
from services.common.grpc_errors import details
from services.common.settings import DEFAULT_PORTS
from services.common.wire import common_pb2, replay_pb2, replay_pb2_grpc

from . import render


@dataclass
class StoredGame:
    """A stored game as the watcher shows it: events, the state after each, the audit."""

    game_id: str
    summary: Any
    players: list[str]
    events: list[Any]
    states: list[rules.GameState]  # the state after each event
    audit: Any = None
    seat: int | None = None
    settlement: dict[str, Any] = field(default_factory=dict)
    #: Each seat's rating change (GetGame's rating_changes; empty until rated).
    ratings: list[Any] = field(default_factory=list)

    @property
    def ended(self) -> bool:
        return bool(self.summary.status != replay_pb2.REPLAY_GAME_STATUS_RUNNING)


class LoadError(Exception):
    pass


def load(target: str, game_id: str, seat: int | None = None, token: str = "") -> StoredGame:
    """Everything the watcher shows, read once from the replay service."""
    metadata = [("authorization", f"Bearer {token}")] if token else []
    with grpc.insecure_channel(target) as channel:
        stub: Any = replay_pb2_grpc.ReplayServiceStub(channel)  # type: ignore[no-untyped-call]
        try:
            game = stub.GetGame(replay_pb2.GetGameRequest(game_id=game_id), metadata=metadata,
                                timeout=10)  # fmt: skip
            request = replay_pb2.StreamEventsRequest(game_id=game_id)
            if seat is not None:
                request.seat = seat
            events = [r.event for r in stub.StreamEvents(request, metadata=metadata, timeout=30)]
            record = json.loads(
                stub.ExportGame(
                    replay_pb2.ExportGameRequest(game_id=game_id), metadata=metadata, timeout=10
                ).record_json
            )
            audit = None
            if game.game.status == replay_pb2.REPLAY_GAME_STATUS_ESCAPED:
                audit = stub.AuditEscape(replay_pb2.AuditEscapeRequest(game_id=game_id),
                                         metadata=metadata, timeout=10)  # fmt: skip
        except grpc.RpcError as exc:
            d = details(exc)
            raise LoadError(f"{d.code.name} {d.reason or '-'}: {d.message}") from None
    rec = rules.load_record(record)
    state = rules.initial_state(rec)
    actions = list(rec.actions)
    states = []
    for ev in events:
        if rules.EventType(ev.type).is_action and actions:
            state, _ = rules.apply(state, actions.pop(0))
        states.append(state)
    players = list(game.game.players) or list(record.get("players") or [])
    settlement = json.loads(game.game.result_json) if game.game.result_json else {}
    return StoredGame(
        game_id, game.game, players, events, states, audit, seat, settlement,
        list(game.rating_changes),
    )  # fmt: skip


def envelope_text(ev: Any) -> str:
    env = ev.envelope
    cause = common_pb2.Cause.Name(env.cause).removeprefix("CAUSE_").lower()
    parts = [f"event {env.seq}: {ev.type}", f"actor {env.actor or '—'}", f"cause {cause}"]
    if env.HasField("server_time"):
        parts.append(f"at {env.server_time.ToDatetime().isoformat(timespec='milliseconds')}Z")
    if env.HasField("turn_deadline"):
        parts.append(f"deadline {env.turn_deadline.ToDatetime().isoformat(timespec='seconds')}Z")
    vis = common_pb2.Visibility.Name(env.visibility).removeprefix("VISIBILITY_").lower()
    parts.append(f"visible: {vis}" + (f" (seat {env.seat})" if env.HasField("seat") else ""))
    return " · ".join(parts)


def step_text(game: StoredGame, i: int) -> Text:
    """Step ``i``: the event in words, its envelope, then the table after it."""
    ev, state = game.events[i], game.states[i]
    data = json.loads(ev.data_json or "{}")
    if data.get("seat") is None and ev.envelope.HasField("seat"):
        data["seat"] = ev.envelope.seat
    out = Text()
    out.append(f"{i + 1}/{len(game.events)}  ", style="bold")
    out.append(render.event_text(ev.type, data, game.players) + "\n", style="bold")
    out.append(envelope_text(ev) + "\n\n", style="dim")
    # Every hand is face up once the game has ended; with --seat only from the step at which
    # that seat saw it end (RULES.md §7: the record is shown to its players after the end).
    face_up = game.ended and (game.seat is None or state.phase is rules.Phase.OVER)
    for seat, hand in enumerate(state.hands):
        mark = " landlord 地主" if state.landlord == seat else ""
        turn = "▶ " if state.turn == seat else "  "
        out.append(f"{turn}{render.seat_name(game.players, seat)}{mark}: {len(hand)} cards  ")
        if face_up or game.seat == seat:
            out.append_text(render.cards_text(hand))
        out.append("\n")
    if state.last is not None:
        out.append("to beat: ")
        out.append_text(render.cards_text(render.play_order(state.last.cards)))
        out.append(f" — {render.pattern_name(state.last.pattern.reading)} by "
                   f"{render.seat_name(game.players, state.last_seat)}\n")  # fmt: skip
    bottom_seen = state.landlord is not None and (
        face_up or state.variant.bottom_public or game.seat == state.landlord
    )
    if state.bottom and bottom_seen:
        out.append("bottom: ")
        out.append_text(render.cards_text(state.bottom))
        out.append("\n")
    return out


class WatchApp(App[int]):
    TITLE = "cardroom replay watch"
    CSS = """
    #header { height: auto; padding: 0 1; color: $accent; }
    #step { height: auto; border: round $primary; padding: 0 1; }
    #end { height: auto; }
    #settlement, #audit { width: 1fr; height: auto; border: round $success; padding: 0 1; }
    #help { dock: bottom; height: 1; color: $text-muted; }
    """
    BINDINGS: ClassVar = [
        ("right,space,n", "step(1)", "next"),
        ("left,b", "step(-1)", "back"),
        ("home", "go(0)", "first"),
        ("end", "go(-1)", "last"),
        ("q", "quit", "quit"),
        ("pageup", "page(-1)", "scroll up"),
        ("pagedown", "page(1)", "scroll down"),
    ]

    def __init__(self, game: StoredGame) -> None:
        super().__init__()
        self.game = game
        self.index = 0

    def compose(self) -> ComposeResult:
        g = self.game
        status = replay_pb2.ReplayGameStatus.Name(g.summary.status)
        status = status.removeprefix("REPLAY_GAME_STATUS_").lower()
        who = f" as seen by seat {g.seat}" if g.seat is not None else ""
        names = ", ".join(render.player_label(g.players, i) for i in range(len(g.players)))
        yield Static(f"game {g.game_id} · {g.summary.variant} · {status} · players "
                     f"{names or '—'}{who}", id="header")  # fmt: skip
        with VerticalScroll(id="body"):  # a long settlement and audit scroll on a small screen
            yield Static("", id="step")
            with Horizontal(id="end"):
                yield Static("", id="settlement")
                yield Static("", id="audit")
        yield Static("→/space next · ← back · Home/End · PgUp/PgDn scroll · q quit", id="help")

    def on_mount(self) -> None:
        self.show()

    def show(self) -> None:
        g = self.game
        if not g.events:
            self.query_one("#step", Static).update("no events")
            return
        self.query_one("#step", Static).update(step_text(g, self.index))
        last = self.index == len(g.events) - 1
        settlement = self.query_one("#settlement", Static)
        audit = self.query_one("#audit", Static)
        settlement.display = last and bool(g.settlement)
        audit.display = last and g.audit is not None
        if last and g.settlement:
            lines = render.settlement_lines(g.settlement, g.players)
            lines += render.rating_lines(g.ratings, g.players)
            settlement.update("\n".join(lines))
        if last and g.audit is not None:
            audit.update("\n".join(render.audit_lines(g.audit)))

    def action_step(self, delta: int) -> None:
        self.index = max(0, min(len(self.game.events) - 1, self.index + delta))
        self.show()

    def action_page(self, direction: int) -> None:
        body = self.query_one("#body", VerticalScroll)
        (body.scroll_page_down if direction > 0 else body.scroll_page_up)(animate=False)

    def action_go(self, where: int) -> None:
        self.index = where if where >= 0 else max(0, len(self.game.events) - 1)
        self.show()


def watch_main(args: argparse.Namespace) -> int:
    from services.common.console import fail

    target = (
        args.replay
        or os.environ.get("CARDROOM_REPLAY_ADDR")
        or (f"127.0.0.1:{DEFAULT_PORTS['replay']}")
    )
    try:
        game = load(target, args.game_id, args.seat, os.environ.get("CARDROOM_REPLAY_TOKEN", ""))
    except LoadError as exc:
        return fail("replay watch", str(exc))
    WatchApp(game).run()
    return 0
