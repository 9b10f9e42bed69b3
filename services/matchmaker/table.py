"""A table's own rules, pure: its seats and timers, what is due when, and what each thing that
happens at a table (a game starting or ending, a player readying, leaving, dropping their
stream, a deadline running out) changes.

Nothing here touches gRPC, SQL, the clock, threads or randomness: ``now`` comes in as epoch
milliseconds, and a transition changes the :class:`Table` it is given and records what must
happen besides in :class:`Effects` — table events to publish, holds to release, seats to
refill from the queue, players' results — which the runner carries out and the store commits
in one conditional write.  Where the game itself must move (a deal, a timeout, a bot's
move), :func:`due_step` says which engine call is due; the runner makes it and hands the
answer back to :func:`set_turn` or :func:`finish_game`.

The stored JSON keys of a seat (``player_id``, ``bot``, ``ready``, ``connected``,
``autoplay``, ``total``, ``grace_ms``) are unchanged, so no data migration is needed; a seat's
``last_action`` in the current trick is stored only while it has one (an older row simply has
none).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


class State(enum.StrEnum):
    WAITING = "waiting"  # between games: seats get ready, the start timer runs
    PLAYING = "playing"
    CLOSED = "closed"


class Timer(enum.StrEnum):
    """The table's timers (RULES.md §6), by their key in the stored config (``<name>_ms``)."""

    BID = "bid"
    TURN = "turn"
    START = "start"
    GRACE = "grace"
    BOT_THINK = "bot_think"


class Connection(enum.Enum):
    """A human seat's stream: never opened (no grace runs), open, or dropped."""

    NEVER = None
    CONNECTED = True
    DISCONNECTED = False


BOT_PREFIX = "bot:"


def bot_player_id(level: str, unique: str, version: int) -> str:
    """A bot's player id: ``bot:<level>:<unique>:v<version>`` (player ids of people never
    start so).  The version of the bots that play (``services.bots.VERSION``) is in the id,
    and so in every game's log, because a game is rated with the fixed ratings of the bots
    that played it (services/ratings/model.py)."""
    return f"{BOT_PREFIX}{level}:{unique}:v{version}"


@dataclass
class Seat:
    player_id: str
    bot: bool = False
    ready: bool = False
    connection: Connection = Connection.NEVER
    autoplay: bool = False
    #: The seat's running total over the table's games.
    total: int = 0
    #: When a dropped human's disconnect grace ends (epoch ms), else None.
    grace_ms: int | None = None
    #: The seat's latest action in the current trick: "pass", or the cards it played
    #: (RULES.md §1, space-separated); None before it acts in the trick and between games.
    last_action: str | None = None

    @classmethod
    def human(cls, player_id: str) -> Seat:
        return cls(player_id)

    @classmethod
    def for_bot(cls, level: str, unique: str, version: int) -> Seat:
        return cls(
            bot_player_id(level, unique, version),
            bot=True,
            ready=True,
            connection=Connection.CONNECTED,
        )

    @property
    def bot_level(self) -> str:
        """A bot's level (``easy``, ``normal``, ``hard``), from its id."""
        return self.player_id.split(":")[1] if self.bot else ""

    @property
    def connected(self) -> bool:
        """Shown as connected: a bot, or a human whose stream is open."""
        return self.bot or self.connection is Connection.CONNECTED

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Seat:
        return cls(
            player_id=data["player_id"],
            bot=bool(data["bot"]),
            ready=bool(data["ready"]),
            connection=Connection(data.get("connected")),
            autoplay=bool(data.get("autoplay", False)),
            total=int(data.get("total", 0)),
            grace_ms=data.get("grace_ms"),
            last_action=data.get("last_action"),
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "player_id": self.player_id,
            "bot": self.bot,
            "ready": self.ready,
            "connected": self.connection.value,
            "autoplay": self.autoplay,
            "total": self.total,
            "grace_ms": self.grace_ms,
        }
        if self.last_action is not None:
            out["last_action"] = self.last_action
        return out


