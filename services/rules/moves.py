"""Legal moves: every distinct play a hand can make against the last play, each exactly once.

Plays are distinct up to suits — except straight flushes, where the suit is the point — and
each comes with one concrete choice of cards, sorted: within a rank, the lowest suits in the
order s, h, c, d.  A lead lists every reading of an ambiguous set of cards as its own play
(the player names the reading); a follow lists each set of cards once, read as the reading
that beats the last play (RULES.md §3).

How it is fast: everything that depends only on the variant is built once per variant —
every body (the rank or run a pattern is built on) of every kind with its interned
:class:`Pattern`.  A hand is packed into one int with a 5-bit field per rank (its count),
from which "ranks held at least u times" is one addition and one AND; chains are found by
shifting those bits, so the work grows with the plays found, not with the plays possible; a
follow masks off every body that cannot beat the last play, and only the kinds that can
answer it are built.

>>> from .variants import variant
>>> from .cards import parse_cards
>>> v = variant("doudizhu3")
>>> [str(p) for p in legal_plays(v, parse_cards("3s 4h 4d BJ RJ"), last=parse_cards("3d"))]
['4h', 'BJ', 'RJ', 'BJRJ']
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from itertools import accumulate, combinations
from itertools import chain as concat
from operator import itemgetter
from typing import Any, Final

from .cards import ACE, BLACK_JOKER, CARDS, NUM_RANKS, RANK_OF, RED_JOKER, SUITED_RANKS, Card
from .errors import RulesError
from .kinds import SHAPES, Kind, Wings
from .patterns import (
    Pattern,
    Play,
    bomb_pattern,
    check_in_deck,
    fits_deck,
    native_core,
    pure_classify,
    readings,
    rocket_pattern,
)
from .variants import MAX_SHARED_TABLES, Variant

_tuple_new: Final = tuple.__new__

# A hand packed into one int: 5 bits per rank (counts up to 8, with a guard bit above), so
# "count ≥ u" for all ranks at once is ((packed + (16 - u) per field) & guard bits) >> 4.
_FIELD: Final = 5
_SHIFTS: Final = tuple(_FIELD * r for r in range(NUM_RANKS))
_CARD_WEIGHT: Final = tuple(1 << (_FIELD * RANK_OF[c]) for c in range(54))
_GUARDS: Final = sum(1 << (s + 4) for s in _SHIFTS)
_AT_LEAST: Final = tuple(sum((16 - u) << s for s in _SHIFTS) for u in range(9))
_RANK_OF_BIT: Final = {1 << s: r for r, s in enumerate(_SHIFTS)}


def _bits(ranks: Sequence[int]) -> int:
    return sum(1 << (_FIELD * r) for r in ranks)


class _Chain:
    """The runs of one chain kind: high-order runs by (length, start rank), and the
    zhengshangyou2 low-order runs (A 2 3 …) by length, tested one by one (they are few)."""

    __slots__ = ("high", "lengths", "low", "pick")

    def __init__(self) -> None:
        self.high: dict[tuple[int, int], tuple[tuple[int, ...], Pattern]] = {}
        self.low: dict[int, list[tuple[int, tuple[int, ...], Pattern]]] = {}
        # ranks -> a getter picking those ranks' entries from a per-rank list in one C call
        self.pick: dict[tuple[int, ...], itemgetter[Any]] = {}
        self.lengths: tuple[int, ...] = ()


class _Tables:
    """Everything the generator needs that depends on the variant only."""

    def __init__(self, v: Variant) -> None:
        self.kinds = tuple(k for k in Kind if k in v.patterns)
        self.by_rank: dict[Kind, list[Pattern | None]] = {}  # non-chain kinds, per rank
        self.chains: dict[Kind, _Chain] = {}
        self.flushes = Kind.STRAIGHT_FLUSH in v.patterns
        # Bits of the ranks a high-order chain may use (3..A, or 3..2 with the A/2 rule).
        self.chain_bits = _bits(range(len(v.runs) - 1))
        for kind in self.kinds:
            if kind is Kind.BOMB or kind is Kind.ROCKET:
                continue
            unit, chain, wings, wing_count = SHAPES[kind]
            per_rank = unit + wing_count * (2 if wings is Wings.PAIRS else 1)
            if not chain:
                table: list[Pattern | None] = [None] * NUM_RANKS
                for r in range(NUM_RANKS):
                    if v.copies[r] < unit or (kind is Kind.TRIPLE and r == ACE and v.aaa_bomb):
                        continue  # zsy1: three aces alone are the AAA bomb
                    table[r] = Pattern(kind, r, 1, per_rank, False, r)
                self.by_rank[kind] = table
                continue
            runs = _Chain()
            lo, hi = v.min_chain(kind), len(v.runs) - 1
            if wings is not Wings.NONE and v.max_plane:
                hi = min(hi, v.max_plane)
            runs.lengths = tuple(range(lo, hi + 1))
            for k in runs.lengths:
                for run in v.runs[k]:
                    ranks = tuple(sorted(run.ranks))
                    pattern = Pattern(kind, run.top, k, per_rank * k, run.low, run.order)
                    runs.pick[ranks] = itemgetter(*ranks)
                    if run.low:
                        runs.low.setdefault(k, []).append((_bits(ranks), ranks, pattern))
                    else:
                        runs.high[k, run.ranks[0]] = (ranks, pattern)
            self.chains[kind] = runs
        bombs: list[tuple[int, int, Pattern]] = []
        if Kind.BOMB in v.patterns:
            for r in range(SUITED_RANKS):
                sizes = list(range(v.bomb_min, min(v.copies[r], v.bomb_max) + 1))
                if r == ACE and v.aaa_bomb:
                    sizes.insert(0, 3)
                bombs += [(r, size, bomb_pattern(v, r, size)) for size in sizes]
        bombs.sort(key=lambda b: b[2].order)
        self.bombs = tuple(bombs)
        self.min_bomb = min((size for _, size, _ in bombs), default=9)
        self.rocket = rocket_pattern(v) if v.rocket_counts and Kind.ROCKET in v.patterns else None
        self._number_patterns(v)

    def _number_patterns(self, v: Variant) -> None:
        """Number every interned pattern: a move id's high bits (see :func:`legal_ids`)."""
        patterns: list[Pattern] = []
        for kind in self.kinds:
            if kind in self.by_rank:
                patterns += [p for p in self.by_rank[kind] if p is not None]
            elif kind in self.chains:
                runs = self.chains[kind]
                patterns += [body[1] for _, body in sorted(runs.high.items(), key=itemgetter(0))]
                patterns += [p for k in sorted(runs.low) for _, _, p in runs.low[k]]
        patterns += [p for _, _, p in self.bombs]
        if self.rocket is not None:
            patterns.append(self.rocket)
        self.patterns = tuple(patterns)
        self.pattern_index = {p: i for i, p in enumerate(patterns)}
        # A card's field holds how many copies of it a move takes (up to the deck count).
        self.card_width = max(1, v.decks.bit_length())
        self.pattern_shift = len(CARDS) * self.card_width
        # Ids fit 64 bits (one deck: 54 card bits and at most 10 pattern bits): an array of
        # unsigned 64-bit ints holds them, with no int object per move.
        self.narrow = self.pattern_shift + max(1, len(patterns) - 1).bit_length() <= 64


