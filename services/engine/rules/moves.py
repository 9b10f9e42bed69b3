"""Legal moves: every distinct play a hand can make against the last play, each exactly once.

Plays are distinct up to suits — except straight flushes, where the suit is the point — and
each comes with one concrete choice of cards: within a rank, the lowest suits in the order
s, h, c, d.  A lead lists every reading of an ambiguous set of cards as its own play (the
player names the reading); a follow lists each set of cards once, read as the reading that
beats the last play (RULES.md §3).

How it is fast: everything that depends only on the variant is built once per variant — every
possible body (the run or rank a pattern is built on) of every kind, as a rank bitmask with
its interned :class:`Pattern`, sorted by comparison order.  A hand is reduced to per-rank
counts and one bitmask per multiplicity ("ranks held at least u times"), so testing a body is
one AND, and a follow starts with a binary search past every body that cannot beat the last
play.  Only the kinds that can answer the last play are built.

>>> from .variants import variant
>>> from .cards import parse_cards
>>> v = variant("doudizhu3")
>>> [str(p) for p in legal_plays(v, parse_cards("3s 4h 4d BJ RJ"), last=parse_cards("3d"))]
['4h', 'BJ', 'RJ', 'BJRJ']
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from itertools import combinations
from operator import eq
from typing import Final, NamedTuple

from .cards import ACE, CARDS, Card
from .kinds import SHAPES, Kind, Wings
from .patterns import Pattern, Play, bomb_pattern, check_in_deck, classify, rocket_pattern
from .variants import Variant

_tuple_new: Final = tuple.__new__
_NEG: Final = -(1 << 30)


class _Body(NamedTuple):
    mask: int  # one bit per body rank
    ranks: tuple[int, ...]  # rank indices in the order the cards are laid out
    pattern: Pattern


class _Kind(NamedTuple):
    """The bodies of one kind and length, indexed for enumeration from a hand's bitmasks."""

    by_start: dict[int, _Body]  # lowest rank (high-order runs and single ranks) -> body
    low: tuple[_Body, ...]  # zhengshangyou2's low-order runs (A 2 3 …), lowest first
    span: int  # ranks that must be present from the start bit: k for runs, 1 otherwise


class _Tables:
    """Everything the generator needs that depends on the variant only."""

    def __init__(self, v: Variant) -> None:
        self.kinds = tuple(k for k in Kind if k in v.patterns)
        self.bodies: dict[tuple[Kind, int], _Kind] = {}
        self.lengths: dict[Kind, tuple[int, ...]] = {}
        # Bits of the ranks a high-order chain may use (3..A, or 3..2 with the A/2 rule).
        self.chain_ranks = (1 << (len(v.runs) - 1)) - 1
        for kind in self.kinds:
            if kind is Kind.BOMB or kind is Kind.ROCKET:
                continue
            unit, chain, wings, wing_count = SHAPES[kind]
            per_rank = unit + wing_count * (2 if wings is Wings.PAIRS else 1)
            if chain:
                lo, hi = v.min_chain(kind), len(v.runs) - 1
                if wings is not Wings.NONE and v.max_plane:
                    hi = min(hi, v.max_plane)
                lengths = tuple(range(lo, hi + 1))
            else:
                lengths = (1,)
            self.lengths[kind] = lengths
            for k in lengths:
                by_start: dict[int, _Body] = {}
                low: list[_Body] = []
                if chain:
                    for run in v.runs[k]:
                        ranks = tuple(sorted(run.ranks))
                        pattern = Pattern(kind, run.top, k, per_rank * k, run.low, run.order)
                        body = _Body(_mask(ranks), ranks, pattern)
                        if run.low:
                            low.append(body)
                        else:
                            by_start[run.ranks[0]] = body
                else:
                    for r in range(15):
                        if v.copies[r] < unit or (kind is Kind.TRIPLE and r == ACE and v.aaa_bomb):
                            continue  # zsy1: three aces alone are the AAA bomb
                        pattern = Pattern(kind, r, 1, per_rank, False, r)
                        by_start[r] = _Body(1 << r, (r,), pattern)
                low.sort(key=lambda b: b.pattern.order)
                self.bodies[kind, k] = _Kind(by_start, tuple(low), k if chain else 1)
        bombs: list[tuple[int, int, Pattern]] = []
        if Kind.BOMB in v.patterns:
            for r in range(13):
                sizes = list(range(v.bomb_min, min(v.copies[r], v.bomb_max) + 1))
                if r == ACE and v.aaa_bomb:
                    sizes.insert(0, 3)
                bombs += [(r, size, bomb_pattern(v, r, size)) for size in sizes]
        bombs.sort(key=lambda b: b[2].order)
        self.bombs = tuple(bombs)
        self.bomb_orders = [b[2].order for b in bombs]
        self.min_bomb = min((size for _, size, _ in bombs), default=99)
        self.rocket = rocket_pattern(v) if v.rocket_counts and Kind.ROCKET in v.patterns else None


