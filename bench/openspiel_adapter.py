"""OpenSpiel's Dou Dizhu (its C++ game through ``pyspiel``), and states built for our positions.

OpenSpiel's legal moves are a method of a game state: ``state.legal_actions()`` answers the
current player's moves against the trick's winning action, from the player's cards by rank
(OpenSpiel's game has no suits).  So each position becomes a state reached by OpenSpiel's own
actions, built before any timing:

* the deal: chance action 0 (the face-up card is the first one dealt, so player 0 bids
  first), then 51 cards dealt round the table (player 0, 1, 2, 0, …) and three left over;
* the auction: player 0 bids 3 and is the landlord (dizhu), taking the three cards;
* a **landlord lead** (a 20-card hand, nothing to beat) is that state: player 0 to lead,
  holding the position's hand (17 dealt + the 3 left over);
* a **peasant follow** (a 17-card hand and a play to beat) deals the hand to player 1 and the
  play to beat (with other cards) to player 0, who leads it: player 1 to answer it.

Those are the only positions OpenSpiel's game can reach: a peasant leads only after winning
a trick (so with at most 16 cards) and the landlord, who leads first, never answers a play
with all 20.  :func:`states` says which of the bench's positions it could build; the bench
times both sides on exactly those.

OpenSpiel's card c is suit ``c // 13`` and rank ``c % 13`` (3..2) for c < 52, then the black
and the red joker: the ranks are in our order, so a card's rank is ours.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from services.rules.cards import NUM_RANKS, RANK_OF

#: Our rank (0..14: 3..A, 2, BJ, RJ) → OpenSpiel's card ids of that rank.
_CARDS_OF_RANK = (*(tuple(s * 13 + r for s in range(4)) for r in range(13)), (52,), (53,))
_DEAL_BASE = 51  # OpenSpiel's dealing action of card c is 51 + c
_BID_3 = 3
_PLAYERS = 3


class OpenSpielMissing(RuntimeError):
    pass


@dataclass(frozen=True)
class OpenSpiel:
    version: str
    game: Any  # pyspiel.Game (untyped third-party code)


def load() -> OpenSpiel:
    try:
        pyspiel = importlib.import_module("pyspiel")
    except ImportError as exc:
        raise OpenSpielMissing(
            f"OpenSpiel could not be imported ({exc}); `make bench` installs it:"
            " pip install --no-deps open_spiel==2.0.2 (a wheel exists for CPython 3.11 on"
            " x86_64 Linux)"
        ) from exc
    try:
        dist_version = version("open_spiel")
    except PackageNotFoundError:  # pragma: no cover - importable but without metadata
        dist_version = "?"
    return OpenSpiel(dist_version, pyspiel.load_game("dou_dizhu"))


def _ranks(cards: Sequence[int]) -> list[int]:
    counts = [0] * NUM_RANKS
    for c in cards:
        counts[RANK_OF[c]] += 1
    return counts


def _deal(os: OpenSpiel, hands: list[list[int]], left_over: list[int]) -> Any:
    """A state after the deal and player 0's bid of 3: ``hands[p]`` are rank counts of the 17
    cards player p is dealt, ``left_over`` the 3 cards player 0 takes."""
    pools = [list(cards) for cards in _CARDS_OF_RANK]
    sequences: list[list[int]] = []
    for counts in hands:
        cards = []
        for r, n in enumerate(counts):
            cards += [pools[r].pop() for _ in range(n)]
        sequences.append(cards)
    state = os.game.new_initial_state()
    state.apply_action(0)
    for i in range(17 * _PLAYERS):
        state.apply_action(_DEAL_BASE + sequences[i % _PLAYERS][i // _PLAYERS])
    state.apply_action(_BID_3)
    held = _hand_of(state, 0)
    expected = [a + b for a, b in zip(hands[0], left_over, strict=True)]
    assert held == expected, (held, expected)
    return state


def _hand_of(state: Any, player: int) -> list[int]:
    """The player's cards by rank, read from its observation string ("My hand 3345…(BWJ)(CJ)";
    the observation tensor cannot be read for jokers: their slots overlap the played cards')."""
    text = state.observation_string(player).split("\n", 1)[0].removeprefix("My hand ")
    counts = [0] * NUM_RANKS
    counts[13] = text.count("(BWJ)")
    counts[14] = text.count("(CJ)")
    for ch in text.replace("(BWJ)", "").replace("(CJ)", ""):
        counts[_RANK_CHARS.index(ch)] += 1
    return counts


_RANK_CHARS = "3456789TJQKA2"


def _split(rest: list[int], first: int) -> tuple[list[int], list[int]]:
    """Rank counts ``rest`` cut in two: ``first`` cards (lowest ranks first), the others."""
    a, b = [0] * NUM_RANKS, list(rest)
    for r in range(NUM_RANKS):
        take = min(b[r], first - sum(a))
        a[r] += take
        b[r] -= take
    return a, b


def _deck() -> list[int]:
    return [4] * 13 + [1, 1]


def _minus(a: list[int], b: list[int]) -> list[int]:
    out = [x - y for x, y in zip(a, b, strict=True)]
    assert min(out) >= 0
    return out


def landlord_lead(os: OpenSpiel, hand: Sequence[int]) -> Any:
    h = _ranks(hand)
    rest = _minus(_deck(), h)
    own, left_over = _split(h, 17)
    p1, p2 = _split(rest, 17)
    return _deal(os, [own, p1, p2], left_over)


def peasant_follow(os: OpenSpiel, hand: Sequence[int], last: Sequence[int]) -> Any | None:
    """Player 1 holding ``hand``, to answer player 0's ``last``; None when OpenSpiel's
    landlord cannot lead ``last`` as one action (a play its game lacks)."""
    h, play = _ranks(hand), _ranks(last)
    rest = _minus(_minus(_deck(), h), play)
    more, p2 = _split(rest, 20 - len(last))
    landlord = [a + b for a, b in zip(play, more, strict=True)]
    own, left_over = _split(landlord, 17)
    state = _deal(os, [own, h, p2], left_over)
    after = _minus(landlord, play)
    for action in state.legal_actions():
        child = state.child(action)
        if _hand_of(child, 0) == after:
            assert _hand_of(child, 1) == h
            return child
    return None


def states(
    os: OpenSpiel, positions: Sequence[tuple[Sequence[int], Sequence[int], bool]]
) -> list[tuple[int, Any]]:
    """(index, state) of each position (hand, last, landlord) OpenSpiel's game can reach."""
    out = []
    for i, (hand, last, landlord) in enumerate(positions):
        if landlord and not last and len(hand) == 20:
            out.append((i, landlord_lead(os, hand)))
        elif not landlord and last and len(hand) == 17:
            state = peasant_follow(os, hand, last)
            if state is not None:
                out.append((i, state))
    return out
