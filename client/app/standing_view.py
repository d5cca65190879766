"""The ranking screen: log in or register, quick match (with a waiting time and cancel), the
leaderboard per discipline and a player's profile (docs/accounts.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import arcade

from client.app.layout import Rect
from client.app.standing import (
    BOARD_COLUMNS,
    StandingState,
    board_cells,
    profile_lines,
    waiting_text,
)
from client.app.widgets import (
    ACCENT,
    DIM,
    PANEL,
    TEXT,
    Button,
    Labels,
    Picker,
    TextField,
    draw_panel,
)
from client.app.words import discipline_title
from shared.protocol import DISCIPLINES
from shared.protocol import to_server as ts

if TYPE_CHECKING:
    from client.app.app import Controller

ROW = 30  # px
DISTANCES = (None, 5, 10, 15, 25, 50)


class StandingView(arcade.View):
    kind = "standing"

    def __init__(self, controller: Controller) -> None:
        super().__init__(background_color=(18, 22, 28, 255))
        self.controller = controller
        self.labels = Labels()
        h = controller.window.height
        self.name = TextField("acc_name", "Account name", Rect(40, h - 150, 220, 34), max_len=20)
        self.password = TextField(
            "acc_pw", "Password", Rect(280, h - 150, 220, 34), secret=True, max_len=64
        )
        self.fields = [self.name, self.password]
        self.discipline = Picker(
            "q_disc", "Discipline", Rect(40, h - 230, 250, 34), DISCIPLINES, 0, discipline_title
        )
        self.distance = Picker(
            "q_dist",
            "Distance (points)",
            Rect(310, h - 230, 160, 34),
            DISTANCES,
            0,
            lambda v: "default" if v is None else str(v),
        )
        self.account_buttons = [
            Button("login", "Log in", Rect(520, h - 150, 110, 34), self.login),
            Button("register", "Register", Rect(640, h - 150, 110, 34), self.register),
        ]
        self.queue_button = Button("queue", "Quick match", Rect(490, h - 230, 200, 34), self.queue)
        self.buttons = [
            Button("lobby", "Back to lobby", Rect(40, 40, 170, 44), self.lobby),
            Button("refresh", "Refresh", Rect(226, 40, 170, 44), self.refresh),
            Button("board", "Back to leaderboard", Rect(412, 40, 210, 44), self.close_profile),
        ]
        self.showing_profile = False
        self.refresh()

    @property
    def state(self) -> StandingState:
        return self.controller.standing

    def frame_key(self) -> object:
        """What this screen shows that changes without input (the window skips frames whose
        key is unchanged; input always draws the next one): the waiting time ticks once a
        second."""
        st = self.state
        waited = (
            None
            if st.waiting_since is None
            else int((self.controller.model.now_ms() - st.waiting_since) // 1000)
        )
        board = tuple(st.board)
        profile = st.profile
        return (st.message, st.account, waited, st.board_discipline, board, profile,
                self.showing_profile, self.window.size)  # fmt: skip

    @property
    def list_rect(self) -> Rect:
        return Rect(40, 110, self.window.width - 80, self.window.height - 380)

    # actions ---------------------------------------------------------------------------------
    def _credentials(self) -> tuple[str, str] | None:
        name, pw = self.name.value.strip(), self.password.value
        if self.controller.net is None:
            self.state.message = "Connect to a server in the lobby first."
            return None
        if not name or not pw:
            self.state.message = "Type your account name and password."
            return None
        return name, pw

    def login(self) -> None:
        creds = self._credentials()
        if creds is not None:
            self.state.asked_name = creds[0]
            self.controller.send(ts.Login(name=creds[0], password=creds[1]))
            self.password.value = ""

    def register(self) -> None:
        creds = self._credentials()
        if creds is not None:
            self.state.asked_name = creds[0]
            self.controller.send(ts.Register(name=creds[0], password=creds[1]))
            self.password.value = ""

    def queue(self) -> None:
        if self.controller.net is None:
            self.state.message = "Connect to a server in the lobby first."
        elif self.state.waiting:
            self.controller.send(ts.Unqueue())
        else:
            fields: dict[str, Any] = {"discipline": self.discipline.value}
            if self.distance.value is not None:
                fields["distance"] = self.distance.value
            self.controller.send(ts.Queue(**fields))

    def refresh(self) -> None:
        if self.controller.net is not None:
            self.controller.send(ts.GetLeaderboard(discipline=self.discipline.value, limit=20))

    def begin(self, action: str) -> None:
        """What the lobby's button asked for (``Controller.show_account``)."""
        if action in ("login", "register"):
            self.name.focused = True
            self.showing_profile = False
            if self.controller.net is None:
                self.state.message = "Connect to a server in the lobby first."
            elif action == "login":
                self.state.message = "Type your account name and password, then Log in."
            else:
                self.state.message = (
                    "Choose an account name and a password, then Register: your ratings and "
                    "matches are kept under that name."
                )
        elif action == "profile":
            player = self.controller.model.state.player_id
            if self.controller.net is not None and player:
                self.state.profile = None  # not another player's, shown while it comes
                self.controller.send(ts.GetProfile(player_id=player))
                self.showing_profile = True
        elif action == "queue" and not self.state.waiting:
            self.queue()

    def close_profile(self) -> None:
        self.showing_profile = False

    def lobby(self) -> None:
        if self.state.waiting:
            self.controller.send(ts.Unqueue())  # leaving the screen leaves the queue
        self.controller.show_lobby()

    # arcade hooks ----------------------------------------------------------------------------
    def on_update(self, delta_time: float) -> None:
        self.controller.pump()

    def on_draw(self) -> None:
        self.clear()
        lb, st = self.labels, self.state
        h = self.window.height
        lb.draw("title", "Quick match, account and ranking", 40, h - 50, 26, ACCENT, bold=True)
        lb.draw("status", st.message, 40, h - 85, 12, DIM)
        who = f"Playing as {st.account}" if st.account else "Playing as a guest (unrated)"
        lb.draw("who", who, 770, h - 133, 13, TEXT)
        for f in self.fields:
            f.draw(lb)
        self.discipline.draw(lb)
        self.distance.draw(lb)
        self.queue_button.text = "Cancel" if st.waiting else "Quick match"
        self.queue_button.draw(lb)
        if st.waiting_since is not None:
            waited = (self.controller.model.now_ms() - st.waiting_since) / 1000
            lb.draw("wait", waiting_text(waited), 710, h - 213, 13, ACCENT)
        if self.showing_profile and st.profile is not None:
            self.draw_profile()
        else:
            self.draw_board()
        for b in self.account_buttons + self.buttons[: 3 if self.showing_profile else 2]:
            b.draw(lb)
        lb.flush()

    def draw_board(self) -> None:
        lb, r, st = self.labels, self.list_rect, self.state
        draw_panel(r, PANEL)
        for i, (title, dx) in enumerate(BOARD_COLUMNS):
            lb.draw(f"hdr{i}", title, r.left + 14 + dx, r.top - 22, 12, DIM, bold=True)
        rows = st.board if st.board_discipline == self.discipline.value else []
        if not rows:
            lb.draw(
                "empty",
                f"No rated {discipline_title(self.discipline.value)} players yet.",
                r.cx,
                r.cy,
                13,
                DIM,
                "center",
                "center",
            )
        for n, row in enumerate(rows[: int((r.height - 40) // ROW)]):
            y = r.top - 50 - n * ROW
            for i, ((_, dx), text) in enumerate(zip(BOARD_COLUMNS, board_cells(row), strict=True)):
                lb.draw(f"cell{n}.{i}", text, r.left + 14 + dx, y, 12, TEXT)

    def draw_profile(self) -> None:
        lb, r = self.labels, self.list_rect
        draw_panel(r, PANEL)
        assert self.state.profile is not None
        lines = profile_lines(self.state.profile)
        for n, line in enumerate(lines[: int((r.height - 20) // 24)]):
            size, bold = (16, True) if n == 0 else (12, False)
            lb.draw(f"prof{n}", line, r.left + 14, r.top - 30 - n * 24, size, TEXT, bold=bold)

    def on_mouse_press(self, x: int, y: int, button: int, modifiers: int) -> None:
        for f in self.fields:
            f.focused = f.rect.contains(x, y)
        shown = self.buttons[: 3 if self.showing_profile else 2]
        if any(b.click(x, y) for b in [*self.account_buttons, self.queue_button, *shown]):
            return
        if self.discipline.click(x, y, button):
            self.showing_profile = False
            self.refresh()
            return
        if self.distance.click(x, y, button):
            return
        r = self.list_rect
        rows = self.state.board if self.state.board_discipline == self.discipline.value else []
        if not self.showing_profile and r.contains(x, y):
            n = int((r.top - 50 + 18 - y) // ROW)
            if 0 <= n < len(rows):
                self.controller.send(ts.GetProfile(player_id=rows[n].player_id))
                self.showing_profile = True

    def on_mouse_motion(self, x: int, y: int, dx: int, dy: int) -> None:
        for b in [*self.account_buttons, self.queue_button, *self.buttons]:
            b.hover = b.rect.contains(x, y)

    def on_text(self, text: str) -> None:
        for f in self.fields:
            f.type_text(text)

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        if symbol == arcade.key.BACKSPACE:
            for f in self.fields:
                f.backspace()
        elif symbol in (arcade.key.ENTER, arcade.key.RETURN) and self.password.focused:
            self.login()
        elif symbol == arcade.key.ESCAPE:
            self.lobby()
