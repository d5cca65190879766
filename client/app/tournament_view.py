"""The tournaments screen: the events on the server, one event's players, rounds and tables
kept live (``watch_tournament``), and registering. When a match is due the server seats the
player at once (``joined``) and the window goes to the table as for quick match."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

import arcade

from client.app.layout import Rect
from client.app.tournaments import TournamentsState, summary_line
from client.app.widgets import ACCENT, DIM, PANEL, TEXT, Button, Labels, draw_panel
from shared.protocol import tournament as tw

if TYPE_CHECKING:
    from client.app.app import Controller

ROW = 28  # px
LINE = 22  # px
CHAR = 8.5  # px: a wide character of 12 pt text, so a line of (width // CHAR) always fits
BOLD = 9.5  # px: the same in bold


class TournamentView(arcade.View):
    kind = "tournaments"

    def __init__(self, controller: Controller) -> None:
        super().__init__(background_color=(18, 22, 28, 255))
        self.controller = controller
        self.labels = Labels()
        self.buttons = [
            Button("lobby", "Back to lobby", Rect(40, 40, 170, 44), self.lobby),
            Button("refresh", "Refresh", Rect(226, 40, 150, 44), self.refresh),
            Button("register", "Register", Rect(392, 40, 150, 44), self.register),
            Button("unregister", "Give up place", Rect(558, 40, 170, 44), self.unregister),
        ]
        self.buttons[2].primary = True
        self.refresh()

    @property
    def state(self) -> TournamentsState:
        return self.controller.tournaments

    @property
    def list_rect(self) -> Rect:
        return Rect(40, 110, 360, self.window.height - 220)

    @property
    def detail_rect(self) -> Rect:
        return Rect(420, 110, self.window.width - 460, self.window.height - 220)

    def frame_key(self) -> object:
        st = self.state
        return (tuple(st.events), st.shown, st.message, self.window.size)

    # actions ---------------------------------------------------------------------------------
    def _connected(self) -> bool:
        if self.controller.net is None:
            self.state.message = "Connect to a server in the lobby first."
            return False
        return True

    def refresh(self) -> None:
        if self._connected():
            self.controller.send(tw.ListTournaments())

    def pick(self, index: int) -> None:
        st = self.state
        if not 0 <= index < len(st.events) or not self._connected():
            return
        tid = st.events[index].tournament_id
        if st.watching is not None and st.watching != tid:
            self.controller.send(tw.UnwatchTournament(tournament_id=st.watching))
        st.watching, st.shown = tid, None
        self.controller.send(tw.WatchTournament(tournament_id=tid))

    def register(self) -> None:
        if self.state.watching is None:
            self.state.message = "Pick a tournament first."
        elif self._connected():
            self.controller.send(tw.TournamentRegister(tournament_id=self.state.watching))

    def unregister(self) -> None:
        if self.state.watching is None:
            self.state.message = "Pick a tournament first."
        elif self._connected():
            self.controller.send(tw.TournamentUnregister(tournament_id=self.state.watching))

    def lobby(self) -> None:
        st = self.state
        if st.watching is not None and self.controller.net is not None:
            self.controller.send(tw.UnwatchTournament(tournament_id=st.watching))
        st.watching = None
        self.controller.show_lobby()

    # arcade hooks ----------------------------------------------------------------------------
    def on_update(self, delta_time: float) -> None:
        self.controller.pump()

    def on_draw(self) -> None:
        self.clear()
        lb, st = self.labels, self.state
        h = self.window.height
        lb.draw("title", "Tournaments", 40, h - 50, 26, ACCENT, bold=True)
        lb.draw("status", st.message, 40, h - 85, 12, DIM)
        r = self.list_rect
        draw_panel(r, PANEL)
        if not st.events:
            lb.draw("empty", "No tournaments on this server yet.", r.cx, r.cy, 13, DIM,
                    "center", "center")  # fmt: skip
        for n, s in enumerate(st.events[: int((r.height - 20) // ROW)]):
            picked = s.tournament_id == st.watching
            fits = int((r.width - 24) // (BOLD if picked else CHAR))
            lb.draw(f"ev{n}", _fit(summary_line(s), s.options.name, fits), r.left + 12,
                    r.top - 24 - n * ROW, 12, ACCENT if picked else TEXT, bold=picked)  # fmt: skip
        d = self.detail_rect
        draw_panel(d, PANEL)
        given = st.lines() or ["Pick a tournament to see its players and rounds."]
        heading = _wrap(given[0], int((d.width - 28) // BOLD))  # drawn bold
        lines = heading + [p for ln in given[1:] for p in _wrap(ln, int((d.width - 28) // CHAR))]
        for n, line in enumerate(lines[: int((d.height - 20) // LINE)]):
            lb.draw(f"ln{n}", line, d.left + 14, d.top - 26 - n * LINE, 12, TEXT,
                    bold=n < len(heading))  # fmt: skip
        # Registering is for an event still open: greyed out once it is drawn (or over).
        open_ = st.shown is None or st.shown.state == "registration"
        self.buttons[2].enabled = self.buttons[3].enabled = open_
        for b in self.buttons:
            b.draw(lb)
        lb.flush()

    def on_mouse_press(self, x: int, y: int, button: int, modifiers: int) -> None:
        if any(b.click(x, y) for b in self.buttons):
            return
        r = self.list_rect
        if r.contains(x, y):
            self.pick(int((r.top - 10 - y) // ROW))

    def on_mouse_motion(self, x: int, y: int, dx: int, dy: int) -> None:
        for b in self.buttons:
            b.hover = b.rect.contains(x, y)

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        if symbol == arcade.key.ESCAPE:
            self.lobby()


def _fit(line: str, name: str, chars: int) -> str:
    """An event's list line in ``chars``: a long name is cut short, the rest kept."""
    if len(line) <= chars or not line.startswith(name):
        return line
    rest = line[len(name) :]
    return name[: max(1, chars - len(rest) - 1)] + "…" + rest


def _wrap(line: str, chars: int) -> list[str]:
    """A detail line broken to the panel's width, its continuations indented further."""
    indent = " " * (len(line) - len(line.lstrip()) + 4)
    return textwrap.wrap(
        line, max(chars, 20), subsequent_indent=indent, break_on_hyphens=False
    ) or [line]
