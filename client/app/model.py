"""The game model the views draw: the tracked room and match, the stroke being animated, the
server clock, the referee's calls and the chat.

Pure state (no arcade, no asyncio): the network bridge feeds it protocol messages (as the wire
maps, PROTOCOL.md) on the UI thread; tests build it by hand. ``now_ms`` is injectable so a test or
a screenshot can freeze the clock at any moment of a stroke.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from client.app.motion import IDENTITY, BallPose, Quat, StrokeMotion, resting_pose
from client.app.words import error_text, plain
from client.state import TableState
from shared.physics.types import Segment
from shared.protocol.views import ball_of
from shared.table import BALLS, MATCH, BallName, TableSpec, table_by_name

log = logging.getLogger(__name__)

CALL_SHOW_MS = 3500  # how long a referee call stays on screen as a banner
CHAT_SHOW_MS = 12_000  # how long a chat line stays over a player's table


@dataclass(frozen=True, slots=True)
class Call:
    code: str
    text: str
    at_ms: float  # server time when it arrived


@dataclass(frozen=True, slots=True)
class Contact:
    """A sound-worthy moment of a stroke: ``kind`` names the sound (``ball_ball``,
    ``ball_cushion``, or ``cue`` for the strike)."""

    t: float  # s after the strike
    kind: str
    speed: float  # m/s, impact speed (louder when harder)


@dataclass(slots=True)
class Animation:
    """One stroke being played back against the server clock."""

    motion: StrokeMotion
    start_ms: float  # server time of the strike (t = 0)
    contacts: tuple[Contact, ...] = ()
    shooter: int | None = None
    next_contact: int = 0  # index of the first contact not yet sounded
    # Fast-forward (issue 13 point 8): the picture runs ahead of the server clock by this
    # much; the result still arrives at the server's ``rest_ms``.
    ahead_ms: float = 0.0

    def t_at(self, server_ms: float) -> float:
        return (server_ms + self.ahead_ms - self.start_ms) / 1000.0

    def finished(self, server_ms: float) -> bool:
        return self.t_at(server_ms) >= self.motion.duration


def trajectory_segments(obj: Any) -> dict[BallName, tuple[Segment, ...]]:
    """Wire trajectory → segments. Already-decoded mappings of Segments pass through; wire maps
    go through ``shared.physics.decode_trajectory`` (the physics owns the wire format)."""
    if isinstance(obj, Mapping) and all(
        isinstance(v, Sequence) and all(isinstance(s, Segment) for s in v) for v in obj.values()
    ):
        return {k: tuple(v) for k, v in obj.items()}
    from shared.physics import decode_trajectory

    decoded: Mapping[BallName, Sequence[Segment]] = decode_trajectory(obj)
    return {k: tuple(v) for k, v in decoded.items()}


def _contacts(events: Sequence[Any]) -> tuple[Contact, ...]:
    out = []
    for ev in events or ():
        if isinstance(ev, Mapping):
            kind, t, speeds = ev.get("kind"), ev.get("t"), ev.get("speeds") or ()
        else:
            kind, t, speeds = getattr(ev, "kind", None), getattr(ev, "t", None), ev.speeds
        if kind in ("ball_ball", "ball_cushion", "strike") and isinstance(t, int | float):
            speed = max((float(s) for s in speeds), default=2.0)
            # The cue tip on the ball sounds for everyone, shooter included, when the
            # animation starts: the same moment on every screen.
            out.append(Contact(float(t), "cue" if kind == "strike" else str(kind), speed))
    out.sort(key=lambda c: c.t)
    return tuple(out)


def match_before(live: Mapping[str, Any], after: Any) -> dict[str, Any]:
    """What a spectator who arrives mid-stroke is shown until the balls rest: the match as it
    was before the stroke, rebuilt from the match after it and the stroke's result. The score
    is exact (the stroke's points come off the shooter's); figures the stroke may have moved
    but that cannot be rebuilt (innings, average, high run, run) are blanked, never shown
    early. A lag stroke: still the lag, with no winner yet."""
    m = dict(after) if isinstance(after, Mapping) else {}
    m.pop("deadline_ms", None)
    if live.get("t") == "lag_result" or ("winner" in live and "shooter" not in live):
        lag = m.get("lag")
        m["phase"] = "lag"
        m["shooter"] = None
        if isinstance(lag, Mapping):
            m["lag"] = {**lag, "winner": None, "reason": None}
        return m
    shooter = live.get("shooter")
    result = live.get("result") if isinstance(live.get("result"), Mapping) else {}
    points = result.get("points", 0) if isinstance(result, Mapping) else 0
    if isinstance(shooter, int) and not isinstance(shooter, bool):
        m["phase"] = "play"
        m["shooter"] = shooter
        score = m.get("score")
        if isinstance(score, list) and 0 <= shooter < len(score) and isinstance(points, int):
            score = list(score)
            score[shooter] = max(0, score[shooter] - points)
            m["score"] = score
        for key in ("innings", "average", "high_run"):
            v = m.get(key)
            if isinstance(v, list) and 0 <= shooter < len(v):
                v = list(v)
                v[shooter] = None
                m[key] = v
        m["current_run"] = None
    m["result"] = None
    return m


@dataclass
class GameModel:
    """Everything the table, lobby and results views show.

    Room and match tracking is the client library's ``TableState`` (the same fold the bots
    use); this class adds what only a screen needs: the stroke being animated, ball
    orientations, banner timing and the lobby's room list.
    """

    now_local_ms: Callable[[], float] = field(default=lambda: time.time() * 1000.0)
    state: TableState = field(default_factory=TableState)
    name: str = ""
    rooms: list[dict[str, Any]] = field(default_factory=list)
    matches: list[dict[str, Any]] = field(default_factory=list)  # finished, for replays
    chat_seen: list[tuple[float, str, str]] = field(default_factory=list)  # (server ms, from, text)
    animation: Animation | None = None
    calls: list[Call] = field(default_factory=list)
    orientations: dict[BallName, Quat] = field(default_factory=dict)
    last_error: dict[str, Any] | None = None
    # Suspense: a stroke's consequences (its own match view, the calls, the turn, game_over,
    # any snapshot) are held back until its balls rest on this screen, ``rest_ms`` in server
    # time. Held room broadcasts are folded, in order, by ``release_due``.
    held: list[dict[str, Any]] = field(default_factory=list)
    hold_until_ms: float | None = None
    strokes_started: int = 0  # animations started (a sent stroke is answered when this moves)
    # The link to the server: "up", "lost" (reconnecting; ``reconnect_attempt`` counts the
    # tries), "rejoin_failed" or "closed". While it is down the clock shows the time that was
    # left when it dropped (``frozen_left``) and the controls are off.
    replay: Animation | None = None  # the instant replay of the last stroke, on the local clock
    last_stroke: tuple[dict[BallName, tuple[Segment, ...]], tuple[Any, ...]] | None = None
    link: str = "up"
    reconnect_attempt: int = 0
    frozen_left: float | None = None
    local_server_down: bool = False  # ``carom play``'s own server exited

    # the library's tracked state, read through --------------------------------------------
    @property
    def room(self) -> dict[str, Any] | None:
        return self.state.room if (self.state.room or self.state.room_id) else None

    @room.setter
    def room(self, value: dict[str, Any] | None) -> None:
        self.state.room = dict(value or {})

    @property
    def match(self) -> dict[str, Any] | None:
        return self.state.match if self.state.match else None

    @match.setter
    def match(self, value: dict[str, Any] | None) -> None:
        self.state.match = dict(value or {})

    @property
    def seat(self) -> int | None:
        return self.state.seat

    @seat.setter
    def seat(self, value: int | None) -> None:
        self.state.seat = value
        self.state.spectating = value is None

    @property
    def spectating(self) -> bool:
        return self.state.seat is None

    @property
    def clock_offset_ms(self) -> float:
        return self.state.clock_offset_ms

    @clock_offset_ms.setter
    def clock_offset_ms(self, value: float) -> None:
        self.state.clock_offset_ms = value

    @property
    def chat(self) -> list[tuple[str, str]]:
        return [(str(c.get("from", "?")), str(c.get("text", ""))) for c in self.state.chat]

    @property
    def game_over(self) -> dict[str, Any] | None:
        return self.state.game_over

    @property
    def frozen(self) -> bool:
        return bool((self.match or {}).get("frozen", False))

    # clock ------------------------------------------------------------------------------------
    def now_ms(self) -> float:
        """Current server time as this client estimates it."""
        return self.now_local_ms() + self.clock_offset_ms

    # derived views of the tracked state -------------------------------------------------------
    @property
    def in_room(self) -> bool:
        return self.room is not None

    @property
    def practice(self) -> bool:
        """A one-player practice room: no opponent, no clock fouls, balls placeable."""
        room = self.room or {}
        opts = room.get("options") or {}
        return bool(room.get("practice") or (isinstance(opts, Mapping) and opts.get("practice")))

    @property
    def table(self) -> TableSpec:
        opts = (self.room or {}).get("options") or {}
        name = opts.get("table") if isinstance(opts, Mapping) else None
        try:
            return table_by_name(name) if isinstance(name, str) else MATCH
        except ValueError:
            return MATCH

    @property
    def discipline(self) -> str:
        opts = (self.room or {}).get("options") or {}
        d = opts.get("discipline") if isinstance(opts, Mapping) else None
        if not isinstance(d, str):
            d = (self.match or {}).get("discipline")
        return (
            d if isinstance(d, str) else str((self.room or {}).get("discipline", "three_cushion"))
        )

    @property
    def phase(self) -> str:
        return str((self.match or {}).get("phase", "waiting"))

    @property
    def shooter(self) -> int | None:
        s = (self.match or {}).get("shooter")
        return s if isinstance(s, int) and not isinstance(s, bool) else None

    @property
    def my_turn(self) -> bool:
        if self.seat is None or self.spectating or self.holding or self.link_down:
            return False
        if self.phase == "lag":
            lag = (self.match or {}).get("lag")
            played = lag.get("played") if isinstance(lag, Mapping) else None
            return not (isinstance(played, list) and self.seat < len(played) and played[self.seat])
        return self.phase == "play" and self.shooter == self.seat

    def players(self) -> list[dict[str, Any]]:
        """One entry per seat: the room lists names by seat (None for an empty seat)."""
        ps = (self.room or {}).get("players") or []
        out = []
        for i, p in enumerate(ps):
            if isinstance(p, dict):
                out.append({"seat": i, **p})
            else:
                out.append({"seat": i, "name": p})
        for seat, st in self.state.player_status.items():
            for p in out:
                if p["seat"] == seat and isinstance(st, Mapping):
                    p["status"] = st.get("status")
        return out

    def player_name(self, seat: int) -> str:
        for p in self.players():
            if p.get("seat") == seat:
                name = p.get("name")
                return str(name) if name else "waiting for a player…"
        return f"Player {seat + 1}"

    def name_for(self, seat: int) -> str:
        """A seat's player name for a sentence (a seat nobody has taken: "Player n")."""
        for p in self.players():
            if p.get("seat") == seat and p.get("name"):
                return str(p["name"])
        return f"Player {seat + 1}"

    def stat(self, key: str, seat: int, default: Any = 0) -> Any:
        """A per-seat scoresheet number of the match view (``score``, ``innings``, …: one
        entry per seat)."""
        v = (self.match or {}).get(key)
        if isinstance(v, Sequence) and not isinstance(v, str) and 0 <= seat < len(v):
            return v[seat]
        return default

    def cue_ball(self, seat: int | None = None) -> BallName:
        """The ball a seat plays (the shooter's by default): ``shared.protocol.views.ball_of``,
        the rule written once (R-LAG-1 in the lag, R-LAG-7 for the match)."""
        seat = self.shooter if seat is None else seat
        if seat is None:
            return "white"
        white_seat = (self.match or {}).get("white_seat")
        return cast(BallName, ball_of(white_seat if isinstance(white_seat, int) else None, seat))

    def current_run(self, seat: int) -> int:
        """The run in progress: the referee reports it for the shooter only."""
        v = (self.match or {}).get("current_run", 0)
        return int(v) if seat == self.shooter and isinstance(v, int) else 0

    @property
    def lag_winner(self) -> int | None:
        lag = (self.match or {}).get("lag")
        w = lag.get("winner") if isinstance(lag, Mapping) else None
        return w if isinstance(w, int) else None

    @property
    def is_break(self) -> bool:
        return bool((self.match or {}).get("break_shot", False))

    def resting_balls(self) -> dict[BallName, tuple[float, float]]:
        raw = (self.match or {}).get("balls") or {}
        out: dict[BallName, tuple[float, float]] = {}
        for b in BALLS:
            p = raw.get(b)
            if isinstance(p, Sequence) and len(p) >= 2:
                out[b] = (float(p[0]), float(p[1]))
        return out

    def animating(self) -> bool:
        return self.animation is not None and not self.animation.finished(self.now_ms())

    def fast_forward(self, seconds: float, factor: float = 4.0) -> None:
        """Run the stroke's picture ``factor`` times as fast for ``seconds`` of real time."""
        for anim in (self.animation, self.replay):
            if anim is not None:
                anim.ahead_ms += seconds * 1000.0 * (factor - 1.0)

    def start_replay(self) -> bool:
        """Play the last stroke again from its start (the table is at rest): True if started."""
        if self.last_stroke is None or self.animating() or self.holding:
            return False
        segs, events = self.last_stroke
        self.replay = Animation(StrokeMotion(segs, {}), self.now_ms(), _contacts(events))
        return True

    @property
    def replaying(self) -> bool:
        if self.replay is not None and self.replay.finished(self.now_ms()):
            self.replay = None
        return self.replay is not None

    def poses(self) -> dict[BallName, BallPose]:
        """Where to draw each ball now: on its trajectory while a stroke plays, else at rest."""
        now = self.now_ms()
        if self.replaying and self.replay is not None:
            return self.replay.motion.poses(max(0.0, self.replay.t_at(now)))
        anim = self.animation
        if anim is not None and not anim.finished(now):
            return anim.motion.poses(max(0.0, anim.t_at(now)))
        if anim is not None:
            self._settle(anim)
        return {
            b: resting_pose(x, y, self.orientations.get(b, IDENTITY))
            for b, (x, y) in self.resting_balls().items()
        }

    def _settle(self, anim: Animation) -> None:
        """A finished stroke: keep the balls' final orientations so the marks don't jump."""
        end = anim.motion.poses(anim.motion.duration)
        self.orientations.update({b: p.orientation for b, p in end.items()})
        self.animation = None

    def due_contacts(self) -> list[Contact]:
        """Contacts whose moment has come since the last call (each returned once, for sound)."""
        anim = self.replay if self.replaying else self.animation
        if anim is None:
            return []
        t = anim.t_at(self.now_ms())
        out = []
        while anim.next_contact < len(anim.contacts) and anim.contacts[anim.next_contact].t <= t:
            c = anim.contacts[anim.next_contact]
            anim.next_contact += 1
            if t - c.t < 0.25:  # a late joiner doesn't hear a burst of past clicks
                out.append(c)
        return out

    def active_calls(self) -> list[Call]:
        now = self.now_ms()
        return [c for c in self.calls if now - c.at_ms < CALL_SHOW_MS]

    def recent_chat(self) -> list[tuple[str, str]]:
        now = self.now_ms()
        return [(who, text) for at, who, text in self.chat_seen if now - at < CHAT_SHOW_MS]

    @property
    def link_down(self) -> bool:
        return self.link != "up" or self.local_server_down

    def seconds_left(self) -> float | None:
        """Shot clock from the server's absolute deadline (R-CLOCK-3), None when not running;
        frozen at what it showed while the connection is down."""
        if self.link_down:
            return self.frozen_left
        return self._seconds_left()

    def _seconds_left(self) -> float | None:
        d = (self.match or {}).get("deadline_ms")
        if not isinstance(d, int | float) or self.phase not in (
            "lag",
            "play",
            "break_choice",
            "timeout",
        ):
            return None
        if self.animating() or self.holding:
            return None
        return max(0.0, (float(d) - self.now_ms()) / 1000.0)

    # feeding it -------------------------------------------------------------------------------
    def start_stroke(
        self,
        trajectory: Any,
        start_ms: float,
        events: Sequence[Any] = (),
        shooter: int | None = None,
    ) -> None:
        if self.animation is not None:
            self._settle(self.animation)
        segs = trajectory_segments(trajectory)
        self.last_stroke = (segs, tuple(events))
        self.replay = None
        motion = StrokeMotion(segs, dict(self.orientations))
        anim = Animation(motion, float(start_ms), _contacts(events), shooter)
        self.strokes_started += 1
        # Skip sounds that are already in the past for a late joiner.
        t = anim.t_at(self.now_ms())
        while anim.next_contact < len(anim.contacts) and anim.contacts[anim.next_contact].t < t:
            anim.next_contact += 1
        self.animation = anim

    @property
    def holding(self) -> bool:
        """A stroke's consequences are still held back (its balls have not come to rest)."""
        return self.hold_until_ms is not None

    def release_due(self) -> list[dict[str, Any]]:
        """Fold the held messages once the held stroke's balls rest (server time); returns
        them, in order, so the caller can react (switch to the results screen, …)."""
        if self.hold_until_ms is None or self.now_ms() < self.hold_until_ms:
            return []
        self.hold_until_ms = None
        released, self.held = self.held, []
        out: list[dict[str, Any]] = []
        for i, msg in enumerate(released):
            if self.hold_until_ms is not None:  # a released stroke started a new hold
                self.held.extend(released[i:])
                break
            # The first held message is the hold's own stroke (already animated); a later
            # stroke (a clock estimate a little behind the server's) animates now. Chat lines
            # were shown when they arrived.
            animate = i > 0 and msg.get("t") != "chat"
            if not self._fold(msg, animate=animate):
                out.append(msg)
        return out

    def clear_hold(self) -> None:
        self.held = []
        self.hold_until_ms = None

    def _hold(self, until_ms: float, msg: Mapping[str, Any]) -> None:
        self.hold_until_ms = until_ms
        self.held.append(dict(msg))

    def add_call(self, code: str, text: str) -> None:
        self.calls.append(Call(code, text, self.now_ms()))
        del self.calls[:-8]

    def apply(self, msg: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Take one server message (PROTOCOL.md "Server to client"): the library's
        ``TableState`` tracks room and match; this adds animation and banners.

        While a stroke's balls roll (until its ``rest_ms``), room broadcasts are held back and
        folded when they rest (``release_due``), so nobody sees a call, a score, the next
        shooter or the clock before the balls stop; chat lines show at once. Returns the
        messages folded now (held ones that came due, then this one unless it was held).

        A message this client cannot use (a malformed trajectory, a missing field) is logged
        and skipped; the tracked state keeps what it could fold, and the window goes on (the
        balls then simply appear where the match state puts them)."""
        out = self.release_due()
        if self.holding and (isinstance(msg.get("seq"), int) or msg.get("t") == "snapshot"):
            if msg.get("t") == "chat":
                self._chat_line(msg)
            self.held.append(dict(msg))
            return out
        if not self._fold(msg, animate=True):
            out.append(dict(msg))
        return out

    def _fold(self, msg: Mapping[str, Any], animate: bool) -> bool:
        """Fold one message; True when it was held back instead (a stroke that rolls)."""
        try:
            return self._apply(msg, animate)
        except (KeyError, TypeError, ValueError) as exc:
            log.warning("ignored a bad %r message: %s", msg.get("t"), exc)
            return False

    def _chat_line(self, msg: Mapping[str, Any]) -> None:
        self.chat_seen.append((self.now_ms(), str(msg.get("from", "?")), str(msg.get("text"))))
        del self.chat_seen[:-20]

    def _start_held(self, msg: Mapping[str, Any], live: Mapping[str, Any]) -> bool:
        """Animate ``live`` (a ``stroke_played``/``lag_result`` map) from its ``start_ms``; when
        its balls are still rolling, hold ``msg`` back until ``rest_ms`` and return True."""
        start = float(live.get("start_ms") or 0)
        if start <= 0:
            return False
        try:
            segs = trajectory_segments(live["trajectory"])
        except (KeyError, TypeError, ValueError) as exc:
            log.warning("a %r trajectory did not decode: %s", msg.get("t"), exc)
            self.add_call(
                "bad_message", "A stroke could not be shown; the balls are where it left them."
            )
            return False
        rest = live.get("rest_ms")
        if not isinstance(rest, int | float):
            end = max((sg[-1].t0 for sg in segs.values() if sg), default=0.0)
            rest = start + end * 1000.0
        if float(rest) <= self.now_ms():
            return False
        self.start_stroke(segs, start, live.get("events") or (), live.get("shooter"))
        self._hold(float(rest), msg)
        return True

    def _apply(self, msg: Mapping[str, Any], animate: bool = True) -> bool:
        t = msg.get("t")
        moving = t in ("stroke_played", "lag_result") and msg.get("trajectory") is not None
        if animate and moving and self._start_held(msg, msg):
            return True  # folded into the state when the balls rest
        if animate and t == "snapshot":
            live = msg.get("in_motion")
            if isinstance(live, Mapping) and live.get("trajectory") is not None:
                before = {**msg, "match": match_before(live, msg.get("match"))}
                if self._start_held(msg, live):
                    # A late arrival: until the balls rest, the table as it was before. Its
                    # calls were broadcast before it came, so they come from the stroke's
                    # result, once, at rest.
                    self.state.apply(before)
                    result = live.get("result")
                    calls = result.get("calls") if isinstance(result, Mapping) else None
                    for c in calls if isinstance(calls, list) else []:
                        if isinstance(c, Mapping):
                            self.held.append(
                                {"t": "call", "code": c.get("code"), "text": c.get("text")}
                            )
                    return False
        outcome = self.state.apply(dict(msg))
        if outcome == "stale":
            return False
        if t == "welcome" and isinstance(msg.get("server_time_ms"), int | float):
            if not self.state.connected:
                self.clock_offset_ms = float(msg["server_time_ms"]) - self.now_local_ms()
            self.state.connected = True
            self.state.player_id = msg.get("player_id")
        elif t == "rooms":
            self.rooms = [dict(r) for r in msg.get("rooms") or []]
        elif t == "matches":
            self.matches = [dict(m) for m in msg.get("matches") or [] if isinstance(m, Mapping)]
        elif t == "chat" and animate:
            self._chat_line(msg)
        elif t == "call":
            self.add_call(str(msg.get("code", "")), plain(str(msg.get("text", "")), self.name_for))
        elif t == "connection":
            self._link(msg)
        elif t == "closing":
            self.add_call("closing", "The server is shutting down; the room is saved.")
        elif t == "error":
            self.last_error = dict(msg)
            code = str(msg.get("code", "error"))
            self.add_call(code, error_text(code, str(msg.get("message", ""))))
        return False

    def _link(self, msg: Mapping[str, Any]) -> None:
        """The library's link events: connected, lost, reconnecting, restored, rejoin_failed,
        closed. Shown as a persistent overlay by the table view, not as a passing banner."""
        status = str(msg.get("status"))
        if status in ("connected", "restored"):
            self.link = "up"
            self.reconnect_attempt = 0
            self.frozen_left = None
            return
        if not self.link_down:
            self.frozen_left = self._seconds_left()
        if status == "reconnecting":
            self.link = "lost"
            self.reconnect_attempt = int(msg.get("attempt") or 0)
        elif status in ("lost", "rejoin_failed", "closed"):
            self.link = status
        if status == "rejoin_failed":
            self.add_call("rejoin_failed", "Could not take the seat back: the match went on.")

    def _call_from(self, c: Any) -> None:
        if isinstance(c, Mapping):
            text = str(c.get("text", "")) or str(c.get("code", "")).replace("_", " ")
            self.add_call(str(c.get("code", "")), plain(text, self.name_for))
        else:
            self.add_call(str(c), str(c).replace("_", " "))
