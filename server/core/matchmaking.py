"""Quick match, sans I/O: a queue of tickets and the pairing rule, with the time passed in.

Players wait per *pool* (discipline and distance). Two humans are paired when their ratings are
within both of their windows; a window starts narrow and widens the longer its player waits, so
a fair game comes first and an uneven one only when nothing fairer is around. The closest
acceptable pair goes first. Not only neighbours in rating: a newcomer with a narrow window
between two players who have waited long must not keep them apart. Each player's nearest
acceptable partner above it waits in a heap, so a round costs about O(n log n).

Bots (registered bot accounts) wait too, but are only offered to a human who has waited
``bot_after_s`` without a human opponent; such matches are unrated (the store decides that at
the match's end from the accounts, so a bot can never be rated whatever the queue does).

Doubles and Scotch doubles (R-TEAM-1) have pools of their own: four humans whose ratings all
lie within each one's window make a table, split into the two most even sides (the strongest
with the weakest against the two in the middle). The closest four are neighbours in rating
order, so passes over the sorted pool take the tightest groups of four first, and repeat (at
most MAX_PASSES a round) while players left between taken groups become neighbours. Bots are
not offered to team pools; a team match counts in each player's team standing
(server/store/standings.py).
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Protocol

from server.core.accounts import AccountsConfig

Pool = tuple[str, int | None, str]  # discipline, distance (None: the default), team mode
MAX_PASSES = 8


@dataclass(frozen=True, slots=True)
class Ticket:
    key: Hashable  # who waits (the lobby uses the connection id): one ticket per key
    player_id: str
    discipline: str
    distance: int | None
    rating: float
    bot: bool
    since_ms: int
    team_mode: str = "singles"  # R-TEAM-1: "doubles" and "scotch" wait for four

    @property
    def pool(self) -> Pool:
        return (self.discipline, self.distance, self.team_mode)


@dataclass(frozen=True, slots=True)
class Pairing:
    a: Ticket
    b: Ticket

    @property
    def with_bot(self) -> bool:
        return self.a.bot or self.b.bot


@dataclass(frozen=True, slots=True)
class TeamPairing:
    """Four tickets made into two sides (R-TEAM-1), in seat order A1, B1, A2, B2: the
    strongest and the weakest play together against the two in the middle."""

    a1: Ticket
    b1: Ticket
    a2: Ticket
    b2: Ticket

    @property
    def seats(self) -> tuple[Ticket, Ticket, Ticket, Ticket]:
        return (self.a1, self.b1, self.a2, self.b2)

    @property
    def with_bot(self) -> bool:
        return any(t.bot for t in self.seats)

    @property
    def side_ratings(self) -> tuple[float, float]:
        return (self.a1.rating + self.a2.rating, self.b1.rating + self.b2.rating)

    @classmethod
    def balanced(cls, four: list[Ticket]) -> TeamPairing:
        low, mid_low, mid_high, high = sorted(four, key=lambda t: t.rating)
        return cls(high, mid_high, low, mid_low)


class TicketQueue(Protocol):
    """What the desk needs of a queue: ``Matchmaker`` on one server, the cluster's queue in
    Redis on a cluster node (server/cluster/queue.py; its ``pair`` pairs nobody: one matcher
    pairs the whole cluster)."""

    def __len__(self) -> int: ...

    def __contains__(self, key: Hashable) -> bool: ...

    def add(self, ticket: Ticket) -> bool: ...

    def remove(self, key: Hashable) -> Ticket | None: ...

    def pair(self, now_ms: int) -> list[Pairing | TeamPairing]: ...


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

    def pair(self, now_ms: int) -> list[Pairing | TeamPairing]:
        """Take every pair (and every table of four in a team pool) that fits now out of the
        queue."""
        pools: dict[Pool, list[Ticket]] = {}
        for t in self._tickets.values():
            pools.setdefault(t.pool, []).append(t)
        out: list[Pairing | TeamPairing] = []
        for pool, tickets in pools.items():
            if pool[2] != "singles":
                out.extend(self._tables_of_four(tickets, now_ms))
                continue
            humans = sorted((t for t in tickets if not t.bot), key=lambda t: t.rating)
            taken = self._pair_humans(humans, now_ms, out)
            bots = [t for t in tickets if t.bot]
            if bots:
                self._offer_bots([h for h in humans if h.key not in taken], bots, now_ms, out)
        for p in out:
            for t in p.seats if isinstance(p, TeamPairing) else (p.a, p.b):
                self._tickets.pop(t.key, None)
        return out

    def _tables_of_four(self, tickets: list[Ticket], now_ms: int) -> list[TeamPairing]:
        """R-TEAM-1: groups of four neighbours in rating whose spread each of them accepts,
        the tightest first; each made into the two most even sides."""
        humans = sorted((t for t in tickets if not t.bot), key=lambda t: t.rating)
        out: list[TeamPairing] = []
        for _ in range(MAX_PASSES):
            taken = {t.key for p in out for t in p.seats}
            free = [h for h in humans if h.key not in taken]
            windows = [self.window(t, now_ms) for t in free]
            groups = []
            for i in range(len(free) - 3):
                four = free[i : i + 4]
                spread = four[-1].rating - four[0].rating
                if spread <= min(windows[i : i + 4]) and len({t.player_id for t in four}) == 4:
                    groups.append((spread, i))
            groups.sort()
            used: set[int] = set()
            made = 0
            for _, i in groups:
                if used & set(range(i, i + 4)):
                    continue
                used.update(range(i, i + 4))
                out.append(TeamPairing.balanced(free[i : i + 4]))
                made += 1
            if not made:
                break
        return out

    def _pair_humans(
        self, humans: list[Ticket], now_ms: int, out: list[Pairing | TeamPairing]
    ) -> set[Hashable]:
        """Pair the humans (sorted by rating) whose gap both accept, the closest pair first.

        Each player's candidate is the nearest free player above it in rating who accepts the
        gap too: a player with a narrow window sitting between two who accept each other is
        stepped over, not a wall between them. The candidates wait in a heap; when one's
        partner is taken, its search goes on from there. The smallest candidate is always the
        closest acceptable pair left, so this is the closest-first pairing over every pair."""
        n = len(humans)
        ratings = [t.rating for t in humans]
        windows = [self.window(t, now_ms) for t in humans]
        players = [t.player_id for t in humans]
        free = [True] * n

        def look(i: int, start: int) -> tuple[float, int, int] | None:
            rating, reach, player = ratings[i], windows[i], players[i]
            for j in range(start, n):
                gap = ratings[j] - rating
                if gap > reach:
                    return None  # the rest are further still
                if free[j] and gap <= windows[j] and players[j] != player:
                    return gap, i, j
            return None

        heap = [found for i in range(n - 1) if (found := look(i, i + 1)) is not None]
        heapq.heapify(heap)
        taken: set[Hashable] = set()
        while heap:
            _, i, j = heapq.heappop(heap)
            if not free[i]:
                continue
            if not free[j]:  # taken since: look further up
                if (found := look(i, j + 1)) is not None:
                    heapq.heappush(heap, found)
                continue
            free[i] = free[j] = False
            a, b = humans[i], humans[j]
            taken.update((a.key, b.key))
            # The longer waiter first: seat order decides nothing (the lag does, R-LAG-1).
            out.append(Pairing(a, b) if a.since_ms <= b.since_ms else Pairing(b, a))
        return taken

    def _offer_bots(
        self,
        humans: list[Ticket],
        bots: list[Ticket],
        now_ms: int,
        out: list[Pairing | TeamPairing],
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
