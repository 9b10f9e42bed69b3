"""The table's own rules (services/matchmaker/table.py), without a server or a database: every
transition, every timer path, escapes and series — and a hypothesis state machine over random
commands and clocks that keeps the table's invariants."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from services.matchmaker import table as T

TIMERS = {"bid_ms": 300, "turn_ms": 500, "start_ms": 2000, "grace_ms": 700, "bot_think_ms": 50}
_bots = itertools.count()


def make_bot() -> T.Seat:
    return T.Seat.for_bot("normal", f"{next(_bots):012x}", 1)


def a_table(*players: str, seats: int = 3) -> T.Table:
    chosen = [T.Seat.human(p) for p in players]
    chosen += [make_bot() for _ in range(seats - len(chosen))]
    return T.Table(
        table_id="t1", variant="doudizhu3", seq=0, state=T.State.WAITING, seats=chosen,
        config={"timers": dict(TIMERS), "bot_level": "normal", "players": seats},
        start_deadline_ms=TIMERS["start_ms"],
    )  # fmt: skip


def types(fx: T.Effects) -> list[str]:
    return [n.type for n in fx.notes]


# --------------------------------------------------------------------------- seats and json
def test_a_seat_keeps_its_stored_json_keys() -> None:
    stored = {"player_id": "ann", "bot": False, "ready": True, "connected": False,
              "autoplay": True, "total": -7, "grace_ms": 123}  # fmt: skip
    seat = T.Seat.from_json(stored)
    assert seat.connection is T.Connection.DISCONNECTED and not seat.connected
    assert seat.to_json() == stored
    never = T.Seat.human("bob")
    assert never.to_json()["connected"] is None and never.connection is T.Connection.NEVER
    bot = make_bot()
    assert bot.bot_level == "normal" and bot.connected and bot.ready
    table = a_table("ann")
    assert T.Table.from_values(table.values()) == table


def test_the_timers_are_read_from_the_config() -> None:
    timers = a_table().timers
    assert timers.ms(T.Timer.BID) == 300 and timers.ms(T.Timer.GRACE) == 700
    assert timers.bot_think_ms == 50


# --------------------------------------------------------------------------- waiting
def test_ready_seats_start_a_game_at_once() -> None:
    table = a_table("ann")
    fx = T.Effects()
    assert table.compute_due() == TIMERS["start_ms"]  # ann is not ready yet
    assert T.ready(table, 0, fx) and types(fx) == ["ready"]
    assert not T.ready(table, 0, fx)  # twice changes nothing
    assert table.compute_due() == 0
    assert T.due_step(table, 10, [], make_bot, T.Effects()) == T.Due(T.Step.DEAL)


def test_the_start_timer_gives_the_seats_of_those_not_ready_to_the_queue() -> None:
    table = a_table("ann", "bob")
    T.ready(table, 0, T.Effects())
    fx = T.Effects()
    due = T.due_step(table, TIMERS["start_ms"], [], make_bot, fx)
    assert due.step is T.Step.NOTHING
    assert fx.release == ["bob"] and fx.refill == [1] and fx.close_if_empty
    assert types(fx) == ["player_left"]  # the store says who joined: a ticket or the bot
    assert table.seats[1].bot and table.start_deadline_ms == 2 * TIMERS["start_ms"]


def test_a_grace_that_ends_between_games_removes_the_seat_and_closes_an_empty_table() -> None:
    table = a_table("ann")
    fx = T.Effects()
    assert T.connected(table, 0, fx) and types(fx) == ["connected"]
    assert T.disconnected(table, 0, 100, fx)
    assert table.seats[0].grace_ms == 100 + TIMERS["grace_ms"]
    assert T.graced(table, 799) == [] and T.graced(table, 800) == [0]
    fx = T.Effects()
    assert T.due_step(table, 800, [0], make_bot, fx).step is T.Step.NOTHING
    assert types(fx) == ["player_left", "bot_joined", "table_closed"]
    assert table.state is T.State.CLOSED and table.compute_due() is None


def test_a_stream_back_in_time_keeps_the_seat() -> None:
    table = a_table("ann")
    T.connected(table, 0, T.Effects())
    T.disconnected(table, 0, 0, T.Effects())
    fx = T.Effects()
    assert T.connected(table, 0, fx) and types(fx) == ["reconnected"]
    assert table.seats[0].grace_ms is None
    T.disconnected(table, 0, 0, T.Effects())
    fx = T.Effects()
    T.back_in_time(table, [0], fx)
    assert types(fx) == ["reconnected"] and table.seats[0].connected


# --------------------------------------------------------------------------- playing
def started(*players: str) -> T.Table:
    table = a_table(*players)
    for i in table.humans():
        T.ready(table, i, T.Effects())
    game_id = T.next_game_id(table)
    fx = T.Effects()
    T.start_game(table, game_id, 0, fx)
    assert game_id == "t1.1" and types(fx) == ["game_started"]
    return table


@pytest.mark.parametrize(
    ("seat", "autoplay", "bidding", "deadline", "step", "announced"),
    [
        (0, False, True, TIMERS["bid_ms"], T.Step.TIMEOUT, True),
        (0, False, False, TIMERS["turn_ms"], T.Step.TIMEOUT, True),
        (0, True, False, 0, T.Step.AUTOPLAY, False),
        (1, False, False, TIMERS["bot_think_ms"], T.Step.BOT, False),
    ],
)
def test_each_seat_to_move_has_its_deadline(
    seat: int, autoplay: bool, bidding: bool, deadline: int, step: T.Step, announced: bool
) -> None:
    table = started("ann")
    table.seats[0].autoplay = autoplay
    fx = T.Effects()
    T.set_turn(table, seat, bidding, 1000, fx)
    assert table.turn == seat and table.turn_deadline_ms == 1000 + deadline
    assert types(fx) == (["deadline"] if announced else [])
    if announced:
        assert fx.notes[0].data["kind"] == ("bid" if bidding else "turn")
    assert T.due_step(table, 1000 + deadline, [], make_bot, T.Effects()) == T.Due(step, seat)


def test_only_a_bot_or_an_auto_play_seat_due_now_moves_on_in_the_same_write() -> None:
    # Runner._run_on takes such moves one after the other and writes them together.
    table = started("ann")
    T.set_turn(table, 1, False, 1000, T.Effects())
    assert not T.moves_at_once(table, 1000 + TIMERS["bot_think_ms"] - 1)  # the bot thinks
    assert T.moves_at_once(table, 1000 + TIMERS["bot_think_ms"])
    T.set_turn(table, 0, False, 1000, T.Effects())
    assert not T.moves_at_once(table, 1000 + TIMERS["turn_ms"])  # a person's timeout
    table.seats[0].autoplay = True
    T.set_turn(table, 0, False, 1000, T.Effects())
    assert T.moves_at_once(table, 1000)
    T.connected(table, 0, T.Effects())
    T.disconnected(table, 0, 1000, T.Effects())
    assert T.moves_at_once(table, 1000 + TIMERS["grace_ms"] - 1)
    assert not T.moves_at_once(table, 1000 + TIMERS["grace_ms"])  # the escape is due first


def test_a_persons_call_takes_only_the_engines_moves_due_at_once_into_its_write() -> None:
    # Runner.commit: a searching bot's move is chosen by the advance loop, not in a call.
    table = started("ann")
    T.set_turn(table, 1, False, 1000, T.Effects())
    due = 1000 + TIMERS["bot_think_ms"]
    assert T.moves_at_once(table, due, frozenset({"hard"}))  # a normal bot: the engine's
    assert not T.moves_at_once(table, due, frozenset({"normal"}))  # searched here
    assert not T.moves_at_once(table, due - 1, frozenset({"hard"}))  # still thinking


def test_the_engine_plays_a_run_of_the_seats_that_move_at_once() -> None:
    # Runner._run hands these seats to one Apply (ApplyRequest.run).
    searching = frozenset({"hard"})
    table = started("ann", "bob")  # two people and a normal bot that thinks 50 ms
    assert T.run_seats(table, 2, 8, searching) == [2]  # the bot, due; nobody else at once
    assert T.run_seats(table, 0, 8, searching) == []  # a person's move is not the engine's
    table.seats[0].autoplay = True
    assert T.run_seats(table, 2, 8, searching) == [2, 0]  # auto-play moves at once
    assert T.run_seats(table, 0, 8, searching) == [0]  # the bot thinks: not at once
    assert T.run_seats(table, 2, 1, searching) == [2]  # one move: the due seat's alone
    table = started("ann", "bob")
    table.config["timers"]["bot_think_ms"] = 0  # (read once: before the timers are read)
    table.seats[0].autoplay = True
    assert T.run_seats(table, 0, 8, searching) == [0, 2]
    assert T.run_seats(table, 0, 8, frozenset({"normal"})) == [0]  # searched elsewhere
    assert T.run_seats(table, 2, 8, frozenset({"normal"})) == []


def test_a_grace_that_ends_mid_game_is_an_escape() -> None:
    table = started("ann")
    T.set_turn(table, 1, False, 0, T.Effects())
    T.connected(table, 0, T.Effects())
    T.disconnected(table, 0, 0, T.Effects())
    assert T.due_step(table, 700, [0], make_bot, T.Effects()) == T.Due(T.Step.LEAVE, 0)
    assert table.seats[0].grace_ms is None  # asked once


def test_the_end_of_a_game_scores_the_players_who_sat_there_and_the_escaper_leaves() -> None:
    table = started("ann", "bob")
    fx = T.Effects()
    T.finish_game(table, [-6, 3, 3], 0, {"status": "escaped"}, "doudizhu", 5000, fx, make_bot)
    assert [(r.player_id, r.score, r.game_id, r.ended_ms) for r in fx.results] == [
        ("ann", -6, "t1.1", 5000), ("bob", 3, "t1.1", 5000)
    ]  # fmt: skip
    assert types(fx) == ["game_over", "series", "player_left", "bot_joined"]
    assert fx.notes[1].data == {"games": 1, "totals": [-6, 3, 3]}
    assert fx.release == ["ann"] and table.seats[0].bot
    assert table.state is T.State.WAITING and table.turn is None and table.game_id is None
    assert [s.ready for s in table.seats] == [True, False, True]  # bob readies again
    assert table.start_deadline_ms == 5000 + TIMERS["start_ms"]
    # The series goes on: game 2, and the totals add up.
    T.ready(table, 1, T.Effects())
    T.start_game(table, T.next_game_id(table), 6000, T.Effects())
    fx = T.Effects()
    T.finish_game(table, [2, -4, 2], None, {}, "doudizhu", 9000, fx, make_bot)
    assert fx.notes[1].data == {"games": 2, "totals": [2, -1, 5]}
    assert [(r.player_id, r.score) for r in fx.results] == [("bob", -4)]


def test_a_table_whose_last_person_leaves_closes_after_the_game() -> None:
    table = started("ann")
    fx = T.Effects()
    T.remove(table, 0, "left", fx, make_bot())
    T.close_if_empty(table, fx)
    assert table.state is T.State.PLAYING  # bots finish the game
    fx = T.Effects()
    T.finish_game(table, [1, 1, -2], None, {}, "doudizhu", 100, fx, make_bot)
    assert table.state is T.State.CLOSED and fx.results == []
    assert types(fx)[-1] == "table_closed"


# --------------------------------------------------------------------------- the trick
def test_the_trick_at_a_glance_shows_plays_and_passes_until_a_new_trick() -> None:
    table = started("ann", "bob")
    T.trick_event(table, "pass", 0)  # a pass in the bidding: no trick yet
    assert [s.last_action for s in table.seats] == [None, None, None]
    T.trick_event(table, "landlord", 1)
    T.trick_event(table, "play", 1, "3s3hTd")
    T.trick_event(table, "pass", 2)
    T.trick_event(table, "pass", 7)  # no such seat: nothing
    assert [s.last_action for s in table.seats] == [None, "3s 3h Td", "pass"]
    assert table.seats[1].to_json()["last_action"] == "3s 3h Td"
    assert T.Seat.from_json(table.seats[1].to_json()) == table.seats[1]  # stored and read
    T.trick_event(table, "new_trick", 1)
    assert [s.last_action for s in table.seats] == [None, None, None]
    assert "last_action" not in table.seats[1].to_json()  # the stored keys as before
    T.trick_event(table, "play", 1, "RJ BJ")
    fx = T.Effects()
    hands = [["3s", "4d"], [], ["2c"]]
    T.finish_game(table, [2, -4, 2], None, {}, "doudizhu", 9, fx, make_bot, hands)
    assert [s.last_action for s in table.seats] == [None, None, None]  # none between games
    assert fx.notes[0].data["hands"] == [
        {"seat": 0, "cards": ["3s", "4d"]}, {"seat": 1, "cards": []}, {"seat": 2, "cards": ["2c"]}
    ]  # fmt: skip


@settings(max_examples=25, deadline=None)
@given(
    variant=st.sampled_from(["doudizhu3", "doudizhu4", "zhengshangyou1", "zhengshangyou2"]),
    seed=st.text(min_size=1, max_size=8),
    picks=st.randoms(use_true_random=False),
)
def test_the_trick_follows_every_game_the_rules_play(variant: str, seed: str, picks: Any) -> None:
    """Whole random games by the rules: after every event, the seat whose play is to beat
    shows that play, every other seat's mark is a pass or a play it made this trick, and
    when the seat to move leads nobody has a mark.  At the end, hands_at_end holds every
    card nobody played, as the engine's public view of the ended game gives them."""
    from services import rules
    from services.common.wire import event_message, trick_move, view_message
    from services.matchmaker.runner import hands_at_end

    state = rules.new_game(variant, seed=seed)
    table = a_table("ann", seats=state.players)
    T.start_game(table, "t1.1", 0, T.Effects())
    played: list[int] = []
    while not state.over:
        action = picks.choice(rules.legal_actions(state))
        state, events = rules.apply(state, action)
        for e in events:
            # As the runner reads the engine's answer: the typed body of the event.
            msg = event_message(e, typed=True)
            seat, cards = trick_move(msg) if e.type in T.TRICK_MOVES else (None, "")
            T.trick_event(table, e.type, seat, cards)
            if e.type == "play":
                played += rules.parse_cards(e.data["cards"])
        view = rules.public_view(state)
        marks = [s.last_action for s in table.seats]
        if state.over:
            assert marks == [None] * state.players
        elif view.last is None:
            assert marks == [None] * state.players, (view.phase, marks)
        else:
            assert view.last_seat is not None
            assert marks[view.last_seat] == rules.format_cards(view.last.cards, " ")
    view = view_message(rules.public_view(state))
    hands = hands_at_end(view)
    assert [len(h) for h in hands] == [len(h) for h in state.hands]
    del view.hands[:]  # from an engine older than View.hands: the same, from the record
    assert hands_at_end(view) == hands
    left = [c for h in hands for c in rules.parse_cards(" ".join(h))]
    assert sorted(left + played) == sorted(state.variant.deck)


