"""What a bot must decide: a real referee state (``shared.rules.MatchState``) built from the
typed views the server sends, so the search judges its candidate strokes with the referee's own
function (``shared.rules.judge``) and every rule input (discipline, table, corner-zone leg,
break, zone counts) is the server's. Pure data, picklable, so the search can run in another
process while the connection keeps answering pings."""

from __future__ import annotations

from dataclasses import dataclass, replace

from shared import rules, wireviews
from shared.protocol.enums import Phase as WirePhase
from shared.protocol.views import MatchView, RoomView
from shared.rules import MatchOptions, MatchState, Phase
from shared.table import BALLS, BallName, Point

Balls = tuple[Point, Point, Point]


@dataclass(frozen=True, slots=True)
class Problem:
    """One stroke to choose: the shooter's turn in ``state``."""

    state: MatchState

    @classmethod
    def of(
        cls,
        discipline: str,
        table: str,
        balls: Balls,
        cue: BallName,
        *,
        break_shot: bool = False,
        spot_choice: bool = False,
        zone_counts: tuple[tuple[str, int], ...] = (),
        corner_zone_leg: float | None = None,
    ) -> Problem:
        """A position set up by hand (tests, benchmarks): the player of ``cue`` to shoot."""
        options = MatchOptions(
            discipline=rules.Discipline(discipline), table=table, corner_zone_leg=corner_zone_leg
        )
        shooter = 0 if cue == "white" else 1  # seat 0 breaks and plays white (R-LAG-7)
        state = replace(
            rules.new_match(options, 0),
            phase=Phase.PLAY,
            balls=balls,
            white_seat=0,
            shooter=shooter,
            break_shot=break_shot,
            spot_choice=spot_choice,
            zone_counts=zone_counts,
        )
        return cls(state)

    @property
    def discipline(self) -> rules.Discipline:
        return self.state.options.discipline

    @property
    def table(self) -> str:  # shared.table.TABLES key
        return self.state.options.table

    @property
    def balls(self) -> Balls:  # m, in BALLS order (white, yellow, red)
        return self.state.balls

    @property
    def cue(self) -> BallName:  # the shooter's ball (R-LAG-7)
        return rules.cue_ball(self.state)

    @property
    def break_shot(self) -> bool:  # R-BREAK-2: the red must be hit first
        return self.state.break_shot

    @property
    def spot_choice(self) -> bool:  # R-BREAK-1: the cue ball's starting spot is ours to choose
        return self.state.spot_choice

    @property
    def zone_counts(self) -> tuple[tuple[str, int], ...]:  # R-DISC-FREE / R-DISC-BALK
        return self.state.zone_counts

    def zone_leg(self) -> float:
        """R-DISC-FREE: the corner zones' leg the referee applies on this table."""
        return self.state.options.zone_leg

    def position(self, name: BallName) -> Point:
        return self.balls[BALLS.index(name)]


@dataclass(frozen=True, slots=True)
class LagProblem:
    table: str
    balls: Balls  # the lag position (R-LAG-1)
    cue: BallName  # our lag ball


def problem_from(room: RoomView, match: MatchView, seat: int) -> Problem | None:
    """Our stroke to choose, or None when it is not our turn to play."""
    if match.phase != WirePhase.PLAY or match.shooter != seat:
        return None
    return Problem(wireviews.state_from_view(match, wireviews.options_from_view(room.options)))
