"""The seat view: typed, complete enough to play from, and a faithful wire form."""

from __future__ import annotations

import json
import random

import pytest

from services.rules import (
    Bid,
    Event,
    Pass,
    Phase,
    PlayCards,
    Room,
    SeatView,
    ShowHand,
    VariantError,
    apply,
    autoplay_action,
    legal_actions,
    may_see,
    new_game,
    parse_cards,
    project,
    public_view,
    seat_view,
    variant,
)

from .gamekit import deal, run

VARIANTS = ["doudizhu3", "doudizhu4", "zhengshangyou1", "zhengshangyou2"]


@pytest.mark.parametrize("name", VARIANTS)
def test_every_seat_plays_a_whole_game_from_its_view_alone(name: str) -> None:
    """Each move is chosen from the mover's view only — random among the view's legal actions,
    or the auto-play policy on it — and the rules accept every one."""
    for g in range(8):
        rng = random.Random(f"{name}/{g}")
        state = new_game(name, seed=f"views/{name}/{g}")
        while state.turn is not None:
            view = seat_view(state, state.turn)
            assert view.to_move and view.hand == state.hands[state.turn]
            options = view.legal_actions()
            assert options == legal_actions(state)
            action = rng.choice(options) if rng.random() < 0.5 else autoplay_action(view)
            state, _ = apply(state, action)
        assert state.settlement is not None
        # Every hand is public once the game is over (RULES.md §7), and only then.
        for seat in [None, *range(state.players)]:
            view = public_view(state) if seat is None else seat_view(state, seat)
            assert view.hands == state.hands


def test_the_hands_are_nobody_s_but_their_seat_s_until_the_end() -> None:
    state = new_game("doudizhu3", seed="hands")
    assert public_view(state).hands is None and seat_view(state, 0).hands is None
    assert public_view(state).to_dict()["hands"] is None
    # A view from an engine older than the field reads as one without them.
    older = {k: v for k, v in seat_view(state, 1).to_dict().items() if k != "hands"}
    assert SeatView.from_dict(older) == seat_view(state, 1)


def test_a_views_room_reads_as_the_room_itself_would() -> None:
    # SeatView.from_dict keeps the rooms it has read (a bot reads the same one in every view):
    # a room met again is the same room, and one that differs in a value's type only, or
    # holds a list, is read afresh.
    patterns = sorted(p.value for p in variant("doudizhu3").patterns)
    room = Room(stake=2, overrides=(("patterns", patterns),))
    view = seat_view(new_game("doudizhu3", room, seed="rooms"), 0).to_dict()
    first, again = SeatView.from_dict(view), SeatView.from_dict(json.loads(json.dumps(view)))
    assert first == again and first.room == Room.from_dict(view["room"])
    plain = seat_view(new_game("doudizhu3", Room(stake=2), seed="rooms"), 0).to_dict()
    assert SeatView.from_dict(plain).room is SeatView.from_dict(dict(plain)).room
    with pytest.raises(VariantError, match="stake"):
        SeatView.from_dict({**plain, "room": {**plain["room"], "stake": True}})
    with pytest.raises(VariantError, match="room must be an object"):
        SeatView.from_dict({**plain, "room": [1]})


@pytest.mark.parametrize("name", VARIANTS)
def test_views_survive_their_wire_form(name: str) -> None:
    """from_dict(to_dict(view)) is the same view for every seat and the public, in every phase
    of whole games (JSON round trip included, as the engine sends it)."""
    rng = random.Random(name)
    state = new_game(name, seed=f"wire/{name}")
    seen_phases = set()
    while True:
        for seat in [None, *range(state.players)]:
            view = public_view(state) if seat is None else seat_view(state, seat)
            back = SeatView.from_dict(json.loads(json.dumps(view.to_dict())))
            assert back == view
            seen_phases.add(view.phase)
        if state.turn is None:
            break
        state, _ = apply(state, rng.choice(legal_actions(state)))
    assert Phase.OVER in seen_phases and Phase.PLAY in seen_phases


