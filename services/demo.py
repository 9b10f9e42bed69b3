"""``make run``: start the engine service on localhost and show how to call it.

It keeps running until Ctrl-C (then shuts down gracefully).  The port comes from
CARDROOM_ENGINE_PORT (default 50051); as the other services arrive they start here too.
"""

from __future__ import annotations

import os
import sys

from services.common.server import serve
from services.common.settings import SettingsError, from_env
from services.engine import server as engine_server


def main() -> int:
    try:
        settings = from_env("engine")
    except SettingsError as exc:
        print(f"make run: {exc}", file=sys.stderr)
        return 2
    if "CARDROOM_ENGINE_WORKERS" not in os.environ and "CARDROOM_WORKERS" not in os.environ:
        settings = settings.replace(workers=1)  # one process is plenty for a local try-out
    address = settings.address
    print(
        f"""cardroom engine service on {address} (Ctrl-C stops it)

Try it with grpcurl (it reads the API through server reflection):
  grpcurl -plaintext -d '{{"variant": "ddz3", "cards": "3s3h3d4c"}}' \\
      {address} cardroom.v1.EngineService/Classify

or from Python:
  .venv/bin/python -c "import grpc; from cardroom.v1 import engine_pb2 as e, \\
engine_pb2_grpc as g; print(g.EngineServiceStub(grpc.insecure_channel('{address}'))\\
.Classify(e.ClassifyRequest(variant='ddz3', cards='3s3h3d4c')))"
""",
        flush=True,
    )
    return serve(engine_server.SPEC, settings)


if __name__ == "__main__":
    sys.exit(main())
