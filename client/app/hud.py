"""The heads-up display: scoreboard, shot clock, referee banners, stroke controls, chat.

The scoreboard and controls strips' plain backgrounds belong to the static backdrop that
``TableScene.draw_background`` paints (once per layout, then blitted); these functions draw
what changes on top of it.
"""

from __future__ import annotations

import math

import arcade

from client.app.aim import AimState
from client.app.layout import Rect, TableLayout
from client.app.model import GameModel
from client.app.render import BALL_COLOURS
from client.app.widgets import ACCENT, DIM, PANEL, TEXT, Labels, draw_panel
from client.app.words import discipline_title
from shared.physics.types import MAX_SPEED, MISCUE_LIMIT
from shared.protocol.enums import Phase, SeatStatus

CLOCK_OK = (90, 200, 120, 255)
CLOCK_WARN = (245, 170, 40, 255)  # R-CLOCK-3: 10 s warning
CLOCK_DANGER = (230, 60, 50, 255)  # R-CLOCK-3: 5 s warning
CLOCK_TIMEOUT = (110, 160, 230, 255)
CLOCK_RADIUS = 42


def clock_colour(seconds: float) -> tuple[int, int, int, int]:
    if seconds <= 5:
        return CLOCK_DANGER
    if seconds <= 10:
        return CLOCK_WARN
    return CLOCK_OK


def _fmt_avg(v: object) -> str:
    return f"{v:.3f}" if isinstance(v, int | float) else "–"


def _fmt(v: object) -> str:
    """A scoresheet figure; blank (a dash) while it is not known yet."""
    return "–" if v is None else str(v)


def draw_static(layout: TableLayout, controls: bool) -> None:
    """The HUD's unchanging parts, painted into the backdrop once: the strips, the clock's
    face and track, and (for a player) the cue-ball face with its miscue circle and the
    elevation dial's arc."""
    draw_panel(layout.scoreboard, PANEL)
    draw_panel(layout.controls, PANEL)
    cx, cy = layout.clock_centre
    cy += 6
    arcade.draw_circle_filled(cx, cy, CLOCK_RADIUS + 6, (22, 26, 34, 255))
    arcade.draw_circle_outline(cx, cy, CLOCK_RADIUS, (60, 66, 78, 255), 7)
    if not controls:
        return
    sx, sy, r = layout.spin_selector
    arcade.draw_circle_filled(sx, sy, r, (240, 240, 232, 255))
    arcade.draw_circle_outline(sx, sy, r * MISCUE_LIMIT, (200, 60, 50, 200), 1.5)
    arcade.draw_line(sx - r, sy, sx + r, sy, (0, 0, 0, 50), 1)
    arcade.draw_line(sx, sy - r, sx, sy + r, (0, 0, 0, 50), 1)
    px, py, arm = layout.elevation_dial
    arcade.draw_arc_outline(px, py, 2 * arm, 2 * arm, (90, 98, 112, 255), 0, 90, 2)


