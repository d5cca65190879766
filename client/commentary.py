"""The terminal spectator's text: a pure function of the messages a spectator receives.

:class:`Commentary` folds server messages (the typed messages a
:class:`~client.session.Session` delivers) into a :class:`~client.state.TableState` and
returns the lines to print for each one:
every stroke with its cue parameters and outcome, the referee's calls (RULES.md §10), the
scoresheet after each stroke (R-PLAY-2), the lag and the final scoresheet. It reads no clock and
no socket, so a recorded match replayed into it prints exactly the same text (the golden-file
test does that). The live shot clock (R-CLOCK-3's warnings) is :func:`clock_line`, given the
server time.
"""

from __future__ import annotations

from collections.abc import Iterable

from client.state import TableState
from shared.protocol import to_client as tc
from shared.protocol.base import ServerMessage
from shared.protocol.enums import Phase
from shared.protocol.views import Scoresheet, ball_of

DISCIPLINE_NAMES = {
    "three_cushion": "three-cushion",
    "one_cushion": "one-cushion",
    "straight_rail": "straight rail",
    "balkline_47_2": "balkline 47/2",
    "balkline_47_1": "balkline 47/1",
    "balkline_71_2": "balkline 71/2",
    "balkline_71_1": "balkline 71/1",
}
CLOCK_WARNINGS_S = (10, 5)  # R-CLOCK-3


