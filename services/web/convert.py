"""What the browser receives, built from the seat's own stream and answers only: protobuf
messages to JSON with cards as lists of plain strings (RULES.md §1 notation, ``"3s"``,
``"BJ"``), and the sentences a player reads in both languages, from the render module.

Nothing here adds information: every field comes from the message the seat was sent."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from services import rules
from services.client import render
from services.common.wire import common_pb2
from services.common.wire import matchmaker_pb2 as M

#: The JSON keys that hold cards in notation (events, views, settlements).
CARD_KEYS = frozenset({"hand", "cards", "bottom", "shown_hand", "last_play", "play"})


def card_list(notation: str) -> list[str]:
    """``"3s3h BJ"`` -> ``["3s", "3h", "BJ"]``."""
    return [rules.format_cards((c,)) for c in rules.parse_cards(notation or "")]


def with_card_lists(value: Any) -> Any:
    """A JSON value with every card string under :data:`CARD_KEYS` as a list of cards."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            if k in CARD_KEYS and isinstance(v, str):
                try:
                    out[k] = card_list(v)
                except rules.RulesError:
                    out[k] = v
            else:
                out[k] = with_card_lists(v)
        return out
    if isinstance(value, list):
        return [with_card_lists(v) for v in value]
    return value


def both(fn: Any, *args: Any) -> dict[str, str]:
    """A sentence in every language of the page: ``fn(*args, lang)``."""
    return {lang: fn(*args, lang) for lang in render.LANGS}


def cause_name(cause: int) -> str:
    return str(common_pb2.Cause.Name(cause)).removeprefix("CAUSE_").lower()


def event_json(ev: M.TableEvent, players: Sequence[str]) -> dict[str, Any]:
    """One item of the seat's stream."""
    out: dict[str, Any] = {"t": "event", "seq": int(ev.seq), "type": ev.type}
    if ev.type == "game":
        g = ev.game_event
        data = json.loads(g.data_json or "{}")
        if data.get("seat") is None and g.envelope.HasField("seat"):
            data["seat"] = g.envelope.seat
        cause = cause_name(g.envelope.cause)
        tag = render.cause_tag(g.type, cause)
        out["game"] = {
            "type": g.type,
            "data": with_card_lists(data),
            "cause": cause,
            "actor": g.envelope.actor,
            "seq": int(g.envelope.seq),
        }
        out["say"] = {
            lang: render.event_text_in(g.type, data, players, lang) + tag for lang in render.LANGS
        }
        return out
    data = json.loads(ev.data_json or "{}")
    out["data"] = with_card_lists(data)
    text = render.table_event_text(ev.type, data, players)
    out["say"] = {lang: text for lang in render.LANGS}
    return out


def seat_json(seat: M.Seat) -> dict[str, Any]:
    out: dict[str, Any] = {
        "seat": seat.seat,
        "player_id": seat.player_id,
        "bot": seat.bot,
        "ready": seat.ready,
        "connected": seat.connected,
        "autoplay": seat.autoplay,
        "total": int(seat.total),
    }
    # Seat.last_action (field 8) arrives with issue 25; read it where the proto has it.
    if "last_action" in seat.DESCRIPTOR.fields_by_name and seat.HasField("last_action"):
        la = str(seat.last_action)
        out["last_action"] = "pass" if la == "pass" else card_list(la)
    return out


def settlement_words(settlement: dict[str, Any], players: Sequence[str]) -> list[str]:
    return render.settlement_lines(settlement, players)


