"""Apply's runs over a real server (ApplyRequest.run): the engine plays the named bot and
auto-play seats on from an action, or from the game as it is, and the game that comes out is
move for move the one a caller choosing each of those moves itself would have played — the
matchmaker's runner, seeding each bot "<game_id>:<seq>" — with the same events, the same
envelopes and the same settlement.  A run stops at any other seat, at the game's end and at
run_moves; every malformed run field is refused by name."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from cardroom.v1 import common_pb2, engine_pb2

from services.matchmaker import bots as mm_bots

from .test_basics import refused
from .test_game import new_game

#: Per variant, what sits in each seat: a bot level, "auto" (auto-play on) or "person" (not
#: in the run: it plays its auto-play move through a timeout, as a person's turn timer would).
SEATINGS = {
    "doudizhu3": ["person", "easy", "normal"],
    "doudizhu4": ["normal", "auto", "person", "easy"],
    "zhengshangyou1": ["easy", "normal", "auto", "person"],
    "zhengshangyou2": ["normal", "normal", "easy", "auto"],
}


def run_seats(seating: list[str]) -> list[engine_pb2.RunSeat]:
    out = []
    for seat, who in enumerate(seating):
        if who == "person":
            continue
        bot = "" if who == "auto" else who
        out.append(engine_pb2.RunSeat(seat=seat, bot=bot, actor=f"p{seat}"))
    return out


def chosen_by_caller(stub: Any, state: Any, seat: int, who: str) -> engine_pb2.Action:
    """The move the matchmaker's runner would choose for the seat (its own code path)."""
    msg = stub.GetSeatView(engine_pb2.GetSeatViewRequest(state=state, seat=seat), timeout=10)
    view = mm_bots.view_of(msg.view)
    if who == "auto":
        move = mm_bots.autoplay_move(view)
    else:
        move = mm_bots.choose_bot_action(who, view, f"{state.game_id}:{state.seq}")
    return mm_bots.action_message(move)


def envelope_free(events: Any) -> list[tuple[Any, ...]]:
    """The events as a record would compare them (not their clocks)."""
    return [
        (e.envelope.seq, e.type, e.data_json, e.envelope.seat, e.envelope.visibility,
         e.envelope.actor, e.envelope.cause)
        for e in events
    ]  # fmt: skip


def play_step_by_step(stub: Any, variant: str, seed: str) -> tuple[list[Any], Any]:
    seating = SEATINGS[variant]
    g = new_game(stub, variant, seed=seed, game_id=f"g-{seed}")
    state, events, last = g.state, list(g.events), None
    for _ in range(600):
        seat = json.loads(
            stub.GetSeatView(engine_pb2.GetSeatViewRequest(state=state, seat=0)).view.view_json
        )["turn"]
        who = seating[seat]
        if who == "person":
            action = engine_pb2.Action(seat=seat, timeout=True)
            cause = common_pb2.CAUSE_TIMEOUT
        else:
            action = chosen_by_caller(stub, state, seat, who)
            cause = common_pb2.CAUSE_AUTOPLAY if who == "auto" else common_pb2.CAUSE_BOT
        last = stub.Apply(
            engine_pb2.ApplyRequest(state=state, action=action, actor=f"p{seat}", cause=cause),
            timeout=10,
        )
        state = last.state
        events += last.events
        if last.game_over:
            return events, last
    raise AssertionError("the game did not end")


