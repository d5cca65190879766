"""The results screen: the scoresheet of a finished match (R-PLAY-2), rematch, replay, lobby."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import arcade

from client.app.layout import Rect
from client.app.standing import rated_text
from client.app.widgets import ACCENT, DIM, PANEL, TEXT, Button, Labels, draw_panel
from client.app.words import discipline_title
from shared.protocol import to_server as ts
from shared.protocol.enums import EndReason
from shared.protocol.views import Scoresheet, SheetLine

if TYPE_CHECKING:
    from client.app.app import Controller

REASONS = {
    EndReason.DISTANCE: "reached the distance",
    EndReason.INNINGS_LIMIT: "innings limit reached",
    EndReason.CONCEDE: "conceded",
    EndReason.FORFEIT: "forfeit",
    EndReason.NO_SHOW: "did not show",
}


def _line(line: SheetLine) -> tuple[str, str, str, str]:
    return (str(line.points), str(line.innings), f"{line.average:.3f}", str(line.high_run))


def scoresheet_rows(model_names: tuple[str, str], sheet: Scoresheet | None) -> list[list[str]]:
    """Rows of text for the scoresheet table: one block per set, then the match totals."""
    rows: list[list[str]] = [["", "Points", "Innings", "Average", "High run"]]
    if sheet is None:
        return rows
    if len(sheet.sets) > 1:
        for s in sheet.sets:
            rows.append([f"Set {s.number}", "", "", "", ""])
            for seat, line in enumerate(s.lines):
                rows.append([f"  {model_names[seat]}", *_line(line)])
        rows.append(["Match", "", "", "", ""])
    for seat, line in enumerate(sheet.match):
        rows.append([model_names[seat], *_line(line)])
    return rows


def player_rows(names: Callable[[int, int], str], sheet: Scoresheet | None) -> list[list[str]]:
    """A team match's players' own totals (R-TEAM-5), side by side under the sides' lines:
    points, innings and average; a high run belongs to the side."""
    if sheet is None or not sheet.players:
        return []
    return [["Players", "", "", "", ""]] + [
        [
            f"  {names(p.seat, p.slot)}",
            str(p.points),
            str(p.innings),
            f"{p.average:.3f}",
            "",
        ]
        for p in sorted(sheet.players, key=lambda p: (p.seat, p.slot))
    ]


class ResultsView(arcade.View):
    kind = "results"

    def __init__(self, controller: Controller) -> None:
        super().__init__(background_color=(18, 22, 28, 255))
        self.controller = controller
        self.labels = Labels()
        self.status = ""
        bw, bh = 170, 44
        actions = [
            ("rematch", "Rematch", self.rematch),
            ("replay", "Watch replay", self.replay),
            ("lobby", "Back to lobby", self.lobby),
        ]
        if controller.model.spectating:  # a rematch is the players' to ask for
            actions = actions[1:]
        self.buttons = [
            Button(key, text, Rect(40 + i * (bw + 16), 40, bw, bh), fn)
            for i, (key, text, fn) in enumerate(actions)
        ]

    def rematch(self) -> None:
        self.controller.send(ts.Rematch())
        self.status = "rematch asked: waiting for the opponent"

    def replay(self) -> None:
        over = self.controller.model.game_over
        mid = None if over is None else over.match_id
        if mid is not None:
            self.controller.send(ts.GetReplay(match_id=mid))
            self.status = "fetching the replay…"
        else:
            self.status = "this server keeps no replay of the match"

    def lobby(self) -> None:
        self.controller.leave()

    def on_update(self, delta_time: float) -> None:
        self.controller.pump()

    def on_draw(self) -> None:
        self.clear()
        lb = self.labels
        m = self.controller.model
        over = m.game_over
        h, w = self.window.height, self.window.width
        names = (m.player_name(0), m.player_name(1))
        winner = None if over is None else over.winner
        if winner is not None and 0 <= winner < 2:
            head = f"{names[winner]} {'win' if m.teams else 'wins'}"
        elif over is not None:
            head = "Draw"
        else:
            head = "Match over"
        reason = "" if over is None else over.reason
        lb.draw("head", head, 40, h - 70, 32, ACCENT, bold=True)
        sub = f"{discipline_title(m.discipline)} · {REASONS.get(reason, reason.replace('_', ' '))}"
        lb.draw("sub", sub, 40, h - 105, 14, DIM)
        sheet = None if over is None else over.scoresheet
        rows = scoresheet_rows(names, sheet) + player_rows(m.partner_name, sheet)
        panel = Rect(40, h - 160 - 36 * len(rows), w - 80, 36 * len(rows) + 20)
        draw_panel(panel, PANEL)
        xs = (0, 360, 540, 720, 900)
        for r, row in enumerate(rows):
            y = panel.top - 30 - r * 36
            for c, cell in enumerate(row):
                colour = DIM if r == 0 else TEXT
                lb.draw(
                    f"sheet{r}.{c}",
                    cell,
                    panel.left + 20 + xs[c],
                    y,
                    16 if r else 13,
                    colour,
                    bold=(r > 0 and c == 1),
                )
        rated = rated_text(self.controller.standing.rated, None if over is None else over.match_id)
        lb.draw("rated", rated, 40, panel.bottom - 36, 16, ACCENT, bold=True)
        lb.draw("status", self.status, 40, 110, 12, DIM)
        for b in self.buttons:
            b.draw(lb)
        lb.flush()

    def on_mouse_press(self, x: int, y: int, button: int, modifiers: int) -> None:
        for b in self.buttons:
            if b.click(x, y):
                return

    def on_mouse_motion(self, x: int, y: int, dx: int, dy: int) -> None:
        for b in self.buttons:
            b.hover = b.rect.contains(x, y)