class Commentary:
    """Feed messages in order with :meth:`feed`; each call returns the new lines."""

    def __init__(self) -> None:
        self.state = TableState()
        self.strokes = 0
        self._announced_room: str | None = None
        self._last_board: list[str] = []

    # Names ----------------------------------------------------------------------------------
    def name(self, seat: int | None, slot: int | None = None) -> str:
        """A side's name: its player, or in a team room (four seats, A1 B1 A2 B2) both
        partners, or with ``slot`` the one partner (R-TEAM-1)."""
        if seat is None:
            return "nobody"
        room = self.state.room
        if room is not None and len(room.players) == 4 and seat in (0, 1):
            if slot is not None:
                return self._seat_name(seat + 2 * slot)
            return f"{self._seat_name(seat)} & {self._seat_name(seat + 2)}"
        return self._seat_name(seat)

    def _seat_name(self, seat: int) -> str:
        """Who holds seat ``seat`` of the room's list."""
        room = self.state.room
        if room is not None and 0 <= seat < len(room.seats):
            holder = room.seats[seat]
            if holder is not None and holder.name:
                return holder.name
        if room is not None and 0 <= seat < len(room.players) and room.players[seat]:
            return str(room.players[seat])
        return f"seat {seat}"

    def ball_of(self, seat: int) -> str:
        """R-LAG-7 (``shared.protocol.views.ball_of``, the rule written once)."""
        match = self.state.match
        return ball_of(None if match is None else match.white_seat, seat)

    def _clock_s(self) -> int:
        room = self.state.room
        return 30 if room is None else room.options.shot_clock_s

    # Lines ----------------------------------------------------------------------------------
    def feed(self, msg: ServerMessage) -> list[str]:
        outcome = self.state.apply(msg)
        if outcome == "stale":
            return []
        handler = getattr(self, "_on_" + msg.TYPE, None)
        if handler is None:
            return []
        lines: list[str] = handler(msg)
        return lines

    def feed_all(self, msgs: Iterable[ServerMessage]) -> list[str]:
        out: list[str] = []
        for msg in msgs:
            out.extend(self.feed(msg))
        return out

    def _on_snapshot(self, msg: tc.Snapshot) -> list[str]:
        room = msg.room
        opts = room.options
        out: list[str] = []
        if room.room_id != self._announced_room:
            self._announced_room = room.room_id
            disc = DISCIPLINE_NAMES.get(opts.discipline, opts.discipline)
            out.append(
                f"Room {room.room_id}: {disc} to {opts.distance} points, "
                f"shot clock {opts.shot_clock_s} s"
            )
            players = " vs ".join(self.name(s) for s in (0, 1))
            out.append(f"Players: {players}")
        # A snapshot in the middle of a match (after a clock foul, a reconnection) repeats the
        # scoreboard only when it changed.
        board = (
            self.scoreboard() if self.state.phase in (Phase.PLAY, Phase.TIMEOUT, Phase.OVER) else []
        )
        if board and board != self._last_board:
            out.extend(board)
            self._last_board = board
        return out

    def _on_player_status(self, msg: tc.PlayerStatus) -> list[str]:
        return [f"{self.name(msg.seat, msg.slot)} is {msg.status}"]

    def _on_call(self, msg: tc.Call) -> list[str]:
        return [f"  Referee: {msg.text}"]

    def _on_chat(self, msg: tc.ChatLine) -> list[str]:
        return [f"[chat] {msg.sender}: {msg.text}"]

    def _on_lag_result(self, msg: tc.LagResult) -> list[str]:
        reason = msg.reason.replace("_", " ")
        if msg.winner is not None:
            return [f"Lag: {self.name(msg.winner)} wins the lag ({reason})"]
        return [f"Lag: repeated ({reason})"]

    def _on_turn(self, msg: tc.Turn) -> list[str]:
        phase, shooter = msg.phase, msg.shooter
        clock = self._clock_s()
        if phase == Phase.LAG:
            return [f"Lag: both players stroke up the table ({clock} s on the clock)"]
        if phase == Phase.BREAK_CHOICE:
            return [f"{self.name(shooter)} chooses who breaks"]
        if phase == Phase.TIMEOUT:
            return [f"Time-out: {self.name(shooter)}"]
        if phase == Phase.PLAY and shooter is not None:
            frozen = " (frozen: may ask for a re-spot)" if msg.frozen else ""
            who = self.name(shooter, msg.shooter_slot)
            return [f"To play: {who} ({self.ball_of(shooter)}), {clock} s{frozen}"]
        return []

    def _on_stroke_played(self, msg: tc.StrokePlayed) -> list[str]:
        self.strokes += 1
        shooter = msg.shooter
        cue = msg.stroke.cue
        result = msg.result
        ball = msg.stroke.ball or self.ball_of(shooter)
        spot = f", from the {cue.spot} spot" if cue.spot else ""
        duration = (msg.rest_ms - msg.start_ms) / 1000
        if result.foul is not None:
            verdict = f"foul ({result.foul.code})"
        elif result.points:
            verdict = f"{result.points} point"
        else:
            verdict = "no point"
        out = [
            f"#{self.strokes} {self.name(shooter, msg.shooter_slot)} ({ball}): "
            f"{float(cue.direction):.1f}°, {float(cue.speed):.2f} m/s, "
            f"tip {float(cue.tip_x):+.2f}/{float(cue.tip_y):+.2f}{spot} "
            f"-> {verdict} ({duration:.1f} s on the table)"
        ]
        board = self.scoreboard()
        self._last_board = board
        out.extend(board)
        return out

    def _on_game_over(self, msg: tc.GameOver) -> list[str]:
        reason = msg.reason.replace("_", " ")
        head = (
            f"Game over: {self.name(msg.winner)} wins ({reason})"
            if msg.winner is not None
            else f"Game over: draw ({reason})"
        )
        return [head, *self.final_scoresheet(msg.scoresheet)]

    # Scoresheets ----------------------------------------------------------------------------
    def scoreboard(self) -> list[str]:
        """One line: each player's points, innings, general average and high run (R-PLAY-2)."""
        m = self.state.match
        if m is None:
            return []
        parts = [
            f"{self.name(s)} {m.score[s]} ({m.innings[s]} inn, avg {float(m.average[s]):.3f}, "
            f"HR {m.high_run[s]})"
            for s in (0, 1)
        ]
        return ["  Score: " + " | ".join(parts)]

    def final_scoresheet(self, sheet: Scoresheet) -> list[str]:
        width = max(len(self.name(0)), len(self.name(1)), 6)
        out = [f"  {'':<{width}}  Points  Innings  Average  High run"]
        for seat, line in enumerate(sheet.match):
            out.append(
                f"  {self.name(seat):<{width}}  {line.points:>6}  "
                f"{line.innings:>7}  {float(line.average):>7.3f}  "
                f"{line.high_run:>8}"
            )
        if len(sheet.sets) > 1:
            won = sheet.sets_won
            out.append(f"  Sets: {self.name(0)} {won[0]} - {won[1]} {self.name(1)}")
        return out


def clock_line(state: TableState, now_ms: int, given: set[tuple[int, int]]) -> str | None:
    """R-CLOCK-3: a warning line when the running clock passes 10 s and 5 s left, once per
    deadline (``given`` remembers the warnings already printed)."""
    deadline = state.deadline_ms
    if state.phase not in (Phase.PLAY, Phase.LAG, Phase.BREAK_CHOICE) or deadline is None:
        return None
    left_s = (deadline - now_ms) / 1000
    for mark in sorted(CLOCK_WARNINGS_S):
        if 0 < left_s <= mark:
            if (deadline, mark) in given:
                return None
            given.update((deadline, m) for m in CLOCK_WARNINGS_S if m >= mark)
            who = "lag" if state.phase == Phase.LAG else f"seat {state.shooter}"
            return f"  Clock: {mark} s left ({who})"
    return None
