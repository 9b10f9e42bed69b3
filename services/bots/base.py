"""What every level shares: the contract (``act(view) -> Action``), the phase dispatch and the
seeded random source.

A bot keeps no state between calls that could change its answer: the same seed and the same
view give the same action (its memos only remember pure functions of their keys).  Its
random numbers come from a ``random.Random`` seeded with the bot's seed and the observation —
never the global generator, never the clock.
"""

from __future__ import annotations

import hashlib
import random

from services import rules
from services.rules import Action, Bid, Pass, PlayCards, ShowHand

from .observe import Observation, observe


class Bot:
    """A player for one variant.  :meth:`act` is the whole contract."""

    level = "base"
    names_readings = True  # a lead names its reading when its cards have several

    def __init__(self, v: rules.Variant, seed: str) -> None:
        self.variant = v
        self.seed = seed

    def __repr__(self) -> str:
        return f"make_bot({self.level!r}, {self.variant.name!r}, seed={self.seed!r})"

    def act(self, view: rules.SeatView) -> Action:
        """The action of ``view.seat``, which must be the seat to move."""
        o = observe(view, self.variant)
        if o.turn != o.seat or o.phase == "over":
            raise ValueError(f"seat {o.seat} is not to move (phase {o.phase}, turn {o.turn})")
        if o.phase == "bidding":
            amount = self.bid(o)
            if amount <= o.bid:
                amount = 0
            if amount == 0 and o.must_bid:
                amount = o.bid + 1
            return Bid(o.seat, min(amount, 3), "bot") if amount else Pass(o.seat, "bot")
        if o.phase == "show_hand" and self.show_hand(o):
            return ShowHand(o.seat)
        play = self.play(o)
        if play is None:
            if o.last is None:  # pragma: no cover - every policy leads something
                raise AssertionError("a lead cannot pass")
            return Pass(o.seat, "bot")
        reading = None
        several = o.last is None and len(rules.readings(self.variant, play.cards)) > 1
        if several and self.names_readings:
            reading = play.pattern.reading
        return PlayCards(o.seat, play.cards, reading, "bot")

    def rng(self, o: Observation) -> random.Random:
        """A generator seeded from the bot's seed and what the seat sees now."""
        text = "|".join(
            (
                self.seed,
                str(o.seat),
                str(o.deal_no),
                str(len(o.plays)),
                rules.format_cards(o.hand),
                ",".join(map(str, o.counts)),
            )
        )
        return random.Random(hashlib.sha256(text.encode()).digest())

    # ------------------------------------------------------------------ the policy
    def bid(self, o: Observation) -> int:
        """The bid (0: pass); the caller keeps it legal."""
        raise NotImplementedError

    def show_hand(self, o: Observation) -> bool:
        return False

    def play(self, o: Observation) -> rules.Play | None:
        """The play (None: pass, only when following)."""
        raise NotImplementedError
