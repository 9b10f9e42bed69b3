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
    if ev.type == "game_started":  # the names the table shows for the game's players
        out["names"] = [render.player_label(players, i) for i in range(len(players))]
    out["say"] = {
        lang: render.table_event_text_in(ev.type, data, players, lang) for lang in render.LANGS
    }
    return out


def seat_json(seat: M.Seat, players: Sequence[str]) -> dict[str, Any]:
    """A seat, with the name the table shows (``Bot 1 (hard)`` for a bot: render)."""
    out: dict[str, Any] = {
        "seat": seat.seat,
        "player_id": seat.player_id,
        "name": render.player_label(players, seat.seat),
        "bot": seat.bot,
        "ready": seat.ready,
        "connected": seat.connected,
        "autoplay": seat.autoplay,
        "total": int(seat.total),
    }
    if seat.HasField("last_action"):
        la = str(seat.last_action)
        out["last_action"] = "pass" if la == "pass" else card_list(la)
    return out


def settlement_words(settlement: dict[str, Any], players: Sequence[str]) -> dict[str, list[str]]:
    """The settlement's lines in each language of the page."""
    return {lang: render.settlement_lines_in(settlement, players, lang) for lang in render.LANGS}


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
        "seats": [seat_json(s, [x.player_id for x in snap.seats]) for s in snap.seats],
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


def escape_json(view: rules.SeatView) -> dict[str, Any] | None:
    """What leaving now costs (the penalty first, then every step), or None between games."""
    s = render.escape_preview(view)
    if s is None or view.seat is None:
        return None
    return {
        "penalty": -s.scores[view.seat],
        "steps": {
            lang: [
                render.step_text_in({"name": st.name, "value": st.value, "how": st.how}, lang)
                for st in s.steps
            ]
            for lang in render.LANGS
        },
        "words": render.escape_warning(view),
    }


def rating_json(info: M.PlayerInfo, game_id: str) -> dict[str, str] | None:
    """Game ``game_id``'s rating change for the player, in both languages, once replay has
    rated it (GetPlayer's last change is then this game's), else None."""
    change = render.game_rating_change(info, game_id)
    if change is None:
        return None
    return {lang: render.rating_line_in(*change, lang) for lang in render.LANGS}


def player_json(
    info: M.PlayerInfo, family: str, rating: dict[str, str] | None = None
) -> dict[str, Any]:
    """GetPlayer after a game: the last score, the running total, the title, and the line of
    this game's rating (its change, or "pending"; None for a game that is not rated)."""
    return {
        "t": "player",
        "rating": rating,
        "last_score": int(info.last_score) if info.last_game_id else None,
        "lines": {
            lang: render.running_total_lines_in(
                int(info.last_score) if info.last_game_id else None, info.totals, family, lang
            )
            for lang in render.LANGS
        },
        "title": {
            lang: render.title_line_in(info.title if info.HasField("title") else None, family, lang)
            for lang in render.LANGS
        },
    }
