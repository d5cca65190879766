"""The referee: ``apply(state, action, now_ms) -> (state, verdict)``, pure and total.

Theory of operation (see ``state.py`` for the phases): every action is checked against the phase
and the seat first; a refused action raises ``IllegalAction`` before anything is built, so the
caller's state is untouched. Time is passed in, never read. A deadline (shot clock, lag clock,
break choice, time-out end, reconnection grace) takes effect only when the server sends ``Tick``;
each expired deadline is applied at its own time, so a late tick gives the same result as a
punctual one.
"""

from __future__ import annotations

import math
from dataclasses import replace

from shared.physics.types import ShotResult, Stroke
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
from shared.rules.lag import judge_lag
from shared.rules.options import Discipline, MatchOptions
from shared.rules.placement import (
    Balls,
    Side,
    as_tuple,
    break_position,
    contact_of,
    lag_position,
    respot_3c,
)
from shared.rules.scoring import judge_stroke, jumped_balls, zone_rule_is_strict
from shared.rules.state import MatchState, Phase, SetRecord
from shared.rules.verdict import Call, Foul, GameOver, IllegalAction, Seat, Termination, Verdict
from shared.rules.zones import shared_zones, zones_for
from shared.table import BALLS, BallName, Point

POSITION_TOLERANCE = 1e-6  # m: a result must start from the state's positions


# Public helpers ------------------------------------------------------------------------------


def new_match(options: MatchOptions, now_ms: int) -> MatchState:
    """A match waiting for ``Start``, balls in the lag position (R-LAG-1)."""
    n = options.timeouts_per_game
    return MatchState(
        options=options,
        phase=Phase.WAITING,
        balls=lag_position(options.table_spec),
        sets=(SetRecord(breaker=0, timeouts_left=(n, n)),),
        resting_at_ms=now_ms,
    )


def cue_ball(state: MatchState) -> BallName:
    """R-PLAY-3: the ball the shooter strikes (the breaker's is white)."""
    return state.ball_of(state.shooter if state.shooter is not None else 0)


def lag_balls(state: MatchState) -> dict[Seat, BallName]:
    """R-LAG-1: seat 0 lags with the white (right of the axis), seat 1 with the yellow."""
    return {0: "white", 1: "yellow"}


def lag_strokes(state: MatchState) -> dict[BallName, Stroke] | None:
    """Both lag strokes keyed by lag ball once both are in (the server then simulates them
    together, R-LAG-3); None while one is missing."""
    a, b = state.lag_strokes
    if state.phase is not Phase.LAG or a is None or b is None:
        return None
    return {"white": a, "yellow": b}


def stroke_start(state: MatchState, spot: Side | None = None) -> dict[BallName, Point]:
    """The positions the server simulates the next stroke from. ``spot`` (R-BREAK-1) chooses
    the starting spot when the cue ball stands on one; otherwise it must be None."""
    if spot is None:
        return state.positions
    if not state.spot_choice:
        raise IllegalAction(
            "bad_field", "A starting spot can only be chosen from the break position."
        )
    if spot not in ("left", "right"):
        raise IllegalAction("bad_field", f"spot must be 'left' or 'right', got {spot!r}")
    balls = break_position(state.options.table_spec, cue_ball(state), spot)
    return dict(zip(BALLS, balls, strict=True))


def next_deadline(state: MatchState) -> int | None:
    """The earliest server time at which the server must send ``Tick``."""
    if state.phase is Phase.OVER:
        return None
    times = [t for t in (state.deadline_ms, *state.grace_deadline) if t is not None]
    return min(times) if times else None


def outcome(state: MatchState) -> GameOver | None:
    return state.result


# The transition function ---------------------------------------------------------------------


