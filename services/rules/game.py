"""The whole game as a pure state machine (RULES.md §4): deal → bidding (Dou Dizhu) → show hand
(when the variant allows it) → play → over.

A :class:`~.state.GameState` is immutable; :func:`apply` returns the next state and the events
the action produced, or raises :class:`IllegalAction` (with a reason code) and changes nothing.
A timeout plays the auto-play move, chosen from the seat's view like any bot's.

>>> from .variants import variant
>>> s = new_game(variant("doudizhu3"), seed="cardroom")
>>> s.phase.value, s.turn, [len(h) for h in s.hands]
('bidding', 0, [17, 17, 17])
>>> s, events = apply(s, Bid(0, 3))
>>> s.phase.value, s.landlord, len(s.hands[0]), [e.type.value for e in events]
('play', 0, 20, ['bid', 'landlord'])
>>> apply(s, Pass(0))
Traceback (most recent call last):
...
services.rules.actions.IllegalAction: seat 0 leads: a lead cannot pass
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from .actions import (
    Action,
    Bid,
    Event,
    EventType,
    IllegalAction,
    Leave,
    Pass,
    PlayCards,
    SetAutoplay,
    ShowHand,
    Timeout,
)
from .cards import (
    BLACK_JOKER,
    NUM_RANKS,
    RANK_OF,
    RED_JOKER,
    SPADE_THREE,
    SUITED_RANKS,
    format_cards,
)
from .deal import (
    DealSpec,
    ExplicitDeal,
    SeedDeal,
    deal_commitment,
    deal_from_seed,
    redeal_seed,
)
from .deal import first_bidder as draw_first_bidder
from .errors import Reason, RulesError
from .kinds import BOMB_KINDS, Kind
from .patterns import Pattern, Play, check_in_deck, classify, native_core
from .policies import autoplay_move, choose_play
from .room import Room
from .scoring import BombRecord
from .state import GameState, Phase, Status
from .state import build as _build
from .state import evolve as _evolve
from .state import settle as _settle
from .variants import RULES_VERSION, RULES_VERSIONS, Variant, VariantError
from .variants import variant as find_variant
from .views import seat_view

_tuple_new: Final = tuple.__new__


def _illegal(reason: str, message: str) -> IllegalAction:
    return IllegalAction(message, reason)


# ------------------------------------------------------------------ starting a game
def _forced(v: Variant, hands: tuple[tuple[int, ...], ...]) -> tuple[bool, ...]:
    if not (v.bidding and v.forced_bid):
        return (False,) * v.players
    out = []
    for hand in hands:
        counts = [0] * NUM_RANKS
        for c in hand:
            counts[RANK_OF[c]] += 1
        all_jokers = v.jokers and counts[BLACK_JOKER] == v.decks and counts[RED_JOKER] == v.decks
        bombs = sum(1 for r in range(SUITED_RANKS) if counts[r] >= v.bomb_min)
        out.append(all_jokers or bombs >= v.forced_bid_bombs)
    return tuple(out)


_NO_ROOM: Final = Room()  # a game outside any room (Rooms are frozen values: one will do)


def new_game(
    variant: Variant | str,
    room: Room | None = None,
    *,
    seed: str | None = None,
    deal: ExplicitDeal | None = None,
    first_bidder: int | None = None,
    rules_version: int = RULES_VERSION,
    game_id: str | None = None,
) -> GameState:
    """A new game, dealt and ready for its first action.

    ``variant`` is a base variant (or its name); the room's overrides are applied to it.
    Give exactly one of ``seed`` and ``deal``.  ``first_bidder`` (Dou Dizhu) defaults to the
    one drawn from the seed; an explicit Dou Dizhu deal needs it.  ``rules_version``: the
    rules the game is played by (an old record's).  Raises :class:`IllegalAction`
    (``BAD_DEAL``, ``NO_SUCH_SEAT``) or :class:`VariantError` (a bad room, or version).
    ``game_id`` (a non-empty string) binds the game's events to it: a seeded deal's public
    event then carries :func:`~.deal.deal_commitment` and ``game_over`` reveals the seed.
    """
    if game_id is not None and (not isinstance(game_id, str) or not game_id):
        raise _illegal(Reason.BAD_DEAL, "a game id is a non-empty string")
    name = find_variant(variant).name if isinstance(variant, str) else variant.name
    room = room or _NO_ROOM
    if rules_version not in RULES_VERSIONS:
        raise VariantError(f"rules version {rules_version!r} is not one of {RULES_VERSIONS}")
    v = room.variant_for(name, rules_version)
    if (seed is None) == (deal is None):
        raise _illegal(Reason.BAD_DEAL, "give exactly one of a seed and an explicit deal")
    spec: DealSpec
    opener: int | None = None
    if seed is not None:
        if not isinstance(seed, str) or not seed:
            raise _illegal(Reason.BAD_DEAL, "a seed is a non-empty string")
        spec = SeedDeal(seed)
        dealt = deal_from_seed(v, seed)
        hands, bottom, opener = dealt.hands, dealt.bottom, dealt.spade_three_seat
        if v.bidding and first_bidder is None:
            first_bidder = draw_first_bidder(seed, v.players)
    else:
        assert deal is not None
        hands, bottom = _check_explicit(v, deal)
        spec = ExplicitDeal(hands, bottom, deal.opener)
        opener = deal.opener
        if opener is None:
            opener = next((s for s, h in enumerate(hands) if SPADE_THREE in h), 0)
        if v.bidding and first_bidder is None:
            raise _illegal(Reason.BAD_DEAL, "an explicit Dou Dizhu deal needs its first bidder")
    if v.bidding:
        assert first_bidder is not None
        _check_seat(v, first_bidder, "first bidder")
        opener = None
    else:
        first_bidder = None
        _check_seat(v, opener if opener is not None else 0, "opener")
    n = v.players
    return _build(
        variant=v,
        room=room,
        deal=spec,
        first_bidder=first_bidder,
        opener=opener,
        deal_no=0,
        dealt=hands,
        bottom=bottom,
        hands=hands,
        forced=_forced(v, hands),
        phase=Phase.BIDDING if v.bidding else Phase.PLAY,
        status=Status.RUNNING,
        turn=first_bidder if v.bidding else opener,
        bids=(),
        bid=0,
        bidder=None,
        landlord=None,
        shown=False,
        last=None,
        last_seat=None,
        passes=0,
        cards_played=(0,) * n,
        plays_made=(0,) * n,
        bombs=(),
        autoplay=(False,) * n,
        log=(),
        deal_start=0,
        winner=None,
        escaper=None,
        settlement=None,
        rules_version=rules_version,
        game_id=game_id,
    )


def _check_seat(v: Variant, seat: Any, what: str) -> None:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < v.players:
        raise _illegal(Reason.NO_SUCH_SEAT, f"{what} {seat!r} is not a seat of {v.name}")


def _check_explicit(
    v: Variant, deal: ExplicitDeal
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    if len(deal.hands) != v.players:
        raise _illegal(Reason.BAD_DEAL, f"{v.name} deals {v.players} hands, not {len(deal.hands)}")
    if not v.bidding and deal.bottom:
        raise _illegal(Reason.BAD_DEAL, f"{v.name} has no bottom cards")
    for s, hand in enumerate(deal.hands):
        if not hand:
            raise _illegal(Reason.BAD_DEAL, f"hand {s} is empty")
        if len(hand) > v.hand_size:
            raise _illegal(Reason.BAD_DEAL, f"hand {s} holds {len(hand)} cards, over {v.hand_size}")
    if len(deal.bottom) > v.bottom_size:
        raise _illegal(Reason.BAD_DEAL, f"{len(deal.bottom)} bottom cards, over {v.bottom_size}")
    everything = [c for h in deal.hands for c in h] + list(deal.bottom)
    try:
        check_in_deck(v, everything)
    except RulesError as exc:
        raise _illegal(Reason.BAD_DEAL, f"the deal holds more cards than the deck: {exc}") from None
    hands = tuple(tuple(sorted(h)) for h in deal.hands)
    return hands, tuple(sorted(deal.bottom))


def deal_events(state: GameState) -> list[Event]:
    """The events of the current deal: one private event per seat with its hand, and a
    public one with the counts (and the first bidder or the opener)."""
    events = [
        Event(EventType.DEAL, None, {"hand": format_cards(h)}, to=s)
        for s, h in enumerate(state.hands)
    ]
    public: dict[str, Any] = {
        "deal_no": state.deal_no,
        "counts": [len(h) for h in state.hands],
        "bottom_count": len(state.bottom),
    }
    if state.variant.bidding:
        public["first_bidder"] = state.first_bidder
    else:
        public["opener"] = state.opener
    if state.game_id is not None and isinstance(state.deal, SeedDeal):
        public["commitment"] = deal_commitment(state.game_id, state.deal.seed)
    events.append(Event(EventType.DEAL, None, public))
    return events


# ------------------------------------------------------------------ applying actions
def apply(state: GameState, action: Action) -> tuple[GameState, list[Event]]:
    """The state after ``action`` and the events it produced.  Raises
    :class:`IllegalAction` with a reason code; ``state`` itself never changes."""
    if state.phase is Phase.OVER:
        raise _illegal(Reason.GAME_OVER, f"the game is over ({state.status.value})")
    seat = action.seat
    _check_seat(state.variant, seat, "seat")
    if isinstance(action, Leave):
        return _leave(state, action)
    if isinstance(action, SetAutoplay):
        if not isinstance(action.on, bool):
            raise _illegal(Reason.BAD_ACTION, "autoplay is on (true) or off (false)")
        flags = list(state.autoplay)
        flags[seat] = action.on
        new = _evolve(state, autoplay=tuple(flags), log=(*state.log, action))
        return new, [Event(EventType.AUTOPLAY, seat, {"on": action.on})]
    if seat != state.turn:
        raise _illegal(Reason.NOT_YOUR_TURN, f"seat {seat} is not to move (seat {state.turn} is)")
    if isinstance(action, Timeout):
        if state.phase is Phase.BIDDING:
            if state.must_bid(seat):
                return apply(state, Bid(seat, 1, "timeout"))
            return apply(state, Pass(seat, "timeout"))
        return apply(state, autoplay_move(state, "timeout"))
    phase = state.phase
    if isinstance(action, Bid):
        if phase is not Phase.BIDDING:
            raise _illegal(Reason.WRONG_PHASE, f"no bidding in the {phase.value} phase")
        return _bid(state, action, action.amount)
    if isinstance(action, Pass):
        if phase is Phase.BIDDING:
            if state.must_bid(seat):
                raise _illegal(
                    Reason.MUST_BID, f"seat {seat} holds a forced bid: it must bid at least 1"
                )
            return _bid(state, action, 0)
        if state.last is None:
            raise _illegal(Reason.MUST_LEAD, f"seat {seat} leads: a lead cannot pass")
        return _pass(state, action)
    if isinstance(action, PlayCards):
        if phase is Phase.BIDDING:
            raise _illegal(Reason.WRONG_PHASE, "no play before the bidding ends")
        return _play(state, action)
    if isinstance(action, ShowHand):
        if phase is not Phase.SHOW_HAND:
            raise _illegal(
                Reason.WRONG_PHASE, "the landlord may show his hand only before his lead"
            )
        new = _evolve(state, shown=True, phase=Phase.PLAY, log=(*state.log, action))
        return new, [Event(EventType.SHOW_HAND, seat, {"hand": format_cards(state.hands[seat])})]
    raise _illegal(Reason.BAD_ACTION, f"not an action: {action!r}")  # pragma: no cover


def _bid(state: GameState, action: Bid | Pass, amount: int) -> tuple[GameState, list[Event]]:
    seat = action.seat
    v = state.variant
    if isinstance(action, Bid):
        if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= 3:
            raise _illegal(Reason.BAD_BID, f"a bid is 1, 2 or 3, not {amount!r}")
        if amount <= state.bid:
            raise _illegal(Reason.BID_TOO_LOW, f"a bid must be above the highest bid {state.bid}")
    bids = (*state.bids, (seat, amount))
    log = (*state.log, action)
    events = [
        Event(EventType.BID, seat, {"amount": amount})
        if amount
        else Event(EventType.PASS, seat, {})
    ]
    bid, bidder = (amount, seat) if amount else (state.bid, state.bidder)
    ends = (amount == 3 and v.bid_three_ends_bidding) or len(bids) == v.players
    if not ends:
        new = _evolve(
            state, bids=bids, bid=bid, bidder=bidder, log=log, turn=(seat + 1) % v.players
        )
        return new, events
    if bidder is None:
        return _all_passed(state, log, events)
    hands = list(state.hands)
    hands[bidder] = tuple(sorted(hands[bidder] + state.bottom))
    phase = Phase.SHOW_HAND if v.show_hand_factor else Phase.PLAY
    new = _evolve(
        state,
        bids=bids,
        bid=bid,
        bidder=bidder,
        log=log,
        landlord=bidder,
        hands=tuple(hands),
        phase=phase,
        turn=bidder,
    )
    bottom = format_cards(state.bottom)
    if v.bottom_public:
        events.append(Event(EventType.LANDLORD, bidder, {"bid": bid, "bottom": bottom}))
    else:
        events.append(Event(EventType.LANDLORD, bidder, {"bid": bid}))
        events.append(Event(EventType.BOTTOM, bidder, {"bottom": bottom}, to=bidder))
    return new, events


def _all_passed(
    state: GameState, log: tuple[Action, ...], events: list[Event]
) -> tuple[GameState, list[Event]]:
    v = state.variant
    if isinstance(state.deal, ExplicitDeal):
        return _end(state, events, log=log, status=Status.REDEAL)
    deal_no = state.deal_no + 1
    if deal_no >= v.max_deals:
        return _end(state, events, log=log, status=Status.DISBANDED, deal_no=deal_no)
    dealt = deal_from_seed(v, redeal_seed(state.deal.seed, deal_no))
    new = _evolve(
        state,
        deal_no=deal_no,
        dealt=dealt.hands,
        bottom=dealt.bottom,
        hands=dealt.hands,
        forced=_forced(v, dealt.hands),
        bids=(),
        log=log,
        deal_start=len(log),
        turn=state.first_bidder,
    )
    events.append(Event(EventType.REDEAL, None, {"deal_no": deal_no}))
    events.extend(deal_events(new))
    return new, events


def _remove(hand: tuple[int, ...], cards: Sequence[int]) -> tuple[int, ...] | None:
    rest = list(hand)
    try:
        for c in cards:
            rest.remove(c)
    except ValueError:
        return None
    return tuple(rest)


def _read_play(
    v: Variant,
    hand: tuple[int, ...],
    action: PlayCards,
    must: int | None,
    last: Play | None,
) -> tuple[tuple[int, ...], Pattern]:
    """The hand left after ``action`` and the pattern it is played as; raises
    :class:`IllegalAction` when the seat may not make it (``must``: the card the lead must
    hold; ``last``: the play to beat)."""
    cards = action.cards
    if not cards:
        raise _illegal(Reason.NOT_A_PATTERN, "a play needs at least one card")
    rest = _remove(hand, cards)
    if rest is None:
        raise _illegal(
            Reason.CARDS_NOT_IN_HAND, f"seat {action.seat} does not hold {format_cards(cards)}"
        )
    if must is not None and must not in cards:
        raise _illegal(Reason.MUST_HOLD_SPADE_THREE, "the first lead must hold the ♠3")
    try:
        pattern = classify(v, cards, action.reading, last.pattern if last else None)
    except RulesError as exc:
        raise _illegal(exc.reason, str(exc)) from None
    return rest, pattern


def _lead_cannot_pass(seat: int) -> None:
    raise _illegal(Reason.MUST_LEAD, f"seat {seat} leads: a lead cannot pass")


def _bomb_record(seat: int, pattern: Pattern, led: bool) -> BombRecord:
    kind = "rocket" if pattern.kind is Kind.ROCKET else "bomb"
    return BombRecord(seat, kind, pattern.size, pattern.rank, led)


def _play(state: GameState, action: PlayCards) -> tuple[GameState, list[Event]]:
    seat = action.seat
    v = state.variant
    cards = action.cards
    last = state.last
    rest, pattern = _read_play(v, state.hands[seat], action, state.must_hold(), last)
    n = v.players
    hands = list(state.hands)
    hands[seat] = rest
    played = list(state.cards_played)
    played[seat] += len(cards)
    made = list(state.plays_made)
    made[seat] += 1
    bombs = state.bombs
    if pattern.is_bomb:
        bombs = (*bombs, _bomb_record(seat, pattern, last is None))
    sorted_cards = tuple(sorted(cards))
    events = [
        Event(
            EventType.PLAY,
            seat,
            {"cards": format_cards(sorted_cards), "pattern": pattern.reading, "left": len(rest)},
        )
    ]
    new = _evolve(
        state,
        hands=tuple(hands),
        cards_played=tuple(played),
        plays_made=tuple(made),
        bombs=bombs,
        last=Play(sorted_cards, pattern),
        last_seat=seat,
        passes=0,
        phase=Phase.PLAY,
        turn=(seat + 1) % n,
        log=(*state.log, action),
    )
    if not rest:
        return _end(new, events, status=Status.FINISHED, winner=seat)
    return new, events


def _pass(state: GameState, action: Pass) -> tuple[GameState, list[Event]]:
    seat = action.seat
    n = state.variant.players
    passes = state.passes + 1
    events = [Event(EventType.PASS, seat, {})]
    log = (*state.log, action)
    if passes == n - 1:
        leader = state.last_seat
        events.append(Event(EventType.NEW_TRICK, leader, {}))
        new = _evolve(state, passes=0, last=None, last_seat=None, turn=leader, log=log)
    else:
        new = _evolve(state, passes=passes, turn=(seat + 1) % n, log=log)
    return new, events


def _leave(state: GameState, action: Leave) -> tuple[GameState, list[Event]]:
    events = [Event(EventType.LEAVE, action.seat, {})]
    return _end(
        state,
        events,
        log=(*state.log, action),
        status=Status.ESCAPED,
        escaper=action.seat,
    )


def _over(state: GameState, **changes: Any) -> GameState:
    """The state, over, with ``changes`` and its settlement."""
    over = _evolve(state, phase=Phase.OVER, turn=None, **changes)
    object.__setattr__(over, "settlement", _settle(over))
    return over


def _end(state: GameState, events: list[Event], **changes: Any) -> tuple[GameState, list[Event]]:
    over = _over(state, **changes)
    settlement = over.settlement
    assert settlement is not None
    data: dict[str, Any] = {"settlement": settlement.to_dict()}
    if over.game_id is not None and isinstance(over.deal, SeedDeal):
        data["seed"] = over.deal.seed  # opens the commitment of the public deal event
    events.append(Event(EventType.GAME_OVER, None, data))
    return over, events


# ------------------------------------------------------------------ self-play
def autoplay_out(state: GameState, by: str | None = "autoplay") -> GameState:
    """The end of the game when every seat makes its auto-bid and auto-play move: the state
    that ``state, _ = apply(state, autoplay_move(state, by))`` repeated until nobody is to move
    reaches — the same moves, log and settlement (tests/rules/test_game.py compares the two).

    Bidding (a few actions, and the redeals) goes through :func:`apply`; the play phase, where
    self-play spends its time, runs :func:`apply`'s play and pass transitions on local
    variables, building neither the events nor a state per action, which nobody reads here.
    Each play still passes :func:`apply`'s checks (:func:`_read_play`).
    """
    while state.turn is not None and state.phase is Phase.BIDDING:
        state, _ = apply(state, autoplay_move(state, by))
    seat = state.turn
    if seat is None:
        return state
    v = state.variant
    n = v.players
    hands = list(state.hands)
    played = list(state.cards_played)
    made = list(state.plays_made)
    bombs = state.bombs
    log = list(state.log)
    last, last_seat, passes, landlord = state.last, state.last_seat, state.passes, state.landlord
    # state.must_hold(), split: the room's rule, and whether any play has been made yet.
    spade_rule = v.first_lead_holds_spade_three
    opened = any(made)
    if native_core is not None:  # this loop, compiled (_native.autoplay_plays)
        seat, last, last_seat, bombs = native_core.autoplay_plays(
            v, hands, played, made, log, seat, last, last_seat, passes, landlord, spade_rule,
            opened, bombs, by, _read_play, _bomb_record, _lead_cannot_pass,
        )  # fmt: skip
    while native_core is None:
        hand = hands[seat]
        if last is None:
            must = SPADE_THREE if spade_rule and not opened and SPADE_THREE in hand else None
            play = choose_play(v, hand, None, must_hold=must)
        else:
            must = None
            # _auto_move's rule: a farmer never bombs over his partner (last_seat is set).
            no_bombs = landlord is not None and seat != landlord and last_seat != landlord
            play = choose_play(v, hand, last.pattern, no_bombs=no_bombs)
        if play is None:  # a pass
            if last is None:  # apply's check (choose_play always leads a play)
                _lead_cannot_pass(seat)
            log.append(Pass(seat, by))
            passes += 1
            if passes == n - 1:  # a new trick, led by the last play's seat
                assert last_seat is not None  # set with last, which a pass follows
                seat, last, last_seat, passes = last_seat, None, None, 0
            else:
                seat = (seat + 1) % n
            continue
        action = PlayCards(seat, play.cards, None, by)
        rest, pattern = _read_play(v, hand, action, must, last)
        log.append(action)
        hands[seat] = rest
        played[seat] += len(action.cards)
        made[seat] += 1
        opened = True
        if pattern.kind in BOMB_KINDS:  # pattern.is_bomb, without a property call per play
            bombs = (*bombs, _bomb_record(seat, pattern, last is None))
        # Play(...), without the named tuple's __new__ (a Python call per play)
        last, last_seat, passes = _tuple_new(Play, (tuple(sorted(action.cards)), pattern)), seat, 0
        if not rest:
            break
        seat = (seat + 1) % n
    return _over(
        state,
        hands=tuple(hands),
        cards_played=tuple(played),
        plays_made=tuple(made),
        bombs=bombs,
        last=last,
        last_seat=last_seat,
        passes=0,
        log=tuple(log),
        status=Status.FINISHED,
        winner=seat,
    )


# ------------------------------------------------------------------ legal actions
def legal_actions(state: GameState) -> list[Action]:
    """Every bid, pass, show hand and play the seat to move may make now: what its view
    lists (:meth:`~.views.SeatView.legal_actions`)."""
    if state.turn is None:
        return []
    return seat_view(state, state.turn).legal_actions()


__all__ = [
    "DealSpec",
    "Event",
    "ExplicitDeal",
    "GameState",
    "Phase",
    "SeedDeal",
    "Status",
    "apply",
    "autoplay_out",
    "deal_events",
    "legal_actions",
    "new_game",
]
