"""The engine's gRPC servicer: it converts messages to rules calls and rules errors to status
codes, and holds no rules of its own (DESIGN.md principle 4).

Every field a client sends is checked here before it reaches the rules, and every refusal is a
:class:`~services.common.grpc_errors.ServiceError` with a reason code: nothing a client sends
may surface as INTERNAL or UNKNOWN.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections import OrderedDict
from typing import Any

import grpc

from services import rules
from services.bots import LEVELS, SEARCHING_LEVELS, make_bot
from services.common import grpc_errors, limits, wire
from services.common.fields import (
    MAX_JSON,
    cards_of,
    json_object,
    limited,
    room_of,
    rules_error,
    text,
    variant_in_room,
)
from services.common.grpc_errors import ServiceError, bad_field, invalid, missing
from services.common.reasons import RulesReason, ServiceReason
from services.common.wire import (
    action_message,
    action_of,
    common_pb2,
    engine_pb2,
    engine_pb2_grpc,
    pattern_message,
    settlement_message,
    view_message,
)
from services.rules.codec import pack_action
from services.rules.state import evolve

from .tokens import Sealer, TokenInvalid

MAX_GAME_ID = limits.MAX_GAME_ID
#: Opened states kept per worker, by token: a client that lists the legal actions and then
#: applies one sends the same token twice, and opening (decrypt, inflate, parse) is the
#: largest part of a call's cost.
STATE_CACHE_SIZE = 2048


# --------------------------------------------------------------------------- field checks
def header_of(
    request: engine_pb2.NewGameRequest, state: rules.GameState, game_id: str
) -> dict[str, Any]:
    """The game_header body of a new game: its record without actions (DESIGN.md), with the
    game id and the players and table the caller named (checked here, before any rules)."""
    header: dict[str, Any] = {"game_id": game_id, **rules.write_record(state)}
    del header["actions"]
    if request.players:
        header["players"] = list(request.players)
    if request.HasField("table"):
        header["table"] = {"id": request.table.id, "game_no": request.table.game_no}
    return header


def check_players(request: engine_pb2.NewGameRequest, v: rules.Variant) -> None:
    try:
        for i, player in enumerate(request.players):
            limits.player_id(player, f"players[{i}]")
        if request.HasField("table"):
            limits.table_id(request.table.id, "table.id")
            limits.seq(request.table.game_no, "table.game_no")
    except limits.LimitError as exc:
        raise limited(exc) from None
    if request.players and len(request.players) != v.players:
        seats = f"{v.name} seats {v.players} players, not {len(request.players)}"
        raise invalid(ServiceReason.INVALID_FIELD, seats, "players")


def variant_of(name: str, overrides_json: str, field: str = "variant") -> rules.Variant:
    text(name, field)
    try:
        v = rules.variant(name)
    except rules.VariantError as exc:
        raise invalid(ServiceReason.UNKNOWN_VARIANT, str(exc), field) from None
    overrides = json_object(overrides_json, "overrides_json", reason=RulesReason.INVALID_OVERRIDE)
    if not overrides:
        return v
    try:
        return v.override(overrides)
    except rules.VariantError as exc:
        raise invalid(
            RulesReason.INVALID_OVERRIDE, str(exc), f"overrides_json.{exc.field}"
        ) from None
    except (TypeError, ValueError) as exc:  # a value of the wrong JSON shape
        raise invalid(
            RulesReason.INVALID_OVERRIDE, f"bad override: {exc}", "overrides_json"
        ) from None


def variant_message(v: rules.Variant) -> engine_pb2.Variant:
    msg = engine_pb2.Variant(
        choices=sorted(v.choices()),
        aliases=sorted(a for a, name in rules.ALIASES.items() if name == v.name),
        rules_version=rules.RULES_VERSION,
    )
    for key, value in v.describe().items():
        if key == "bomb_factors":
            msg.bomb_factors.extend(engine_pb2.BombFactor(size=s, factor=f) for s, f in value)
        elif isinstance(value, list):
            getattr(msg, key).extend(value)
        else:
            setattr(msg, key, value)
    # The timers moved to the room's table settings (not rules); their defaults stay here so
    # callers of ListVariants keep finding them (engine.proto says where they went).
    for key, value in dataclasses.asdict(rules.TableSettings()).items():
        setattr(msg, key, value)
    return msg


# --------------------------------------------------------------------------- games
def seat_of(value: int, v: rules.Variant, field: str) -> int:
    if not 0 <= value < v.players:
        raise invalid(RulesReason.NO_SUCH_SEAT, f"{field} {value} is not a seat of {v.name}", field)
    return value


def deal_of(msg: engine_pb2.Deal, field: str = "deal") -> dict[str, Any]:
    """Keyword arguments of ``new_game`` for a Deal message."""
    kind = msg.WhichOneof("kind")
    if kind is None:
        raise missing(field)
    if kind == "seed":
        return {"seed": text(msg.seed, f"{field}.seed")}
    hands = tuple(
        tuple(cards_of(h, f"{field}.explicit.hands[{i}]", required=False))
        for i, h in enumerate(msg.explicit.hands)
    )
    bottom = tuple(cards_of(msg.explicit.bottom, f"{field}.explicit.bottom", required=False))
    opener = msg.explicit.opener if msg.explicit.HasField("opener") else None
    return {"deal": rules.ExplicitDeal(hands, bottom, opener)}


def record_of(msg: engine_pb2.GameRecord) -> dict[str, Any]:
    """The JSON record (DESIGN.md) of a structured one, for the rules' record loader."""
    room = room_of(msg.room, "structured.room")
    variant_in_room(msg.variant, room, "structured.variant", "structured.room")
    out: dict[str, Any] = {"variant": text(msg.variant, "structured.variant")}
    out["room"] = room.to_dict()
    kind = msg.deal.WhichOneof("kind")
    if kind is None:
        raise missing("structured.deal")
    if kind == "seed":
        out["deal"] = {"seed": text(msg.deal.seed, "structured.deal.seed")}
    else:
        ex = msg.deal.explicit
        deal: dict[str, Any] = {"hands": list(ex.hands), "bottom": ex.bottom}
        if ex.HasField("opener"):
            deal["opener"] = ex.opener
        out["deal"] = deal
    if msg.HasField("first_bidder"):
        out["first_bidder"] = msg.first_bidder
    actions = []
    for i, a in enumerate(msg.actions):
        actions.append(_record_action(action_of(a, f"structured.actions[{i}]")))
    out["actions"] = actions
    return out


