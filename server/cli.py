"""``carom serve``: run the game server (the lead's top-level CLI calls ``configure``/``run``).

Module-level imports stay light: asyncio, websockets and the physics load only in ``run``.
"""

from __future__ import annotations

import argparse

from server.config import DEFAULT_PORT
from server.core.accounts import accounts_from_args, add_account_options
from server.gcpolicy import SWEEP_EVERY_S

# SIGTERM drains this long by default: /health answers 503 meanwhile, so a load balancer
# polling it (typically every 1-2 s, out after 2-3 failures) takes the node out before its
# connections close. SIGINT, a person at a terminal, closes at once (docs/server.md).
TERM_DRAIN_S = 5.0


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0 = any)"
    )
    parser.add_argument(
        "--db",
        default="carom.db",
        help="SQLite file (default carom.db), or postgresql://USER@HOST:PORT/DB for a cluster",
    )
    parser.add_argument(
        "--redis",
        default=None,
        help="redis://HOST:PORT/N: run as one node of a cluster (needs a postgresql:// --db)",
    )
    parser.add_argument("--node", default=None, help="this node's name in the cluster")
    parser.add_argument(
        "--public-url",
        default="",
        help="where clients reach this node, ws://HOST:PORT/ (default: the bound address)",
    )
    add_account_options(parser)  # ratings and quick match (server/core/accounts.py)
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="physics processes (default 1; 0 = on the server's own event loop)",
    )
    parser.add_argument(
        "--origin",
        action="append",
        default=[],
        help="another browser Origin allowed to open the websocket (repeatable; * for any); "
        "the server's own pages and clients that send no Origin (bots) always pass",
    )
    parser.add_argument("--max-rooms", type=int, default=5000, help="open rooms (default 5000)")
    parser.add_argument(
        "--max-connections", type=int, default=10_000, help="connections (default 10000)"
    )
    parser.add_argument(
        "--max-connections-per-address",
        type=int,
        default=256,
        help="connections from one address, handshakes included (default 256)",
    )
    parser.add_argument(
        "--max-rooms-per-address",
        type=int,
        default=64,
        help="open rooms created from one address (default 64)",
    )
    parser.add_argument("--log-level", default="INFO", help="logging level (default INFO)")
    parser.add_argument(
        "--drain-seconds",
        type=float,
        default=TERM_DRAIN_S,
        help=f"on SIGTERM, answer /health 503 this long before closing (default "
        f"{TERM_DRAIN_S:g}); SIGINT (Ctrl-C) closes at once, and a second signal ends a drain",
    )
    parser.add_argument(
        "--db-check-seconds",
        type=float,
        default=5.0,
        help="how often to check the database file while running (default 5)",
    )
    parser.add_argument(
        "--gc-sweep-seconds",
        type=float,
        default=SWEEP_EVERY_S,
        help="how often the frozen heap is swept for garbage cycles (default 3600; see "
        "docs/server.md)",
    )


def run(args: argparse.Namespace) -> int:
    import asyncio
    import logging
    import signal
    import sys

    from server.config import ServerConfig
    from server.credentials import password_cost
    from server.net.gateway import GameServer
    from server.store.sqlite import StoreError

    try:
        password_cost()  # a bad setting stops the server here, not at the first login
    except ValueError as exc:
        print(f"carom serve: {exc}", file=sys.stderr)
        return 2

    logging.basicConfig(
        level=getattr(logging, str(args.log_level).upper(), logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    # websockets' DEBUG lines dump frames, which carry identity tokens, seat tokens and
    # passwords: never below INFO, whatever --log-level says (no secret in any log line).
    ws_log = logging.getLogger("websockets")
    ws_log.setLevel(max(logging.INFO, logging.getLogger().getEffectiveLevel()))
    from server.cluster.config import ClusterConfig
    from server.store.api import is_postgres

    cluster = None
    if args.redis is not None:
        problem = None
        if not is_postgres(args.db):
            problem = "a cluster node keeps its data in PostgreSQL: give --db postgresql://…"
        elif not args.node:
            problem = "a cluster node needs a name: give --node NAME (unique in the cluster)"
        if problem is not None:
            print(f"carom serve: {problem}", file=sys.stderr)
            return 2
        cluster = ClusterConfig(args.redis, args.node, args.public_url)
    config = ServerConfig(
        host=args.host,
        port=args.port,
        db_path=args.db,
        accounts=accounts_from_args(args),
        workers=args.workers,
        origins=tuple(args.origin),
        max_rooms=args.max_rooms,
        max_connections=args.max_connections,
        drain_s=args.drain_seconds,
        max_connections_per_address=args.max_connections_per_address,
        max_rooms_per_address=args.max_rooms_per_address,
        db_check_s=args.db_check_seconds,
        gc_sweep_s=args.gc_sweep_seconds,
        cluster=cluster,
    )

    async def main() -> None:
        server = GameServer(config)
        await server.start()  # (and the collector's policy: server/gcpolicy.py)
        # One machine-readable line, flushed, so scripts and tests can find a port-0 server.
        print(f"carom server listening on ws://{config.host}:{server.port}/", flush=True)
        stop = asyncio.Event()
        cut_short = asyncio.Event()  # a second signal: stop waiting for the balancer
        received: list[signal.Signals] = []

        def on_signal(sig: signal.Signals) -> None:
            if stop.is_set():
                cut_short.set()
            received.append(sig)
            stop.set()

        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, on_signal, sig)
        await stop.wait()
        drain_s = config.drain_s if received[0] == signal.SIGTERM else 0.0
        print(f"carom server draining ({received[0].name}, {drain_s:g} s)", flush=True)
        await server.stop(drain_s=drain_s, cut_short=cut_short)

    try:
        asyncio.run(main())
    except StoreError as exc:  # one sentence with what to do, no traceback
        print(f"carom serve: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"carom serve: {exc}", file=sys.stderr)
        return 1
    return 0
