"""What a token seals is the state, exactly: the servicer builds the payload incrementally (the
log's text extended by the new actions), so check it against the state's own JSON form at every
step of whole games, in a servicer that made the previous token and in one that did not."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest
from cardroom.v1 import engine_pb2

from services import rules
from services.common import wire
from services.engine import tokens
from services.engine.service import EngineServicer

from .conftest import TEST_KEYS


def _servicer() -> EngineServicer:
    return EngineServicer(tokens.Sealer(tokens.parse_keys(TEST_KEYS)))


def _call(coro: Any) -> Any:
    """Run a handler that does not await anything (the engine's handlers are pure CPU)."""
    return asyncio.run(coro)


def _sealed(servicer: EngineServicer, token: engine_pb2.GameToken) -> dict[str, Any]:
    payload = servicer.sealer.open(token.token, token.game_id, token.seq)
    value: dict[str, Any] = json.loads(payload)
    return value


@pytest.mark.parametrize("variant", sorted(rules.VARIANTS))
def test_every_token_of_a_game_seals_the_state_itself(variant: str) -> None:
    first, other = _servicer(), _servicer()
    rnd = random.Random(variant)
    for game in range(3):
        deal = engine_pb2.Deal(seed=f"sealed-{game}")
        new = engine_pb2.NewGameRequest(variant=variant, deal=deal, game_id=f"g{game}")
        token = _call(first.NewGame(new, None)).state
        state = rules.new_game(variant, rules.Room(), game_id=f"g{game}", seed=f"sealed-{game}")
        assert _sealed(first, token) == state.to_dict()
        steps = 0
        while not state.over:
            actions = rules.legal_actions(state)
            action = actions[rnd.randrange(len(actions))]
            # Every third step goes to a servicer that did not make the token (another worker,
            # or the engine after a restart): it opens the token and re-encodes the whole log.
            servicer = other if steps % 3 == 2 else first
            request = engine_pb2.ApplyRequest(
                state=token, action=wire.action_message(action), history_delta=steps % 2 == 0
            )
            token = _call(servicer.Apply(request, None)).state
            state, _ = rules.apply(state, action)
            sealed = _sealed(servicer, token)
            assert sealed == state.to_dict()
            assert rules.GameState.from_dict(sealed) == state
            steps += 1
        assert steps > 3


def test_a_token_of_the_whole_state_form_still_opens() -> None:
    """Tokens sealed before the log came first in the payload (``to_dict``'s own key order)
    open and play on: key order means nothing to the JSON reader."""
    servicer = _servicer()
    state = rules.new_game("doudizhu3", rules.Room(), game_id="old", seed="old-form")
    sealed = servicer.sealer.seal(wire.dumps(state.to_dict()).encode(), "old", 4)
    token = engine_pb2.GameToken(game_id="old", seq=4, token=sealed)
    legal = _call(servicer.ListLegalActions(engine_pb2.ListLegalActionsRequest(state=token), None))
    assert len(legal.actions) == len(rules.legal_actions(state))
    action = legal.actions[0]
    answer = _call(servicer.Apply(engine_pb2.ApplyRequest(state=token, action=action), None))
    after, _ = rules.apply(state, wire.action_of(action))
    assert _sealed(servicer, answer.state) == after.to_dict()
