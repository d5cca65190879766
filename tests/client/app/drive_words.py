"""Headless driver for test_words.py (a subprocess: it owns a GL context).

A spectator's window is fed a whole recorded bot-vs-bot match (the server's messages, in
order, as ``tests/client/golden/*.jsonl`` keeps them) on a clock that follows the server time
the messages carry. A frame is drawn after each message and, for every stroke, at 1 s, half
way and at rest. Every text drawn on any frame, and the window titles, are printed as one JSON
list on stdout.
"""

from __future__ import annotations

import json
import os
import sys

os.environ["ARCADE_HEADLESS"] = "1"

from client.app.app import Controller, make_window, play_frames
from client.app.model import GameModel
from client.app.scenes import SceneClock
from client.session import Event
from client.watch import read_recording
from shared.protocol import to_client as tc
from shared.protocol.base import ClientMessage


class Recorded:
    """The network side of the window, played back from a recording (send goes nowhere: a
    spectator sends nothing the recording would answer)."""

    def __init__(self) -> None:
        self.queue: list[Event] = []

    def send(self, msg: ClientMessage) -> None:
        pass

    def drain(self) -> list[Event]:
        out, self.queue = self.queue, []
        return out

    def close(self) -> None:
        pass


def main(path: str) -> None:
    # Decoded as ``carom watch --replay`` reads a recording (what is not recorded, tokens and
    # trajectories, filled in empty).
    msgs = list(read_recording(path))
    first = msgs[0]
    clock = SceneClock(float(first.server_time_ms) if isinstance(first, tc.Welcome) else 0.0)
    window = make_window(visible=False)
    net = Recorded()
    controller = Controller(window, GameModel(now_local_ms=clock), net)
    controller.show_lobby()
    seen: set[str] = set()

    def frame() -> None:
        play_frames(window, 1 / 60, real_time=False)
        view = window.current_view
        labels = getattr(getattr(view, "scene", view), "labels", None)
        if labels is not None:
            seen.update(text for text, _, _ in labels.shown.values())
        seen.add(getattr(view, "title", None) or window.caption)

    for msg in msgs:
        moving = isinstance(msg, tc.StrokePlayed | tc.LagResult)
        start = msg.start_ms if isinstance(msg, tc.StrokePlayed | tc.LagResult) else None
        rest = msg.rest_ms if isinstance(msg, tc.StrokePlayed | tc.LagResult) else None
        if moving and start is not None:
            clock.ms = max(clock.ms, float(start) + 30)  # it arrives just after the strike
        net.queue.append(msg)
        frame()
        if start is not None and rest is not None:
            for at in (start + 1000, (start + rest) / 2, rest + 10):
                clock.ms = max(clock.ms, float(at))
                frame()
    clock.ms += 5_000
    frame()
    print(json.dumps(sorted(seen), ensure_ascii=False))
    window.close()


if __name__ == "__main__":
    main(sys.argv[1])
