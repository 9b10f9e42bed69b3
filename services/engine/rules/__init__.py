"""cardroom's rules library: cards, variants, patterns, legal moves (and, built on them, the
game state machine).  Pure: no gRPC, SQL, logging framework, clock or global randomness.

    from services.engine import rules
    v = rules.variant("doudizhu3")
    hand = rules.parse_cards("3s 3h 3d 4c BJ RJ")
    rules.classify(v, rules.parse_cards("3s3h3d4c"))   # a Pattern; raises rules.NotAPattern
    plays = rules.legal_plays(v, hand, last=())        # plays, each with .cards and .pattern
"""

from .actions import (
    Action,
    Bid,
    IllegalAction,
    Leave,
    Pass,
    PlayCards,
    SetAutoplay,
    ShowHand,
    Timeout,
)
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
from .deal import deal_commitment, deal_from_seed, first_bidder, redeal_seed
from .errors import CardsNotInDeck, DoesNotBeat, NotAPattern, RulesError
from .game import (
    Event,
    ExplicitDeal,
    GameState,
    Phase,
    SeedDeal,
    Status,
    apply,
    deal_events,
    legal_actions,
    new_game,
)
from .kinds import Kind, Wings
from .moves import count_plays, legal_plays
from .patterns import Pattern, Play, beats, classify, parse_reading, preferred, readings
from .policies import auto_bid, autoplay_action, choose_play, hint
from .record import Record, RecordError, ReplayError, load_record, replay, write_record
from .room import Room
from .scoring import BombRecord, Factor, Settlement, Step, title_for
from .variants import ALIASES, RULES_VERSION, VARIANTS, Variant, VariantError, variant
from .views import SeatView, public_view, seat_view

__all__ = [
    "ALIASES",
    "CARDS",
    "RANK_NAMES",
    "RULES_VERSION",
    "SUIT_NAMES",
    "VARIANTS",
    "Action",
    "Bid",
    "BombRecord",
    "Card",
    "CardParseError",
    "CardsNotInDeck",
    "DoesNotBeat",
    "Event",
    "ExplicitDeal",
    "Factor",
    "GameState",
    "IllegalAction",
    "Kind",
    "Leave",
    "NotAPattern",
    "Pass",
    "Pattern",
    "Phase",
    "Play",
    "PlayCards",
    "Record",
    "RecordError",
    "ReplayError",
    "Room",
    "RulesError",
    "SeatView",
    "SeedDeal",
    "SetAutoplay",
    "Settlement",
    "ShowHand",
    "Status",
    "Step",
    "Timeout",
    "Variant",
    "VariantError",
    "Wings",
    "apply",
    "auto_bid",
    "autoplay_action",
    "beats",
    "choose_play",
    "classify",
    "count_plays",
    "deal_commitment",
    "deal_events",
    "deal_from_seed",
    "first_bidder",
    "format_cards",
    "hint",
    "legal_actions",
    "legal_plays",
    "load_record",
    "new_game",
    "parse_cards",
    "parse_reading",
    "preferred",
    "public_view",
    "rank_counts",
    "readings",
    "redeal_seed",
    "replay",
    "seat_view",
    "sort_by_count",
    "sort_by_rank",
    "title_for",
    "variant",
    "write_record",
]
