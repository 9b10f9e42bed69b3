"""The one conversion between the rules' values and their JSON forms.

Two forms exist, each written and read only here:

* the **record form** of DESIGN.md — readable, in card notation: actions
  (``{"seat": 0, "play": "3s3h", "as": "pair:3"}``), deals (``{"seed": …}`` or explicit
  hands), settlements.  Game records, views, events and the services' JSON fields use it;
* the **compact form** sealed into the engine's state tokens — card ids and short lists,
  because opening a token is on every call's path and parsing notation was its largest cost.

Reading the record form validates: a bad value raises :class:`RecordError` naming its path.

>>> from .actions import PlayCards
>>> from .cards import parse_cards
>>> play = PlayCards(1, parse_cards("3s3h"), "pair:3")
>>> action_to_dict(play)
{'seat': 1, 'play': '3s3h', 'as': 'pair:3'}
>>> action_from_dict(action_to_dict(play)) == play, unpack_action(pack_action(play)) == play
(True, True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, Final

from .actions import Action, Bid, Leave, Pass, PlayCards, SetAutoplay, ShowHand, Timeout
from .cards import CARDS, RANK_NAMES, Card, CardParseError, format_cards, parse_cards
from .deal import DealSpec, ExplicitDeal, SeedDeal
from .errors import RecordError
from .kinds import Kind
from .patterns import Pattern
from .scoring import BombRecord, Factor, Settlement, Step
from .variants import Variant

#: Who decided an action that its seat did not choose itself (the record's ``"by"``).
BY_VALUES: Final = frozenset({"player", "timeout", "autoplay", "bot", "disconnect"})
ACTION_KEYS: Final = ("bid", "pass", "play", "show_hand", "leave", "autoplay", "timeout")


def card_tuple(ids: Sequence[int]) -> tuple[Card, ...]:
    """Card values of card ids (trusted: the engine wrote them)."""
    return tuple(map(CARDS.__getitem__, ids))


def cards_of(text: Any, field: str) -> tuple[Card, ...]:
    """Cards of a record's card text; :class:`RecordError` names ``field``."""
    if not isinstance(text, str):
        raise RecordError('must be a string of cards like "3s3h4d"', field)
    try:
        return parse_cards(text)
    except CardParseError as exc:
        raise RecordError(str(exc), field) from None


# --------------------------------------------------------------------------- actions
@lru_cache(maxsize=1 << 16)
def _action_dict(action: Action) -> dict[str, Any]:
    out: dict[str, Any] = {"seat": action.seat}
    if isinstance(action, Bid):
        out["bid"] = action.amount
    elif isinstance(action, Pass):
        out["pass"] = True
    elif isinstance(action, PlayCards):
        out["play"] = format_cards(action.cards)
        if action.reading is not None:
            out["as"] = action.reading
    elif isinstance(action, ShowHand):
        out["show_hand"] = True
    elif isinstance(action, Leave):
        out["leave"] = True
    elif isinstance(action, SetAutoplay):
        out["autoplay"] = action.on
    else:
        out["timeout"] = True
    by = getattr(action, "by", None)
    if by is not None:
        out["by"] = by
    return out


def action_to_dict(action: Action) -> dict[str, Any]:
    """An action in record form.  Views convert a whole deal's actions after every move, so
    the conversion is memoised (actions are frozen values); each call gets its own dict."""
    return dict(_action_dict(action))


def action_from_dict(data: Any, index: int | None = None) -> Action:
    """An action from its record form; :class:`RecordError` names the field
    (``actions[3].play`` when ``index`` is given)."""
    where = "action" if index is None else f"actions[{index}]"
    if not isinstance(data, Mapping):
        raise RecordError('must be an object like {"seat": 0, "bid": 1}', where)
    seat = data.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise RecordError("must be a seat number", f"{where}.seat")
    kinds = [k for k in ACTION_KEYS if k in data]
    if len(kinds) != 1:
        raise RecordError(f"must hold exactly one of {', '.join(ACTION_KEYS)}", where)
    kind = kinds[0]
    allowed = {"seat", kind}
    by = data.get("by")
    if kind in ("bid", "pass", "play"):
        allowed.add("by")
        if by is not None and by not in BY_VALUES:
            raise RecordError(f"must be one of {', '.join(sorted(BY_VALUES))}", f"{where}.by")
    if kind == "play":
        allowed.add("as")
    extra = set(data) - allowed
    if extra:
        raise RecordError(f"unexpected field {sorted(extra)[0]!r}", where)
    value = data[kind]
    if kind == "bid":
        if isinstance(value, bool) or not isinstance(value, int):
            raise RecordError("must be 1, 2 or 3", f"{where}.bid")
        return Bid(seat, value, by)
    if kind == "play":
        reading = data.get("as")
        if reading is not None and not isinstance(reading, str):
            raise RecordError('must be a reading like "plane_single:6"', f"{where}.as")
        return PlayCards(seat, cards_of(value, f"{where}.play"), reading, by)
    if kind == "autoplay":
        if not isinstance(value, bool):
            raise RecordError("must be true or false", f"{where}.autoplay")
        return SetAutoplay(seat, value)
    if value is not True:
        raise RecordError("must be true", f"{where}.{kind}")
    if kind == "pass":
        return Pass(seat, by)
    if kind == "show_hand":
        return ShowHand(seat)
    if kind == "leave":
        return Leave(seat)
    return Timeout(seat)


#: Actions read by :func:`memo_action_from_dict`, by their JSON object's items and value types.
_READ: dict[tuple[Any, ...], Action] = {}
_READ_MAX: Final = 1 << 16


