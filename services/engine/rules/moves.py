"""Legal moves: every distinct play a hand can make against the last play, each exactly once.

Plays are distinct up to suits — except straight flushes, where the suit is the point — and
each comes with one concrete choice of cards: within a rank, the lowest suits in the order
s, h, c, d.  A lead lists every reading of an ambiguous set of cards as its own play (the
player names the reading); a follow lists each set of cards once, read as the reading that
beats the last play (RULES.md §3).

The generator works on per-rank counts and only builds the kinds that can answer the last
play, which is what makes following fast.

>>> from .variants import variant
>>> from .cards import parse_cards
>>> v = variant("doudizhu3")
>>> [str(p) for p in legal_plays(v, parse_cards("3s 4h 4d BJ RJ"), last=parse_cards("3d"))]
['4h', 'BJ', 'RJ', 'BJRJ']
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations
from typing import Final

from .cards import ACE, CARDS, RANK_OF
from .kinds import SHAPES, Kind, Wings
from .patterns import (
    Pattern,
    Play,
    beats,
    bomb_pattern,
    check_in_deck,
    classify,
    rocket_pattern,
)
from .variants import Run, Variant


class _Hand:
    """Per-rank counts and the cards of each rank (lowest suit first)."""

    __slots__ = ("by_rank", "counts")

    def __init__(self, v: Variant, cards: Sequence[int]) -> None:
        self.counts = check_in_deck(v, cards)
        by_rank: list[list[int]] = [[] for _ in range(15)]
        for c in sorted(cards):
            by_rank[RANK_OF[c]].append(c)
        self.by_rank = by_rank

    def take(self, used: Sequence[tuple[int, int]]) -> tuple[int, ...]:
        """Concrete cards for (rank, count) pairs: the lowest suits of each rank."""
        out: list[int] = []
        by_rank = self.by_rank
        for rank, n in used:
            out.extend(by_rank[rank][:n])
        return tuple(CARDS[c] for c in out)


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
    last_pattern = _last_pattern(v, last)
    h = _Hand(v, hand)
    if last_pattern is None:
        return tuple(_lead(v, h))
    return tuple(_follow(v, h, last_pattern))


def _last_pattern(v: Variant, last: Sequence[int] | Pattern | Play) -> Pattern | None:
    if isinstance(last, Pattern):
        return last
    if isinstance(last, Play):
        return last.pattern
    if not last:
        return None
    return classify(v, last)


def _lead(v: Variant, h: _Hand) -> Iterator[Play]:
    patterns = v.patterns
    for kind in _GEN_ORDER:
        if kind in patterns:
            yield from _generate(v, h, kind, None)


def _follow(v: Variant, h: _Hand, last: Pattern) -> Iterator[Play]:
    kind = last.kind
    if kind is Kind.ROCKET:
        return
    if kind is not Kind.BOMB:
        yield from _generate(v, h, kind, last)
        if kind is Kind.STRAIGHT and Kind.STRAIGHT_FLUSH in v.patterns:
            yield from _generate(v, h, Kind.STRAIGHT_FLUSH, last)
    yield from _generate(v, h, Kind.BOMB, last)
    yield from _generate(v, h, Kind.ROCKET, last)


_GEN_ORDER: Final = tuple(Kind)


def _generate(v: Variant, h: _Hand, kind: Kind, last: Pattern | None) -> Iterator[Play]:
    """Plays of one kind that beat ``last`` (any of the kind when None)."""
    counts = h.counts
    if kind is Kind.BOMB:
        yield from _bombs(v, h, last)
        return
    if kind is Kind.ROCKET:
        rc = v.rocket_counts
        if rc is not None and counts[13] >= rc[13] and counts[14] >= rc[14]:
            p = rocket_pattern(v)
            if beats(p, last):
                yield Play(h.take(((13, rc[13]), (14, rc[14]))), p)
        return
    if kind is Kind.STRAIGHT_FLUSH:
        yield from _straight_flushes(v, h, last)
        return
    unit, chain, wings, wing_count = SHAPES[kind]
    if last is not None:
        lengths = [last.length]
    elif chain:
        lo = v.min_chain(kind)
        hi = len(v.runs) - 1
        if wings is not Wings.NONE and v.max_plane:
            hi = min(hi, v.max_plane)
        lengths = list(range(lo, hi + 1))
    else:
        lengths = [1]
    min_order = last.order if last is not None else -(1 << 30)
    flush_aware = kind is Kind.STRAIGHT and Kind.STRAIGHT_FLUSH in v.patterns
    for k in lengths:
        if chain:
            bodies: Sequence[Run] = v.runs[k] if k < len(v.runs) else ()
        else:
            bodies = [Run((r,), r, False, r) for r in range(15) if counts[r] >= unit]
        if wings is Wings.NONE:
            for body in bodies:
                if body.order <= min_order or any(counts[r] < unit for r in body.ranks):
                    continue
                if chain:
                    p = Pattern(kind, body.top, k, unit * k, body.low, body.order)
                else:
                    single = _single_rank(v, kind, body.top)
                    if single is None:
                        continue
                    p = single
                if flush_aware:
                    cards = _plain_straight_cards(h, body.ranks)
                    if cards is not None:
                        yield Play(cards, p)
                else:
                    yield Play(h.take([(r, unit) for r in body.ranks]), p)
            continue
        # Bodies with kickers.  Card-kicker planes can give one set of cards two readings
        # (333444555+666 / 444555666+333): leads keep each reading, follows keep the best.
        dedupe = chain and wings is Wings.CARDS
        seen: dict[tuple[tuple[int, int], ...], int] = {}
        out: list[Play] = []
        n_wings = k * wing_count
        size = k * unit + n_wings * (2 if wings is Wings.PAIRS else 1)
        for body in bodies:
            if body.order <= min_order or any(counts[r] < unit for r in body.ranks):
                continue
            body_ranks = body.ranks
            p = Pattern(kind, body.top, k, size, body.low, body.order)
            if wings is Wings.PAIRS:
                options = [r for r in range(15) if counts[r] >= 2 and r not in body_ranks]
                wing_sets: Iterator[tuple[tuple[int, int], ...]] = (
                    tuple((r, 2) for r in combo)
                    for combo in combinations(options, n_wings)
                    # BJBJ + RJRJ as wings would split the heavenly bomb
                    if not (13 in combo and 14 in combo)
                )
            else:
                wing_sets = _card_wings(v, counts, body_ranks, n_wings)
            for wing in wing_sets:
                used = sorted([(r, unit) for r in body_ranks] + list(wing))
                play = Play(h.take(used), p)
                if not dedupe:
                    yield play
                    continue
                key = tuple(used)
                if last is None:
                    out.append(play)  # every reading is its own lead
                elif key in seen:
                    if p.order > out[seen[key]].pattern.order:
                        out[seen[key]] = play
                else:
                    seen[key] = len(out)
                    out.append(play)
        yield from out


def _single_rank(v: Variant, kind: Kind, rank: int) -> Pattern | None:
    """The single, pair or triple of one rank; None where the game reads it otherwise."""
    if kind is Kind.TRIPLE and rank == ACE and v.aaa_bomb:
        return None  # zsy1: three aces alone are the AAA bomb
    unit = SHAPES[kind].unit
    return Pattern(kind, rank, 1, unit, False, rank)


def _card_wings(
    v: Variant, counts: list[int], body: tuple[int, ...], n: int
) -> Iterator[tuple[tuple[int, int], ...]]:
    """Multisets of n kicker cards (as (rank, count) pairs) from ranks outside the body,
    never holding a bomb, an AAA bomb or every joker of the game."""
    caps = []
    cap_all = v.bomb_min - 1
    for r in range(15):
        if r in body or not counts[r]:
            continue
        cap = min(counts[r], cap_all)
        if r == ACE and v.aaa_bomb:
            cap = min(cap, 2)
        caps.append((r, cap))
    no_rocket = v.jokers
    decks = v.decks
    chosen: list[tuple[int, int]] = []

    def rec(i: int, left: int) -> Iterator[tuple[tuple[int, int], ...]]:
        if left == 0:
            if no_rocket:
                got = dict(chosen)
                if got.get(13, 0) == decks and got.get(14, 0) == decks:
                    return
            yield tuple(chosen)
            return
        if i == len(caps):
            return
        r, cap = caps[i]
        for take in range(min(cap, left), 0, -1):
            chosen.append((r, take))
            yield from rec(i + 1, left - take)
            chosen.pop()
        yield from rec(i + 1, left)

    return rec(0, n)


def _plain_straight_cards(h: _Hand, ranks: tuple[int, ...]) -> tuple[int, ...] | None:
    """Cards for a straight that is not a straight flush, or None when every choice is one
    suit (then the hand can only play it as a straight flush)."""
    by_rank = h.by_rank
    picked = [by_rank[r][0] for r in ranks]
    suit = picked[0] & 3
    if any(c & 3 != suit for c in picked):
        return tuple(CARDS[c] for c in sorted(picked))
    for i in range(len(ranks) - 1, -1, -1):
        for c in by_rank[ranks[i]]:
            if c & 3 != suit:
                picked[i] = c
                return tuple(CARDS[c] for c in sorted(picked))
    return None


def _straight_flushes(v: Variant, h: _Hand, last: Pattern | None) -> Iterator[Play]:
    by_suit: list[set[int]] = [set() for _ in range(4)]
    for r in range(13):
        for c in h.by_rank[r]:
            by_suit[c & 3].add(r)
    if last is not None:
        lengths = [last.length]
        min_order = last.order if last.kind is Kind.STRAIGHT_FLUSH else -(1 << 30)
    else:
        lengths = list(range(v.min_straight, len(v.runs)))
        min_order = -(1 << 30)
    for k in lengths:
        if k >= len(v.runs):
            continue
        for run in v.runs[k]:
            if run.order <= min_order:
                continue
            for suit in range(4):
                have = by_suit[suit]
                if all(r in have for r in run.ranks):
                    p = Pattern(Kind.STRAIGHT_FLUSH, run.top, k, k, run.low, run.order)
                    yield Play(tuple(CARDS[r * 4 + suit] for r in sorted(run.ranks)), p)


def _bombs(v: Variant, h: _Hand, last: Pattern | None) -> Iterator[Play]:
    counts = h.counts
    for r in range(13):
        c = counts[r]
        sizes = list(range(v.bomb_min, min(c, v.bomb_max) + 1))
        if r == ACE and v.aaa_bomb and c >= 3:
            sizes.insert(0, 3)
        for size in sizes:
            p = bomb_pattern(v, r, size)
            if beats(p, last):
                yield Play(h.take(((r, size),)), p)


def count_plays(v: Variant, hand: Sequence[int], last: Sequence[int] | Pattern | Play = ()) -> int:
    """How many distinct plays (the golden-count figure); passing not included."""
    return len(legal_plays(v, hand, last))
