"""Helpers shared by the rules tests: a rank-only card notation for the seeds' examples, and
hypothesis strategies that deal hands from a variant's deck.

The seeds write plays by rank only (``333+47``).  :func:`cards` turns such text into real
cards, giving the copies of a rank different suits and rotating the suits from rank to rank,
so a run of singles is never accidentally one suit (which Zheng Shangyou would read as a
straight flush).  Suited notation (``3s4s5s6s7s``) goes through :func:`parse_cards` instead.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from hypothesis import strategies as st

from services import rules
from services.rules import Card, Play, Variant
from services.rules.cards import RANK_OF

VARIANT_NAMES = ("doudizhu3", "doudizhu4", "zhengshangyou1", "zhengshangyou2")

_RANK_CHARS = "3456789TJQKA2"


def cards(text: str) -> tuple[Card, ...]:
    """Cards for rank-only text: ``cards("333+47")``, ``cards("10 J Q K A")``, ``BJ``/``RJ``.

    Spaces and ``+`` are ignored.  The n-th copy of a rank gets suit (n + i) mod 4, where i
    counts the distinct ranks seen so far; so ``34567`` is s h c d s (a plain straight) and the
    eight 3s of a two-deck game use each suit twice.
    """
    out: list[Card] = []
    seen: dict[int, int] = {}
    i, text = 0, text.upper().replace("10", "T")
    while i < len(text):
        ch = text[i]
        if ch in " +":
            i += 1
            continue
        if text.startswith(("BJ", "RJ"), i):
            out.append(rules.CARDS[52 if ch == "B" else 53])
            i += 2
            continue
        rank = _RANK_CHARS.index(ch)  # ValueError on a typo in a test table: fail loudly
        if rank not in seen:
            seen[rank] = 0
        n = seen[rank]
        seen[rank] = n + 1
        suit = (n + list(seen).index(rank)) % 4
        out.append(rules.CARDS[rank * 4 + suit])
        i += 1
    return tuple(out)


def rank_key(play_cards: Sequence[int]) -> tuple[int, ...]:
    """The sorted ranks of some cards: a play's identity wherever suits do not matter."""
    return tuple(sorted(RANK_OF[c] for c in play_cards))


def play_identity(
    play_cards: Sequence[int], pattern: rules.Pattern
) -> tuple[tuple[int, ...], int | None]:
    """What makes two plays the same play (RULES.md: distinct up to suits, except straight
    flushes, where the suit is the point)."""
    suit = play_cards[0] & 3 if pattern.kind is rules.Kind.STRAIGHT_FLUSH else None
    return rank_key(play_cards), suit


# ------------------------------------------------------------------------ hypothesis


MODES = ("shaped", "clumpy", "uniform")  # hypothesis leans to the first


