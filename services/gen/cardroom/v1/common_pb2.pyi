import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
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
    __slots__ = ("envelope", "type", "data_json")
    ENVELOPE_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    envelope: EventEnvelope
    type: str
    data_json: str
    def __init__(self, envelope: _Optional[_Union[EventEnvelope, _Mapping]] = ..., type: _Optional[str] = ..., data_json: _Optional[str] = ...) -> None: ...

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
