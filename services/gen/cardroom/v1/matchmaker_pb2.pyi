import datetime

from cardroom.v1 import common_pb2 as _common_pb2
from cardroom.v1 import engine_pb2 as _engine_pb2
from cardroom.v1 import replay_pb2 as _replay_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TicketState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TICKET_STATE_UNSPECIFIED: _ClassVar[TicketState]
    TICKET_STATE_QUEUED: _ClassVar[TicketState]
    TICKET_STATE_SEATED: _ClassVar[TicketState]
    TICKET_STATE_CANCELLED: _ClassVar[TicketState]
    TICKET_STATE_EXPIRED: _ClassVar[TicketState]

class TableState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TABLE_STATE_UNSPECIFIED: _ClassVar[TableState]
    TABLE_STATE_WAITING: _ClassVar[TableState]
    TABLE_STATE_PLAYING: _ClassVar[TableState]
    TABLE_STATE_CLOSED: _ClassVar[TableState]
TICKET_STATE_UNSPECIFIED: TicketState
TICKET_STATE_QUEUED: TicketState
TICKET_STATE_SEATED: TicketState
TICKET_STATE_CANCELLED: TicketState
TICKET_STATE_EXPIRED: TicketState
TABLE_STATE_UNSPECIFIED: TableState
TABLE_STATE_WAITING: TableState
TABLE_STATE_PLAYING: TableState
TABLE_STATE_CLOSED: TableState

class Timers(_message.Message):
    __slots__ = ("bid_ms", "turn_ms", "start_ms", "grace_ms", "bot_think_ms")
    BID_MS_FIELD_NUMBER: _ClassVar[int]
    TURN_MS_FIELD_NUMBER: _ClassVar[int]
    START_MS_FIELD_NUMBER: _ClassVar[int]
    GRACE_MS_FIELD_NUMBER: _ClassVar[int]
    BOT_THINK_MS_FIELD_NUMBER: _ClassVar[int]
    bid_ms: int
    turn_ms: int
    start_ms: int
    grace_ms: int
    bot_think_ms: int
    def __init__(self, bid_ms: _Optional[int] = ..., turn_ms: _Optional[int] = ..., start_ms: _Optional[int] = ..., grace_ms: _Optional[int] = ..., bot_think_ms: _Optional[int] = ...) -> None: ...

