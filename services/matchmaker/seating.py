"""Seating, pure: which queued tickets sit down together, and which take a table's free seats.

A pool's tickets (one variant, room, timers, bot level and private code) are read oldest
first; a ticket is a player or a party, seated together or not at all.  Nothing here touches
the database or the clock: the store reads the tickets, asks these functions, and seats what
they say in its own transaction, conditional on each ticket still being queued.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar


class Waiting(Protocol):
    """A queued ticket as seating sees it: its players (a party sits together) and when bots
    may fill its table (epoch ms; None: never)."""

    @property
    def players(self) -> Sequence[str]: ...

    @property
    def fill_ms(self) -> int | None: ...


W = TypeVar("W", bound=Waiting)


def tables_to_form(waiting: Sequence[W], seats: int, now: int) -> list[list[W]]:
    """The groups of tickets that form tables now: full tables, first come first seated (a
    party that does not fit the table being filled waits for a later one), then one table
    with bots in the empty seats when its oldest ticket has waited its bot fill time."""
    groups: list[list[W]] = []
    current: list[W] = []
    free = seats
    for ticket in waiting:
        size = len(ticket.players)
        if size > free:
            continue
        current.append(ticket)
        free -= size
        if free == 0:
            groups.append(current)
            current, free = [], seats
    if current and current[0].fill_ms is not None and current[0].fill_ms <= now:
        groups.append(current)
    return groups


def seats_of(group: Sequence[W]) -> list[tuple[W, list[int]]]:
    """Each ticket of a group with its seats, in order from seat 0 (bots take the rest)."""
    out: list[tuple[W, list[int]]] = []
    taken = 0
    for ticket in group:
        out.append((ticket, list(range(taken, taken + len(ticket.players)))))
        taken += len(ticket.players)
    return out


def refill(waiting: Sequence[W], free: Sequence[int]) -> list[tuple[W, list[int]]]:
    """Which waiting tickets take a table's ``free`` seats, first come first seated, a party
    only where enough seats are free; the seats no ticket takes stay with their bots."""
    out: list[tuple[W, list[int]]] = []
    left = sorted(free)
    for ticket in waiting:
        if not left:
            break
        if len(ticket.players) > len(left):
            continue
        mine, left = left[: len(ticket.players)], left[len(ticket.players) :]
        out.append((ticket, mine))
    return out