def _present(t: _Tables, entry: _Kind, have: int, chain: bool, last: Pattern | None) -> list[_Body]:
    """The bodies of one kind and length that ``have`` (ranks held at least ``unit`` times)
    can make and that beat ``last`` — found from the bits, not by trying every body."""
    found: list[_Body] = []
    if entry.low:
        for low_body in entry.low:
            if low_body.mask & have == low_body.mask and (
                last is None or low_body.pattern.order > last.order
            ):
                found.append(low_body)
    if chain:
        span = entry.span
        usable = have & t.chain_ranks
        starts = usable
        for i in range(1, span):
            starts &= usable >> i
            if not starts:
                return found
        if last is not None and last.order >= 0:
            # A high-order run's order is its top rank: start + span - 1.
            starts &= ~((1 << (last.order - span + 2)) - 1) if last.order - span + 2 > 0 else -1
    else:
        starts = have
        if last is not None:
            starts &= ~((1 << (last.order + 1)) - 1)
    by_start = entry.by_start
    while starts:
        low_bit = starts & -starts
        body = by_start.get(low_bit.bit_length() - 1)
        if body is not None:
            found.append(body)
        starts ^= low_bit
    return found


def _mask(ranks: Sequence[int]) -> int:
    m = 0
    for r in ranks:
        m |= 1 << r
    return m


_RANK_STARTS: Final = (*range(0, 53, 4), 53, 54)  # first card id of each rank, then the end


def _fits_deck(v: Variant, ordered: tuple[Card, ...]) -> bool:
    """Whether a sorted hand holds each card at most as often as the deck (fast path)."""
    if not ordered:
        return True
    if not v.jokers and ordered[-1] >= 52:
        return False
    return not any(map(eq, ordered, ordered[v.decks :]))


def _tables(v: Variant) -> _Tables:
    # Built once per variant value and kept on it (Variant is frozen, so this is the same
    # per-instance cache functools.cached_property keeps).
    found: _Tables | None = v.__dict__.get("_move_tables")
    if found is None:
        found = _Tables(v)
        v.__dict__["_move_tables"] = found
    return found


class _Hand:
    """A hand reduced for generation: cards by rank and "held at least u times" bitmasks."""

    __slots__ = ("by_rank", "counts", "have")

    def __init__(self, v: Variant, cards: Sequence[int]) -> None:
        ordered = tuple(sorted(map(CARDS.__getitem__, cards)))
        if not _fits_deck(v, ordered):
            check_in_deck(v, ordered)  # raises CardsNotInDeck naming the card
        # Card ids sort by rank, so each rank is one slice of the sorted hand.
        at = [bisect_left(ordered, b) for b in _RANK_STARTS]
        by_rank = [ordered[at[r] : at[r + 1]] for r in range(15)]
        counts = [at[r + 1] - at[r] for r in range(15)]
        have = [0] * 9
        for r in range(15):
            n = counts[r]
            if n:
                bit = 1 << r
                for u in range(1, n + 1):
                    have[u] |= bit
        self.counts = counts
        self.by_rank = by_rank
        self.have = have


def legal_plays(
    v: Variant,
    hand: Sequence[int],
    last: Sequence[int] | Pattern | Play = (),
) -> tuple[Play, ...]:
    """Every distinct play ``hand`` can make.

    ``last`` is the play to beat — its cards (as :func:`parse_cards` returns them, read the
    default way), its :class:`Pattern` or its :class:`Play` — or empty for a lead.  Passing
    is not a play: it is the caller's move whenever ``last`` is not empty.
    """
    if isinstance(last, Play):
        last_pattern: Pattern | None = last.pattern
    elif isinstance(last, Pattern):
        last_pattern = last
    else:
        last_pattern = classify(v, last) if last else None
    t = _tables(v)
    h = _Hand(v, hand)
    out: list[Play] = []
    if last_pattern is None:
        for kind in t.kinds:
            _generate(v, t, h, kind, None, out)
        return tuple(out)
    kind = last_pattern.kind
    if kind is Kind.ROCKET:
        return ()
    if kind is not Kind.BOMB:
        _generate(v, t, h, kind, last_pattern, out)
        if kind is Kind.STRAIGHT and Kind.STRAIGHT_FLUSH in v.patterns:
            _generate(v, t, h, Kind.STRAIGHT_FLUSH, last_pattern, out)
    _bombs(t, h, last_pattern, out)
    _rocket(v, t, h, out)
    return tuple(out)


