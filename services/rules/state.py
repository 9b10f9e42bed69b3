"""The state of a game: one immutable value holding what the next action needs (hands, the
last play, bids, bombs, counts) and the resolved action log, so applying never re-runs the
game.  Transitions live in :mod:`.game`; what a seat may see of a state, in :mod:`.views`.

A state is a JSON-friendly value (:meth:`GameState.to_dict` / :meth:`GameState.from_dict`),
compact because the engine seals it into the token every call carries.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any

from .actions import Action
from .cards import SPADE_THREE
from .codec import (
    action_to_dict,
    card_tuple,
    deal_from_dict,
    deal_to_dict,
    pack_action,
    pattern_from_list,
    pattern_to_list,
    unpack_action,
)
from .deal import DealSpec, SeedDeal, redeal_seed
from .patterns import Play
from .room import Room
from .scoring import (
    BombRecord,
    Settlement,
    no_score,
    settle_doudizhu,
    settle_escape,
    settle_zhengshangyou,
)
from .variants import RULES_VERSION, RULES_VERSIONS, Variant


class Phase(enum.StrEnum):
    BIDDING = "bidding"
    SHOW_HAND = "show_hand"
    PLAY = "play"
    OVER = "over"


class Status(enum.StrEnum):
    RUNNING = "running"
    FINISHED = "finished"
    ESCAPED = "escaped"
    DISBANDED = "disbanded"
    REDEAL = "redeal"


@dataclasses.dataclass(frozen=True, eq=True)
class GameState:
    variant: Variant
    room: Room
    deal: DealSpec
    first_bidder: int | None
    opener: int | None  # the seat that leads first once play starts (ZSY), else None
    deal_no: int  # 0: the first deal; n: the n-th redeal
    dealt: tuple[tuple[int, ...], ...]  # the hands as dealt (this deal), sorted
    bottom: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]  # sorted
    forced: tuple[bool, ...]  # seats that must bid when nobody has (ddz4)
    phase: Phase
    status: Status
    turn: int | None
    bids: tuple[tuple[int, int], ...]  # (seat, amount; 0 = pass), this deal
    bid: int  # the highest bid so far (0: none)
    bidder: int | None
    landlord: int | None
    shown: bool
    last: Play | None  # the play to beat (None: the seat to move leads)
    last_seat: int | None
    passes: int
    cards_played: tuple[int, ...]
    plays_made: tuple[int, ...]
    bombs: tuple[BombRecord, ...]
    autoplay: tuple[bool, ...]
    log: tuple[Action, ...]  # every applied action, resolved (timeouts as what they did)
    deal_start: int  # index in ``log`` where this deal's actions begin
    winner: int | None
    escaper: int | None
    settlement: Settlement | None
    rules_version: int = RULES_VERSION  # the rules the game is played by (RULES_VERSIONS)
    #: The game's id when the caller gave one: a seeded deal then commits to (game id, seed)
    #: in its public deal event, and ``game_over`` reveals the seed.
    game_id: str | None = None

    # -------------------------------------------------------------- queries
    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def players(self) -> int:
        return self.variant.players

    def must_bid(self, seat: int) -> bool:
        """Whether ``seat``'s pass would be refused now (a forced bidder facing no bid)."""
        return self.forced[seat] and self.bid == 0

    def must_hold(self) -> int | None:
        """A card the seat to move must lead (the ♠3 of the opener's first lead, when the
        room requires it), or None."""
        if (
            self.variant.first_lead_holds_spade_three
            and self.last is None
            and not any(self.plays_made)
            and self.turn is not None
            and SPADE_THREE in self.hands[self.turn]
        ):
            return SPADE_THREE
        return None

    def seed(self) -> str | None:
        """The seed of the current deal, or None for an explicit deal."""
        if isinstance(self.deal, SeedDeal):
            return redeal_seed(self.deal.seed, self.deal_no)
        return None

    # -------------------------------------------------------------- JSON form
    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly form that :meth:`from_dict` turns back into an equal state.

        Compact rather than readable — cards as card ids, actions as short lists — because
        the engine service seals it into the token every call carries (the game record is
        the readable form)."""
        last = self.last
        return {
            "v": _STATE_FORM,
            "variant": self.variant.name,
            "rules_version": self.rules_version,
            "room": self.room.to_dict(),
            "deal": deal_to_dict(self.deal),
            "first_bidder": self.first_bidder,
            "opener": self.opener,
            "deal_no": self.deal_no,
            "dealt": [list(h) for h in self.dealt],
            "bottom": list(self.bottom),
            "hands": [list(h) for h in self.hands],
            "forced": list(self.forced),
            "phase": self.phase.value,
            "status": self.status.value,
            "turn": self.turn,
            "bids": [list(b) for b in self.bids],
            "bid": self.bid,
            "bidder": self.bidder,
            "landlord": self.landlord,
            "shown": self.shown,
            "last": None
            if last is None
            else {"cards": list(last.cards), "pattern": pattern_to_list(last.pattern)},
            "last_seat": self.last_seat,
            "passes": self.passes,
            "cards_played": list(self.cards_played),
            "plays_made": list(self.plays_made),
            "bombs": [[b.seat, b.kind, b.size, b.rank, b.led] for b in self.bombs],
            "autoplay": list(self.autoplay),
            "log": [pack_action(a) for a in self.log],
            "deal_start": self.deal_start,
            "winner": self.winner,
            "escaper": self.escaper,
            "game_id": self.game_id,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameState:
        """The state of :meth:`to_dict`'s output (trusted: the engine seals it)."""
        if data.get("v") != _STATE_FORM:
            raise ValueError(f"not a state of form {_STATE_FORM}")
        version = data["rules_version"]
        if version not in RULES_VERSIONS:
            raise ValueError(f"rules version {version!r} is not one this engine plays")
        room = Room.from_dict(data["room"])
        v = room.variant_for(data["variant"], version)
        last_d = data["last"]
        last = None
        if last_d is not None:
            last = Play(card_tuple(last_d["cards"]), pattern_from_list(last_d["pattern"]))
        state = cls(
            variant=v,
            room=room,
            deal=deal_from_dict(data["deal"], v),
            first_bidder=data["first_bidder"],
            opener=data["opener"],
            deal_no=data["deal_no"],
            dealt=tuple(card_tuple(h) for h in data["dealt"]),
            bottom=card_tuple(data["bottom"]),
            hands=tuple(card_tuple(h) for h in data["hands"]),
            forced=tuple(data["forced"]),
            phase=Phase(data["phase"]),
            status=Status(data["status"]),
            turn=data["turn"],
            bids=tuple((s, a) for s, a in data["bids"]),
            bid=data["bid"],
            bidder=data["bidder"],
            landlord=data["landlord"],
            shown=data["shown"],
            last=last,
            last_seat=data["last_seat"],
            passes=data["passes"],
            cards_played=tuple(data["cards_played"]),
            plays_made=tuple(data["plays_made"]),
            bombs=tuple(BombRecord(s, k, n, r, led) for s, k, n, r, led in data["bombs"]),
            autoplay=tuple(data["autoplay"]),
            log=tuple(map(unpack_action, data["log"])),
            deal_start=data["deal_start"],
            winner=data["winner"],
            escaper=data["escaper"],
            settlement=None,
            rules_version=version,
            game_id=data.get("game_id"),
        )
        if state.phase is Phase.OVER:
            object.__setattr__(state, "settlement", settle(state))
        return state


