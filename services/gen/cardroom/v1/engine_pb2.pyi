import datetime

from cardroom.v1 import common_pb2 as _common_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PHASE_UNSPECIFIED: _ClassVar[Phase]
    PHASE_BIDDING: _ClassVar[Phase]
    PHASE_SHOW_HAND: _ClassVar[Phase]
    PHASE_PLAY: _ClassVar[Phase]
    PHASE_OVER: _ClassVar[Phase]
PHASE_UNSPECIFIED: Phase
PHASE_BIDDING: Phase
PHASE_SHOW_HAND: Phase
PHASE_PLAY: Phase
PHASE_OVER: Phase

class GameToken(_message.Message):
    __slots__ = ("game_id", "seq", "token")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seq: int
    token: bytes
    def __init__(self, game_id: _Optional[str] = ..., seq: _Optional[int] = ..., token: _Optional[bytes] = ...) -> None: ...

class PlayCards(_message.Message):
    __slots__ = ("cards", "reading")
    CARDS_FIELD_NUMBER: _ClassVar[int]
    READING_FIELD_NUMBER: _ClassVar[int]
    cards: str
    reading: str
    def __init__(self, cards: _Optional[str] = ..., reading: _Optional[str] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("seat", "bid", "play", "show_hand", "leave", "autoplay", "timeout")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    PASS_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    SHOW_HAND_FIELD_NUMBER: _ClassVar[int]
    LEAVE_FIELD_NUMBER: _ClassVar[int]
    AUTOPLAY_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    bid: int
    play: PlayCards
    show_hand: bool
    leave: bool
    autoplay: bool
    timeout: bool
    def __init__(self, seat: _Optional[int] = ..., bid: _Optional[int] = ..., play: _Optional[_Union[PlayCards, _Mapping]] = ..., show_hand: _Optional[bool] = ..., leave: _Optional[bool] = ..., autoplay: _Optional[bool] = ..., timeout: _Optional[bool] = ..., **kwargs) -> None: ...

class ExplicitDeal(_message.Message):
    __slots__ = ("hands", "bottom", "opener")
    HANDS_FIELD_NUMBER: _ClassVar[int]
    BOTTOM_FIELD_NUMBER: _ClassVar[int]
    OPENER_FIELD_NUMBER: _ClassVar[int]
    hands: _containers.RepeatedScalarFieldContainer[str]
    bottom: str
    opener: int
    def __init__(self, hands: _Optional[_Iterable[str]] = ..., bottom: _Optional[str] = ..., opener: _Optional[int] = ...) -> None: ...

class Deal(_message.Message):
    __slots__ = ("seed", "explicit")
    SEED_FIELD_NUMBER: _ClassVar[int]
    EXPLICIT_FIELD_NUMBER: _ClassVar[int]
    seed: str
    explicit: ExplicitDeal
    def __init__(self, seed: _Optional[str] = ..., explicit: _Optional[_Union[ExplicitDeal, _Mapping]] = ...) -> None: ...

class View(_message.Message):
    __slots__ = ("variant", "seat", "phase", "status", "turn", "counts", "hand", "landlord", "bottom", "last_play", "last_pattern", "last_seat", "bid", "shown_hand", "view_json", "deal_no", "first_bidder", "opener", "bids", "history", "autoplay", "must_bid", "must_hold", "room", "settlement", "hands")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    LANDLORD_FIELD_NUMBER: _ClassVar[int]
    BOTTOM_FIELD_NUMBER: _ClassVar[int]
    LAST_PLAY_FIELD_NUMBER: _ClassVar[int]
    LAST_PATTERN_FIELD_NUMBER: _ClassVar[int]
    LAST_SEAT_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    SHOWN_HAND_FIELD_NUMBER: _ClassVar[int]
    VIEW_JSON_FIELD_NUMBER: _ClassVar[int]
    DEAL_NO_FIELD_NUMBER: _ClassVar[int]
    FIRST_BIDDER_FIELD_NUMBER: _ClassVar[int]
    OPENER_FIELD_NUMBER: _ClassVar[int]
    BIDS_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    AUTOPLAY_FIELD_NUMBER: _ClassVar[int]
    MUST_BID_FIELD_NUMBER: _ClassVar[int]
    MUST_HOLD_FIELD_NUMBER: _ClassVar[int]
    ROOM_FIELD_NUMBER: _ClassVar[int]
    SETTLEMENT_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    variant: str
    seat: int
    phase: Phase
    status: _common_pb2.GameStatus
    turn: int
    counts: _containers.RepeatedScalarFieldContainer[int]
    hand: str
    landlord: int
    bottom: str
    last_play: str
    last_pattern: str
    last_seat: int
    bid: int
    shown_hand: str
    view_json: str
    deal_no: int
    first_bidder: int
    opener: int
    bids: _containers.RepeatedCompositeFieldContainer[SeatBid]
    history: _containers.RepeatedCompositeFieldContainer[HistoryAction]
    autoplay: _containers.RepeatedScalarFieldContainer[bool]
    must_bid: bool
    must_hold: str
    room: _common_pb2.Room
    settlement: _common_pb2.Settlement
    hands: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, variant: _Optional[str] = ..., seat: _Optional[int] = ..., phase: _Optional[_Union[Phase, str]] = ..., status: _Optional[_Union[_common_pb2.GameStatus, str]] = ..., turn: _Optional[int] = ..., counts: _Optional[_Iterable[int]] = ..., hand: _Optional[str] = ..., landlord: _Optional[int] = ..., bottom: _Optional[str] = ..., last_play: _Optional[str] = ..., last_pattern: _Optional[str] = ..., last_seat: _Optional[int] = ..., bid: _Optional[int] = ..., shown_hand: _Optional[str] = ..., view_json: _Optional[str] = ..., deal_no: _Optional[int] = ..., first_bidder: _Optional[int] = ..., opener: _Optional[int] = ..., bids: _Optional[_Iterable[_Union[SeatBid, _Mapping]]] = ..., history: _Optional[_Iterable[_Union[HistoryAction, _Mapping]]] = ..., autoplay: _Optional[_Iterable[bool]] = ..., must_bid: _Optional[bool] = ..., must_hold: _Optional[str] = ..., room: _Optional[_Union[_common_pb2.Room, _Mapping]] = ..., settlement: _Optional[_Union[_common_pb2.Settlement, _Mapping]] = ..., hands: _Optional[_Iterable[str]] = ...) -> None: ...

