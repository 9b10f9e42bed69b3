"""Auto-play (托管), auto-bid and hint: the exact policies of RULES.md §6 (part of the rules
version — the log stores the moves they made, so replays never depend on them).

**Following** a play: among the legal non-bomb plays, the one with the lowest key rank
(``Pattern.order``, which puts zhengshangyou2's low-order chains below the others), then the
fewest cards, then a plain straight before a straight flush, then the best kickers: each kicker
card costs ``(tier, rank)`` where the tier of taking ``t`` cards of a rank the hand holds ``c``
of is ``c - t`` (0 from singles for single kickers and from pairs for pair kickers, 1 when a
pair or triple is broken, …) and 9 for a joker or a rank that is a bomb; the kicker choice
whose sorted list of costs is lexicographically smallest wins (so singles go before pairs are
broken, and bombs and jokers only when nothing else fits).  With no such play: the smallest
bomb that beats the play (by ``Pattern.order``: fewest cards, then lowest rank; the rocket
last) — except that a Dou Dizhu farmer never bombs over his partner's play; else pass.

**Leading**: all the cards of the lowest rank that is not a bomb (jokers forming the rocket
count as the rocket), played as a single, pair or triple; when only bombs and rockets are
left, the smallest of them.  A lead that must hold a card (the ♠3, when the room requires the
opener's first lead to hold it) is the smallest legal lead holding it.  Within a rank, suits
go s, h, c, d.

**Auto-bid**: ``min(3, 1 + 2s held + jokers held + bombs held)`` when that is above the
highest bid so far, else pass (a forced bidder facing no bid bids it, being at least 1).

**Hint**: the auto-play (or auto-bid) move of the seat to move; the same every time it is
asked in one turn.

>>> from .variants import variant
>>> from .cards import parse_cards, format_cards
>>> v = variant("doudizhu3")
>>> hand = parse_cards("3s 3h 5d 6c 6d 7s 9h 9d 9s 2s BJ RJ")
>>> format_cards(choose_play(v, hand, None).cards)
'3s3h'
>>> play = choose_play(v, hand, classify(v, parse_cards("8s8h8c4d")))
>>> format_cards(play.cards), str(play.pattern)
('5d9s9h9d', 'triple_single:9')
"""

from __future__ import annotations

from collections.abc import Sequence

from .actions import Action, Bid, Pass, PlayCards
from .cards import ACE, BLACK_JOKER, CARDS, NUM_RANKS, RANK_OF, RED_JOKER, SUITED_RANKS, TWO
from .errors import Reason, RulesError
from .kinds import SHAPES, Kind
from .moves import legal_plays
from .patterns import (
    Pattern,
    Play,
    beats,
    bomb_pattern,
    classify,
    native_core,
    rocket_pattern,
)
from .state import GameState, Phase
from .variants import Variant
from .views import SeatView

_UNIT_KINDS = {Kind.SINGLE: 1, Kind.PAIR: 2, Kind.TRIPLE: 3}
_JOKER_OR_BOMB_TIER = 9


def _by_rank(hand: Sequence[int]) -> list[list[int]]:
    # One call per auto-play move: the list display and the local lookup are its fast form.
    by_rank: list[list[int]] = [[], [], [], [], [], [], [], [], [], [], [], [], [], [], []]
    rank_of = RANK_OF
    for c in sorted(hand):
        by_rank[rank_of[c]].append(c)
    return by_rank


assert NUM_RANKS == 15  # _by_rank's list display holds one list per rank


def _is_bomb_rank(v: Variant, rank: int, count: int) -> bool:
    if rank >= BLACK_JOKER:
        return False
    return count >= v.bomb_min or (v.aaa_bomb and rank == ACE and count >= 3)


def _holds_rocket(v: Variant, by_rank: list[list[int]]) -> bool:
    rc = v.rocket_counts
    return (
        rc is not None
        and len(by_rank[BLACK_JOKER]) >= rc[BLACK_JOKER]
        and len(by_rank[RED_JOKER]) >= rc[RED_JOKER]
    )