class EnqueueRequest(_message.Message):
    __slots__ = ("player_id", "variant", "room", "bot_fill_after_ms", "bot_level", "party", "private_code", "timers", "request_id")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    ROOM_FIELD_NUMBER: _ClassVar[int]
    BOT_FILL_AFTER_MS_FIELD_NUMBER: _ClassVar[int]
    BOT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    PARTY_FIELD_NUMBER: _ClassVar[int]
    PRIVATE_CODE_FIELD_NUMBER: _ClassVar[int]
    TIMERS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    variant: str
    room: _common_pb2.Room
    bot_fill_after_ms: int
    bot_level: str
    party: _containers.RepeatedScalarFieldContainer[str]
    private_code: str
    timers: Timers
    request_id: str
    def __init__(self, player_id: _Optional[str] = ..., variant: _Optional[str] = ..., room: _Optional[_Union[_common_pb2.Room, _Mapping]] = ..., bot_fill_after_ms: _Optional[int] = ..., bot_level: _Optional[str] = ..., party: _Optional[_Iterable[str]] = ..., private_code: _Optional[str] = ..., timers: _Optional[_Union[Timers, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class Ticket(_message.Message):
    __slots__ = ("ticket_id", "player_id", "party", "variant", "state", "table_id", "created_at", "expires_at", "seats")
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    PARTY_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    player_id: str
    party: _containers.RepeatedScalarFieldContainer[str]
    variant: str
    state: TicketState
    table_id: str
    created_at: _timestamp_pb2.Timestamp
    expires_at: _timestamp_pb2.Timestamp
    seats: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, ticket_id: _Optional[str] = ..., player_id: _Optional[str] = ..., party: _Optional[_Iterable[str]] = ..., variant: _Optional[str] = ..., state: _Optional[_Union[TicketState, str]] = ..., table_id: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., seats: _Optional[_Iterable[int]] = ...) -> None: ...

class GetTicketRequest(_message.Message):
    __slots__ = ("ticket_id",)
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    def __init__(self, ticket_id: _Optional[str] = ...) -> None: ...

class CancelTicketRequest(_message.Message):
    __slots__ = ("ticket_id",)
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    def __init__(self, ticket_id: _Optional[str] = ...) -> None: ...

class Seat(_message.Message):
    __slots__ = ("seat", "player_id", "bot", "ready", "connected", "autoplay", "total", "last_action")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    READY_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    AUTOPLAY_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    LAST_ACTION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_id: str
    bot: bool
    ready: bool
    connected: bool
    autoplay: bool
    total: int
    last_action: str
    def __init__(self, seat: _Optional[int] = ..., player_id: _Optional[str] = ..., bot: _Optional[bool] = ..., ready: _Optional[bool] = ..., connected: _Optional[bool] = ..., autoplay: _Optional[bool] = ..., total: _Optional[int] = ..., last_action: _Optional[str] = ...) -> None: ...

class TableEvent(_message.Message):
    __slots__ = ("table_id", "seq", "at", "type", "data_json", "game_event", "seated", "bot_joined", "ready", "connected", "reconnected", "disconnected", "game_started", "deadline", "game_over", "series", "player_left", "table_closed")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    GAME_EVENT_FIELD_NUMBER: _ClassVar[int]
    SEATED_FIELD_NUMBER: _ClassVar[int]
    BOT_JOINED_FIELD_NUMBER: _ClassVar[int]
    READY_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    RECONNECTED_FIELD_NUMBER: _ClassVar[int]
    DISCONNECTED_FIELD_NUMBER: _ClassVar[int]
    GAME_STARTED_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    GAME_OVER_FIELD_NUMBER: _ClassVar[int]
    SERIES_FIELD_NUMBER: _ClassVar[int]
    PLAYER_LEFT_FIELD_NUMBER: _ClassVar[int]
    TABLE_CLOSED_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    seq: int
    at: _timestamp_pb2.Timestamp
    type: str
    data_json: str
    game_event: _common_pb2.Event
    seated: SeatedEvent
    bot_joined: SeatedEvent
    ready: SeatEvent
    connected: SeatEvent
    reconnected: SeatEvent
    disconnected: DisconnectedEvent
    game_started: GameStartedEvent
    deadline: DeadlineEvent
    game_over: TableGameOverEvent
    series: SeriesEvent
    player_left: PlayerLeftEvent
    table_closed: TableClosedEvent
    def __init__(self, table_id: _Optional[str] = ..., seq: _Optional[int] = ..., at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., type: _Optional[str] = ..., data_json: _Optional[str] = ..., game_event: _Optional[_Union[_common_pb2.Event, _Mapping]] = ..., seated: _Optional[_Union[SeatedEvent, _Mapping]] = ..., bot_joined: _Optional[_Union[SeatedEvent, _Mapping]] = ..., ready: _Optional[_Union[SeatEvent, _Mapping]] = ..., connected: _Optional[_Union[SeatEvent, _Mapping]] = ..., reconnected: _Optional[_Union[SeatEvent, _Mapping]] = ..., disconnected: _Optional[_Union[DisconnectedEvent, _Mapping]] = ..., game_started: _Optional[_Union[GameStartedEvent, _Mapping]] = ..., deadline: _Optional[_Union[DeadlineEvent, _Mapping]] = ..., game_over: _Optional[_Union[TableGameOverEvent, _Mapping]] = ..., series: _Optional[_Union[SeriesEvent, _Mapping]] = ..., player_left: _Optional[_Union[PlayerLeftEvent, _Mapping]] = ..., table_closed: _Optional[_Union[TableClosedEvent, _Mapping]] = ...) -> None: ...

class SeatedEvent(_message.Message):
    __slots__ = ("seat", "player_id", "bot")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_id: str
    bot: bool
    def __init__(self, seat: _Optional[int] = ..., player_id: _Optional[str] = ..., bot: _Optional[bool] = ...) -> None: ...

class SeatEvent(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class DisconnectedEvent(_message.Message):
    __slots__ = ("seat", "grace_ms")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    GRACE_MS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    grace_ms: int
    def __init__(self, seat: _Optional[int] = ..., grace_ms: _Optional[int] = ...) -> None: ...

class GameStartedEvent(_message.Message):
    __slots__ = ("game_id", "game_no", "players")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_NO_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    game_no: int
    players: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, game_id: _Optional[str] = ..., game_no: _Optional[int] = ..., players: _Optional[_Iterable[str]] = ...) -> None: ...

class DeadlineEvent(_message.Message):
    __slots__ = ("seat", "kind", "deadline_ms")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: str
    deadline_ms: int
    def __init__(self, seat: _Optional[int] = ..., kind: _Optional[str] = ..., deadline_ms: _Optional[int] = ...) -> None: ...

class TableGameOverEvent(_message.Message):
    __slots__ = ("game_id", "game_no", "scores", "settlement", "hands")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_NO_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    SETTLEMENT_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    game_no: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    settlement: _common_pb2.Settlement
    hands: _containers.RepeatedCompositeFieldContainer[SeatCards]
    def __init__(self, game_id: _Optional[str] = ..., game_no: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., settlement: _Optional[_Union[_common_pb2.Settlement, _Mapping]] = ..., hands: _Optional[_Iterable[_Union[SeatCards, _Mapping]]] = ...) -> None: ...

class SeatCards(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class SeriesEvent(_message.Message):
    __slots__ = ("games", "totals")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    games: int
    totals: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, games: _Optional[int] = ..., totals: _Optional[_Iterable[int]] = ...) -> None: ...

class PlayerLeftEvent(_message.Message):
    __slots__ = ("seat", "player_id", "why")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    WHY_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_id: str
    why: str
    def __init__(self, seat: _Optional[int] = ..., player_id: _Optional[str] = ..., why: _Optional[str] = ...) -> None: ...

class TableClosedEvent(_message.Message):
    __slots__ = ("games",)
    GAMES_FIELD_NUMBER: _ClassVar[int]
    games: int
    def __init__(self, games: _Optional[int] = ...) -> None: ...

class TableEventBatch(_message.Message):
    __slots__ = ("events",)
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[TableEvent]
    def __init__(self, events: _Optional[_Iterable[_Union[TableEvent, _Mapping]]] = ...) -> None: ...

class SubscribeRequest(_message.Message):
    __slots__ = ("table_id", "player_id", "after_seq")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    player_id: str
    after_seq: int
    def __init__(self, table_id: _Optional[str] = ..., player_id: _Optional[str] = ..., after_seq: _Optional[int] = ...) -> None: ...

class GetTableRequest(_message.Message):
    __slots__ = ("table_id", "player_id")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    player_id: str
    def __init__(self, table_id: _Optional[str] = ..., player_id: _Optional[str] = ...) -> None: ...

class TableSnapshot(_message.Message):
    __slots__ = ("table_id", "variant", "state", "seq", "seats", "seat", "game_id", "game_no", "view", "deadline", "deadline_kind", "last_scores", "last_settlement_json", "room", "last_settlement")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_NO_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_KIND_FIELD_NUMBER: _ClassVar[int]
    LAST_SCORES_FIELD_NUMBER: _ClassVar[int]
    LAST_SETTLEMENT_JSON_FIELD_NUMBER: _ClassVar[int]
    ROOM_FIELD_NUMBER: _ClassVar[int]
    LAST_SETTLEMENT_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    variant: str
    state: TableState
    seq: int
    seats: _containers.RepeatedCompositeFieldContainer[Seat]
    seat: int
    game_id: str
    game_no: int
    view: _engine_pb2.View
    deadline: _timestamp_pb2.Timestamp
    deadline_kind: str
    last_scores: _containers.RepeatedScalarFieldContainer[int]
    last_settlement_json: str
    room: _common_pb2.Room
    last_settlement: _common_pb2.Settlement
    def __init__(self, table_id: _Optional[str] = ..., variant: _Optional[str] = ..., state: _Optional[_Union[TableState, str]] = ..., seq: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[Seat, _Mapping]]] = ..., seat: _Optional[int] = ..., game_id: _Optional[str] = ..., game_no: _Optional[int] = ..., view: _Optional[_Union[_engine_pb2.View, _Mapping]] = ..., deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., deadline_kind: _Optional[str] = ..., last_scores: _Optional[_Iterable[int]] = ..., last_settlement_json: _Optional[str] = ..., room: _Optional[_Union[_common_pb2.Room, _Mapping]] = ..., last_settlement: _Optional[_Union[_common_pb2.Settlement, _Mapping]] = ...) -> None: ...