# --------------------------------------------------------------------------- properties
PEOPLE = ["ann", "bob", "cy", "di", "ed"]


class TableMachine(RuleBasedStateMachine):
    """Random commands, clocks and engine answers against one table; the invariants hold
    after every step."""

    def __init__(self) -> None:
        super().__init__()
        self.table = a_table("ann", seats=3)
        self.now = 0
        self.games_finished = 0
        self.results: list[T.PlayerResult] = []
        self.queue = iter(PEOPLE[1:])

    def _effects(self, fx: T.Effects) -> None:
        """What the store does with effects: a refill seats the next person, if any."""
        for seat in fx.refill:
            person = next(self.queue, None)
            if person is not None and self.table.seat_of(person) is None:
                self.table.seats[seat] = T.Seat.human(person)
        if fx.close_if_empty:
            T.close_if_empty(self.table, fx)
        for note in fx.notes:
            assert note.to is None  # the table's own events are every seat's
        self.results += fx.results

    @precondition(lambda self: self.table.state is not T.State.CLOSED)
    @rule(data=st.data())
    def ready(self, data: Any) -> None:
        if self.table.humans():
            seat = data.draw(st.sampled_from(self.table.humans()))
            fx = T.Effects()
            T.ready(self.table, seat, fx)
            self._effects(fx)

    @precondition(lambda self: self.table.state is not T.State.CLOSED)
    @rule(data=st.data(), drop=st.booleans())
    def stream(self, data: Any, drop: bool) -> None:
        if self.table.humans():
            seat = data.draw(st.sampled_from(self.table.humans()))
            fx = T.Effects()
            if drop:
                T.disconnected(self.table, seat, self.now, fx)
            else:
                T.connected(self.table, seat, fx)
            self._effects(fx)

    @precondition(lambda self: self.table.state is not T.State.CLOSED)
    @rule(data=st.data())
    def leave(self, data: Any) -> None:
        if self.table.humans() and self.table.state is T.State.WAITING:
            seat = data.draw(st.sampled_from(self.table.humans()))
            fx = T.Effects()
            T.remove(self.table, seat, "left", fx, make_bot())
            T.close_if_empty(self.table, fx)
            self._effects(fx)

    @rule(dt=st.integers(0, 3000), data=st.data())
    def time_passes(self, dt: int, data: Any) -> None:
        """The clock moves on and whatever is due happens, the engine answering at random."""
        self.now += dt
        table = self.table
        for _ in range(20):
            due_at = table.compute_due()
            if due_at is None or due_at > self.now:
                return
            at_once = T.moves_at_once(table, self.now)
            fx = T.Effects()
            due = T.due_step(table, self.now, T.graced(table, self.now), make_bot, fx)
            # A move that may join the last one's write is a bot's or an auto-play seat's,
            # with nothing else due.
            assert not at_once or (due.step in (T.Step.BOT, T.Step.AUTOPLAY) and not fx.notes)
            if due.step is T.Step.DEAL:
                T.start_game(table, T.next_game_id(table), self.now, fx)
                T.set_turn(table, data.draw(st.integers(0, 2)), True, self.now, fx)
            elif due.step is not T.Step.NOTHING:
                if data.draw(st.integers(0, 4)) == 0 or due.step is T.Step.LEAVE:
                    scores = data.draw(st.lists(st.integers(-9, 9), min_size=3, max_size=3))
                    escaper = due.seat if due.step is T.Step.LEAVE else None
                    T.finish_game(table, scores, escaper, {}, "doudizhu", self.now, fx,
                                  make_bot)  # fmt: skip
                    self.games_finished += 1
                    assert types(fx)[:2] == ["game_over", "series"]
                else:
                    nxt = ((due.seat or 0) + 1) % 3
                    T.set_turn(table, nxt, data.draw(st.booleans()), self.now, fx)
            self._effects(fx)

    @invariant()
    def a_person_holds_one_seat(self) -> None:
        people = [s.player_id for s in self.table.seats if not s.bot]
        assert len(people) == len(set(people))

    @invariant()
    def a_game_in_play_has_a_running_deadline(self) -> None:
        t = self.table
        if t.state is T.State.PLAYING:
            assert t.turn is not None and t.turn_deadline_ms is not None
            assert t.compute_due() is not None
        else:
            assert t.turn is None and t.game_id is None

    @invariant()
    def a_waiting_table_has_a_start_timer(self) -> None:
        t = self.table
        if t.state is T.State.WAITING and not all(s.ready for s in t.seats):
            assert t.start_deadline_ms is not None

    @invariant()
    def every_game_is_numbered_and_closed_tables_stay_closed(self) -> None:
        t = self.table
        assert t.game_no >= self.games_finished
        if t.state is T.State.CLOSED:
            assert not t.humans() and t.compute_due() is None


TableMachine.TestCase.settings = settings(max_examples=150, stateful_step_count=40, deadline=None)
test_the_table_keeps_its_invariants = TableMachine.TestCase