_STATE_FORM = 2  # bumped whenever to_dict's shape changes


_FIELD_NAMES = frozenset(f.name for f in dataclasses.fields(GameState))


def build(**fields: Any) -> GameState:
    """``GameState(**fields)`` with every field given, without the frozen dataclass's
    ``__init__`` (one ``object.__setattr__`` per field: a fifth of a new game's time)."""
    if fields.keys() != _FIELD_NAMES:
        raise TypeError(f"a state's fields, not {sorted(fields.keys() ^ _FIELD_NAMES)}")
    new = object.__new__(GameState)
    new.__dict__.update(fields)
    return new


def evolve(state: GameState, **changes: Any) -> GameState:
    """A copy with some fields changed (the fast path of ``dataclasses.replace``)."""
    new = object.__new__(GameState)
    d = new.__dict__
    d.update(state.__dict__)
    d.update(changes)
    return new


def settle(state: GameState) -> Settlement:
    """The settlement of a state that is over (RULES.md §5)."""
    v, room = state.variant, state.room
    status = state.status
    if status is Status.ESCAPED:
        assert state.escaper is not None
        return settle_escape(
            v,
            room,
            escaper=state.escaper,
            bid=state.bid,
            bombs=state.bombs,
            cards_left=len(state.hands[state.escaper]),
            landlord=state.landlord,
            rules_version=state.rules_version,
        )
    if status is not Status.FINISHED:
        return no_score(v, room, status.value)
    assert state.winner is not None
    if v.family == "doudizhu":
        assert state.landlord is not None
        return settle_doudizhu(
            v,
            room,
            landlord=state.landlord,
            bid=state.bid,
            winner=state.winner,
            bombs=state.bombs,
            shown=state.shown,
            cards_played=state.cards_played,
            plays_made=state.plays_made,
        )
    return settle_zhengshangyou(
        v,
        room,
        winner=state.winner,
        dealt=tuple(len(h) for h in state.dealt),
        left=tuple(len(h) for h in state.hands),
        rules_version=state.rules_version,
    )


def write_record(state: GameState, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The game record (DESIGN.md) of a state; timeouts appear as the moves they made, with
    ``"by"``.  ``extra`` adds keys such as ``game_id`` and ``players``."""
    out: dict[str, Any] = {
        "variant": state.variant.name,
        "rules_version": state.rules_version,
        "room": state.room.to_dict(),
        "deal": deal_to_dict(state.deal),
    }
    if state.variant.bidding:
        out["first_bidder"] = state.first_bidder
    out["actions"] = [action_to_dict(a) for a in state.log]
    if extra:
        out.update(extra)
    return out
