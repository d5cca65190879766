"""A node's cluster settings (no Redis import here: ServerConfig carries them)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ClusterConfig:
    redis_url: str  # redis://HOST:PORT/N
    node: str  # this node's name, unique in the cluster
    public_url: str  # where clients reach this node: ws://HOST:PORT/
    lease_ms: int = 3000  # a dead node's rooms move after at most this long
    takeover_s: float = 1.0  # how often to look for open rooms nobody holds