def play_in_runs(stub: Any, variant: str, seed: str) -> tuple[list[Any], Any, int]:
    seating = SEATINGS[variant]
    rnd = random.Random(seed)
    g = new_game(stub, variant, seed=seed, game_id=f"g-{seed}")
    state, events = g.state, list(g.events)
    turn = g.public_view.turn
    for calls in range(1, 600):
        if seating[turn] == "person":
            request = engine_pb2.ApplyRequest(
                state=state, action=engine_pb2.Action(seat=turn, timeout=True),
                actor=f"p{turn}", run=run_seats(seating), run_moves=rnd.randint(0, 12),
            )  # fmt: skip
        else:
            request = engine_pb2.ApplyRequest(
                state=state, run=run_seats(seating), run_moves=rnd.randint(1, 12)
            )
        last = stub.Apply(request, timeout=10)
        assert len(last.run_actions) <= max(1, request.run_moves)
        seqs = [e.envelope.seq for e in last.events]
        assert seqs == list(range(state.seq + 1, state.seq + 1 + len(seqs)))
        assert last.state.seq == state.seq + len(seqs)
        state = last.state
        events += last.events
        if last.game_over:
            assert not last.public_view.HasField("turn")
            return events, last, calls
        turn = last.public_view.turn
        if len(last.run_actions) < max(1, request.run_moves):
            assert seating[turn] == "person"  # a run stops early only at a seat not in it
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("variant", list(SEATINGS))
@pytest.mark.parametrize("n", range(3))
def test_a_game_played_in_runs_is_the_game_the_caller_would_play(
    stub: Any, variant: str, n: int
) -> None:
    seed = f"run-{variant}-{n}"
    one_by_one, last_one = play_step_by_step(stub, variant, seed)
    in_runs, last_run, calls = play_in_runs(stub, variant, seed)
    assert envelope_free(in_runs) == envelope_free(one_by_one)
    assert last_run.settlement == last_one.settlement
    assert last_run.public_view.view_json == last_one.public_view.view_json
    assert calls < len([e for e in one_by_one if e.type in ("play", "pass", "bid")])


def test_a_run_after_an_action_and_its_moves(stub: Any) -> None:
    g = new_game(stub, "ddz3", seed="after", game_id="g-after")
    first = g.public_view.turn
    others = [engine_pb2.RunSeat(seat=s, bot="easy") for s in range(3) if s != first]
    r = stub.Apply(
        engine_pb2.ApplyRequest(
            state=g.state, action=engine_pb2.Action(seat=first, bid=1), actor="alice",
            run=others, run_moves=2, view_seat=first,
        ),
        timeout=10,
    )  # fmt: skip
    # The person's bid, then the bots' two moves (the run's budget), none the person's.
    assert len(r.run_actions) == 2 and first not in [a.seat for a in r.run_actions]
    moves = [e for e in r.events if e.type in ("bid", "pass", "play")]
    assert [e.envelope.cause for e in moves] == [
        common_pb2.CAUSE_PLAYER, common_pb2.CAUSE_BOT, common_pb2.CAUSE_BOT
    ]  # fmt: skip
    assert moves[0].envelope.actor == "alice" and moves[1].envelope.actor == ""
    assert moves[2].envelope.HasField("turn_deadline")
    assert r.seat_view.seat == first and r.seat_view.hand


def test_a_run_stops_at_run_moves(stub: Any) -> None:
    g = new_game(stub, "zsy1", seed="budget")
    every = [engine_pb2.RunSeat(seat=s) for s in range(4)]
    r = stub.Apply(engine_pb2.ApplyRequest(state=g.state, run=every, run_moves=5), timeout=10)
    assert len(r.run_actions) == 5 and not r.game_over
    causes = {e.envelope.cause for e in r.events}
    assert causes == {common_pb2.CAUSE_AUTOPLAY}
    r = stub.Apply(engine_pb2.ApplyRequest(state=r.state, run=every, run_moves=64), timeout=10)
    while not r.game_over:
        assert len(r.run_actions) == 64
        r = stub.Apply(engine_pb2.ApplyRequest(state=r.state, run=every, run_moves=64))
    assert r.settlement.settlement_json