def _bombs(v: Variant, by_rank: list[list[int]], last: Pattern | None) -> list[Play]:
    """Every bomb and rocket of the hand that beats ``last``, smallest first."""
    # Most hands hold neither (a follow that finds no plain play asks every time): say so
    # before building any size list.  3 is the least count of a bomb rank (an AAA bomb).
    least = min(3, v.bomb_min) if v.aaa_bomb else v.bomb_min
    if max(map(len, by_rank[:SUITED_RANKS])) < least and not _holds_rocket(v, by_rank):
        return []
    out: list[Play] = []
    if Kind.BOMB in v.patterns:
        for r in range(SUITED_RANKS):
            c = len(by_rank[r])
            sizes = list(range(v.bomb_min, min(c, v.bomb_max) + 1))
            if v.aaa_bomb and r == ACE and c >= 3:
                sizes.insert(0, 3)
            for size in sizes:
                p = bomb_pattern(v, r, size)
                if beats(p, last):
                    out.append(Play(tuple(CARDS[x] for x in by_rank[r][:size]), p))
    if Kind.ROCKET in v.patterns and _holds_rocket(v, by_rank):
        p = rocket_pattern(v)
        if beats(p, last):
            d = v.decks
            out.append(
                Play(tuple(CARDS[x] for x in by_rank[BLACK_JOKER][:d] + by_rank[RED_JOKER][:d]), p)
            )
    out.sort(key=lambda play: play.pattern.order)
    return out


def _body_ranks(v: Variant, p: Pattern) -> tuple[int, ...]:
    if not SHAPES[p.kind].chain:
        return (p.rank,)
    for run in v.runs[p.length]:
        if run.top == p.rank and run.low == p.low:
            return run.ranks
    return (p.rank,)  # pragma: no cover - every chain pattern has its run


def _kicker_cost(v: Variant, by_rank: list[list[int]], play: Play) -> tuple[tuple[int, int], ...]:
    shape = SHAPES[play.pattern.kind]
    if shape.wing_count == 0:
        return ()
    taken = [0] * NUM_RANKS
    for c in play.cards:
        taken[RANK_OF[c]] += 1
    for r in _body_ranks(v, play.pattern):
        taken[r] -= shape.unit
    cost: list[tuple[int, int]] = []
    for r in range(NUM_RANKS):
        t = taken[r]
        if t <= 0:
            continue
        c = len(by_rank[r])
        tier = _JOKER_OR_BOMB_TIER if r >= BLACK_JOKER or _is_bomb_rank(v, r, c) else c - t
        cost.extend([(tier, r)] * t)
    return tuple(sorted(cost))


def _lead(v: Variant, by_rank: list[list[int]]) -> Play:
    rocket = _holds_rocket(v, by_rank)
    for r in range(NUM_RANKS):
        cards = by_rank[r]
        if not cards or _is_bomb_rank(v, r, len(cards)) or (r >= BLACK_JOKER and rocket):
            continue
        try:
            pattern = classify(v, cards)
        except RulesError:
            break  # the variant lacks this plain kind: take the general rule below
        return Play(tuple(CARDS[x] for x in cards), pattern)
    bombs = _bombs(v, by_rank, None)
    if bombs:
        return bombs[0]
    hand = [c for cards in by_rank for c in cards]
    return min(legal_plays(v, hand, ()), key=lambda p: (p.pattern.order, p.pattern.size))


def choose_play(
    v: Variant,
    hand: Sequence[int],
    last: Pattern | None,
    *,
    no_bombs: bool = False,
    must_hold: int | None = None,
) -> Play | None:
    """The auto-play move: a play, or None for pass (only when following).

    ``no_bombs``: the seat is a Dou Dizhu farmer following his partner's play.
    ``must_hold``: a card the lead must contain (the opener's ♠3 when the room requires it).
    """
    by_rank = _by_rank(hand)
    if last is None:
        if must_hold is not None:
            leads = [p for p in legal_plays(v, hand, ()) if must_hold in p.cards]
            if leads:
                play = _lead(v, by_rank)
                if must_hold in play.cards:
                    return play
                return min(leads, key=lambda p: (p.pattern.is_bomb, p.pattern.order, len(p.cards)))
        return _lead(v, by_rank)
    unit = _UNIT_KINDS.get(last.kind)
    if unit is not None:
        for r in range(last.order + 1, NUM_RANKS):
            cards = by_rank[r]
            if len(cards) >= unit and not (r == ACE and unit == 3 and v.aaa_bomb):
                p = Pattern(last.kind, r, 1, unit, False, r)
                return Play(tuple(CARDS[x] for x in cards[:unit]), p)
    elif not last.is_bomb:
        plain = [p for p in legal_plays(v, hand, last) if not p.pattern.is_bomb]
        if plain:
            # The least of (order, size, straight flush, kicker costs, cards), in two steps:
            # the kicker costs (the dear part) only for the plays that tie on the first three.
            # ``min`` keeps the first of equal keys, and the filter keeps the order: the same
            # play as one ``min`` over the whole key.
            def head(p: Play) -> tuple[int, int, bool]:
                pattern = p.pattern
                return (pattern.order, pattern.size, pattern.kind is Kind.STRAIGHT_FLUSH)

            best = head(min(plain, key=head))
            tied = [p for p in plain if head(p) == best]
            if len(tied) == 1:
                return tied[0]
            return min(tied, key=lambda p: (_kicker_cost(v, by_rank, p), p.cards))
    if no_bombs:
        return None
    bombs = _bombs(v, by_rank, last)
    return bombs[0] if bombs else None


