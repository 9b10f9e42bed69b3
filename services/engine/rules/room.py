"""Room settings: the stake, the multiplier bounds and the variant fields a room overrides.

>>> Room.from_dict({"stake": 2, "max_multiplier": 8, "spring_factor": 4}).to_dict()
{'stake': 2, 'max_multiplier': 8, 'escape_multiplier': None, 'spring_factor': 4}
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from .variants import VARIANTS, Variant, VariantError

_ROOM_FIELDS = ("stake", "max_multiplier", "escape_multiplier")


def _positive(name: str, value: Any, optional: bool) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        what = "a whole number ≥ 1" + (" or null" if optional else "")
        raise VariantError(f"room field {name!r} must be {what}", name)


@dataclasses.dataclass(frozen=True)
class Room:
    """``stake`` is the room's base (底分); ``max_multiplier`` caps the whole multiplier and
    the escape multiplier; ``escape_multiplier`` is the least escape multiplier (None: unset);
    ``overrides`` are variant "choice" fields, as sorted (name, JSON value) pairs."""

    stake: int = 1
    max_multiplier: int | None = None
    escape_multiplier: int | None = None
    overrides: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        _positive("stake", self.stake, False)
        _positive("max_multiplier", self.max_multiplier, True)
        _positive("escape_multiplier", self.escape_multiplier, True)
        # JSON-canonical values, sorted by name: a room equals its own round trip.
        try:
            clean = tuple(sorted((str(k), json.loads(json.dumps(v))) for k, v in self.overrides))
        except (TypeError, ValueError):
            raise VariantError("room overrides must be JSON values", "room") from None
        object.__setattr__(self, "overrides", clean)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Room:
        """A room from its JSON form; every key but the three room fields is a variant
        override (checked when a game starts, by :meth:`variant_for`)."""
        if not isinstance(data, Mapping):
            raise VariantError("room must be an object", "room")
        overrides = tuple((k, v) for k, v in data.items() if k not in _ROOM_FIELDS)
        return cls(
            stake=data.get("stake", 1),
            max_multiplier=data.get("max_multiplier"),
            escape_multiplier=data.get("escape_multiplier"),
            overrides=overrides,
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "stake": self.stake,
            "max_multiplier": self.max_multiplier,
            "escape_multiplier": self.escape_multiplier,
        }
        out.update(self.overrides)
        return out

    def variant_for(self, name: str) -> Variant:
        """The variant ``name`` with this room's overrides (validated; :class:`VariantError`
        names the first bad field).  Built once per distinct room and variant."""
        return _variant_for(name, json.dumps(self.overrides))


@lru_cache(maxsize=256)
def _variant_for(name: str, overrides_json: str) -> Variant:
    base = VARIANTS.get(name)
    if base is None:
        raise VariantError(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})", "variant")
    pairs = json.loads(overrides_json)
    return base.override({k: v for k, v in pairs})
