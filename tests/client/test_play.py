"""`cardroom play` through Textual's pilot against a real matchmaker, engine and replay."""

from __future__ import annotations

import asyncio

import pytest

from tests.client.conftest import SIZE, make_app, play_to_the_end, settled, until
from tests.matchmaker.conftest import Cluster


@pytest.mark.parametrize("variant", ["doudizhu3", "doudizhu4", "zhengshangyou1", "zhengshangyou2"])
def test_a_whole_game_against_bots(cluster: Cluster, variant: str) -> None:
    app = make_app(cluster, variant)

    async def scenario() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.view is not None)
            turns = await play_to_the_end(pilot, app)
            assert turns > 0
            assert settled(app)
            text = str(app.query_one("#settlement").render())
            assert "Result: " in text and "scores:" in text and "Series totals" in text
            await pilot.press("ctrl+q")

    asyncio.run(scenario())
