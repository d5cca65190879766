"""Match options: the discipline and every number the rule books leave to "the federation".

RULES.md says where a seed leaves a number open the game makes it a match option; the defaults
below are the game's decisions, each documented in ``docs/rules.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from shared.options import ROOM_OPTIONS, WIRE_OPTIONS
from shared.table import TableSpec, table_by_name


class Discipline(StrEnum):
    """The carom disciplines; each value is the wire name (PROTOCOL.md ``create_room``)."""

    THREE_CUSHION = "three_cushion"
    ONE_CUSHION = "one_cushion"
    STRAIGHT_RAIL = "straight_rail"
    BALKLINE_47_2 = "balkline_47_2"
    BALKLINE_47_1 = "balkline_47_1"
    BALKLINE_71_2 = "balkline_71_2"
    BALKLINE_71_1 = "balkline_71_1"

    @property
    def is_balkline(self) -> bool:
        return self.value.startswith("balkline")

    @property
    def countdown_from(self) -> int:
        """R-CALL-2: the referee counts down from 3 in three-cushion, from 5 elsewhere."""
        return 3 if self is Discipline.THREE_CUSHION else 5


class TeamMode(StrEnum):
    """R-TEAM-1: how many players a side has and in what order they shoot; values are wire
    words (``create_room``'s ``team_mode``)."""

    SINGLES = "singles"  # one player a side
    DOUBLES = "doubles"  # R-TEAM-2: two a side, the partners take the side's innings in turn
    SCOTCH = "scotch"  # R-TEAM-3: two a side, the partners alternate the side's strokes

    @property
    def size(self) -> int:
        """Players in each side's line-up."""
        return 1 if self is TeamMode.SINGLES else 2


# R-END-1: the seeds leave the distance to the federation. These are club-level distances sized
# for an online sitting of roughly half an hour at a 30 s shot clock (see docs/rules.md).
DEFAULT_DISTANCE: Final[dict[Discipline, int]] = {
    Discipline.THREE_CUSHION: 25,
    Discipline.ONE_CUSHION: 50,
    Discipline.STRAIGHT_RAIL: 100,
    Discipline.BALKLINE_47_2: 100,
    Discipline.BALKLINE_47_1: 75,
    Discipline.BALKLINE_71_2: 100,
    Discipline.BALKLINE_71_1: 75,
}

MAX_TIMEOUT_S: Final[int] = 300  # R-TIMEOUT-1: at most 5 minutes

# R-DISC-FREE (decision): the corner zones' legs on the 2.84 m match table. On other tables the
# default scales with the table's length, as the balkline lines do (docs/rules.md).
CORNER_ZONE_LEG: Final[float] = 0.71  # m
MATCH_LENGTH: Final[float] = 2.84  # m, R-TABLE-1


@dataclass(frozen=True, slots=True)
class MatchOptions:
    """Everything that is fixed for a match. Validates itself; a bad value raises ValueError."""

    discipline: Discipline = Discipline.THREE_CUSHION
    distance: int | None = None  # points per game/set; None = DEFAULT_DISTANCE[discipline]
    shot_clock_s: int = 30  # R-CLOCK-1
    innings_limit: int | None = None  # R-END-3: None = no limit
    sets: int = 1  # R-END-4: best of ``sets`` games
    # R-END-2: None = the default, on for a single game and off in set play; True/False forces it
    equalizing: bool | None = None
    timeout_s: int = 60  # R-TIMEOUT-1 length, up to 300 s
    timeouts_per_game: int = 1  # R-TIMEOUT-1: per player per match (+1 in a deciding set)
    grace_s: int = 60  # R-END-5: reconnection grace before a forfeit
    no_show_s: int = 120  # R-END-5: grace for a seated player absent at the start
    table: str = "match"  # a name in shared.table.TABLES (R-TABLE-1)
    practice: bool = False  # one player, no lag, no clock, ``Place`` allowed
    # m, R-DISC-FREE corner triangles' legs; None: CORNER_ZONE_LEG scaled with the table
    corner_zone_leg: float | None = None
    team_mode: TeamMode = TeamMode.SINGLES  # R-TEAM-1: one or two players a side

    def __post_init__(self) -> None:
        # Accept the wire name too, so a server can pass what the client sent.
        if not isinstance(self.discipline, Discipline):
            try:
                object.__setattr__(self, "discipline", Discipline(self.discipline))
            except ValueError:
                names = ", ".join(d.value for d in Discipline)
                raise ValueError(
                    f"unknown discipline {self.discipline!r}; known: {names}"
                ) from None
        if not isinstance(self.team_mode, TeamMode):
            try:
                object.__setattr__(self, "team_mode", TeamMode(self.team_mode))
            except ValueError:
                known = ", ".join(m.value for m in TeamMode)
                raise ValueError(f"unknown team_mode {self.team_mode!r}; known: {known}") from None
        if self.practice and self.team_mode is not TeamMode.SINGLES:
            raise ValueError("team_mode must be singles in a practice room (one player)")
        # Each option's type and bounds from the one table (shared/options.py); None stands
        # for a derived default where the table's default is None.
        for option in ROOM_OPTIONS:
            value = getattr(self, option.name)
            if value is None and option.default is None:
                continue
            why = option.problem(value)
            if why is not None:
                raise ValueError(why)
        spec = table_by_name(self.table)
        leg = self.corner_zone_leg
        if leg is not None and (
            isinstance(leg, bool)
            or not isinstance(leg, int | float)
            or not 0.1 <= leg <= spec.width / 2
        ):
            raise ValueError(
                f"corner_zone_leg must be a number in [0.1, {spec.width / 2}] m on the "
                f"{self.table} table, got {leg!r}"
            )

    @property
    def target(self) -> int:
        """The distance actually played (R-END-1)."""
        return self.distance if self.distance is not None else DEFAULT_DISTANCE[self.discipline]

    @property
    def zone_leg(self) -> float:
        """R-DISC-FREE: the corner zones' legs in metres: the option, or the default scaled
        with the table (never more than half the width, where the two triangles meet)."""
        if self.corner_zone_leg is not None:
            return float(self.corner_zone_leg)
        return default_zone_leg(self.table)

    @property
    def table_spec(self) -> TableSpec:
        return table_by_name(self.table)

    @property
    def equalizing_applies(self) -> bool:
        """R-END-2: on by default for a single game; in set play (R-END-4) each set is decided
        by the distance alone unless the option turns the equalizing inning on."""
        if self.equalizing is None:
            return self.sets == 1
        return self.equalizing

    @property
    def players(self) -> int:
        """R-TEAM-1: players in the match, both sides' line-ups (2 in singles, 4 in doubles)."""
        return 2 * self.team_mode.size

    @property
    def teams(self) -> bool:
        """Two players a side (doubles or Scotch doubles)."""
        return self.team_mode is not TeamMode.SINGLES

    @property
    def sets_to_win(self) -> int:
        return self.sets // 2 + 1


def default_zone_leg(table: str) -> float:
    """R-DISC-FREE (decision): 0.71 m on the match table, scaled with the table's length, never
    more than half its width (where the two corner triangles of a short cushion meet)."""
    spec = table_by_name(table)
    return min(CORNER_ZONE_LEG * spec.length / MATCH_LENGTH, spec.width / 2)


# ``create_room``'s fields that are referee options of the same name (absent or None: the
# referee's default). A stored room's options carry the same names.
SENT_OPTIONS: Final[tuple[str, ...]] = tuple(o.name for o in WIRE_OPTIONS)


def options_as_sent(discipline: str, sent: object) -> MatchOptions:
    """The referee's options from options as a room's creator sent them (``create_room``, or
    a stored room's copy): each of :data:`SENT_OPTIONS` that ``sent`` has and is not None.
    Raises ValueError when the referee refuses them."""
    given = {n: getattr(sent, n) for n in SENT_OPTIONS if getattr(sent, n, None) is not None}
    return MatchOptions(discipline=Discipline(discipline), **given)
