""" "Practice from here": open a practice room with the balls exactly where a replayed stroke
found them (docs/analysis.md "Replay analysis").

A small message-driven flow on the window's connection: create a practice room of the match's
discipline and table, join it, and once the match is in play place the three balls. The
controller shows the table when the first snapshot arrives, as for any room.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.base import ClientMessage
from shared.protocol.enums import Phase
from shared.table import Point


@dataclass
class PracticeHere:
    """Feed it every message the window receives (``on_message``); it sends what comes next."""

    send: Callable[[ClientMessage], None]
    balls: Mapping[str, Point]
    discipline: str
    table: str | None = None
    room_id: str | None = None
    placed: bool = False
    done: bool = False
    log: list[str] = field(default_factory=list)

    def start(self) -> None:
        self.send(ts.CreateRoom(discipline=self.discipline, practice=True, table=self.table))
        self.log.append("create")

    def on_message(self, msg: object) -> None:
        if self.done:
            return
        if isinstance(msg, tc.RoomCreated) and self.room_id is None:
            self.room_id = msg.room_id
            self.send(ts.Join(room_id=msg.room_id))
            self.log.append("join")
        elif isinstance(msg, tc.Snapshot) and self.room_id is not None:
            if msg.room.room_id != self.room_id:
                return
            if not self.placed and msg.match.phase == Phase.PLAY:
                self.send(ts.Place(balls={b: (p[0], p[1]) for b, p in self.balls.items()}))
                self.placed = True
                self.log.append("place")
            elif self.placed and all(
                b in msg.match.balls and tuple(msg.match.balls[b]) == tuple(p)
                for b, p in self.balls.items()
            ):
                self.done = True
                self.log.append("ready")
        elif isinstance(msg, tc.Error) and self.room_id is not None and not self.done:
            self.done = True  # refused: the window shows the error as for any request
            self.log.append(f"refused: {msg.code}")