def apply(state: MatchState, action: Action, now_ms: int) -> tuple[MatchState, Verdict]:
    """Apply one action at server time ``now_ms`` (ms since the epoch)."""
    if isinstance(now_ms, bool) or not isinstance(now_ms, int):
        raise TypeError(f"now_ms must be an int of milliseconds, got {now_ms!r}")
    if isinstance(action, Tick):
        return _tick(state, now_ms)
    if isinstance(action, Disconnected | Reconnected):
        return _connection(state, action, now_ms)
    if isinstance(action, Rematch):
        return _rematch(state, action, now_ms)
    if state.phase is Phase.OVER:
        raise IllegalAction("wrong_phase", "The match is over.")
    if isinstance(action, Concede):
        winner = None if state.options.practice else 1 - action.seat
        return _finish(state, GameOver(winner, Termination.CONCEDE), now_ms)
    handlers = {
        Start: _start,
        LagStroke: _lag_stroke,
        LagResult: _lag_result,
        ChooseBreak: _choose_break,
        PlayStroke: _play_stroke,
        Respot: _respot,
        TimeOut: _timeout,
        Resume: _resume,
        Place: _place,
    }
    handler = handlers.get(type(action))
    if handler is None:
        raise TypeError(f"not a referee action: {action!r}")
    new, verdict = handler(state, action, now_ms)  # type: ignore[operator]
    return _settle(new, now_ms), verdict


# Start, lag and break choice -----------------------------------------------------------------


def _start(state: MatchState, action: Start, now: int) -> tuple[MatchState, Verdict]:
    _need_phase(state, Phase.WAITING)
    if state.options.practice:
        new = _begin_set(replace(state, white_seat=0), breaker=0, now=now, first=True)
        return new, Verdict(next_shooter=0, calls=_turn_calls(new))
    new = replace(
        state,
        phase=Phase.LAG,
        balls=lag_position(state.options.table_spec),
        deadline_ms=now + _clock_ms(state),
        resting_at_ms=now,
    )
    call = Call("lag", "Lag for the break: strike toward the top cushion.", "R-LAG-2")
    return new, Verdict(calls=(call,))


def _lag_stroke(state: MatchState, action: LagStroke, now: int) -> tuple[MatchState, Verdict]:
    _need_phase(state, Phase.LAG)
    if state.lag_strokes[action.seat] is not None:
        raise IllegalAction("already_played", "Your lag stroke is already in.")
    strokes = list(state.lag_strokes)
    strokes[action.seat] = action.stroke
    return replace(state, lag_strokes=(strokes[0], strokes[1])), Verdict()


def _lag_result(state: MatchState, action: LagResult, now: int) -> tuple[MatchState, Verdict]:
    _need_phase(state, Phase.LAG)
    expected = lag_strokes(state)
    if expected is None:
        raise IllegalAction("wrong_phase", "Both lag strokes must be in before the lag is run.")
    result = action.result
    _check_start(result, lag_position(state.options.table_spec))
    if dict(result.strokes) != expected:
        raise ValueError("the lag result was not simulated from the players' lag strokes")
    table = state.options.table_spec
    judged = judge_lag(result, lag_balls(state), table)
    winner, reason, text = judged.winner, judged.reason, judged.text
    repeats = (
        state.lag_repeats[0] + judged.caused[0],
        state.lag_repeats[1] + judged.caused[1],
    )
    rest = now + _duration_ms(result)
    if winner is None:
        # R-LAG-6: a player who caused two repeats loses the lag.
        late = [s for s in (0, 1) if repeats[s] >= 2]
        if len(late) == 1:
            winner, reason = 1 - late[0], "two_repeats"
            text = f"Seat {late[0]} caused two repeats of the lag and loses it (R-LAG-6)."
    shown = tuple(
        p if p is not None else q
        for p, q in zip((result.final.get(b) for b in BALLS), lag_position(table), strict=True)
    )
    balls: Balls = (shown[0], shown[1], shown[2])
    if winner is None:
        new = replace(
            state,
            lag_strokes=(None, None),
            lag_repeats=repeats,
            balls=lag_position(table),
            resting_at_ms=rest,
            deadline_ms=rest + _clock_ms(state),
        )
        return new, Verdict(
            lag_repeat=True, lag_reason=reason, calls=(Call("lag_repeat", text, "R-LAG-4"),)
        )
    new = replace(
        state,
        phase=Phase.BREAK_CHOICE,
        balls=balls,
        lag_repeats=repeats,
        lag_winner=winner,
        lag_reason=reason,
        resting_at_ms=rest,
        deadline_ms=rest + _clock_ms(state),
    )
    call = Call("lag_winner", text + " The winner chooses who breaks.", "R-LAG-7")
    return new, Verdict(lag_winner=winner, lag_reason=reason, calls=(call,))


