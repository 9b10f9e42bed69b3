"""``make run``: migrate the local SQLite store, start the engine and the replay services on
localhost, and show how to call both.

Each service runs as its own ``cardroom <service> serve`` process (one worker each) until
Ctrl-C, then both shut down gracefully.  Ports come from CARDROOM_ENGINE_PORT (default 50051)
and CARDROOM_REPLAY_PORT (default 50052); the store from CARDROOM_DATABASE_URL (default: a
SQLite file under CARDROOM_DATA_DIR, ./data).  No replay tokens are configured unless the
environment sets them, so the replay service allows every call (and logs a warning).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

from services.common.settings import SettingsError, from_env
from services.replay.db import default_url
from services.replay.migrate import upgrade


def _start(service: str) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env.setdefault(f"CARDROOM_{service.upper()}_WORKERS", "1")  # plenty for a local try-out
    return subprocess.Popen([sys.executable, "-m", "services", service, "serve"], env=env)


def main() -> int:
    try:
        engine = from_env("engine")
        replay = from_env("replay")
    except SettingsError as exc:
        print(f"make run: {exc}", file=sys.stderr)
        return 2
    url = default_url()
    try:
        upgrade(url)
    except Exception as exc:
        print(f"make run: cannot migrate {url}: {exc}", file=sys.stderr)
        return 2
    e, r = engine.address, replay.address
    print(
        f"""cardroom engine service on {e}, replay service on {r} (store: {url})
Ctrl-C stops both.

Try them with grpcurl (it reads the API through server reflection):
  grpcurl -plaintext -d '{{"variant": "ddz3", "cards": "3s3h3d4c"}}' \\
      {e} cardroom.v1.EngineService/Classify
  .venv/bin/cardroom simulate -v ddz3 -n 20 --records /tmp/games.jsonl
  .venv/bin/cardroom replay import /tmp/games.jsonl        # into the same store
  grpcurl -plaintext -d '{{"page_size": 3}}' {r} cardroom.v1.ReplayService/ListGames
  grpcurl -plaintext -d '{{"game_id": "…"}}' {r} cardroom.v1.ReplayService/VerifyGame
  .venv/bin/cardroom replay show GAME_ID

or from Python:
  .venv/bin/python -c "import grpc; from cardroom.v1 import replay_pb2 as m, \\
replay_pb2_grpc as g; print(g.ReplayServiceStub(grpc.insecure_channel('{r}'))\\
.ListGames(m.ListGamesRequest(page_size=3)))"
""",
        flush=True,
    )
    procs = [_start("engine"), _start("replay")]
    status = 0
    try:
        while all(p.poll() is None for p in procs):
            time.sleep(0.2)
        status = 1  # one of them stopped on its own: stop the other as well
    except KeyboardInterrupt:
        pass
    for p in procs:
        if p.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    return status


if __name__ == "__main__":
    sys.exit(main())