@dataclass(frozen=True)
class Timers:
    """The table's timers in milliseconds (RULES.md §6 defaults come from the room)."""

    bid_ms: int
    turn_ms: int
    start_ms: int
    grace_ms: int
    bot_think_ms: int

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Timers:
        t = config["timers"]
        return cls(*(int(t[f"{timer.value}_ms"]) for timer in _ORDER))

    def ms(self, timer: Timer) -> int:
        value: int = getattr(self, f"{timer.value}_ms")
        return value


_ORDER = (Timer.BID, Timer.TURN, Timer.START, Timer.GRACE, Timer.BOT_THINK)


@dataclass
class Table:
    """One table as the matchmaker works on it (a row of mm_tables)."""

    table_id: str
    variant: str
    config: dict[str, Any]
    state: State
    seq: int
    seats: list[Seat]
    game_no: int = 0
    game_id: str | None = None
    engine_seq: int = 0
    token: bytes | None = None
    turn: int | None = None
    turn_deadline_ms: int | None = None
    start_deadline_ms: int | None = None
    due_ms: int | None = None
    lease_ms: int = 0
    first_bidder: int | None = None
    last_scores: list[int] | None = None
    last_settlement: str | None = None
    created_ms: int = 0
    updated_ms: int = 0

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> Table:
        """From a row's columns (the seats as their stored JSON)."""
        data = {k: values[k] for k in FIELDS}
        data["state"] = State(data["state"])
        data["seats"] = [Seat.from_json(s) for s in data["seats"]]
        return cls(**data)

    def values(self) -> dict[str, Any]:
        """The row's columns (the seats as their stored JSON)."""
        out = {k: getattr(self, k) for k in FIELDS}
        out["state"] = self.state.value
        out["seats"] = [s.to_json() for s in self.seats]
        return out

    @functools.cached_property
    def timers(self) -> Timers:
        """Read once a copy: a table's config is fixed when it forms, and its timers are read
        at every move (set_turn, due_step)."""
        return Timers.from_config(self.config)

    @property
    def bot_level(self) -> str:
        """The level of the table's bots: the one chosen when it formed for ``"auto"``
        (``bots``), else the one asked for."""
        level: str = self.config.get("bots") or self.config["bot_level"]
        return level

    def seat_of(self, player_id: str) -> int | None:
        for i, s in enumerate(self.seats):
            if not s.bot and s.player_id == player_id:
                return i
        return None

    def humans(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if not s.bot]

    def compute_due(self) -> int | None:
        """The next moment something is due at this table (None: nothing)."""
        if self.state is State.CLOSED:
            return None
        candidates = [s.grace_ms for s in self.seats if s.grace_ms is not None]
        if self.state is State.WAITING:
            if all(s.ready for s in self.seats):
                candidates.append(0)
            elif self.start_deadline_ms is not None:
                candidates.append(self.start_deadline_ms)
        elif self.turn_deadline_ms is not None:
            candidates.append(self.turn_deadline_ms)
        return min(candidates) if candidates else None


FIELDS = tuple(f.name for f in dataclasses.fields(Table))


def due_by(table: Table, now: int) -> bool:
    """Whether something is due at the table by ``now``."""
    return table.due_ms is not None and table.due_ms <= now


# --------------------------------------------------------------------------- effects
@dataclass(frozen=True)
class Note:
    """A table event to publish: to every seat (``to`` None) or one."""

    type: str
    data: dict[str, Any]
    to: int | None = None
    #: For a "game" note: the engine's event (a cardroom.v1.Event) it carries, as is.
    body: Any = None


@dataclass(frozen=True)
class PlayerResult:
    """One human player's part of a game that ended at ``ended_ms``."""

    player_id: str
    family: str
    game_id: str
    score: int
    ended_ms: int