#: The pure-Python policy: the reference the compiled core is tested against.
pure_choose_play = choose_play
if native_core is not None:  # the compiled core answers the common moves (patterns.CORE)
    choose_play = native_core.choose_play


def auto_bid(v: Variant, hand: Sequence[int], highest: int, forced: bool = False) -> int:
    """The auto-bid: the amount to bid, or 0 to pass."""
    by_rank = _by_rank(hand)
    bombs = sum(1 for r in range(SUITED_RANKS) if len(by_rank[r]) >= v.bomb_min)
    strength = 1 + len(by_rank[TWO]) + len(by_rank[BLACK_JOKER]) + len(by_rank[RED_JOKER]) + bombs
    amount = min(3, strength)
    if amount > highest:
        return amount
    if forced and highest == 0:  # pragma: no cover - amount is at least 1
        return 1
    return 0


def autoplay_action(view: SeatView, by: str | None = "autoplay") -> Action:
    """The auto-play (or auto-bid) move of the view's seat, which must be the seat to move,
    as an action to apply.  The view is all it reads: a timeout, a bot and a hint agree."""
    seat = view.seat
    if seat is None or seat != view.turn or view.hand is None:
        raise RulesError(f"seat {seat} is not to move", Reason.NOT_YOUR_TURN)
    return _auto_move(
        view.variant,
        view.phase,
        seat,
        view.hand,
        view.bid,
        view.must_bid,
        view.last,
        view.landlord,
        view.last_seat,
        view.must_hold,
        by,
    )


def autoplay_move(state: GameState, by: str | None = "autoplay") -> Action:
    """:func:`autoplay_action` of the seat to move, read from the state without building its
    view: the same fields, the same move (self-play and timeouts make one per action, and
    nobody reads the view they would build).  Raises ``NOT_YOUR_TURN`` once the game is over."""
    seat = state.turn
    if seat is None:
        raise RulesError("nobody is to move", Reason.NOT_YOUR_TURN)
    return _auto_move(
        state.variant,
        state.phase,
        seat,
        state.hands[seat],
        state.bid,
        state.forced[seat] and state.bid == 0,  # state.must_bid(seat), inlined
        state.last,
        state.landlord,
        state.last_seat,
        state.must_hold(),
        by,
    )


def _auto_move(
    v: Variant,
    phase: Phase,
    seat: int,
    hand: tuple[int, ...],
    bid: int,
    must_bid: bool,
    last_play: Play | None,
    landlord: int | None,
    last_seat: int | None,
    must_hold: int | None,
    by: str | None,
) -> Action:
    if phase is Phase.BIDDING:
        amount = auto_bid(v, hand, bid, must_bid)
        return Bid(seat, amount, by) if amount else Pass(seat, by)
    last = last_play.pattern if last_play is not None else None
    no_bombs = (
        landlord is not None
        and seat != landlord
        and last_seat is not None
        and (last_seat != landlord)
    )
    play = choose_play(v, hand, last, no_bombs=no_bombs, must_hold=must_hold)
    if play is None:
        return Pass(seat, by)
    return PlayCards(seat, play.cards, None, by)


def hint(view: SeatView) -> Action | None:
    """One stable suggestion for the view's seat: its auto-play move when it is to move, else
    None."""
    if not view.to_move:
        return None
    return autoplay_action(view, None)
