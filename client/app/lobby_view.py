"""The lobby: connect, list rooms, create a room with every match option, join, spectate,
practise, browse finished matches for replays."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import arcade

from client.app.layout import Rect
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
from client.app.words import discipline_title, error_text
from shared.options import BY_NAME, WIRE_OPTIONS
from shared.protocol import DISCIPLINES  # the wire names, one list
from shared.protocol import to_server as ts
from shared.protocol.enums import Phase
from shared.protocol.views import MatchRow, RoomSummary

if TYPE_CHECKING:
    from client.app.app import Controller

ROOM_ROW = 30  # px
REFRESH_S = 3.0


def _opt(v: Any) -> str:
    return "default" if v is None else ("on" if v is True else ("off" if v is False else str(v)))


def _opt_none(word: str) -> Any:
    return lambda v: word if v is None else _opt(v)


class CreateDialog:
    """Every ``create_room`` option (PROTOCOL.md), each a picker or a field."""

    def __init__(self, left: float, top: float) -> None:
        col_w, row_h = 250, 64
        # The room options come from the one options table (shared/options.py): a new option
        # with picker values shows up here by itself. The discipline and privacy are not
        # referee options.
        spec: list[tuple[str, str, tuple[Any, ...]]] = [
            ("discipline", "Discipline", DISCIPLINES),
            *((o.name, o.label, o.picks) for o in WIRE_OPTIONS if o.picks and o.name != "practice"),
            ("private", "Private room", (False, True)),
            ("practice", BY_NAME["practice"].label, BY_NAME["practice"].picks),
        ]
        self.pickers: dict[str, Picker] = {}
        for i, (key, label, choices) in enumerate(spec):
            col, row = i % 3, i // 3
            rect = Rect(left + col * (col_w + 20), top - (row + 1) * row_h, col_w, 34)
            fmt = discipline_title if key == "discipline" else _opt
            if key in BY_NAME and BY_NAME[key].default_text != "derived":
                fmt = _opt_none(BY_NAME[key].default_text)  # "none" rather than "default"
            self.pickers[key] = Picker(key, label, rect, choices, 0, fmt)
        last = len(spec)
        self.password = TextField(
            "password",
            "Password (private rooms)",
            Rect(left + (last % 3) * (col_w + 20), top - (last // 3 + 1) * row_h, col_w, 34),
            secret=True,
        )

    def options(self) -> dict[str, Any]:
        """The ``create_room`` fields; defaults are left out (the referee's defaults apply)."""
        out: dict[str, Any] = {}
        for key, p in self.pickers.items():
            if p.value is not None:
                out[key] = p.value
        if out.get("private") and self.password.value:
            out["password"] = self.password.value
        return out

    def draw(self, labels: Labels) -> None:
        for p in self.pickers.values():
            p.draw(labels)
        self.password.draw(labels)

    def click(self, x: float, y: float, button: int) -> bool:
        self.password.focused = self.password.rect.contains(x, y)
        return any(p.click(x, y, button) for p in self.pickers.values()) or self.password.focused


class LobbyView(arcade.View):
    kind = "lobby"

    def __init__(self, controller: Controller) -> None:
        super().__init__(background_color=(18, 22, 28, 255))
        self.controller = controller
        self.labels = Labels()
        w, h = controller.window.width, controller.window.height
        self.url = TextField(
            "url",
            "Server URL",
            Rect(40, h - 110, 420, 34),
            controller.url or "ws://127.0.0.1:8765/",
        )
        self.name = TextField(
            "name",
            "Your name",
            Rect(480, h - 110, 220, 34),
            controller.model.name or "player",
            max_len=32,
        )
        self.room_password = TextField(
            "rpw", "Room password", Rect(w - 300, 150, 260, 34), secret=True
        )
        self.fields = [self.url, self.name, self.room_password]
        self.selected: int | None = None
        self.creating: CreateDialog | None = None
        self.status = ""
        self.held: dict[str, str] = controller.held_seats()  # rooms where we hold a seat
        self.since_refresh = REFRESH_S
        bh = 40
        # The row of actions, Quick match first: what a new player looking for a game wants.
        # 150 px each where the window is wide enough, narrower where it is not (10 px apart).
        actions: list[tuple[str, str, Any]] = [
            ("quick", "Quick match", self.quick_match),
            ("join", "Join", self.join),
            ("spectate", "Watch", self.spectate),
            ("create", "Create room…", self.open_create),
            ("practice", "Practice", self.practice),
            ("replays", "Replays…", self.open_matches),
            ("ranking", "Ranking…", lambda: controller.show_account("ranking")),
            ("events", "Tournaments…", controller.show_tournaments),
            ("stats", "Statistics…", controller.show_stats),
        ]
        gap = 10
        bw = min(150.0, (w - 80 - gap * (len(actions) - 1)) / len(actions))
        self.buttons = [
            Button("connect", "Connect", Rect(720, h - 110, 120, 34), self.connect),
            *(
                Button(key, text, Rect(40 + i * (bw + gap), 40, bw, bh), action)
                for i, (key, text, action) in enumerate(actions)
            ),
        ]
        self.buttons[1].primary = True
        # Who this window plays as, top right: log in or register, or the account's profile.
        self.guest_buttons = [
            Button(
                "login",
                "Log in…",
                Rect(w - 296, h - 66, 120, 34),
                lambda: controller.show_account("login"),
            ),
            Button(
                "register",
                "Register…",
                Rect(w - 160, h - 66, 120, 34),
                lambda: controller.show_account("register"),
            ),
        ]
        self.member_buttons = [
            Button(
                "profile",
                "Your profile…",
                Rect(w - 296, h - 66, 256, 34),
                lambda: controller.show_account("profile"),
            ),
        ]
        self.match_buttons = [
            Button("watch", "Watch replay", Rect(40, 40, 200, bh), self.watch),
            Button("back", "Back to rooms", Rect(256, 40, 170, bh), self.close_matches),
        ]
        self.browsing = False  # the finished-matches list instead of the rooms
        self.dialog_buttons = [
            Button("do_create", "Create and join", Rect(40, 40, 200, bh), self.create),
            Button("cancel", "Cancel", Rect(256, 40, 150, bh), self.close_create),
        ]

    def frame_key(self) -> object:
        """What the lobby shows that changes without input (``app.GameWindow`` skips frames
        whose key is unchanged; input always draws the next one)."""
        m = self.controller.model
        rooms = tuple((r.room_id, r.phase, r.players, r.spectators, r.score) for r in m.rooms)
        account = self.controller.standing.account
        return (rooms, len(m.matches), self.status, tuple(sorted(self.held)), account,
                self.window.size)  # fmt: skip

    @property
    def account_buttons(self) -> list[Button]:
        return self.member_buttons if self.controller.standing.account else self.guest_buttons

    @property
    def list_rect(self) -> Rect:
        h = self.window.height
        return Rect(40, 110, self.window.width - 80, h - 260)

    # actions ---------------------------------------------------------------------------------
    def connect(self) -> None:
        err = self.controller.connect(self.url.value.strip(), self.name.value.strip() or "player")
        self.status = err or f"connected to {self.url.value.strip()}"
        if err is None:
            self.refresh()

    def refresh(self) -> None:
        self.since_refresh = 0.0
        if self.controller.net is not None:
            self.controller.send(ts.ListRooms())
            self.held = self.controller.held_seats()

    def _room(self) -> RoomSummary | None:
        rooms = self.controller.model.rooms
        if self.selected is None or not 0 <= self.selected < len(rooms):
            self.status = "select a room first"
            return None
        return rooms[self.selected]

    def join(self) -> None:
        room = self._room()
        if room is None:
            return
        if _mine(room, self.held):
            # Our seat in a match under way: take it back with the kept seat token.
            rid = room.room_id
            self.controller.send(ts.Rejoin(room_id=rid, seat_token=self.held[rid]))
            self.status = "rejoining your match…"
            return
        pw = self.room_password.value or None
        self.controller.send(ts.Join(room_id=room.room_id, password=pw))

    def spectate(self) -> None:
        room = self._room()
        if room is not None:
            pw = self.room_password.value or None
            self.controller.send(ts.Spectate(room_id=room.room_id, password=pw))

    def open_matches(self) -> None:
        self.browsing = True
        self.selected = None
        if self.controller.net is not None:
            self.controller.send(ts.ListMatches(limit=50))

    def close_matches(self) -> None:
        self.browsing = False
        self.selected = None

    def watch(self) -> None:
        matches = self.controller.model.matches
        if self.selected is None or not 0 <= self.selected < len(matches):
            self.status = "select a match first"
            return
        self.controller.send(ts.GetReplay(match_id=matches[self.selected].match_id))
        self.status = "fetching the replay…"

    def open_create(self) -> None:
        self.creating = CreateDialog(40, self.window.height - 150)

    def close_create(self) -> None:
        self.creating = None

    def create(self) -> None:
        if self.creating is None:
            return
        self.controller.create_and_join(self.creating.options())
        self.creating = None

    def practice(self) -> None:
        self.controller.create_and_join({"discipline": "three_cushion", "practice": True})

    def quick_match(self) -> None:
        """Look for an opponent of about the player's strength at once; the quick-match screen
        shows the wait, a Cancel and the discipline."""
        self.controller.show_account("queue")

    # arcade hooks ----------------------------------------------------------------------------
    def on_update(self, delta_time: float) -> None:
        self.controller.pump()
        self.since_refresh += delta_time
        if self.since_refresh >= REFRESH_S and self.creating is None and not self.browsing:
            self.refresh()
        err = self.controller.model.last_error
        if err is not None:
            self.status = error_text(err.code, err.message)
            self.controller.model.last_error = None

    def on_draw(self) -> None:
        self.clear()
        lb = self.labels
        h = self.window.height
        lb.draw("title", "Carom", 40, h - 50, 30, ACCENT, bold=True)
        account = self.controller.standing.account
        who = f"Logged in as {account}" if account else "Playing as a guest (unrated)"
        lb.draw("who", who, self.window.width - 312, h - 49, 13, TEXT, "right", "center")
        for b in self.account_buttons:
            b.draw(lb)
        # Its own line under the fields, the window's width: an error is read in full.
        lb.draw("status", self.status, 40, h - 130, 12, DIM, "left", "center")
        self.url.draw(lb)
        self.name.draw(lb)
        buttons = self.buttons[:1]
        if self.creating is not None:
            lb.draw("ctitle", "New room", 40, h - 140, 16, TEXT, bold=True)
            self.creating.draw(lb)
            buttons = buttons + self.dialog_buttons
        elif self.browsing:
            self.draw_matches()
            buttons = buttons + self.match_buttons
        else:
            self.draw_rooms()
            self.room_password.draw(lb)
            buttons = self.buttons
        for b in buttons:
            b.draw(lb)
        lb.flush()

    def draw_rooms(self) -> None:
        empty = (
            "no open rooms: create one, or practise"
            if self.controller.net is not None
            else "not connected: enter a server URL and press Connect"
        )
        cols = (
            ("Game", 0),
            ("Players", 230),
            ("Score", 560),
            ("Watching", 660),
            ("Phase", 780),
            ("", 940),
        )
        rows = [room_cells(room, self.held) for room in self.controller.model.rooms]
        self._draw_table("", cols, rows, empty)

    def draw_matches(self) -> None:
        cols = (
            ("Match", 0),
            ("Discipline", 120),
            ("Players", 340),
            ("Score", 700),
            ("Strokes", 820),
            ("Result", 940),
        )
        rows = [match_cells(m) for m in self.controller.model.matches]
        self._draw_table("m", cols, rows, "no finished matches on this server yet")

    def _draw_table(
        self,
        prefix: str,
        cols: tuple[tuple[str, int], ...],
        rows: list[tuple[str, ...]],
        empty: str,
    ) -> None:
        """A selectable list in the list panel: a header row, then one row per entry."""
        lb = self.labels
        r = self.list_rect
        draw_panel(r, PANEL)
        for i, (title, dx) in enumerate(cols):
            lb.draw(f"{prefix}hdr{i}", title, r.left + 14 + dx, r.top - 22, 12, DIM, bold=True)
        if not rows:
            lb.draw(f"{prefix}empty", empty, r.cx, r.cy, 13, DIM, "center", "center")
        for n, cells in enumerate(rows[: int((r.height - 40) // ROOM_ROW)]):
            y = r.top - 50 - n * ROOM_ROW
            if n == self.selected:
                arcade.draw_lrbt_rectangle_filled(
                    r.left + 4, r.right - 4, y - 10, y + 18, (60, 80, 120, 255)
                )
            for i, ((_, dx), text) in enumerate(zip(cols, cells, strict=True)):
                lb.draw(f"{prefix}cell{n}.{i}", text, r.left + 14 + dx, y, 12, TEXT)

    def on_mouse_press(self, x: int, y: int, button: int, modifiers: int) -> None:
        for f in self.fields:
            f.focused = f.rect.contains(x, y)
        if self.creating is not None:
            if any(
                b.click(x, y)
                for b in [*self.dialog_buttons, *self.buttons[:1], *self.account_buttons]
            ):
                return
            self.creating.click(x, y, button)
            return
        active = self.buttons[:1] + self.match_buttons if self.browsing else self.buttons
        if any(b.click(x, y) for b in [*active, *self.account_buttons]):
            return
        r = self.list_rect
        rows = self.controller.model.matches if self.browsing else self.controller.model.rooms
        if r.contains(x, y):
            n = int((r.top - 50 + 18 - y) // ROOM_ROW)
            if 0 <= n < len(rows):
                self.selected = n

    def on_mouse_motion(self, x: int, y: int, dx: int, dy: int) -> None:
        for b in self.buttons + self.dialog_buttons + self.match_buttons + self.account_buttons:
            b.hover = b.rect.contains(x, y)

    def _typing(self) -> list[TextField]:
        out = [f for f in self.fields if f.focused]
        if self.creating is not None and self.creating.password.focused:
            out.append(self.creating.password)
        return out

    def on_text(self, text: str) -> None:
        for f in self._typing():
            f.type_text(text)

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        if symbol == arcade.key.BACKSPACE:
            for f in self._typing():
                f.backspace()
        elif symbol in (arcade.key.ENTER, arcade.key.RETURN) and self.url.focused:
            self.connect()
        elif symbol == arcade.key.ESCAPE:
            self.creating = None
            self.browsing = False
        elif symbol == arcade.key.S and not self._typing() and self.creating is None:
            self.controller.show_stats()  # the player's statistics (stats_view.py)


PHASES = {
    Phase.WAITING: "waiting",
    Phase.LAG: "lag",
    Phase.BREAK_CHOICE: "choosing the break",
    Phase.PLAY: "playing",
    Phase.TIMEOUT: "time-out",
    Phase.OVER: "finished",
}


def _mine(room: RoomSummary, held: dict[str, str]) -> bool:
    """A room where we hold a seat in a match under way (we left it, or our window closed)."""
    return room.room_id in held and room.phase not in (Phase.WAITING, Phase.OVER)


def _short(name: str, most: int = 16) -> str:
    return name if len(name) <= most else name[: most - 1] + "…"


def _players_text(room: RoomSummary) -> str:
    """Who plays, as a spectator would say it: "Caudron v Jaspers"."""
    if len(room.players) == 4:  # a team room (R-TEAM-1): seats A1, B1, A2, B2
        sides = [" & ".join(_short(p, 10) for p in room.players[s::2] if p) for s in (0, 1)]
        free = sum(p is None for p in room.players)
        text = " v ".join(side or "nobody yet" for side in sides)
        return f"{text}, {free} seat{'s' if free > 1 else ''} free" if free else text
    names = [_short(p) for p in room.players if p]
    if room.practice:
        return f"{names[0]}, practising" if names else "nobody yet"
    if len(names) == 2:
        return f"{names[0]} v {names[1]}"
    if names:
        return f"{names[0]}, waiting for an opponent"
    return "nobody yet"


def _score_text(room: RoomSummary) -> str:
    """The live score, seat by seat as the players are named; "–" before the match (or from
    a server too old to send it)."""
    if room.score is None or not room.score:
        return "–"
    return "–".join(str(points) for points in room.score)


def room_cells(room: RoomSummary, held: dict[str, str] | None = None) -> tuple[str, ...]:
    note = "private" if room.private else ""
    if _mine(room, held or {}):
        note = "your match — rejoin"
    game = discipline_title(room.discipline)
    game = game[:1].upper() + game[1:]
    return (
        f"{game} practice" if room.practice else f"{game}, {room.distance} points",
        _players_text(room),
        _score_text(room),
        str(room.spectators),
        PHASES.get(room.phase, room.phase.replace("_", " ")),
        note,
    )


def match_cells(m: MatchRow) -> tuple[str, ...]:
    players = [p.name for p in m.players]
    if len(players) == 4:  # a team match: the sides as partners (A1 & A2, B1 & B2)
        players = [f"{players[0]} & {players[2]}", f"{players[1]} & {players[3]}"]
    score = "–"
    if m.scoresheet is not None:
        lines = m.scoresheet.match
        score = f"{lines[0].points}–{lines[1].points}"
    winner = m.winner
    result = (
        f"{players[winner]} won"
        if winner is not None and winner < len(players)
        else (m.reason or "draw").replace("_", " ")
    )
    return (
        f"#{m.match_id}",
        discipline_title(m.discipline),
        " v ".join(players),
        score,
        str(m.strokes),
        result,
    )
