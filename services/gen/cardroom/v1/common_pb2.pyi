import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Cause(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CAUSE_UNSPECIFIED: _ClassVar[Cause]
    CAUSE_PLAYER: _ClassVar[Cause]
    CAUSE_TIMEOUT: _ClassVar[Cause]
    CAUSE_AUTOPLAY: _ClassVar[Cause]
    CAUSE_BOT: _ClassVar[Cause]
    CAUSE_DISCONNECT: _ClassVar[Cause]

class Visibility(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VISIBILITY_UNSPECIFIED: _ClassVar[Visibility]
    VISIBILITY_PUBLIC: _ClassVar[Visibility]
    VISIBILITY_SEAT: _ClassVar[Visibility]
    VISIBILITY_AUDITOR: _ClassVar[Visibility]

class GameStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAME_STATUS_UNSPECIFIED: _ClassVar[GameStatus]
    GAME_STATUS_RUNNING: _ClassVar[GameStatus]
    GAME_STATUS_FINISHED: _ClassVar[GameStatus]
    GAME_STATUS_ESCAPED: _ClassVar[GameStatus]
    GAME_STATUS_DISBANDED: _ClassVar[GameStatus]
    GAME_STATUS_REDEAL: _ClassVar[GameStatus]
CAUSE_UNSPECIFIED: Cause
CAUSE_PLAYER: Cause
CAUSE_TIMEOUT: Cause
CAUSE_AUTOPLAY: Cause
CAUSE_BOT: Cause
CAUSE_DISCONNECT: Cause
VISIBILITY_UNSPECIFIED: Visibility
VISIBILITY_PUBLIC: Visibility
VISIBILITY_SEAT: Visibility
VISIBILITY_AUDITOR: Visibility
GAME_STATUS_UNSPECIFIED: GameStatus
GAME_STATUS_RUNNING: GameStatus
GAME_STATUS_FINISHED: GameStatus
GAME_STATUS_ESCAPED: GameStatus
GAME_STATUS_DISBANDED: GameStatus
GAME_STATUS_REDEAL: GameStatus

class EventEnvelope(_message.Message):
    __slots__ = ("game_id", "seq", "server_time", "actor", "cause", "turn_deadline", "visibility", "seat")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    SERVER_TIME_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    CAUSE_FIELD_NUMBER: _ClassVar[int]
    TURN_DEADLINE_FIELD_NUMBER: _ClassVar[int]
    VISIBILITY_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seq: int
    server_time: _timestamp_pb2.Timestamp
    actor: str
    cause: Cause
    turn_deadline: _timestamp_pb2.Timestamp
    visibility: Visibility
    seat: int
    def __init__(self, game_id: _Optional[str] = ..., seq: _Optional[int] = ..., server_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., actor: _Optional[str] = ..., cause: _Optional[_Union[Cause, str]] = ..., turn_deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., visibility: _Optional[_Union[Visibility, str]] = ..., seat: _Optional[int] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("envelope", "type", "data_json", "game_header", "deal", "bid", "landlord", "bottom", "show_hand", "play", "new_trick", "autoplay", "leave", "redeal", "game_over")
    ENVELOPE_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    GAME_HEADER_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    PASS_FIELD_NUMBER: _ClassVar[int]
    LANDLORD_FIELD_NUMBER: _ClassVar[int]
    BOTTOM_FIELD_NUMBER: _ClassVar[int]
    SHOW_HAND_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    NEW_TRICK_FIELD_NUMBER: _ClassVar[int]
    AUTOPLAY_FIELD_NUMBER: _ClassVar[int]
    LEAVE_FIELD_NUMBER: _ClassVar[int]
    REDEAL_FIELD_NUMBER: _ClassVar[int]
    GAME_OVER_FIELD_NUMBER: _ClassVar[int]
    envelope: EventEnvelope
    type: str
    data_json: str
    game_header: GameHeaderEvent
    deal: DealEvent
    bid: BidEvent
    landlord: LandlordEvent
    bottom: BottomEvent
    show_hand: ShowHandEvent
    play: PlayEvent
    new_trick: NewTrickEvent
    autoplay: AutoplayEvent
    leave: LeaveEvent
    redeal: RedealEvent
    game_over: GameOverEvent
    def __init__(self, envelope: _Optional[_Union[EventEnvelope, _Mapping]] = ..., type: _Optional[str] = ..., data_json: _Optional[str] = ..., game_header: _Optional[_Union[GameHeaderEvent, _Mapping]] = ..., deal: _Optional[_Union[DealEvent, _Mapping]] = ..., bid: _Optional[_Union[BidEvent, _Mapping]] = ..., landlord: _Optional[_Union[LandlordEvent, _Mapping]] = ..., bottom: _Optional[_Union[BottomEvent, _Mapping]] = ..., show_hand: _Optional[_Union[ShowHandEvent, _Mapping]] = ..., play: _Optional[_Union[PlayEvent, _Mapping]] = ..., new_trick: _Optional[_Union[NewTrickEvent, _Mapping]] = ..., autoplay: _Optional[_Union[AutoplayEvent, _Mapping]] = ..., leave: _Optional[_Union[LeaveEvent, _Mapping]] = ..., redeal: _Optional[_Union[RedealEvent, _Mapping]] = ..., game_over: _Optional[_Union[GameOverEvent, _Mapping]] = ..., **kwargs) -> None: ...

class GameHeaderEvent(_message.Message):
    __slots__ = ("game_id", "variant", "rules_version", "room", "first_bidder", "seed", "hands", "players", "table_id", "game_no")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    ROOM_FIELD_NUMBER: _ClassVar[int]
    FIRST_BIDDER_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_NO_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    variant: str
    rules_version: int
    room: Room
    first_bidder: int
    seed: str
    hands: HeaderHands
    players: _containers.RepeatedScalarFieldContainer[str]
    table_id: str
    game_no: int
    def __init__(self, game_id: _Optional[str] = ..., variant: _Optional[str] = ..., rules_version: _Optional[int] = ..., room: _Optional[_Union[Room, _Mapping]] = ..., first_bidder: _Optional[int] = ..., seed: _Optional[str] = ..., hands: _Optional[_Union[HeaderHands, _Mapping]] = ..., players: _Optional[_Iterable[str]] = ..., table_id: _Optional[str] = ..., game_no: _Optional[int] = ...) -> None: ...

class HeaderHands(_message.Message):
    __slots__ = ("hands", "bottom", "opener")
    HANDS_FIELD_NUMBER: _ClassVar[int]
    BOTTOM_FIELD_NUMBER: _ClassVar[int]
    OPENER_FIELD_NUMBER: _ClassVar[int]
    hands: _containers.RepeatedScalarFieldContainer[str]
    bottom: str
    opener: int
    def __init__(self, hands: _Optional[_Iterable[str]] = ..., bottom: _Optional[str] = ..., opener: _Optional[int] = ...) -> None: ...

class DealEvent(_message.Message):
    __slots__ = ("hand", "deal_no", "counts", "bottom_count", "first_bidder", "opener", "commitment")
    HAND_FIELD_NUMBER: _ClassVar[int]
    DEAL_NO_FIELD_NUMBER: _ClassVar[int]
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    BOTTOM_COUNT_FIELD_NUMBER: _ClassVar[int]
    FIRST_BIDDER_FIELD_NUMBER: _ClassVar[int]
    OPENER_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    hand: str
    deal_no: int
    counts: _containers.RepeatedScalarFieldContainer[int]
    bottom_count: int
    first_bidder: int
    opener: int
    commitment: str
    def __init__(self, hand: _Optional[str] = ..., deal_no: _Optional[int] = ..., counts: _Optional[_Iterable[int]] = ..., bottom_count: _Optional[int] = ..., first_bidder: _Optional[int] = ..., opener: _Optional[int] = ..., commitment: _Optional[str] = ...) -> None: ...

class BidEvent(_message.Message):
    __slots__ = ("seat", "amount")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    amount: int
    def __init__(self, seat: _Optional[int] = ..., amount: _Optional[int] = ...) -> None: ...

class PassEvent(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class LandlordEvent(_message.Message):
    __slots__ = ("seat", "bid", "bottom")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    BOTTOM_FIELD_NUMBER: _ClassVar[int]
    seat: int
    bid: int
    bottom: str
    def __init__(self, seat: _Optional[int] = ..., bid: _Optional[int] = ..., bottom: _Optional[str] = ...) -> None: ...

class BottomEvent(_message.Message):
    __slots__ = ("seat", "bottom")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BOTTOM_FIELD_NUMBER: _ClassVar[int]
    seat: int
    bottom: str
    def __init__(self, seat: _Optional[int] = ..., bottom: _Optional[str] = ...) -> None: ...

class ShowHandEvent(_message.Message):
    __slots__ = ("seat", "hand")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    seat: int
    hand: str
    def __init__(self, seat: _Optional[int] = ..., hand: _Optional[str] = ...) -> None: ...

class PlayEvent(_message.Message):
    __slots__ = ("seat", "cards", "pattern", "left")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    LEFT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: str
    pattern: str
    left: int
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[str] = ..., pattern: _Optional[str] = ..., left: _Optional[int] = ...) -> None: ...

class NewTrickEvent(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class AutoplayEvent(_message.Message):
    __slots__ = ("seat", "on")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ON_FIELD_NUMBER: _ClassVar[int]
    seat: int
    on: bool
    def __init__(self, seat: _Optional[int] = ..., on: _Optional[bool] = ...) -> None: ...

class LeaveEvent(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class RedealEvent(_message.Message):
    __slots__ = ("deal_no",)
    DEAL_NO_FIELD_NUMBER: _ClassVar[int]
    deal_no: int
    def __init__(self, deal_no: _Optional[int] = ...) -> None: ...

class GameOverEvent(_message.Message):
    __slots__ = ("settlement", "seed")
    SETTLEMENT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    settlement: Settlement
    seed: str
    def __init__(self, settlement: _Optional[_Union[Settlement, _Mapping]] = ..., seed: _Optional[str] = ...) -> None: ...

class Room(_message.Message):
    __slots__ = ("stake", "max_multiplier", "escape_multiplier", "overrides_json")
    STAKE_FIELD_NUMBER: _ClassVar[int]
    MAX_MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    ESCAPE_MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    OVERRIDES_JSON_FIELD_NUMBER: _ClassVar[int]
    stake: int
    max_multiplier: int
    escape_multiplier: int
    overrides_json: str
    def __init__(self, stake: _Optional[int] = ..., max_multiplier: _Optional[int] = ..., escape_multiplier: _Optional[int] = ..., overrides_json: _Optional[str] = ...) -> None: ...

class Factor(_message.Message):
    __slots__ = ("name", "value", "detail")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    name: str
    value: int
    detail: str
    def __init__(self, name: _Optional[str] = ..., value: _Optional[int] = ..., detail: _Optional[str] = ...) -> None: ...

class SettlementStep(_message.Message):
    __slots__ = ("name", "value", "how")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    HOW_FIELD_NUMBER: _ClassVar[int]
    name: str
    value: int
    how: str
    def __init__(self, name: _Optional[str] = ..., value: _Optional[int] = ..., how: _Optional[str] = ...) -> None: ...

class Settlement(_message.Message):
    __slots__ = ("status", "scores", "stake", "landlord", "winner", "escaper", "bid", "base", "factors", "multiplier_before_cap", "multiplier", "steps", "settlement_json", "variant", "family", "max_multiplier", "escape_multiplier", "bombs")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    STAKE_FIELD_NUMBER: _ClassVar[int]
    LANDLORD_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    ESCAPER_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    BASE_FIELD_NUMBER: _ClassVar[int]
    FACTORS_FIELD_NUMBER: _ClassVar[int]
    MULTIPLIER_BEFORE_CAP_FIELD_NUMBER: _ClassVar[int]
    MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    SETTLEMENT_JSON_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    MAX_MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    ESCAPE_MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    BOMBS_FIELD_NUMBER: _ClassVar[int]
    status: GameStatus
    scores: _containers.RepeatedScalarFieldContainer[int]
    stake: int
    landlord: int
    winner: int
    escaper: int
    bid: int
    base: int
    factors: _containers.RepeatedCompositeFieldContainer[Factor]
    multiplier_before_cap: int
    multiplier: int
    steps: _containers.RepeatedCompositeFieldContainer[SettlementStep]
    settlement_json: str
    variant: str
    family: str
    max_multiplier: int
    escape_multiplier: int
    bombs: _containers.RepeatedCompositeFieldContainer[SettlementBomb]
    def __init__(self, status: _Optional[_Union[GameStatus, str]] = ..., scores: _Optional[_Iterable[int]] = ..., stake: _Optional[int] = ..., landlord: _Optional[int] = ..., winner: _Optional[int] = ..., escaper: _Optional[int] = ..., bid: _Optional[int] = ..., base: _Optional[int] = ..., factors: _Optional[_Iterable[_Union[Factor, _Mapping]]] = ..., multiplier_before_cap: _Optional[int] = ..., multiplier: _Optional[int] = ..., steps: _Optional[_Iterable[_Union[SettlementStep, _Mapping]]] = ..., settlement_json: _Optional[str] = ..., variant: _Optional[str] = ..., family: _Optional[str] = ..., max_multiplier: _Optional[int] = ..., escape_multiplier: _Optional[int] = ..., bombs: _Optional[_Iterable[_Union[SettlementBomb, _Mapping]]] = ...) -> None: ...

class SettlementBomb(_message.Message):
    __slots__ = ("seat", "kind", "size", "rank", "led")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    LED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: str
    size: int
    rank: str
    led: bool
    def __init__(self, seat: _Optional[int] = ..., kind: _Optional[str] = ..., size: _Optional[int] = ..., rank: _Optional[str] = ..., led: _Optional[bool] = ...) -> None: ...