def _generate(
    v: Variant, t: _Tables, h: _Hand, kind: Kind, last: Pattern | None, out: list[Play]
) -> None:
    """Append the plays of one kind that beat ``last`` (every one of the kind when None)."""
    if kind is Kind.BOMB:
        _bombs(t, h, last, out)
        return
    if kind is Kind.ROCKET:
        _rocket(v, t, h, out)
        return
    if kind is Kind.STRAIGHT_FLUSH:
        _straight_flushes(t, h, last, out)
        return
    if last is None:
        lengths = t.lengths[kind]
    elif last.kind is kind:
        lengths = (last.length,)
    else:
        return
    unit, chain, wings, wing_count = SHAPES[kind]
    have = h.have[unit] if unit < len(h.have) else 0
    if not have:
        return
    by_rank = h.by_rank
    flush_aware = kind is Kind.STRAIGHT and Kind.STRAIGHT_FLUSH in v.patterns
    for k in lengths:
        entry = t.bodies.get((kind, k))
        if entry is None:
            continue
        bodies = _present(t, entry, have, chain, last)
        if wings is Wings.NONE:
            for mask, ranks, pattern in bodies:
                if mask & have != mask:
                    continue
                if chain:
                    cards: tuple[Card, ...] = ()
                    for r in ranks:
                        cards += by_rank[r][:unit]
                    if flush_aware and _one_suit(cards):
                        plain = _plain_straight_cards(h, ranks)
                        if plain is None:
                            continue
                        cards = plain
                else:
                    cards = by_rank[ranks[0]][:unit]
                out.append(_tuple_new(Play, (cards, pattern)))
            continue
        n_wings = k * wing_count
        wing_sets = _pair_wings if wings is Wings.PAIRS else _card_wings
        # Card-kicker planes can give one set of cards two readings (333444555+666 and
        # 444555666+333): a lead lists each reading, a follow the highest one that beats.
        seen: dict[tuple[Card, ...], int] | None = (
            {} if chain and wings is Wings.CARDS and last is not None else None
        )
        for mask, ranks, pattern in bodies:
            if mask & have != mask:
                continue
            body_cards: tuple[Card, ...] = ()
            for r in ranks:
                body_cards += by_rank[r][:unit]
            for wing_cards in wing_sets(v, h, mask, n_wings):
                cards = tuple(sorted(body_cards + wing_cards))  # Play.cards are sorted
                if seen is None:
                    out.append(_tuple_new(Play, (cards, pattern)))
                    continue
                at = seen.get(cards)
                if at is None:
                    seen[cards] = len(out)
                    out.append(_tuple_new(Play, (cards, pattern)))
                elif pattern.order > out[at].pattern.order:
                    out[at] = _tuple_new(Play, (cards, pattern))


def _one_suit(cards: tuple[Card, ...]) -> bool:
    suit = cards[0] & 3
    return all(c & 3 == suit for c in cards)


def _pair_wings(v: Variant, h: _Hand, body_mask: int, n: int) -> list[tuple[Card, ...]]:
    """n pairs of distinct ranks outside the body, never BJBJ + RJRJ (the heavenly bomb)."""
    pairs = h.have[2] & ~body_mask
    if not pairs:
        return []
    by_rank = h.by_rank
    options = [r for r in range(15) if pairs >> r & 1]
    out: list[tuple[Card, ...]] = []
    for combo in combinations(options, n):
        if combo[-1] == 14 and 13 in combo:
            continue
        cards: tuple[Card, ...] = ()
        for r in combo:
            cards += by_rank[r][:2]
        out.append(cards)
    return out