_TABLES: dict[tuple[Any, ...], _Tables] = {}


def _tables(v: Variant) -> _Tables:
    # Built once per pattern key (variants that differ only in scoring share them) and kept on
    # the variant value, as functools.cached_property would.
    found: _Tables | None = v.__dict__.get("_move_tables")
    if found is None:
        found = _TABLES.get(v.pattern_key)
        if found is None:
            if len(_TABLES) >= MAX_SHARED_TABLES:
                _TABLES.clear()
            found = _TABLES[v.pattern_key] = _Tables(v)
        v.__dict__["_move_tables"] = found
    return found


class _Hand:
    """A hand reduced for generation: its cards by rank and its packed rank counts."""

    __slots__ = ("by_rank", "counts", "packed")

    def __init__(self, v: Variant, cards: Sequence[int]) -> None:
        ordered = tuple(sorted(map(CARDS.__getitem__, cards)))
        if not fits_deck(v, ordered):
            check_in_deck(v, ordered)  # raises CardsNotInDeck naming the card
        packed = sum(map(_CARD_WEIGHT.__getitem__, ordered))
        counts = [packed >> s & 31 for s in _SHIFTS]
        # Card ids sort by rank, so each rank is one slice of the sorted hand.
        ends = list(accumulate(counts))
        self.by_rank = [ordered[e - n : e] for n, e in zip(counts, ends, strict=True)]
        self.counts = counts
        self.packed = packed

    def have(self, unit: int) -> int:
        """The field bit of every rank held at least ``unit`` times."""
        return ((self.packed + _AT_LEAST[unit]) & _GUARDS) >> 4


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
        last_pattern = pure_classify(v, last) if last else None
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
            _straight_flushes(t, h, last_pattern, out)
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
    if last is not None and last.kind is not kind:
        return
    unit, chain, wings, wing_count = SHAPES[kind]
    if chain:
        bodies = _chain_bodies(t, h.have(unit), kind, last)
    else:
        bodies = _rank_bodies(t, h, kind, unit, last)
    if not bodies:
        return
    by_rank = h.by_rank
    if wings is Wings.NONE:
        if not chain:
            out += [_tuple_new(Play, (by_rank[ranks[0]][:unit], p)) for ranks, p in bodies]
            return
        pick = t.chains[kind].pick
        if unit == 1:
            per_rank: list[Any] = [cs[0] if cs else None for cs in by_rank]
        else:
            per_rank = [cs[:unit] for cs in by_rank]
        # Where straight flushes exist, a straight whose lowest cards share one suit must
        # be laid out with another suit (or it is a straight flush only).
        check_suits = kind is Kind.STRAIGHT and t.flushes and _may_be_one_suit(v, per_rank)
        for ranks, pattern in bodies:
            if unit == 1:
                cards: tuple[Card, ...] = pick[ranks](per_rank)
                if check_suits and len({c & 3 for c in cards}) == 1:
                    plain = _plain_straight_cards(h, ranks)
                    if plain is None:
                        continue
                    cards = plain
            else:
                cards = tuple(concat.from_iterable(pick[ranks](per_rank)))
            out.append(_tuple_new(Play, (cards, pattern)))
        return
    wing_sets = _pair_wings if wings is Wings.PAIRS else _card_wings
    # Card-kicker planes can give one set of cards two readings (333444555+666 and
    # 444555666+333): a lead lists each reading, a follow the highest one that beats.
    seen: dict[tuple[Card, ...], int] | None = (
        {} if chain and wings is Wings.CARDS and last is not None else None
    )
    for ranks, pattern in bodies:
        body_cards: tuple[Card, ...] = ()
        for r in ranks:
            body_cards += by_rank[r][:unit]
        for wing_cards in wing_sets(v, h, ranks, pattern.length * wing_count):
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


