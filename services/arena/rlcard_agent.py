"""RLCard 1.2.0's Dou Dizhu rule agent (``doudizhu-rule-v1``) as an arena player, given
exactly the observation RLCard's own game gives it.

The adapter keeps a mirror of the deal in RLCard's own game objects — its ``Player``,
``Round`` and ``Judger``, built from our hands with the landlord as RLCard's player 0 (RLCard
seats the landlord first; the seats keep their order) — and steps the mirror with every play
and pass of the real game the way ``DoudizhuGame.step`` does.  When the agent is to move it
gets ``DoudizhuGame.get_state`` of its player wrapped as ``DoudizhuEnv`` wraps it for a raw
agent (``raw_obs``, ``raw_legal_actions``); RLCard's numeric encoding is left out, as the
rule agent reads ``raw_obs`` only.  Its answer (a string like ``'33344'``) is turned into our
cards; the agent's only random choice (``np.random.choice`` when it cannot follow with the
same type) draws from numpy's global generator, seeded from the deal's seed at each game.

Our rules decide: a move they refuse (or an exception from the agent) is counted on
``refused`` by the arena and replaced by the auto-play move, and the mirror is stepped with
the move actually made.  ``make bench`` installs RLCard with ``--no-deps`` (numpy and
termcolor beside it, never torch).
"""

from __future__ import annotations

import functools
import importlib
import warnings
from collections import Counter
from types import SimpleNamespace
from typing import Any

from services import rules
from services.rules import Action, GameState, Pass, PlayCards
from services.rules.cards import RANK_OF

from .match import numeric_seed

RANK_CHARS = "3456789TJQKA2BR"
_SUITS = ("S", "H", "C", "D")


def load_rlcard() -> SimpleNamespace:
    """RLCard's modules the adapter uses; ImportError (with how to install) without them."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np = importlib.import_module("numpy")
            game = importlib.import_module("rlcard.games.doudizhu.game")
            utils = importlib.import_module("rlcard.games.doudizhu.utils")
            dz = importlib.import_module("rlcard.games.doudizhu")
            base = importlib.import_module("rlcard.games.base")
            models = importlib.import_module("rlcard.models.doudizhu_rule_models")
    except ImportError as exc:
        raise ImportError(
            f"RLCard could not be imported ({exc}); `make bench` installs it: pip install"
            " --no-deps rlcard==1.2.0 numpy termcolor"
        ) from exc
    return SimpleNamespace(
        np=np,
        Game=game.DoudizhuGame,
        Player=dz.Player,
        Round=dz.Round,
        Judger=dz.Judger,
        Card=base.Card,
        cards2str=utils.cards2str,
        sort_card=utils.doudizhu_sort_card,
        Agent=models.DouDizhuRuleAgentV1,
    )


def rl_string(cards: tuple[int, ...]) -> str:
    """Our cards as RLCard's action string (ranks, low to high; jokers B and R)."""
    return "".join(RANK_CHARS[RANK_OF[c]] for c in sorted(cards))


class RLCardRuleAgent:
    tolerated = True

    def __init__(self, v: rules.Variant, seed: str) -> None:
        if v.name != "doudizhu3":
            raise ValueError("RLCard's rule agent plays doudizhu3 only")
        self.rl = load_rlcard()
        self.agent = self.rl.Agent()
        self.variant = v
        self.refused = 0
        self.reasons: Counter[str] = Counter()
        self.game: Any = None
        self.landlord = 0
        self._key = functools.cmp_to_key(self.rl.sort_card)

    # ------------------------------------------------------------------ the mirror
    def _card(self, c: int) -> Any:
        if c == 52:
            return self.rl.Card("BJ", "")
        if c == 53:
            return self.rl.Card("RJ", "")
        return self.rl.Card(_SUITS[c & 3], RANK_CHARS[c >> 2])

    def begin(self, state: GameState) -> None:
        """Deal the mirror: our landlord is RLCard's player 0, the seats keep their order."""
        rl = self.rl
        assert state.landlord is not None, "RLCard's game starts with the landlord known"
        self.landlord = state.landlord
        rl.np.random.seed(numeric_seed(f"rlcard/{state.seed()}"))
        g = rl.Game()
        g.winner_id = None
        g.history = []
        g.players = [rl.Player(i, g.np_random) for i in range(3)]
        for i, player in enumerate(g.players):
            hand = sorted(
                (self._card(c) for c in state.hands[(self.landlord + i) % 3]), key=self._key
            )
            player.set_current_hand(hand)
            player.initial_hand = rl.cards2str(hand)
            player.role = "landlord" if i == 0 else "peasant"
        g.played_cards = [rl.np.zeros((15,), dtype=rl.np.int32) for _ in range(3)]
        r = rl.Round(g.np_random, g.played_cards)
        seen = sorted((self._card(c) for c in state.bottom), key=self._key)
        r.seen_cards = rl.cards2str(seen)
        r.landlord_id = 0
        r.current_player = 0
        r.public = {
            "deck": r.deck_str,
            "seen_cards": r.seen_cards,
            "landlord": 0,
            "trace": r.trace,
            "played_cards": ["" for _ in range(3)],
        }
        g.round = r
        g.judger = rl.Judger(g.players, g.np_random)
        self.game = g

    def _step(self, action: str) -> None:
        """``DoudizhuGame.step`` without its ``get_state`` of the next player."""
        g = self.game
        player = g.players[g.round.current_player]
        g.round.proceed_round(player, action)
        if action != "pass":
            g.judger.calc_playable_cards(player)
        if g.judger.judge_game(g.players, g.round.current_player):
            g.winner_id = g.round.current_player
        g.round.current_player = (player.player_id + 1) % 3

    def seen(self, state: GameState, action: Action) -> None:
        if isinstance(action, PlayCards):
            self._step(rl_string(action.cards))
        elif isinstance(action, Pass) and state.phase.value != "bidding":
            self._step("pass")

    # ------------------------------------------------------------------ acting
    def act(self, state: GameState, seat: int) -> Action:
        g = self.game
        rl_id = (seat - self.landlord) % 3
        assert g.round.current_player == rl_id, "the mirror is out of step"
        raw = g.get_state(rl_id)
        obs = {"raw_obs": raw, "raw_legal_actions": list(raw["actions"])}
        try:
            answer, _ = self.agent.eval_step(obs)
        except Exception as exc:  # the agent's own failure: counted, never hidden
            self.reasons[f"agent raised {type(exc).__name__}"] += 1
            return PlayCards(seat, ())
        if answer == "pass":
            if state.last is None:
                self.reasons["passed on a lead"] += 1
            return Pass(seat, "bot")
        if not isinstance(answer, str) or not answer:
            self.reasons[f"answered {answer!r}"] += 1
            return PlayCards(seat, ())
        cards = self._cards_of(state.hands[seat], answer)
        if cards is None:
            self.reasons["cards not in hand"] += 1
            return PlayCards(seat, ())
        try:
            rules.classify(self.variant, cards, None, state.last.pattern if state.last else None)
        except rules.RulesError as exc:
            self.reasons[exc.reason] += 1
        return PlayCards(seat, cards, None, "bot")

    @staticmethod
    def _cards_of(hand: tuple[int, ...], answer: str) -> tuple[int, ...] | None:
        left = sorted(hand)
        out = []
        for ch in answer:
            r = RANK_CHARS.find(ch)
            c = next((c for c in left if RANK_OF[c] == r), None)
            if c is None:
                return None
            left.remove(c)
            out.append(c)
        return tuple(out)