def _choose_break(state: MatchState, action: ChooseBreak, now: int) -> tuple[MatchState, Verdict]:
    _need_phase(state, Phase.BREAK_CHOICE)
    if action.seat != state.lag_winner:
        raise IllegalAction("not_your_turn", "Only the winner of the lag chooses who breaks.")
    return _break_chosen(state, action.breaker, max(now, state.resting_at_ms))


def _break_chosen(state: MatchState, breaker: Seat, now: int) -> tuple[MatchState, Verdict]:
    # R-LAG-7: the breaker plays the white for the whole match.
    new = _begin_set(replace(state, white_seat=breaker), breaker=breaker, now=now, first=True)
    call = Call("break", f"Seat {breaker} breaks with the white.", "R-LAG-7")
    return new, Verdict(next_shooter=breaker, calls=(call, *_turn_calls(new)))


def _begin_set(state: MatchState, breaker: Seat, now: int, first: bool) -> MatchState:
    """R-BREAK-1 / R-END-4: a game starts from the break position with ``breaker`` to shoot."""
    n = state.options.timeouts_per_game
    record = SetRecord(breaker=breaker, timeouts_left=(n, n))
    sets = (record,) if first else (*state.sets, record)
    cue = state.ball_of(breaker)
    return replace(
        state,
        phase=Phase.PLAY,
        sets=sets,
        shooter=breaker,
        balls=break_position(state.options.table_spec, cue),
        current_run=0,
        visit_strokes=0,
        break_shot=not state.options.practice,
        spot_choice=True,
        equalizing=False,
        zone_counts=(),
        resting_at_ms=max(now, state.resting_at_ms),
        deadline_ms=None
        if state.options.practice
        else max(now, state.resting_at_ms) + _clock_ms(state),
        paused_ms=None,
    )


# Strokes --------------------------------------------------------------------------------------


def _play_stroke(state: MatchState, action: PlayStroke, now: int) -> tuple[MatchState, Verdict]:
    _ready_to_shoot(state, action.seat, now)
    result = action.result
    cue = cue_ball(state)
    if set(result.strokes) != {cue} or result.strokes[cue] != action.stroke:
        raise ValueError(f"the result must be the simulation of {cue} struck with this stroke")
    start = _matching_start(state, result)
    opts = state.options
    table = opts.table_spec
    judged = judge_stroke(
        discipline=opts.discipline,
        table=table,
        zones=zones_for(opts.discipline, table, opts.corner_zone_leg),
        cue=cue,
        balls=start,
        stroke=action.stroke,
        result=result,
        break_shot=state.break_shot,
        zone_counts=dict(state.zone_counts),
    )
    shooter = action.seat
    rec = state.current
    innings = _bump(rec.innings, shooter) if state.visit_strokes == 0 else rec.innings
    rest = now + _duration_ms(result)
    scored = judged.points > 0 and judged.foul is None
    next_shooter = shooter if scored or opts.practice else 1 - shooter
    # Balls where they stopped; jumped balls re-spotted (R-RESPOT-3C, R-RESPOT-OTHER).
    gone = jumped_balls(result)
    final = {b: None if b in gone else result.final.get(b) for b in BALLS}
    respots: dict[BallName, Point] = {}
    spot_choice = False
    if any(p is None for p in final.values()):
        next_ball = state.ball_of(next_shooter)
        if opts.discipline is Discipline.THREE_CUSHION:
            respots = respot_3c(final, table, next_ball)
        else:
            respots = dict(zip(BALLS, break_position(table, next_ball), strict=True))
            spot_choice = True
    placed = {b: respots.get(b, final[b]) for b in BALLS}
    balls = as_tuple({b: p for b, p in placed.items() if p is not None})
    new = replace(
        state,
        balls=balls,
        resting_at_ms=rest,
        deadline_ms=None if opts.practice else rest + _clock_ms(state),
        paused_ms=None,
        break_shot=False,
        spot_choice=spot_choice,
        strokes_played=state.strokes_played + 1,
    )
    calls = list(judged.calls)
    if scored:
        points = _bump(rec.points, shooter)
        run = state.current_run + 1
        high = max(rec.high_run[shooter], run)
        record = replace(
            rec, points=points, innings=innings, high_run=_put(rec.high_run, shooter, high)
        )
        new = replace(
            new,
            sets=(*state.sets[:-1], record),
            current_run=run,
            visit_strokes=state.visit_strokes + 1,
            zone_counts=judged.zone_counts,
        )
        to_go = opts.target - points[shooter]
        if 0 < to_go <= opts.discipline.countdown_from and not opts.practice:
            calls.append(Call("to_go", f"{to_go} to go.", "R-CALL-2"))
        new, end_calls, over = _after_point(new, shooter, rest)
    else:
        record = replace(rec, innings=innings)
        new = replace(new, sets=(*state.sets[:-1], record))
        new, end_calls, over = _end_inning(new, shooter, rest)
    calls.extend(end_calls)
    if new.phase is Phase.PLAY:
        calls.extend(_turn_calls(new))
    # Balls the referee moved after the stroke: re-spots, and the break position of an
    # equalizing inning or a new set.
    for b, p in new.positions.items():
        if p != placed[b]:
            respots[b] = p
    verdict = Verdict(
        points=1 if scored else 0,
        foul=judged.foul,
        calls=tuple(calls),
        respots=respots,
        next_shooter=new.shooter if new.phase is not Phase.OVER else None,
        game_over=new.result if new.phase is Phase.OVER else None,
        set_over=over,
    )
    return new, verdict