def test_the_view_says_what_the_seat_must_do() -> None:
    # ddz4 forced bid: a seat holding all four jokers may not pass when nobody has bid.
    s = deal("ddz4", ["BJ BJ RJ RJ 3s", "4s", "5s", "6s"], "7s", first_bidder=0)
    view = seat_view(s, 0)
    assert view.must_bid and Pass(0) not in view.legal_actions()
    assert view.legal_actions() == [Bid(0, 1), Bid(0, 2), Bid(0, 3)]
    assert not seat_view(s, 1).must_bid and seat_view(s, 1).legal_actions() == []
    # ddz4 show hand: the landlord may show before his first lead.
    s = run(s, "0 b3")
    assert ShowHand(0) in seat_view(s, 0).legal_actions()
    # ♠3 must be in the opener's first lead when the room requires it.
    room = Room.from_dict({"first_lead_holds_spade_three": True})
    s = deal("zsy1", ["3s 4s 5h", "6s", "7s", "8s"], room=room)
    view = seat_view(s, 0)
    spade_three = parse_cards("3s")[0]
    assert view.must_hold == spade_three
    assert view.legal_actions() and all(
        isinstance(a, PlayCards) and spade_three in a.cards for a in view.legal_actions()
    )
    assert seat_view(s, 1).must_hold is None


def test_the_play_to_beat_is_a_pattern() -> None:
    s = deal("ddz3", ["3s 3h 4s", "5s 5h 6s", "7s 7h"], "Ks Kh Kd", first_bidder=0)
    s = run(s, "0 b3", "0 3s3h")
    view = seat_view(s, 1)
    assert view.last is not None and view.last.pattern.reading == "pair:3"
    assert view.last_seat == 0 and view.to_move
    assert view.legal_actions() == [PlayCards(1, parse_cards("5s5h")), Pass(1)]


def test_one_rule_decides_who_sees_an_event() -> None:
    public, private = Event("play", 0, {}), Event("deal", None, {"hand": "3s"}, to=1)
    assert may_see(None, None) and may_see(None, 2)
    assert may_see(1, 1) and not may_see(1, 0) and not may_see(1, None)
    assert project([public, private], 1) == [public, private]
    assert project([public, private], 0) == [public]
    assert project([public, private], None) == [public]


def test_a_view_reads_its_history_as_the_record_form_says() -> None:
    """from_dict memoises the history's actions (a reader of consecutive views would parse
    the whole deal again after every move): an action it read once is read the same again,
    and an object that differs only in a value's type (``True == 1`` to Python, not to a
    record) is still refused, as action_from_dict refuses it."""
    from services.rules.codec import action_from_dict, memo_action_from_dict
    from services.rules.errors import RecordError

    state = new_game("doudizhu3", seed="memo")
    for _ in range(12):
        state, _ = apply(state, autoplay_action(seat_view(state, state.turn), "autoplay"))
    data = json.loads(json.dumps(seat_view(state, 0).to_dict()))
    first = SeatView.from_dict(data)
    again = SeatView.from_dict(json.loads(json.dumps(data)))
    assert first == again and first.history == seat_view(state, 0).history
    good = [{"seat": 1, "pass": True}, {"seat": 1, "bid": 2}, {"seat": 0, "autoplay": False}]
    twins = [{"seat": 1, "pass": 1}, {"seat": 1, "bid": 2.0}, {"seat": 0, "autoplay": 0},
             {"seat": True, "pass": True}]  # fmt: skip
    for d in good:
        assert memo_action_from_dict(d) == memo_action_from_dict(dict(d)) == action_from_dict(d)
    for d in twins:
        with pytest.raises(RecordError) as memo:
            memo_action_from_dict(d)
        with pytest.raises(RecordError) as plain:
            action_from_dict(d)
        assert memo.value.field == plain.value.field
    with pytest.raises(RecordError) as exc:
        memo_action_from_dict({"seat": 0, "play": ["3s"]})  # unhashable: read unmemoised
    assert exc.value.field == "action.play"