def _record_action(action: rules.Action) -> dict[str, Any]:
    if isinstance(action, rules.Timeout):
        return {"seat": action.seat, "timeout": True}
    if isinstance(action, rules.SetAutoplay):
        return {"seat": action.seat, "autoplay": action.on}
    return rules.action_to_dict(action)


#: The most moves one Apply's run makes (ApplyRequest.run_moves).
MAX_RUN_MOVES = 64
#: Bot levels a run plays (RunSeat.bot): the quick ones.  A searching level's move can take
#: the better part of a second, and the engine's one worker would hold every other game
#: meanwhile.
RUN_LEVELS = frozenset(LEVELS) - SEARCHING_LEVELS


@dataclasses.dataclass(frozen=True, slots=True)
class Run:
    """An Apply's run: seat -> (bot level or "" for auto-play, actor, cause); the most moves."""

    seats: dict[int, tuple[str, str, common_pb2.Cause]]
    moves: int


def run_of(request: engine_pb2.ApplyRequest, v: rules.Variant) -> Run | None:
    """The request's run, every field checked (None: no run asked)."""
    if not request.run:
        return None
    if request.run_moves > MAX_RUN_MOVES:
        raise bad_field("run_moves", f"run_moves {request.run_moves} is over {MAX_RUN_MOVES}")
    seats: dict[int, tuple[str, str, common_pb2.Cause]] = {}
    for i, r in enumerate(request.run):
        seat = seat_of(r.seat, v, f"run[{i}].seat")
        if seat in seats:
            raise bad_field(f"run[{i}].seat", f"seat {seat} is named twice in the run")
        if r.bot and r.bot not in RUN_LEVELS:
            known = ", ".join(sorted(RUN_LEVELS))
            raise bad_field(
                f"run[{i}].bot",
                f"a run plays bots of level {known}, not {r.bot[:40]!r}: choose its moves yourself",
            )
        try:
            actor = limits.player_id(r.actor, f"run[{i}].actor", required=False)
            limits.cause(r.cause, f"run[{i}].cause")
        except limits.LimitError as exc:
            raise limited(exc) from None
        cause = r.cause
        if cause == common_pb2.CAUSE_UNSPECIFIED:
            cause = common_pb2.CAUSE_BOT if r.bot else common_pb2.CAUSE_AUTOPLAY
        seats[seat] = (r.bot, actor, cause)
    return Run(seats, max(1, request.run_moves))