class SeatBid(_message.Message):
    __slots__ = ("seat", "amount")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    amount: int
    def __init__(self, seat: _Optional[int] = ..., amount: _Optional[int] = ...) -> None: ...

class HistoryAction(_message.Message):
    __slots__ = ("action", "by")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    BY_FIELD_NUMBER: _ClassVar[int]
    action: Action
    by: str
    def __init__(self, action: _Optional[_Union[Action, _Mapping]] = ..., by: _Optional[str] = ...) -> None: ...

class NewGameRequest(_message.Message):
    __slots__ = ("variant", "room", "deal", "first_bidder", "game_id", "view_seat", "actor", "players", "table")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    ROOM_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    FIRST_BIDDER_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    VIEW_SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    variant: str
    room: _common_pb2.Room
    deal: Deal
    first_bidder: int
    game_id: str
    view_seat: int
    actor: str
    players: _containers.RepeatedScalarFieldContainer[str]
    table: TableRef
    def __init__(self, variant: _Optional[str] = ..., room: _Optional[_Union[_common_pb2.Room, _Mapping]] = ..., deal: _Optional[_Union[Deal, _Mapping]] = ..., first_bidder: _Optional[int] = ..., game_id: _Optional[str] = ..., view_seat: _Optional[int] = ..., actor: _Optional[str] = ..., players: _Optional[_Iterable[str]] = ..., table: _Optional[_Union[TableRef, _Mapping]] = ...) -> None: ...