def draw_scoreboard(layout: TableLayout, model: GameModel, labels: Labels) -> None:
    sb = layout.scoreboard
    half = sb.width / 2 - 70
    # A practice room has one player: no opponent panel (no "Player 2", innings or time-out).
    for seat in (0,) if model.practice else (0, 1):
        left = sb.left + 16 if seat == 0 else sb.cx + 70
        panel = Rect(left, sb.bottom + 10, half - 16, sb.height - 20)
        active = model.shooter == seat and model.phase in (Phase.PLAY, Phase.TIMEOUT)
        draw_panel(panel, (44, 54, 70, 255) if active else (34, 40, 52, 255))
        if active:
            arcade.draw_lrbt_rectangle_filled(
                panel.left, panel.left + 6, panel.bottom, panel.top, ACCENT
            )
        ball = model.cue_ball(seat)
        arcade.draw_circle_filled(panel.left + 26, panel.top - 24, 10, BALL_COLOURS[ball])
        arcade.draw_circle_outline(panel.left + 26, panel.top - 24, 10, (0, 0, 0, 120), 1.5)
        labels.draw(
            f"name{seat}",
            side_names(model, seat, active),
            panel.left + 44,
            panel.top - 30,
            14,
            TEXT,
            bold=True,
        )
        # R-TEAM-5: in a team room each partner's own figures, under the names.
        own = "   ".join(
            f"{name} {pts} pts {inn} inn {avg:.3f}"
            for name, pts, inn, avg in model.player_figures(seat)
        )
        labels.draw(f"own{seat}", own, panel.left + 44, panel.top - 50, 10, DIM)
        score = model.score(seat)
        labels.draw(
            f"score{seat}",
            str(score),
            panel.right - 16,
            panel.top - 12,
            40,
            ACCENT if active else TEXT,
            "right",
            "top",
            bold=True,
        )
        line = (
            f"Inn {_fmt(model.innings(seat))}"
            f"   Avg {_fmt_avg(model.average(seat))}"
            f"   HR {_fmt(model.high_run(seat))}   Run {_fmt(model.current_run(seat))}"
        )
        if not model.practice:
            line += f"   T/O {_fmt(model.timeouts_left(seat))}"
        labels.draw(f"stats{seat}", line, panel.left + 16, panel.bottom + 14, 12, DIM)
    draw_shot_clock(layout, model, labels)
    distance = model.distance
    title = discipline_title(model.discipline)
    if distance:
        title += f" · {distance}"
    m = model.match
    if m is not None and m.sets > 1:  # R-END-4
        won = m.sets_won
        title += f" · set {m.set} of {m.sets} ({won[0]}–{won[1]})"
    labels.draw("disc", title, sb.cx, sb.bottom + 8, 10, DIM, "center", "bottom")
    rtt = model.state.rtt_ms
    ping = f"ping {rtt:.0f} ms" if rtt is not None else ""
    if model.link_down:
        ping = "offline"
    labels.draw("ping", ping, layout.controls.right - 12, 14, 9, DIM, "right", "center")
    zone = zone_text(model)
    strip = layout.call_strip  # off the cloth, like the calls
    labels.draw("zone", zone, strip.right - 16, strip.cy, 11, ACCENT, "right", "center")


def zone_text(model: GameModel) -> str:
    """R-ZONE-CALL: the object balls' shared zone, whether its restriction is armed, and
    whether a ball straddles a line; and R-END-2's equalizing inning."""
    m = model.match
    if m is None:
        return ""
    parts = ["equalizing inning"] if m.equalizing else []
    for z in m.zones or ():
        state = "in, second" if z.armed else "in"
        line = " · on the line" if z.on_line else ""
        parts.append(f"{z.name}: {state}{line}")
    return "   ".join(parts)


def side_names(model: GameModel, seat: int, active: bool) -> str:
    """A side's names as the scoreboard shows them: the player, or in a team room both
    partners with the one to strike marked (R-TEAM-2, R-TEAM-3); "(you)" and a connection
    status beside each."""
    parts = []
    for p in model.side(seat):
        text = p.name or "waiting for a player…"
        if model.seat == seat and (not model.teams or model.state.slot == p.slot):
            text += " (you)"
        if p.status not in (None, SeatStatus.CONNECTED):
            text += f" ({p.status})"
        if model.teams and active and model.shooter_slot == p.slot:
            text = "▸ " + text
        parts.append(text)
    return "  ·  ".join(parts) if parts else f"Player {seat + 1}"


def draw_shot_clock(layout: TableLayout, model: GameModel, labels: Labels) -> None:
    cx, cy = layout.clock_centre
    cy += 6
    left = model.seconds_left()
    phase = model.phase
    if left is None:
        text = {Phase.TIMEOUT: "T/O", Phase.OVER: "END", Phase.WAITING: "…"}.get(phase, "")
        labels.draw("clock", text, cx, cy, 16, DIM, "center", "center", bold=True)
        return
    opts = None if model.room is None else model.room.options
    if phase == Phase.TIMEOUT:  # R-TIMEOUT-1: the time-out's own countdown, in its own colour
        total = float(opts.timeout_s if opts is not None and opts.timeout_s else 60)
        col = CLOCK_TIMEOUT
        labels.draw("clock_to", "time-out", cx, cy - 24, 9, DIM, "center", "center")
    else:
        total = float(opts.shot_clock_s if opts is not None and opts.shot_clock_s else 30)
        col = clock_colour(left)
        labels.draw("clock_to", "", cx, cy - 24, 9, DIM, "center", "center")
    frac = max(0.0, min(1.0, left / total))
    if frac > 0:
        # Drains clockwise from twelve o'clock.
        arcade.draw_arc_outline(
            cx, cy, 2 * CLOCK_RADIUS, 2 * CLOCK_RADIUS, col, 90, 90 + 360 * frac, 7
        )
    labels.draw("clock", f"{math.ceil(left):d}", cx, cy, 22, col, "center", "center", bold=True)


