"""``easy``: the auto-play policy (RULES.md §6), read through the view — the same bids and
plays as ``rules.autoplay_action`` makes for the seat."""

from __future__ import annotations

from services import rules

from .base import Bot
from .observe import Observation


def autoplay_play(v: rules.Variant, o: Observation) -> rules.Play | None:
    """Auto-play's play for the observed seat (None: pass)."""
    lord = o.landlord
    no_bombs = (
        lord is not None and o.seat != lord and o.last_seat is not None and o.last_seat != lord
    )
    last = o.last.pattern if o.last is not None else None
    return rules.choose_play(v, o.hand, last, no_bombs=no_bombs, must_hold=o.must_hold)


class EasyBot(Bot):
    level = "easy"
    names_readings = False  # auto-play leaves the reading to the engine's default

    def bid(self, o: Observation) -> int:
        return rules.auto_bid(self.variant, o.hand, o.bid, o.must_bid)

    def play(self, o: Observation) -> rules.Play | None:
        return autoplay_play(self.variant, o)
