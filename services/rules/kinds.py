"""Pattern kinds (牌型) and the shape each one has.

A kind's shape is data: how many cards of each body rank (``unit``), whether the body is a
chain of consecutive ranks, and what kickers it carries.  The classifier and the move
generator read these shapes; which kinds a game allows, and the chain minimums, belong to
the variant (``variants.py``).
"""

from __future__ import annotations

import enum
from typing import Final, NamedTuple


class Kind(enum.StrEnum):
    SINGLE = "single"
    PAIR = "pair"
    TRIPLE = "triple"
    TRIPLE_SINGLE = "triple_single"  # 三带一: triple + 1 card
    TRIPLE_PAIR = "triple_pair"  # 三带二: triple + a pair
    TRIPLE_TWO = "triple_two"  # zsy1 三带二: triple + any 2 cards
    STRAIGHT = "straight"  # 顺子
    STRAIGHT_FLUSH = "straight_flush"  # 同花顺
    PAIR_CHAIN = "pair_chain"  # 连对
    TRIPLE_CHAIN = "triple_chain"  # 三顺 (plane without wings)
    PLANE_SINGLE = "plane_single"  # triple chain of k + k cards
    PLANE_PAIR = "plane_pair"  # triple chain of k + k pairs
    PLANE_TWO = "plane_two"  # zsy1: triple chain of k + 2k cards
    FOUR_TWO = "four_two"  # 四带二: quad + 2 cards
    FOUR_PAIRS = "four_pairs"  # 四带两对: quad + 2 pairs
    BOMB = "bomb"
    ROCKET = "rocket"


class Wings(enum.StrEnum):
    NONE = "none"
    CARDS = "cards"  # any cards (a rank may repeat), never a bomb or all the jokers
    PAIRS = "pairs"  # pairs of distinct ranks


class Shape(NamedTuple):
    unit: int  # cards of each body rank
    chain: bool  # body ranks are consecutive (a run), length from the variant's minimum
    wings: Wings
    wing_count: int  # cards (CARDS) or pairs (PAIRS) per body rank


SHAPES: Final[dict[Kind, Shape]] = {
    Kind.SINGLE: Shape(1, False, Wings.NONE, 0),
    Kind.PAIR: Shape(2, False, Wings.NONE, 0),
    Kind.TRIPLE: Shape(3, False, Wings.NONE, 0),
    Kind.TRIPLE_SINGLE: Shape(3, False, Wings.CARDS, 1),
    Kind.TRIPLE_PAIR: Shape(3, False, Wings.PAIRS, 1),
    Kind.TRIPLE_TWO: Shape(3, False, Wings.CARDS, 2),
    Kind.STRAIGHT: Shape(1, True, Wings.NONE, 0),
    Kind.STRAIGHT_FLUSH: Shape(1, True, Wings.NONE, 0),
    Kind.PAIR_CHAIN: Shape(2, True, Wings.NONE, 0),
    Kind.TRIPLE_CHAIN: Shape(3, True, Wings.NONE, 0),
    Kind.PLANE_SINGLE: Shape(3, True, Wings.CARDS, 1),
    Kind.PLANE_PAIR: Shape(3, True, Wings.PAIRS, 1),
    Kind.PLANE_TWO: Shape(3, True, Wings.CARDS, 2),
    Kind.FOUR_TWO: Shape(4, False, Wings.CARDS, 2),
    Kind.FOUR_PAIRS: Shape(4, False, Wings.PAIRS, 2),
    # Bombs and rockets are read by their own rules (sizes and jokers come from the variant).
    Kind.BOMB: Shape(4, False, Wings.NONE, 0),
    Kind.ROCKET: Shape(1, False, Wings.NONE, 0),
}

#: Kinds that are "plain" shapes: classified and generated from SHAPES alone.
SHAPED_KINDS: Final = tuple(
    k for k in Kind if k not in (Kind.BOMB, Kind.ROCKET, Kind.STRAIGHT_FLUSH)
)

#: Bombs and rockets: the kinds that beat any other (``Pattern.is_bomb``).
BOMB_KINDS: Final = frozenset({Kind.BOMB, Kind.ROCKET})
