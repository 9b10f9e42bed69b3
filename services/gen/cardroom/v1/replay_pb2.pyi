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

class ReplayGameStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REPLAY_GAME_STATUS_UNSPECIFIED: _ClassVar[ReplayGameStatus]
    REPLAY_GAME_STATUS_RUNNING: _ClassVar[ReplayGameStatus]
    REPLAY_GAME_STATUS_FINISHED: _ClassVar[ReplayGameStatus]
    REPLAY_GAME_STATUS_ESCAPED: _ClassVar[ReplayGameStatus]
    REPLAY_GAME_STATUS_DISBANDED: _ClassVar[ReplayGameStatus]
    REPLAY_GAME_STATUS_REDEAL: _ClassVar[ReplayGameStatus]
REPLAY_GAME_STATUS_UNSPECIFIED: ReplayGameStatus
REPLAY_GAME_STATUS_RUNNING: ReplayGameStatus
REPLAY_GAME_STATUS_FINISHED: ReplayGameStatus
REPLAY_GAME_STATUS_ESCAPED: ReplayGameStatus
REPLAY_GAME_STATUS_DISBANDED: ReplayGameStatus
REPLAY_GAME_STATUS_REDEAL: ReplayGameStatus

class AppendEventsRequest(_message.Message):
    __slots__ = ("game_id", "expected_seq", "events", "request_id")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_SEQ_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    expected_seq: int
    events: _containers.RepeatedCompositeFieldContainer[_common_pb2.Event]
    request_id: str
    def __init__(self, game_id: _Optional[str] = ..., expected_seq: _Optional[int] = ..., events: _Optional[_Iterable[_Union[_common_pb2.Event, _Mapping]]] = ..., request_id: _Optional[str] = ...) -> None: ...

class AppendEventsResponse(_message.Message):
    __slots__ = ("first_seq", "last_seq", "head_hash", "replayed", "status")
    FIRST_SEQ_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    HEAD_HASH_FIELD_NUMBER: _ClassVar[int]
    REPLAYED_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    first_seq: int
    last_seq: int
    head_hash: bytes
    replayed: bool
    status: ReplayGameStatus
    def __init__(self, first_seq: _Optional[int] = ..., last_seq: _Optional[int] = ..., head_hash: _Optional[bytes] = ..., replayed: _Optional[bool] = ..., status: _Optional[_Union[ReplayGameStatus, str]] = ...) -> None: ...

class GameSummary(_message.Message):
    __slots__ = ("game_id", "variant", "rules_version", "status", "created_at", "ended_at", "head_seq", "head_hash", "players", "result_json", "scores")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    ENDED_AT_FIELD_NUMBER: _ClassVar[int]
    HEAD_SEQ_FIELD_NUMBER: _ClassVar[int]
    HEAD_HASH_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    RESULT_JSON_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    variant: str
    rules_version: int
    status: ReplayGameStatus
    created_at: _timestamp_pb2.Timestamp
    ended_at: _timestamp_pb2.Timestamp
    head_seq: int
    head_hash: bytes
    players: _containers.RepeatedScalarFieldContainer[str]
    result_json: str
    scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, game_id: _Optional[str] = ..., variant: _Optional[str] = ..., rules_version: _Optional[int] = ..., status: _Optional[_Union[ReplayGameStatus, str]] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., ended_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., head_seq: _Optional[int] = ..., head_hash: _Optional[bytes] = ..., players: _Optional[_Iterable[str]] = ..., result_json: _Optional[str] = ..., scores: _Optional[_Iterable[int]] = ...) -> None: ...

class GetGameRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class GetGameResponse(_message.Message):
    __slots__ = ("game", "header_json", "rating_changes")
    GAME_FIELD_NUMBER: _ClassVar[int]
    HEADER_JSON_FIELD_NUMBER: _ClassVar[int]
    RATING_CHANGES_FIELD_NUMBER: _ClassVar[int]
    game: GameSummary
    header_json: str
    rating_changes: _containers.RepeatedCompositeFieldContainer[RatingChange]
    def __init__(self, game: _Optional[_Union[GameSummary, _Mapping]] = ..., header_json: _Optional[str] = ..., rating_changes: _Optional[_Iterable[_Union[RatingChange, _Mapping]]] = ...) -> None: ...

class RatingChange(_message.Message):
    __slots__ = ("game_id", "variant", "mu_before", "sigma_before", "mu", "sigma", "display_before", "display", "seat", "player_id")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    MU_BEFORE_FIELD_NUMBER: _ClassVar[int]
    SIGMA_BEFORE_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_BEFORE_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    variant: str
    mu_before: float
    sigma_before: float
    mu: float
    sigma: float
    display_before: int
    display: int
    seat: int
    player_id: str
    def __init__(self, game_id: _Optional[str] = ..., variant: _Optional[str] = ..., mu_before: _Optional[float] = ..., sigma_before: _Optional[float] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., display_before: _Optional[int] = ..., display: _Optional[int] = ..., seat: _Optional[int] = ..., player_id: _Optional[str] = ...) -> None: ...