def _after_point(
    state: MatchState, shooter: Seat, now: int
) -> tuple[MatchState, list[Call], GameOver | None]:
    """R-END-1 / R-END-2: did this point end the game?"""
    opts = state.options
    rec = state.current
    if opts.practice or rec.points[shooter] < opts.target:
        return state, [], None
    if state.equalizing:
        return _end_set(state, GameOver(None, Termination.EQUALIZED), now)
    if shooter == rec.breaker and opts.equalizing_applies:
        # R-END-2: the other player gets one more inning from the break position.
        other = 1 - shooter
        new = replace(
            state,
            shooter=other,
            balls=break_position(opts.table_spec, state.ball_of(other)),
            current_run=0,
            visit_strokes=0,
            break_shot=True,
            spot_choice=True,
            equalizing=True,
            zone_counts=(),
        )
        call = Call(
            "equalizing",
            f"Seat {shooter} reached {opts.target}; seat {other} plays the equalizing inning.",
            "R-END-2",
        )
        return new, [call], None
    return _end_set(state, GameOver(shooter, Termination.DISTANCE), now)


def _end_inning(
    state: MatchState, shooter: Seat, now: int
) -> tuple[MatchState, list[Call], GameOver | None]:
    """R-PLAY-2: the inning is over; then R-END-2's equalizing inning and R-END-3's limit."""
    opts = state.options
    rec = state.current
    new = replace(
        state,
        shooter=shooter if opts.practice else 1 - shooter,
        current_run=0,
        visit_strokes=0,
        zone_counts=(),
    )
    if opts.practice:
        return new, [], None
    if state.equalizing:  # the equalizing inning fell short: the breaker wins
        return _end_set(new, GameOver(rec.breaker, Termination.DISTANCE), now)
    limit = opts.innings_limit
    if limit is not None and min(rec.innings) >= limit:
        a, b = rec.points
        winner = None if a == b else (0 if a > b else 1)
        return _end_set(new, GameOver(winner, Termination.INNINGS_LIMIT), now)
    return new, [], None


def _end_set(
    state: MatchState, result: GameOver, now: int
) -> tuple[MatchState, list[Call], GameOver | None]:
    """A game ended; in set play the match goes on until a player has won enough sets."""
    opts = state.options
    sets = (*state.sets[:-1], replace(state.current, result=result))
    state = replace(state, sets=sets)
    won = _sets_won(state)
    if opts.sets == 1 or max(won) >= opts.sets_to_win or len(sets) >= opts.sets:
        if opts.sets == 1:
            final = result
        else:
            winner = None if won[0] == won[1] else (0 if won[0] > won[1] else 1)
            final = GameOver(winner, result.reason if winner is None else Termination.DISTANCE)
        new, verdict = _finish(state, final, now)
        return new, list(verdict.calls), None
    # R-END-4: sets alternate the break.
    new = _begin_set(state, breaker=1 - state.current.breaker, now=now, first=False)
    text = _result_text(result) + f" Set {len(sets) + 1}: seat {new.shooter} breaks."
    return new, [Call("set_over", text, "R-END-4")], result