_Bodies = list[tuple[tuple[int, ...], Pattern]]


def _rank_bodies(t: _Tables, h: _Hand, kind: Kind, unit: int, last: Pattern | None) -> _Bodies:
    """Bodies of one rank (single, pair, triple, the triple or quad under kickers)."""
    table = t.by_rank[kind]
    counts = h.counts
    low = 0 if last is None else last.order + 1
    return [(((r,), p)) for r in range(low, NUM_RANKS) if counts[r] >= unit and (p := table[r])]


def _chain_bodies(t: _Tables, have: int, kind: Kind, last: Pattern | None) -> _Bodies:
    """Runs of ranks whose field bits are set in ``have``, found by shifting the bits: after
    k-1 shifts, a bit still set starts a run of k."""
    runs = t.chains[kind]
    found: _Bodies = []
    lengths = runs.lengths if last is None else (last.length,)
    if not lengths:
        return found  # no length of this kind exists (rooms refuse such limits; stay total)
    if runs.low:
        for k in lengths:
            for mask, ranks, pattern in runs.low.get(k, ()):
                if mask & have == mask and (last is None or pattern.order > last.order):
                    found.append((ranks, pattern))
    usable = have & t.chain_bits
    starts = usable
    longest = lengths[-1]
    high = runs.high
    for k in range(2, longest + 1):
        starts &= usable >> (_FIELD * (k - 1))
        if not starts:
            break
        if k < lengths[0]:
            continue
        bits = starts
        if last is not None and last.order >= 0:
            # A high-order run's order is its top rank: start + k - 1.
            lowest_start = last.order - k + 2
            if lowest_start > 0:
                bits &= ~((1 << (_FIELD * lowest_start)) - 1)
        while bits:
            low_bit = bits & -bits
            body = high.get((k, _RANK_OF_BIT[low_bit]))
            if body is not None:
                found.append(body)
            bits ^= low_bit
    return found


