"""The referee: every rule of RULES.md as a pure, immutable state machine.

``apply(state, action, now_ms) -> (state, verdict)``; no I/O, no clock reads, no pymunk,
asyncio, websockets or arcade. See ``docs/rules.md`` for how each rule is applied.
"""

from __future__ import annotations

from shared.rules.actions import (
    Action,
    ChooseBreak,
    Concede,
    Disconnected,
    LagResult,
    LagStroke,
    Place,
    PlayStroke,
    Reconnected,
    Rematch,
    Respot,
    Resume,
    Start,
    Tick,
    TimeOut,
)
from shared.rules.codec import state_from_dict, state_to_dict
from shared.rules.game import check_stroke
from shared.rules.options import (
    DEFAULT_DISTANCE,
    Discipline,
    MatchOptions,
    TeamMode,
    options_as_sent,
)
from shared.rules.referee import (
    apply,
    cue_ball,
    judge,
    lag_balls,
    lag_strokes,
    new_match,
    next_deadline,
    outcome,
    stroke_start,
)
from shared.rules.sheet import Line, Scoresheet, SetSheet, scoresheet
from shared.rules.state import MatchState, Phase, SetRecord
from shared.rules.verdict import Call, Foul, GameOver, IllegalAction, Termination, Verdict

__all__ = [
    "DEFAULT_DISTANCE",
    "Action",
    "Call",
    "ChooseBreak",
    "Concede",
    "Discipline",
    "Disconnected",
    "Foul",
    "GameOver",
    "IllegalAction",
    "LagResult",
    "LagStroke",
    "Line",
    "MatchOptions",
    "MatchState",
    "Phase",
    "Place",
    "PlayStroke",
    "Reconnected",
    "Rematch",
    "Respot",
    "Resume",
    "Scoresheet",
    "SetRecord",
    "SetSheet",
    "Start",
    "TeamMode",
    "Termination",
    "Tick",
    "TimeOut",
    "Verdict",
    "apply",
    "check_stroke",
    "cue_ball",
    "judge",
    "lag_balls",
    "lag_strokes",
    "new_match",
    "next_deadline",
    "options_as_sent",
    "outcome",
    "scoresheet",
    "state_from_dict",
    "state_to_dict",
    "stroke_start",
]
