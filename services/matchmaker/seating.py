"""Seating, pure: which queued tickets sit down together, and which take a table's free seats.

A pool's tickets (one variant, room, timers, bot level and private code) are read oldest
first; a ticket is a player or a party, seated together or not at all.  Nothing here touches
the database or the clock: the store reads the tickets (and their players' ratings), asks these
functions, and seats what they say in its own transaction, conditional on each ticket still
being queued.

Skill: within a pool, a table forms from tickets whose ratings (the mean mu of a ticket's
players, a new player 0) are within a window of each other.  A ticket's window starts narrow
and widens with its wait, to "anyone" at its bot fill time (a ticket that never gets bots:
after ``Window.anyone_ms``); two tickets may sit together when either one's window reaches the
other.  So no ticket waits past its bot fill time because of the window: by then it takes
anyone, and bots the seats nobody takes.  Parties and private tables ignore ratings.  The
window's parameters are the room's (rules.SkillSettings, :meth:`Window.of_settings`): a room that
sets them is a pool of its own, since the pool key covers the room.

A seat freed at a waiting table (its player not ready in time) goes to the first waiting
ticket whose window reaches the table's people's mean rating (:func:`refill`); a ticket past
its bot fill time takes anyone's seat, so a refill too never keeps it waiting.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar


class Waiting(Protocol):
    """A queued ticket as seating sees it: its players (a party sits together) and when bots
    may fill its table (epoch ms; None: never)."""

    @property
    def players(self) -> Sequence[str]: ...

    @property
    def fill_ms(self) -> int | None: ...

    @property
    def created_ms(self) -> int: ...


W = TypeVar("W", bound=Waiting)


class Settings(Protocol):
    """A room's skill window settings (rules.SkillSettings: mu, and seconds)."""

    @property
    def skill_narrow_mu(self) -> int: ...

    @property
    def skill_wide_mu(self) -> int: ...

    @property
    def skill_anyone_s(self) -> int: ...


@dataclass(frozen=True)
class Window:
    """How far apart (in mu, OpenSkill units: a new player's sigma is 8.3) two tickets'
    ratings may be: ``narrow_mu`` at first, widening evenly to ``wide_mu`` and then to anyone
    at the ticket's bot fill time (or after ``anyone_ms`` when it never gets bots).  No
    defaults here: a room's settings (rules.SkillSettings) hold them, :meth:`of_settings`."""

    narrow_mu: float
    wide_mu: float
    anyone_ms: int

    @classmethod
    def of_settings(cls, s: Settings) -> Window:
        """The window a room's settings give (``Room.skill``; the defaults: 2, 10, 30 s)."""
        return cls(float(s.skill_narrow_mu), float(s.skill_wide_mu), s.skill_anyone_s * 1000)

    def of(self, ticket: Waiting, now: int, private: bool = False) -> float:
        """The ticket's window now (``math.inf``: anyone)."""
        if private or len(ticket.players) > 1 or math.isinf(self.narrow_mu):
            return math.inf
        end = ticket.fill_ms if ticket.fill_ms is not None else ticket.created_ms + self.anyone_ms
        span = end - ticket.created_ms
        waited = now - ticket.created_ms
        if span <= 0 or waited >= span:
            return math.inf
        return self.narrow_mu + (self.wide_mu - self.narrow_mu) * max(waited, 0) / span


#: Anyone with anyone: seating by arrival alone (no ratings known, or a private pool).
ANYONE = Window(math.inf, math.inf, 0)


def skill_of(ticket: Waiting, skill: Mapping[str, float]) -> float:
    """A ticket's rating: the mean mu of its players (a player without one: 0, a new one)."""
    return sum(skill.get(p, 0.0) for p in ticket.players) / max(len(ticket.players), 1)


def tables_to_form(
    waiting: Sequence[W],
    seats: int,
    now: int,
    skill: Mapping[str, float] | None = None,
    window: Window = ANYONE,
    private: bool = False,
) -> list[list[W]]:
    """The groups of tickets that form tables now.  The oldest ticket not yet seated
    gathers, in queue order, the tickets within the window of it (see the module's
    docstring) that fit: a full table forms; a table short of players forms with bots in the
    empty seats once that oldest ticket has waited its bot fill time; otherwise it waits and
    the next oldest tries.  Without ratings (``skill`` None) or in a private pool everyone is
    within everyone's window: first come first seated."""
    ratings = skill or {}
    left = list(waiting)
    mine = [skill_of(x, ratings) for x in left]
    if skill is None:
        window = ANYONE
    widths = [window.of(x, now, private) for x in left]
    groups: list[list[W]] = []
    i = 0
    while i < len(left):
        group, free = [i], seats - len(left[i].players)
        for j in range(i + 1, len(left)):
            if free == 0:
                break
            size = len(left[j].players)
            if size > free or abs(mine[i] - mine[j]) > max(widths[i], widths[j]):
                continue
            group.append(j)
            free -= size
        fill = left[i].fill_ms
        if free == 0 or (free < seats and fill is not None and fill <= now):
            groups.append([left[k] for k in group])
            taken = set(group)
            left = [x for k, x in enumerate(left) if k not in taken]
            mine = [x for k, x in enumerate(mine) if k not in taken]
            widths = [x for k, x in enumerate(widths) if k not in taken]
        else:
            i += 1
    return groups


def seats_of(group: Sequence[W]) -> list[tuple[W, list[int]]]:
    """Each ticket of a group with its seats, in order from seat 0 (bots take the rest)."""
    out: list[tuple[W, list[int]]] = []
    taken = 0
    for ticket in group:
        out.append((ticket, list(range(taken, taken + len(ticket.players)))))
        taken += len(ticket.players)
    return out


def refill(
    waiting: Sequence[W],
    free: Sequence[int],
    now: int = 0,
    skill: Mapping[str, float] | None = None,
    window: Window = ANYONE,
    table: float | None = None,
    private: bool = False,
) -> list[tuple[W, list[int]]]:
    """Which waiting tickets take a table's ``free`` seats, first come first seated among
    those whose window (now) reaches ``table``, the mean rating of the people still at the
    table; a party only where enough seats are free.  The seats no ticket takes stay with
    their bots.  Without ratings (``skill`` None), without people at the table (``table``
    None) or at a private table, every ticket is within reach: first come first seated."""
    out: list[tuple[W, list[int]]] = []
    left = sorted(free)
    for ticket in waiting:
        if not left:
            break
        if len(ticket.players) > len(left):
            continue
        if (
            skill is not None
            and table is not None
            and abs(skill_of(ticket, skill) - table) > window.of(ticket, now, private)
        ):
            continue
        mine, left = left[: len(ticket.players)], left[len(ticket.players) :]
        out.append((ticket, mine))
    return out
