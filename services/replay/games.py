"""The replay service's operations on stored games, shared by the gRPC servicer and the CLI:
re-execution through the rules library, verification, export and import of game records,
escape audits, player totals and a readable account of a game.

Re-execution is the heart of it: the header gives the deal, every action event is turned back
into the rules action it records and applied, and the events the rules produce must be exactly
the stored ones, in order.  The first event where they part is where the log stops following
from its seed and moves.  The same step (:func:`follow`) checks every append before it is
stored, on a warm copy of the game's state kept per game (:class:`Warm`), so the store only
ever holds games the rules allow, and the result and totals it stores are the settlement the
rules compute, never what a writer says.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import zip_longest
from typing import Any

from google.protobuf.message import DecodeError

from services import rules
from services.common import limits
from services.common.reasons import RulesReason, ServiceReason
from services.common.wire import (
    ACTION_TYPES,
    BY_OF_CAUSE,
    CAUSE_OF_BY,
    GAME_OVER,
    HEADER,
    BadEvent,
    action_of_event,
    common_pb2,
    data_of,
    dumps,
    event_data,
    event_message,
    header_message,
    seat_of_event,
)

from .events import EventError, decode, encode, header_record, prepare_append
from .store import (
    AppendResult,
    BadAppend,
    EventStore,
    GameEnding,
    GameRow,
    PlayerStats,
    SeqConflict,
    StoredEvent,
    StoreError,
    first_chain_break,
)


class GameRefused(StoreError):
    """An operation the game's state does not allow (gRPC FAILED_PRECONDITION / ALREADY_EXISTS):
    ``reason`` is NOT_ESCAPED, LOG_INVALID, GAME_NOT_OVER, RESULT_MISMATCH or GAME_EXISTS."""

    def __init__(self, reason: str, message: str, metadata: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.metadata = metadata or {}


# --------------------------------------------------------------------------- re-execution
@dataclass(frozen=True)
class Divergence:
    seq: int
    reason: str
    detail: str


@dataclass
class Reexecution:
    state: rules.GameState | None = None
    header: dict[str, Any] = field(default_factory=dict)
    divergence: Divergence | None = None
    leave_seq: int | None = None
    game_over_seq: int | None = None
    recorded_settlement: dict[str, Any] | None = None
    events: int = 0
    #: What the rules produced that the log does not hold yet (a log cut inside a batch).
    pending: tuple[rules.Event, ...] = ()


class Diverged(Exception):
    """An event that does not follow from the game (see :func:`follow`)."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def _decode(row: StoredEvent) -> common_pb2.Event:
    try:
        return decode(row.payload)
    except DecodeError:
        return common_pb2.Event()  # only a tampered row; it will not match anything


def _same(ev: common_pb2.Event, expected: rules.Event) -> str | None:
    """None when a stored event is the one the rules produced, else what differs."""
    if ev.type != expected.type:
        return f"stored {ev.type or '?'!r}, the rules give {expected.type!r}"
    if seat_of_event(ev) != expected.to or (
        expected.to is None and ev.envelope.visibility != common_pb2.VISIBILITY_PUBLIC
    ):
        return f"visibility: stored seat {seat_of_event(ev)}, the rules give {expected.to}"
    body = event_data(expected)
    if ev.data_json == dumps(body):
        return None  # the usual case: written by this engine, byte for byte
    want = _json_roundtrip(body)  # tuples → lists, as data_json holds them
    got = data_of(ev)
    if got != want:
        return f"{ev.type}: stored {dumps(got)}, the rules give {dumps(want)}"
    return None


def start_state(game_id: str, header: Mapping[str, Any]) -> rules.GameState:
    """A game's state before its first action, from its header, bound to ``game_id`` (so a
    seeded deal commits to it).  Raises the rules' errors for a bad header."""
    if "game_id" in header and header["game_id"] != game_id:
        raise rules.RecordError(f"the header is game {header['game_id']!r}", "game_id")
    state: rules.GameState = rules.initial_state(header_record(header), game_id)
    return state