def _sets_won(state: MatchState) -> tuple[int, int]:
    won = [0, 0]
    for rec in state.sets:
        if rec.result is not None and rec.result.winner is not None:
            won[rec.result.winner] += 1
    return (won[0], won[1])


def _finish(state: MatchState, result: GameOver, now: int) -> tuple[MatchState, Verdict]:
    rec = state.current
    if rec.result is None and state.phase is not Phase.WAITING:
        state = replace(state, sets=(*state.sets[:-1], replace(rec, result=result)))
    new = replace(
        state,
        phase=Phase.OVER,
        result=result,
        deadline_ms=None,
        paused_ms=None,
        grace_deadline=(None, None),
        rematch=(False, False),
    )
    call = Call("game_over", _result_text(result), "R-END-1")
    return new, Verdict(game_over=result, calls=(call,))


def _result_text(result: GameOver) -> str:
    if result.winner is None:
        return f"Draw ({result.reason.value})."
    return f"Seat {result.winner} wins ({result.reason.value})."


# Frozen balls, time-outs, practice ------------------------------------------------------------


def _respot(state: MatchState, action: Respot, now: int) -> tuple[MatchState, Verdict]:
    _ready_to_shoot(state, action.seat, now)
    table = state.options.table_spec
    cue = cue_ball(state)
    contact = contact_of(state.balls, cue, table)
    if not contact.balls:
        raise IllegalAction(
            "not_frozen", "Your ball touches no other ball; there is nothing to re-spot."
        )
    if state.options.discipline is Discipline.THREE_CUSHION:
        # R-FROZEN-4: only the touching balls, as for jumped balls (R-RESPOT-3C).
        respots = respot_3c(state.positions, table, cue, which=(cue, *contact.balls))
        spot_choice = False
    else:
        respots = dict(zip(BALLS, break_position(table, cue), strict=True))
        spot_choice = True
    balls = as_tuple({**state.positions, **respots})
    new = replace(
        state,
        balls=balls,
        spot_choice=spot_choice,
        zone_counts=(),
        deadline_ms=now + _clock_ms(state) if not state.options.practice else None,
        paused_ms=None,
    )
    call = Call("respot", "The balls are re-spotted (R-FROZEN-1).", "R-FROZEN-4")
    return new, Verdict(
        respots=respots, next_shooter=state.shooter, calls=(call, *_turn_calls(new))
    )


def _timeout(state: MatchState, action: TimeOut, now: int) -> tuple[MatchState, Verdict]:
    _ready_to_shoot(state, action.seat, now)
    if state.options.practice:
        raise IllegalAction("wrong_phase", "There are no time-outs in practice.")
    if state.visit_strokes > 0:
        raise IllegalAction(
            "not_start_of_inning", "A time-out can only be taken at the start of an inning."
        )
    rec = state.current
    if rec.timeouts_left[action.seat] <= 0:
        raise IllegalAction("no_timeouts_left", "You have no time-outs left in this game.")
    remaining = state.paused_ms if state.deadline_ms is None else state.deadline_ms - now
    new = replace(
        state,
        phase=Phase.TIMEOUT,
        sets=(
            *state.sets[:-1],
            replace(
                rec,
                timeouts_left=_put(
                    rec.timeouts_left, action.seat, rec.timeouts_left[action.seat] - 1
                ),
            ),
        ),
        paused_ms=max(0, remaining if remaining is not None else _clock_ms(state)),
        deadline_ms=now + state.options.timeout_s * 1000,
    )
    call = Call("time_out", f"Time-out for seat {action.seat}.", "R-TIMEOUT-1")
    return new, Verdict(next_shooter=state.shooter, calls=(call,))


def _resume(state: MatchState, action: Resume, now: int) -> tuple[MatchState, Verdict]:
    _need_phase(state, Phase.TIMEOUT)
    if action.seat != state.shooter:
        raise IllegalAction("not_your_turn", "Only the player who took the time-out can resume.")
    return _end_timeout(state, now)


