"""The statistics screen (the lobby's **Statistics…**, or S): a player's numbers and charts
from the matches the server recorded, per discipline (docs/analysis.md "Statistics").

It opens on the player's own name; type another and press Show (or Enter). The charts are the
ones ``carom stats --out`` writes, laid out for the window's size (``stats_page.chart_boxes``)
and drawn by ``chart_draw``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import arcade

from client.app.chart_draw import draw_chart
from client.app.layout import Rect
from client.app.stats_page import (
    HEADER,
    StatsPage,
    chart_boxes,
    discipline_text,
)
from client.app.widgets import ACCENT, DIM, TEXT, Button, Labels, Picker, TextField

if TYPE_CHECKING:
    from client.app.app import Controller
    from shared.analysis.charts import Chart


class StatsView(arcade.View):
    kind = "stats"

    def __init__(self, controller: Controller, player: str | None = None) -> None:
        super().__init__(background_color=(18, 22, 28, 255))
        self.controller = controller
        self.labels = Labels()
        name = player or controller.standing.account or controller.model.name or ""
        self.page = StatsPage(name.strip())
        self.player = TextField("player", "Player", Rect(40, 0, 260, 34), name, max_len=32)
        self.show_button = Button("show", "Show", Rect(316, 0, 110, 34), self.show)
        self.back_button = Button("lobby", "Back to lobby", Rect(0, 0, 170, 34), self.lobby)
        self.buttons = [self.show_button, self.back_button]
        self.discipline: Picker | None = None
        self.version = 0  # bumped when the page changes without input (the answer came)
        self._charts: tuple[object, dict[str, Chart]] | None = None
        self._place()
        self.show()

    # layout ----------------------------------------------------------------------------------
    def _place(self) -> None:
        """Put the header widgets under the window's top edge (it may have been resized)."""
        w, h = self.window.width, self.window.height
        self.back_button.rect = Rect(w - 210, h - 116, 170, 34)
        self.player.rect = Rect(40, h - 116, 260, 34)
        self.show_button.rect = Rect(316, h - 116, 110, 34)
        if self.discipline is not None:
            self.discipline.rect = Rect(446, h - 116, 250, 34)

    @property
    def boxes(self) -> dict[str, Rect]:
        return chart_boxes(self.window.width, self.window.height)

    def charts(self) -> dict[str, Chart]:
        """The page's charts for the window's size, made again only when something changed."""
        key = (self.window.size, self.version, self.page.shown_discipline)
        if self._charts is None or self._charts[0] != key:
            self._charts = (key, self.page.charts(self.boxes))
        return self._charts[1]

    def frame_key(self) -> object:
        """What this screen shows that changes without input (the window skips frames whose
        key is unchanged; input always draws the next one)."""
        return (self.version, self.page.loading, self.page.shown_discipline, self.window.size)

    # actions ---------------------------------------------------------------------------------
    def show(self) -> None:
        """Read the typed player's matches from the server."""
        name = self.player.value.strip()
        self.page = StatsPage(name)
        self.discipline = None
        self.version += 1
        if not name:
            self.page.failed = "Type a player's name and press Show."
            return
        self.page.request(getattr(self.controller.net, "player_logs", None))

    def lobby(self) -> None:
        self.controller.show_lobby()

    def _answered(self) -> None:
        """The matches came: offer a discipline choice when the player has several."""
        self.version += 1
        choices = self.page.disciplines
        if len(choices) > 1:
            self.discipline = Picker(
                "discipline", "Discipline", Rect(446, 0, 250, 34), choices, 0, discipline_text
            )
            self._place()

    # arcade hooks ----------------------------------------------------------------------------
    def on_update(self, delta_time: float) -> None:
        self.controller.pump()
        if self.page.poll():
            self._answered()

    def on_resize(self, width: int, height: int) -> None:
        super().on_resize(width, height)
        self._place()

    def on_draw(self) -> None:
        self.clear()
        lb = self.labels
        w, h = self.window.width, self.window.height
        lb.draw("title", "Statistics", 40, h - 50, 26, ACCENT, bold=True)
        lb.draw(
            "from",
            "from the matches recorded on this server",
            250,
            h - 50,
            13,
            DIM,
        )
        self.player.draw(lb)
        self.show_button.draw(lb)
        if self.discipline is not None:
            self.discipline.draw(lb)
        summary = lb.draw("summary", self.page.summary(), 40, h - HEADER + 24, 13, TEXT)
        room = w - 80
        if summary.content_width > room:  # a narrow window: the same line, smaller
            size = max(9.0, 13 * room / summary.content_width)
            lb.draw("summary", self.page.summary(), 40, h - HEADER + 24, size, TEXT)
        empty = self.page.empty_text()
        if empty is not None:
            lb.draw("empty", empty, w / 2, h / 2, 15, TEXT, "center", "center")
        else:
            boxes = self.boxes
            for name, chart in self.charts().items():
                draw_chart(chart, boxes[name], lb)
        self.back_button.draw(lb)
        lb.flush()

    def on_mouse_press(self, x: int, y: int, button: int, modifiers: int) -> None:
        self.player.focused = self.player.rect.contains(x, y)
        if any(b.click(x, y) for b in self.buttons):
            return
        if self.discipline is not None and self.discipline.click(x, y, button):
            self.page.discipline = self.discipline.value
            self.version += 1

    def on_mouse_motion(self, x: int, y: int, dx: int, dy: int) -> None:
        for b in self.buttons:
            b.hover = b.rect.contains(x, y)

    def on_text(self, text: str) -> None:
        self.player.type_text(text)

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        if symbol == arcade.key.BACKSPACE:
            self.player.backspace()
        elif symbol in (arcade.key.ENTER, arcade.key.RETURN):
            self.player.focused = False
            self.show()
        elif symbol == arcade.key.ESCAPE:
            if self.player.focused:
                self.player.focused = False
            else:
                self.lobby()
