"""Peers: a matchmaker instance that nobody else LISTENs to sends no NOTIFY for its table
writes, and starts again as soon as another instance is heard — whose waiters then read
again, so that no write left unannounced meanwhile waits for their safety poll."""

from __future__ import annotations

import time

import pytest

from services.common.db import make_engine
from services.common.notify import Announcer, Notifier, Peers


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def peers(me: str, clock: Clock, woken: list[str]) -> Peers:
    return Peers(me, lambda: woken.append(me), clock, beat_s=2.0, ttl_s=7.0)


def test_a_listener_is_alone_only_after_hearing_nobody_for_the_whole_ttl() -> None:
    clock, woken = Clock(), []
    a = peers("a", clock, woken)
    assert not a.alone()  # not listening: it cannot know who listens
    a.listening(True)
    assert a.due() == ["~hi:a"]
    clock.now += 6.9
    assert not a.alone()  # a peer may not have answered yet
    clock.now += 0.2
    assert a.alone()
    assert a.due() == ["~here:a"]  # the heartbeat goes on all the same
    a.listening(False)  # LISTEN lost: not alone until it is back and has listened again
    assert not a.alone()
    assert a.due() == []


def test_hearing_a_newcomer_wakes_the_waiters_and_answers_it() -> None:
    clock, woken = Clock(), []
    a = peers("a", clock, woken)
    a.listening(True)
    a.due()
    clock.now += 10
    assert a.alone()
    assert a.heard("~hi:b")
    assert woken == ["a"] and not a.alone()
    assert a.has_words() and a.due() == ["~here:a"]
    # Its own words, and keys, are not a peer's.
    assert a.heard("~here:a") and a.heard("~hi:a") and woken == ["a"]
    assert not a.heard("table-1:7")
    clock.now += 7.5  # b went silent: gone
    assert a.alone()


def exchange(*all_peers: Peers) -> list[str]:
    """Deliver what each says to the others until nobody has more to say: every word said."""
    said: list[str] = []
    while words := [(p, w) for p in all_peers for w in p.due()]:
        for speaker, word in words:
            said.append(word)
            for p in all_peers:
                if p is not speaker:
                    p.heard(word)
    return said


def test_a_peer_heard_again_after_it_was_counted_gone_is_told_to_read_again() -> None:
    """A counted b gone and stopped announcing; b never knew.  When b's heartbeat comes
    again, a answers with a ~hi, which makes b's waiters read what a left unannounced."""
    clock, woken_a, woken_b = Clock(), [], []
    a, b = peers("a", clock, woken_a), peers("b", clock, woken_b)
    for p in (a, b):
        p.listening(True)
    exchange(a, b)  # each other's ~hi, and the answers
    assert woken_a and woken_b and not a.has_words() and not b.has_words()
    del woken_a[:], woken_b[:]
    for _ in range(10):  # 20 s: b hears a's heartbeats, a none of b's (lost)
        clock.now += 2
        for word in a.due():
            b.heard(word)
        b.due()
    assert a.alone() and not b.alone() and not woken_b
    assert a.heard(b.due()[0] if b.has_words() else "~here:b")  # b's next heartbeat
    assert woken_a == ["a"]  # b is new to a
    told = a.due()
    assert told == ["~hi:a"]
    assert b.heard(told[0]) and woken_b == ["b"]  # b's waiters read again
    assert b.due() == ["~here:b"]
    assert not a.alone() and not b.alone()


def test_two_newcomers_settle_after_a_few_words() -> None:
    clock = Clock()
    a, b = peers("a", clock, []), peers("b", clock, [])
    a.listening(True)
    a.due()  # nobody heard it
    clock.now += 10
    a.due()  # its heartbeat, nobody heard it either
    assert a.alone()
    b.listening(True)
    assert exchange(a, b) == ["~hi:b", "~here:a"]  # a's answer is b's news of a
    assert not a.alone() and not b.alone()
    clock.now += 1
    assert exchange(a, b) == []  # no heartbeat due yet: quiet
    clock.now += 1.5
    assert sorted(exchange(a, b)) == ["~here:a", "~here:b"]


def test_an_instance_alone_announces_nothing_until_another_listens(db_url: str) -> None:
    """Over PostgreSQL: a's writes go unannounced once a has listened alone for the ttl;
    b's LISTEN comes up, a hears its ~hi and announces again, and b's waiters are woken
    at once (for what a wrote meanwhile)."""
    if not db_url.startswith("postgres"):
        pytest.skip("LISTEN/NOTIFY are PostgreSQL's")
    engine = make_engine(db_url)
    channel = f"cardroom_test_{time.monotonic_ns()}"
    woken: list[str] = []
    a_peers = Peers("a", lambda: woken.append("a"), beat_s=0.2, ttl_s=1.0)
    b_peers = Peers("b", lambda: woken.append("b"), beat_s=0.2, ttl_s=1.0)
    a = Notifier(engine, channel, 0.05, a_peers)
    announcer = Announcer(engine, channel)
    announcer.nobody_listens = a_peers.alone
    listener = b = None
    try:
        listener = Notifier(engine, channel, 0.05)  # hears keys, says nothing
        wait_for(lambda: a.listening and listener.listening and a_peers.alone())
        announcer.send("t1:1")
        time.sleep(0.5)
        assert listener.version("t1:1") == 0  # not sent: nobody counted listens
        b = Notifier(engine, channel, 0.05, b_peers)
        wait_for(lambda: "b" in woken and not a_peers.alone())
        assert not b_peers.alone() and "a" in woken
        announcer.send("t1:2")
        wait_for(lambda: b.version("t1:2") == 1 and listener.version("t1:2") == 1)
        b.close()
        wait_for(a_peers.alone)  # b's heartbeats stopped: alone again after the ttl
    finally:
        announcer.close()
        for n in (a, listener, b):
            if n is not None:
                n.close()
        engine.dispose()


def wait_for(check, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)