class StreamEventsRequest(_message.Message):
    __slots__ = ("game_id", "from_seq", "follow", "seat")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    FROM_SEQ_FIELD_NUMBER: _ClassVar[int]
    FOLLOW_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    from_seq: int
    follow: bool
    seat: int
    def __init__(self, game_id: _Optional[str] = ..., from_seq: _Optional[int] = ..., follow: _Optional[bool] = ..., seat: _Optional[int] = ...) -> None: ...

class StreamEventsResponse(_message.Message):
    __slots__ = ("event", "hash")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    HASH_FIELD_NUMBER: _ClassVar[int]
    event: _common_pb2.Event
    hash: bytes
    def __init__(self, event: _Optional[_Union[_common_pb2.Event, _Mapping]] = ..., hash: _Optional[bytes] = ...) -> None: ...

class ListGamesRequest(_message.Message):
    __slots__ = ("player_id", "variant", "status", "created_after", "created_before", "page_size", "page_token")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AFTER_FIELD_NUMBER: _ClassVar[int]
    CREATED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    variant: str
    status: ReplayGameStatus
    created_after: _timestamp_pb2.Timestamp
    created_before: _timestamp_pb2.Timestamp
    page_size: int
    page_token: str
    def __init__(self, player_id: _Optional[str] = ..., variant: _Optional[str] = ..., status: _Optional[_Union[ReplayGameStatus, str]] = ..., created_after: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., created_before: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games", "next_page_token")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[GameSummary]
    next_page_token: str
    def __init__(self, games: _Optional[_Iterable[_Union[GameSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ExportGameRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class ExportGameResponse(_message.Message):
    __slots__ = ("record_json", "head_hash")
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    HEAD_HASH_FIELD_NUMBER: _ClassVar[int]
    record_json: str
    head_hash: bytes
    def __init__(self, record_json: _Optional[str] = ..., head_hash: _Optional[bytes] = ...) -> None: ...

class ImportGameRequest(_message.Message):
    __slots__ = ("record_json", "game_id")
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    record_json: str
    game_id: str
    def __init__(self, record_json: _Optional[str] = ..., game_id: _Optional[str] = ...) -> None: ...

class ImportGameResponse(_message.Message):
    __slots__ = ("game", "verification", "replayed")
    GAME_FIELD_NUMBER: _ClassVar[int]
    VERIFICATION_FIELD_NUMBER: _ClassVar[int]
    REPLAYED_FIELD_NUMBER: _ClassVar[int]
    game: GameSummary
    verification: VerifyGameResponse
    replayed: bool
    def __init__(self, game: _Optional[_Union[GameSummary, _Mapping]] = ..., verification: _Optional[_Union[VerifyGameResponse, _Mapping]] = ..., replayed: _Optional[bool] = ...) -> None: ...

class VerifyGameRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class VerifyGameResponse(_message.Message):
    __slots__ = ("ok", "chain_ok", "replay_ok", "first_bad_seq", "reason", "detail", "events", "head_hash", "settlement_json")
    OK_FIELD_NUMBER: _ClassVar[int]
    CHAIN_OK_FIELD_NUMBER: _ClassVar[int]
    REPLAY_OK_FIELD_NUMBER: _ClassVar[int]
    FIRST_BAD_SEQ_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    HEAD_HASH_FIELD_NUMBER: _ClassVar[int]
    SETTLEMENT_JSON_FIELD_NUMBER: _ClassVar[int]
    ok: bool
    chain_ok: bool
    replay_ok: bool
    first_bad_seq: int
    reason: str
    detail: str
    events: int
    head_hash: bytes
    settlement_json: str
    def __init__(self, ok: _Optional[bool] = ..., chain_ok: _Optional[bool] = ..., replay_ok: _Optional[bool] = ..., first_bad_seq: _Optional[int] = ..., reason: _Optional[str] = ..., detail: _Optional[str] = ..., events: _Optional[int] = ..., head_hash: _Optional[bytes] = ..., settlement_json: _Optional[str] = ...) -> None: ...

class AuditEscapeRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class AuditBomb(_message.Message):
    __slots__ = ("seat", "kind", "size", "rank", "led", "factor", "detail")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    LED_FIELD_NUMBER: _ClassVar[int]
    FACTOR_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: str
    size: int
    rank: str
    led: bool
    factor: int
    detail: str
    def __init__(self, seat: _Optional[int] = ..., kind: _Optional[str] = ..., size: _Optional[int] = ..., rank: _Optional[str] = ..., led: _Optional[bool] = ..., factor: _Optional[int] = ..., detail: _Optional[str] = ...) -> None: ...

class AuditStep(_message.Message):
    __slots__ = ("name", "recomputed", "recomputed_how", "recorded", "recorded_how", "matches")
    NAME_FIELD_NUMBER: _ClassVar[int]
    RECOMPUTED_FIELD_NUMBER: _ClassVar[int]
    RECOMPUTED_HOW_FIELD_NUMBER: _ClassVar[int]
    RECORDED_FIELD_NUMBER: _ClassVar[int]
    RECORDED_HOW_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    name: str
    recomputed: int
    recomputed_how: str
    recorded: int
    recorded_how: str
    matches: bool
    def __init__(self, name: _Optional[str] = ..., recomputed: _Optional[int] = ..., recomputed_how: _Optional[str] = ..., recorded: _Optional[int] = ..., recorded_how: _Optional[str] = ..., matches: _Optional[bool] = ...) -> None: ...

class AuditEscapeResponse(_message.Message):
    __slots__ = ("game_id", "variant", "escaper", "leave_seq", "stake", "bid", "max_multiplier", "escape_multiplier", "bombs", "steps", "recomputed_scores", "recorded_scores", "consistent", "recomputed_json", "recorded_json")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    ESCAPER_FIELD_NUMBER: _ClassVar[int]
    LEAVE_SEQ_FIELD_NUMBER: _ClassVar[int]
    STAKE_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    MAX_MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    ESCAPE_MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    BOMBS_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    RECOMPUTED_SCORES_FIELD_NUMBER: _ClassVar[int]
    RECORDED_SCORES_FIELD_NUMBER: _ClassVar[int]
    CONSISTENT_FIELD_NUMBER: _ClassVar[int]
    RECOMPUTED_JSON_FIELD_NUMBER: _ClassVar[int]
    RECORDED_JSON_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    variant: str
    escaper: int
    leave_seq: int
    stake: int
    bid: int
    max_multiplier: int
    escape_multiplier: int
    bombs: _containers.RepeatedCompositeFieldContainer[AuditBomb]
    steps: _containers.RepeatedCompositeFieldContainer[AuditStep]
    recomputed_scores: _containers.RepeatedScalarFieldContainer[int]
    recorded_scores: _containers.RepeatedScalarFieldContainer[int]
    consistent: bool
    recomputed_json: str
    recorded_json: str
    def __init__(self, game_id: _Optional[str] = ..., variant: _Optional[str] = ..., escaper: _Optional[int] = ..., leave_seq: _Optional[int] = ..., stake: _Optional[int] = ..., bid: _Optional[int] = ..., max_multiplier: _Optional[int] = ..., escape_multiplier: _Optional[int] = ..., bombs: _Optional[_Iterable[_Union[AuditBomb, _Mapping]]] = ..., steps: _Optional[_Iterable[_Union[AuditStep, _Mapping]]] = ..., recomputed_scores: _Optional[_Iterable[int]] = ..., recorded_scores: _Optional[_Iterable[int]] = ..., consistent: _Optional[bool] = ..., recomputed_json: _Optional[str] = ..., recorded_json: _Optional[str] = ...) -> None: ...

class GetPlayerStatsRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class FamilyTotal(_message.Message):
    __slots__ = ("family", "games", "total", "last_game_id", "last_score")
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    LAST_GAME_ID_FIELD_NUMBER: _ClassVar[int]
    LAST_SCORE_FIELD_NUMBER: _ClassVar[int]
    family: str
    games: int
    total: int
    last_game_id: str
    last_score: int
    def __init__(self, family: _Optional[str] = ..., games: _Optional[int] = ..., total: _Optional[int] = ..., last_game_id: _Optional[str] = ..., last_score: _Optional[int] = ...) -> None: ...

class PlayerTitle(_message.Message):
    __slots__ = ("level", "chinese", "english")
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    CHINESE_FIELD_NUMBER: _ClassVar[int]
    ENGLISH_FIELD_NUMBER: _ClassVar[int]
    level: int
    chinese: str
    english: str
    def __init__(self, level: _Optional[int] = ..., chinese: _Optional[str] = ..., english: _Optional[str] = ...) -> None: ...

class GetPlayerStatsResponse(_message.Message):
    __slots__ = ("player_id", "last_game_id", "last_score", "totals", "title")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    LAST_GAME_ID_FIELD_NUMBER: _ClassVar[int]
    LAST_SCORE_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    last_game_id: str
    last_score: int
    totals: _containers.RepeatedCompositeFieldContainer[FamilyTotal]
    title: PlayerTitle
    def __init__(self, player_id: _Optional[str] = ..., last_game_id: _Optional[str] = ..., last_score: _Optional[int] = ..., totals: _Optional[_Iterable[_Union[FamilyTotal, _Mapping]]] = ..., title: _Optional[_Union[PlayerTitle, _Mapping]] = ...) -> None: ...
