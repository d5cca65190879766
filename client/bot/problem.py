"""What a bot must decide, read from the tracked match view: pure data, picklable, so the search
can run in another process while the connection keeps answering pings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from shared.table import BALLS, BallName, Point

Balls = tuple[Point, Point, Point]


@dataclass(frozen=True, slots=True)
class Problem:
    """One stroke to choose."""

    discipline: str  # wire name, e.g. "three_cushion"
    table: str  # shared.table.TABLES key
    balls: Balls  # m, in BALLS order (white, yellow, red)
    cue: BallName  # the shooter's ball
    break_shot: bool = False  # R-BREAK-2: the red must be hit first
    spot_choice: bool = False  # R-BREAK-1: the cue ball's starting spot is ours to choose
    zone_counts: tuple[tuple[str, int], ...] = ()  # R-DISC-FREE / R-DISC-BALK bookkeeping
    frozen: bool = False  # R-FROZEN-1: the cue ball touches a ball or a cushion
    corner_zone_leg: float | None = None  # m, R-DISC-FREE as the room says; None: the default

    def zone_leg(self) -> float:
        """R-DISC-FREE: the corner zones the referee applies (the room's option or the
        referee's default for this table), so the bot and the server judge alike."""
        from shared.rules.options import Discipline, MatchOptions

        options = MatchOptions(
            discipline=Discipline(self.discipline),
            table=self.table,
            corner_zone_leg=self.corner_zone_leg,
        )
        return options.zone_leg

    def position(self, name: BallName) -> Point:
        return self.balls[BALLS.index(name)]


@dataclass(frozen=True, slots=True)
class LagProblem:
    table: str
    balls: Balls  # the lag position (R-LAG-1)
    cue: BallName  # our lag ball


def _point(value: object) -> Point | None:
    if isinstance(value, list | tuple) and len(value) == 2:
        x, y = value
        if isinstance(x, int | float) and isinstance(y, int | float):
            return (float(x), float(y))
    return None


def read_balls(match: Mapping[str, Any]) -> Balls | None:
    """``match.balls``: a map ball -> [x, y] (or a list in BALLS order)."""
    raw = match.get("balls")
    pts: list[Point | None]
    if isinstance(raw, Mapping):
        pts = [_point(raw.get(b)) for b in BALLS]
    elif isinstance(raw, list | tuple) and len(raw) == 3:
        pts = [_point(p) for p in raw]
    else:
        return None
    if any(p is None for p in pts):
        return None
    a, b, c = cast(list[Point], pts)
    return (a, b, c)


def room_option(room: Mapping[str, Any], match: Mapping[str, Any], key: str, default: Any) -> Any:
    """An option from ``room.options`` (or the match view, or the room itself)."""
    for source in (room.get("options"), match.get("options"), room, match):
        if isinstance(source, Mapping) and key in source and source[key] is not None:
            return source[key]
    return default


def cue_ball_of(match: Mapping[str, Any], seat: int) -> BallName:
    """R-LAG-7: the match breaker plays white. The view names the shooter's ball."""
    if match.get("shooter") == seat and match.get("cue_ball") in BALLS:
        return cast(BallName, match["cue_ball"])
    white = match.get("white_seat")
    white_seat = white if isinstance(white, int) else 0
    return "white" if seat == white_seat else "yellow"


def problem_from(room: Mapping[str, Any], match: Mapping[str, Any], seat: int) -> Problem | None:
    balls = read_balls(match)
    if balls is None:
        return None
    # ``match.zones``: the zones both object balls share, with the caroms made there this run.
    zones = match.get("zones")
    zone_counts: tuple[tuple[str, int], ...] = ()
    if isinstance(zones, list):
        zone_counts = tuple(
            (str(z["name"]), int(z.get("count", 0)))
            for z in zones
            if isinstance(z, Mapping) and isinstance(z.get("name"), str)
        )
    return Problem(
        discipline=str(match.get("discipline") or room_option(room, match, "discipline", "")),
        table=str(room_option(room, match, "table", "match")),
        balls=balls,
        cue=cue_ball_of(match, seat),
        break_shot=bool(match.get("break_shot", False)),
        spot_choice=bool(match.get("spot_choice", False)),
        zone_counts=zone_counts,
        frozen=bool(match.get("frozen", False)),
        corner_zone_leg=_leg(room_option(room, match, "corner_zone_leg", None)),
    )


def _leg(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