def draw_banners(layout: TableLayout, model: GameModel, labels: Labels) -> None:
    """The referee's calls in the strip above the table, never on the cloth: the newest on the
    strip's first line, the one before it, smaller and dimmer, under it. Each call is drawn
    once."""
    strip = layout.call_strip
    calls = model.active_calls()[-2:]
    newest = calls[-1].text if calls else ""
    older = calls[0].text if len(calls) == 2 else ""
    if newest:
        arcade.draw_lrbt_rectangle_filled(
            strip.left, strip.right, strip.bottom, strip.top, (12, 16, 22, 255)
        )
    one_line = not older
    y0 = strip.cy if one_line else strip.cy + strip.height * 0.2
    avail = strip.width - 48
    size0 = fit_size(newest, avail, 15, 9, bold=True)
    labels.draw("banner0", newest, strip.cx, y0, size0, TEXT, "center", "center", bold=True)
    y1 = strip.cy - strip.height * 0.27
    size1 = fit_size(older, avail, 10, 8)
    labels.draw("banner1", older, strip.cx, y1, size1, DIM, "center", "center")


def fit_size(text: str, width: float, largest: float, smallest: float, bold: bool = False) -> float:
    """The largest font size (points) at which ``text`` fits in ``width`` pixels, judged from
    an average character width (a long call, such as the lag's, shrinks instead of running
    off the window)."""
    per_char = 0.62 if bold else 0.56  # of the font size, DejaVu Sans
    if not text:
        return largest
    return max(smallest, min(largest, width / (per_char * len(text) * 96 / 72)))


def draw_prompt(layout: TableLayout, text: str, labels: Labels, key: str = "prompt") -> None:
    """What the player is asked to do now, on the strip between the table and the controls
    (the cloth stays clear: lag and break balls sit near the bottom cushion)."""
    y = layout.rails.bottom - 16
    w = max(300.0, 10.5 * len(text) + 40)
    cx = layout.window_width / 2
    draw_panel(Rect(cx - w / 2, y - 14, w, 28), (10, 14, 20, 235))
    labels.draw(key, text, cx, y, 13, ACCENT, "center", "center")


def draw_controls(
    layout: TableLayout, aim: AimState, labels: Labels, enabled: bool, idle_help: str = ""
) -> None:
    c = layout.controls
    g = layout.power_gauge
    labels.draw("pw", "Power", g.left - 80, g.cy, 12, DIM, "left", "center")
    draw_panel(g, (20, 24, 32, 255))
    frac = aim.speed / MAX_SPEED
    col = (
        (90, 200, 120, 255)
        if frac < 0.6
        else ((245, 170, 40, 255) if frac < 0.85 else (230, 60, 50, 255))
    )
    arcade.draw_lrbt_rectangle_filled(g.left, g.left + g.width * frac, g.bottom, g.top, col)
    arcade.draw_lrbt_rectangle_outline(g.left, g.right, g.bottom, g.top, (90, 98, 112, 255), 1.5)
    labels.draw("pwv", f"{aim.speed:.2f} m/s", g.right + 12, g.cy, 12, TEXT, "left", "center")
    labels.draw(
        "aimv", f"Aim {aim.direction:6.2f}°", g.left, g.top + 14, 12, TEXT, "left", "center"
    )
    help_text = (
        "mouse: aim · drag back & release: shoot · ←/→ fine aim (shift ×10) · ↑/↓ power · "
        "space: shoot · I/J/K/L tip · E/D elevation · P: replay last stroke"
        if enabled
        else (idle_help or "wait for your turn") + " · Enter: chat · Esc: leave"
    )
    labels.draw("help", help_text, c.left + 24, 14, 10, DIM, "left", "center")
    # Spin selector: the cue ball's face, the miscue circle and the tip.
    sx, sy, r = layout.spin_selector
    tx, ty = sx + aim.tip_x * r, sy + aim.tip_y * r
    arcade.draw_circle_filled(tx, ty, 7, (60, 110, 190, 255))
    arcade.draw_circle_outline(tx, ty, 7, (20, 30, 60, 255), 1.5)
    labels.draw(
        "tip",
        f"tip {aim.tip_x:+.2f}, {aim.tip_y:+.2f}",
        sx - r - 10,
        sy,
        10,
        DIM,
        "right",
        "center",
    )
    # Elevation: a quarter dial with the cue's angle.
    px, py, arm = layout.elevation_dial
    a = math.radians(aim.elevation)
    arcade.draw_line(
        px, py, px + arm * math.cos(a), py + arm * math.sin(a), (228, 200, 150, 255), 4
    )
    labels.draw(
        "elev",
        f"elev {aim.elevation:.0f}°" + (" massé" if aim.elevation >= 30 else ""),
        px + 4,
        py + arm + 4,
        10,
        DIM,
        "left",
        "bottom",
    )


