"""Seating by skill (services/matchmaker/seating.py), without a database: tables form from
tickets near each other in rating, the window widens with the wait, freed seats go to tickets
within reach of the table, and no ticket waits past its bot fill time because of it."""

from __future__ import annotations

import math
from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from services import rules
from services.matchmaker.seating import ANYONE, Window, refill, skill_of, tables_to_form

#: The window seating used before it became a room setting: still a room's default.
W = Window(narrow_mu=2.0, wide_mu=10.0, anyone_ms=30_000)


@dataclass(frozen=True)
class Ticket:
    name: str
    players: tuple[str, ...]
    fill_ms: int | None
    created_ms: int


def t(name: str, created: int = 0, fill: int | None = 10_000, size: int = 1) -> Ticket:
    return Ticket(
        name, tuple(f"{name}{i}" if size > 1 else name for i in range(size)), fill, created
    )


def names(groups: list[list[Ticket]]) -> list[list[str]]:
    return [[x.name for x in g] for g in groups]


def test_tables_form_by_rating_not_arrival() -> None:
    queue = [t("a"), t("b"), t("c"), t("x"), t("y"), t("z")]
    skill = {"a": 0.0, "x": 20.0, "b": 0.5, "y": 21.0, "c": 1.0, "z": 19.5}
    assert names(tables_to_form(queue, 3, now=0, skill=skill, window=W)) == [
        ["a", "b", "c"],
        ["x", "y", "z"],
    ]
    # Without ratings (or a private pool): first come first seated.
    assert names(tables_to_form(queue, 3, now=0)) == [["a", "b", "c"], ["x", "y", "z"]]
    mixed = [t("a"), t("x"), t("b"), t("y"), t("c"), t("z")]
    assert names(tables_to_form(mixed, 3, now=0, skill=skill, window=W)) == [
        ["a", "b", "c"],
        ["x", "y", "z"],
    ]
    assert names(tables_to_form(mixed, 3, now=0, skill=skill, window=W, private=True)) == [
        ["a", "x", "b"],
        ["y", "c", "z"],
    ]


def test_the_window_widens_with_the_wait_to_anyone_at_the_fill_time() -> None:
    a = t("a", created=0, fill=10_000)
    assert W.of(a, 0) == 2.0
    assert W.of(a, 5_000) == 6.0
    assert math.isinf(W.of(a, 10_000))
    never = t("n", created=0, fill=None)  # no bots: anyone after anyone_ms
    assert W.of(never, 15_000) == 6.0 and math.isinf(W.of(never, 30_000))
    party = t("p", size=2)
    assert math.isinf(W.of(party, 0))  # parties ignore ratings
    queue = [t("a", fill=10_000), t("b", fill=None), t("c", fill=None)]
    skill = {"a": 0.0, "b": 5.0, "c": 8.0}
    assert tables_to_form(queue, 3, now=0, skill=skill, window=W) == []
    assert tables_to_form(queue, 3, now=5_000, skill=skill, window=W) == []  # b in, c not
    assert tables_to_form(queue, 3, now=7_000, skill=skill, window=W) == []  # a reaches 7.6
    assert names(tables_to_form(queue, 3, now=8_000, skill=skill, window=W)) == [["a", "b", "c"]]


def test_the_rooms_window_and_its_defaults() -> None:
    """A room that sets nothing seats as before the window was a room setting."""
    assert Window.of_settings(rules.Room().skill) == W
    room = rules.Room.from_dict({"skill_narrow_mu": 0, "skill_wide_mu": 4, "skill_anyone_s": 5})
    assert Window.of_settings(room.skill) == Window(0.0, 4.0, 5_000)


def test_a_freed_seat_goes_to_the_first_ticket_within_reach_of_the_table() -> None:
    queue = [t("far", fill=20_000), t("near", fill=20_000), t("p", size=2), t("late")]
    skill = {"far": -15.0, "near": 19.0, "p0": -30.0, "p1": -30.0, "late": 20.0}
    # The table's people average 20: "far" is out of reach, "near" (1 away) takes the seat.
    got = refill(queue, [2], now=0, skill=skill, window=W, table=20.0)
    assert [(x.name, s) for x, s in got] == [("near", [2])]
    # Two seats: a party ignores ratings and is older than "late".
    got = refill(queue, [0, 2], now=0, skill=skill, window=W, table=20.0)
    assert [(x.name, s) for x, s in got] == [("near", [0]), ("late", [2])]
    got = refill(queue[2:], [0, 2], now=0, skill=skill, window=W, table=20.0)
    assert [(x.name, s) for x, s in got] == [("p", [0, 2])]
    # At its bot fill time "far" takes anyone's seat: first come first seated again.
    got = refill(queue, [2], now=20_000, skill=skill, window=W, table=20.0)
    assert [x.name for x, _ in got] == ["far"]
    # Its window widens meanwhile: 2 + 8 * 15/20 = 8, not yet 35 away from the table.
    assert [x.name for x, _ in refill(queue, [2], 15_000, skill, W, 20.0)] == ["near"]
    # A private table, no people left, or no ratings: first come first seated.
    assert [x.name for x, _ in refill(queue, [2], 0, skill, W, 20.0, private=True)] == ["far"]
    assert [x.name for x, _ in refill(queue, [2], 0, skill, W, None)] == ["far"]
    assert [x.name for x, _ in refill(queue, [2])] == ["far"]