@st.composite
def deals(
    draw: st.DrawFn, v: Variant, sizes: Sequence[int], mode: str | None = None
) -> list[tuple[Card, ...]]:
    """Disjoint hands dealt from ``v.deck``, of at most the given sizes.

    A uniformly dealt small hand almost never holds a bomb, a plane or a set of cards with
    two readings, so most deals are not uniform:

    * ``clumpy``: the cards come from a few neighbouring ranks only — neighbours in the
      circular order 3 … A 2, so the A/2 runs of zhengshangyou2 appear — plus maybe the
      jokers;
    * ``shaped``: the first hand takes a chosen number of cards (often three) of each rank of
      such a window, plus a few cards from anywhere: chains of triples, planes and the
      ambiguous 333444555666 live here.

    Either may also keep to one or two suits, so straight flushes (and runs that can only be
    played as one) turn up.
    """
    deck = v.deck
    if mode is None:
        mode = draw(st.sampled_from(MODES))
    if mode == "uniform":
        order = draw(st.permutations(deck))
        return _split(order, sizes)
    start = draw(st.integers(0, 12))
    width = 6 - draw(st.integers(0, 5) if mode == "clumpy" else st.integers(0, 3))
    window = [(start + i) % 13 for i in range(width)]
    suits = {0, 1, 2, 3}
    if draw(st.integers(0, 3)) == 3:
        suits = set(draw(st.lists(st.integers(0, 3), min_size=1, max_size=2, unique=True)))
    in_window = [c for c in deck if RANK_OF[c] in window and c & 3 in suits]
    if v.jokers and draw(st.booleans()):
        window += [13, 14]
        in_window += [c for c in deck if c >= 52]
    in_window = list(draw(st.permutations(in_window)))
    if mode == "clumpy":
        return _split(in_window, sizes)
    first: list[int] = []
    for r in window:
        of_rank = [c for c in in_window if RANK_OF[c] == r]
        first += of_rank[: draw(st.sampled_from((3, 3, 2, 3, 1, 4, 0, 5)))]
    extra = draw(st.permutations(_minus(list(deck), first)))
    first += extra[: draw(st.integers(0, 3))]
    first = list(draw(st.permutations(first)))[: sizes[0]] if sizes else []
    # The other hands: what is left of the window first (so they can answer), then the rest.
    near = _minus(in_window, first)
    far = draw(st.permutations(_minus(_minus(list(deck), first), near)))
    return [tuple(sorted(rules.CARDS[c] for c in first)), *_split(near + far, sizes[1:])]


def _minus(cards: list[int], taken: list[int]) -> list[int]:
    """``cards`` without one copy of each card in ``taken`` (a multiset difference)."""
    left = Counter(taken)
    out = []
    for c in cards:
        if left[c]:
            left[c] -= 1
        else:
            out.append(c)
    return out


def _split(order: Sequence[int], sizes: Sequence[int]) -> list[tuple[Card, ...]]:
    hands: list[tuple[Card, ...]] = []
    at = 0
    for size in sizes:
        picked = order[at : at + size]
        at += len(picked)
        hands.append(tuple(sorted(rules.CARDS[c] for c in picked)))
    return hands


@st.composite
def positions(
    draw: st.DrawFn, v: Variant, max_hand: int, lead: bool | None = None
) -> tuple[tuple[Card, ...], Play | None]:
    """A hand of up to ``max_hand`` cards and the play to beat (None for a lead).

    The play to beat is usually one of the legal leads of another hand dealt from the same
    deck, so it is a real play of the game, in any of its readings.  Sometimes it is a lead
    of the hand itself: then the hand holds plays of exactly the same pattern, which must
    not beat it (with two decks that happens at the table: 3333 against 3333).
    """
    # Full-size hands half the time, since they are where the interesting plays are.
    size = draw(st.just(max_hand) | st.integers(1, max_hand))
    other_max = max(max_hand, 8)
    other_size = draw(st.just(other_max) | st.integers(1, other_max))
    hand, other = draw(deals(v, (size, other_size)))
    source = "lead" if lead else draw(st.sampled_from(["other", "own", "other", "lead"]))
    if lead is False and source == "lead":
        source = "other"
    source = "own" if source == "other" and not other else source
    if source == "lead":
        return hand, None
    leads = rules.legal_plays(v, other if source == "other" else hand)
    if not leads:  # an empty hand (a shaped deal may take no card)
        return hand, None
    # Kind first, so a plane or a straight flush is as likely as one of the many singles;
    # then often the lowest of that kind, which leaves the hand the most ways to beat it.
    kinds = sorted({p.pattern.kind for p in leads})
    kind = draw(st.sampled_from(kinds))
    of_kind = sorted((p for p in leads if p.pattern.kind is kind), key=lambda p: p.pattern.order)
    if draw(st.booleans()):
        return hand, of_kind[0]
    return hand, of_kind[draw(st.integers(0, len(of_kind) - 1))]


