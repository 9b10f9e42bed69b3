"""``make run``: a short tour of what cardroom does today, run through the real CLI."""

from __future__ import annotations

import json
import subprocess
import sys

STEPS = [
    ("classify", ["classify", "--variant", "doudizhu3", "3s3h3d", "4s4h4d", "5s5h5d", "6s6h6d"]),
    ("classify", ["classify", "--variant", "zhengshangyou2", "As2s3h4s5s"]),
    ("moves", ["moves", "--variant", "doudizhu3"]),
]
MOVES_INPUT = '{"hand": "3s 4h 4d 7c 7d BJ RJ", "last": "3d"}\n{"hand": "3s 4h 5d 6c 7d 8s"}\n'


def main() -> int:
    for _, argv in STEPS:
        print(f"$ cardroom {' '.join(argv)}", flush=True)
        stdin = MOVES_INPUT if argv[0] == "moves" else None
        if stdin:
            print("  (stdin)", *stdin.strip().splitlines(), sep="\n  ", flush=True)
        proc = subprocess.run(
            [sys.executable, "-m", "services", *argv], input=stdin, text=True, capture_output=True
        )
        for line in proc.stdout.splitlines():
            print("  " + json.dumps(json.loads(line), ensure_ascii=False))
        if proc.returncode:
            print(proc.stderr, file=sys.stderr)
            return proc.returncode
    print("\nTry it yourself: .venv/bin/cardroom --help")
    return 0


if __name__ == "__main__":
    sys.exit(main())