# --------------------------------------------------------------------------- sealed states
@dataclasses.dataclass(frozen=True, slots=True)
class Opened:
    """A state as the servicer holds it between calls, with the JSON text of its packed log
    when known (``[["b",0,3,0],…]``)."""

    state: rules.GameState
    log_json: str | None


def packed_log(state: rules.GameState, prior: Opened | None) -> str:
    """The JSON text of ``state``'s packed action log.  The log only grows, so when ``prior``
    (the state it was applied to) knows its own text, only the new actions are encoded: the
    token's cost then stays flat as the game gets long, instead of re-encoding every action."""
    log = state.log
    if prior is not None and prior.log_json is not None:
        before = prior.state.log
        n = len(before)
        if log[:n] == before:  # identity of the same action objects: cheap
            if len(log) == n:
                return prior.log_json
            tail = wire.dumps([pack_action(a) for a in log[n:]])  # "[x,y]"
            return prior.log_json[:-1] + ("," if n else "") + tail[1:]
    return wire.dumps([pack_action(a) for a in log])


def state_payload(state: rules.GameState, log_json: str) -> bytes:
    """What the token seals: :meth:`~rules.GameState.to_dict`'s JSON, with the log's text
    spliced in first (key order means nothing to ``json.loads``, so tokens of either order open
    in any engine)."""
    rest = evolve(state, log=()).to_dict()
    del rest["log"]
    return ('{"log":' + log_json + "," + wire.dumps(rest)[1:]).encode()


# --------------------------------------------------------------------------- the servicer
# A ServiceError, or a rules error that escaped a field check, ends the call with its status.
def engine_error(exc: Exception, field: str | None = None) -> ServiceError:
    """A rules error's refusal (:func:`~services.common.fields.rules_error`), or a token's."""
    if isinstance(exc, TokenInvalid):
        return invalid(exc.reason, str(exc), field)
    return rules_error(exc, field)


#: What a request may be refused with (each mapped by engine_error): Apply's error, and one
#: ApplyBatch result's refusal.
REFUSALS = (ServiceError, rules.RulesError, TokenInvalid)
rpc = grpc_errors.refusing(REFUSALS, engine_error)


