from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PingRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PingResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListVariantsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListVariantsResponse(_message.Message):
    __slots__ = ("variants",)
    VARIANTS_FIELD_NUMBER: _ClassVar[int]
    variants: _containers.RepeatedCompositeFieldContainer[Variant]
    def __init__(self, variants: _Optional[_Iterable[_Union[Variant, _Mapping]]] = ...) -> None: ...

class BombFactor(_message.Message):
    __slots__ = ("size", "factor")
    SIZE_FIELD_NUMBER: _ClassVar[int]
    FACTOR_FIELD_NUMBER: _ClassVar[int]
    size: int
    factor: int
    def __init__(self, size: _Optional[int] = ..., factor: _Optional[int] = ...) -> None: ...

class Variant(_message.Message):
    __slots__ = ("name", "family", "players", "decks", "jokers", "hand_size", "bottom_size", "bottom_public", "bidding", "opener", "landlord_share", "min_pair_chain", "chain_wraps_ace_two", "bomb_min", "bomb_max", "patterns", "min_straight", "min_triple_chain", "max_plane", "aaa_bomb", "aaa_bomb_highest", "first_lead_holds_spade_three", "bid_three_ends_bidding", "forced_bid", "forced_bid_bombs", "max_deals", "rotate_first_bidder", "show_hand_factor", "bomb_factors", "rocket_factor", "led_bombs_count", "spring_factor", "anti_spring_factor", "escape_base", "escape_card_factor", "start_timeout_s", "bid_timeout_s", "turn_timeout_s", "disconnect_grace_s", "choices", "aliases", "rules_version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    DECKS_FIELD_NUMBER: _ClassVar[int]
    JOKERS_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    BOTTOM_SIZE_FIELD_NUMBER: _ClassVar[int]
    BOTTOM_PUBLIC_FIELD_NUMBER: _ClassVar[int]
    BIDDING_FIELD_NUMBER: _ClassVar[int]
    OPENER_FIELD_NUMBER: _ClassVar[int]
    LANDLORD_SHARE_FIELD_NUMBER: _ClassVar[int]
    MIN_PAIR_CHAIN_FIELD_NUMBER: _ClassVar[int]
    CHAIN_WRAPS_ACE_TWO_FIELD_NUMBER: _ClassVar[int]
    BOMB_MIN_FIELD_NUMBER: _ClassVar[int]
    BOMB_MAX_FIELD_NUMBER: _ClassVar[int]
    PATTERNS_FIELD_NUMBER: _ClassVar[int]
    MIN_STRAIGHT_FIELD_NUMBER: _ClassVar[int]
    MIN_TRIPLE_CHAIN_FIELD_NUMBER: _ClassVar[int]
    MAX_PLANE_FIELD_NUMBER: _ClassVar[int]
    AAA_BOMB_FIELD_NUMBER: _ClassVar[int]
    AAA_BOMB_HIGHEST_FIELD_NUMBER: _ClassVar[int]
    FIRST_LEAD_HOLDS_SPADE_THREE_FIELD_NUMBER: _ClassVar[int]
    BID_THREE_ENDS_BIDDING_FIELD_NUMBER: _ClassVar[int]
    FORCED_BID_FIELD_NUMBER: _ClassVar[int]
    FORCED_BID_BOMBS_FIELD_NUMBER: _ClassVar[int]
    MAX_DEALS_FIELD_NUMBER: _ClassVar[int]
    ROTATE_FIRST_BIDDER_FIELD_NUMBER: _ClassVar[int]
    SHOW_HAND_FACTOR_FIELD_NUMBER: _ClassVar[int]
    BOMB_FACTORS_FIELD_NUMBER: _ClassVar[int]
    ROCKET_FACTOR_FIELD_NUMBER: _ClassVar[int]
    LED_BOMBS_COUNT_FIELD_NUMBER: _ClassVar[int]
    SPRING_FACTOR_FIELD_NUMBER: _ClassVar[int]
    ANTI_SPRING_FACTOR_FIELD_NUMBER: _ClassVar[int]
    ESCAPE_BASE_FIELD_NUMBER: _ClassVar[int]
    ESCAPE_CARD_FACTOR_FIELD_NUMBER: _ClassVar[int]
    START_TIMEOUT_S_FIELD_NUMBER: _ClassVar[int]
    BID_TIMEOUT_S_FIELD_NUMBER: _ClassVar[int]
    TURN_TIMEOUT_S_FIELD_NUMBER: _ClassVar[int]
    DISCONNECT_GRACE_S_FIELD_NUMBER: _ClassVar[int]
    CHOICES_FIELD_NUMBER: _ClassVar[int]
    ALIASES_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    family: str
    players: int
    decks: int
    jokers: bool
    hand_size: int
    bottom_size: int
    bottom_public: bool
    bidding: bool
    opener: str
    landlord_share: int
    min_pair_chain: int
    chain_wraps_ace_two: bool
    bomb_min: int
    bomb_max: int
    patterns: _containers.RepeatedScalarFieldContainer[str]
    min_straight: int
    min_triple_chain: int
    max_plane: int
    aaa_bomb: bool
    aaa_bomb_highest: bool
    first_lead_holds_spade_three: bool
    bid_three_ends_bidding: bool
    forced_bid: bool
    forced_bid_bombs: int
    max_deals: int
    rotate_first_bidder: bool
    show_hand_factor: int
    bomb_factors: _containers.RepeatedCompositeFieldContainer[BombFactor]
    rocket_factor: int
    led_bombs_count: bool
    spring_factor: int
    anti_spring_factor: int
    escape_base: int
    escape_card_factor: int
    start_timeout_s: int
    bid_timeout_s: int
    turn_timeout_s: int
    disconnect_grace_s: int
    choices: _containers.RepeatedScalarFieldContainer[str]
    aliases: _containers.RepeatedScalarFieldContainer[str]
    rules_version: int
    def __init__(self, name: _Optional[str] = ..., family: _Optional[str] = ..., players: _Optional[int] = ..., decks: _Optional[int] = ..., jokers: _Optional[bool] = ..., hand_size: _Optional[int] = ..., bottom_size: _Optional[int] = ..., bottom_public: _Optional[bool] = ..., bidding: _Optional[bool] = ..., opener: _Optional[str] = ..., landlord_share: _Optional[int] = ..., min_pair_chain: _Optional[int] = ..., chain_wraps_ace_two: _Optional[bool] = ..., bomb_min: _Optional[int] = ..., bomb_max: _Optional[int] = ..., patterns: _Optional[_Iterable[str]] = ..., min_straight: _Optional[int] = ..., min_triple_chain: _Optional[int] = ..., max_plane: _Optional[int] = ..., aaa_bomb: _Optional[bool] = ..., aaa_bomb_highest: _Optional[bool] = ..., first_lead_holds_spade_three: _Optional[bool] = ..., bid_three_ends_bidding: _Optional[bool] = ..., forced_bid: _Optional[bool] = ..., forced_bid_bombs: _Optional[int] = ..., max_deals: _Optional[int] = ..., rotate_first_bidder: _Optional[bool] = ..., show_hand_factor: _Optional[int] = ..., bomb_factors: _Optional[_Iterable[_Union[BombFactor, _Mapping]]] = ..., rocket_factor: _Optional[int] = ..., led_bombs_count: _Optional[bool] = ..., spring_factor: _Optional[int] = ..., anti_spring_factor: _Optional[int] = ..., escape_base: _Optional[int] = ..., escape_card_factor: _Optional[int] = ..., start_timeout_s: _Optional[int] = ..., bid_timeout_s: _Optional[int] = ..., turn_timeout_s: _Optional[int] = ..., disconnect_grace_s: _Optional[int] = ..., choices: _Optional[_Iterable[str]] = ..., aliases: _Optional[_Iterable[str]] = ..., rules_version: _Optional[int] = ...) -> None: ...

class Pattern(_message.Message):
    __slots__ = ("kind", "rank", "length", "size", "low", "wings", "reading")
    KIND_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    LOW_FIELD_NUMBER: _ClassVar[int]
    WINGS_FIELD_NUMBER: _ClassVar[int]
    READING_FIELD_NUMBER: _ClassVar[int]
    kind: str
    rank: str
    length: int
    size: int
    low: bool
    wings: str
    reading: str
    def __init__(self, kind: _Optional[str] = ..., rank: _Optional[str] = ..., length: _Optional[int] = ..., size: _Optional[int] = ..., low: _Optional[bool] = ..., wings: _Optional[str] = ..., reading: _Optional[str] = ...) -> None: ...

class ClassifyRequest(_message.Message):
    __slots__ = ("variant", "cards", "reading", "last", "overrides_json")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    READING_FIELD_NUMBER: _ClassVar[int]
    LAST_FIELD_NUMBER: _ClassVar[int]
    OVERRIDES_JSON_FIELD_NUMBER: _ClassVar[int]
    variant: str
    cards: str
    reading: str
    last: str
    overrides_json: str
    def __init__(self, variant: _Optional[str] = ..., cards: _Optional[str] = ..., reading: _Optional[str] = ..., last: _Optional[str] = ..., overrides_json: _Optional[str] = ...) -> None: ...

class ClassifyResponse(_message.Message):
    __slots__ = ("cards", "pattern")
    CARDS_FIELD_NUMBER: _ClassVar[int]
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    cards: str
    pattern: Pattern
    def __init__(self, cards: _Optional[str] = ..., pattern: _Optional[_Union[Pattern, _Mapping]] = ...) -> None: ...
