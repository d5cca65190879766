"""The game model the views draw: the tracked room and match, the stroke being animated, the
server clock, the referee's calls and the chat.

Pure state (no arcade, no asyncio): the network bridge feeds it protocol messages (decoded once
into ``shared.protocol`` objects with typed views, and the session's ``Link`` events) on the UI
thread; tests and scenes feed it the server's own message objects. ``now_ms`` is injectable so
a test or a screenshot can freeze the clock at any moment of a stroke.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import cast

from client.app.motion import IDENTITY, BallPose, Quat, StrokeMotion, resting_pose
from client.app.words import error_text, plain
from client.session import Event, Link
from client.state import TableState
from shared.physics.types import Segment
from shared.protocol import to_client as tc
from shared.protocol.enums import EventKind, Phase, SeatStatus
from shared.protocol.views import (
    CallView,
    EventView,
    MatchRow,
    MatchView,
    RoomSummary,
    RoomView,
    Trajectory,
    ball_of,
)
from shared.table import BALLS, MATCH, BallName, TableSpec, table_by_name

log = logging.getLogger(__name__)

Segments = dict[BallName, tuple[Segment, ...]]
# What the model holds back while a stroke rolls: room broadcasts, and a late arrival's calls
# (from the rolling stroke's result, shown at rest).


@dataclass(frozen=True, slots=True)
class RequestFailed:
    """A request this window sent that failed on its way (the link dropped, no answer came):
    its message type (``login``, ``join`` …) and the error, shown like the server's own
    refusals; the ranking screen explains its own requests' failures."""

    request: str
    error: tc.Error


UIEvent = Event | RequestFailed
Held = UIEvent | CallView

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


def trajectory_segments(obj: Trajectory | Mapping[BallName, Sequence[Segment]]) -> Segments:
    """A stroke's trajectory as segments: the wire view decodes through the physics (which owns
    the format); already-decoded segments pass through."""
    if isinstance(obj, Trajectory):
        return obj.segments()
    return {k: tuple(v) for k, v in obj.items()}


def _contacts(events: Sequence[EventView]) -> tuple[Contact, ...]:
    out = []
    for ev in events:
        if ev.kind in (EventKind.BALL_BALL, EventKind.BALL_CUSHION, EventKind.STRIKE):
            speed = max((float(s) for s in ev.speeds or ()), default=2.0)
            # The cue tip on the ball sounds for everyone, shooter included, when the
            # animation starts: the same moment on every screen.
            out.append(
                Contact(float(ev.t), "cue" if ev.kind == EventKind.STRIKE else str(ev.kind), speed)
            )
    out.sort(key=lambda c: c.t)
    return tuple(out)


def match_before(live: tc.StrokePlayed | tc.LagResult, after: MatchView) -> MatchView:
    """What a spectator who arrives mid-stroke is shown until the balls rest: the match as it
    was before the stroke, rebuilt from the match after it and the stroke's result. The score
    is exact (the stroke's points come off the shooter's). Figures the stroke may have moved
    but that cannot be rebuilt (innings, average, high run, run) are not in this view's power
    to blank: the model hides them (``GameModel.hidden_seat``) while this view is shown, never
    showing them early. A lag stroke: still the lag, with no winner yet."""
    if isinstance(live, tc.LagResult):
        lag = after.lag
        return replace(
            after,
            phase=Phase.LAG,
            shooter=None,
            deadline_ms=None,
            result=None,
            lag=None if lag is None else replace(lag, winner=None, reason=None),
        )
    shooter = live.shooter
    score = list(after.score)
    score[shooter] = max(0, score[shooter] - live.result.points)
    return replace(
        after,
        phase=Phase.PLAY,
        shooter=shooter,
        deadline_ms=None,
        result=None,
        score=(score[0], score[1]),
    )


@dataclass(frozen=True, slots=True)
class Seated:
    """A seat as the screens show it: its player's name (None: nobody sat down yet) and the
    last connection status the server reported for it."""

    seat: int  # the side (R-TEAM-1)
    name: str | None
    status: SeatStatus | None = None
    slot: int = 0  # the place in the side's line-up (team rooms)


