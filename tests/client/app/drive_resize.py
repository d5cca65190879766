"""Driver for test_xvfb.py's resize test: the real window on a virtual display, resized; the
table is drawn to fit the new size (balls where the layout for that size puts them)."""

from __future__ import annotations

import json
from collections import Counter

from client.app.app import Controller, make_window, play_frames, run_frames
from client.app.layout import TableLayout
from client.app.scenes import BALLS_AT_REST, build
from client.app.table_view import TableView

window = make_window(visible=True)
scene = build("spectator")
window.show_view(TableView(Controller(window, scene.model)))
play_frames(window, 0.2)
out = []
for w, h in ((1500, 760), (1000, 700)):
    window.set_size(w, h)
    img = run_frames(window, 0.4).convert("RGB")
    lay = TableLayout.fit(scene.model.table, window.width, window.height)
    balls = {}
    for ball, (x, y) in BALLS_AT_REST.items():
        sx, sy = lay.to_screen(x, y)
        r = int(0.6 * lay.ball_radius_px)
        seen: Counter[tuple[int, ...]] = Counter()
        for dx in range(-r, r + 1):
            for dy in range(-r, r + 1):
                p = img.getpixel((round(sx) + dx, window.height - 1 - round(sy) - dy))
                seen[tuple(p)] += 1  # type: ignore[arg-type]
        balls[ball] = list(seen.most_common(1)[0][0])  # the ball's colour, not its marks
    out.append({"size": [window.width, window.height], "image": list(img.size), "balls": balls})
print(json.dumps(out))
window.close()
