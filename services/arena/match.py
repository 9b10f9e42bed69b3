"""Mirrored matches: every deal played once for each seating of two players, so each sees
the same cards in every role.

Dou Dizhu with the landlord fixed (the default): the deal's first bidder bids 3 and is the
landlord; player A takes the landlord's seat and B every farmer's, then B the landlord's and
A the farmers'.  With real bidding, and in Zheng Shangyou: A alone in seat k and B in every
other seat, for every k.  A game's result is seen from A's side: its role, whether A's side
won, and the score of one of A's seats.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable
from typing import Protocol

from services import rules
from services.bots import make_bot
from services.rules import Action, Bid, GameState


class Agent(Protocol):
    """A player of the arena.  Bots see only ``rules.seat_view``; an outside agent may build
    its own observation from the state the way its own game would (``seen`` is told every
    action applied)."""

    refused: int
    tolerated: bool  # a refused action is counted and replaced (else it is an error)

    def begin(self, state: GameState) -> None: ...

    def act(self, state: GameState, seat: int) -> Action: ...

    def seen(self, state: GameState, action: Action) -> None: ...


class BotAgent:
    """A bot: one per seat, given that seat's view only."""

    def __init__(self, level: str, v: rules.Variant, seed: str) -> None:
        self.level = level
        self.bots = [make_bot(level, v, f"{seed}/{level}/{s}") for s in range(v.players)]
        self.refused = 0
        self.tolerated = False

    def begin(self, state: GameState) -> None:
        pass

    def act(self, state: GameState, seat: int) -> Action:
        return self.bots[seat].act(rules.seat_view(state, seat))

    def seen(self, state: GameState, action: Action) -> None:
        pass


@dataclasses.dataclass(frozen=True)
class GameResult:
    deal: int
    role: str  # "landlord", "farmers" or "alone"
    status: str  # "finished", or "disbanded" (nobody bid three deals in a row)
    win: bool  # A's side won
    score: float  # the score of one of A's seats
    refused: int  # B's refused actions (an outside agent's), replaced by auto-play
    a_seats: tuple[int, ...]


def deal_seed(seed: str, deal: int) -> str:
    return f"{seed}/deal/{deal}"


def numeric_seed(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


def seatings(v: rules.Variant, bidding: bool, landlord: int | None) -> list[tuple[str, set[int]]]:
    """(role, A's seats) for each game of one deal."""
    n = v.players
    if v.bidding and not bidding:
        assert landlord is not None
        farmers = {s for s in range(n) if s != landlord}
        return [("landlord", {landlord}), ("farmers", farmers)]
    return [("alone", {k}) for k in range(n)]


def play_game(state: GameState, agents: list[Agent]) -> GameState:
    """Play ``state`` to its end with ``agents[seat]`` choosing each seat's actions; an
    action the rules refuse from an outside agent is counted on it and replaced by
    auto-play; from a bot it is an error (raised)."""
    for agent in {id(a): a for a in agents}.values():
        agent.begin(state)
    while not state.over:
        seat = state.turn
        assert seat is not None
        agent = agents[seat]
        action = agent.act(state, seat)
        try:
            new, _ = rules.apply(state, action)
        except rules.IllegalAction:
            if not agent.tolerated:
                raise
            agent.refused += 1
            action = rules.autoplay_action(rules.seat_view(state, seat), "autoplay")
            new, _ = rules.apply(state, action)
        for other in {id(a): a for a in agents}.values():
            other.seen(new, action)
        state = new
    return state


def play_deal(
    v: rules.Variant,
    seed: str,
    deal: int,
    a: Agent,
    b: Agent,
    bidding: bool,
) -> list[GameResult]:
    """Every seating of one deal."""
    start = rules.new_game(v, seed=deal_seed(seed, deal))
    landlord = None
    if v.bidding and not bidding:
        landlord = start.turn
        assert landlord is not None
        start, _ = rules.apply(start, Bid(landlord, 3))
    out = []
    for role, a_seats in seatings(v, bidding, landlord):
        agents: list[Agent] = [a if s in a_seats else b for s in range(v.players)]
        before = b.refused
        final = play_game(start, agents)
        settlement = final.settlement
        assert settlement is not None
        mine = min(a_seats)
        if settlement.status != "finished":
            out.append(
                GameResult(
                    deal,
                    role,
                    settlement.status,
                    False,
                    0.0,
                    b.refused - before,
                    tuple(sorted(a_seats)),
                )
            )
            continue
        if role == "alone" and final.landlord is not None:
            role = "landlord" if final.landlord == mine else "farmer"
        winner = settlement.winner
        assert winner is not None
        if final.landlord is None:
            win = winner == mine
        else:
            win = (winner == final.landlord) == (mine == final.landlord)
        out.append(
            GameResult(
                deal,
                role,
                "finished",
                win,
                float(settlement.scores[mine]),
                b.refused - before,
                tuple(sorted(a_seats)),
            )
        )
    return out


def make_agent(name: str, v: rules.Variant, seed: str) -> Agent:
    if name == "rlcard":
        from .rlcard_agent import RLCardRuleAgent

        return RLCardRuleAgent(v, seed)
    return BotAgent(name, v, seed)


@dataclasses.dataclass
class Match:
    """Two players of one variant, and how the deals are played."""

    variant: rules.Variant
    seed: str
    a_name: str
    b_name: str
    bidding: bool = False

    def __post_init__(self) -> None:
        self.a = make_agent(self.a_name, self.variant, self.seed + "/a")
        self.b = make_agent(self.b_name, self.variant, self.seed + "/b")

    def play(self, deals: Iterable[int]) -> list[GameResult]:
        out: list[GameResult] = []
        for d in deals:
            out += play_deal(self.variant, self.seed, d, self.a, self.b, self.bidding)
        return out
