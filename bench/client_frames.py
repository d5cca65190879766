"""Frame time of the desktop client while a stroke animates (offscreen).

``run()`` starts a child interpreter with ``ARCADE_HEADLESS=1`` (arcade must see it before it
is imported, and the bench runner's process must not own a GL context), which draws:

- baseline: an empty frame (clear + finish), the floor of this GL driver;
- table at rest: the table view with the cue, aim line and HUD, nothing moving;
- stroke animating: the table view while a stroke plays on the model's clock, advanced by one
  60 Hz frame per drawn frame (trajectory evaluation, spin marks, shadows, HUD);
- poses only: the model's per-frame trajectory evaluation without drawing.

Each frame ends with ``ctx.finish()`` so the GPU (or the software rasteriser) work is counted.
Numbers are printed with their ratio to the baseline; nothing is asserted.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from typing import Any

FRAMES = 120
WARMUP = 20


def _child() -> dict[str, Any]:
    os.environ["ARCADE_HEADLESS"] = "1"
    from client.app.app import Controller, fire, make_window
    from client.app.scenes import NOW_MS, build
    from client.app.table_view import TableView

    window = make_window(visible=False)  # the renderer decides multisampling
    ctx = window.ctx

    def timed(draw: Any, n: int = FRAMES) -> list[float]:
        out = []
        for i in range(n + WARMUP):
            t = time.perf_counter()
            draw(i)
            ctx.finish()
            if i >= WARMUP:
                out.append((time.perf_counter() - t) * 1000.0)
            window.flip()
        return out

    def empty(i: int) -> None:
        window.clear()

    results: dict[str, list[float]] = {"baseline (empty frame)": timed(empty)}

    scene = build("player")
    view = TableView(Controller(window, scene.model))
    view.aim.direction = scene.aim_direction
    window.show_view(view)
    results["table at rest (cue, aim, HUD)"] = timed(lambda i: fire(window, "on_draw"))

    clock = {"ms": NOW_MS}
    scene = build("stroke", stroke_t=0.0)
    scene.model.now_local_ms = lambda: clock["ms"]
    view = TableView(Controller(window, scene.model))
    window.show_view(view)
    anim = scene.model.animation
    assert anim is not None
    duration = anim.motion.duration

    def animate(i: int) -> None:
        clock["ms"] = NOW_MS + (i % int(duration * 60)) * 1000.0 / 60.0
        fire(window, "on_update", 1 / 60)
        fire(window, "on_draw")

    results["stroke animating"] = timed(animate)
    if scene.model.animation is None:  # settled: put it back for the pose-only timing
        scene.model.animation = anim
    poses: list[float] = []
    for i in range(FRAMES):
        clock["ms"] = NOW_MS + (i % int(duration * 60)) * 1000.0 / 60.0
        t = time.perf_counter()
        anim.motion.poses(anim.t_at(clock["ms"]))
        poses.append((time.perf_counter() - t) * 1000.0)
    results["poses only (3 balls)"] = poses
    renderer = str(ctx.info.RENDERER)
    window.close()
    # The same stroke with 4× multisampling forced on, as a GPU user gets it.
    window = make_window(visible=False, antialiasing=True)
    ctx = window.ctx
    results["4× MSAA: baseline (empty frame)"] = timed(empty, FRAMES // 2)
    scene = build("stroke", stroke_t=0.0)
    scene.model.now_local_ms = lambda: clock["ms"]
    window.show_view(TableView(Controller(window, scene.model)))
    results["4× MSAA: stroke animating"] = timed(animate, FRAMES // 2)
    window.close()
    return {"renderer": renderer, "results": results, "cpu": _cpu_share()}


CPU_SECONDS = 4.0


def _cpu_share() -> dict[str, Any]:
    """CPU used by the window's own 60 Hz loop (arcade's ``_dispatch_frame``: update, then a
    draw unless nothing changed), as a share of one core over wall time, in three states."""
    from client.app.app import Controller, make_window
    from client.app.scenes import NOW_MS, build
    from client.app.table_view import TableView

    window = make_window(visible=False)

    def loop(seconds: float, always_draw: bool = False) -> dict[str, float]:
        window.frames_drawn = window.frames_skipped = 0  # type: ignore[attr-defined]
        tick = 1 / 60
        wall0, cpu0 = time.perf_counter(), time.process_time()
        next_t = wall0
        while time.perf_counter() - wall0 < seconds:
            if always_draw:
                window.dirty = True  # type: ignore[attr-defined]
            window._dispatch_frame(tick)
            window.ctx.finish()
            next_t += tick
            time.sleep(max(0.0, next_t - time.perf_counter()))
        wall = time.perf_counter() - wall0
        return {
            "cpu": (time.process_time() - cpu0) / wall,
            "drawn": window.frames_drawn / wall,  # type: ignore[attr-defined]
        }

    out: dict[str, Any] = {}
    # A player's table, nobody moving, the shot clock stopped (the opponent's time-out).
    scene = build("player")
    assert scene.model.match is not None
    scene.model.match = replace(scene.model.match, deadline_ms=None)
    window.show_view(TableView(Controller(window, scene.model)))
    out["idle, drawing every frame (before)"] = loop(CPU_SECONDS, always_draw=True)
    out["idle (nothing moves)"] = loop(CPU_SECONDS)
    # The same with the shot clock running on the real clock: the ring drains.
    scene = build("player")
    start = time.time() * 1000.0
    scene.model.now_local_ms = lambda: NOW_MS + (time.time() * 1000.0 - start)
    window.show_view(TableView(Controller(window, scene.model)))
    out["idle, shot clock running"] = loop(CPU_SECONDS)
    scene = build("stroke", stroke_t=0.0)
    scene.model.now_local_ms = lambda: NOW_MS + (time.time() * 1000.0 - start)
    start = time.time() * 1000.0
    window.show_view(TableView(Controller(window, scene.model)))
    out["stroke animating"] = loop(CPU_SECONDS)
    window.close()
    return out


def _p95(xs: list[float]) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(0.95 * len(s)))]


def run() -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "bench.client_frames", "--child"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "ARCADE_HEADLESS": "1"},
    )
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip()[-2000:])
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    res: dict[str, list[float]] = data["results"]
    base = statistics.median(res["baseline (empty frame)"])
    lines = [
        f"renderer: {data['renderer']}, 1280×800 offscreen, {FRAMES} frames each "
        "(multisampling off on a software renderer, as the game does)"
    ]
    for name, xs in res.items():
        med = statistics.median(xs)
        ratio = f"  ({med / base:.1f}× baseline)" if base > 0 else ""
        lines.append(f"{name}: median {med:.3f} ms, p95 {_p95(xs):.3f} ms{ratio}")
    msaa_base = statistics.median(res["4× MSAA: baseline (empty frame)"])
    msaa = statistics.median(res["4× MSAA: stroke animating"])
    lines.append(f"4× MSAA stroke vs its own empty frame: {msaa / msaa_base:.1f}×")
    anim = statistics.median(res["stroke animating"])
    lines.append(f"stroke animating: {1000.0 / anim:.0f} frames/s possible (display needs 60)")
    lines.append(
        f"window loop CPU at 60 Hz, {CPU_SECONDS:.0f} s each (share of one core; frames drawn/s):"
    )
    cpu: dict[str, dict[str, float]] = data["cpu"]
    before = cpu["idle, drawing every frame (before)"]["cpu"]
    for name, v in cpu.items():
        ratio = f"  ({v['cpu'] / before:.2f}× drawing every frame)" if before > 0 else ""
        lines.append(
            f"  {name}: {100 * v['cpu']:.1f} % of a core, {v['drawn']:.0f} frames/s{ratio}"
        )
    return lines


if __name__ == "__main__":
    if "--child" in sys.argv:
        print(json.dumps(_child()))
    else:
        for line in run():
            print(line)
