"""``make bench``: run every benchmark module and print its lines.

Numbers are printed (with a baseline measured in the same run) and never asserted: this
machine is shared and noisy. Record results in docs/benchmarks.md with this command.
"""

from __future__ import annotations

import importlib
import sys
import time

MODULES = (
    "bench.physics",
    "bench.bots",
    "bench.server_load",
    "bench.client_frames",
    "bench.accounts",
    "bench.cluster",
    "bench.protocol_views",
    "bench.web",
    "bench.tournaments",
)
# Run only when named: already part of another module's run (``bench.bots`` ends with it).
NAMED_ONLY = ("bench.defence", "bench.defence_offline")


def main(argv: list[str]) -> int:
    wanted = [m for m in (*MODULES, *NAMED_ONLY) if m.split(".")[-1] in argv]
    wanted = wanted if argv else list(MODULES)
    failures = 0
    for name in wanted:
        print(f"== {name} ==", flush=True)
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                print("  (not available yet)")
                continue
            raise
        started = time.perf_counter()
        try:
            for line in module.run():
                print(f"  {line}", flush=True)
        except Exception as exc:  # report and go on: one broken bench must not hide the others
            failures += 1
            print(f"  FAILED: {type(exc).__name__}: {exc}", flush=True)
        print(f"  ({time.perf_counter() - started:.1f} s)", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
