"""The window, the screen switching and the frame driver.

``Controller`` owns the model, the network bridge (if any) and the sounds; views ask it to send
messages and to switch screens. ``run_frames`` drives the window by hand, which is how headless
mode works (arcade's own loop runs no scheduled callbacks there) and how screenshots are taken.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import arcade
from pyglet.event import EventDispatcher

from client.app.model import GameModel, Held, UIEvent
from client.app.sound import Sounds
from client.app.standing import StandingState
from client.app.tournaments import TournamentsState
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.base import ClientMessage
from shared.protocol.enums import Phase

if TYPE_CHECKING:
    from PIL.Image import Image

log = logging.getLogger(__name__)

WINDOW_SIZE = (1280, 800)
MIN_SIZE = (960, 640)
TITLE = "Carom"


class Network(Protocol):
    """What the controller needs from the network bridge (``client.app.bridge.Bridge``)."""

    def send(self, msg: ClientMessage) -> None: ...

    def drain(self) -> list[UIEvent]: ...

    def close(self) -> None: ...


class Controller:
    def __init__(
        self,
        window: arcade.Window,
        model: GameModel | None = None,
        net: Network | None = None,
        sounds: Sounds | None = None,
    ) -> None:
        self.window = window
        self.model = model if model is not None else GameModel()
        self.net = net
        self.sounds = sounds if sounds is not None else Sounds(enabled=False)
        self.sent: list[ClientMessage] = []  # every request this window made, oldest first
        self.url: str | None = None
        self._join_created = False  # join the next room_created (create-and-join, practice)
        self._join_password: str | None = None
        self.on_message: list[
            Callable[[UIEvent], None]
        ] = []  # extra listeners (msg) -> None, e.g. the CLI driver
        self.local: Any = None  # ``LocalGame`` when ``carom play`` runs its own server
        self._local_checked = 0.0
        self.after_draw: list[Any] = []  # (view) -> None after each frame is drawn (capture)
        # Account, quick match, leaderboard, last rating change (client/app/standing.py).
        self.standing = StandingState()
        self.on_message.append(lambda msg: self.standing.fold(msg, self.model.now_ms()))
        # Tournaments: the events, the one picked, our table (client/app/tournaments.py).
        self.tournaments = TournamentsState()
        self.on_message.append(self.tournaments.fold)

    # network -----------------------------------------------------------------------------------
    def send(self, msg: ClientMessage) -> None:
        """Send a request (built, and so checked, by the caller)."""
        self.sent.append(msg)
        if self.net is not None:
            self.net.send(msg)

    def connect(self, url: str, name: str) -> str | None:
        """Open a connection through the client library; the error text, or None."""
        from client.app.bridge import Bridge

        if self.net is not None:
            self.net.close()
            self.net = None
        self.url = url  # the lobby shows the URL tried, even when it did not answer
        bridge = Bridge(url, name)
        try:
            bridge.start(timeout=8.0)
        except Exception as exc:  # OSError, handshake errors, timeouts: tell the player
            bridge.close()
            log.info("connecting to %s failed: %r", url, exc)
            why = (
                "nobody answered there"
                if isinstance(exc, OSError | TimeoutError)
                else "that is not a carom server, or it refused us"
            )
            return f"could not connect to {url}: {why}"
        self.net = bridge
        self.url = url
        self.model.name = name
        return None

    def leave(self) -> None:
        """Leave the room and forget it (the lobby starts clean), then show the lobby."""
        self.send(ts.Leave())
        self.model.state.leave_room()
        self.model.animation = None
        self.model.clear_hold()
        self.model.calls.clear()
        self.show_lobby()

    def create_and_join(self, options: dict[str, Any]) -> None:
        self._join_created = True
        self._join_password = options.get("password")
        self.send(ts.CreateRoom(**options))

    def pump(self) -> None:
        """Drain what the network thread received and fold it in, on the UI thread.

        The model folds the drained messages into its own ``TableState`` (the library's class
        and fold) rather than adopting the session's published copy: that copy is published
        before each event is queued, so between the two a frame could see a state that already
        contains a ``stroke_played`` whose message it has not drained yet, and then drop the
        animation as stale. Folding the same messages in the same order gives the same state
        without that race."""
        if self.net is not None:
            offset = getattr(self.net, "clock_offset_ms", None)
            if isinstance(offset, int | float):
                self.model.clock_offset_ms = float(offset)
            rtt = getattr(self.net, "rtt_ms", None)
            self.model.state.rtt_ms = float(rtt) if isinstance(rtt, int | float) else None
        self._check_local()
        # A stroke's held consequences come due when its balls rest, network or not.
        folded = self.model.release_due()
        for event in self.net.drain() if self.net is not None else []:
            folded.extend(self.model.apply(event))
            for listener in self.on_message:
                listener(event)
        for msg in folded:
            self._react(msg)

    def _check_local(self) -> None:
        """Twice a second: has our own local server died? (Polling also reaps it.)"""
        if self.local is None or time.monotonic() - self._local_checked < 0.5:
            return
        self._local_checked = time.monotonic()
        down = bool(self.local.server_died())
        if down and not self.model.local_server_down:
            self.model.frozen_left = self.model.seconds_left()
        self.model.local_server_down = down

    def restart_local_server(self) -> None:
        """Start the local server again on its port; the session reconnects and rejoins."""
        if self.local is None:
            return
        try:
            self.local.restart_server()
        except (RuntimeError, OSError) as exc:
            self.model.add_call("local", f"The local server did not start again: {exc}")
            return
        self.model.local_server_down = False

    def held_seats(self) -> dict[str, str]:
        """room id → seat token of the seats this player holds (kept with the identity)."""
        fn = getattr(self.net, "held_seats", None)
        return dict(fn()) if callable(fn) else {}

    def _react(self, msg: Held) -> None:
        """Screen changes follow what the model has folded (so the results screen waits for
        the last stroke's balls to rest)."""
        if isinstance(msg, tc.RoomCreated) and self._join_created:
            self._join_created = False
            self.send(ts.Join(room_id=msg.room_id, password=self._join_password))
        elif (
            isinstance(msg, tc.Snapshot)
            and not self._on("table")
            and self.model.phase != Phase.OVER
        ):
            self.show_table()
        elif isinstance(msg, tc.GameOver):
            self.show_results()
        elif isinstance(msg, tc.Replay):
            self.show_replay(msg)

    def drawn(self, view: arcade.View) -> None:
        for hook in list(self.after_draw):
            hook(view)

    def _on(self, kind: str) -> bool:
        view = self.window.current_view
        return view is not None and getattr(view, "kind", None) == kind

    # screens -----------------------------------------------------------------------------------
    def show_table(self) -> None:
        from client.app.table_view import TableView

        self.window.show_view(TableView(self))

    def show_lobby(self) -> None:
        from client.app.lobby_view import LobbyView

        self.window.show_view(LobbyView(self))

    def show_account(self, action: str) -> None:
        """The account and quick-match screen, opened for ``action``: "login" or "register"
        (the name field ready), "profile" (this account's), "queue" (quick match, at once)
        or "ranking" (the leaderboard)."""
        from client.app.standing_view import StandingView

        view = StandingView(self)
        self.window.show_view(view)
        view.begin(action)

    def show_tournaments(self) -> None:
        from client.app.tournament_view import TournamentView

        self.window.show_view(TournamentView(self))

    def show_stats(self) -> None:
        from client.app.stats_view import StatsView

        self.window.show_view(StatsView(self))

    def show_results(self) -> None:
        from client.app.results_view import ResultsView

        self.window.show_view(ResultsView(self))

    def show_replay(self, msg: tc.Replay) -> None:
        from client.app.replay_view import ReplayView

        self.window.show_view(ReplayView(self, msg))


def fire(window: arcade.Window, event: str, *args: Any) -> None:
    """Dispatch ``event`` now. A pyglet window queues events dispatched outside its own loop
    (always, in headless mode) until the next ``dispatch_events``; a hand-driven frame needs
    them at once."""
    if event not in FRAME_EVENTS:
        window.dirty = True  # a GameWindow draws the next frame
    EventDispatcher.dispatch_event(window, event, *args)


FRAME_EVENTS = ("on_update", "on_fixed_update", "on_draw", "on_refresh")


class GameWindow(arcade.Window):
    """The game window, drawing only when something on screen changed (issue 13 point 10).

    Arcade's loop calls ``draw`` at the draw rate (60 Hz). This one skips the draw, and the
    buffer flip, when no input arrived since the last frame and the view's ``frame_key()`` (a
    small value naming what it shows: the state's seq, the calls, the clock's second, ...) is
    unchanged; the screen keeps the last frame. A view without ``frame_key`` draws every
    frame, as does one whose key is None (a stroke animating)."""

    dirty = True
    frames_drawn = 0
    frames_skipped = 0
    _last_key: Any = None

    def dispatch_event(self, event_type: str, *args: Any) -> Any:
        if event_type not in FRAME_EVENTS:
            self.dirty = True  # input, resize, expose, focus: draw the next frame
        return super().dispatch_event(event_type, *args)

    def wants_frame(self) -> bool:
        view = self.current_view
        frame_key = getattr(view, "frame_key", None)
        key = frame_key() if callable(frame_key) else None
        if key is None or self.dirty or key != self._last_key:
            self._last_key = key
            self.dirty = False
            return True
        return False

    def draw(self, dt: float) -> None:
        if not self.wants_frame():
            self.frames_skipped += 1
            return
        self.frames_drawn += 1
        # pyglet's own ``draw``, with on_draw dispatched directly (a headless window would
        # queue it until the next dispatch_events, after the flip).
        self.switch_to()
        EventDispatcher.dispatch_event(self, "on_draw")
        self.flip()


SOFTWARE_RENDERERS = ("llvmpipe", "softpipe", "swrast", "software")


def make_window(visible: bool = True, antialiasing: bool | None = None) -> arcade.Window:
    """The game window. Multisampling (4×) is on for a GPU, but off on a software rasteriser
    (CI, virtual displays), where it costs ten times the frame time (bench/client_frames.py):
    with ``antialiasing=None`` the renderer decides. ``CAROM_AA=0/1`` forces it."""
    forced = os.environ.get("CAROM_AA")
    if forced in ("0", "1"):
        antialiasing = forced == "1"
    w, h = WINDOW_SIZE

    def open_window(aa: bool, shown: bool) -> GameWindow:
        return GameWindow(w, h, TITLE, visible=shown, vsync=False, antialiasing=aa, resizable=True)

    if antialiasing is None:
        # Ask the renderer through a hidden window without multisampling: a software one keeps
        # it and shows it (creating a GL window there costs a tenth of a second of CPU, so not
        # twice); a GPU gets a multisampled window instead, never a flash of the first.
        window = open_window(False, False)
        aa = not any(name in str(window.ctx.info.RENDERER).lower() for name in SOFTWARE_RENDERERS)
        if aa:
            window.close()
            window = open_window(True, visible)
        elif visible:
            window.set_visible(True)
    else:
        aa = antialiasing
        window = open_window(aa, visible)
    # Resizable, down to a size where the table, the HUD and the controls still fit.
    window.set_minimum_size(*MIN_SIZE)
    # Views copy a prepared backdrop onto the screen only when it is not multisampled.
    window.multisampled = aa
    return window


def run_frames(
    window: arcade.Window,
    seconds: float,
    fps: float = 60.0,
    real_time: bool = True,
    on_frame: Any = None,
) -> Image:
    """Run the window for ``seconds`` and return a screenshot of the last frame.

    Each frame: deliver input events, update the view, draw, capture if last, flip. With
    ``real_time`` the loop sleeps to hold ``fps``; without it, frames run back to back (the
    model's clock decides where balls are, so this only changes how many frames are drawn).
    A ``GameWindow`` skips the frames that would show nothing new, as in arcade's loop (a
    software renderer spends most of a headless run drawing the same lobby again); the last
    frame is always drawn.
    """
    image = _frames(window, seconds, fps, real_time, on_frame, capture=True)
    assert image is not None
    return image


def play_frames(
    window: arcade.Window,
    seconds: float,
    fps: float = 60.0,
    real_time: bool = True,
    on_frame: Any = None,
) -> None:
    """``run_frames`` without the screenshot: the frames are drawn exactly as the window's own
    loop would draw them (none when nothing on screen changed), and nothing is read back."""
    _frames(window, seconds, fps, real_time, on_frame, capture=False)


def _frames(
    window: arcade.Window,
    seconds: float,
    fps: float,
    real_time: bool,
    on_frame: Any,
    capture: bool,
) -> Image | None:
    dt = 1.0 / fps
    frames = max(1, round(seconds * fps))
    image = None
    for i in range(frames):
        started = time.perf_counter()
        window.switch_to()
        window.dispatch_events()
        fire(window, "on_update", dt)
        if on_frame is not None:
            on_frame(i)
        last = capture and i == frames - 1
        wants = window.wants_frame() if isinstance(window, GameWindow) else True
        if wants or last:
            fire(window, "on_draw")
            if last:
                image = arcade.get_image(0, 0, window.width, window.height)
            window.flip()
        if real_time:
            rest = dt - (time.perf_counter() - started)
            if rest > 0:
                time.sleep(rest)
    return image


def save_screenshot(window: arcade.Window, path: str | Path) -> Path:
    """Draw one frame and save it (the window's content, without a flip in between)."""
    window.switch_to()
    fire(window, "on_draw")
    img = arcade.get_image(0, 0, window.width, window.height)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    # zlib level 1: a screenshot is written in a few hundredths of a second instead of a tenth or
    # two, for a file about a third larger (the tests write hundreds).
    img.convert("RGB").save(out, compress_level=1)
    return out