class TableRef(_message.Message):
    __slots__ = ("id", "game_no")
    ID_FIELD_NUMBER: _ClassVar[int]
    GAME_NO_FIELD_NUMBER: _ClassVar[int]
    id: str
    game_no: int
    def __init__(self, id: _Optional[str] = ..., game_no: _Optional[int] = ...) -> None: ...

class NewGameResponse(_message.Message):
    __slots__ = ("state", "events", "public_view", "seat_view")
    STATE_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_VIEW_FIELD_NUMBER: _ClassVar[int]
    SEAT_VIEW_FIELD_NUMBER: _ClassVar[int]
    state: GameToken
    events: _containers.RepeatedCompositeFieldContainer[_common_pb2.Event]
    public_view: View
    seat_view: View
    def __init__(self, state: _Optional[_Union[GameToken, _Mapping]] = ..., events: _Optional[_Iterable[_Union[_common_pb2.Event, _Mapping]]] = ..., public_view: _Optional[_Union[View, _Mapping]] = ..., seat_view: _Optional[_Union[View, _Mapping]] = ...) -> None: ...

class ApplyRequest(_message.Message):
    __slots__ = ("state", "action", "view_seat", "actor", "cause", "turn_deadline", "history_delta", "public_history_delta", "run", "run_moves")
    STATE_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    VIEW_SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    CAUSE_FIELD_NUMBER: _ClassVar[int]
    TURN_DEADLINE_FIELD_NUMBER: _ClassVar[int]
    HISTORY_DELTA_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_HISTORY_DELTA_FIELD_NUMBER: _ClassVar[int]
    RUN_FIELD_NUMBER: _ClassVar[int]
    RUN_MOVES_FIELD_NUMBER: _ClassVar[int]
    state: GameToken
    action: Action
    view_seat: int
    actor: str
    cause: _common_pb2.Cause
    turn_deadline: _timestamp_pb2.Timestamp
    history_delta: bool
    public_history_delta: bool
    run: _containers.RepeatedCompositeFieldContainer[RunSeat]
    run_moves: int
    def __init__(self, state: _Optional[_Union[GameToken, _Mapping]] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., view_seat: _Optional[int] = ..., actor: _Optional[str] = ..., cause: _Optional[_Union[_common_pb2.Cause, str]] = ..., turn_deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., history_delta: _Optional[bool] = ..., public_history_delta: _Optional[bool] = ..., run: _Optional[_Iterable[_Union[RunSeat, _Mapping]]] = ..., run_moves: _Optional[int] = ...) -> None: ...

class RunSeat(_message.Message):
    __slots__ = ("seat", "bot", "actor", "cause")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    CAUSE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    bot: str
    actor: str
    cause: _common_pb2.Cause
    def __init__(self, seat: _Optional[int] = ..., bot: _Optional[str] = ..., actor: _Optional[str] = ..., cause: _Optional[_Union[_common_pb2.Cause, str]] = ...) -> None: ...

class ApplyResponse(_message.Message):
    __slots__ = ("state", "events", "public_view", "seat_view", "settlement", "game_over", "run_actions")
    STATE_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_VIEW_FIELD_NUMBER: _ClassVar[int]
    SEAT_VIEW_FIELD_NUMBER: _ClassVar[int]
    SETTLEMENT_FIELD_NUMBER: _ClassVar[int]
    GAME_OVER_FIELD_NUMBER: _ClassVar[int]
    RUN_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    state: GameToken
    events: _containers.RepeatedCompositeFieldContainer[_common_pb2.Event]
    public_view: View
    seat_view: View
    settlement: _common_pb2.Settlement
    game_over: bool
    run_actions: _containers.RepeatedCompositeFieldContainer[Action]
    def __init__(self, state: _Optional[_Union[GameToken, _Mapping]] = ..., events: _Optional[_Iterable[_Union[_common_pb2.Event, _Mapping]]] = ..., public_view: _Optional[_Union[View, _Mapping]] = ..., seat_view: _Optional[_Union[View, _Mapping]] = ..., settlement: _Optional[_Union[_common_pb2.Settlement, _Mapping]] = ..., game_over: _Optional[bool] = ..., run_actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ...) -> None: ...

