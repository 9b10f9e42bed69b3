"""Seating by skill (services/matchmaker/seating.py), without a database: tables form from
tickets near each other in rating, the window widens with the wait, and no ticket waits past
its bot fill time because of it."""

from __future__ import annotations

import math
from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from services.matchmaker.seating import ANYONE, Window, skill_of, tables_to_form

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
