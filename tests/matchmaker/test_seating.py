"""Seating (services/matchmaker/seating.py), without a database: which queued tickets sit
down together, parties whole, first come first seated, bots only after the fill time."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from services.matchmaker import seating


@dataclass(frozen=True)
class Ticket:
    name: str
    players: tuple[str, ...]
    fill_ms: int | None = None
    created_ms: int = 0


def t(name: str, size: int = 1, fill_ms: int | None = None) -> Ticket:
    return Ticket(name, tuple(f"{name}{i}" for i in range(size)), fill_ms)


def names(groups: list[list[Ticket]]) -> list[list[str]]:
    return [[x.name for x in g] for g in groups]


def test_full_tables_first_come_first_seated_and_a_party_waits_for_room() -> None:
    queue = [t("a"), t("b", 2), t("c", 2), t("d"), t("e"), t("f")]
    assert names(seating.tables_to_form(queue, 3, now=0)) == [["a", "b"], ["c", "d"]]
    # e and f wait: no fill time, never bots.


def test_bots_fill_one_table_once_its_oldest_ticket_waited_its_fill_time() -> None:
    queue = [t("a", fill_ms=100), t("b", fill_ms=500)]
    assert seating.tables_to_form(queue, 4, now=99) == []
    assert names(seating.tables_to_form(queue, 4, now=100)) == [["a", "b"]]
    assert seating.tables_to_form([t("a", fill_ms=None)], 4, now=10**12) == []


def test_seats_in_order_and_refill_takes_whole_parties() -> None:
    group = [t("a", 2), t("b")]
    assert [(x.name, s) for x, s in seating.seats_of(group)] == [("a", [0, 1]), ("b", [2])]
    waiting = [t("p", 3), t("q", 2), t("r")]
    chosen = seating.refill(waiting, [3, 1])
    assert [(x.name, s) for x, s in chosen] == [("q", [1, 3])]  # p does not fit: skipped
    assert seating.refill(waiting, []) == []


@given(
    st.lists(st.tuples(st.integers(1, 3), st.one_of(st.none(), st.integers(0, 100))),
             max_size=30),
    st.sampled_from([3, 4]),
    st.integers(0, 100),
)  # fmt: skip
def test_every_table_formed_is_whole_and_in_queue_order(
    queue: list[tuple[int, int | None]], seats: int, now: int
) -> None:
    tickets = [t(f"t{i}", size, fill) for i, (size, fill) in enumerate(queue)]
    groups = seating.tables_to_form(tickets, seats, now)
    seen = [x for g in groups for x in g]
    assert len(seen) == len(set(seen))  # no ticket twice
    order = {x.name: i for i, x in enumerate(tickets)}
    for g in groups:
        size = sum(len(x.players) for x in g)
        assert size <= seats
        assert [order[x.name] for x in g] == sorted(order[x.name] for x in g)
        if size < seats:  # bots fill a table only after its oldest ticket's fill time
            assert g[0].fill_ms is not None and g[0].fill_ms <= now
