"""Server settings: every limit in one frozen object (DESIGN.md "Limits everywhere")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from server.cluster.config import ClusterConfig
from server.core.accounts import AccountsConfig

DEFAULT_PORT: Final = 8765


@dataclass(frozen=True, slots=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT  # 0: pick a free port (tests)
    db_path: str = "carom.db"
    accounts: AccountsConfig = field(default_factory=AccountsConfig)  # docs/accounts.md
    # Frames: the codec answers ``too_large`` above ``max_frame``; websockets closes the
    # connection with 1009 above ``hard_max_frame`` without reading it.
    max_frame: int = 16 * 1024
    hard_max_frame: int = 64 * 1024
    # Per-connection message rate: a token bucket of ``burst`` refilled at ``rate`` per second.
    rate: float = 20.0
    burst: float = 40.0
    # A connection that sends this many bad frames (or rate-limited ones) is closed with 1008.
    max_strikes: int = 25
    max_rooms_per_connection: int = 4  # open rooms a connection may have created
    # Open rooms one identity may have created, whatever connection it uses (reconnecting
    # does not reset it), and one address (many identities from one place).
    max_rooms_per_identity: int = 4
    max_rooms_per_address: int = 64
    # A room nobody ever sat down in is closed after this long (room squatting).
    unjoined_room_s: float = 60.0
    max_rooms: int = 5000  # open rooms in the whole server
    max_connections: int = 10_000
    # Connections from one address, handshakes in progress included (behind a reverse proxy
    # every client has the proxy's address: raise it there).
    max_connections_per_address: int = 256
    hello_timeout_s: float = 10.0  # a connection that has not said hello by then is closed
    # Room passwords: scrypt in this many threads, with at most ``hash_queue`` checks waiting
    # (beyond: refused with rate_limited); a connection with this many wrong ones is closed.
    hash_workers: int = 1
    hash_queue: int = 16
    max_wrong_passwords: int = 10
    outbound_queue: int = 512  # messages waiting for a slow client before it is dropped
    outbound_bytes: int = 4 << 20  # … or bytes: a client that leaves 4 MiB unread is dropped
    replay_cache_bytes: int = 64 << 20  # encoded replay pages of finished matches kept
    # Simulation: ``workers`` > 0 runs physics in that many processes; 0 runs it on the event
    # loop itself (a stroke takes 1 to 5 ms: fine for one table or a test, not for a busy server).
    workers: int = 2
    # Browser pages of other origins allowed to open the websocket ("*": any). The server's own
    # pages (Origin host:port = Host) and clients that send no Origin always pass (server/net/web).
    origins: tuple[str, ...] = field(default_factory=tuple)
    # An empty room (nobody seated, nobody watching) is closed after this long.
    idle_room_s: float = 600.0
    # Leave finished rooms open this long for a rematch, then close them.
    finished_room_s: float = 300.0
    # How often the database file is checked while running (still the one opened, intact).
    db_check_s: float = 5.0
    # How often the rooms with a running match are marked as served, so that a restart after a
    # kill -9 charges the downtime to nobody, to within this much (Store.touch_rooms).
    clock_beat_s: float = 0.5
    # The process's garbage collector (server/gcpolicy.py): the heap is frozen every second and
    # swept this often. None leaves Python's collector as it is (a server inside a test run).
    gc_sweep_s: float | None = None
    # On SIGTERM, /health answers 503 and new connections are refused for this long before the
    # rooms are saved and clients closed, so a load balancer can take the server out first.
    # 0 here (a server inside a test or a program); ``carom serve`` defaults to 5 s
    # (server/cli.py TERM_DRAIN_S), SIGINT always closes at once.
    drain_s: float = 0.0
    cluster: ClusterConfig | None = None  # a node of a cluster (docs/cluster.md); None: alone