@dataclass
class GameModel:
    """Everything the table, lobby and results views show.

    Room and match tracking is the client library's ``TableState`` (the same fold the bots
    use, holding the typed views the server sent); this class adds what only a screen needs:
    the stroke being animated, ball orientations, banner timing and the lobby's room list.
    """

    now_local_ms: Callable[[], float] = field(default=lambda: time.time() * 1000.0)
    state: TableState = field(default_factory=TableState)
    name: str = ""
    rooms: list[RoomSummary] = field(default_factory=list)
    matches: list[MatchRow] = field(default_factory=list)  # finished, for replays
    chat_seen: list[tuple[float, str, str]] = field(default_factory=list)  # (server ms, from, text)
    animation: Animation | None = None
    calls: list[Call] = field(default_factory=list)
    orientations: dict[BallName, Quat] = field(default_factory=dict)
    last_error: tc.Error | None = None
    # Suspense: a stroke's consequences (its own match view, the calls, the turn, game_over,
    # any snapshot) are held back until its balls rest on this screen, ``rest_ms`` in server
    # time. Held room broadcasts are folded, in order, by ``release_due``.
    held: list[Held] = field(default_factory=list)
    hold_until_ms: float | None = None
    strokes_started: int = 0  # animations started (a sent stroke is answered when this moves)
    replay: Animation | None = None  # the instant replay of the last stroke, on the local clock
    last_stroke: tuple[Segments, tuple[EventView, ...]] | None = None
    # The link to the server: "up", "lost" (reconnecting; ``reconnect_attempt`` counts the
    # tries), "rejoin_failed" or "closed". While it is down the clock shows the time that was
    # left when it dropped (``frozen_left``) and the controls are off.
    link: str = "up"
    reconnect_attempt: int = 0
    frozen_left: float | None = None
    local_server_down: bool = False  # ``carom play``'s own server exited
    # A late arrival's "before" match (``match_before``) and the seat whose innings, average,
    # high run and run it cannot know: hidden while that view is the one shown.
    before: MatchView | None = None
    before_seat: int | None = None

    # the library's tracked state, read through --------------------------------------------
    @property
    def room(self) -> RoomView | None:
        return self.state.room

    @room.setter
    def room(self, value: RoomView | None) -> None:
        self.state.room = value

    @property
    def match(self) -> MatchView | None:
        return self.state.match

    @match.setter
    def match(self, value: MatchView | None) -> None:
        self.state.match = value

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
        return [(c.sender, c.text) for c in self.state.chat]

    @property
    def game_over(self) -> tc.GameOver | None:
        return self.state.game_over

    @property
    def frozen(self) -> bool:
        return self.match is not None and self.match.frozen is not None

    # clock ------------------------------------------------------------------------------------
    def now_ms(self) -> float:
        """Current server time as this client estimates it."""
        return self.now_local_ms() + self.clock_offset_ms

    # derived views of the tracked state -------------------------------------------------------

    @property
    def practice(self) -> bool:
        """A one-player practice room: no opponent, no clock fouls, balls placeable."""
        return self.room is not None and (self.room.practice or self.room.options.practice)

    @property
    def table(self) -> TableSpec:
        if self.room is None:
            return MATCH
        try:
            return table_by_name(self.room.options.table)
        except ValueError:
            return MATCH

    @property
    def discipline(self) -> str:
        if self.room is not None:
            return self.room.options.discipline
        return "three_cushion" if self.match is None else self.match.discipline

    @property
    def distance(self) -> int | None:
        if self.room is not None:
            return self.room.options.distance
        return None if self.match is None else self.match.distance

    @property
    def phase(self) -> Phase:
        return Phase.WAITING if self.match is None else self.match.phase

    @property
    def shooter(self) -> int | None:
        return None if self.match is None else self.match.shooter

    @property
    def my_turn(self) -> bool:
        if self.seat is None or self.spectating or self.holding or self.link_down:
            return False
        if self.phase == Phase.LAG:
            lag = None if self.match is None else self.match.lag
            played = () if lag is None else lag.played
            return self.state.my_lag and not (self.seat < len(played) and played[self.seat])
        return self.phase == Phase.PLAY and self.state.my_turn

    @property
    def teams(self) -> bool:
        """A doubles or Scotch doubles room: two players a side (R-TEAM-1)."""
        return self.room is not None and self.room.options.team_mode != "singles"

    @property
    def shooter_slot(self) -> int | None:
        """Team rooms: the partner of the shooting side who strikes."""
        return None if self.match is None else self.match.shooter_slot

    def players(self) -> list[Seated]:
        """One entry per seat: the room lists names by seat (None for an empty seat); in a
        team room by player, A1, B1, A2, B2 (``seat`` is the side, ``slot`` the place)."""
        names = () if self.room is None else self.room.players
        status = self.state.player_status
        return [
            Seated(i % 2, n, status[i].status if i in status else None, i // 2)
            for i, n in enumerate(names)
        ]

    def side(self, seat: int) -> list[Seated]:
        """The players of a side, in shooting order."""
        return sorted((p for p in self.players() if p.seat == seat), key=lambda p: p.slot)

    def player_name(self, seat: int) -> str:
        """A side's name: its player, or in a team room both partners ("Ann & Cid")."""
        names = [p.name or "waiting for a player…" for p in self.side(seat)]
        return " & ".join(names) if names else f"Player {seat + 1}"

    def name_for(self, seat: int) -> str:
        """A seat's player name for a sentence (a seat nobody has taken: "Player n")."""
        names = [p.name for p in self.side(seat) if p.name]
        return " & ".join(names) if names else f"Player {seat + 1}"

    def partner_name(self, seat: int, slot: int) -> str:
        """The name of the player in ``slot`` of side ``seat`` (team rooms)."""
        for p in self.side(seat):
            if p.slot == slot and p.name:
                return p.name
        return f"player {slot + 1} of {self.name_for(seat)}"

    def striker_name(self) -> str | None:
        """The player to strike now (in a team room, the partner whose turn it is)."""
        if self.shooter is None:
            return None
        slot = self.shooter_slot or 0
        for p in self.side(self.shooter):
            if p.slot == slot and p.name:
                return p.name
        return self.name_for(self.shooter)

    def player_figures(self, seat: int) -> list[tuple[str, int, int, float]]:
        """Team rooms: each partner's own points, innings and average this game (R-TEAM-5)."""
        m = self.match
        if m is None or not m.players:
            return []
        names = [p.name or "…" for p in self.side(seat)]
        return [
            (names[p.slot] if p.slot < len(names) else "…", p.points, p.innings, p.average)
            for p in sorted(m.players, key=lambda p: p.slot)
            if p.seat == seat
        ]

    def _hidden(self, seat: int) -> bool:
        return self.before is not None and self.match is self.before and seat == self.before_seat

    def score(self, seat: int) -> int:
        return 0 if self.match is None else self.match.score[seat]

    def innings(self, seat: int) -> int | None:
        """None while it cannot be known yet (a late arrival's stroke still rolling)."""
        if self.match is None:
            return 0
        return None if self._hidden(seat) else self.match.innings[seat]

    def average(self, seat: int) -> float | None:
        if self.match is None or self._hidden(seat):
            return None
        return self.match.average[seat]

    def high_run(self, seat: int) -> int | None:
        if self.match is None:
            return 0
        return None if self._hidden(seat) else self.match.high_run[seat]

    def timeouts_left(self, seat: int) -> int | None:
        return None if self.match is None else self.match.timeouts_left[seat]

    def cue_ball(self, seat: int | None = None) -> BallName:
        """The ball a seat plays (the shooter's by default): ``shared.protocol.views.ball_of``,
        the rule written once (R-LAG-1 in the lag, R-LAG-7 for the match)."""
        seat = self.shooter if seat is None else seat
        if seat is None:
            return "white"
        white_seat = None if self.match is None else self.match.white_seat
        return cast(BallName, ball_of(white_seat, seat))

    def current_run(self, seat: int) -> int | None:
        """The run in progress: the referee reports it for the shooter only (None while it
        cannot be known yet)."""
        if self.match is None or seat != self.shooter:
            return 0
        return None if self._hidden(seat) else self.match.current_run

    @property
    def lag_winner(self) -> int | None:
        lag = None if self.match is None else self.match.lag
        return None if lag is None else lag.winner

    @property
    def is_break(self) -> bool:
        return self.match is not None and self.match.break_shot

    def resting_balls(self) -> dict[BallName, tuple[float, float]]:
        if self.match is None:
            return {}
        raw = self.match.balls
        return {b: (float(raw[b][0]), float(raw[b][1])) for b in BALLS if b in raw}

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
        d = None if self.match is None else self.match.deadline_ms
        if d is None or self.phase not in (
            Phase.LAG,
            Phase.PLAY,
            Phase.BREAK_CHOICE,
            Phase.TIMEOUT,
        ):
            return None
        if self.animating() or self.holding:
            return None
        return max(0.0, (float(d) - self.now_ms()) / 1000.0)

    # feeding it -------------------------------------------------------------------------------
    def start_stroke(
        self,
        trajectory: Trajectory | Mapping[BallName, Sequence[Segment]],
        start_ms: float,
        events: Sequence[EventView] = (),
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

    def release_due(self) -> list[Held]:
        """Fold the held messages once the held stroke's balls rest (server time); returns
        them, in order, so the caller can react (switch to the results screen, …)."""
        if self.hold_until_ms is None or self.now_ms() < self.hold_until_ms:
            return []
        self.hold_until_ms = None
        released, self.held = self.held, []
        out: list[Held] = []
        for i, msg in enumerate(released):
            if self.hold_until_ms is not None:  # a released stroke started a new hold
                self.held.extend(released[i:])
                break
            # The first held message is the hold's own stroke (already animated); a later
            # stroke (a clock estimate a little behind the server's) animates now. Chat lines
            # were shown when they arrived.
            animate = i > 0 and not isinstance(msg, tc.ChatLine)
            if not self._fold(msg, animate=animate):
                out.append(msg)
        return out

    def clear_hold(self) -> None:
        self.held = []
        self.hold_until_ms = None

    def _hold(self, until_ms: float, msg: Held) -> None:
        self.hold_until_ms = until_ms
        self.held.append(msg)

    def add_call(self, code: str, text: str) -> None:
        self.calls.append(Call(code, text, self.now_ms()))
        del self.calls[:-8]

    def call_from(self, call: CallView) -> None:
        """A referee call of a stroke's result, as a banner (names in words)."""
        self.add_call(call.code, plain(call.text or call.code.replace("_", " "), self.name_for))

    def apply(self, msg: UIEvent) -> list[Held]:
        """Take one server message (a ``shared.protocol`` message, or the session's ``Link``):
        the library's ``TableState`` tracks room and match; this adds animation and banners.

        While a stroke's balls roll (until its ``rest_ms``), room broadcasts are held back and
        folded when they rest (``release_due``), so nobody sees a call, a score, the next
        shooter or the clock before the balls stop; chat lines show at once. Returns the
        messages folded now (held ones that came due, then this one unless it was held).

        A message this client cannot use (a malformed trajectory) is logged and skipped; the
        tracked state keeps what it could fold, and the window goes on (the balls then simply
        appear where the match state puts them)."""
        out = self.release_due()
        if self.holding and (
            isinstance(msg, tc.Snapshot) or isinstance(getattr(msg, "seq", None), int)
        ):
            if isinstance(msg, tc.ChatLine):
                self._chat_line(msg)
            self.held.append(msg)
            return out
        if not self._fold(msg, animate=True):
            out.append(msg)
        return out

    def _fold(self, msg: Held, animate: bool) -> bool:
        """Fold one message; True when it was held back instead (a stroke that rolls)."""
        try:
            return self._apply(msg, animate)
        except (KeyError, TypeError, ValueError) as exc:
            log.warning("ignored a bad %s message: %s", type(msg).__name__, exc)
            return False

    def _chat_line(self, msg: tc.ChatLine) -> None:
        self.chat_seen.append((self.now_ms(), msg.sender, msg.text))
        del self.chat_seen[:-20]

    def _start_held(self, msg: Held, live: tc.StrokePlayed | tc.LagResult) -> bool:
        """Animate ``live`` (a ``stroke_played``/``lag_result``) from its ``start_ms``; when
        its balls are still rolling, hold ``msg`` back until ``rest_ms`` and return True."""
        start = float(live.start_ms or 0)
        if start <= 0 or not live.trajectory.paths:  # nothing to animate (a recording's)
            return False
        try:
            segs = live.trajectory.segments()
        except ValueError as exc:
            log.warning("a %s trajectory did not decode: %s", type(live).__name__, exc)
            self.add_call(
                "bad_message", "A stroke could not be shown; the balls are where it left them."
            )
            return False
        rest: float | None = live.rest_ms
        if rest is None:
            end = max((sg[-1].t0 for sg in segs.values() if sg), default=0.0)
            rest = start + end * 1000.0
        if float(rest) <= self.now_ms():
            return False
        shooter = live.shooter if isinstance(live, tc.StrokePlayed) else None
        self.start_stroke(segs, start, live.events or (), shooter)
        self._hold(float(rest), msg)
        return True

    def _apply(self, msg: Held, animate: bool = True) -> bool:
        if isinstance(msg, RequestFailed):
            msg = msg.error
        if isinstance(msg, Link):
            self._link(msg)
            return False
        if isinstance(msg, CallView):  # a late arrival's held call, from the stroke's result
            self.call_from(msg)
            return False
        moving = msg if isinstance(msg, tc.StrokePlayed | tc.LagResult) else None
        if animate and moving is not None and self._start_held(msg, moving):
            return True  # folded into the state when the balls rest
        if animate and isinstance(msg, tc.Snapshot) and msg.in_motion is not None:
            live = msg.in_motion
            before = match_before(live, msg.match)
            if self._start_held(msg, live):
                # A late arrival: until the balls rest, the table as it was before. Its
                # calls were broadcast before it came, so they come from the stroke's
                # result, once, at rest.
                self.state.apply(replace(msg, match=before))
                self.before = before
                self.before_seat = live.shooter if isinstance(live, tc.StrokePlayed) else None
                if isinstance(live, tc.StrokePlayed):
                    self.held.extend(live.result.calls)
                return False
        outcome = self.state.apply(msg)
        if outcome == "stale":
            return False
        if isinstance(msg, tc.Welcome):
            if not self.state.connected:
                self.clock_offset_ms = float(msg.server_time_ms) - self.now_local_ms()
            self.state.connected = True
            self.state.player_id = msg.player_id
        elif isinstance(msg, tc.Rooms):
            self.rooms = list(msg.rooms)
        elif isinstance(msg, tc.Matches):
            self.matches = list(msg.matches)
        elif isinstance(msg, tc.ChatLine) and animate:
            self._chat_line(msg)
        elif isinstance(msg, tc.Call):
            self.add_call(msg.code, plain(msg.text, self.name_for))
        elif isinstance(msg, tc.Closing):
            self.add_call("closing", "The server is shutting down; the room is saved.")
        elif isinstance(msg, tc.Error):
            self.last_error = msg
            self.add_call(msg.code, error_text(msg.code, msg.message))
        return False

    def _link(self, msg: Link) -> None:
        """The library's link events: connected, lost, reconnecting, restored, rejoin_failed,
        closed. Shown as a persistent overlay by the table view, not as a passing banner."""
        status = msg.status
        if status in ("connected", "restored"):
            self.link = "up"
            self.reconnect_attempt = 0
            self.frozen_left = None
            return
        if not self.link_down:
            self.frozen_left = self._seconds_left()
        if status == "reconnecting":
            self.link = "lost"
            self.reconnect_attempt = msg.attempt or 0
        elif status in ("lost", "rejoin_failed", "closed"):
            self.link = status
        if status == "rejoin_failed":
            self.add_call("rejoin_failed", "Could not take the seat back: the match went on.")