@dataclass
class Effects:
    """What a transition needs done besides the table's new state, in the same write."""

    notes: list[Note] = field(default_factory=list)
    #: Players whose hold on the table ends (they left it).
    release: list[str] = field(default_factory=list)
    #: Seats freed for the pool's next waiting tickets (a bot where none fits); filled in the
    #: write's own transaction, so a lost race claims no ticket.
    refill: list[int] = field(default_factory=list)
    #: After the refill: close the table if it was left without people.
    close_if_empty: bool = False
    #: A game ended: each human's score, added to their totals in the same transaction.
    results: list[PlayerResult] = field(default_factory=list)

    def note(self, event_type: str, /, *, to: int | None = None, **data: Any) -> None:
        self.notes.append(Note(event_type, data, to))

    def game_event(self, event: Any, to: int | None) -> None:
        """One of the engine's events, as this seat (``to``) or every seat may see it."""
        self.notes.append(Note("game", {}, to, event))


# --------------------------------------------------------------------------- transitions
def set_turn(table: Table, turn: int | None, bidding: bool, now: int, fx: Effects) -> None:
    """The seat to move (None: nobody, the game is over) and its deadline: a bot's think
    time, at once for a seat on auto-play, else the bid or turn timer, announced."""
    if turn is None:
        table.turn, table.turn_deadline_ms = None, None
        return
    seat = table.seats[turn]
    timers = table.timers
    table.turn = turn
    if seat.bot:
        table.turn_deadline_ms = now + timers.bot_think_ms
        return
    if seat.autoplay:
        table.turn_deadline_ms = now
        return
    kind = Timer.BID if bidding else Timer.TURN
    table.turn_deadline_ms = now + timers.ms(kind)
    fx.note("deadline", seat=turn, kind=kind.value, deadline_ms=table.turn_deadline_ms)


#: The game events after which no seat has acted in the trick: a deal or redeal, the end of
#: the bidding, a new trick, the end of the game.
TRICK_RESETS = frozenset({"deal", "redeal", "landlord", "new_trick", "game_over"})


def clear_trick(table: Table) -> None:
    for seat in table.seats:
        seat.last_action = None


def spaced(cards: str) -> str:
    """The engine's card notation run together (``3s3hTd``: every card two characters, ranks
    and jokers normalised) separated by single spaces (``3s 3h Td``)."""
    cards = cards.replace(" ", "")
    return " ".join(cards[i : i + 2] for i in range(0, len(cards), 2))


#: The game events that are a seat's part in a trick.
TRICK_MOVES = frozenset({"play", "pass"})


def trick_event(table: Table, event_type: str, seat: int | None, cards: str = "") -> None:
    """A game event's part in the trick at a glance (each seat's ``last_action``): a play
    shows its cards, a pass shows "pass" (only in a trick someone has played in: a pass in
    the bidding is no part of a trick), and a new trick (or deal, or the end) clears them.
    ``seat`` and ``cards``: the play's or pass's (the caller reads them from the event)."""
    if event_type in TRICK_RESETS:
        clear_trick(table)
        return
    if event_type not in TRICK_MOVES:
        return
    if not isinstance(seat, int) or not 0 <= seat < len(table.seats):
        return
    if event_type == "play":
        table.seats[seat].last_action = spaced(cards)
    elif any(s.last_action not in (None, "pass") for s in table.seats):
        table.seats[seat].last_action = "pass"


def start_game(table: Table, game_id: str, now: int, fx: Effects) -> None:
    """A game began (the engine dealt it): the runner gives its first turn to set_turn."""
    table.game_no += 1
    table.state = State.PLAYING
    clear_trick(table)
    table.game_id = game_id
    table.start_deadline_ms = None
    fx.note(
        "game_started",
        game_id=game_id,
        game_no=table.game_no,
        players=[s.player_id for s in table.seats],
    )


def next_game_id(table: Table) -> str:
    """The next game's name, ``<table>.<game no>`` (counted when it starts, start_game: a
    deal the engine never answered leaves the table as it was)."""
    return f"{table.table_id}.{table.game_no + 1}"