def test_runs_in_a_batch(stub: Any) -> None:
    games = [new_game(stub, "ddz3", seed=f"batch-{i}") for i in range(3)]
    every = [engine_pb2.RunSeat(seat=s, bot="normal") for s in range(3)]
    batch = engine_pb2.ApplyBatchRequest(
        requests=[engine_pb2.ApplyRequest(state=g.state, run=every, run_moves=3) for g in games]
        + [engine_pb2.ApplyRequest(state=games[0].state, run=every, run_moves=99)]
    )
    results = stub.ApplyBatch(batch, timeout=10).results
    for result, g in zip(results[:3], games, strict=True):
        assert len(result.response.run_actions) == 3
        alone = stub.Apply(batch.requests[0 if g is games[0] else games.index(g)], timeout=10)
        assert envelope_free(result.response.events) == envelope_free(alone.events)
    assert (results[3].refusal.reason, results[3].refusal.field) == ("INVALID_FIELD", "run_moves")


def _refusal(stub: Any, request: engine_pb2.ApplyRequest) -> tuple[str, str]:
    err = refused(stub.Apply, request)
    return err.reason, ",".join(err.fields)


def test_malformed_runs_are_refused_by_name(stub: Any) -> None:
    g = new_game(stub, "ddz3", seed="refusals")
    turn = g.public_view.turn
    seat = engine_pb2.RunSeat
    cases: list[tuple[engine_pb2.ApplyRequest, tuple[str, str]]] = [
        (engine_pb2.ApplyRequest(state=g.state), ("MISSING_FIELD", "action")),
        (engine_pb2.ApplyRequest(state=g.state, run=[seat(seat=turn)], run_moves=65),
         ("INVALID_FIELD", "run_moves")),
        (engine_pb2.ApplyRequest(state=g.state, run=[seat(seat=turn)], run_moves=2**32 - 1),
         ("INVALID_FIELD", "run_moves")),
        (engine_pb2.ApplyRequest(state=g.state, run=[seat(seat=2**31 - 1)]),
         ("NO_SUCH_SEAT", "run[0].seat")),
        (engine_pb2.ApplyRequest(state=g.state, run=[seat(seat=-1)]),
         ("NO_SUCH_SEAT", "run[0].seat")),
        (engine_pb2.ApplyRequest(state=g.state, run=[seat(seat=turn), seat(seat=turn)]),
         ("INVALID_FIELD", "run[1].seat")),
        (engine_pb2.ApplyRequest(state=g.state, run=[seat(seat=turn, bot="hard")]),
         ("INVALID_FIELD", "run[0].bot")),
        (engine_pb2.ApplyRequest(state=g.state, run=[seat(seat=turn, bot="x\x00" * 5000)]),
         ("INVALID_FIELD", "run[0].bot")),
        (engine_pb2.ApplyRequest(state=g.state, run=[seat(seat=turn, actor="a\x00b")]),
         ("INVALID_FIELD", "run[0].actor")),
        (engine_pb2.ApplyRequest(state=g.state, run=[seat(seat=turn, cause=2**31 - 1)]),
         ("INVALID_FIELD", "run[0].cause")),
        (engine_pb2.ApplyRequest(state=g.state, run=[seat(seat=(turn + 1) % 3)]),
         ("NOT_YOUR_TURN", "run")),
    ]  # fmt: skip
    for request, expected in cases:
        assert _refusal(stub, request) == expected, request
    # A refused run leaves the game as it was: the token still plays.
    ok = stub.Apply(engine_pb2.ApplyRequest(state=g.state, run=[seat(seat=turn)]), timeout=10)
    assert len(ok.run_actions) == 1


def test_no_run_after_the_game_is_over(stub: Any) -> None:
    g = new_game(stub, "ddz3", seed="over")
    every = [engine_pb2.RunSeat(seat=s) for s in range(3)]
    r = stub.Apply(engine_pb2.ApplyRequest(state=g.state, run=every, run_moves=64), timeout=10)
    while not r.game_over:
        r = stub.Apply(engine_pb2.ApplyRequest(state=r.state, run=every, run_moves=64))
    err = refused(stub.Apply, engine_pb2.ApplyRequest(state=r.state, run=every))
    assert (err.reason, err.fields) == ("GAME_OVER", ["run"])
