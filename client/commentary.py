"""The terminal spectator's text: a pure function of the messages a spectator receives.

:class:`Commentary` folds server messages (the same maps a :class:`~client.session.Session`
delivers) into a :class:`~client.state.TableState` and returns the lines to print for each one:
every stroke with its cue parameters and outcome, the referee's calls (RULES.md §10), the
scoresheet after each stroke (R-PLAY-2), the lag and the final scoresheet. It reads no clock and
no socket, so a recorded match replayed into it prints exactly the same text (the golden-file
test does that). The live shot clock (R-CLOCK-3's warnings) is :func:`clock_line`, given the
server time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from client.state import TableState
from shared.protocol.views import ball_of

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


def _int(value: object, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _num(value: object, default: float = 0.0) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return default


class Commentary:
    """Feed messages in order with :meth:`feed`; each call returns the new lines."""

    def __init__(self) -> None:
        self.state = TableState()
        self.strokes = 0
        self._announced_room: str | None = None
        self._last_board: list[str] = []

    # Names ----------------------------------------------------------------------------------
    def name(self, seat: object) -> str:
        if not isinstance(seat, int) or isinstance(seat, bool):
            return "nobody"
        seats = self.state.room.get("seats")
        if isinstance(seats, list) and 0 <= seat < len(seats) and isinstance(seats[seat], Mapping):
            name = seats[seat].get("name")
            if isinstance(name, str) and name:
                return name
        players = self.state.room.get("players")
        if isinstance(players, list) and 0 <= seat < len(players) and players[seat]:
            return str(players[seat])
        return f"seat {seat}"

    def ball_of(self, seat: int) -> str:
        """R-LAG-7 (``shared.protocol.views.ball_of``, the rule written once)."""
        white = self.state.match.get("white_seat")
        return ball_of(white if isinstance(white, int) else None, seat)

    # Lines ----------------------------------------------------------------------------------
    def feed(self, msg: Mapping[str, Any]) -> list[str]:
        msg = dict(msg)
        outcome = self.state.apply(msg)
        if outcome == "stale":
            return []
        handler = getattr(self, "_on_" + str(msg.get("t")), None)
        if handler is None:
            return []
        lines: list[str] = handler(msg)
        return lines

    def feed_all(self, msgs: Iterable[Mapping[str, Any]]) -> list[str]:
        out: list[str] = []
        for msg in msgs:
            out.extend(self.feed(msg))
        return out

    def _on_snapshot(self, msg: dict[str, Any]) -> list[str]:
        room = self.state.room
        opts = room.get("options") if isinstance(room.get("options"), Mapping) else {}
        assert isinstance(opts, Mapping)
        out: list[str] = []
        room_id = room.get("room_id")
        if room_id != self._announced_room:
            self._announced_room = room_id if isinstance(room_id, str) else None
            disc = DISCIPLINE_NAMES.get(str(opts.get("discipline")), str(opts.get("discipline")))
            out.append(
                f"Room {room_id}: {disc} to {_int(opts.get('distance'))} points, "
                f"shot clock {_int(opts.get('shot_clock_s'), 30)} s"
            )
            players = " vs ".join(self.name(s) for s in (0, 1))
            out.append(f"Players: {players}")
        # A snapshot in the middle of a match (after a clock foul, a reconnection) repeats the
        # scoreboard only when it changed.
        board = self.scoreboard() if self.state.phase in ("play", "timeout", "over") else []
        if board and board != self._last_board:
            out.extend(board)
            self._last_board = board
        return out

    def _on_player_status(self, msg: dict[str, Any]) -> list[str]:
        return [f"{self.name(msg.get('seat'))} is {msg.get('status')}"]

    def _on_call(self, msg: dict[str, Any]) -> list[str]:
        return [f"  Referee: {msg.get('text')}"]

    def _on_chat(self, msg: dict[str, Any]) -> list[str]:
        return [f"[chat] {msg.get('from')}: {msg.get('text')}"]

    def _on_lag_result(self, msg: dict[str, Any]) -> list[str]:
        winner = msg.get("winner")
        reason = str(msg.get("reason", "")).replace("_", " ")
        if isinstance(winner, int):
            return [f"Lag: {self.name(winner)} wins the lag ({reason})"]
        return [f"Lag: repeated ({reason})"]

    def _on_turn(self, msg: dict[str, Any]) -> list[str]:
        phase = msg.get("phase")
        shooter = msg.get("shooter")
        clock = _int(self.state.room.get("options", {}).get("shot_clock_s"), 30)
        if phase == "lag":
            return [f"Lag: both players stroke up the table ({clock} s on the clock)"]
        if phase == "break_choice":
            return [f"{self.name(shooter)} chooses who breaks"]
        if phase == "timeout":
            return [f"Time-out: {self.name(shooter)}"]
        if phase == "play" and isinstance(shooter, int):
            frozen = " (frozen: may ask for a re-spot)" if msg.get("frozen") else ""
            return [f"To play: {self.name(shooter)} ({self.ball_of(shooter)}), {clock} s{frozen}"]
        return []

    def _on_stroke_played(self, msg: dict[str, Any]) -> list[str]:
        self.strokes += 1
        shooter = _int(msg.get("shooter"))
        cue = msg.get("stroke") if isinstance(msg.get("stroke"), Mapping) else {}
        assert isinstance(cue, Mapping)
        result = msg.get("result") if isinstance(msg.get("result"), Mapping) else {}
        assert isinstance(result, Mapping)
        ball = cue.get("ball") or self.ball_of(shooter)
        spot = f", from the {cue['spot']} spot" if cue.get("spot") else ""
        duration = (_int(msg.get("rest_ms")) - _int(msg.get("start_ms"))) / 1000
        foul = result.get("foul")
        if isinstance(foul, Mapping):
            verdict = f"foul ({foul.get('code')})"
        elif _int(result.get("points")):
            verdict = f"{_int(result.get('points'))} point"
        else:
            verdict = "no point"
        out = [
            f"#{self.strokes} {self.name(shooter)} ({ball}): "
            f"{_num(cue.get('direction')):.1f}°, {_num(cue.get('speed')):.2f} m/s, "
            f"tip {_num(cue.get('tip_x')):+.2f}/{_num(cue.get('tip_y')):+.2f}{spot} "
            f"-> {verdict} ({duration:.1f} s on the table)"
        ]
        board = self.scoreboard()
        self._last_board = board
        out.extend(board)
        return out

    def _on_game_over(self, msg: dict[str, Any]) -> list[str]:
        winner = msg.get("winner")
        reason = str(msg.get("reason", "")).replace("_", " ")
        head = (
            f"Game over: {self.name(winner)} wins ({reason})"
            if isinstance(winner, int)
            else f"Game over: draw ({reason})"
        )
        sheet = msg.get("scoresheet")
        return [head, *self.final_scoresheet(sheet if isinstance(sheet, Mapping) else {})]

    # Scoresheets ----------------------------------------------------------------------------
    def scoreboard(self) -> list[str]:
        """One line: each player's points, innings, general average and high run (R-PLAY-2)."""
        m = self.state.match
        score, inn, avg, high = (m.get(k) for k in ("score", "innings", "average", "high_run"))
        if not all(isinstance(v, list) and len(v) == 2 for v in (score, inn, avg, high)):
            return []
        assert isinstance(score, list) and isinstance(inn, list)
        assert isinstance(avg, list) and isinstance(high, list)
        parts = [
            f"{self.name(s)} {_int(score[s])} ({_int(inn[s])} inn, avg {_num(avg[s]):.3f}, "
            f"HR {_int(high[s])})"
            for s in (0, 1)
        ]
        return ["  Score: " + " | ".join(parts)]

    def final_scoresheet(self, sheet: Mapping[str, Any]) -> list[str]:
        lines = sheet.get("match")
        if not isinstance(lines, list) or len(lines) != 2:
            return self.scoreboard()
        width = max(len(self.name(0)), len(self.name(1)), 6)
        out = [f"  {'':<{width}}  Points  Innings  Average  High run"]
        for seat, line in enumerate(lines):
            if not isinstance(line, Mapping):
                continue
            out.append(
                f"  {self.name(seat):<{width}}  {_int(line.get('points')):>6}  "
                f"{_int(line.get('innings')):>7}  {_num(line.get('average')):>7.3f}  "
                f"{_int(line.get('high_run')):>8}"
            )
        sets = sheet.get("sets")
        if isinstance(sets, list) and len(sets) > 1:
            won = sheet.get("sets_won")
            if isinstance(won, list) and len(won) == 2:
                out.append(f"  Sets: {self.name(0)} {won[0]} - {won[1]} {self.name(1)}")
        return out


def clock_line(state: TableState, now_ms: int, given: set[tuple[int, int]]) -> str | None:
    """R-CLOCK-3: a warning line when the running clock passes 10 s and 5 s left, once per
    deadline (``given`` remembers the warnings already printed)."""
    deadline = state.deadline_ms
    if state.phase not in ("play", "lag", "break_choice") or deadline is None:
        return None
    left_s = (deadline - now_ms) / 1000
    for mark in sorted(CLOCK_WARNINGS_S):
        if 0 < left_s <= mark:
            if (deadline, mark) in given:
                return None
            given.update((deadline, m) for m in CLOCK_WARNINGS_S if m >= mark)
            who = "lag" if state.phase == "lag" else f"seat {state.shooter}"
            return f"  Clock: {mark} s left ({who})"
    return None