class ReadyRequest(_message.Message):
    __slots__ = ("table_id", "player_id")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    player_id: str
    def __init__(self, table_id: _Optional[str] = ..., player_id: _Optional[str] = ...) -> None: ...

class ActRequest(_message.Message):
    __slots__ = ("table_id", "player_id", "action", "request_id", "expected_seq")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_SEQ_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    player_id: str
    action: _engine_pb2.Action
    request_id: str
    expected_seq: int
    def __init__(self, table_id: _Optional[str] = ..., player_id: _Optional[str] = ..., action: _Optional[_Union[_engine_pb2.Action, _Mapping]] = ..., request_id: _Optional[str] = ..., expected_seq: _Optional[int] = ...) -> None: ...

class ActResponse(_message.Message):
    __slots__ = ("seq", "events", "view", "game_over", "settlement")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    GAME_OVER_FIELD_NUMBER: _ClassVar[int]
    SETTLEMENT_FIELD_NUMBER: _ClassVar[int]
    seq: int
    events: _containers.RepeatedCompositeFieldContainer[TableEvent]
    view: _engine_pb2.View
    game_over: bool
    settlement: _common_pb2.Settlement
    def __init__(self, seq: _Optional[int] = ..., events: _Optional[_Iterable[_Union[TableEvent, _Mapping]]] = ..., view: _Optional[_Union[_engine_pb2.View, _Mapping]] = ..., game_over: _Optional[bool] = ..., settlement: _Optional[_Union[_common_pb2.Settlement, _Mapping]] = ...) -> None: ...

