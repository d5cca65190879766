"""Render hand-made scenes offscreen to PNG files.

``python -m client.app.shots OUTDIR [SCENE ...]`` writes ``OUTDIR/SCENE.png`` for each scene
(all of ``client.app.scenes.SCENES`` by default). It sets ``ARCADE_HEADLESS=1`` before arcade is
imported, so it needs no display; tests run it in a subprocess to keep GL state out of pytest.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def render_scenes(outdir: Path, names: list[str]) -> list[Path]:
    os.environ.setdefault("ARCADE_HEADLESS", "1")
    from client.app.app import Controller, make_window, save_screenshot
    from client.app.scenes import build
    from client.app.table_view import TableView

    window = make_window(visible=False)
    out = []
    for name in names:
        scene = build(name)
        controller = Controller(window, scene.model)
        view = TableView(controller)
        view.aim.direction = scene.aim_direction
        view.aim.speed = scene.aim_speed
        view.aim.set_tip(*scene.tip)
        view.aim.set_elevation(scene.elevation)
        window.show_view(view)
        out.append(save_screenshot(window, outdir / f"{name}.png"))
    window.close()
    return out


def main(argv: list[str]) -> int:
    from client.app.scenes import SCENES

    if not argv:
        print("usage: python -m client.app.shots OUTDIR [SCENE ...]", file=sys.stderr)
        return 2
    names = argv[1:] or list(SCENES)
    unknown = [n for n in names if n not in SCENES]
    if unknown:
        print(f"unknown scene(s) {unknown}; known: {', '.join(SCENES)}", file=sys.stderr)
        return 2
    for p in render_scenes(Path(argv[0]), names):
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
