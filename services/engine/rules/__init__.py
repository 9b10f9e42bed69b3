"""cardroom's rules library: cards, variants, patterns, legal moves (and, built on them, the
game state machine).  Pure: no gRPC, SQL, logging framework, clock or global randomness.

    from services.engine import rules
    v = rules.variant("doudizhu3")
    hand = rules.parse_cards("3s 3h 3d 4c BJ RJ")
    rules.classify(v, rules.parse_cards("3s3h3d4c"))   # a Pattern; raises rules.NotAPattern
    plays = rules.legal_plays(v, hand, last=())        # plays, each with .cards and .pattern
"""

from .cards import (
    CARDS,
    RANK_NAMES,
    SUIT_NAMES,
    Card,
    CardParseError,
    format_cards,
    parse_cards,
    rank_counts,
    sort_by_count,
    sort_by_rank,
)
from .errors import CardsNotInDeck, DoesNotBeat, NotAPattern, RulesError
from .kinds import Kind, Wings
from .moves import count_plays, legal_plays
from .patterns import Pattern, Play, beats, classify, parse_reading, preferred, readings
from .variants import ALIASES, RULES_VERSION, VARIANTS, Variant, VariantError, variant

__all__ = [
    "ALIASES",
    "CARDS",
    "RANK_NAMES",
    "RULES_VERSION",
    "SUIT_NAMES",
    "VARIANTS",
    "Card",
    "CardParseError",
    "CardsNotInDeck",
    "DoesNotBeat",
    "Kind",
    "NotAPattern",
    "Pattern",
    "Play",
    "RulesError",
    "Variant",
    "VariantError",
    "Wings",
    "beats",
    "classify",
    "count_plays",
    "format_cards",
    "legal_plays",
    "parse_cards",
    "parse_reading",
    "preferred",
    "rank_counts",
    "readings",
    "sort_by_count",
    "sort_by_rank",
    "variant",
]
