"""The statistics screen with real data, for docs/img/stats_screen.png.

``python -m client.app.stats_shots OUTDIR [--db FILE] [--sessions N]`` starts a local server
(``python -m server``) on the SQLite file (a new one in OUTDIR by default), plays ``N``
practice sessions as "Ann" when the file holds none yet, opens the statistics screen for Ann in
an offscreen window (ARCADE_HEADLESS=1), waits for it to fetch the matches and saves
``OUTDIR/stats_screen.png`` with the texts it drew (``stats_screen.json``).

Each session plays points the simulator laid out (``shared.analysis.layouts``, so the routes
are real three-cushion points) and misses, in an order and with thinking times drawn from a
seeded random generator: the plots get some shape, and the same seed draws the same pictures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from client.app.offscreen import draw_offscreen

if TYPE_CHECKING:
    from client.session import Session

PLAYER = "Ann"


def _layouts() -> list[tuple[dict[str, tuple[float, float]], tuple[float, float, float, float]]]:
    """Positions and strokes that score, each found by the simulator: (balls, stroke)."""
    from shared.analysis.layouts import LayoutError, lay_out
    from shared.physics import Stroke
    from shared.table import MATCH

    cases = [
        ((0.4, 0.3), Stroke(270.0, 1.5, 0.4), 2, -0.4, 2, 0.15),  # ticky
        ((0.4, 0.3), Stroke(105.0, 2.0, 0.4), 3, 0.4, 1, 0.15),  # umbrella
        ((0.7, 0.5), Stroke(0.0, 4.0, 0.4), 3, -0.35, 1, 0.5),  # bank
        ((0.7, 0.5), Stroke(0.0, 4.0, -0.4), 1, 0.35, 3, 0.5),  # cushion first
        ((0.7, 0.5), Stroke(25.0, 4.0, -0.4), 0, -0.35, 3, 0.5),  # through the table
    ]
    out = []
    for cue_at, stroke, first, cut, second, where in cases:
        try:
            lay = lay_out(
                MATCH,
                cue_at,
                stroke,
                first_after=first,
                first_where=0.5,
                cut=cut,
                second_after=second,
                second_where=where,
            )
        except LayoutError:
            continue
        balls = {str(k): (float(v[0]), float(v[1])) for k, v in lay.balls.items()}
        s = lay.stroke
        out.append((balls, (s.direction, s.speed, s.tip_x, s.tip_y)))
    return out


MISS_AT = {"white": (0.5, 0.7), "red": (2.0, 0.3), "yellow": (2.0, 1.1)}
MISS = (180.0, 0.5, 0.0, 0.0)  # soft, into the bottom cushion: no ball


async def _play(
    session: Session, balls: dict[str, tuple[float, float]], stroke: tuple[float, ...], think: float
) -> int:
    """Place the balls once the table rests, think, play; the points the stroke scored."""
    from client.session import ServerError
    from shared.protocol import to_client as tc
    from shared.protocol.errors import ErrorCode
    from shared.protocol.views import CueParams

    while True:
        try:
            await session.place(balls)
            break
        except ServerError as exc:
            if exc.code != ErrorCode.BALLS_MOVING:
                raise
            await asyncio.sleep(0.2)
    await asyncio.sleep(think)
    d, v, tx, ty = stroke
    await session.stroke(CueParams(direction=d, speed=v, tip_x=tx, tip_y=ty))
    msg = await session.wait_for(lambda m: isinstance(m, tc.StrokePlayed), 30)
    assert isinstance(msg, tc.StrokePlayed)
    return msg.result.points


def _playing(session: Session) -> Callable[[object], bool]:
    """The condition "the practice match is under way" for ``session.wait_for``."""
    from shared.protocol.enums import Phase

    return lambda _msg: session.state.match is not None and session.state.match.phase == Phase.PLAY


async def play_sessions(url: str, sessions: int, seed: int = 7) -> None:
    """``sessions`` practice sessions as Ann, each a few innings of laid-out points and
    misses, the player getting better as the sessions go on."""
    from client.session import Session
    from shared.protocol import to_client as tc

    rng = random.Random(seed)
    points = _layouts()
    for k in range(sessions):
        async with Session(url, PLAYER, remember_identity=False) as ann:
            room_id = await ann.create_room("three_cushion", practice=True)
            await ann.join(room_id)
            await ann.wait_for(_playing(ann), 10)
            hit = 0.3 + 0.4 * k / max(1, sessions - 1)  # better with practice
            for _inning in range(rng.randint(3, 5)):
                while rng.random() < hit:
                    balls, stroke = rng.choice(points)
                    await _play(ann, balls, stroke, rng.uniform(1.0, 9.0))
                await _play(ann, MISS_AT, MISS, rng.uniform(0.5, 4.0))
            await ann.concede()
            await ann.wait_for(lambda m: isinstance(m, tc.GameOver), 30)
        print(f"session {k + 1} of {sessions} played", flush=True)


def render(url: str, outdir: Path, player: str = PLAYER) -> Path:
    """The statistics screen for ``player``, fetched from ``url``, saved as a PNG."""
    draw_offscreen()
    from client.app.app import Controller, make_window, play_frames, save_screenshot
    from client.app.stats_view import StatsView

    window = make_window(visible=False)
    controller = Controller(window)
    err = controller.connect(url, "viewer")
    if err is not None:
        raise SystemExit(err)
    view = StatsView(controller, player)
    window.show_view(view)
    deadline = time.monotonic() + 120
    while view.page.loading and time.monotonic() < deadline:
        play_frames(window, 1 / 30, real_time=False)
        time.sleep(0.05)
    play_frames(window, 1 / 30, real_time=False)
    path = save_screenshot(window, outdir / "stats_screen.png")
    (outdir / "stats_screen.json").write_text(
        json.dumps(view.labels.shown, indent=1, ensure_ascii=False), encoding="utf-8"
    )
    if controller.net is not None:
        controller.net.close()
    window.close()
    return path


def main(argv: list[str]) -> int:
    from server.process import ServerProcess

    parser = argparse.ArgumentParser(prog="python -m client.app.stats_shots")
    parser.add_argument("outdir")
    parser.add_argument("--db", help="the server's SQLite file (default OUTDIR/carom.db)")
    parser.add_argument("--sessions", type=int, default=6)
    args = parser.parse_args(argv)
    outdir = Path(args.outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    db = Path(args.db) if args.db else outdir / "carom.db"
    fresh = not db.exists()
    with ServerProcess(db, workers=0) as server:
        if fresh:
            asyncio.run(play_sessions(server.url, args.sessions))
        print(render(server.url, outdir))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