def snapshot_json(snap: M.TableSnapshot, game_players: Sequence[str] = ()) -> dict[str, Any]:
    """GetTable's answer for the seat: its seats, its own view, the running deadline, the
    last game's settlement — with the words the table shows, naming the seats as they sat
    in that game (``game_players``; a bot may have taken an escaper's seat since)."""
    players = list(game_players) or [s.player_id for s in snap.seats]
    view_dict = json.loads(snap.view.view_json) if snap.view.view_json else None
    settlement = json.loads(snap.last_settlement_json) if snap.last_settlement_json else {}
    out: dict[str, Any] = {
        "t": "snapshot",
        "table_id": snap.table_id,
        "variant": snap.variant,
        "state": str(M.TableState.Name(snap.state)).removeprefix("TABLE_STATE_").lower(),
        "seq": int(snap.seq),
        "seat": snap.seat,
        "game_id": snap.game_id,
        "game_no": snap.game_no,
        "seats": [seat_json(s) for s in snap.seats],
        "deadline_ms": snap.deadline.ToMilliseconds() if snap.HasField("deadline") else None,
        "deadline_kind": snap.deadline_kind,
        "last_scores": [int(x) for x in snap.last_scores],
        "settlement": with_card_lists(settlement),
        "settlement_lines": settlement_words(settlement, players),
        "view": None,
    }
    if view_dict is not None:
        view = rules.SeatView.from_dict(view_dict)
        out["escape"] = escape_json(view)
        # The final record (once over) is the replay viewer's business, not the table's.
        out["view"] = with_card_lists({k: v for k, v in view_dict.items() if k != "record"})
        reading = view_dict.get("last_pattern") or ""
        out["to_beat"] = both(render.pattern_name_in, reading) if reading else None
    return out


#: The game events that are actions of the record (DESIGN.md's game record), by type.
RECORD_ACTIONS = frozenset({"bid", "pass", "play", "show_hand", "leave"})


def record_action(event_type: str, data: dict[str, Any]) -> dict[str, Any] | None:
    """A game event of the seat's stream as the record's action (plays by the clock or by
    auto-play are plain plays there too); None for an event that is no action."""
    if event_type not in RECORD_ACTIONS or data.get("seat") is None:
        return None
    seat = data["seat"]
    if event_type == "bid":
        return {"seat": seat, "bid": data.get("bid", data.get("amount"))}
    if event_type == "play":
        action = {"seat": seat, "play": data.get("cards") or ""}
        return action | ({"as": data["pattern"]} if data.get("pattern") else {})
    return {"seat": seat, {"pass": "pass", "show_hand": "show_hand", "leave": "leave"}[
        event_type]: True}  # fmt: skip


def end_hands(
    variant: str, room: dict[str, Any], first_bidder: int | None, actions: list[dict[str, Any]],
    seed: str,
) -> list[dict[str, Any]] | None:  # fmt: skip
    """Every seat's cards left when the game ended (RULES.md §7: public then), from what the
    seat's own stream held: the seed its game_over reveals and the public actions."""
    record: dict[str, Any] = {"variant": variant, "room": room, "deal": {"seed": seed},
                              "actions": actions}  # fmt: skip
    if first_bidder is not None:
        record["first_bidder"] = first_bidder
    try:
        final = rules.replay(record)
    except rules.RulesError:
        return None
    return [
        {"seat": seat, "cards": [rules.format_cards((c,)) for c in sorted(hand)]}
        for seat, hand in enumerate(final.hands)
    ]


def escape_json(view: rules.SeatView) -> dict[str, Any] | None:
    """What leaving now costs (the penalty first, then every step), or None between games."""
    s = render.escape_preview(view)
    if s is None or view.seat is None:
        return None
    return {
        "penalty": -s.scores[view.seat],
        "steps": [f"{st.name} = {st.value} ({st.how})" for st in s.steps],
        "words": render.escape_warning(view),
    }


def player_json(info: M.PlayerInfo, family: str) -> dict[str, Any]:
    """GetPlayer after a game: the last score, the running total, the title."""
    return {
        "t": "player",
        "last_score": int(info.last_score) if info.last_game_id else None,
        "lines": render.running_total_lines(
            int(info.last_score) if info.last_game_id else None, info.totals, family
        ),
        "title": render.title_text(info.title if info.HasField("title") else None),
    }