class HintRequest(_message.Message):
    __slots__ = ("table_id", "player_id")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    player_id: str
    def __init__(self, table_id: _Optional[str] = ..., player_id: _Optional[str] = ...) -> None: ...

class LeaveTableRequest(_message.Message):
    __slots__ = ("table_id", "player_id")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    player_id: str
    def __init__(self, table_id: _Optional[str] = ..., player_id: _Optional[str] = ...) -> None: ...

class GetPlayerRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class PlayerInfo(_message.Message):
    __slots__ = ("player_id", "last_game_id", "last_score", "totals", "title", "ticket_id", "table_id", "ratings", "last_rating_change")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    LAST_GAME_ID_FIELD_NUMBER: _ClassVar[int]
    LAST_SCORE_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    RATINGS_FIELD_NUMBER: _ClassVar[int]
    LAST_RATING_CHANGE_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    last_game_id: str
    last_score: int
    totals: _containers.RepeatedCompositeFieldContainer[_replay_pb2.FamilyTotal]
    title: _replay_pb2.PlayerTitle
    ticket_id: str
    table_id: str
    ratings: _containers.RepeatedCompositeFieldContainer[PlayerRating]
    last_rating_change: _replay_pb2.RatingChange
    def __init__(self, player_id: _Optional[str] = ..., last_game_id: _Optional[str] = ..., last_score: _Optional[int] = ..., totals: _Optional[_Iterable[_Union[_replay_pb2.FamilyTotal, _Mapping]]] = ..., title: _Optional[_Union[_replay_pb2.PlayerTitle, _Mapping]] = ..., ticket_id: _Optional[str] = ..., table_id: _Optional[str] = ..., ratings: _Optional[_Iterable[_Union[PlayerRating, _Mapping]]] = ..., last_rating_change: _Optional[_Union[_replay_pb2.RatingChange, _Mapping]] = ...) -> None: ...

