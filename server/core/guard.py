"""Password guessing on private rooms: backoff per room, per identity and per address.

Pure (the lobby passes the time in): each wrong password counts against four tallies, the
(room, identity) pair, the identity, the peer address and the room. Each tally lets a few
failures go free (people mistype), then every further failure doubles the wait before that key
may try again (1 s, 2 s, 4 s … capped). A tally is forgotten after ten quiet minutes. A right
password clears only the (room, identity) pair: the other tallies still remember a guesser who
finally got it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

Key = tuple[str, ...]

# Failures each kind of tally lets go free before backing off.
FREE: Final = {"pair": 3, "identity": 6, "address": 12, "room": 20}
CAP_S: Final = 300.0  # the longest wait
FORGET_S: Final = 600.0  # a tally quiet this long starts over
MAX_TALLIES: Final = 100_000  # memory bound: quiet tallies are dropped beyond it


@dataclass(slots=True)
class _Tally:
    failures: int = 0
    last: float = 0.0
    until: float = 0.0


def keys(room_id: str, player_id: str, address: str) -> tuple[Key, ...]:
    return (
        ("pair", room_id, player_id),
        ("identity", player_id),
        ("address", address),
        ("room", room_id),
    )


class PasswordGuard:
    def __init__(self) -> None:
        self._tallies: dict[Key, _Tally] = {}

    def wait(self, keys: tuple[Key, ...], now: float) -> float:
        """Seconds before these keys may try a password again (0: now)."""
        waits = [t.until - now for k in keys if (t := self._tallies.get(k)) is not None]
        return max([0.0, *waits])

    def failed(self, keys: tuple[Key, ...], now: float) -> None:
        if len(self._tallies) > MAX_TALLIES:
            self._forget(now)
        for key in keys:
            tally = self._tallies.setdefault(key, _Tally())
            if now - tally.last > FORGET_S:
                tally.failures = 0
            tally.failures += 1
            tally.last = now
            extra = tally.failures - FREE[key[0]]
            if extra > 0:
                tally.until = now + min(CAP_S, 2.0 ** (extra - 1))

    def succeeded(self, keys: tuple[Key, ...]) -> None:
        for key in keys:
            if key[0] == "pair":
                self._tallies.pop(key, None)

    def _forget(self, now: float) -> None:
        for key in [k for k, t in self._tallies.items() if now - t.last > FORGET_S]:
            del self._tallies[key]