class EngineServicer(engine_pb2_grpc.EngineServiceServicer):
    def __init__(self, sealer: Sealer) -> None:
        self.sealer = sealer
        self._states: OrderedDict[bytes, Opened] = OrderedDict()
        self._variants = engine_pb2.ListVariantsResponse(
            variants=[variant_message(v) for v in rules.VARIANTS.values()]
        )

    async def Ping(
        self, request: engine_pb2.PingRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> engine_pb2.PingResponse:
        return engine_pb2.PingResponse()

    @rpc
    async def ListVariants(
        self, request: engine_pb2.ListVariantsRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> engine_pb2.ListVariantsResponse:
        return self._variants

    @rpc
    async def Classify(
        self, request: engine_pb2.ClassifyRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> engine_pb2.ClassifyResponse:
        v = variant_of(request.variant, request.overrides_json)
        cards = cards_of(request.cards, "cards")
        reading = text(request.reading, "reading", required=False) or None
        if reading is not None:
            try:
                rules.parse_reading(reading)
            except rules.NotAPattern as exc:
                raise invalid(RulesReason.NOT_A_PATTERN, str(exc), "reading") from None
        last: rules.Pattern | None = None
        if request.last.strip():
            try:
                last = rules.classify(v, cards_of(request.last, "last"))
            except rules.RulesError as exc:
                raise rules_error(exc, "last") from None
        try:
            pattern = rules.classify(v, cards, reading=reading, last=last)
        except rules.RulesError as exc:
            raise rules_error(exc, "cards") from None
        return engine_pb2.ClassifyResponse(
            cards=rules.format_cards(cards), pattern=pattern_message(pattern)
        )

    # ------------------------------------------------------------------ tokens
    def _open(self, msg: engine_pb2.GameToken, present: bool) -> Opened:
        if not present:
            raise missing("state")
        if not msg.token:
            raise missing("state.token")
        token = bytes(msg.token)
        key = token + b"\x00" + msg.game_id.encode() + b"\x00" + str(msg.seq).encode()
        opened = self._states.get(key)
        if opened is not None:
            self._states.move_to_end(key)
            return opened
        try:
            payload = self.sealer.open(token, msg.game_id, msg.seq)
        except TokenInvalid as exc:
            raise invalid(exc.reason, str(exc), "state.token") from None
        try:
            state = rules.GameState.from_dict(json.loads(payload))
        except (ValueError, KeyError, TypeError, rules.RulesError, rules.VariantError):
            # Only a token of an older, incompatible engine can get here: we sealed it.
            raise invalid(
                TokenInvalid.reason, "state token is from an incompatible engine", "state.token"
            ) from None
        opened = Opened(state, None)
        self._remember(key, opened)
        return opened

    def _remember(self, key: bytes, opened: Opened) -> None:
        self._states[key] = opened
        if len(self._states) > STATE_CACHE_SIZE:
            self._states.popitem(last=False)

    def _seal(
        self, state: rules.GameState, game_id: str, seq: int, prior: Opened | None = None
    ) -> engine_pb2.GameToken:
        log_json = packed_log(state, prior)
        token = self.sealer.seal(state_payload(state, log_json), game_id, seq)
        key = token + b"\x00" + game_id.encode() + b"\x00" + str(seq).encode()
        self._remember(key, Opened(state, log_json))
        return engine_pb2.GameToken(game_id=game_id, seq=seq, token=token)

    @staticmethod
    def _events(
        events: list[rules.Event],
        game_id: str,
        first_seq: int,
        actor: str,
        cause: wire.common_pb2.Cause,
        deadline: wire.timestamp_pb2.Timestamp | None,
    ) -> list[wire.common_pb2.Event]:
        now = wire.now()
        return [
            wire.event_message(
                e,
                game_id=game_id,
                seq=first_seq + i,
                actor=actor,
                cause=cause,
                deadline=deadline,
                server_time=now,
                typed=True,
            )
            for i, e in enumerate(events)
        ]

    # ------------------------------------------------------------------ game RPCs
    @rpc
    async def NewGame(
        self, request: engine_pb2.NewGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> engine_pb2.NewGameResponse:
        room = room_of(request.room)
        v = variant_in_room(request.variant, room)
        if not request.HasField("deal"):
            raise missing("deal")
        deal = deal_of(request.deal)
        try:
            game_id = limits.game_id(request.game_id, required=False) or uuid.uuid4().hex
            actor = limits.player_id(request.actor, "actor", required=False)
        except limits.LimitError as exc:
            raise limited(exc) from None
        check_players(request, v)
        first_bidder = None
        if request.HasField("first_bidder"):
            first_bidder = seat_of(request.first_bidder, v, "first_bidder")
        view_seat = None
        if request.HasField("view_seat"):
            view_seat = seat_of(request.view_seat, v, "view_seat")
        try:
            state = rules.new_game(v.name, room, first_bidder=first_bidder, game_id=game_id, **deal)
        except rules.RulesError as exc:
            raise rules_error(exc, "deal" if exc.reason == RulesReason.BAD_DEAL else None) from None
        # seq 1 is the header (auditors only: its seed reveals every hand), then the deal.
        header = wire.header_message(
            header_of(request, state, game_id),
            game_id=game_id,
            actor=actor,
            server_time=wire.now(),
            typed=True,
        )
        events = rules.deal_events(state)
        seq = 1 + len(events)
        response = engine_pb2.NewGameResponse(
            state=self._seal(state, game_id, seq),
            events=[
                header,
                *self._events(events, game_id, 2, actor, common_pb2.CAUSE_UNSPECIFIED, None),
            ],
            public_view=view_message(rules.public_view(state)),
        )
        if view_seat is not None:
            response.seat_view.CopyFrom(view_message(rules.seat_view(state, view_seat)))
        return response

    @rpc
    async def Apply(
        self, request: engine_pb2.ApplyRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> engine_pb2.ApplyResponse:
        return self._apply(request)

    @rpc
    async def ApplyBatch(
        self, request: engine_pb2.ApplyBatchRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> engine_pb2.ApplyBatchResponse:
        if len(request.requests) > limits.MAX_BATCH:
            raise bad_field("requests", f"at most {limits.MAX_BATCH} requests per batch")
        out = engine_pb2.ApplyBatchResponse()
        for item in request.requests:
            result = out.results.add()
            try:
                result.response.CopyFrom(self._apply(item))
            except REFUSALS as exc:
                err = engine_error(exc)
                refusal = result.refusal
                refusal.code = err.code.value[0]
                refusal.reason = err.reason
                refusal.message = err.message
                refusal.field = err.field or ""
        return out

    def _apply(self, request: engine_pb2.ApplyRequest) -> engine_pb2.ApplyResponse:
        """Apply's answer to ``request``; a refusal raised as Apply's error would carry it."""
        action = action_of(request.action) if request.HasField("action") else None
        if action is None and not request.run:
            raise missing("action")
        try:
            actor = limits.player_id(request.actor, "actor", required=False)
            limits.cause(request.cause)
            if request.HasField("turn_deadline"):  # echoed into every event's envelope
                limits.timestamp(request.turn_deadline, "turn_deadline")
        except limits.LimitError as exc:
            raise limited(exc) from None
        opened = self._open(request.state, request.HasField("state"))
        state = opened.state
        view_seat = None
        if request.HasField("view_seat"):
            view_seat = seat_of(request.view_seat, state.variant, "view_seat")
        run = run_of(request, state.variant)
        game_id, seq = request.state.game_id, request.state.seq
        deadline = request.turn_deadline if request.HasField("turn_deadline") else None
        new, events = state, []
        if action is not None:
            try:
                new, produced = rules.apply(state, action)
            except rules.RulesError as exc:
                field = "action.seat" if exc.reason == RulesReason.NO_SUCH_SEAT else "action"
                raise rules_error(exc, field) from None
            cause = request.cause
            if isinstance(action, rules.Timeout):
                cause = common_pb2.CAUSE_TIMEOUT
            elif cause == common_pb2.CAUSE_UNSPECIFIED:
                cause = common_pb2.CAUSE_PLAYER
            events = self._events(produced, game_id, seq + 1, actor, cause, deadline)
        made: list[rules.Action] = []
        if run is not None:
            new = self._run(new, run, game_id, seq + len(events), events, made, deadline)
            if not made and action is None:
                raise rules_error(rules.RulesError(
                    "the game is over" if new.over else
                    f"seat {new.turn} is to move, and the run names no such seat",
                    RulesReason.GAME_OVER if new.over else RulesReason.NOT_YOUR_TURN,
                ), "run")  # fmt: skip
        # history_delta: only this call's actions, so the view's cost does not grow with the game
        # (public_history_delta: in the public view only).
        since = len(state.log) if request.history_delta else 0
        public_since = len(state.log) if request.public_history_delta else since
        response = engine_pb2.ApplyResponse(
            state=self._seal(new, game_id, seq + len(events), opened),
            events=events,
            public_view=view_message(rules.public_view(new, history_from=public_since)),
            game_over=new.over,
            run_actions=[action_message(a) for a in made],
        )
        if view_seat is not None:
            seat_view = rules.seat_view(new, view_seat, history_from=since)
            response.seat_view.CopyFrom(view_message(seat_view))
        if new.over and new.settlement is not None:
            response.settlement.CopyFrom(settlement_message(new.settlement))
        return response

    def _run(
        self,
        state: rules.GameState,
        run: Run,
        game_id: str,
        seq: int,
        events: list[common_pb2.Event],
        made: list[rules.Action],
        deadline: wire.timestamp_pb2.Timestamp | None,
    ) -> rules.GameState:
        """The run's moves from ``state`` (ApplyRequest.run): each chosen from its seat's view
        as the matchmaker's runner would choose it, its events appended to ``events`` (numbered
        on from ``seq``) and the move to ``made``; returns the game after the last."""
        while len(made) < run.moves and not state.over and state.turn in run.seats:
            seat = state.turn
            assert seat is not None
            bot, actor, cause = run.seats[seat]
            if bot:
                view = rules.seat_view(state, seat)
                move = make_bot(bot, state.variant, f"{game_id}:{seq}").act(view)
            else:
                move = rules.autoplay_move(state, "autoplay")
            if getattr(move, "by", None) is not None:
                # As the wire carries it (an Action has no "by"): the record is the one the
                # caller's own Apply of this move would write, whichever of the two made it.
                move = dataclasses.replace(move, by=None)  # type: ignore[arg-type]
            state, produced = rules.apply(state, move)
            if events:  # a move after the first: its seat moved at once
                deadline = wire.now()
            events.extend(self._events(produced, game_id, seq + 1, actor, cause, deadline))
            seq += len(produced)
            made.append(move)
        return state

    @rpc
    async def ListLegalActions(
        self,
        request: engine_pb2.ListLegalActionsRequest,
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> engine_pb2.ListLegalActionsResponse:
        state = self._open(request.state, request.HasField("state")).state
        response = engine_pb2.ListLegalActionsResponse()
        add = response.actions.add
        for a in rules.legal_actions(state):
            wire.fill_action(add(), a)
        if state.turn is not None:
            response.seat = state.turn
        return response

    @rpc
    async def GetHint(
        self, request: engine_pb2.GetHintRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> engine_pb2.GetHintResponse:
        state = self._open(request.state, request.HasField("state")).state
        if not request.HasField("seat"):
            raise missing("seat")
        seat = seat_of(request.seat, state.variant, "seat")
        if state.over:
            raise grpc_errors.failed(
                RulesReason.GAME_OVER, f"the game is over ({state.status.value})"
            )
        hint = rules.hint(rules.seat_view(state, seat))
        response = engine_pb2.GetHintResponse()
        if hint is not None:
            response.hint.CopyFrom(action_message(hint))
        return response

    @rpc
    async def GetSeatView(
        self, request: engine_pb2.GetSeatViewRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> engine_pb2.GetSeatViewResponse:
        state = self._open(request.state, request.HasField("state")).state
        if not request.HasField("seat"):
            raise missing("seat")
        seat = seat_of(request.seat, state.variant, "seat")
        return engine_pb2.GetSeatViewResponse(view=view_message(rules.seat_view(state, seat)))

    @rpc
    async def Settle(
        self, request: engine_pb2.SettleRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> engine_pb2.SettleResponse:
        kind = request.WhichOneof("record")
        if kind is None:
            raise missing("record")
        if kind == "record_json":
            text(request.record_json, "record_json", limit=MAX_JSON * 16)
            try:
                data: Any = json.loads(request.record_json)
            except (ValueError, RecursionError) as exc:
                raise invalid(
                    RulesReason.BAD_RECORD, f"record_json is not JSON: {exc}", "record_json"
                ) from None
        else:
            data = record_of(request.structured)
        try:
            state = rules.replay(data)
        except rules.RulesError as exc:
            raise rules_error(exc, "record") from None
        except rules.VariantError as exc:
            raise rules_error(exc, "record") from None
        if state.settlement is None:
            raise grpc_errors.failed(
                ServiceReason.GAME_NOT_OVER, "the record ends before the game does", "record"
            )
        return engine_pb2.SettleResponse(
            settlement=settlement_message(state.settlement),
            final_view=view_message(rules.public_view(state)),
        )