def _end_timeout(state: MatchState, now: int) -> tuple[MatchState, Verdict]:
    paused = state.paused_ms if state.paused_ms is not None else _clock_ms(state)
    new = replace(state, phase=Phase.PLAY, deadline_ms=now + paused, paused_ms=None)
    call = Call("resume", "Play resumes.", "R-TIMEOUT-1")
    return new, Verdict(next_shooter=state.shooter, calls=(call, *_turn_calls(new)))


def _place(state: MatchState, action: Place, now: int) -> tuple[MatchState, Verdict]:
    if not state.options.practice:
        raise IllegalAction("not_practice", "Balls can only be placed in a practice room.")
    _need_phase(state, Phase.PLAY)
    if now < state.resting_at_ms:
        raise IllegalAction("balls_moving", "Wait until the balls are at rest.")
    table = state.options.table_spec
    positions = state.positions
    for name, p in action.balls.items():
        q = (float(p[0]), float(p[1]))
        if not table.contains(q):
            raise IllegalAction("bad_field", f"The {name} must lie on the table, got {list(q)}.")
        positions[name] = q
    for i, a in enumerate(BALLS):
        for b in BALLS[i + 1 :]:
            if math.dist(positions[a], positions[b]) < 2 * table.ball_radius - 1e-9:
                raise IllegalAction("bad_field", f"The {a} and the {b} would overlap.")
    new = replace(
        state, balls=as_tuple(positions), spot_choice=False, break_shot=False, zone_counts=()
    )
    return new, Verdict(next_shooter=state.shooter, calls=_turn_calls(new))


def _rematch(state: MatchState, action: Rematch, now: int) -> tuple[MatchState, Verdict]:
    _need_phase(state, Phase.OVER)
    votes = list(state.rematch)
    votes[action.seat] = True
    if not all(votes) and not state.options.practice:
        return replace(state, rematch=(votes[0], votes[1])), Verdict()
    # A fresh match with the other breaker (no lag): the seats swap colours.
    breaker = 1 - state.sets[0].breaker if state.white_seat is not None else 0
    fresh = replace(new_match(state.options, now), white_seat=breaker, connected=state.connected)
    new = _begin_set(fresh, breaker=breaker, now=now, first=True)
    call = Call("rematch", f"Rematch: seat {breaker} breaks with the white.", "R-LAG-7")
    return new, Verdict(next_shooter=breaker, calls=(call, *_turn_calls(new)))


# Time and connections -------------------------------------------------------------------------


def _connection(
    state: MatchState, action: Disconnected | Reconnected, now: int
) -> tuple[MatchState, Verdict]:
    seat = action.seat
    up = isinstance(action, Reconnected)
    connected = (up, state.connected[1]) if seat == 0 else (state.connected[0], up)
    grace = list(state.grace_deadline)
    if state.phase is Phase.OVER or up:
        grace[seat] = None
    elif grace[seat] is None:
        wait = state.options.no_show_s if state.phase is Phase.WAITING else state.options.grace_s
        grace[seat] = now + wait * 1000
    new = replace(state, connected=connected, grace_deadline=(grace[0], grace[1]))
    return _settle(new, now), Verdict()


def _tick(state: MatchState, now: int) -> tuple[MatchState, Verdict]:
    calls: list[Call] = []
    last = Verdict()
    fouls: list[Foul] = []
    for _ in range(64):  # each round moves a deadline forward; 64 is far beyond any real tick
        due = _earliest_due(state, now)
        if due is None:
            break
        at, kind = due
        state, verdict = _expire(state, kind, at)
        state = _settle(state, at)
        calls.extend(verdict.calls)
        if verdict.foul is not None:
            fouls.append(verdict.foul)
        last = verdict
    merged = replace(last, calls=tuple(calls), foul=fouls[-1] if fouls else None)
    return state, merged