def memo_action_from_dict(data: Any) -> Action:
    """:func:`action_from_dict`, memoised: every view carries its deal's whole history, so a
    reader of consecutive views (a bot's table) would parse each action again after every
    move, which was most of reading a view.  Keyed by the object's items and their value
    types (``True == 1`` in Python, not in a record); an object with an unhashable value (a
    list where a card text belongs) is read unmemoised, and so refused with its field named."""
    if type(data) is dict:
        key = tuple(data.items()) + tuple(map(type, data.values()))
        try:
            return _READ[key]
        except KeyError:
            action = action_from_dict(data)
            if len(_READ) >= _READ_MAX:
                _READ.clear()
            _READ[key] = action
            return action
        except TypeError:
            pass  # an unhashable value
    return action_from_dict(data)


def pack_action(a: Action) -> list[Any]:
    """An action in compact form: a one-letter type, the seat, then its fields."""
    if isinstance(a, PlayCards):
        return ["c", a.seat, list(a.cards), a.reading, a.by]
    if isinstance(a, Pass):
        return ["p", a.seat, a.by]
    if isinstance(a, Bid):
        return ["b", a.seat, a.amount, a.by]
    if isinstance(a, SetAutoplay):
        return ["a", a.seat, a.on]
    if isinstance(a, ShowHand):
        return ["s", a.seat]
    if isinstance(a, Leave):
        return ["l", a.seat]
    return ["t", a.seat]


def unpack_action(items: Sequence[Any]) -> Action:
    """The action of :func:`pack_action`'s output (trusted: the engine sealed it)."""
    code, seat = items[0], items[1]
    if code == "c":
        return PlayCards(seat, card_tuple(items[2]), items[3], items[4])
    if code == "p":
        return Pass(seat, items[2])
    if code == "b":
        return Bid(seat, items[2], items[3])
    if code == "a":
        return SetAutoplay(seat, items[2])
    if code == "s":
        return ShowHand(seat)
    if code == "l":
        return Leave(seat)
    return Timeout(seat)


# --------------------------------------------------------------------------- deals
def deal_to_dict(deal: DealSpec) -> dict[str, Any]:
    if isinstance(deal, SeedDeal):
        return {"seed": deal.seed}
    out: dict[str, Any] = {"hands": [format_cards(h) for h in deal.hands]}
    if deal.bottom:
        out["bottom"] = format_cards(deal.bottom)
    if deal.opener is not None:
        out["opener"] = deal.opener
    return out


def deal_from_dict(data: Any, v: Variant) -> DealSpec:
    """A deal from its record form, checked against the variant's seats."""
    if not isinstance(data, Mapping):
        raise RecordError('must be {"seed": …} or {"hands": […], "bottom": …}', "deal")
    if "seed" in data:
        seed = data["seed"]
        if not isinstance(seed, str) or not seed:
            raise RecordError("must be a non-empty string", "deal.seed")
        extra = set(data) - {"seed"}
        if extra:
            raise RecordError(f"a seeded deal has no {sorted(extra)[0]!r}", "deal")
        return SeedDeal(seed)
    hands = data.get("hands")
    if not isinstance(hands, list) or len(hands) != v.players:
        raise RecordError(f"must be a list of {v.players} hands", "deal.hands")
    parsed = tuple(cards_of(h, f"deal.hands[{i}]") for i, h in enumerate(hands))
    bottom = cards_of(data.get("bottom", ""), "deal.bottom")
    opener = data.get("opener")
    if opener is not None and (
        isinstance(opener, bool) or not isinstance(opener, int) or not 0 <= opener < v.players
    ):
        raise RecordError(f"must be a seat 0..{v.players - 1}", "deal.opener")
    extra = set(data) - {"hands", "bottom", "opener"}
    if extra:
        raise RecordError(f"unknown field {sorted(extra)[0]!r}", "deal")
    return ExplicitDeal(parsed, bottom, opener)


# --------------------------------------------------------------------------- patterns
def pattern_to_list(p: Pattern) -> list[Any]:
    return [p.kind.value, p.rank, p.length, p.size, p.low, p.order]


def pattern_from_list(items: Sequence[Any]) -> Pattern:
    kind, rank, length, size, low, order = items
    return Pattern(Kind(kind), rank, length, size, low, order)


# --------------------------------------------------------------------------- settlements
_RANK_INDEX: Final = {name: i for i, name in enumerate(RANK_NAMES)}


def settlement_from_dict(data: Mapping[str, Any]) -> Settlement:
    """The settlement of :meth:`Settlement.to_dict`'s output (as a view carries it)."""
    return Settlement(
        variant=data["variant"],
        family=data["family"],
        status=data["status"],
        scores=tuple(data["scores"]),
        stake=data["stake"],
        max_multiplier=data["max_multiplier"],
        escape_multiplier=data["escape_multiplier"],
        landlord=data["landlord"],
        winner=data["winner"],
        escaper=data["escaper"],
        bid=data["bid"],
        base=data["base"],
        bombs=tuple(
            BombRecord(b["seat"], b["kind"], b["size"], _RANK_INDEX[b["rank"]], b["led"])
            for b in data["bombs"]
        ),
        factors=tuple(Factor(f["name"], f["value"], f["detail"]) for f in data["factors"]),
        multiplier_before_cap=data["multiplier_before_cap"],
        multiplier=data["multiplier"],
        steps=tuple(Step(s["name"], s["value"], s["how"]) for s in data["steps"]),
    )