def _may_be_one_suit(v: Variant, firsts: list[Any]) -> bool:
    """Whether enough of the lowest cards of the ranks share a suit to make a straight."""
    per_suit = [0, 0, 0, 0]
    for c in firsts[:SUITED_RANKS]:
        if c is not None:
            per_suit[c & 3] += 1
    return max(per_suit) >= v.min_straight


def _pair_wings(v: Variant, h: _Hand, body: tuple[int, ...], n: int) -> list[tuple[Card, ...]]:
    """n pairs of distinct ranks outside the body, never BJBJ + RJRJ (the heavenly bomb)."""
    counts, by_rank = h.counts, h.by_rank
    options = [r for r in range(NUM_RANKS) if counts[r] >= 2 and r not in body]
    out: list[tuple[Card, ...]] = []
    for combo in combinations(options, n):
        if combo[-1] == RED_JOKER and BLACK_JOKER in combo:
            continue
        cards: tuple[Card, ...] = ()
        for r in combo:
            cards += by_rank[r][:2]
        out.append(cards)
    return out


def _card_wings(v: Variant, h: _Hand, body: tuple[int, ...], n: int) -> list[tuple[Card, ...]]:
    """Multisets of n kicker cards from ranks outside the body — never a bomb, an AAA bomb
    or every joker of the game — as the lowest suits of each rank."""
    by_rank, counts = h.by_rank, h.counts
    cap_all = v.bomb_min - 1
    caps: list[tuple[int, int]] = []
    for r in range(NUM_RANKS):
        c = counts[r]
        if c and r not in body:
            cap = c if c < cap_all else cap_all
            if r == ACE and v.aaa_bomb and cap > 2:
                cap = 2
            caps.append((r, cap))
    if n == 1:
        return [by_rank[r][:1] for r, _ in caps]
    one_deck_rocket = v.jokers and v.decks == 1
    if n == 2:
        # The common case (four + two, triple + two, planes of two): pairs, then two ranks.
        out = [by_rank[r][:2] for r, cap in caps if cap >= 2]
        firsts = [(r, by_rank[r][:1]) for r, _ in caps]
        for i, (r1, c1) in enumerate(firsts):
            for r2, c2 in firsts[i + 1 :]:
                if r2 == RED_JOKER and r1 == BLACK_JOKER and one_deck_rocket:
                    continue  # BJ + RJ is the rocket of a one-deck game
                out.append(c1 + c2)
        return out
    rocket = (v.decks, v.decks) if v.jokers else None
    out = []
    chosen: list[tuple[int, int]] = []

    def rec(i: int, left: int) -> None:
        if left == 0:
            if (
                rocket is not None
                and len(chosen) >= 2
                and chosen[-1][0] == RED_JOKER
                and chosen[-2][0] == BLACK_JOKER
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
    if last is not None and last.kind is not Kind.STRAIGHT and last.kind is not Kind.STRAIGHT_FLUSH:
        return
    if last is not None and last.kind is Kind.STRAIGHT:
        # Any straight flush beats a plain straight of its length.
        last = last._replace(kind=Kind.STRAIGHT_FLUSH, order=-(1 << 30))
    by_suit = [0, 0, 0, 0]  # per suit, the field bit of every rank held in that suit
    for cards in h.by_rank[:SUITED_RANKS]:
        for c in cards:
            by_suit[c & 3] |= _CARD_WEIGHT[c]
    for suit in range(4):
        if by_suit[suit]:
            for ranks, pattern in _chain_bodies(t, by_suit[suit], Kind.STRAIGHT_FLUSH, last):
                cards = tuple([CARDS[r * 4 + suit] for r in ranks])
                out.append(_tuple_new(Play, (cards, pattern)))


def _bombs(t: _Tables, h: _Hand, last: Pattern | None, out: list[Play]) -> None:
    if t.min_bomb > 8 or not h.have(t.min_bomb):
        return
    floor = last.order if last is not None and last.kind is Kind.BOMB else -1
    counts, by_rank = h.counts, h.by_rank
    for r, size, pattern in t.bombs:
        if counts[r] >= size and pattern.order > floor:
            out.append(_tuple_new(Play, (by_rank[r][:size], pattern)))


def _rocket(v: Variant, t: _Tables, h: _Hand, out: list[Play]) -> None:
    rc = v.rocket_counts
    if t.rocket is None or rc is None:
        return
    counts = h.counts
    if counts[BLACK_JOKER] >= rc[BLACK_JOKER] and counts[RED_JOKER] >= rc[RED_JOKER]:
        cards = h.by_rank[BLACK_JOKER][: rc[BLACK_JOKER]] + h.by_rank[RED_JOKER][: rc[RED_JOKER]]
        out.append(_tuple_new(Play, (cards, t.rocket)))


# ------------------------------------------------------------------------------ move ids


def play_id(v: Variant, play: Play) -> int:
    """The move id of a play :func:`legal_plays` lists: a field per card id (how many copies
    the play takes) under the number of its interned pattern."""
    t = _tables(v)
    width = t.card_width
    cards = 0
    for c in play.cards:
        cards += 1 << (width * c)
    return cards | t.pattern_index[play.pattern] << t.pattern_shift


def _id_sequence(t: _Tables, ids: list[int]) -> Sequence[int]:
    # One object for all the moves where ids fit 64 bits; a tuple of ints otherwise.
    return array("Q", ids) if t.narrow else tuple(ids)


def legal_ids(
    v: Variant, hand: Sequence[int], last: Sequence[int] | Pattern | Play | None = None
) -> Sequence[int]:
    """:func:`legal_plays` as move ids, in the same order: an ``array('Q')`` where the variant's
    ids fit 64 bits (one deck), a tuple of ints otherwise.  :func:`play_from_id` turns an id
    back into its :class:`Play`; ids stay valid for the variant's pattern set, any hand."""
    plays = pure_legal_plays(v, hand, () if last is None else last)
    return _id_sequence(_tables(v), [play_id(v, play) for play in plays])


def play_from_id(v: Variant, move_id: int) -> Play:
    """The :class:`Play` a move id of :func:`legal_ids` stands for (equal to the one
    :func:`legal_plays` lists).  Raises :class:`RulesError` for an int that is no move id
    of the variant: cards the deck lacks, or that do not read as the id's pattern."""
    t = _tables(v)
    if move_id < 0:
        raise RulesError(f"{move_id} is not a move id")
    index = move_id >> t.pattern_shift
    if index >= len(t.patterns):
        raise RulesError(f"{move_id} is not a move id of {v.name}")
    pattern = t.patterns[index]
    width = t.card_width
    field = (1 << width) - 1
    fields = move_id & ((1 << t.pattern_shift) - 1)
    cards: list[Card] = []
    c = 0
    while fields:
        copies = fields & field
        if copies:
            cards += [CARDS[c]] * copies
        fields >>= width
        c += 1
    if len(cards) != pattern.size or not fits_deck(v, cards) or pattern not in readings(v, cards):
        raise RulesError(f"{move_id} is not a move id of {v.name}")
    return _tuple_new(Play, (tuple(cards), pattern))


def count_plays(v: Variant, hand: Sequence[int], last: Sequence[int] | Pattern | Play = ()) -> int:
    """How many distinct plays (the golden-count figure); passing not included."""
    return len(legal_plays(v, hand, last))


#: The pure-Python generator: the reference the compiled core is tested against.
pure_legal_plays = legal_plays
pure_legal_ids = legal_ids
pure_play_from_id = play_from_id
if native_core is not None:  # the compiled core (patterns.CORE says which is active)
    legal_plays = native_core.legal_plays
    legal_ids = native_core.legal_ids
    play_from_id = native_core.play_from_id
