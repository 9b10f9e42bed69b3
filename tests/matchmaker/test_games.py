"""Whole games through the matchmaker's gRPC API: one scripted human and bots, every variant,
0.2 s timers.  The human acts, lets his timer run out, and turns auto-play on; every game is
in the replay service and verifies with the settlement the seat was shown; the seat's stream
never holds another seat's hidden card while the game runs."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from typing import Any

import grpc
import pytest
from cardroom.v1 import engine_pb2, matchmaker_pb2, replay_pb2

from services import rules
from tests.common.test_typed_bodies import (
    check_event,
    check_table_event,
    differences,
    expected_settlement,
)

from .conftest import SHORT, Cluster, data, seated, verify, view_of, wait_for

M = matchmaker_pb2
VARIANTS = ["doudizhu3", "doudizhu4", "zhengshangyou", "zhengshangyou2"]


class Stream:
    """A seat's Subscribe stream, read in a thread."""

    def __init__(self, stub: Any, table_id: str, player: str, after: int = 0) -> None:
        self.events: list[M.TableEvent] = []
        self.call = stub.Subscribe(
            M.SubscribeRequest(table_id=table_id, player_id=player, after_seq=after)
        )
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for ev in self.call:
                self.events.append(ev)
        except grpc.RpcError:
            pass
        finally:
            self.done.set()

    def close(self) -> None:
        self.call.cancel()
        self.done.wait(5)

    def types(self) -> list[str]:
        return [e.game_event.type if e.type == "game" else e.type for e in self.events]


def enqueue(stub: Any, player: str, variant: str, **kw: Any) -> M.Ticket:
    kw.setdefault("timers", SHORT)
    kw.setdefault("bot_fill_after_ms", 0)
    ticket: M.Ticket = stub.Enqueue(
        M.EnqueueRequest(player_id=player, variant=variant, **kw), timeout=10
    )
    return ticket


def play_game(stub: Any, table_id: str, player: str, style: str = "mixed") -> M.TableSnapshot:
    """Ready, then play until the game ends: act on some turns, time out on others."""
    stub.Ready(M.ReadyRequest(table_id=table_id, player_id=player), timeout=10)
    snap = wait_for(
        lambda: (
            (s := stub.GetTable(M.GetTableRequest(table_id=table_id, player_id=player)))
            and s.state == M.TABLE_STATE_PLAYING
            and s
        )
    )
    game_no = snap.game_no
    turns = 0
    while True:
        snap = stub.GetTable(M.GetTableRequest(table_id=table_id, player_id=player), timeout=10)
        if snap.game_no != game_no or snap.state != M.TABLE_STATE_PLAYING:
            return snap
        view = view_of(snap.view)
        if not view.to_move:
            time.sleep(0.01)
            continue
        turns += 1
        if style == "mixed" and turns % 3 == 2:
            time.sleep(0.3)  # let the turn timer run out: the engine's timeout move
            continue
        if style == "mixed" and turns == 6:
            act(stub, table_id, player, engine_pb2.Action(autoplay=True))
            continue
        try:
            hint = stub.GetHint(M.HintRequest(table_id=table_id, player_id=player), timeout=10)
        except grpc.RpcError as exc:  # the game ended meanwhile (NOT_READY)
            assert exc.code() == grpc.StatusCode.FAILED_PRECONDITION
            continue
        if not hint.HasField("hint"):
            continue  # the timer moved the table on meanwhile
        try:
            act(stub, table_id, player, hint.hint, expected=snap.seq)
        except grpc.RpcError as exc:
            # The timer may beat us to it: the table moved on.
            assert exc.code() in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION)


def act(
    stub: Any, table_id: str, player: str, action: engine_pb2.Action, expected: int | None = None
) -> M.ActResponse:
    request = M.ActRequest(table_id=table_id, player_id=player, action=action)
    if expected is not None:
        request.expected_seq = expected
    response: M.ActResponse = stub.Act(request, timeout=10)
    return response