def _earliest_due(state: MatchState, now: int) -> tuple[int, str] | None:
    if state.phase is Phase.OVER:
        return None
    due: list[tuple[int, str]] = []
    g0, g1 = state.grace_deadline
    if g0 is not None and g1 is not None and g0 == g1 and g0 <= now:
        due.append((g0, "grace_both"))
    for seat, g in enumerate((g0, g1)):
        if g is not None and g <= now:
            due.append((g, f"grace_{seat}"))
    if (
        state.deadline_ms is not None
        and state.deadline_ms <= now
        and state.phase is not Phase.WAITING
    ):
        due.append((state.deadline_ms, "clock"))
    if not due:
        return None
    order = {"grace_both": 0, "grace_0": 1, "grace_1": 1, "clock": 2}
    return min(due, key=lambda d: (d[0], order[d[1]]))


def _expire(state: MatchState, kind: str, at: int) -> tuple[MatchState, Verdict]:
    if kind == "grace_both":
        return _finish(state, GameOver(None, Termination.ABANDONED), at)
    if kind.startswith("grace_"):
        seat = int(kind[-1])
        reason = Termination.NO_SHOW if state.phase is Phase.WAITING else Termination.FORFEIT
        winner = None if state.options.practice else 1 - seat
        return _finish(state, GameOver(winner, reason), at)
    if state.phase is Phase.LAG:
        missing = [s for s in (0, 1) if state.lag_strokes[s] is None]
        if len(missing) == 2:
            return _finish(state, GameOver(None, Termination.ABANDONED), at)
        loser = missing[0]
        # R-LAG-6: no lag stroke before the clock runs out loses the lag.
        new = replace(
            state,
            phase=Phase.BREAK_CHOICE,
            lag_winner=1 - loser,
            lag_reason="no_lag_stroke",
            lag_strokes=(None, None),
            deadline_ms=at + _clock_ms(state),
        )
        text = f"Seat {loser} sent no lag stroke in time and loses the lag (R-LAG-6)."
        return new, Verdict(
            lag_winner=1 - loser,
            lag_reason="no_lag_stroke",
            calls=(Call("lag_winner", text, "R-LAG-6"),),
        )
    if state.phase is Phase.BREAK_CHOICE:
        # Decision (docs/rules.md): a lag winner who does not choose in time breaks.
        assert state.lag_winner is not None
        return _break_chosen(state, state.lag_winner, at)
    if state.phase is Phase.TIMEOUT:
        return _end_timeout(state, at)
    # R-CLOCK-1 → R-FOUL-CLOCK: the inning ends; the opponent plays the balls as they lie.
    assert state.shooter is not None
    shooter = state.shooter
    rec = state.current
    innings = _bump(rec.innings, shooter) if state.visit_strokes == 0 else rec.innings
    new = replace(
        state,
        sets=(*state.sets[:-1], replace(rec, innings=innings)),
        break_shot=False,
        deadline_ms=at + _clock_ms(state),
        paused_ms=None,
    )
    new, calls, over = _end_inning(new, shooter, at)
    foul = Foul("R-FOUL-CLOCK", "clock", f"Foul: seat {shooter}'s shot clock ran out (R-CLOCK-1).")
    all_calls = [Call("foul", foul.text, foul.rule_id), *calls]
    if new.phase is Phase.PLAY:
        all_calls.extend(_turn_calls(new))
    return new, Verdict(
        foul=foul,
        calls=tuple(all_calls),
        set_over=over,
        next_shooter=new.shooter if new.phase is not Phase.OVER else None,
        game_over=new.result if new.phase is Phase.OVER else None,
    )


def _settle(state: MatchState, now: int) -> MatchState:
    """Pause the running clock while the seat it waits for is disconnected; restart it (with
    the time that was left) when that seat is back."""
    if state.options.practice or state.phase not in (Phase.LAG, Phase.BREAK_CHOICE, Phase.PLAY):
        return state
    if state.phase is Phase.LAG:
        awaited = [s for s in (0, 1) if state.lag_strokes[s] is None]
    elif state.phase is Phase.BREAK_CHOICE:
        awaited = [state.lag_winner] if state.lag_winner is not None else []
    else:
        awaited = [state.shooter] if state.shooter is not None else []
    away = any(not state.connected[s] for s in awaited)
    # The clock counts only from the moment the balls are at rest (R-CLOCK-1).
    start = max(now, state.resting_at_ms)
    if away and state.deadline_ms is not None:
        return replace(state, paused_ms=max(0, state.deadline_ms - start), deadline_ms=None)
    if not away and state.deadline_ms is None and state.paused_ms is not None:
        return replace(state, deadline_ms=start + state.paused_ms, paused_ms=None)
    return state


