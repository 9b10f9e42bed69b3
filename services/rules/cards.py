"""Cards and their notation (RULES.md §1).

A card is a small int (0..53): ``rank * 4 + suit`` for the 52 suited cards, 52 for the black
joker and 53 for the red one.  So sorting cards sorts them by rank, then by suit in the order
s, h, c, d — the order auto-play and hints use within a rank.  :class:`Card` subclasses ``int``
so the rules can index tables with it directly; its text form round-trips:

>>> Card.parse("Th")
Card.parse('Th')
>>> format_cards(parse_cards("3s 3h 10d bj"))
'3s3hTdBJ'
>>> parse_cards("") == ()
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from .errors import Reason, RulesError

# Rank indices, low to high.  Chains and comparisons work on these ints.
RANK_NAMES: Final = ("3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2", "BJ", "RJ")
THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE, TWO = range(13)
BLACK_JOKER: Final = 13
RED_JOKER: Final = 14
NUM_RANKS: Final = 15
SUITED_RANKS: Final = 13  # the ranks 3..2, which have suits (and make chains and bombs)
JOKER_RANKS: Final = (BLACK_JOKER, RED_JOKER)

SUIT_NAMES: Final = ("s", "h", "c", "d")
SPADES, HEARTS, CLUBS, DIAMONDS = range(4)

_RANK_BY_NAME: Final = {name: i for i, name in enumerate(RANK_NAMES[:13])} | {"10": TEN}
_SUIT_BY_NAME: Final = {name: i for i, name in enumerate(SUIT_NAMES)}


class CardParseError(RulesError):
    """A card list could not be parsed; names the bad token and its position (0-based)."""

    reason = Reason.INVALID_CARDS

    def __init__(self, token: str, position: int, text: str) -> None:
        self.token = token
        self.position = position
        super().__init__(f"not a card: {token!r} at position {position} of {text!r}")


class Card(int):
    """One card.  Immutable; equal cards from two decks are equal values."""

    __slots__ = ()

    @property
    def rank(self) -> int:
        return RANK_OF[self]

    @property
    def suit(self) -> int | None:
        """0..3 for s, h, c, d; None for a joker."""
        return None if self >= 52 else self & 3

    @property
    def is_joker(self) -> bool:
        return self >= 52

    @staticmethod
    def parse(text: str) -> Card:
        cards = parse_cards(text)
        if len(cards) != 1:
            raise CardParseError(text, 0, text)
        return cards[0]

    def __str__(self) -> str:
        return CARD_NAMES[self]

    def __repr__(self) -> str:
        return f"Card.parse({CARD_NAMES[self]!r})"


def _card_name(card_id: int) -> str:
    if card_id == 52:
        return "BJ"
    if card_id == 53:
        return "RJ"
    return RANK_NAMES[card_id >> 2] + SUIT_NAMES[card_id & 3]


#: Every card value, indexed by its id: ``CARDS[0]`` is 3s, ``CARDS[53]`` is RJ.
#: The card ids of the jokers (every other id is rank * 4 + suit).
BLACK_JOKER_CARD: Final = SUITED_RANKS * 4
RED_JOKER_CARD: Final = BLACK_JOKER_CARD + 1
CARDS: Final = tuple(Card(i) for i in range(RED_JOKER_CARD + 1))
CARD_NAMES: Final = tuple(_card_name(i) for i in range(54))
RANK_OF: Final = tuple(min(i >> 2, 13) + (i == 53) for i in range(54))
JOKER_BLACK: Final = CARDS[52]
JOKER_RED: Final = CARDS[53]
SPADE_THREE: Final = CARDS[THREE * 4 + SPADES]


def card_of(rank: int, suit: int | None) -> Card:
    """The card of a rank and suit (suit ignored for jokers)."""
    if rank >= BLACK_JOKER:
        return CARDS[52 + rank - BLACK_JOKER]
    assert suit is not None
    return CARDS[rank * 4 + suit]


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse cards written spaced, run together or both (``3s 3h4d 10c BJ``), in that order.

    Suit letters, rank letters and joker names are case-insensitive; ``10`` is ``T``.
    Raises :class:`CardParseError` naming the first bad token and its position.
    """
    if not len(text) & 1:
        # format_cards' own form (two characters a card, nothing between), the one every
        # view, token and event holds: read by name, several times faster.  Anything else
        # (a KeyError) takes the general reading below, which gives the same cards.
        try:
            return tuple(map(_CARD_BY_NAME, [text[i : i + 2] for i in range(0, len(text), 2)]))
        except KeyError:
            pass
    return _parse_spelled(text)


def _parse_spelled(text: str) -> tuple[Card, ...]:
    cards: list[Card] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in " \t\n\r,":
            i += 1
            continue
        head = text[i : i + 2].upper()
        if head in ("BJ", "RJ"):
            cards.append(JOKER_BLACK if head == "BJ" else JOKER_RED)
            i += 2
            continue
        rank_len = 2 if text.startswith("10", i) else 1
        rank = _RANK_BY_NAME.get(text[i : i + rank_len].upper())
        suit = _SUIT_BY_NAME.get(text[i + rank_len : i + rank_len + 1].lower())
        if rank is None or suit is None:
            end = i
            while end < n and text[end] not in " \t\n\r,":
                end += 1
            token = text[i : max(end, i + 1)]
            raise CardParseError(token[:8], i, text)
        cards.append(CARDS[rank * 4 + suit])
        i += rank_len + 1
    return tuple(cards)


def format_cards(cards: Iterable[int], sep: str = "") -> str:
    """The notation of a card list, in the order given: ``format_cards(parse_cards(s))``
    is ``s`` normalised (``10`` as ``T``, upper-case ranks, lower-case suits)."""
    return sep.join(map(_CARD_NAME, cards))  # CARD_NAMES[c] per card; map is the fast form


_CARD_NAME: Final = CARD_NAMES.__getitem__
_CARD_BY_NAME: Final = dict(zip(CARD_NAMES, CARDS, strict=True)).__getitem__


def sort_by_rank(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Low to high by rank, suits s, h, c, d within a rank."""
    return tuple(sorted(cards))


def sort_by_count(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Singles first, then pairs, then triples, then bombs; each group low to high by rank
    (RULES.md §6, 数目排序)."""
    ordered = sorted(cards)
    counts = [0] * NUM_RANKS
    for c in ordered:
        counts[RANK_OF[c]] += 1
    # Four or more of a rank is a bomb in every game: one group, by rank (two decks give
    # bombs of 4 to 8 cards).
    return tuple(sorted(ordered, key=lambda c: (min(counts[RANK_OF[c]], 4), c)))


def rank_counts(cards: Iterable[int]) -> list[int]:
    """How many cards of each rank index (a list of 15 ints)."""
    counts = [0] * NUM_RANKS
    for c in cards:
        counts[RANK_OF[c]] += 1
    return counts
