"""``make run`` (services/demo.py) with real processes: its banner waits for health, a taken
port is one line, and SIGTERM to it or Ctrl-C to its group leaves no service behind."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from services import demo
from services.common.settings import from_env
from tests.procs import alive, children, wait_gone

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def demo_env(
    tmp_path: Path, engine_port: int, replay_port: int, matchmaker_port: int = 0
) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARDROOM_")}
    env.update(
        CARDROOM_DATA_DIR=str(tmp_path),
        CARDROOM_ENGINE_PORT=str(engine_port),
        CARDROOM_REPLAY_PORT=str(replay_port),
        CARDROOM_MATCHMAKER_PORT=str(matchmaker_port or free_port()),
        CARDROOM_WEB_PORT=str(free_port()),
        CARDROOM_LOG_LEVEL="warning",
    )
    return env


@pytest.fixture
def running(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], list[int], list[int]]]:
    """``make run`` in its own process group, after its banner: (process, service pids,
    ports)."""
    ports = [free_port(), free_port(), free_port()]
    proc = subprocess.Popen(
        [sys.executable, "-m", "services.demo"],
        env=demo_env(tmp_path, *ports),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    services: list[int] = []
    try:
        assert proc.stdout is not None and proc.stderr is not None
        first = proc.stdout.readline()  # the banner's first line: after every health check
        assert f"engine service on 127.0.0.1:{ports[0]}" in first, proc.stderr.read()
        for port in ports:  # the banner is printed only once each port answers
            with socket.create_connection(("127.0.0.1", port), timeout=2):
                pass
        services = children(proc.pid)
        assert len(services) == 4  # engine, replay, matchmaker and the web server
        yield proc, services, ports
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        for pid in services:  # never leak a server into the next test
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_sigterm_to_the_main_process_stops_every_service(
    running: tuple[subprocess.Popen[str], list[int], list[int]],
) -> None:
    proc, services, ports = running
    proc.send_signal(signal.SIGTERM)  # what a supervisor or `docker stop` sends
    assert proc.wait(timeout=30) == 0
    assert wait_gone(services) == []
    for port in ports:
        assert not demo.port_taken(from_env("engine").replace(port=port))


def test_ctrl_c_to_the_group_stops_every_service(
    running: tuple[subprocess.Popen[str], list[int], list[int]],
) -> None:
    proc, services, _ = running
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in the terminal does
    assert proc.wait(timeout=30) == 0
    assert wait_gone(services) == []
    assert proc.stderr is not None and "Traceback" not in proc.stderr.read()


def test_a_taken_port_is_one_line_and_nothing_starts(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        proc = subprocess.run(
            [sys.executable, "-m", "services.demo"],
            env=demo_env(tmp_path, free_port(), taken),
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert proc.returncode == 1 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert str(taken) in lines[0] and "CARDROOM_REPLAY_PORT" in lines[0]


def test_a_whole_game_against_two_bots_from_the_command_line(
    running: tuple[subprocess.Popen[str], list[int], list[int]], tmp_path: Path
) -> None:
    """The README's game: `cardroom matchmaker play --auto` against the services `make run`
    started; the seat's stream ends with the game's result."""
    _, _, ports = running
    env = demo_env(tmp_path, *ports)
    proc = subprocess.run(
        [sys.executable, "-m", "services", "matchmaker", "play", "-t", f"127.0.0.1:{ports[2]}",
         "-v", "ddz3", "--player", "alice", "--auto", "--think", "0"],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert any(line.get("table") == "game_over" for line in lines)
    assert lines[-1].get("table") == "series"
    assert (tmp_path / "engine.keys").exists()  # the key tokens outlive a restart with


def test_bad_port_setting_exits_2(tmp_path: Path) -> None:
    env = demo_env(tmp_path, free_port(), free_port()) | {"CARDROOM_ENGINE_PORT": "x"}
    proc = subprocess.run(
        [sys.executable, "-m", "services.demo"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "CARDROOM_ENGINE_PORT" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_service_is_one_entry() -> None:
    assert [s.name for s in demo.SERVICES] == ["engine", "replay", "matchmaker"]
    assert demo.SERVICES[0].port_variable == "CARDROOM_ENGINE_PORT"


@pytest.mark.skipif(sys.platform != "linux", reason="PR_SET_PDEATHSIG is Linux's")
def test_even_sigkill_to_the_main_process_leaves_no_service(
    running: tuple[subprocess.Popen[str], list[int], list[int]],
) -> None:
    proc, services, _ = running
    proc.kill()  # no chance to stop them: the kernel tells them instead
    proc.wait(timeout=30)
    assert wait_gone(services) == []


def test_the_banner_gives_the_browser_url_and_it_serves_the_table(
    running: tuple[subprocess.Popen[str], list[int], list[int]],
) -> None:
    """`make run` starts the web server too: its banner's second line is the URL to open,
    the page is there, and a game id that does not exist is a clean 404 on the viewer."""
    import re
    import urllib.error
    import urllib.request

    proc, _, _ = running
    assert proc.stdout is not None
    line = proc.stdout.readline()
    found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    assert found, line
    with urllib.request.urlopen(found[0], timeout=10) as page:
        assert 'data-testid="lobby-start"' in page.read().decode()
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(f"{found[0]}api/games/no-such-game", timeout=10)
    assert missing.value.code == 404


def test_a_taken_web_port_is_one_line_and_nothing_starts(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        env = demo_env(tmp_path, free_port(), free_port()) | {"CARDROOM_WEB_PORT": str(taken)}
        proc = subprocess.run(
            [sys.executable, "-m", "services.demo"],
            env=env, cwd=ROOT, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert proc.returncode == 1 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and str(taken) in lines[0] and "CARDROOM_WEB_PORT" in lines[0]
