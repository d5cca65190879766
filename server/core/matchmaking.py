"""Quick match, sans I/O: a queue of tickets and the pairing rule, with the time passed in.

Players wait per *pool* (discipline and distance). Two humans are paired when their ratings are
within both of their windows; a window starts narrow and widens the longer its player waits, so
a fair game comes first and an uneven one only when nothing fairer is around. The closest pair
in a pool is always neighbours in rating order, so a pass over the sorted pool takes the
closest adjacent gaps first (O(n log n)); players left between taken pairs become neighbours,
so passes repeat until one pairs nobody (at most MAX_PASSES a round; a few in practice).

Bots (registered bot accounts) wait too, but are only offered to a human who has waited
``bot_after_s`` without a human opponent; such matches are unrated (the store decides that at
the match's end from the accounts, so a bot can never be rated whatever the queue does).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Protocol

from server.core.accounts import AccountsConfig

Pool = tuple[str, int | None]
MAX_PASSES = 8  # (discipline, distance or None for the referee's default)


@dataclass(frozen=True, slots=True)
class Ticket:
    key: Hashable  # who waits (the lobby uses the connection id): one ticket per key
    player_id: str
    discipline: str
    distance: int | None
    rating: float
    bot: bool
    since_ms: int

    @property
    def pool(self) -> Pool:
        return (self.discipline, self.distance)


@dataclass(frozen=True, slots=True)
class Pairing:
    a: Ticket
    b: Ticket

    @property
    def with_bot(self) -> bool:
        return self.a.bot or self.b.bot


class TicketQueue(Protocol):
    """What the desk needs of a queue: ``Matchmaker`` on one server, the cluster's queue in
    Redis on a cluster node (server/cluster/queue.py; its ``pair`` pairs nobody: one matcher
    pairs the whole cluster)."""

    def __len__(self) -> int: ...

    def __contains__(self, key: Hashable) -> bool: ...

    def add(self, ticket: Ticket) -> bool: ...

    def remove(self, key: Hashable) -> Ticket | None: ...

    def pair(self, now_ms: int) -> list[Pairing]: ...


class Matchmaker:
    def __init__(self, config: AccountsConfig) -> None:
        self.config = config
        self._tickets: dict[Hashable, Ticket] = {}

    def __len__(self) -> int:
        return len(self._tickets)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._tickets

    def add(self, ticket: Ticket) -> bool:
        """Queue (or re-queue with new terms). False when the queue is full."""
        if ticket.key not in self._tickets and len(self._tickets) >= self.config.max_queue:
            return False
        self._tickets[ticket.key] = ticket
        return True

    def remove(self, key: Hashable) -> Ticket | None:
        return self._tickets.pop(key, None)

    def window(self, ticket: Ticket, now_ms: int) -> float:
        """How far from its own rating this ticket accepts an opponent now."""
        c = self.config
        waited_s = max(0, now_ms - ticket.since_ms) / 1000
        return min(c.max_window, c.window + c.widen_per_s * waited_s)

    def pair(self, now_ms: int) -> list[Pairing]:
        """Take every pair that fits now out of the queue."""
        pools: dict[Pool, list[Ticket]] = {}
        for t in self._tickets.values():
            pools.setdefault(t.pool, []).append(t)
        out: list[Pairing] = []
        for tickets in pools.values():
            humans = sorted((t for t in tickets if not t.bot), key=lambda t: t.rating)
            taken: set[Hashable] = set()
            # Pairing some makes others neighbours: look again until none fit, at most
            # MAX_PASSES times a round (the next round, half a second later, goes on).
            for _ in range(MAX_PASSES):
                free = [h for h in humans if h.key not in taken]
                more = self._pair_humans(free, now_ms, out)
                if not more:
                    break
                taken |= more
            bots = [t for t in tickets if t.bot]
            if bots:
                self._offer_bots([h for h in humans if h.key not in taken], bots, now_ms, out)
        for p in out:
            self._tickets.pop(p.a.key, None)
            self._tickets.pop(p.b.key, None)
        return out

    def _pair_humans(self, humans: list[Ticket], now_ms: int, out: list[Pairing]) -> set[Hashable]:
        windows = [self.window(t, now_ms) for t in humans]
        gaps = [
            (humans[i + 1].rating - humans[i].rating, i)
            for i in range(len(humans) - 1)
            if humans[i + 1].rating - humans[i].rating <= min(windows[i], windows[i + 1])
            and humans[i].player_id != humans[i + 1].player_id
        ]
        gaps.sort()
        taken: set[Hashable] = set()
        for _, i in gaps:
            a, b = humans[i], humans[i + 1]
            if a.key in taken or b.key in taken:
                continue
            taken.update((a.key, b.key))
            # The longer waiter first: seat order decides nothing (the lag does, R-LAG-1).
            out.append(Pairing(a, b) if a.since_ms <= b.since_ms else Pairing(b, a))
        return taken

    def _offer_bots(
        self, humans: list[Ticket], bots: list[Ticket], now_ms: int, out: list[Pairing]
    ) -> None:
        wait_ms = self.config.bot_after_s * 1000
        free = sorted(bots, key=lambda t: t.rating)
        for human in sorted(humans, key=lambda t: t.since_ms):
            if not free:
                return
            if now_ms - human.since_ms < wait_ms:
                continue
            best = min(range(len(free)), key=lambda i: abs(free[i].rating - human.rating))
            if free[best].player_id == human.player_id:
                continue
            out.append(Pairing(human, free.pop(best)))