def hidden_leaks(events: list[M.TableEvent], seat: int, variant: str, seed: str) -> list[str]:
    """What a seat's stream held, before the game was over, that the seat may not see: an
    event private to another seat, or a dealt hand other than its own (from the seed the
    game_over event reveals, every redeal included)."""
    v = rules.variant(variant)
    mine = {
        rules.deal_from_seed(v, rules.redeal_seed(seed, d)).hands[seat] for d in range(v.max_deals)
    }
    leaks = []
    for ev in events:
        if ev.type != "game":
            continue
        g = ev.game_event
        if g.type == "game_over":
            break
        if g.envelope.HasField("seat") and g.envelope.seat != seat:
            leaks.append(f"private event of seat {g.envelope.seat}: {g.type}")
        body = json.loads(g.data_json)
        dealt = body.get("hand") if g.type == "deal" else None
        if dealt is not None and tuple(sorted(rules.parse_cards(dealt))) not in mine:
            leaks.append(f"a foreign hand dealt to seat {seat}")
        for key, value in body.items():
            if key in ("hand", "hands") and g.type != "deal":
                leaks.append(f"{g.type} carries {key}: {value!r}")
    return leaks


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_whole_game_with_one_human_and_bots(cluster: Cluster, variant: str) -> None:
    stub = cluster.mm()
    ticket = enqueue(stub, "alice", variant)
    ticket = seated(stub, ticket.ticket_id)
    table_id, seat = ticket.table_id, ticket.seats[0]
    stream = Stream(stub, table_id, "alice")
    snap = play_game(stub, table_id, "alice")
    assert snap.game_no == 1 and len(snap.last_scores) == len(snap.seats)
    wait_for(lambda: "series" in stream.types())
    stream.close()
    seqs = [e.seq for e in stream.events]
    assert seqs == sorted(set(seqs))
    types = stream.types()
    assert types[0] in ("seated", "bot_joined") and "game_started" in types
    assert "game_header" not in types
    started = next(e for e in stream.events if e.type == "game_started")
    game_id = data(started)["game_id"]
    over = next(e for e in stream.events if e.type == "game_over")
    shown = data(over)
    # The replay service has the whole game, and it verifies with the same settlement.
    answer = wait_for(
        lambda: (v := verify(cluster, game_id)).ok and v.settlement_json and v, timeout=20
    )
    assert json.loads(answer.settlement_json)["scores"] == shown["scores"]
    assert list(snap.last_scores) == shown["scores"]
    # Nothing of another seat's hand before the end (the seed opens the deal afterwards).
    game_over = next(
        e for e in stream.events if e.type == "game" and e.game_event.type == "game_over"
    )
    seed = json.loads(game_over.game_event.data_json)["seed"]
    assert hidden_leaks(stream.events, seat, variant, seed) == []
    # Every item of the stream, the snapshot and replay's stream carry typed bodies that say
    # what their JSON says.
    assert [d for e in stream.events for d in check_table_event(e)] == []
    assert differences(snap.last_settlement, expected_settlement(shown["settlement"])) == []
    audit = cluster.replay().StreamEvents(replay_pb2.StreamEventsRequest(game_id=game_id))
    assert [d for item in audit for d in check_event(item.event)] == []
    # Bots, the timer and the human all acted.
    causes = {e.game_event.envelope.cause for e in stream.events if e.type == "game"}
    assert {1, 4} <= causes


def test_the_trick_at_a_glance_and_the_hands_shown_at_the_end(cluster: Cluster) -> None:
    """Seat.last_action follows the trick in every snapshot the seat reads; game_over shows
    every seat's cards left (typed and in data_json), and none of another seat's cards
    left reaches the seat's stream before it."""
    stub = cluster.mm()
    ticket = seated(stub, enqueue(stub, "tess", "doudizhu3").ticket_id)
    table_id, seat = ticket.table_id, ticket.seats[0]
    stream = Stream(stub, table_id, "tess")
    stub.Ready(M.ReadyRequest(table_id=table_id, player_id="tess"), timeout=10)
    marks_seen = 0
    while True:
        snap = stub.GetTable(M.GetTableRequest(table_id=table_id, player_id="tess"), timeout=10)
        if snap.game_no == 1 and snap.state != M.TABLE_STATE_PLAYING:
            break
        if not snap.view.view_json:
            continue
        view = view_of(snap.view)
        marks = [s.last_action if s.HasField("last_action") else None for s in snap.seats]
        if view.last is None or view.phase is not rules.Phase.PLAY:
            assert marks == [None] * 3, (view.phase, marks)
        else:
            assert marks[view.last_seat] == rules.format_cards(view.last.cards, " ")
            assert all(m is None or m == "pass" or len(m) >= 2 for m in marks)
            marks_seen += 1
        if view.to_move:
            hint = stub.GetHint(M.HintRequest(table_id=table_id, player_id="tess"), timeout=10)
            if hint.HasField("hint"):
                with contextlib.suppress(grpc.RpcError):  # the timer may beat us to it
                    act(stub, table_id, "tess", hint.hint, expected=snap.seq)
    assert marks_seen > 0
    assert all(not s.HasField("last_action") for s in snap.seats)  # none between games
    wait_for(lambda: "series" in stream.types())
    stream.close()
    over = next(e for e in stream.events if e.type == "game_over")
    hands = data(over)["hands"]
    assert [h["seat"] for h in hands] == [0, 1, 2]
    assert [(h.seat, list(h.cards)) for h in over.game_over.hands] == [
        (h["seat"], h["cards"]) for h in hands
    ]
    played = [
        c
        for e in stream.events
        if e.type == "game" and e.game_event.type == "play"
        for c in rules.parse_cards(json.loads(e.game_event.data_json)["cards"])
    ]
    left = [c for h in hands for c in rules.parse_cards(" ".join(h["cards"]))]
    assert sorted(played + left) == sorted(rules.variant("doudizhu3").deck)
    # Before game_over: no card another seat is left holding, but the public bottom cards.
    bottom: set[int] = set()
    others = {
        c for h in hands if h["seat"] != seat for c in rules.parse_cards(" ".join(h["cards"]))
    }
    for e in stream.events:
        if e.type == "game_over":
            break
        text = e.game_event.data_json if e.type == "game" else e.data_json
        body = json.loads(text or "{}")
        if e.type == "game" and e.game_event.type == "landlord":
            bottom |= set(rules.parse_cards(body.get("bottom", "")))
            continue
        for value in body.values():
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                value = " ".join(value)
            if isinstance(value, str):
                with contextlib.suppress(rules.RulesError):
                    assert not (set(rules.parse_cards(value)) & others - bottom), (e.type, body)
