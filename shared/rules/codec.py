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
    }


def state_from_dict(d: dict[str, Any]) -> MatchState:
    try:
        if d.get("format") != FORMAT:
            raise ValueError(f"unknown state format {d.get('format')!r}")
        return MatchState(
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
            connected=(bool(d["connected"][0]), bool(d["connected"][1])),
            grace_deadline=(d["grace_deadline"][0], d["grace_deadline"][1]),
            rematch=(bool(d["rematch"][0]), bool(d["rematch"][1])),
            strokes_played=int(d["strokes_played"]),
            result=_unresult(d["result"]),
        )
    except (KeyError, IndexError, TypeError) as exc:
        raise ValueError(f"malformed match state: {exc!r}") from exc


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


def _pair(v: list[int]) -> tuple[int, int]:
    a, b = v
    return (int(a), int(b))


def _balls(
    v: list[list[float]],
) -> tuple[tuple[float, float], tuple[float, float], tuple[float, float]]:
    w, y, r = ((float(p[0]), float(p[1])) for p in v)
    return (w, y, r)
