"""cardroom's rules library: cards, variants, patterns, legal moves (and, built on them, the
game state machine).  Pure: no gRPC, SQL, logging framework, clock or global randomness.

Its modules form one order, each importing only those before it (import-linter checks it):
errors, cards, kinds, variants, patterns, moves, scoring, room, deal, actions, codec, state,
views, policies, game, record.

    from services import rules
    v = rules.variant("doudizhu3")
    hand = rules.parse_cards("3s 3h 3d 4c BJ RJ")
    rules.classify(v, rules.parse_cards("3s3h3d4c"))   # a Pattern; raises rules.NotAPattern
    plays = rules.legal_plays(v, hand, last=())        # plays, each with .cards and .pattern
    ids = rules.legal_ids(v, hand)                     # the same moves as ints, no Play made
    rules.play_from_id(v, ids[0]) == plays[0]          # an id back to its Play
"""

from .actions import (
    Action,
    Bid,
    Event,
    EventType,
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
from .codec import action_from_dict, action_to_dict
from .deal import (
    DealSpec,
    ExplicitDeal,
    SeedDeal,
    deal_commitment,
    deal_from_seed,
    first_bidder,
    redeal_seed,
)
from .errors import CardsNotInDeck, DoesNotBeat, NotAPattern, RecordError, RulesError
from .game import apply, autoplay_out, deal_events, legal_actions, new_game
from .kinds import Kind, Wings
from .moves import count_plays, legal_ids, legal_plays, play_from_id
from .patterns import CORE, Pattern, Play, beats, classify, parse_reading, preferred, readings
from .policies import auto_bid, autoplay_action, autoplay_move, choose_play, hint
from .record import Record, ReplayError, initial_state, load_record, replay
from .room import (
    MAX_SCORE,
    ROOM_FIELDS,
    TABLE_FIELDS,
    Room,
    SkillSettings,
    TableSettings,
    check_room,
    max_stake,
)
from .scoring import BombRecord, Factor, Settlement, Step, title_for
from .state import GameState, Phase, Status, write_record
from .variants import (
    ALIASES,
    MAX_FACTOR,
    RULES_VERSION,
    RULES_VERSIONS,
    VARIANTS,
    Variant,
    VariantError,
    variant,
)
from .views import SeatView, may_see, project, public_view, seat_view, visible_to

__all__ = [
    "ALIASES",
    "CARDS",
    "CORE",
    "MAX_FACTOR",
    "MAX_SCORE",
    "RANK_NAMES",
    "ROOM_FIELDS",
    "RULES_VERSION",
    "RULES_VERSIONS",
    "SUIT_NAMES",
    "TABLE_FIELDS",
    "VARIANTS",
    "Action",
    "Bid",
    "BombRecord",
    "Card",
    "CardParseError",
    "CardsNotInDeck",
    "DealSpec",
    "DoesNotBeat",
    "Event",
    "EventType",
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
    "SkillSettings",
    "Status",
    "Step",
    "TableSettings",
    "Timeout",
    "Variant",
    "VariantError",
    "Wings",
    "action_from_dict",
    "action_to_dict",
    "apply",
    "auto_bid",
    "autoplay_action",
    "autoplay_move",
    "autoplay_out",
    "beats",
    "check_room",
    "choose_play",
    "classify",
    "count_plays",
    "deal_commitment",
    "deal_events",
    "deal_from_seed",
    "first_bidder",
    "format_cards",
    "hint",
    "initial_state",
    "legal_actions",
    "legal_ids",
    "legal_plays",
    "load_record",
    "max_stake",
    "may_see",
    "new_game",
    "parse_cards",
    "parse_reading",
    "play_from_id",
    "preferred",
    "project",
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
    "visible_to",
    "write_record",
]