class PlayerRating(_message.Message):
    __slots__ = ("player_id", "variant", "mu", "sigma", "display", "provisional", "games", "rank")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_FIELD_NUMBER: _ClassVar[int]
    PROVISIONAL_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    variant: str
    mu: float
    sigma: float
    display: int
    provisional: bool
    games: int
    rank: int
    def __init__(self, player_id: _Optional[str] = ..., variant: _Optional[str] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., display: _Optional[int] = ..., provisional: _Optional[bool] = ..., games: _Optional[int] = ..., rank: _Optional[int] = ...) -> None: ...

class ListLeaderboardRequest(_message.Message):
    __slots__ = ("variant", "page_size", "page_token")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    variant: str
    page_size: int
    page_token: str
    def __init__(self, variant: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListLeaderboardResponse(_message.Message):
    __slots__ = ("entries", "next_page_token")
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[PlayerRating]
    next_page_token: str
    def __init__(self, entries: _Optional[_Iterable[_Union[PlayerRating, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ListTablesRequest(_message.Message):
    __slots__ = ("variant", "state", "page_size")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    variant: str
    state: TableState
    page_size: int
    def __init__(self, variant: _Optional[str] = ..., state: _Optional[_Union[TableState, str]] = ..., page_size: _Optional[int] = ...) -> None: ...

class TableSummary(_message.Message):
    __slots__ = ("table_id", "variant", "state", "seq", "game_no", "seats", "created_at")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    GAME_NO_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    variant: str
    state: TableState
    seq: int
    game_no: int
    seats: _containers.RepeatedCompositeFieldContainer[Seat]
    created_at: _timestamp_pb2.Timestamp
    def __init__(self, table_id: _Optional[str] = ..., variant: _Optional[str] = ..., state: _Optional[_Union[TableState, str]] = ..., seq: _Optional[int] = ..., game_no: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[Seat, _Mapping]]] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListTablesResponse(_message.Message):
    __slots__ = ("tables",)
    TABLES_FIELD_NUMBER: _ClassVar[int]
    tables: _containers.RepeatedCompositeFieldContainer[TableSummary]
    def __init__(self, tables: _Optional[_Iterable[_Union[TableSummary, _Mapping]]] = ...) -> None: ...

class GetStatusRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class StatusResponse(_message.Message):
    __slots__ = ("database_ok", "engine_ok", "replay_ok", "outbox_pending", "outbox_lag_s", "tables_running", "tickets_queued", "instance", "actions_applied")
    DATABASE_OK_FIELD_NUMBER: _ClassVar[int]
    ENGINE_OK_FIELD_NUMBER: _ClassVar[int]
    REPLAY_OK_FIELD_NUMBER: _ClassVar[int]
    OUTBOX_PENDING_FIELD_NUMBER: _ClassVar[int]
    OUTBOX_LAG_S_FIELD_NUMBER: _ClassVar[int]
    TABLES_RUNNING_FIELD_NUMBER: _ClassVar[int]
    TICKETS_QUEUED_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_APPLIED_FIELD_NUMBER: _ClassVar[int]
    database_ok: bool
    engine_ok: bool
    replay_ok: bool
    outbox_pending: int
    outbox_lag_s: float
    tables_running: int
    tickets_queued: int
    instance: str
    actions_applied: int
    def __init__(self, database_ok: _Optional[bool] = ..., engine_ok: _Optional[bool] = ..., replay_ok: _Optional[bool] = ..., outbox_pending: _Optional[int] = ..., outbox_lag_s: _Optional[float] = ..., tables_running: _Optional[int] = ..., tickets_queued: _Optional[int] = ..., instance: _Optional[str] = ..., actions_applied: _Optional[int] = ...) -> None: ...