class ApplyBatchRequest(_message.Message):
    __slots__ = ("requests",)
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    requests: _containers.RepeatedCompositeFieldContainer[ApplyRequest]
    def __init__(self, requests: _Optional[_Iterable[_Union[ApplyRequest, _Mapping]]] = ...) -> None: ...

class ApplyBatchResponse(_message.Message):
    __slots__ = ("results",)
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[ApplyResult]
    def __init__(self, results: _Optional[_Iterable[_Union[ApplyResult, _Mapping]]] = ...) -> None: ...

class ApplyResult(_message.Message):
    __slots__ = ("response", "refusal")
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_FIELD_NUMBER: _ClassVar[int]
    response: ApplyResponse
    refusal: Refusal
    def __init__(self, response: _Optional[_Union[ApplyResponse, _Mapping]] = ..., refusal: _Optional[_Union[Refusal, _Mapping]] = ...) -> None: ...

class Refusal(_message.Message):
    __slots__ = ("code", "reason", "message", "field")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    code: int
    reason: str
    message: str
    field: str
    def __init__(self, code: _Optional[int] = ..., reason: _Optional[str] = ..., message: _Optional[str] = ..., field: _Optional[str] = ...) -> None: ...

class ListLegalActionsRequest(_message.Message):
    __slots__ = ("state",)
    STATE_FIELD_NUMBER: _ClassVar[int]
    state: GameToken
    def __init__(self, state: _Optional[_Union[GameToken, _Mapping]] = ...) -> None: ...

class ListLegalActionsResponse(_message.Message):
    __slots__ = ("seat", "actions")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    actions: _containers.RepeatedCompositeFieldContainer[Action]
    def __init__(self, seat: _Optional[int] = ..., actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ...) -> None: ...

class GetHintRequest(_message.Message):
    __slots__ = ("state", "seat")
    STATE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    state: GameToken
    seat: int
    def __init__(self, state: _Optional[_Union[GameToken, _Mapping]] = ..., seat: _Optional[int] = ...) -> None: ...

class GetHintResponse(_message.Message):
    __slots__ = ("hint",)
    HINT_FIELD_NUMBER: _ClassVar[int]
    hint: Action
    def __init__(self, hint: _Optional[_Union[Action, _Mapping]] = ...) -> None: ...

class GetSeatViewRequest(_message.Message):
    __slots__ = ("state", "seat")
    STATE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    state: GameToken
    seat: int
    def __init__(self, state: _Optional[_Union[GameToken, _Mapping]] = ..., seat: _Optional[int] = ...) -> None: ...

class GetSeatViewResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: View
    def __init__(self, view: _Optional[_Union[View, _Mapping]] = ...) -> None: ...

class GameRecord(_message.Message):
    __slots__ = ("variant", "room", "deal", "first_bidder", "actions")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    ROOM_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    FIRST_BIDDER_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    variant: str
    room: _common_pb2.Room
    deal: Deal
    first_bidder: int
    actions: _containers.RepeatedCompositeFieldContainer[Action]
    def __init__(self, variant: _Optional[str] = ..., room: _Optional[_Union[_common_pb2.Room, _Mapping]] = ..., deal: _Optional[_Union[Deal, _Mapping]] = ..., first_bidder: _Optional[int] = ..., actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ...) -> None: ...

class SettleRequest(_message.Message):
    __slots__ = ("record_json", "structured")
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    STRUCTURED_FIELD_NUMBER: _ClassVar[int]
    record_json: str
    structured: GameRecord
    def __init__(self, record_json: _Optional[str] = ..., structured: _Optional[_Union[GameRecord, _Mapping]] = ...) -> None: ...

