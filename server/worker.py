"""``python -m server.worker``: a physics worker speaking length-prefixed pickles on stdio.

Started only by :class:`server.simulation.PhysicsPool` (trusted, same code): it reads
``(key, SimJob)`` frames from stdin and writes ``(key, SimOutcome)`` frames to stdout. Anything
else that would print goes to stderr, so the result stream stays clean.
"""

from __future__ import annotations

import os
import pickle
import struct
import sys

HEADER = struct.Struct("!I")


def main() -> int:
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # stray prints (a library's banner) must not corrupt the result stream
    source = sys.stdin.buffer
    from server.simulation import run_job, warm_up

    warm_up()
    while True:
        head = source.read(HEADER.size)
        if len(head) < HEADER.size:
            return 0  # the server closed our stdin: it is shutting down
        (size,) = HEADER.unpack(head)
        key, job = pickle.loads(source.read(size))
        data = pickle.dumps((key, run_job(job)), protocol=pickle.HIGHEST_PROTOCOL)
        out.write(HEADER.pack(len(data)) + data)
        out.flush()


if __name__ == "__main__":
    sys.exit(main())