def _card_wings(v: Variant, h: _Hand, body_mask: int, n: int) -> list[tuple[Card, ...]]:
    """Multisets of n kicker cards from ranks outside the body — never a bomb, an AAA bomb
    or every joker of the game — as the lowest suits of each rank."""
    by_rank = h.by_rank
    counts = h.counts
    cap_all = v.bomb_min - 1
    caps: list[tuple[int, int]] = []
    for r in range(15):
        c = counts[r]
        if c and not body_mask >> r & 1:
            cap = c if c < cap_all else cap_all
            if r == ACE and v.aaa_bomb and cap > 2:
                cap = 2
            caps.append((r, cap))
    if n == 1:
        return [by_rank[r][:1] for r, _ in caps]
    rocket = (v.decks, v.decks) if v.jokers else None
    if n == 2:
        # The common case (four + two, triple + two, planes of two): pairs, then two ranks.
        out = [by_rank[r][:2] for r, cap in caps if cap >= 2]
        firsts = [(r, by_rank[r][:1]) for r, _ in caps]
        for i, (r1, c1) in enumerate(firsts):
            for r2, c2 in firsts[i + 1 :]:
                if r2 == 14 and r1 == 13 and rocket == (1, 1):
                    continue  # BJ + RJ is the rocket of a one-deck game
                out.append(c1 + c2)
        return out
    out = []
    chosen: list[tuple[int, int]] = []

    def rec(i: int, left: int) -> None:
        if left == 0:
            if (
                rocket is not None
                and len(chosen) >= 2
                and chosen[-1][0] == 14
                and chosen[-2][0] == 13
                and (chosen[-2][1], chosen[-1][1]) == rocket
            ):
                return  # every joker of the game: the rocket is never split as kickers
            cards: tuple[Card, ...] = ()
            for r, take in chosen:
                cards += by_rank[r][:take]
            out.append(cards)
            return
        for j in range(i, len(caps)):
            r, cap = caps[j]
            for take in range(min(cap, left), 0, -1):
                chosen.append((r, take))
                rec(j + 1, left - take)
                chosen.pop()

    rec(0, n)
    return out


def _plain_straight_cards(h: _Hand, ranks: tuple[int, ...]) -> tuple[Card, ...] | None:
    """Cards for a straight that is not a straight flush, or None when every choice is one
    suit (then the hand can only play it as a straight flush)."""
    by_rank = h.by_rank
    picked = [by_rank[r][0] for r in ranks]
    suit = picked[0] & 3
    for i in range(len(ranks) - 1, -1, -1):
        for c in by_rank[ranks[i]]:
            if c & 3 != suit:
                picked[i] = c
                return tuple(sorted(picked))
    return None


def _straight_flushes(t: _Tables, h: _Hand, last: Pattern | None, out: list[Play]) -> None:
    suit_masks = [0, 0, 0, 0]
    for r in range(13):
        for c in h.by_rank[r]:
            suit_masks[c & 3] |= 1 << r
    if last is None:
        lengths = t.lengths[Kind.STRAIGHT_FLUSH]
    elif last.kind is Kind.STRAIGHT or last.kind is Kind.STRAIGHT_FLUSH:
        lengths = (last.length,)
    else:
        return
    above = last if last is not None and last.kind is Kind.STRAIGHT_FLUSH else None
    for k in lengths:
        entry = t.bodies.get((Kind.STRAIGHT_FLUSH, k))
        if entry is None:
            continue
        for mask, ranks, pattern in _present(t, entry, h.have[1], True, above):
            for suit in range(4):
                if mask & suit_masks[suit] == mask:
                    cards = tuple([CARDS[r * 4 + suit] for r in ranks])
                    out.append(_tuple_new(Play, (cards, pattern)))


def _bombs(t: _Tables, h: _Hand, last: Pattern | None, out: list[Play]) -> None:
    if t.min_bomb >= len(h.have) or not h.have[t.min_bomb]:
        return
    bombs = t.bombs
    if last is not None and last.kind is Kind.BOMB:
        bombs = bombs[bisect_right(t.bomb_orders, last.order) :]
    counts, by_rank = h.counts, h.by_rank
    for r, size, pattern in bombs:
        if counts[r] >= size:
            out.append(_tuple_new(Play, (by_rank[r][:size], pattern)))


def _rocket(v: Variant, t: _Tables, h: _Hand, out: list[Play]) -> None:
    rc = v.rocket_counts
    if t.rocket is None or rc is None:
        return
    counts = h.counts
    if counts[13] >= rc[13] and counts[14] >= rc[14]:
        cards = h.by_rank[13][: rc[13]] + h.by_rank[14][: rc[14]]
        out.append(_tuple_new(Play, (cards, t.rocket)))


def count_plays(v: Variant, hand: Sequence[int], last: Sequence[int] | Pattern | Play = ()) -> int:
    """How many distinct plays (the golden-count figure); passing not included."""
    return len(legal_plays(v, hand, last))