def follow(
    state: rules.GameState, pending: deque[rules.Event], ev: common_pb2.Event
) -> tuple[rules.GameState, rules.Action | None]:
    """One event of a game's log after ``state``, where the rules still owe ``pending`` (popped
    as it is matched): an action event the rules await is applied, and every event must be the
    next one the rules produce.  Raises :class:`Diverged` with the reason it does not follow;
    returns the state after it and the action it recorded (or None)."""
    action = None
    if ev.type in ACTION_TYPES and not pending:
        try:
            action = action_of_event(ev, state)
            state, produced = rules.apply(state, action)
        except BadEvent as exc:
            raise Diverged(ServiceReason.BAD_EVENT, str(exc)) from None
        except rules.RulesError as exc:
            raise Diverged(RulesReason.ILLEGAL_ACTION, f"{exc.reason}: {exc}") from None
        pending.extend(produced)
    if not pending:
        raise Diverged(
            ServiceReason.UNEXPECTED_EVENT, f"{ev.type or '?'!r} where the rules await an action"
        )  # fmt: skip
    expected = pending.popleft()
    differs = _same(ev, expected)
    if differs is not None:
        commitment = expected.data.get("commitment") if expected.type == "deal" else None
        if commitment is not None and data_of(ev).get("commitment") != commitment:
            raise Diverged(
                ServiceReason.COMMITMENT_MISMATCH,
                f"the public deal event commits to {data_of(ev).get('commitment')!r}; the game"
                f" id and the seed give {commitment!r}",
            )
        raise Diverged(ServiceReason.EVENT_MISMATCH, differs)
    return state, action


def reexecute(
    game_id: str, rows: Sequence[StoredEvent], strict: bool = True, partial: bool = False
) -> Reexecution:
    """Re-execute a stored log.  ``strict``: every stored event must be the next one the rules
    produce (verification); otherwise only the action events are applied (export, audit).
    ``partial``: a log may stop inside a batch (what the rules still owe is ``pending``)."""
    out = Reexecution()
    if not rows:
        out.divergence = Divergence(1, ServiceReason.MISSING_EVENTS, "the game has no events")
        return out
    first = _decode(rows[0])
    out.events = len(rows)
    if first.type != HEADER:
        out.divergence = Divergence(
            rows[0].seq, ServiceReason.BAD_HEADER, "the first event is no header"
        )
        return out
    out.header = data_of(first)
    try:
        state = start_state(game_id, out.header)
    except (rules.RulesError, rules.VariantError) as exc:
        out.divergence = Divergence(rows[0].seq, ServiceReason.BAD_HEADER, str(exc))
        return out
    pending: deque[rules.Event] = deque(rules.deal_events(state))
    for row in rows[1:]:
        ev = _decode(row)
        env = ev.envelope
        if env.seq != row.seq or env.game_id != game_id:
            out.divergence = Divergence(
                row.seq,
                ServiceReason.EVENT_MISMATCH,
                f"the envelope says {env.game_id!r} #{env.seq}",
            )
            break
        if ev.type == GAME_OVER:
            out.game_over_seq = row.seq
            out.recorded_settlement = data_of(ev).get("settlement")
        if strict:
            try:
                state, action = follow(state, pending, ev)
            except Diverged as exc:
                out.divergence = Divergence(row.seq, exc.reason, exc.detail)
                break
        elif ev.type in ACTION_TYPES:
            try:
                action = action_of_event(ev, state)
                state, _ = rules.apply(state, action)
            except BadEvent as exc:
                out.divergence = Divergence(row.seq, ServiceReason.BAD_EVENT, str(exc))
                break
            except rules.RulesError as exc:
                out.divergence = Divergence(
                    row.seq, RulesReason.ILLEGAL_ACTION, f"{exc.reason}: {exc}"
                )
                break
        else:
            action = None
        if isinstance(action, rules.Leave):
            out.leave_seq = row.seq
    else:
        if strict and pending and not partial:
            missing = ", ".join(e.type for e in pending)
            out.divergence = Divergence(
                rows[-1].seq + 1, ServiceReason.MISSING_EVENTS, f"the log ends before: {missing}"
            )
    out.state = state
    out.pending = tuple(pending)
    return out