def test_a_party_counts_as_its_mean() -> None:
    assert skill_of(t("p", size=2), {"p0": 4.0, "p1": 8.0}) == 6.0
    assert skill_of(t("q"), {}) == 0.0  # a new player


tickets = st.lists(
    st.tuples(
        st.integers(1, 2),  # size
        st.integers(0, 20_000),  # created
        st.one_of(st.none(), st.integers(0, 30_000)),  # fill after
        st.floats(-30, 30),  # rating
    ),
    max_size=40,
)


@given(tickets, st.sampled_from([3, 4]), st.integers(0, 60_000))
def test_no_ticket_waits_past_its_fill_time_because_of_the_window(
    queue: list[tuple[int, int, int | None, float]], seats: int, now: int
) -> None:
    waiting = sorted(
        (Ticket(f"t{i}", tuple(f"t{i}.{k}" for k in range(size)),
                None if fill is None else created + fill, created)
         for i, (size, created, fill, _) in enumerate(queue)),
        key=lambda x: x.created_ms,
    )  # fmt: skip
    waiting = [x for x in waiting if x.created_ms <= now]
    skill = {f"t{i}.{k}": r for i, (size, _, _, r) in enumerate(queue) for k in range(size)}
    groups = tables_to_form(waiting, seats, now, skill, W)
    seated = [x for g in groups for x in g]
    assert len(seated) == len({x.name for x in seated})
    for x in waiting:
        if x.fill_ms is not None and x.fill_ms <= now:
            assert x in seated, f"{x.name} waited past its fill time"
    order = {x.name: i for i, x in enumerate(waiting)}
    for g in groups:
        size = sum(len(x.players) for x in g)
        assert size <= seats
        assert [order[x.name] for x in g] == sorted(order[x.name] for x in g)
        if size < seats:  # bots only once the table's oldest ticket is due
            assert g[0].fill_ms is not None and g[0].fill_ms <= now
        first = g[0]
        for x in g[1:]:  # every ticket within its own or the oldest's window of the oldest
            gap = abs(skill_of(x, skill) - skill_of(first, skill))
            assert gap <= max(W.of(first, now), W.of(x, now))


@given(tickets, st.sampled_from([3, 4]), st.integers(0, 60_000))
def test_with_everyone_in_the_window_seating_is_by_arrival(
    queue: list[tuple[int, int, int | None, float]], seats: int, now: int
) -> None:
    """A private pool (or the window ANYONE) forms the same tables as no ratings at all."""
    waiting = [Ticket(f"t{i}", tuple(f"t{i}.{k}" for k in range(size)), fill, created)
               for i, (size, created, fill, _) in enumerate(queue)]  # fmt: skip
    skill = {f"t{i}.{k}": r for i, (size, _, _, r) in enumerate(queue) for k in range(size)}
    plain = tables_to_form(waiting, seats, now)
    assert tables_to_form(waiting, seats, now, skill, W, private=True) == plain
    assert tables_to_form(waiting, seats, now, skill, ANYONE) == plain


@given(
    tickets,
    st.lists(st.integers(0, 3), min_size=1, max_size=3, unique=True),
    st.integers(0, 60_000),
    st.one_of(st.none(), st.floats(-30, 30)),
    st.booleans(),
)
def test_a_refill_never_keeps_a_ticket_past_its_fill_time(
    queue: list[tuple[int, int, int | None, float]],
    free: list[int],
    now: int,
    table: float | None,
    private: bool,
) -> None:
    """A freed seat goes to the first tickets (queue order) within reach of the table, as
    first come first seated would among those alone; a ticket past its bot fill time is
    always within reach, so the window never makes it wait for a seat it fits."""
    waiting = sorted(
        (Ticket(f"t{i}", tuple(f"t{i}.{k}" for k in range(size)),
                None if fill is None else created + fill, created)
         for i, (size, created, fill, _) in enumerate(queue)),
        key=lambda x: x.created_ms,
    )  # fmt: skip
    waiting = [x for x in waiting if x.created_ms <= now]
    skill = {f"t{i}.{k}": r for i, (size, _, _, r) in enumerate(queue) for k in range(size)}
    got = refill(waiting, free, now, skill, W, table, private)

    def reaches(x: Ticket) -> bool:
        return table is None or abs(skill_of(x, skill) - table) <= W.of(x, now, private)

    within = [x for x in waiting if reaches(x)]
    assert got == refill(within, free)  # first come first seated among those within reach
    for x in waiting:
        if x.fill_ms is not None and x.fill_ms <= now:
            assert x in within, f"{x.name} kept from a seat past its fill time"
    seats = [s for _, mine in got for s in mine]
    assert len(seats) == len(set(seats)) and set(seats) <= set(free)
    assert all(len(x.players) == len(mine) for x, mine in got)
    if table is None or private:
        assert got == refill(waiting, free)
