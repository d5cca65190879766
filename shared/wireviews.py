"""The one adapter from rules values to wire views: the referee's match, scoresheet, results and
options as the protocol's typed views (``shared.protocol.views``), and back where a client or a
bot needs a real referee state from what it was sent.

The rules and the physics import nothing of the protocol, and the protocol nothing of the rules;
this module is where the two meet (tests/test_import_guard.py keeps it so).
"""

from __future__ import annotations

from shared.protocol import views as pv
from shared.rules.options import Discipline, MatchOptions
from shared.rules.placement import contact_of
from shared.rules.referee import cue_ball, lag_balls
from shared.rules.scoring import zone_rule_is_strict
from shared.rules.sheet import Line, Scoresheet, average, scoresheet
from shared.rules.state import MatchState, Phase, SetRecord
from shared.rules.verdict import GameOver
from shared.rules.zones import shared_zones, zones_for
from shared.table import BALLS


def sheet_view(sheet: Scoresheet) -> pv.Scoresheet:
    """The protocol's ``scoresheet``."""
    return pv.Scoresheet(
        sets=tuple(
            pv.SheetSet(
                number=s.number,
                breaker=s.breaker,
                lines=(_line_view(s.lines[0]), _line_view(s.lines[1])),
                result=result_view(s.result),
            )
            for s in sheet.sets
        ),
        match=(_line_view(sheet.match[0]), _line_view(sheet.match[1])),
        sets_won=sheet.sets_won,
        result=result_view(sheet.result),
    )


def _line_view(line: Line) -> pv.SheetLine:
    return pv.SheetLine(
        points=line.points,
        innings=line.innings,
        average=round(line.average, 3),
        high_run=line.high_run,
    )


def result_view(result: GameOver | None) -> pv.GameResult | None:
    if result is None:
        return None
    return pv.GameResult(winner=result.winner, reason=result.reason.value)


def room_options(opts: MatchOptions) -> pv.RoomOptions:
    """The protocol's ``room.options``: every option in force, the referee's defaults filled in
    (the corner zones' legs scaled with the table, R-DISC-FREE; whether the equalizing inning
    is played, R-END-2)."""
    return pv.RoomOptions(
        discipline=opts.discipline.value,
        distance=opts.target,
        shot_clock_s=opts.shot_clock_s,
        innings_limit=opts.innings_limit,
        sets=opts.sets,
        equalizing=opts.equalizing_applies,
        timeout_s=opts.timeout_s,
        grace_s=opts.grace_s,
        table=opts.table,
        practice=opts.practice,
        corner_zone_leg=opts.zone_leg,
    )