@dataclass(frozen=True)
class Warm:
    """A game's state as re-executed up to its head (seq and hash), and the events the rules
    still owe there: what an append is checked against, one rules step per event."""

    head_seq: int
    head_hash: bytes
    state: rules.GameState
    pending: tuple[rules.Event, ...]


def request_digest(game_id: str, expected_seq: int, events: Sequence[common_pb2.Event]) -> bytes:
    """SHA-256 of an append's body as sent: its game id, expected_seq and events."""
    h = hashlib.sha256(b"cardroom/append/v1\x00")
    g = game_id.encode()
    h.update(len(g).to_bytes(8, "big") + g + expected_seq.to_bytes(8, "big"))
    for ev in events:
        payload = encode(ev)
        h.update(len(payload).to_bytes(8, "big") + payload)
    return h.digest()


# --------------------------------------------------------------------------- results
@dataclass(frozen=True)
class Verification:
    ok: bool
    chain_ok: bool
    replay_ok: bool
    first_bad_seq: int
    reason: str
    detail: str
    events: int
    head_hash: bytes
    settlement: dict[str, Any] | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "chain_ok": self.chain_ok,
            "replay_ok": self.replay_ok,
            "first_bad_seq": self.first_bad_seq,
            "reason": self.reason,
            "detail": self.detail,
            "events": self.events,
            "head_hash": self.head_hash.hex(),
        }


@dataclass(frozen=True)
class AuditStep:
    name: str
    recomputed: int
    recomputed_how: str
    recorded: int | None
    recorded_how: str
    matches: bool


@dataclass(frozen=True)
class EscapeAudit:
    game_id: str
    variant: str
    escaper: int
    leave_seq: int
    stake: int
    bid: int
    max_multiplier: int | None
    escape_multiplier: int | None
    bombs: list[dict[str, Any]]
    steps: list[AuditStep]
    recomputed_scores: list[int]
    recorded_scores: list[int]
    consistent: bool
    recomputed: dict[str, Any]
    recorded: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "variant": self.variant,
            "escaper": self.escaper,
            "leave_seq": self.leave_seq,
            "stake": self.stake,
            "bid": self.bid,
            "max_multiplier": self.max_multiplier,
            "escape_multiplier": self.escape_multiplier,
            "bombs": self.bombs,
            "steps": [s.__dict__ for s in self.steps],
            "recomputed_scores": self.recomputed_scores,
            "recorded_scores": self.recorded_scores,
            "consistent": self.consistent,
        }


@dataclass(frozen=True)
class Stats:
    player_id: str
    totals: list[PlayerStats]
    last_game_id: str
    last_score: int
    title: tuple[int, str, str]


@dataclass(frozen=True)
class Imported:
    game: GameRow
    verification: Verification
    replayed: bool


def _json_roundtrip(value: Any) -> Any:
    return json.loads(dumps(value))


# --------------------------------------------------------------------------- import ids
#: The fields of a game record that define its game: everything but its id and its claimed
#: result.  ``players`` and ``table`` count: the same cards played by other people, or at
#: another table, are another game.
DEFINING_FIELDS = (
    "variant",
    "rules_version",
    "room",
    "deal",
    "first_bidder",
    "actions",
    "players",
    "table",
)


def _defining_fields(record: Mapping[str, Any]) -> dict[str, Any]:
    return {k: record[k] for k in DEFINING_FIELDS if k in record}


def game_defining(state: rules.GameState, extra: Mapping[str, Any]) -> dict[str, Any]:
    """The game-defining fields of a record, as the rules write them back after replaying it
    (``state`` is its final state): so card spacing, a timeout written either way or a
    first bidder left to the seed do not make another game of the same one."""
    given = {k: extra[k] for k in ("players", "table") if k in extra}
    return _defining_fields(_json_roundtrip(rules.write_record(state, given)))


