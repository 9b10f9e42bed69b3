"""Server settings from the environment: per-service defaults, and the variables that win."""

from __future__ import annotations

from services.common.settings import from_env


def test_the_matchmaker_takes_a_stream_per_seated_person_beyond_the_engines_bound() -> None:
    """gRPC counts every open Subscribe stream as a call in flight: at the engine's bound of
    1,000 a matchmaker seating 600 people refused their streams and their Acts."""
    assert from_env("engine", {}).max_concurrent_rpcs == 1000
    assert from_env("replay", {}).max_concurrent_rpcs == 1000
    assert from_env("matchmaker", {}).max_concurrent_rpcs >= 4 * 1000
    env = {"CARDROOM_MATCHMAKER_MAX_CONCURRENT_RPCS": "1500"}
    assert from_env("matchmaker", env).max_concurrent_rpcs == 1500
    assert (
        from_env("matchmaker", {"CARDROOM_MAX_CONCURRENT_RPCS": "700"}).max_concurrent_rpcs == 700
    )