def match_view(state: MatchState) -> pv.MatchView:
    """The protocol's ``match`` object (PROTOCOL.md)."""
    rec = state.current
    opts = state.options
    frozen: pv.FrozenView | None = None
    if state.phase in (Phase.PLAY, Phase.TIMEOUT) and state.shooter is not None:
        # R-FROZEN-1 / R-CALL-3: what the shooter's ball touches (the `turn` message's frozen).
        contact = contact_of(state.balls, cue_ball(state), opts.table_spec)
        if contact:
            frozen = pv.FrozenView(balls=tuple(contact.balls), cushions=tuple(contact.cushions))
    lag: pv.LagView | None = None
    if state.phase in (Phase.LAG, Phase.BREAK_CHOICE):
        a, b = state.lag_strokes
        lag = pv.LagView(
            balls={str(s): b for s, b in lag_balls(state).items()},
            # R-LAG-3: strokes stay hidden; only whether each seat has played is shown.
            played=(a is not None, b is not None),
            winner=state.lag_winner,
            reason=state.lag_reason,
            repeats=state.lag_repeats,
        )
    zone_views: tuple[pv.ZoneView, ...] | None = None
    zones = zones_for(opts.discipline, opts.table_spec, opts.zone_leg)
    if zones and state.shooter is not None:
        cue = cue_ball(state)
        p, q = (state.ball(o) for o in BALLS if o != cue)
        counts = dict(state.zone_counts)
        strict = zone_rule_is_strict(opts.discipline)
        zone_views = tuple(
            pv.ZoneView(
                name=z.name,
                count=counts.get(z.name, 0),
                armed=strict or counts.get(z.name, 0) >= 1,
                on_line=z.on_line(p) or z.on_line(q),
            )
            for z in shared_zones(zones, p, q)
        )
    return pv.MatchView(
        phase=state.phase.value,
        discipline=opts.discipline.value,
        distance=opts.target,
        shooter=state.shooter,
        cue_ball=cue_ball(state) if state.shooter is not None else None,
        white_seat=state.white_seat,
        balls={b: (p[0], p[1]) for b, p in zip(BALLS, state.balls, strict=True)},
        score=rec.points,
        innings=rec.innings,
        average=(
            round(average(rec.points[0], rec.innings[0]), 3),
            round(average(rec.points[1], rec.innings[1]), 3),
        ),
        high_run=rec.high_run,
        current_run=state.current_run,
        timeouts_left=rec.timeouts_left,
        deadline_ms=state.deadline_ms,
        paused_ms=state.paused_ms,
        resting_at_ms=state.resting_at_ms,
        break_shot=state.break_shot,
        spot_choice=state.spot_choice,
        equalizing=state.equalizing,
        set=len(state.sets),
        sets=opts.sets,
        sets_won=scoresheet(state).sets_won,
        connected=state.connected,
        grace_until_ms=state.grace_deadline,
        result=result_view(state.result),
        frozen=frozen,
        lag=lag,
        zones=zone_views,
    )


def options_from_view(options: pv.RoomOptions) -> MatchOptions:
    """The referee's options from ``room.options`` (every option in force, as the room sent
    them): a client's copy of the rules' inputs, the corner-zone leg included (R-DISC-FREE)."""
    return MatchOptions(
        discipline=Discipline(options.discipline),
        distance=options.distance,
        shot_clock_s=options.shot_clock_s,
        innings_limit=options.innings_limit,
        sets=options.sets,
        equalizing=options.equalizing,
        timeout_s=options.timeout_s,
        grace_s=options.grace_s,
        table=options.table,
        practice=options.practice,
        corner_zone_leg=options.corner_zone_leg,
    )


def state_from_view(view: pv.MatchView, options: MatchOptions) -> MatchState:
    """A real referee state from the ``match`` a client holds: the phase, the balls, who
    shoots with which ball (R-LAG-7), the break, the current game's lines and the zone counts
    of the zones both object balls share (R-DISC-FREE, R-DISC-BALK), so a bot can hand its
    candidate strokes to :func:`shared.rules.judge` exactly as the server will. Earlier games
    of a set match are not in the view; only the current one is rebuilt."""
    balls = tuple((float(view.balls[b][0]), float(view.balls[b][1])) for b in BALLS)
    breaker = view.white_seat if view.white_seat is not None else 0
    current = SetRecord(
        breaker=breaker,
        points=view.score,
        innings=view.innings,
        high_run=view.high_run,
        timeouts_left=view.timeouts_left,
    )
    return MatchState(
        options=options,
        phase=Phase(view.phase),
        balls=(balls[0], balls[1], balls[2]),
        sets=(current,),
        white_seat=view.white_seat,
        shooter=view.shooter,
        current_run=view.current_run,
        deadline_ms=view.deadline_ms,
        paused_ms=view.paused_ms,
        resting_at_ms=view.resting_at_ms,
        break_shot=view.break_shot,
        spot_choice=view.spot_choice,
        equalizing=view.equalizing,
        zone_counts=tuple((z.name, z.count) for z in view.zones or ()),
        connected=view.connected,
        grace_deadline=view.grace_until_ms,
    )