def _canonical(value: Any) -> str:
    """Canonical JSON: keys sorted, no spaces, UTF-8 as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_game_id(defining: Mapping[str, Any]) -> str:
    """The id an imported record without ``game_id`` is stored under: ``rec-`` and the first
    32 hex digits (128 bits) of the SHA-256 of the canonical JSON (keys sorted, no spaces,
    UTF-8) of its game-defining fields (:func:`game_defining`).  The same record therefore
    always maps to the same game, and importing it again stores nothing."""
    return "rec-" + hashlib.sha256(_canonical(defining).encode()).hexdigest()[:32]


# --------------------------------------------------------------------------- the operations
class ReplayGames:
    """Operations on the games of one :class:`EventStore`."""

    #: Games kept warm per process; past this many the cache starts afresh.
    WARM_GAMES = 10_000

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._variants: dict[str, rules.Variant] = {}
        self._warm: dict[str, Warm] = {}
        self._warm_lock = threading.Lock()

    # ------------------------------------------------------------------ appending
    def variant_of(self, game_id: str) -> rules.Variant | None:
        """The variant (with its room's overrides) of a stored game, from its header; cached,
        since a game's header never changes.  None when there is no such game."""
        v = self._variants.get(game_id)
        if v is not None:
            return v
        rows = self.store.events(game_id, 1, limit=1)
        if not rows:
            return None
        try:
            record = header_record(data_of(_decode(rows[0])))
            v = record.room.variant_for(record.variant)
        except (rules.RulesError, rules.VariantError):
            return None
        if len(self._variants) > 10_000:
            self._variants.clear()
        self._variants[game_id] = v
        return v

    def append(
        self,
        game_id: str,
        expected_seq: int,
        events: Sequence[common_pb2.Event],
        request_id: str,
        now: datetime | None = None,
    ) -> tuple[AppendResult, str]:
        """Append proto events after ``expected_seq``; returns the store's answer and the
        game's status afterwards.

        Every event is checked against the rules before anything is stored: it must be the next
        event the game's header and log give (:func:`follow`), else the append is refused
        (:class:`GameRefused` ``EVENT_MISMATCH``, metadata ``seq``).  When the append ends the
        game, its status, scores and the players' totals are the settlement the rules compute.
        The game's state is kept warm at its head, so a check costs one rules step per event;
        when another process moved the game, it is re-executed from the stored log."""
        digest = request_digest(game_id, expected_seq, events)
        warm = self._warm_at(game_id, expected_seq)
        if warm is None and expected_seq > 0:
            # A retry of an answered request gets its first answer without a re-execution.
            done = self.store.answered(game_id, request_id, digest)
            if done is not None:
                return done, self.store.head(game_id)[1]
            warm = self._load(game_id, expected_seq)
        variant = warm.state.variant if warm is not None else None
        prepared = prepare_append(game_id, expected_seq, events, variant, now or self.store.clock())
        if warm is None:  # a new game: its header gives the deal
            try:
                state = start_state(game_id, data_of(prepared.sent[0]))
            except (rules.RulesError, rules.VariantError) as exc:  # header_of checked it
                raise EventError(
                    ServiceReason.BAD_HEADER, str(exc), "events[0].data_json"
                ) from None
            pending = deque(rules.deal_events(state))
            todo = prepared.sent[1:]
        else:
            state, pending, todo = warm.state, deque(warm.pending), prepared.sent
        for ev in todo:
            try:
                state, _ = follow(state, pending, ev)
            except Diverged as exc:
                seq = ev.envelope.seq
                raise GameRefused(
                    ServiceReason.EVENT_MISMATCH,
                    f"event {seq} ({ev.type}) does not follow from the game: {exc.reason}: "
                    f"{exc.detail}",
                    {"seq": str(seq), "why": exc.reason},
                ) from None
        if pending:
            # Half an action stored would leave the log saying what the rules never said
            # (VerifyGame's MISSING_EVENTS) until its other half came, if it ever did.
            owed = ", ".join(e.type for e in pending)
            raise GameRefused(
                ServiceReason.INCOMPLETE_ACTION,
                f"the append ends inside an action: the rules still owe {owed}",
                {"seq": str(expected_seq + len(events) + 1), "owed": owed},
            )
        ending = None
        if state.over and not pending:
            assert state.settlement is not None
            ending = GameEnding(
                state.status.value,
                list(state.settlement.scores),
                state.variant.family,
                _json_roundtrip(state.settlement.to_dict()),
            )
        try:
            result = self.store.append(
                game_id,
                expected_seq,
                prepared.events,
                request_id,
                header=prepared.header,
                ending=ending,
                digest=digest,
                expected_hash=warm.head_hash if warm is not None else None,
            )
        except BaseException:
            self._forget(game_id, expected_seq)
            raise
        if result.replayed:
            self._forget(game_id, expected_seq)
            return result, self.store.head(game_id)[1]
        if ending is not None:
            self._forget(game_id, expected_seq)
            return result, ending.status
        with self._warm_lock:
            if len(self._warm) >= self.WARM_GAMES:
                self._warm.clear()
            self._warm[game_id] = Warm(result.last_seq, result.head_hash, state, tuple(pending))
        return result, "running"

    def forget_warm_states(self) -> None:
        """Forget every game's warm state: the next append of each re-executes its stored log,
        as another replay process (which never had it) would."""
        with self._warm_lock:
            self._warm.clear()

    def _warm_at(self, game_id: str, seq: int) -> Warm | None:
        with self._warm_lock:
            warm = self._warm.get(game_id)
        return warm if warm is not None and warm.head_seq == seq else None

    def _forget(self, game_id: str, seq: int) -> None:
        """Drop the warm state of a game when it is the one at ``seq`` (another thread may
        have moved it on since)."""
        with self._warm_lock:
            warm = self._warm.get(game_id)
            if warm is not None and warm.head_seq <= seq:
                del self._warm[game_id]

    def _load(self, game_id: str, expected_seq: int) -> Warm:
        """The game's state at its stored head, re-executed from its log (a cold cache, or
        another process moved the game): SEQ_CONFLICT when the head is not ``expected_seq``,
        GAME_OVER when the game has ended, LOG_INVALID when the stored log does not replay."""
        try:
            game, rows = self.store.game_and_events(game_id, with_players=False)
        except StoreError:
            raise SeqConflict(game_id, expected_seq, 0) from None
        if game.head_seq != expected_seq:
            raise SeqConflict(game_id, expected_seq, game.head_seq)
        if game.status != "running":
            raise BadAppend(f"game {game_id!r} is over ({game.status})", RulesReason.GAME_OVER)
        rx = reexecute(game_id, rows, strict=True, partial=True)
        if rx.divergence is not None or rx.state is None:
            seq = rx.divergence.seq if rx.divergence else 1
            raise GameRefused(
                ServiceReason.LOG_INVALID,
                f"the stored log does not replay at seq {seq}; nothing can follow it",
                {"seq": str(seq)},
            )
        warm = Warm(game.head_seq, game.head_hash, rx.state, rx.pending)
        with self._warm_lock:
            self._warm[game_id] = warm
        return warm

    # ------------------------------------------------------------------ reading
    def header(self, game_id: str) -> dict[str, Any]:
        rows = self.store.events(game_id, 1, limit=1)
        return data_of(_decode(rows[0])) if rows else {}

    def verify(self, game_id: str) -> Verification:
        """The hash chain, then a strict re-execution, then the stored status and result."""
        # Verification needs the head, status and result, not the players: one query less.
        game, rows = self.store.game_and_events(game_id, with_players=False)
        bad = first_chain_break(game, rows)
        if bad is not None:
            return Verification(
                False, False, False, bad, ServiceReason.CHAIN_BROKEN,
                f"the stored hash at seq {bad} does not follow from the chain",
                len(rows), game.head_hash, None,
            )  # fmt: skip
        rx = reexecute(game_id, rows, strict=True)
        state = rx.state
        settlement = (
            _json_roundtrip(state.settlement.to_dict())
            if state is not None and state.settlement is not None
            else None
        )
        div = rx.divergence
        if div is None and state is not None:
            if state.over:
                where = rx.game_over_seq or game.head_seq
                if game.status != state.status.value:
                    div = Divergence(
                        where, ServiceReason.STATUS_MISMATCH,
                        f"stored status {game.status!r}, the rules give {state.status.value!r}",
                    )  # fmt: skip
                elif game.result != settlement:
                    div = Divergence(
                        where, ServiceReason.RESULT_MISMATCH,
                        "the stored result is not the settlement the rules give",
                    )  # fmt: skip
            elif game.status != "running":
                div = Divergence(
                    game.head_seq, ServiceReason.STATUS_MISMATCH,
                    f"stored status {game.status!r}, but the log has not ended the game",
                )  # fmt: skip
        if div is None:
            return Verification(True, True, True, 0, "", "", len(rows), game.head_hash, settlement)
        return Verification(
            False, True, False, div.seq, div.reason, div.detail, len(rows), game.head_hash,
            settlement,
        )  # fmt: skip

    def _replayed_log(self, game_id: str) -> tuple[GameRow, Reexecution]:
        game, rows = self.store.game_and_events(game_id)
        rx = reexecute(game_id, rows, strict=False)
        if rx.divergence is not None or rx.state is None:
            seq = rx.divergence.seq if rx.divergence else 1
            detail = rx.divergence.detail if rx.divergence else ""
            raise GameRefused(
                ServiceReason.LOG_INVALID,
                f"the stored log does not replay at seq {seq}: {detail}",
                {"seq": str(seq)},
            )
        return game, rx

    def export(self, game_id: str) -> dict[str, Any]:
        """The game record of DESIGN.md: header, the actions as re-executed, stored result."""
        game, rx = self._replayed_log(game_id)
        assert rx.state is not None
        extra: dict[str, Any] = {"game_id": game_id}
        for key in ("players", "table"):
            if key in rx.header:
                extra[key] = rx.header[key]
        if game.result:
            extra["result"] = {
                k: game.result.get(k) for k in ("status", "scores", "factors", "multiplier")
            }
        return rules.write_record(rx.state, extra)

    def audit_escape(self, game_id: str) -> EscapeAudit:
        game = self.store.game(game_id)
        if game.status != "escaped":
            raise GameRefused(ServiceReason.NOT_ESCAPED, f"game {game_id!r} did not end by escape")
        game, rx = self._replayed_log(game_id)
        state = rx.state
        assert state is not None
        if state.settlement is None or state.status is not rules.Status.ESCAPED:
            raise GameRefused(
                ServiceReason.LOG_INVALID,
                "the stored log does not end by escape",
                {"seq": str(rx.events)},
            )
        recomputed = state.settlement
        recorded: dict[str, Any] = rx.recorded_settlement or game.result or {}
        rec_steps = recorded.get("steps") if isinstance(recorded.get("steps"), list) else []
        steps = []
        for mine, theirs in zip_longest(recomputed.steps, rec_steps or []):
            theirs = theirs if isinstance(theirs, dict) else {}
            value = theirs.get("value")
            value = value if isinstance(value, int) and not isinstance(value, bool) else None
            if mine is None:
                steps.append(
                    AuditStep(
                        str(theirs.get("name", "")), 0, "", value, str(theirs.get("how")), False
                    )
                )
                continue
            steps.append(
                AuditStep(
                    mine.name,
                    mine.value,
                    mine.how,
                    value,
                    str(theirs.get("how", "")),
                    theirs.get("name") == mine.name and value == mine.value,
                )
            )
        factors = list(recomputed.factors)
        bombs = []
        for i, b in enumerate(recomputed.bombs):
            f = factors[i] if i < len(factors) else None
            bombs.append(
                {
                    **b.to_dict(),
                    "factor": f.value if f is not None else 1,
                    "detail": f.detail if f is not None else "",
                }
            )
        rec_scores = recorded.get("scores")
        rec_scores = rec_scores if isinstance(rec_scores, list) else []
        consistent = (
            all(s.matches for s in steps)
            and list(recomputed.scores) == rec_scores
            and _json_roundtrip(recomputed.to_dict()) == recorded
        )
        assert state.escaper is not None and rx.leave_seq is not None
        return EscapeAudit(
            game_id=game_id,
            variant=state.variant.name,
            escaper=state.escaper,
            leave_seq=rx.leave_seq,
            stake=recomputed.stake,
            bid=state.bid,
            max_multiplier=recomputed.max_multiplier,
            escape_multiplier=recomputed.escape_multiplier,
            bombs=bombs,
            steps=steps,
            recomputed_scores=list(recomputed.scores),
            recorded_scores=[int(s) for s in rec_scores if isinstance(s, int)],
            consistent=consistent,
            recomputed=recomputed.to_dict(),
            recorded=recorded,
        )

    def player_stats(self, player_id: str) -> Stats:
        totals = self.store.player_stats(player_id)
        last = max(
            totals, key=lambda s: (s.updated_at is not None, s.updated_at or 0), default=None
        )
        zsy = next((s.total for s in totals if s.family == "zhengshangyou"), 0)
        return Stats(
            player_id,
            totals,
            last.last_game_id if last else "",
            last.last_score if last else 0,
            rules.title_for(zsy),
        )

    # ------------------------------------------------------------------ importing
    def import_record(self, data: Any, game_id: str = "") -> Imported:
        """Replay a record through the rules, store it as a game with its events, and verify
        the stored game.  Raises the rules' RecordError/ReplayError for a bad record."""
        record = rules.load_record(data)
        gid = game_id or record.extra.get("game_id")
        if gid is None:
            # The content id comes from the record as the rules write it back (unbound to any
            # game id); the stored game is then dealt bound to it, committing to its seed.
            gid = content_game_id(game_defining(rules.replay(record), record.extra))
        if not isinstance(gid, str):
            raise EventError(ServiceReason.BAD_GAME_ID, "game_id must be a string", "game_id")
        try:
            limits.game_id(gid, reason=ServiceReason.BAD_GAME_ID)
        except limits.LimitError as exc:
            raise EventError(exc.reason, str(exc), exc.field) from None
        state = rules.initial_state(record, gid)
        players = record.extra.get("players") or []
        if not isinstance(players, list):
            raise rules.RecordError("must be a list of player ids", "players")
        events: list[common_pb2.Event] = []
        header = {"game_id": gid, **rules.write_record(state)}
        del header["actions"]
        for key in ("players", "table"):
            if key in record.extra:
                header[key] = record.extra[key]
        events.append(header_message(header))
        events.extend(event_message(e) for e in rules.deal_events(state))
        for i, action in enumerate(record.actions):
            try:
                state, produced = rules.apply(state, action)
            except rules.RulesError as exc:
                raise rules.ReplayError(i, action.seat, exc.reason, str(exc)) from None
            actor = ""
            if 0 <= action.seat < len(players) and isinstance(players[action.seat], str):
                actor = players[action.seat]
            by = getattr(action, "by", None)
            if isinstance(action, rules.Timeout):
                by = "timeout"
            cause = CAUSE_OF_BY.get(by or "", common_pb2.CAUSE_PLAYER)
            events.extend(event_message(e, actor=actor, cause=cause) for e in produced)
        if not state.over or state.settlement is None:
            raise GameRefused(ServiceReason.GAME_NOT_OVER, "the record ends before the game does")
        claimed = record.extra.get("result")
        if isinstance(claimed, Mapping):
            mine = state.settlement
            for key, value in (("status", mine.status), ("scores", list(mine.scores))):
                if key in claimed and claimed[key] != value:
                    raise GameRefused(
                        ServiceReason.RESULT_MISMATCH,
                        f"the record's result {key} {claimed[key]!r} is not what its actions "
                        f"give: {value!r}",
                        {"field": f"result.{key}"},
                    )
        defining = game_defining(state, record.extra)
        canonical = dumps(rules.write_record(state, {"players": players}))
        request_id = "import:" + hashlib.sha256(f"{gid}\0{canonical}".encode()).hexdigest()[:48]
        try:
            result, _ = self.append(gid, 0, events, request_id)
        except SeqConflict:
            # Stored another way (say, appended live): the same game is already present.
            if not self._holds(gid, defining):
                raise GameRefused(
                    ServiceReason.GAME_EXISTS,
                    f"another game is stored as {gid!r}",
                    {"game_id": gid},
                ) from None
            return Imported(self.store.game(gid), self.verify(gid), True)
        return Imported(self.store.game(gid), self.verify(gid), result.replayed)

    def _holds(self, game_id: str, defining: Mapping[str, Any]) -> bool:
        """Whether the game stored as ``game_id`` is the game ``defining`` describes."""
        try:
            stored = self.export(game_id)
        except StoreError:
            return False
        return _canonical(_defining_fields(stored)) == _canonical(defining)

    # ------------------------------------------------------------------ an account
    def show(self, game_id: str) -> list[str]:
        """A readable account of a game, trick by trick (``cardroom replay show``)."""
        game, rows = self.store.game_and_events(game_id)
        rx = reexecute(game_id, rows, strict=False)
        header = rx.header
        players = list(game.players)

        def who(seat: Any) -> str:
            if isinstance(seat, int) and 0 <= seat < len(players):
                return f"seat {seat} ({players[seat]})"
            return f"seat {seat}"

        room = header.get("room") or {}
        lines = [
            f"Game {game_id} · {game.variant} · rules v{game.rules_version} · {game.status}",
            f"Created {game.created_at:%Y-%m-%d %H:%M:%S}"
            + (f", ended {game.ended_at:%Y-%m-%d %H:%M:%S}" if game.ended_at else ""),
            "Room: " + ", ".join(f"{k} {v}" for k, v in room.items()),
            f"Deal: {dumps(header.get('deal'))}",
            f"Head hash: {game.head_hash.hex()}",
        ]
        trick = 0
        for row in rows[1:]:
            ev = _decode(row)
            data = data_of(ev)
            seat = data.get("seat")
            note = ""
            cause = BY_OF_CAUSE.get(ev.envelope.cause)
            if cause:
                note = f" [{cause}]"
            kind = ev.type
            if kind == "deal":
                if "hand" in data:
                    lines.append(f"  hand of {who(seat_of_event(ev))}: {data['hand']}")
                else:
                    no = data.get("deal_no", 0)
                    lines.append(f"Deal {no}: counts {data.get('counts')}")
                    if "opener" in data:
                        lines.append(f"  {who(data['opener'])} opens")
                        trick = 1
                        lines.append("Trick 1:")
                    elif "first_bidder" in data:
                        lines.append(f"Bidding, {who(data['first_bidder'])} first:")
            elif kind == "bid":
                lines.append(f"  {who(seat)} bids {data.get('amount')}{note}")
            elif kind == "pass":
                lines.append(f"  {who(seat)} passes{note}")
            elif kind == "landlord":
                bottom = f", bottom {data['bottom']}" if "bottom" in data else ""
                lines.append(f"Landlord: {who(seat)} at bid {data.get('bid')}{bottom}")
                trick = 1
                lines.append("Trick 1:")
            elif kind == "bottom":
                lines.append(f"  bottom (to {who(seat)} only): {data.get('bottom')}")
            elif kind == "play":
                lines.append(
                    f"  {who(seat)} plays {data.get('cards')} ({data.get('pattern')}),"
                    f" {data.get('left')} left{note}"
                )
            elif kind == "new_trick":
                trick += 1
                lines.append(f"Trick {trick}: {who(seat)} leads")
            elif kind == "show_hand":
                lines.append(f"  {who(seat)} shows his hand: {data.get('hand')}")
            elif kind == "autoplay":
                lines.append(f"  {who(seat)} turns auto-play {'on' if data.get('on') else 'off'}")
            elif kind == "leave":
                lines.append(f"  {who(seat)} leaves the game (escape)")
            elif kind == "redeal":
                lines.append(f"Everybody passed: redeal {data.get('deal_no')}")
            elif kind == GAME_OVER:
                lines.extend(_settlement_lines(data.get("settlement") or {}, who))
            else:
                lines.append(f"  {kind}: {dumps(data)}")
        if rx.divergence is not None:
            d = rx.divergence
            lines.append(f"(the log does not replay at seq {d.seq}: {d.reason}: {d.detail})")
        return lines


def _settlement_lines(s: Mapping[str, Any], who: Any) -> list[str]:
    out = [f"Result: {s.get('status')}"]
    for role in ("landlord", "winner", "escaper"):
        if s.get(role) is not None:
            out.append(f"  {role}: {who(s[role])}")
    scores = s.get("scores") or []
    out.append("  scores: " + ", ".join(f"{who(i)} {v:+d}" for i, v in enumerate(scores)))
    for f in s.get("factors") or []:
        out.append(f"  factor {f.get('name')} ×{f.get('value')}: {f.get('detail')}")
    for step in s.get("steps") or []:
        out.append(f"  step {step.get('name')} = {step.get('value')}: {step.get('how')}")
    return out
