"""A spectator's window (offscreen) that joins a room while a stroke rolls, for test_xvfb.py.

``python drive_spectator.py URL ROOM_ID OUT.json [GO]``: connects to the real server (with GO,
it opens its window and connects first, and asks to watch once the file GO exists: a busy
machine's start-up then cannot make it arrive after the stroke), spectates,
draws frames on the window's own code until the stroke it arrived in has rested and its
consequences are shown, and writes what was drawn: the texts of a frame 1 s into its view of
the stroke, of a frame half way, and of a frame after rest, with where the calls were written.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from client.session import Event
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts

os.environ["ARCADE_HEADLESS"] = "1"

from client.app.app import Controller, make_window, play_frames

URL, ROOM, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
GO = sys.argv[4] if len(sys.argv) > 4 else None


def main() -> None:
    window = make_window(visible=False)
    c = Controller(window)
    report: dict[str, Any] = {"ok": False}
    seen: list[Event] = []
    c.on_message.append(seen.append)
    try:
        err = c.connect(URL, "late-spectator")
        assert err is None, err
        c.show_lobby()
        if GO is not None:
            with open(GO + ".ready", "w"):
                pass
        ready = time.monotonic() + 60
        while GO is not None and not os.path.exists(GO) and time.monotonic() < ready:
            play_frames(window, 1 / 60, real_time=False)
            time.sleep(0.01)
        c.send(ts.Spectate(room_id=ROOM, password=None))
        deadline = time.monotonic() + 60
        joined_t: float | None = None
        samples: dict[str, Any] = {}
        while time.monotonic() < deadline:
            play_frames(window, 1 / 60, real_time=False)
            time.sleep(1 / 60)
            view = window.current_view
            m = c.model
            if getattr(view, "kind", None) != "table":
                continue
            anim = m.animation
            texts = {k: v for k, v in view.scene.labels.shown.items()}  # type: ignore[union-attr]
            if anim is not None and m.animating():
                t = anim.t_at(m.now_ms())
                if joined_t is None:
                    joined_t = t
                    report["joined_at_t"] = t
                    live = next((s.in_motion for s in seen if isinstance(s, tc.Snapshot)), None)
                    calls = live.result.calls if isinstance(live, tc.StrokePlayed) else ()
                    report["live"] = {
                        "calls": [x.text for x in calls],
                        "duration": anim.motion.duration,
                    }
                if "1s" not in samples and t >= joined_t + 1.0:
                    samples["1s"] = texts
                if "half" not in samples and t >= anim.motion.duration / 2:
                    samples["half"] = texts
            elif joined_t is not None and not m.holding and "rest" not in samples:
                play_frames(window, 0.2, real_time=True)
                samples["rest"] = dict(view.scene.labels.shown)  # type: ignore[union-attr]
                lay = view.layout  # type: ignore[union-attr]
                strip = lay.call_strip
                report["call_strip"] = [strip.left, strip.bottom, strip.right, strip.top]
                r = lay.rails
                report["rails"] = [r.left, r.bottom, r.right, r.top]
                break
        report["samples"] = samples
        report["ok"] = "rest" in samples
    finally:
        with open(OUT, "w") as fh:
            json.dump(report, fh)
        if c.net is not None:
            c.net.close()
        window.close()


if __name__ == "__main__":
    main()