def draw_spectator_panel(
    layout: TableLayout, model: GameModel, labels: Labels, chat_draft: str | None
) -> None:
    c = layout.controls
    n = 0 if model.room is None else model.room.spectators
    labels.draw(
        "spec", f"Spectating · {n} watching", c.left + 24, c.top - 22, 13, ACCENT, bold=True
    )
    lines = [(who, text) for _, who, text in model.chat_seen[-4:]]
    for i, (who, text) in enumerate(lines):
        labels.draw(f"chat{i}", f"{who}: {text}", c.left + 24, c.top - 46 - i * 18, 11, TEXT)
    for i in range(len(lines), 4):
        labels.draw(f"chat{i}", "", c.left + 24, c.top - 46 - i * 18, 11, TEXT)
    prompt = "Enter: chat" if chat_draft is None else f"say: {chat_draft}|"
    labels.draw("chatin", prompt, c.left + 24, 14, 11, DIM, "left", "center")


def draw_panel_text(layout: TableLayout, labels: Labels, lines: list[str], area: Rect) -> None:
    """A plain text panel in the controls strip (replay status and keys)."""
    for i, text in enumerate(lines):
        labels.draw(
            f"ptext{i}",
            text,
            area.left + 24,
            area.top - 30 - i * 24,
            14 if i == 0 else 11,
            ACCENT if i == 0 else DIM,
            bold=i == 0,
        )


def draw_chat_overlay(
    layout: TableLayout, model: GameModel, labels: Labels, draft: str | None
) -> None:
    """A player's chat: the last few lines, newest at the bottom, in the free corner of the
    controls strip above the power gauge (off the cloth: a line never covers a ball)."""
    c = layout.controls
    lines = [f"{who}: {text}" for who, text in model.recent_chat()[-3:]]
    if draft is not None:
        lines = [*lines[-2:], f"say: {draft}|"]
    top = c.top - 14
    for i, text in enumerate(lines):
        labels.draw(f"pchat{i}", text[:70], c.left + 24, top - i * 15, 10, TEXT, "left", "center")


def draw_overlay(layout: TableLayout, title: str, lines: list[str], labels: Labels) -> None:
    """A modal message over the table (reconnecting, leave?): the table dims behind it, the
    balls stay visible through the veil."""
    r = layout.rails
    arcade.draw_lrbt_rectangle_filled(r.left, r.right, r.bottom, r.top, (8, 10, 14, 150))
    w, h = 620.0, 74.0 + 26.0 * len(lines)
    box = Rect(r.cx - w / 2, r.cy - h / 2, w, h)
    draw_panel(box, (16, 20, 28, 245))
    arcade.draw_lrbt_rectangle_outline(box.left, box.right, box.bottom, box.top, ACCENT, 2)
    labels.draw("ov_title", title, box.cx, box.top - 32, 18, ACCENT, "center", "center", bold=True)
    for i, text in enumerate(lines[:4]):
        labels.draw(f"ov_{i}", text, box.cx, box.top - 66 - 26 * i, 13, TEXT, "center", "center")