# Calls and small helpers ----------------------------------------------------------------------


def _turn_calls(state: MatchState) -> tuple[Call, ...]:
    """What the referee says as a turn starts: R-CALL-3 frozen, R-CALL-4 zone states."""
    if state.phase is not Phase.PLAY or state.shooter is None:
        return ()
    opts = state.options
    table = opts.table_spec
    cue = cue_ball(state)
    calls: list[Call] = []
    contact = contact_of(state.balls, cue, table)
    if contact:
        touched = [*contact.balls, *(f"{c} cushion" for c in contact.cushions)]
        calls.append(
            Call(
                "frozen", f"Frozen: the {cue} touches the {' and the '.join(touched)}.", "R-CALL-3"
            )
        )
    zones = zones_for(opts.discipline, table, opts.corner_zone_leg)
    if zones:
        a, b = (state.ball(o) for o in BALLS if o != cue)
        counts = dict(state.zone_counts)
        for zone in shared_zones(zones, a, b):
            armed = zone_rule_is_strict(opts.discipline) or counts.get(zone.name, 0) >= 1
            if armed:
                calls.append(
                    Call(
                        "zone_armed",
                        f"In, second ({zone.name}): the next carom must drive a ball out.",
                        "R-ZONE-CALL",
                    )
                )
            else:
                calls.append(Call("zone_in", f"In ({zone.name}).", "R-ZONE-CALL"))
            if zone.on_line(a) or zone.on_line(b):
                calls.append(
                    Call(
                        "zone_line",
                        f"On the line of {zone.name}: judged inside (R-ZONE-LINE).",
                        "R-ZONE-CALL",
                    )
                )
    return tuple(calls)


def _need_phase(state: MatchState, phase: Phase) -> None:
    if state.phase is not phase:
        raise IllegalAction(
            "wrong_phase", f"Not now: the match is in phase {state.phase.value}, not {phase.value}."
        )


def _ready_to_shoot(state: MatchState, seat: Seat, now: int) -> None:
    if state.phase is Phase.TIMEOUT:
        raise IllegalAction("wrong_phase", "A time-out is running; resume first.")
    _need_phase(state, Phase.PLAY)
    if seat != state.shooter:
        raise IllegalAction("not_your_turn", "It isn't your turn.")
    if now < state.resting_at_ms:
        # R-PLAY-4: a stroke only starts with all balls at rest.
        raise IllegalAction("balls_moving", "The balls are still moving.")
    if state.deadline_ms is not None and now >= state.deadline_ms:
        raise IllegalAction("clock_expired", "Your shot clock has run out.")


def _matching_start(state: MatchState, result: ShotResult) -> Balls:
    """The result must start from the state's balls (or, from the break position, with the cue
    ball on either starting spot, R-BREAK-1)."""
    options = [state.balls]
    if state.spot_choice:
        options.append(as_tuple(stroke_start(state, "left")))
    for balls in options:
        if _same(result.initial, balls):
            return balls
    raise ValueError("the result was not simulated from the state's ball positions")


def _check_start(result: ShotResult, balls: Balls) -> None:
    if not _same(result.initial, balls):
        raise ValueError("the result was not simulated from the expected ball positions")


def _same(initial: object, balls: Balls) -> bool:
    try:
        return all(
            math.dist(initial[b], p) <= POSITION_TOLERANCE  # type: ignore[index]
            for b, p in zip(BALLS, balls, strict=True)
        )
    except (KeyError, TypeError):
        return False


def _clock_ms(state: MatchState) -> int:
    return state.options.shot_clock_s * 1000


def _duration_ms(result: ShotResult) -> int:
    return math.ceil(result.duration * 1000)


def _bump(pair: tuple[int, int], seat: Seat) -> tuple[int, int]:
    return _put(pair, seat, pair[seat] + 1)


def _put(pair: tuple[int, int], seat: Seat, value: int) -> tuple[int, int]:
    return (value, pair[1]) if seat == 0 else (pair[0], value)
