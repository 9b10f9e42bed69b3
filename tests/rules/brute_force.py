"""Slow, obviously-right enumerations of legal plays, to check the move generator against.

Both are built only from the classifier (``readings``, ``beats``, ``preferred``), never from
``moves.py``:

* :func:`by_subsets` tries every subset of the hand's cards (2**n of them; hands of up to
  ~12 cards).  It is the definition of "every distinct play" in RULES.md terms.
* :func:`count_by_rank_counts` tries every sub-multiset of ranks instead and reasons about
  suits only where they matter (straight flushes), so it also reaches full hands when the
  hand's ranks are spread out.  make_golden.py uses it to check the committed counts.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations, product

from services import rules
from services.rules import Kind, Pattern, Variant
from services.rules.cards import RANK_OF

from .strategies import play_identity

Identity = tuple[tuple[int, ...], int | None]


def _distinct_subsets(hand: Sequence[int]) -> Iterator[tuple[int, ...]]:
    seen: set[tuple[int, ...]] = set()
    ordered = sorted(hand)
    for n in range(1, len(ordered) + 1):
        for combo in combinations(ordered, n):
            if combo not in seen:
                seen.add(combo)
                yield combo


def by_subsets(
    v: Variant, hand: Sequence[int], last: Pattern | None
) -> set[tuple[Identity, Pattern]]:
    """Every play of ``hand`` as (identity, pattern).

    A lead: every reading of every distinct set of cards (the player names the reading).
    A follow: every distinct set of cards with a reading that beats ``last``, once, read as
    the reading RULES.md §3 picks among the beating ones.
    """
    out: set[tuple[Identity, Pattern]] = set()
    for subset in _distinct_subsets(hand):
        found = rules.readings(v, subset)
        if last is None:
            out.update((play_identity(subset, p), p) for p in found)
            continue
        beating = [p for p in found if rules.beats(p, last)]
        if beating:
            p = rules.preferred(beating)
            out.add((play_identity(subset, p), p))
    return out


def count_by_rank_counts(v: Variant, hand: Sequence[int], last: Pattern | None) -> int:
    """How many plays ``hand`` has, enumerating sub-multisets of ranks.

    Suits change a reading only for a run of singles in a game with straight flushes: such a
    run is one plain straight if some choice of its cards mixes suits, plus one straight flush
    per suit that holds the whole run.  Every other set of ranks is read from any one choice
    of its cards.
    """
    by_rank: list[list[int]] = [[] for _ in range(15)]
    for c in sorted(hand):
        by_rank[RANK_OF[c]].append(c)
    has_flush = Kind.STRAIGHT_FLUSH in v.patterns
    total = 0
    for take in product(*(range(len(cs) + 1) for cs in by_rank)):
        if not any(take):
            continue
        chosen = [c for r, n in enumerate(take) for c in by_rank[r][:n]]
        distinct = [r for r, n in enumerate(take) if n]
        if has_flush and len(distinct) >= v.min_straight and all(n <= 1 for n in take):
            total += _count_runs(v, by_rank, distinct, chosen, last)
            continue
        found = rules.readings(v, chosen)
        if last is None:
            total += len(found)
        elif any(rules.beats(p, last) for p in found):
            total += 1
    return total


def _count_runs(
    v: Variant,
    by_rank: list[list[int]],
    distinct: list[int],
    chosen: list[int],
    last: Pattern | None,
) -> int:
    found = rules.readings(v, chosen)  # [] unless the ranks are a run of the game
    if not found:
        return 0
    suits = [{c & 3 for c in by_rank[r]} for r in distinct]
    full_suits = set.intersection(*suits)
    # A mixed choice exists unless every rank offers one and the same single suit.
    mixed_exists = not (len(full_suits) == 1 and all(len(s) == 1 for s in suits))
    total = 0
    if mixed_exists:
        mixed = [by_rank[r][0] for r in distinct]
        if len({c & 3 for c in mixed}) == 1:  # the lowest cards are one suit: swap one
            for i, r in enumerate(distinct):
                other = [c for c in by_rank[r] if c & 3 != mixed[0] & 3]
                if other:
                    mixed[i] = other[0]
                    break
        (p,) = rules.readings(v, mixed)
        assert p.kind is Kind.STRAIGHT
        total += rules.beats(p, last)
    for suit in full_suits:
        (p,) = rules.readings(v, [r * 4 + suit for r in distinct])
        assert p.kind is Kind.STRAIGHT_FLUSH
        total += rules.beats(p, last)
    return total
