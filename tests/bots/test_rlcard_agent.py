"""RLCard's rule agent in the arena (skipped when rlcard is not installed: `make bench`
installs it)."""

from __future__ import annotations

import pytest

pytest.importorskip("rlcard")

from services import rules
from services.arena.match import Match, play_game
from services.arena.rlcard_agent import RLCardRuleAgent, rl_string


class Checked(RLCardRuleAgent):
    """Checks at every turn that the mirror holds exactly our hands and trace."""

    turns = 0

    def act(self, state: rules.GameState, seat: int) -> rules.Action:
        g = self.game
        for s in range(3):
            mirror = g.players[(s - self.landlord) % 3]
            assert self.rl.cards2str(mirror.current_hand) == rl_string(state.hands[s])
        raw = g.get_state((seat - self.landlord) % 3)
        assert raw["landlord"] == 0 and raw["self"] == (seat - self.landlord) % 3
        assert raw["num_cards_left"] == [
            len(state.hands[(self.landlord + i) % 3]) for i in range(3)
        ]
        Checked.turns += 1
        return super().act(state, seat)


def test_rlcard_plays_whole_games_in_step_with_ours() -> None:
    v = rules.variant("doudizhu3")
    agent = Checked(v, "t")
    for d in range(6):
        state = rules.new_game(v, seed=f"rl/{d}")
        lord = state.turn
        assert lord is not None
        state, _ = rules.apply(state, rules.Bid(lord, 3))
        final = play_game(state, [agent, agent, agent])
        assert final.over and final.status.value == "finished"
        assert agent.game.winner_id == (final.winner - lord) % 3
    assert agent.refused == 0 and not agent.reasons and Checked.turns > 50


def test_hard_against_rlcard_is_mirrored() -> None:
    match = Match(rules.variant("doudizhu3"), "t", "hard", "rlcard")
    results = match.play(range(3))
    assert [r.role for r in results] == ["landlord", "farmers"] * 3
    assert sum(r.refused for r in results) == 0