@st.composite
def rival_planes(draw: st.DrawFn, v: Variant) -> tuple[tuple[Card, ...], int]:
    """A hand holding k+1 consecutive triples (from 4 up, so a plane from 3 is below all of
    them) and other cards, and k: with card wings the hand can make planes of k triples
    whose cards have two readings (444555666777 is 4–6 + 777 and 5–7 + 444), the case where
    generators list a play twice or pick the wrong reading.  The other cards sometimes hold
    three or four of one rank, or every joker, to try wings that would split a bomb, zsy1's
    AAA or the rocket."""
    longest = v.max_plane or 5
    k = draw(st.integers(2, longest))
    start = draw(st.integers(1, 11 - k))  # the k+1 triples stay within 4..A
    chain = range(start, start + k + 1)
    body = list(draw(st.permutations([c for c in v.deck if RANK_OF[c] in chain])))
    triples: list[int] = []
    for r in chain:
        triples += [c for c in body if RANK_OF[c] == r][:3]
    rest = [c for c in _minus(list(v.deck), triples) if RANK_OF[c] not in chain]
    extra = list(draw(st.permutations(rest)))[: draw(st.integers(0, 2 * k))]
    # Sometimes three or more of one rank (often the aces), or every joker, among the rest.
    heavy = draw(st.sampled_from(("none", "aces", "jokers", "any")))
    heavy_ranks = {"none": [], "aces": [11], "jokers": [13, 14]}.get(heavy)
    if heavy_ranks is None:
        heavy_ranks = [draw(st.integers(0, 14))]
    for r in heavy_ranks:
        if r not in chain:
            of_rank = _minus([c for c in rest if RANK_OF[c] == r], extra)
            extra += of_rank[: draw(st.integers(2, 4))]
    return tuple(sorted(rules.CARDS[c] for c in [*triples, *extra])), k


def lowest_plane(v: Variant, kind: rules.Kind, k: int) -> rules.Pattern:
    """The plane of k triples 3… with wings from the top ranks down: the lowest pattern of
    its kind and length."""
    ids = [r * 4 + s for r in range(k) for s in range(3)]
    if kind is rules.Kind.PLANE_PAIR:
        ids += [(12 - i) * 4 + s for i in range(k) for s in range(2)]
    else:
        ids += [(12 - i) * 4 for i in range((2 if kind is rules.Kind.PLANE_TWO else 1) * k)]
    return rules.classify(
        v, [rules.CARDS[c] for c in ids], reading=f"{kind.value}:{rules.RANK_NAMES[k - 1]}"
    )


@st.composite
def suited_positions(
    draw: st.DrawFn, v: Variant, max_hand: int
) -> tuple[tuple[Card, ...], Play | None]:
    """A hand of up to ``max_hand`` cards of one or two suits over a window of five to seven
    neighbouring ranks, and a lead (often a straight or straight flush) to beat, or None.
    Here runs that can only be played as a straight flush, or both ways, are common."""
    start = draw(st.integers(0, 12))
    window = {(start + i) % 13 for i in range(draw(st.integers(5, 7)))}
    n_suits = draw(st.sampled_from((2, 1, 2)))
    suits = set(draw(st.lists(st.integers(0, 3), min_size=n_suits, max_size=n_suits, unique=True)))
    pool = [c for c in v.deck if c < 52 and RANK_OF[c] in window and c & 3 in suits]
    pool = list(draw(st.permutations(pool)))
    size = draw(st.just(max_hand) | st.integers(5, max_hand))
    hand = tuple(sorted(rules.CARDS[c] for c in pool[:size]))
    source = draw(st.sampled_from(["own", "other", "lead"]))
    if source == "lead":
        return hand, None
    leads = rules.legal_plays(v, hand if source == "own" else pool[len(hand) :])
    # A plain straight first when there is one: a flush of the hand must answer it.
    for kind in (rules.Kind.STRAIGHT, rules.Kind.STRAIGHT_FLUSH, None):
        choice = [p for p in leads if kind is None or p.pattern.kind is kind]
        if choice and (kind is None or draw(st.integers(0, 3)) > 0):
            return hand, choice[draw(st.integers(0, len(choice) - 1))]
    return hand, None