def finish_game(
    table: Table,
    scores: list[int],
    escaper: int | None,
    settlement: dict[str, Any],
    family: str,
    now: int,
    fx: Effects,
    make_bot: Callable[[], Seat],
    hands: list[list[str]] | None = None,
) -> None:
    """The game ended with these scores: each seat's total and each person's result (who
    sat there when it ended — an escaper still does), game_over (with every seat's cards
    left, ``hands``, now public) and the series' totals, then the seats wait for the next
    game (the escaper leaves) and the start timer runs."""
    game_id = str(table.game_id)
    for seat, score in zip(table.seats, scores, strict=False):
        seat.total += int(score)
        if not seat.bot:
            fx.results.append(PlayerResult(seat.player_id, family, game_id, int(score), now))
    table.last_scores = list(scores)
    shown = [{"seat": i, "cards": list(cards)} for i, cards in enumerate(hands or [])]
    fx.note(
        "game_over", game_id=game_id, game_no=table.game_no, scores=list(scores),
        settlement=settlement, hands=shown,
    )  # fmt: skip
    clear_trick(table)
    fx.note("series", games=table.game_no, totals=[s.total for s in table.seats])
    table.state = State.WAITING
    table.game_id, table.token, table.engine_seq = None, None, 0
    table.turn, table.turn_deadline_ms = None, None
    for seat in table.seats:
        seat.ready = seat.bot
        seat.autoplay = False
    if escaper is not None and not table.seats[escaper].bot:
        remove(table, escaper, "escaped", fx, make_bot())
    table.start_deadline_ms = now + table.timers.start_ms
    close_if_empty(table, fx)


def remove(table: Table, seat: int, why: str, fx: Effects, bot: Seat, refill: bool = False) -> None:
    """The person in ``seat`` leaves the table (their hold ends) and ``bot`` takes the seat;
    with ``refill`` the pool's next waiting ticket may take it instead (the store decides, in
    the write's transaction, and says who joined)."""
    old = table.seats[seat]
    fx.release.append(old.player_id)
    fx.note("player_left", seat=seat, player_id=old.player_id, why=why)
    table.seats[seat] = bot
    if refill:
        fx.refill.append(seat)
        return
    fx.note("bot_joined", seat=seat, player_id=bot.player_id, bot=True)


def close_if_empty(table: Table, fx: Effects) -> None:
    """A table left without people closes (a game in play first ends: bots finish it)."""
    if table.humans() or table.state in (State.CLOSED, State.PLAYING):
        return
    table.state = State.CLOSED
    table.start_deadline_ms = None
    fx.note("table_closed", games=table.game_no)


def ready(table: Table, seat: int, fx: Effects) -> bool:
    """The seat is ready for the next game; False when that changes nothing."""
    if table.state is not State.WAITING or table.seats[seat].ready:
        return False
    table.seats[seat].ready = True
    fx.note("ready", seat=seat)
    return True


def connected(table: Table, seat: int, fx: Effects) -> bool:
    """A stream of the seat opened: its grace (if any) ends.  False when it changes nothing."""
    s = table.seats[seat]
    was = s.connection
    s.connection, s.grace_ms = Connection.CONNECTED, None
    if was is Connection.CONNECTED:
        return False
    fx.note("reconnected" if was is Connection.DISCONNECTED else "connected", seat=seat)
    return True


def disconnected(table: Table, seat: int, now: int, fx: Effects) -> bool:
    """The seat's last stream closed: its disconnect grace starts.  False if it had."""
    s = table.seats[seat]
    if s.connection is Connection.DISCONNECTED:
        return False
    s.connection = Connection.DISCONNECTED
    s.grace_ms = now + table.timers.grace_ms
    fx.note("disconnected", seat=seat, grace_ms=s.grace_ms)
    return True


def graced(table: Table, now: int) -> list[int]:
    """The seats whose disconnect grace has run out."""
    return [i for i, s in enumerate(table.seats) if s.grace_ms is not None and s.grace_ms <= now]


def deals_now(table: Table) -> bool:
    """Whether the next game starts at once: everyone ready, and no grace running (whose end
    is a step of its own, before any deal)."""
    return (
        table.state is State.WAITING
        and all(s.ready for s in table.seats)
        and all(s.grace_ms is None for s in table.seats)
    )


