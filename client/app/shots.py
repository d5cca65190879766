"""Render hand-made scenes offscreen to PNG files.

``python -m client.app.shots OUTDIR [SCENE ...]`` writes ``OUTDIR/SCENE.png`` for each scene
(all of ``client.app.scenes.SCENES`` by default). It sets ``ARCADE_HEADLESS=1`` before arcade is
imported, so it needs no display; tests run it in a subprocess to keep GL state out of pytest.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from client.app.offscreen import draw_offscreen


def render_scenes(outdir: Path, names: list[str]) -> list[Path]:
    draw_offscreen()
    import arcade

    from client.app.app import Controller, make_window, save_screenshot
    from client.app.lobby_view import LobbyView
    from client.app.replay_view import ReplayView
    from client.app.results_view import ResultsView
    from client.app.scenes import (
        DEMO_MATCHES,
        DEMO_ROOMS,
        NOW_MS,
        SCREENS,
        build,
        doubles_results_model,
        replay_message,
        results_model,
    )
    from client.app.table_view import TableView

    window = make_window(visible=False)
    out = []
    for name in names:
        view: arcade.View
        if name in SCREENS:
            if name in ("lobby", "lobby_member", "create_room", "matches"):
                controller = Controller(window)
                if name == "lobby_member":  # logged in: the lobby says who, and offers the profile
                    controller.standing.account = "Ann"
                controller.model.rooms = list(DEMO_ROOMS)
                controller.model.matches = list(DEMO_MATCHES)
                lobby = LobbyView(controller)
                if name == "create_room":
                    lobby.open_create()
                elif name == "matches":
                    lobby.open_matches()
                lobby.selected = 0
                lobby.held = {"r9": "demo-seat-token"}  # a match we left: offered back
                view = lobby
            elif name == "results":
                controller = Controller(window, results_model())
                view = ResultsView(controller)
            elif name == "results_doubles":
                controller = Controller(window, doubles_results_model())
                view = ResultsView(controller)
            else:
                controller = Controller(window, results_model())
                replay = ReplayView(controller, replay_message(), clock=lambda: NOW_MS + 900.0)
                replay.model.clock_offset_ms = 0.0
                replay.play(0)
                replay.model.now_local_ms = lambda: NOW_MS + 1800.0
                view = replay
        else:
            scene = build(name)
            controller = Controller(window, scene.model)
            table = TableView(controller)
            table.aim.direction = scene.aim_direction
            table.aim.speed = scene.aim_speed
            table.aim.set_tip(*scene.tip)
            table.aim.set_elevation(scene.elevation)
            view = table
        window.show_view(view)
        controller.pump()  # held consequences whose balls have rested come due
        out.append(save_screenshot(window, outdir / f"{name}.png"))
        view = window.current_view or view
        labels = getattr(getattr(view, "scene", view), "labels", None)
        shown = labels.shown if labels is not None else {}
        (outdir / f"{name}.json").write_text(json.dumps(shown, indent=1, ensure_ascii=False))
    window.close()
    return out


def main(argv: list[str]) -> int:
    from client.app.scenes import SCENES, SCREENS, SUSPENSE

    if not argv:
        print("usage: python -m client.app.shots OUTDIR [SCENE ...]", file=sys.stderr)
        return 2
    known = (*SCENES, *SUSPENSE, *SCREENS)
    names = argv[1:] or list(known)
    unknown = [n for n in names if n not in known]
    if unknown:
        print(f"unknown scene(s) {unknown}; known: {', '.join(known)}", file=sys.stderr)
        return 2
    for p in render_scenes(Path(argv[0]), names):
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
