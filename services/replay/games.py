"""The replay service's operations on stored games, shared by the gRPC servicer and the CLI:
re-execution through the rules library, verification, export and import of game records,
escape audits, player totals and a readable account of a game.

Re-execution is the heart of it: the header gives the deal, every action event is turned back
into the rules action it records and applied, and the events the rules produce must be exactly
the stored ones, in order.  The first event where they part is where the log stops following
from its seed and moves.
"""

from __future__ import annotations

import hashlib
import json
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import zip_longest
from typing import Any

from cardroom.v1 import common_pb2
from google.protobuf.message import DecodeError

from services.engine import rules

from .events import (
    ACTION_TYPES,
    BY_OF_CAUSE,
    CAUSE_OF_BY,
    GAME_OVER,
    HEADER,
    EventError,
    data_of,
    decode,
    dumps,
    expected_data,
    header_event,
    header_record,
    prepare_append,
    rules_event,
    seat_of_event,
)
from .store import (
    AppendResult,
    EventStore,
    GameRow,
    PlayerStats,
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


class _BadAction(ValueError):
    pass


def _decode(row: StoredEvent) -> common_pb2.Event:
    try:
        return decode(row.payload)
    except DecodeError:
        return common_pb2.Event()  # only a tampered row; it will not match anything


def action_of_event(ev: common_pb2.Event, state: rules.GameState) -> rules.Action:
    """The rules action an action event records.  ``by`` comes from the envelope's cause; a
    lead whose cards read several ways names the reading the event recorded."""
    data = data_of(ev)
    seat = data.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise _BadAction("the event names no seat")
    by = BY_OF_CAUSE.get(ev.envelope.cause)
    kind = ev.type
    if kind == "bid":
        amount = data.get("amount")
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise _BadAction("a bid event needs its amount")
        return rules.Bid(seat, amount, by)
    if kind == "pass":
        return rules.Pass(seat, by)
    if kind == "play":
        text = data.get("cards")
        if not isinstance(text, str):
            raise _BadAction("a play event needs its cards")
        try:
            cards = rules.parse_cards(text)
            reading = None
            pattern = data.get("pattern")
            if (
                state.last is None
                and isinstance(pattern, str)
                and len(rules.readings(state.variant, cards)) > 1
            ):
                reading = pattern
        except (rules.CardParseError, rules.RulesError) as exc:
            raise _BadAction(str(exc)) from None
        return rules.PlayCards(seat, cards, reading, by)
    if kind == "show_hand":
        return rules.ShowHand(seat)
    if kind == "leave":
        return rules.Leave(seat)
    on = data.get("on")
    if not isinstance(on, bool):
        raise _BadAction("an autoplay event needs on: true or false")
    return rules.SetAutoplay(seat, on)


def _same(ev: common_pb2.Event, expected: rules.Event) -> str | None:
    """None when a stored event is the one the rules produced, else what differs."""
    if ev.type != expected.type:
        return f"stored {ev.type or '?'!r}, the rules give {expected.type!r}"
    if seat_of_event(ev) != expected.to:
        return f"visibility: stored seat {seat_of_event(ev)}, the rules give {expected.to}"
    if ev.data_json == dumps({"seat": expected.seat, **expected.data}):
        return None  # the usual case: written by this engine, byte for byte
    want = expected_data(expected)
    got = data_of(ev)
    if got != want:
        return f"{ev.type}: stored {dumps(got)}, the rules give {dumps(want)}"
    return None


def reexecute(game_id: str, rows: Sequence[StoredEvent], strict: bool = True) -> Reexecution:
    """Re-execute a stored log.  ``strict``: every stored event must be the next one the rules
    produce (verification); otherwise only the action events are applied (export, audit)."""
    out = Reexecution()
    if not rows:
        out.divergence = Divergence(1, "MISSING_EVENTS", "the game has no events")
        return out
    first = _decode(rows[0])
    out.events = len(rows)
    if first.type != HEADER:
        out.divergence = Divergence(rows[0].seq, "BAD_HEADER", "the first event is no header")
        return out
    out.header = data_of(first)
    try:
        state: rules.GameState = rules.initial_state(header_record(out.header))
    except (rules.RulesError, rules.VariantError) as exc:
        out.divergence = Divergence(rows[0].seq, "BAD_HEADER", str(exc))
        return out
    pending: deque[rules.Event] = deque(rules.deal_events(state))
    for row in rows[1:]:
        ev = _decode(row)
        env = ev.envelope
        if env.seq != row.seq or env.game_id != game_id:
            out.divergence = Divergence(
                row.seq, "EVENT_MISMATCH", f"the envelope says {env.game_id!r} #{env.seq}"
            )
            break
        if ev.type == GAME_OVER:
            out.game_over_seq = row.seq
            out.recorded_settlement = data_of(ev).get("settlement")
        if ev.type in ACTION_TYPES and not (strict and pending):
            try:
                action = action_of_event(ev, state)
                state, produced = rules.apply(state, action)
            except _BadAction as exc:
                out.divergence = Divergence(row.seq, "BAD_EVENT", str(exc))
                break
            except rules.RulesError as exc:
                out.divergence = Divergence(row.seq, "ILLEGAL_ACTION", f"{exc.reason}: {exc}")
                break
            if isinstance(action, rules.Leave):
                out.leave_seq = row.seq
            pending = deque(produced)
        if not strict:
            continue
        if not pending:
            out.divergence = Divergence(
                row.seq, "UNEXPECTED_EVENT", f"{ev.type or '?'!r} where the rules await an action"
            )
            break
        differs = _same(ev, pending.popleft())
        if differs is not None:
            out.divergence = Divergence(row.seq, "EVENT_MISMATCH", differs)
            break
    else:
        if strict and pending:
            missing = ", ".join(e.type for e in pending)
            out.divergence = Divergence(
                rows[-1].seq + 1, "MISSING_EVENTS", f"the log ends before: {missing}"
            )
    out.state = state
    return out


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

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._variants: dict[str, rules.Variant] = {}

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
        """Append proto events (see :func:`prepare_append`); returns the store's answer and
        the game's status afterwards."""
        v = None
        if expected_seq > 0:
            v = self.variant_of(game_id)
            if v is None:
                # Nothing stored there: what the writer expects is not where the game is.
                from .store import SeqConflict

                raise SeqConflict(game_id, expected_seq, 0)
        prepared = prepare_append(game_id, expected_seq, events, v, now or self.store.clock())
        result = self.store.append(
            game_id,
            expected_seq,
            prepared.events,
            request_id,
            header=prepared.header,
            ending=prepared.ending,
        )
        if prepared.ending is not None and not result.replayed:
            status = prepared.ending.status
        elif result.replayed or prepared.ending is not None:
            status = self.store.head(game_id)[1]
        else:
            status = "running"
        return result, status

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
                False, False, False, bad, "CHAIN_BROKEN",
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
                        where, "STATUS_MISMATCH",
                        f"stored status {game.status!r}, the rules give {state.status.value!r}",
                    )  # fmt: skip
                elif game.result != settlement:
                    div = Divergence(
                        where, "RESULT_MISMATCH",
                        "the stored result is not the settlement the rules give",
                    )  # fmt: skip
            elif game.status != "running":
                div = Divergence(
                    game.head_seq, "STATUS_MISMATCH",
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
                "LOG_INVALID",
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
            raise GameRefused("NOT_ESCAPED", f"game {game_id!r} did not end by escape")
        game, rx = self._replayed_log(game_id)
        state = rx.state
        assert state is not None
        if state.settlement is None or state.status is not rules.Status.ESCAPED:
            raise GameRefused(
                "LOG_INVALID", "the stored log does not end by escape", {"seq": str(rx.events)}
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
        state = rules.initial_state(record)
        players = record.extra.get("players") or []
        if not isinstance(players, list):
            raise rules.RecordError("must be a list of player ids", "players")
        events: list[common_pb2.Event] = []
        header = rules.write_record(state)
        del header["actions"]
        for key in ("players", "table"):
            if key in record.extra:
                header[key] = record.extra[key]
        events.append(header_event(header))
        events.extend(rules_event(e) for e in rules.deal_events(state))
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
            events.extend(rules_event(e, actor, cause) for e in produced)
        if not state.over or state.settlement is None:
            raise GameRefused("GAME_NOT_OVER", "the record ends before the game does")
        claimed = record.extra.get("result")
        if isinstance(claimed, Mapping):
            mine = state.settlement
            for key, value in (("status", mine.status), ("scores", list(mine.scores))):
                if key in claimed and claimed[key] != value:
                    raise GameRefused(
                        "RESULT_MISMATCH",
                        f"the record's result {key} {claimed[key]!r} is not what its actions "
                        f"give: {value!r}",
                        {"field": f"result.{key}"},
                    )
        defining = game_defining(state, record.extra)
        gid = game_id or record.extra.get("game_id") or content_game_id(defining)
        if not isinstance(gid, str) or not 0 < len(gid) <= 64:
            raise EventError("BAD_GAME_ID", "game_id must be 1–64 characters", "game_id")
        canonical = dumps(rules.write_record(state, {"players": players}))
        request_id = "import:" + hashlib.sha256(f"{gid}\0{canonical}".encode()).hexdigest()[:48]
        from .store import SeqConflict

        try:
            result, _ = self.append(gid, 0, events, request_id)
        except SeqConflict:
            # Stored another way (say, appended live): the same game is already present.
            if not self._holds(gid, defining):
                raise GameRefused(
                    "GAME_EXISTS", f"another game is stored as {gid!r}", {"game_id": gid}
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

    @staticmethod
    def now() -> datetime:
        return datetime.now(UTC)


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