def moves_at_once(table: Table, now: int, searching: frozenset[str] | None = None) -> bool:
    """Whether a bot or a seat on auto-play is to move now, and nothing else is due: a step
    that can follow the last one in the same write.  ``searching``: only a move the engine
    makes itself in a run (:func:`run_seats`: no bot of these levels, whose move is chosen
    in the matchmaker)."""
    if table.state is not State.PLAYING or table.turn is None:
        return False
    if table.turn_deadline_ms is None or table.turn_deadline_ms > now or graced(table, now):
        return False
    if searching is not None:
        return bool(run_seats(table, table.turn, 1, searching))
    seat = table.seats[table.turn]
    return seat.bot or seat.autoplay


def run_seats(table: Table, seat: int, moves: int, searching: frozenset[str]) -> list[int]:
    """The seats whose moves the engine may make in one run (ApplyRequest.run) that starts
    with ``seat``'s, a bot's or an auto-play seat's move that is due: that seat, and, if the
    run may make more than one move, every seat whose moves are due at once (as in
    :func:`moves_at_once`: bots with no think time, seats on auto-play).  No bot of a
    ``searching`` level (the engine does not play them); none if ``seat``'s is one."""

    def runnable(i: int, at_once: bool) -> bool:
        s = table.seats[i]
        if s.bot:
            return s.bot_level not in searching and not (at_once and table.timers.bot_think_ms)
        return s.autoplay

    if not runnable(seat, False):
        return []
    if moves <= 1:
        return [seat]
    return [seat] + [i for i in range(len(table.seats)) if i != seat and runnable(i, True)]


def back_in_time(table: Table, seats: list[int], fx: Effects) -> None:
    """Seats whose grace ran out but whose stream is open after all (on another instance,
    its "connected" write having lost a race with this seat's "disconnected")."""
    for i in seats:
        table.seats[i].connection, table.seats[i].grace_ms = Connection.CONNECTED, None
        fx.note("reconnected", seat=i)


class Step(enum.Enum):
    """What is due at a table that needs the engine (or nothing more)."""

    NOTHING = "nothing"
    DEAL = "deal"  # every seat is ready: a new game
    LEAVE = "leave"  # a dropped seat's grace ran out mid-game: it escapes
    BOT = "bot"  # a bot's think time is up
    AUTOPLAY = "autoplay"  # a seat on auto-play is to move
    TIMEOUT = "timeout"  # a person's bid or turn timer ran out


@dataclass(frozen=True)
class Due:
    step: Step
    seat: int | None = None


def due_step(
    table: Table, now: int, expired: list[int], make_bot: Callable[[], Seat], fx: Effects
) -> Due:
    """Whatever is due at ``now``: done here when it needs no engine (a grace ends between
    games, the start timer runs out), else the engine step to take.  ``expired``: the seats
    whose grace ran out and which really are gone (see :func:`back_in_time`); ``make_bot``:
    a new bot seat for a seat a person leaves."""
    if table.state is State.WAITING:
        if expired:
            for i in expired:
                remove(table, i, "disconnected", fx, make_bot())
            close_if_empty(table, fx)
        elif all(s.ready for s in table.seats):
            return Due(Step.DEAL)
        elif table.start_deadline_ms is not None and table.start_deadline_ms <= now:
            # The seats of those not ready go to the pool's next waiting tickets, who get a
            # start timeout of their own; else to bots.
            for i, s in enumerate(table.seats):
                if not s.ready:
                    remove(table, i, "not_ready", fx, make_bot(), refill=True)
            table.start_deadline_ms = now + table.timers.start_ms
            fx.close_if_empty = True
        return Due(Step.NOTHING)
    if table.state is not State.PLAYING:
        return Due(Step.NOTHING)
    if expired:
        table.seats[expired[0]].grace_ms = None
        return Due(Step.LEAVE, expired[0])
    if table.turn is None or table.turn_deadline_ms is None:
        table.turn_deadline_ms = None
        return Due(Step.NOTHING)
    seat = table.seats[table.turn]
    if seat.bot:
        return Due(Step.BOT, table.turn)
    if seat.autoplay:
        return Due(Step.AUTOPLAY, table.turn)
    return Due(Step.TIMEOUT, table.turn)