class SettleResponse(_message.Message):
    __slots__ = ("settlement", "final_view")
    SETTLEMENT_FIELD_NUMBER: _ClassVar[int]
    FINAL_VIEW_FIELD_NUMBER: _ClassVar[int]
    settlement: _common_pb2.Settlement
    final_view: View
    def __init__(self, settlement: _Optional[_Union[_common_pb2.Settlement, _Mapping]] = ..., final_view: _Optional[_Union[View, _Mapping]] = ...) -> None: ...

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
    __slots__ = ("name", "family", "players", "decks", "jokers", "hand_size", "bottom_size", "bottom_public", "bidding", "opener", "landlord_share", "min_pair_chain", "chain_wraps_ace_two", "bomb_min", "bomb_max", "patterns", "min_straight", "min_triple_chain", "max_plane", "aaa_bomb", "aaa_bomb_highest", "first_lead_holds_spade_three", "bid_three_ends_bidding", "forced_bid", "forced_bid_bombs", "max_deals", "rotate_first_bidder", "show_hand_factor", "bomb_factors", "rocket_factor", "led_bombs_count", "spring_factor", "anti_spring_factor", "escape_base", "escape_card_factor", "start_timeout_s", "bid_timeout_s", "turn_timeout_s", "disconnect_grace_s", "low_runs_may_end_at_three", "choices", "aliases", "rules_version")
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
    LOW_RUNS_MAY_END_AT_THREE_FIELD_NUMBER: _ClassVar[int]
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
    low_runs_may_end_at_three: bool
    choices: _containers.RepeatedScalarFieldContainer[str]
    aliases: _containers.RepeatedScalarFieldContainer[str]
    rules_version: int
    def __init__(self, name: _Optional[str] = ..., family: _Optional[str] = ..., players: _Optional[int] = ..., decks: _Optional[int] = ..., jokers: _Optional[bool] = ..., hand_size: _Optional[int] = ..., bottom_size: _Optional[int] = ..., bottom_public: _Optional[bool] = ..., bidding: _Optional[bool] = ..., opener: _Optional[str] = ..., landlord_share: _Optional[int] = ..., min_pair_chain: _Optional[int] = ..., chain_wraps_ace_two: _Optional[bool] = ..., bomb_min: _Optional[int] = ..., bomb_max: _Optional[int] = ..., patterns: _Optional[_Iterable[str]] = ..., min_straight: _Optional[int] = ..., min_triple_chain: _Optional[int] = ..., max_plane: _Optional[int] = ..., aaa_bomb: _Optional[bool] = ..., aaa_bomb_highest: _Optional[bool] = ..., first_lead_holds_spade_three: _Optional[bool] = ..., bid_three_ends_bidding: _Optional[bool] = ..., forced_bid: _Optional[bool] = ..., forced_bid_bombs: _Optional[int] = ..., max_deals: _Optional[int] = ..., rotate_first_bidder: _Optional[bool] = ..., show_hand_factor: _Optional[int] = ..., bomb_factors: _Optional[_Iterable[_Union[BombFactor, _Mapping]]] = ..., rocket_factor: _Optional[int] = ..., led_bombs_count: _Optional[bool] = ..., spring_factor: _Optional[int] = ..., anti_spring_factor: _Optional[int] = ..., escape_base: _Optional[int] = ..., escape_card_factor: _Optional[int] = ..., start_timeout_s: _Optional[int] = ..., bid_timeout_s: _Optional[int] = ..., turn_timeout_s: _Optional[int] = ..., disconnect_grace_s: _Optional[int] = ..., low_runs_may_end_at_three: _Optional[bool] = ..., choices: _Optional[_Iterable[str]] = ..., aliases: _Optional[_Iterable[str]] = ..., rules_version: _Optional[int] = ...) -> None: ...

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
