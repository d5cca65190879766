"""JSON-safe form of a match state, for the server's database (exact round trip).

Floats go through unchanged (JSON and msgpack both round-trip Python floats exactly); tuples
become lists. ``state_from_dict`` validates through the dataclasses' own checks and raises
``ValueError`` on anything malformed, so a corrupt row never becomes a half-built state.
"""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any

from shared.physics.types import Stroke
from shared.rules.options import MatchOptions
from shared.rules.state import MatchState, Phase, SetRecord
from shared.rules.verdict import GameOver, Termination

FORMAT = 1


def state_to_dict(state: MatchState) -> dict[str, Any]:
    opts = state.options
    return {
        "format": FORMAT,
        "options": {f.name: _plain(getattr(opts, f.name)) for f in dataclasses.fields(opts)},
        "phase": state.phase.value,
        "balls": [list(p) for p in state.balls],
        "sets": [
            {
                "breaker": r.breaker,
                "points": list(r.points),
                "innings": list(r.innings),
                "high_run": list(r.high_run),
                "timeouts_left": list(r.timeouts_left),
                "result": _result(r.result),
                "player_points": list(r.player_points),
                "player_innings": list(r.player_innings),
            }
            for r in state.sets
        ],
        "white_seat": state.white_seat,
        "shooter": state.shooter,
        "current_run": state.current_run,
        "visit_strokes": state.visit_strokes,
        "deadline_ms": state.deadline_ms,
        "paused_ms": state.paused_ms,
        "resting_at_ms": state.resting_at_ms,
        "break_shot": state.break_shot,
        "spot_choice": state.spot_choice,
        "equalizing": state.equalizing,
        "zone_counts": [[name, n] for name, n in state.zone_counts],
        "lag_strokes": [_stroke(s) for s in state.lag_strokes],
        "lag_repeats": state.lag_repeats,
        "lag_winner": state.lag_winner,
        "lag_reason": state.lag_reason,
        "connected": list(state.connected),
        "grace_deadline": list(state.grace_deadline),
        "rematch": list(state.rematch),
        "strokes_played": state.strokes_played,
        "result": _result(state.result),
        "slot_up": list(state.slot_up),
        "retired": list(state.retired),
        "struck": list(state.struck),
    }


def state_from_dict(d: dict[str, Any]) -> MatchState:
    try:
        if d.get("format") != FORMAT:
            raise ValueError(f"unknown state format {d.get('format')!r}")
        state = MatchState(
            options=MatchOptions(**d["options"]),
            phase=Phase(d["phase"]),
            balls=_balls(d["balls"]),
            sets=tuple(
                SetRecord(
                    breaker=int(r["breaker"]),
                    points=_pair(r["points"]),
                    innings=_pair(r["innings"]),
                    high_run=_pair(r["high_run"]),
                    timeouts_left=_pair(r["timeouts_left"]),
                    result=_unresult(r["result"]),
                    # States saved before line-ups (R-TEAM-1) are singles: each player's own
                    # figures are the side's.
                    player_points=_ints(r.get("player_points", r["points"])),
                    player_innings=_ints(r.get("player_innings", r["innings"])),
                )
                for r in d["sets"]
            ),
            white_seat=d["white_seat"],
            shooter=d["shooter"],
            current_run=int(d["current_run"]),
            visit_strokes=int(d["visit_strokes"]),
            deadline_ms=d["deadline_ms"],
            paused_ms=d["paused_ms"],
            resting_at_ms=int(d["resting_at_ms"]),
            break_shot=bool(d["break_shot"]),
            spot_choice=bool(d["spot_choice"]),
            equalizing=bool(d["equalizing"]),
            zone_counts=tuple((str(n), int(c)) for n, c in d["zone_counts"]),
            lag_strokes=(_unstroke(d["lag_strokes"][0]), _unstroke(d["lag_strokes"][1])),
            lag_repeats=_repeats(d["lag_repeats"]),
            lag_winner=d["lag_winner"],
            lag_reason=d["lag_reason"],
            connected=tuple(bool(c) for c in d["connected"]),
            grace_deadline=tuple(_time(g) for g in d["grace_deadline"]),
            rematch=(bool(d["rematch"][0]), bool(d["rematch"][1])),
            strokes_played=int(d["strokes_played"]),
            result=_unresult(d["result"]),
            slot_up=_pair(d.get("slot_up", [0, 0])),
            retired=_ints(d.get("retired", [])),
            struck=_ints(d.get("struck", [])),
        )
    except (KeyError, IndexError, TypeError) as exc:
        raise ValueError(f"malformed match state: {exc!r}") from exc
    _check_players(state)
    return state


def _check_players(state: MatchState) -> None:
    """Every per-player tuple has one entry per player of both line-ups (R-TEAM-1)."""
    n = state.options.players
    sizes = {
        "connected": len(state.connected),
        "grace_deadline": len(state.grace_deadline),
        **{f"set {i + 1} player_points": len(r.player_points) for i, r in enumerate(state.sets)},
        **{f"set {i + 1} player_innings": len(r.player_innings) for i, r in enumerate(state.sets)},
    }
    wrong = [f"{name} has {size}" for name, size in sizes.items() if size != n]
    if wrong or any(not 0 <= p < n for p in (*state.retired, *state.struck)):
        raise ValueError(
            f"malformed match state: {n} players, but {', '.join(wrong) or 'bad index'}"
        )


def _repeats(value: object) -> int:
    """Lag repeats; states saved before R-LAG-6 was amended kept a pair per seat."""
    if isinstance(value, list):
        return sum(int(v) for v in value)
    if isinstance(value, int):
        return value
    raise TypeError(f"lag_repeats must be a whole number, got {value!r}")


def _plain(value: object) -> object:
    return value.value if isinstance(value, Enum) else value


def _result(r: GameOver | None) -> dict[str, Any] | None:
    return None if r is None else {"winner": r.winner, "reason": r.reason.value}


def _unresult(r: dict[str, Any] | None) -> GameOver | None:
    return None if r is None else GameOver(r["winner"], Termination(r["reason"]))


def _stroke(s: Stroke | None) -> dict[str, float] | None:
    if s is None:
        return None
    return {f.name: getattr(s, f.name) for f in dataclasses.fields(s)}


def _unstroke(s: dict[str, float] | None) -> Stroke | None:
    return None if s is None else Stroke(**s)


def _ints(v: list[int]) -> tuple[int, ...]:
    return tuple(int(x) for x in v)


def _time(v: object) -> int | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"a deadline must be whole milliseconds or null, got {v!r}")
    return v


def _pair(v: list[int]) -> tuple[int, int]:
    a, b = v
    return (int(a), int(b))


def _balls(
    v: list[list[float]],
) -> tuple[tuple[float, float], tuple[float, float], tuple[float, float]]:
    w, y, r = ((float(p[0]), float(p[1])) for p in v)
    return (w, y, r)
