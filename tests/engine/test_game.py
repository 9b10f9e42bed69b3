"""The game RPCs over a real server: whole games, every error reason, tokens and views."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from cardroom.v1 import common_pb2, engine_pb2

from services import rules

from .test_basics import FAILED, INVALID, refused


def new_game(stub: Any, variant: str = "ddz3", seed: str = "cardroom", **kw: Any) -> Any:
    req = engine_pb2.NewGameRequest(variant=variant, deal=engine_pb2.Deal(seed=seed), **kw)
    return stub.NewGame(req, timeout=10)


def act(seat: int, **kind: Any) -> engine_pb2.Action:
    return engine_pb2.Action(seat=seat, **kind)


def apply(stub: Any, state: Any, action: engine_pb2.Action, **kw: Any) -> Any:
    return stub.Apply(engine_pb2.ApplyRequest(state=state, action=action, **kw), timeout=10)


def apply_error(stub: Any, state: Any, action: engine_pb2.Action) -> Any:
    return refused(stub.Apply, engine_pb2.ApplyRequest(state=state, action=action))


def test_new_game_deals_events_in_the_envelope(stub: Any) -> None:
    r = new_game(
        stub, view_seat=1, game_id="g-1", actor="table:7",
        players=["alice", "bob", "bot:carol"], table=engine_pb2.TableRef(id="t7", game_no=3),
    )  # fmt: skip
    assert (r.state.game_id, r.state.seq) == ("g-1", 5)
    assert [e.envelope.seq for e in r.events] == [1, 2, 3, 4, 5]
    # seq 1: the header, for auditors only (its seed reveals every hand).
    header = r.events[0]
    assert header.type == "game_header"
    assert header.envelope.visibility == common_pb2.VISIBILITY_AUDITOR
    assert json.loads(header.data_json) == {
        "game_id": "g-1", "variant": "doudizhu3", "rules_version": rules.RULES_VERSION,
        "room": rules.Room().to_dict(), "deal": {"seed": "cardroom"}, "first_bidder": 0,
        "players": ["alice", "bob", "bot:carol"], "table": {"id": "t7", "game_no": 3},
    }  # fmt: skip
    private = [e for e in r.events if e.envelope.visibility == common_pb2.VISIBILITY_SEAT]
    assert [e.envelope.seat for e in private] == [0, 1, 2]
    assert r.events[-1].envelope.visibility == common_pb2.VISIBILITY_PUBLIC
    public = json.loads(r.events[-1].data_json)
    assert public["counts"] == [17, 17, 17]
    assert public["commitment"] == rules.deal_commitment("g-1", "cardroom")
    assert r.events[0].envelope.actor == "table:7" and r.events[0].envelope.server_time.seconds
    assert r.public_view.phase == engine_pb2.PHASE_BIDDING and r.public_view.hand == ""
    assert len(rules.parse_cards(r.seat_view.hand)) == 17 and r.seat_view.seat == 1
    assert json.loads(r.events[2].data_json)["hand"] == r.seat_view.hand
    assert len(r.state.token) < 1024


def play_out(stub: Any, state: Any, rnd: random.Random) -> tuple[Any, int]:
    moves = 0
    while True:
        legal = stub.ListLegalActions(engine_pb2.ListLegalActionsRequest(state=state), timeout=10)
        assert legal.actions, "a running game always has a legal action"
        assert all(a.seat == legal.seat for a in legal.actions)
        answer = apply(stub, state, rnd.choice(list(legal.actions)), view_seat=legal.seat)
        moves += 1
        assert answer.state.seq >= state.seq + 1
        assert [e.envelope.seq for e in answer.events] == list(
            range(state.seq + 1, answer.state.seq + 1)
        )
        state = answer.state
        if answer.game_over:
            return answer, moves


@pytest.mark.parametrize("variant", ["doudizhu3", "doudizhu4", "zhengshangyou1", "zhengshangyou2"])
def test_whole_games_end_with_a_settlement(stub: Any, variant: str) -> None:
    rnd = random.Random(variant)
    answer, _moves = play_out(stub, new_game(stub, variant, seed=variant).state, rnd)
    s = answer.settlement
    assert s.status in (common_pb2.GAME_STATUS_FINISHED, common_pb2.GAME_STATUS_DISBANDED)
    assert len(s.scores) == rules.variant(variant).players
    assert json.loads(s.settlement_json)["scores"] == list(s.scores)
    assert answer.public_view.phase == engine_pb2.PHASE_OVER
    err = apply_error(stub, answer.state, act(0, leave=True))
    assert (err.code, err.reason) == (FAILED, "GAME_OVER")
    legal = stub.ListLegalActions(engine_pb2.ListLegalActionsRequest(state=answer.state))
    assert not legal.actions and not legal.HasField("seat")
    # The record of the finished game settles to the same scores.
    record = json.loads(answer.public_view.view_json)["record"]
    settled = stub.Settle(engine_pb2.SettleRequest(record_json=json.dumps(record)), timeout=10)
    assert list(settled.settlement.scores) == list(s.scores)


def test_bidding_and_play_errors(stub: Any) -> None:
    g = new_game(stub)
    turn = g.public_view.turn
    other = (turn + 1) % 3
    cases = [
        (act(other, bid=1), FAILED, "NOT_YOUR_TURN"),
        (act(turn, play=engine_pb2.PlayCards(cards="3s")), FAILED, "WRONG_PHASE"),
        (act(turn, bid=4), INVALID, "BAD_BID"),
        (act(turn, **{"pass": False}), INVALID, "BAD_ACTION"),
        (act(7, bid=1), INVALID, "NO_SUCH_SEAT"),
        (act(turn), INVALID, "MISSING_FIELD"),
    ]
    for action, code, reason in cases:
        err = apply_error(stub, g.state, action)
        assert (err.code, err.reason) == (code, reason), action
    after_bid = apply(stub, g.state, act(turn, bid=2)).state
    err = apply_error(stub, after_bid, act(other, bid=1))
    assert (err.code, err.reason) == (FAILED, "BID_TOO_LOW")
    playing = apply(stub, after_bid, act(other, bid=3), view_seat=other)
    assert playing.public_view.landlord == other
    hand = rules.parse_cards(playing.seat_view.hand)
    not_mine = next(c for c in rules.VARIANTS["doudizhu3"].deck if c not in hand)
    lowest = rules.format_cards([min(hand)])
    cases = [
        (act(other, **{"pass": True}), FAILED, "MUST_LEAD"),
        (
            act(other, play=engine_pb2.PlayCards(cards=rules.format_cards([not_mine]))),
            FAILED,
            "CARDS_NOT_IN_HAND",
        ),
        (act(other, play=engine_pb2.PlayCards(cards="3x")), INVALID, "INVALID_CARDS"),
    ]
    for action, code, reason in cases:
        err = apply_error(stub, playing.state, action)
        assert (err.code, err.reason) == (code, reason), action
    led = apply(stub, playing.state, act(other, play=engine_pb2.PlayCards(cards=lowest)))
    nxt = (other + 1) % 3
    err = apply_error(stub, led.state, act(nxt, play=engine_pb2.PlayCards(cards=lowest)))
    assert err.reason in ("DOES_NOT_BEAT", "CARDS_NOT_IN_HAND")


def test_explicit_deal_errors_and_must_bid(stub: Any) -> None:
    hands = ["BJBJRJRJ3s", "4s4h", "5s5h", "6s6h"]
    req = engine_pb2.NewGameRequest(
        variant="doudizhu4",
        deal=engine_pb2.Deal(explicit=engine_pb2.ExplicitDeal(hands=hands, bottom="7s7h")),
        first_bidder=0,
    )
    g = stub.NewGame(req, timeout=10)
    err = apply_error(stub, g.state, act(0, **{"pass": True}))
    assert (err.code, err.reason) == (FAILED, "MUST_BID")
    bad = engine_pb2.NewGameRequest(
        variant="doudizhu4",
        deal=engine_pb2.Deal(explicit=engine_pb2.ExplicitDeal(hands=hands[:2])),
        first_bidder=0,
    )
    assert refused(stub.NewGame, bad).reason == "BAD_DEAL"
    for fields, reason, field in [
        ({"deal": engine_pb2.Deal(seed="x")}, "MISSING_FIELD", "variant"),
        ({"variant": "ddz3"}, "MISSING_FIELD", "deal"),
        ({"variant": "x", "deal": engine_pb2.Deal(seed="x")}, "UNKNOWN_VARIANT", "variant"),
        ({"variant": "ddz3", "deal": engine_pb2.Deal(seed="")}, "MISSING_FIELD", "deal.seed"),
        (
            {"variant": "ddz3", "deal": engine_pb2.Deal(seed="x"), "first_bidder": 3},
            "NO_SUCH_SEAT",
            "first_bidder",
        ),
        (
            {"variant": "ddz3", "deal": engine_pb2.Deal(seed="x"), "view_seat": -1},
            "NO_SUCH_SEAT",
            "view_seat",
        ),
        (
            {
                "variant": "ddz3",
                "deal": engine_pb2.Deal(seed="x"),
                "room": common_pb2.Room(stake=-2),
            },
            "INVALID_ROOM",
            "room.stake",
        ),
        (
            {
                "variant": "ddz3",
                "deal": engine_pb2.Deal(seed="x"),
                "room": common_pb2.Room(overrides_json='{"min_straight": "six"}'),
            },
            "INVALID_OVERRIDE",
            "room.overrides_json.min_straight",
        ),
    ]:
        err = refused(stub.NewGame, engine_pb2.NewGameRequest(**fields))
        assert (err.code, err.reason, err.fields) == (INVALID, reason, [field]), fields


def test_forged_edited_stale_and_foreign_tokens_are_refused(stub: Any) -> None:
    g = new_game(stub).state
    turn = new_game(stub).public_view.turn
    action = act(turn, bid=1)
    apply(stub, g, action)  # the genuine token works
    flipped = bytearray(g.token)
    flipped[len(flipped) // 2] ^= 1
    variants = [
        engine_pb2.GameToken(game_id=g.game_id, seq=g.seq, token=bytes(flipped)),
        engine_pb2.GameToken(game_id=g.game_id, seq=g.seq + 1, token=g.token),
        engine_pb2.GameToken(game_id="another", seq=g.seq, token=g.token),
        engine_pb2.GameToken(game_id=g.game_id, seq=g.seq, token=b"\x01\x01k" + bytes(64)),
        engine_pb2.GameToken(game_id=g.game_id, seq=g.seq, token=g.token[:-1]),
    ]
    for token in variants:
        err = apply_error(stub, token, action)
        assert (err.code, err.reason, err.fields) == (
            INVALID,
            "STATE_TOKEN_INVALID",
            ["state.token"],
        )
    err = refused(stub.Apply, engine_pb2.ApplyRequest(action=action))
    assert (err.reason, err.fields) == ("MISSING_FIELD", ["state"])


def test_seat_view_holds_no_hidden_card(stub: Any) -> None:
    rnd = random.Random(5)
    state = new_game(stub, seed="views").state
    for _ in range(30):
        legal = stub.ListLegalActions(engine_pb2.ListLegalActionsRequest(state=state))
        if not legal.actions:
            break
        answer = apply(stub, state, rnd.choice(list(legal.actions)))
        state = answer.state
        if answer.game_over:
            break
        hands = []
        for seat in range(3):
            view = stub.GetSeatView(engine_pb2.GetSeatViewRequest(state=state, seat=seat)).view
            hands.append(rules.parse_cards(view.hand))
        for seat in range(3):
            view = stub.GetSeatView(engine_pb2.GetSeatViewRequest(state=state, seat=seat)).view
            seen = json.loads(view.view_json)
            assert rules.parse_cards(seen["hand"]) == hands[seat]
            public = set()  # the bottom (ddz3, once taken) and a shown hand are public
            for key in ("bottom", "shown_hand"):
                public |= set(rules.parse_cards(seen.get(key) or ""))
            hidden = {c for s, h in enumerate(hands) if s != seat for c in h} - public
            shown = set()
            for key in ("bottom", "shown_hand", "last_play"):
                shown |= set(rules.parse_cards(seen.get(key) or ""))
            for item in seen["history"]:
                shown |= set(rules.parse_cards(item.get("play", "")))
            assert not shown & hidden
            assert seen["record"] is None  # the full record only once the game is over
        public = json.loads(answer.public_view.view_json)
        assert public["hand"] is None and answer.public_view.hand == ""


def test_hint_and_seat_view_errors(stub: Any) -> None:
    g = new_game(stub)
    turn = g.public_view.turn
    hint = stub.GetHint(engine_pb2.GetHintRequest(state=g.state, seat=turn)).hint
    assert hint.seat == turn and hint.WhichOneof("kind") in ("bid", "pass")
    apply(stub, g.state, hint)  # the hint is a legal action
    none = stub.GetHint(engine_pb2.GetHintRequest(state=g.state, seat=(turn + 1) % 3))
    assert not none.HasField("hint")
    for call, req, reason, field in [
        (stub.GetHint, engine_pb2.GetHintRequest(state=g.state), "MISSING_FIELD", "seat"),
        (stub.GetHint, engine_pb2.GetHintRequest(state=g.state, seat=5), "NO_SUCH_SEAT", "seat"),
        (stub.GetSeatView, engine_pb2.GetSeatViewRequest(seat=0), "MISSING_FIELD", "state"),
        (
            stub.GetSeatView,
            engine_pb2.GetSeatViewRequest(state=g.state, seat=3),
            "NO_SUCH_SEAT",
            "seat",
        ),
        (stub.ListLegalActions, engine_pb2.ListLegalActionsRequest(), "MISSING_FIELD", "state"),
    ]:
        err = refused(call, req)
        assert (err.code, err.reason, err.fields) == (INVALID, reason, [field])


def test_settle_json_structured_and_errors(stub: Any) -> None:
    record = {
        "variant": "ddz3",
        "deal": {"seed": "cardroom"},
        "actions": [{"seat": 0, "bid": 3}, {"seat": 0, "leave": True}],
    }
    r = stub.Settle(engine_pb2.SettleRequest(record_json=json.dumps(record)), timeout=10)
    assert r.settlement.status == common_pb2.GAME_STATUS_ESCAPED
    assert list(r.settlement.scores) == [-9, 0, 0] and r.settlement.escaper == 0
    structured = engine_pb2.GameRecord(
        variant="ddz3",
        deal=engine_pb2.Deal(seed="cardroom"),
        actions=[act(0, bid=3), act(0, leave=True)],
    )
    r2 = stub.Settle(engine_pb2.SettleRequest(structured=structured), timeout=10)
    assert list(r2.settlement.scores) == [-9, 0, 0]
    illegal = {**record, "actions": [{"seat": 0, "bid": 3}, {"seat": 1, "pass": True}]}
    err = refused(stub.Settle, engine_pb2.SettleRequest(record_json=json.dumps(illegal)))
    assert (err.code, err.reason, err.fields) == (FAILED, "NOT_YOUR_TURN", ["actions[1]"])
    unfinished = {**record, "actions": [{"seat": 0, "bid": 3}]}
    err = refused(stub.Settle, engine_pb2.SettleRequest(record_json=json.dumps(unfinished)))
    assert (err.code, err.reason) == (FAILED, "GAME_NOT_OVER")
    for raw, field in [("{", "record_json"), ('{"variant": 3}', "variant")]:
        err = refused(stub.Settle, engine_pb2.SettleRequest(record_json=raw))
        assert (err.code, err.reason, err.fields) == (INVALID, "BAD_RECORD", [field]), raw
    err = refused(stub.Settle, engine_pb2.SettleRequest(record_json="[]"))
    assert (err.code, err.reason) == (INVALID, "BAD_RECORD")
    err = refused(stub.Settle, engine_pb2.SettleRequest())
    assert (err.reason, err.fields) == ("MISSING_FIELD", ["record"])
