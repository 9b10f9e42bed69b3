"""Classification and comparison of plays (RULES.md §3, §3.1, §3.2).

One classifier reads every kind from the variant's data: :func:`readings` lists every way a
set of cards can be read, :func:`classify` picks the reading RULES.md names (or the one the
caller names), and :func:`beats` compares two patterns.

>>> from .variants import variant
>>> from .cards import parse_cards
>>> v = variant("doudizhu3")
>>> str(classify(v, parse_cards("3s3h3d4c")))
'triple_single:3'
>>> [str(p) for p in readings(v, parse_cards("3s3h3d 4s4h4d 5s5h5d 6s6h6d"))]
['triple_chain:6', 'plane_single:5', 'plane_single:6']
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Sequence
from operator import eq
from types import ModuleType
from typing import Final, NamedTuple

from .cards import (
    ACE,
    BLACK_JOKER,
    BLACK_JOKER_CARD,
    CARD_NAMES,
    NUM_RANKS,
    RANK_NAMES,
    RANK_OF,
    RED_JOKER,
    RED_JOKER_CARD,
    SUITED_RANKS,
    format_cards,
)
from .errors import CardsNotInDeck, DoesNotBeat, NotAPattern
from .kinds import BOMB_KINDS, SHAPES, Kind, Wings
from .variants import Run, Variant

_ROCKET_ORDER: Final = 1 << 20
_AAA_HIGHEST_SIZE: Final = 9  # an AAA bomb ranked above every bomb of up to 8 cards


class Pattern(NamedTuple):
    """A reading of a play: its kind, key rank and size.

    ``rank`` is the key rank index (``RANK_NAMES[rank]``); ``length`` the number of body
    ranks (chain length, 1 otherwise); ``size`` the number of cards; ``low`` is true for a
    zhengshangyou2 chain read in the low order A 2 3 …; ``order`` compares patterns of one
    kind and size (and bombs with each other).
    """

    kind: Kind
    rank: int
    length: int
    size: int
    low: bool
    order: int

    @property
    def wings(self) -> Wings:
        return SHAPES[self.kind].wings

    @property
    def is_bomb(self) -> bool:
        """Bombs and rockets: what beats any other kind."""
        return self.kind in BOMB_KINDS

    @property
    def reading(self) -> str:
        """The notation that names this reading: ``kind:RANK`` (``plane_single:6``)."""
        return f"{self.kind.value}:{RANK_NAMES[self.rank]}"

    def __str__(self) -> str:
        return self.reading

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind.value,
            "rank": RANK_NAMES[self.rank],
            "length": self.length,
            "size": self.size,
            "low": self.low,
            "wings": self.wings.value,
            "reading": self.reading,
        }


class Play(NamedTuple):
    """Concrete cards and the reading they are played as."""

    cards: tuple[int, ...]
    pattern: Pattern

    def __str__(self) -> str:
        return format_cards(self.cards)


def parse_reading(text: str) -> tuple[Kind, int]:
    """``"plane_single:6"`` → (Kind.PLANE_SINGLE, rank index of 6)."""
    kind_name, sep, rank_name = text.strip().partition(":")
    try:
        kind = Kind(kind_name.strip().lower())
    except ValueError:
        raise NotAPattern(f"unknown pattern kind {kind_name!r} in reading {text!r}") from None
    rank_key = rank_name.strip().upper()
    rank_key = "T" if rank_key == "10" else rank_key
    if not sep or rank_key not in RANK_NAMES:
        raise NotAPattern(f"a reading is KIND:RANK (like plane_single:6), not {text!r}")
    return kind, RANK_NAMES.index(rank_key)


def bomb_pattern(v: Variant, rank: int, size: int) -> Pattern:
    order_size = _AAA_HIGHEST_SIZE if size == 3 and v.aaa_bomb_highest else size
    return Pattern(Kind.BOMB, rank, 1, size, False, order_size * 16 + rank)


def rocket_pattern(v: Variant) -> Pattern:
    return Pattern(Kind.ROCKET, RANK_OF[RED_JOKER_CARD], 1, 2 * v.decks, False, _ROCKET_ORDER)


def check_in_deck(v: Variant, cards: Sequence[int]) -> list[int]:
    """The rank counts of ``cards``; raises :class:`CardsNotInDeck` for a card the game's
    deck lacks or holds fewer times than given."""
    counts = [0] * NUM_RANKS
    seen: dict[int, int] = {}
    decks = v.decks
    for c in cards:
        n = seen.get(c, 0) + 1
        if n > decks or (c >= BLACK_JOKER_CARD and not v.jokers):
            what = (
                "holds no" if c >= BLACK_JOKER_CARD and not v.jokers else f"holds only {decks} of"
            )
            raise CardsNotInDeck(f"{v.name}'s deck {what} {CARD_NAMES[c]}")
        seen[c] = n
        counts[RANK_OF[c]] += 1
    return counts


def fits_deck(v: Variant, cards: Sequence[int]) -> bool:
    """Whether the game's deck holds every card as often as given (the fast check; on False,
    :func:`check_in_deck` says which card)."""
    if not cards:
        return True
    if not v.jokers and max(cards) >= BLACK_JOKER_CARD:
        return False
    if v.decks == 1:
        return len(set(cards)) == len(cards)
    ordered = sorted(cards)
    return not any(map(eq, ordered, ordered[v.decks :]))


#: One nibble per rank: summing a card list's weights gives its rank counts as one int.
_RANK_WEIGHT: Final = tuple(1 << (4 * RANK_OF[c]) for c in range(54))
_CACHE_LIMIT: Final = 1 << 16


class _Entry(NamedTuple):
    """The memo of one rank-count vector: its readings, the default one, and whether one
    suit would make it a straight flush."""

    readings: tuple[Pattern, ...]
    best: Pattern | None
    flush: Pattern | None


def _entry(v: Variant, cards: Sequence[int]) -> _Entry:
    if not fits_deck(v, cards):
        check_in_deck(v, cards)  # raises, naming the card
    # Readings depend on the rank counts only (a straight flush aside), so they are kept per
    # variant, keyed by the counts packed in one int: a bounded memo of a pure function.
    key = sum(map(_RANK_WEIGHT.__getitem__, cards))
    memo = v.readings_memo
    entry = memo.get(key)
    if entry is None:
        counts = [key >> (4 * r) & 15 for r in range(NUM_RANKS)]
        found = tuple(readings_of_counts(v, counts, len(cards)))
        flush = None
        if found and found[0].kind is Kind.STRAIGHT and Kind.STRAIGHT_FLUSH in v.patterns:
            flush = found[0]._replace(kind=Kind.STRAIGHT_FLUSH)
        entry = _Entry(found, preferred(found) if found else None, flush)
        if len(memo) >= _CACHE_LIMIT:
            memo.clear()
        memo[key] = entry
    return entry


def _one_suit(cards: Sequence[int]) -> bool:
    suit = cards[0] & 3
    return all(c & 3 == suit for c in cards)


def readings(v: Variant, cards: Sequence[int]) -> list[Pattern]:
    """Every reading of ``cards`` in the game, no-kicker readings first; [] for none.

    Raises :class:`CardsNotInDeck` for cards the deck cannot hold.
    """
    entry = _entry(v, cards)
    if entry.flush is not None and _one_suit(cards):
        return [entry.flush]
    return list(entry.readings)


def readings_of_counts(v: Variant, counts: list[int], n: int) -> list[Pattern]:
    """The readings of a play of ``n`` cards with these rank counts, suits aside (a straight
    is listed as a straight even where its suits would make it a straight flush)."""
    if n == 0:
        return []
    patterns = v.patterns
    distinct = [r for r in range(NUM_RANKS) if counts[r]]
    if len(distinct) == 1:
        return _same_rank(v, distinct[0], n)
    rocket = v.rocket_counts
    if (
        rocket is not None
        and n == rocket[BLACK_JOKER] + rocket[RED_JOKER]
        and counts[BLACK_JOKER:] == list(rocket[BLACK_JOKER:])
    ):
        return [rocket_pattern(v)] if Kind.ROCKET in patterns else []
    if n >= len(v.shapes_by_size):
        return []
    found: list[Pattern] = []
    for kind, k in v.shapes_by_size[n]:
        unit, chain, wings, wing_count = SHAPES[kind]
        if wings is Wings.NONE:
            # A plain chain (single ranks were read above): every rank `unit` times.
            if len(distinct) != k or any(counts[r] != unit for r in distinct):
                continue
            run = v.run_of.get(tuple(distinct))
            if run is None:
                continue
            found.append(Pattern(kind, run.top, k, n, run.low, run.order))
            continue
        if chain:
            bodies: Sequence[Run] = v.runs[k]
        else:
            bodies = [Run((r,), r, False, r) for r in distinct if counts[r] == unit]
        for body in bodies:
            if any(counts[r] != unit for r in body.ranks):
                continue
            rest = counts.copy()
            for r in body.ranks:
                rest[r] = 0
            if wings is Wings.PAIRS:
                pairs = [r for r in range(NUM_RANKS) if rest[r]]
                if len(pairs) != k * wing_count or any(rest[r] != 2 for r in pairs):
                    continue
                if rest[BLACK_JOKER] and rest[RED_JOKER]:
                    continue  # BJBJ + RJRJ as wings would split the heavenly bomb
            elif not _cards_wings_ok(v, rest):
                continue
            found.append(Pattern(kind, body.top, k, n, body.low, body.order))
    return found


def _cards_wings_ok(v: Variant, rest: list[int]) -> bool:
    """Kickers that are any cards: never a bomb, an AAA bomb, or every joker of the game."""
    bomb_min = v.bomb_min
    for r in range(SUITED_RANKS):
        if rest[r] >= bomb_min:
            return False
    if v.aaa_bomb and rest[ACE] >= 3:
        return False
    return not (v.jokers and rest[BLACK_JOKER] == v.decks and rest[RED_JOKER] == v.decks)


def _same_rank(v: Variant, rank: int, n: int) -> list[Pattern]:
    patterns = v.patterns
    if n == 1:
        return [Pattern(Kind.SINGLE, rank, 1, 1, False, rank)] if Kind.SINGLE in patterns else []
    is_bomb = v.bomb_min <= n <= v.bomb_max or (n == 3 and rank == ACE and v.aaa_bomb)
    if is_bomb and rank < BLACK_JOKER and Kind.BOMB in patterns:
        return [bomb_pattern(v, rank, n)]
    if n == 2 and Kind.PAIR in patterns:
        return [Pattern(Kind.PAIR, rank, 1, 2, False, rank)]
    if n == 3 and Kind.TRIPLE in patterns:
        return [Pattern(Kind.TRIPLE, rank, 1, 3, False, rank)]
    return []


def preferred(candidates: Sequence[Pattern]) -> Pattern:
    """The reading RULES.md §3 takes when none is named: the one without kickers if there is
    one, else the one with the highest key rank."""
    plain = [p for p in candidates if SHAPES[p.kind].wings is Wings.NONE]
    if plain:
        return plain[0]
    return max(candidates, key=lambda p: p.order)


def classify(
    v: Variant,
    cards: Sequence[int],
    reading: str | None = None,
    last: Pattern | None = None,
) -> Pattern:
    """The pattern ``cards`` are played as.

    ``reading`` (``"plane_single:6"``) names the intended reading of an ambiguous set;
    ``last`` is the pattern to beat, and picks the reading that beats it.  Raises
    :class:`NotAPattern` (with the reason), :class:`DoesNotBeat` or :class:`CardsNotInDeck`.
    """
    entry = _entry(v, cards)
    if entry.best is None:
        raise NotAPattern(_why_not(v, cards))
    if entry.flush is not None and _one_suit(cards):
        return entry.flush  # a straight flush has no other reading
    if reading is None and last is None:
        return entry.best
    found = list(entry.readings)
    if reading is not None:
        kind, rank = parse_reading(reading)
        found = [p for p in found if p.kind is kind and p.rank == rank]
        if not found:
            raise NotAPattern(f"{format_cards(cards)} cannot be read as {reading}")
    if last is not None:
        beating = [p for p in found if beats(p, last)]
        if not beating:
            raise DoesNotBeat(f"{format_cards(cards)} ({found[0]}) does not beat {last}")
        found = beating
    return preferred(found)


def _why_not(v: Variant, cards: Sequence[int]) -> str:
    text = format_cards(cards, " ")
    if not cards:
        return "no cards: a play needs at least one card"
    counts = [0] * NUM_RANKS
    for c in cards:
        counts[RANK_OF[c]] += 1
    if len([r for r in range(NUM_RANKS) if counts[r]]) == 1 and Kind.BOMB in v.patterns:
        n = len(cards)
        if n > v.bomb_max or (n >= 4 and RANK_OF[cards[0]] >= BLACK_JOKER):
            sizes = f"{v.bomb_min}–{v.bomb_max}"
            return f"{text} is not a pattern of {v.name} (its bombs have {sizes} cards)"
    return f"{text} is not a pattern of {v.name}"


def beats(play: Pattern, last: Pattern | None) -> bool:
    """Whether ``play`` may follow ``last`` (None: a lead, which anything may open).

    A rocket beats everything; a bomb beats every non-bomb and smaller bombs; otherwise the
    same kind and size with a strictly higher order — and a straight flush beats any plain
    straight of its length.
    """
    if last is None:
        return True
    pk, lk = play.kind, last.kind
    if pk is Kind.ROCKET:
        return lk is not Kind.ROCKET
    if lk is Kind.ROCKET:
        return False
    if pk is Kind.BOMB:
        return lk is not Kind.BOMB or play.order > last.order
    if lk is Kind.BOMB or play.size != last.size:
        return False
    if pk is lk:
        return play.order > last.order
    return pk is Kind.STRAIGHT_FLUSH and lk is Kind.STRAIGHT


# ------------------------------------------------------------------ the compiled core
#: The pure-Python classifier: the reference the compiled core is tested against.
pure_classify = classify


#: Which rules core answers classify, legal_plays and choose_play: "native" (the compiled
#: ``_native`` module, built by setup.py when a C compiler is present) or "pure".  The
#: environment switch CARDROOM_PURE=1 keeps the pure one (read once, at import).
def _load_native() -> ModuleType | None:
    if os.environ.get("CARDROOM_PURE", "").strip() not in ("", "0"):
        return None
    try:
        # By name: the compiled module has no source for import-linter to read.
        return importlib.import_module(f"{__package__}._native")
    except ImportError:  # not built: the pure core is complete
        return None


native_core = _load_native()
CORE = "pure" if native_core is None else "native"
if native_core is not None:
    classify = native_core.classify
