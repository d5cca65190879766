"""``make cluster``: PostgreSQL, Redis and three game-server nodes on this machine, on loopback.

    python -m bench.local_cluster [--dir .cluster] [--nodes 3] [--port 8771]

The engines keep their data in ``--dir`` (initialised on first use, kept between runs); the
nodes listen on ``--port``, ``--port + 1``, … (any free port when one is taken; ``--port 0``:
all free ports). It prints every URL, then waits; Ctrl-C or SIGTERM drains the nodes (their
rooms are saved and handed on), then stops Redis and PostgreSQL. Nothing is left running.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import stat
import sys
import threading
import time
from pathlib import Path

from bench import engines
from server.process import ServerProcess


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _reachable_by_others(path: Path) -> str | None:
    """PostgreSQL runs as its own user: every folder above its data must let it through."""
    if os.geteuid() != 0:
        return None
    for parent in [path, *path.parents]:
        if parent.exists() and not parent.stat().st_mode & stat.S_IXOTH:
            return (
                f"PostgreSQL runs as the {engines.PG_USER!r} user and cannot enter {parent}; "
                "give --dir a folder it can reach (e.g. --dir /var/tmp/carom-cluster)"
            )
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make cluster", description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", default=".cluster", help="where the engines keep their data")
    parser.add_argument("--nodes", type=int, default=3, help="game-server nodes (default 3)")
    parser.add_argument("--port", type=int, default=8771, help="first node's port (0: any)")
    parser.add_argument("--workers", type=int, default=1, help="physics processes per node")
    args = parser.parse_args(argv)

    missing = engines.missing()
    root = Path(args.dir).resolve()
    problem = _reachable_by_others(root)
    for p in [*missing, *([problem] if problem else [])]:
        print(f"make cluster: {p}", file=sys.stderr)
    if missing:
        print("make cluster: on Debian: apt-get install postgresql redis-server", file=sys.stderr)
    if missing or problem:
        return 1

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())

    pg: engines.Postgres | None = None
    redis: engines.Redis | None = None
    nodes: list[ServerProcess] = []
    try:
        print(f"starting PostgreSQL and Redis in {root} …", flush=True)
        pg = engines.start_postgres(root / "postgres", durable=True)
        redis = engines.start_redis(root / "redis", durable=True)
        for i in range(args.nodes):
            name = f"node{i + 1}"
            port = args.port + i if args.port else 0
            if port and not _port_free(port):
                port = 0
            extra = ["--port", str(port), "--redis", redis.url(), "--node", name]
            nodes.append(
                ServerProcess(pg.url(), workers=args.workers, log_level="INFO", extra_args=extra)
            )
            if stop.is_set():
                break
        print("", flush=True)
        print(f"PostgreSQL  {pg.url()}", flush=True)
        print(f"Redis       {redis.url()}", flush=True)
        for i, node in enumerate(nodes):
            http = node.url.replace("ws://", "http://")
            print(
                f"node{i + 1}       {node.url}   (health {http}health, metrics {http}metrics)",
                flush=True,
            )
        print("\nplay on any node: carom play --url URL;  Ctrl-C stops everything", flush=True)
        while not stop.is_set():
            stop.wait(0.5)
            for i, node in enumerate(nodes):
                if node.proc.poll() is not None:
                    print(f"node{i + 1} exited ({node.proc.returncode}):", flush=True)
                    print("\n".join(node.log[-10:]), flush=True)
                    stop.set()
                    break
            if (pg is not None and not pg.alive()) or (redis is not None and not redis.alive()):
                print("an engine exited; stopping", flush=True)
                stop.set()
    finally:
        print(
            "stopping: nodes drain (rooms saved and handed on), then Redis, PostgreSQL", flush=True
        )
        t0 = time.monotonic()
        for node in nodes:
            if node.proc.poll() is None:
                node.proc.send_signal(signal.SIGTERM)
        for node in nodes:
            node.stop(15.0)
        if redis is not None:
            redis.stop()
        if pg is not None:
            pg.stop()
        print(f"stopped in {time.monotonic() - t0:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
