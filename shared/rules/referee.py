"""The referee: ``apply(state, action, now_ms) -> (state, verdict)``, pure and total.

Theory of operation (see ``state.py`` for the phases): every action is checked against the phase
and the seat first; a refused action raises ``IllegalAction`` before anything is built, so the
caller's state is untouched. Time is passed in, never read. A deadline (shot clock, lag clock,
break choice, time-out end, reconnection grace) takes effect only when the server sends ``Tick``;
each expired deadline is applied at its own time, so a late tick gives the same result as a
punctual one.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import replace

from shared.physics.types import ShotResult, Stroke
from shared.rules import lineup
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
from shared.rules.clock import connection, resume, settle, tick, timeout
from shared.rules.game import (
    BREAK_SETUP,
    after_point,
    after_stroke,
    begin_set,
    break_chosen,
    bump,
    check_partner,
    check_slot,
    check_stroke,
    clock_ms,
    count_player,
    cue_ball,
    duration_ms,
    end_inning,
    finish,
    fresh_record,
    need_phase,
    put,
    respot_frozen_free_game,
    team_rules,
    turn_calls,
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
from shared.rules.scoring import StrokeJudgment, judge_stroke, jumped_balls
from shared.rules.state import MatchState, Phase
from shared.rules.verdict import (
    Call,
    GameOver,
    IllegalAction,
    Seat,
    Termination,
    Verdict,
    merge_rules,
    named,
)
from shared.rules.zones import zones_for
from shared.table import BALLS, BallName, Point

__all__ = [
    "apply",
    "cue_ball",
    "judge",
    "lag_balls",
    "lag_strokes",
    "new_match",
    "next_deadline",
    "outcome",
    "stroke_start",
]

POSITION_TOLERANCE = 1e-6  # m: a result must start from the state's positions
# R-LAG-6 (amended): after this many repeats of the lag a coin toss decides it.
LAG_REPEAT_LIMIT = 3


def coin_toss(seed: str, repeats: int) -> Seat:
    """The seat that wins the lag's coin toss: a pure function of the match and the repeat."""
    digest = hashlib.sha256(f"{seed}:lag:{repeats}".encode()).digest()
    return digest[0] & 1


# Public helpers ------------------------------------------------------------------------------


def new_match(options: MatchOptions, now_ms: int) -> MatchState:
    """A match waiting for ``Start``, balls in the lag position (R-LAG-1)."""
    n = options.timeouts_per_game
    players = options.players  # R-TEAM-1: both line-ups
    return MatchState(
        options=options,
        phase=Phase.WAITING,
        balls=lag_position(options.table_spec),
        sets=(fresh_record(options, 0, (n, n)),),
        resting_at_ms=now_ms,
        connected=(True,) * players,
        grace_deadline=(None,) * players,
    )


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
    """Apply one action at server time ``now_ms`` (ms since the epoch).

    The verdict's ``rules`` name every RULES.md rule the transition applied (``named``); a
    refusal names its rule in ``IllegalAction.rule_id``."""
    new, verdict = _transition(state, action, now_ms)
    if verdict.next_shooter is not None:
        # R-TEAM-1: the partner who strikes for the side to play (0 in singles).
        verdict = replace(verdict, next_slot=new.due_slot(verdict.next_shooter))
    return new, named(verdict)


def _transition(state: MatchState, action: Action, now_ms: int) -> tuple[MatchState, Verdict]:
    if isinstance(now_ms, bool) or not isinstance(now_ms, int):
        raise TypeError(f"now_ms must be an int of milliseconds, got {now_ms!r}")
    if isinstance(action, Tick):
        return tick(state, now_ms)
    if isinstance(action, Disconnected | Reconnected):
        return connection(state, action, now_ms)
    if isinstance(action, Rematch):
        return _rematch(state, action, now_ms)
    if state.phase is Phase.OVER:
        raise IllegalAction("wrong_phase", "The match is over.")
    if isinstance(action, Concede):
        # A player concedes for the side (R-END-5; R-TEAM-1: either partner).
        check_slot(state, action.slot)
        winner = None if state.options.practice else lineup.other(action.seat)
        new, verdict = finish(state, GameOver(winner, Termination.CONCEDE), now_ms)
        return new, replace(verdict, rules=(*verdict.rules, *team_rules(state.options, "R-TEAM-1")))
    handlers = {
        Start: _start,
        LagStroke: _lag_stroke,
        LagResult: _lag_result,
        ChooseBreak: _choose_break,
        PlayStroke: _play_stroke,
        Respot: _respot,
        TimeOut: timeout,
        Resume: resume,
        Place: _place,
    }
    handler = handlers.get(type(action))
    if handler is None:
        raise TypeError(f"not a referee action: {action!r}")
    new, verdict = handler(state, action, now_ms)  # type: ignore[operator]
    return settle(new, now_ms), verdict


# Start, lag and break choice -----------------------------------------------------------------


def _start(state: MatchState, action: Start, now: int) -> tuple[MatchState, Verdict]:
    need_phase(state, Phase.WAITING)
    if state.options.practice:
        new = begin_set(replace(state, white_seat=0), breaker=0, now=now, first=True)
        return new, Verdict(next_shooter=0, calls=turn_calls(new), rules=BREAK_SETUP)
    new = replace(
        state,
        phase=Phase.LAG,
        balls=lag_position(state.options.table_spec),
        deadline_ms=now + clock_ms(state),
        resting_at_ms=now,
    )
    call = Call(
        "lag",
        "Lag for the break: play your ball onto the top cushion and back. The ball that stops "
        "nearer the bottom cushion wins; a ball that never reaches the top cushion loses.",
        "R-LAG-2",
    )
    # R-LAG-1: the lag position, on the starting line and the top spot (R-SPOT-1) of the table
    # played (R-TABLE-1); R-CLOCK-2: the lag is on the shot clock.
    return new, Verdict(calls=(call,), rules=("R-LAG-1", "R-SPOT-1", "R-TABLE-1", "R-CLOCK-2"))


def _lag_stroke(state: MatchState, action: LagStroke, now: int) -> tuple[MatchState, Verdict]:
    need_phase(state, Phase.LAG)
    # R-TEAM-1: each side's lag is played by the first player of its line-up.
    check_partner(state, action.seat, action.slot, "lag stroke")
    if state.lag_strokes[action.seat] is not None:
        raise IllegalAction("already_played", "Your lag stroke is already in.", "R-LAG-3")
    strokes = list(state.lag_strokes)
    strokes[action.seat] = action.stroke
    new = replace(state, lag_strokes=(strokes[0], strokes[1]))
    if None not in strokes:
        # R-LAG-3: both players have struck; the lag clock stops while the server simulates the
        # two strokes together. A clock left running could expire on a lag nobody can lose.
        new = replace(new, deadline_ms=None, paused_ms=None)
    # R-LAG-3: the stroke stays hidden in the state until both are in.
    return new, Verdict(rules=("R-LAG-3", *team_rules(state.options, "R-TEAM-1")))


def _lag_result(state: MatchState, action: LagResult, now: int) -> tuple[MatchState, Verdict]:
    need_phase(state, Phase.LAG)
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
    # R-LAG-3: both strokes simulated in one run; the rule that decided the lag.
    rules: tuple[str, ...] = ("R-LAG-3", judged.rule)
    repeats = state.lag_repeats + (1 if winner is None else 0)
    rest = now + duration_ms(result)
    if winner is None and repeats >= LAG_REPEAT_LIMIT:
        # R-LAG-6 (amended): online no repeat is one player's doing, so nobody loses the lag for
        # repeats; an endless run of them is cut by a coin toss, seeded from the match so that
        # the same match always tosses the same way, and announced as such.
        winner, reason = coin_toss(action.seed, repeats), "coin_toss"
        rules += ("R-LAG-6",)
        text = (
            f"{text} The lag was repeated {repeats} times: a coin toss decides. "
            f"Seat {winner} wins the toss (R-LAG-6)."
        )
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
            deadline_ms=rest + clock_ms(state),
        )
        # The balls go back to the lag position (R-LAG-1) and the lag clock starts again
        # (R-CLOCK-2).
        return new, Verdict(
            lag_repeat=True,
            lag_reason=reason,
            calls=(Call("lag_repeat", text, "R-LAG-4"),),
            rules=(*rules, "R-LAG-1", "R-CLOCK-2"),
        )
    new = replace(
        state,
        phase=Phase.BREAK_CHOICE,
        balls=balls,
        lag_repeats=repeats,
        lag_winner=winner,
        lag_reason=reason,
        resting_at_ms=rest,
        deadline_ms=rest + clock_ms(state),
    )
    rule = "R-LAG-6" if reason == "coin_toss" else "R-LAG-7"
    call = Call("lag_winner", text + " The winner chooses who breaks.", rule)
    # R-CLOCK-2: the break choice is on the shot clock.
    return new, Verdict(
        lag_winner=winner, lag_reason=reason, calls=(call,), rules=(*rules, "R-CLOCK-2")
    )


def _choose_break(state: MatchState, action: ChooseBreak, now: int) -> tuple[MatchState, Verdict]:
    need_phase(state, Phase.BREAK_CHOICE)
    check_slot(state, action.slot)  # R-TEAM-1: either partner of the winning side chooses
    if action.seat != state.lag_winner:
        raise IllegalAction(
            "not_your_turn", "Only the winner of the lag chooses who breaks.", "R-LAG-7"
        )
    return break_chosen(state, action.breaker, max(now, state.resting_at_ms))


# Strokes --------------------------------------------------------------------------------------


def judge(
    state: MatchState,
    stroke: Stroke,
    result: ShotResult,
    balls: Balls | None = None,
) -> StrokeJudgment:
    """Points, foul and calls for the shooter's stroke from ``state`` (from ``balls`` instead of
    the state's, e.g. a chosen starting spot), as :func:`apply` decides them for ``PlayStroke``,
    without moving the match on. Every rule input (discipline, table, corner-zone leg, break,
    zone counts) comes from the state, so a bot that judges its candidate strokes with this
    function agrees with the server on every table."""
    opts = state.options
    table = opts.table_spec
    start = state.balls if balls is None else balls
    return judge_stroke(
        discipline=opts.discipline,
        table=table,
        zones=zones_for(opts.discipline, table, opts.zone_leg),
        cue=cue_ball(state),
        balls=start,
        stroke=stroke,
        result=result,
        break_shot=state.break_shot,
        zone_counts=dict(state.zone_counts),
    )


def _play_stroke(state: MatchState, action: PlayStroke, now: int) -> tuple[MatchState, Verdict]:
    check_stroke(state, action.seat, now, action.slot)
    result = action.result
    cue = cue_ball(state)
    if set(result.strokes) != {cue} or result.strokes[cue] != action.stroke:
        raise ValueError(f"the result must be the simulation of {cue} struck with this stroke")
    start = _matching_start(state, result)
    opts = state.options
    table = opts.table_spec
    judged = judge(state, action.stroke, result, start)
    shooter = action.seat
    striker = lineup.player(shooter, action.slot)  # R-TEAM-1: the partner who struck
    counted, team = count_player(state, shooter)  # R-TEAM-5: the striker's own inning
    rec = counted.current
    innings = bump(rec.innings, shooter) if state.visit_strokes == 0 else rec.innings
    rest = now + duration_ms(result)
    scored = judged.points > 0 and judged.foul is None
    next_shooter = shooter if scored or opts.practice else 1 - shooter
    # Balls where they stopped; jumped balls re-spotted (R-RESPOT-3C, R-RESPOT-OTHER).
    gone = jumped_balls(result)
    final = {b: None if b in gone else result.final.get(b) for b in BALLS}
    respots: dict[BallName, Point] = {}
    spot_choice = False
    # R-PLAY-3: the shooter's own ball was struck; R-PLAY-2: the inning and the run are kept.
    rules = ["R-PLAY-3", "R-PLAY-2", *judged.rules]
    if state.spot_choice:
        rules.append("R-BREAK-1")  # played from a starting spot of the shooter's choice
    if not opts.practice:
        rules.append("R-CLOCK-1")  # the next shot clock runs from the balls' rest
    if any(p is None for p in final.values()):
        next_ball = state.ball_of(next_shooter)
        if opts.discipline is Discipline.THREE_CUSHION:
            respots = respot_3c(final, table, next_ball)
            rules += ["R-RESPOT-3C", "R-RESPOT-GEOM", "R-SPOT-1"]
        else:
            respots = dict(zip(BALLS, break_position(table, next_ball), strict=True))
            spot_choice = True
            rules += ["R-RESPOT-OTHER", *BREAK_SETUP]
    placed = {b: respots.get(b, final[b]) for b in BALLS}
    balls = as_tuple({b: p for b, p in placed.items() if p is not None})
    new = replace(
        state,
        balls=balls,
        resting_at_ms=rest,
        deadline_ms=None if opts.practice else rest + clock_ms(state),
        paused_ms=None,
        break_shot=False,
        spot_choice=spot_choice,
        strokes_played=state.strokes_played + 1,
        struck=counted.struck,
    )
    # R-TEAM-3: in Scotch doubles the side's other partner plays its next stroke.
    new, order = after_stroke(new, shooter)
    calls = list(judged.calls)
    if scored:
        points = bump(rec.points, shooter)
        run = state.current_run + 1
        high = max(rec.high_run[shooter], run)
        record = replace(
            rec,
            points=points,
            innings=innings,
            high_run=put(rec.high_run, shooter, high),
            player_points=lineup.bump(rec.player_points, striker),
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
        new, end_calls, over, end_rules = after_point(new, shooter, rest)
    else:
        record = replace(rec, innings=innings)
        new = replace(new, sets=(*state.sets[:-1], record))
        new, end_calls, over, end_rules = end_inning(new, shooter, rest)
    calls.extend(end_calls)
    new, frozen_calls, frozen_rules = respot_frozen_free_game(new)
    calls.extend(frozen_calls)
    if new.phase is Phase.PLAY:
        calls.extend(turn_calls(new, starting=True))
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
        rules=merge_rules(rules, team, order, end_rules, frozen_rules),
    )
    return new, verdict


# Frozen balls, practice, rematch --------------------------------------------------------------


def _respot(state: MatchState, action: Respot, now: int) -> tuple[MatchState, Verdict]:
    check_stroke(state, action.seat, now, action.slot)
    table = state.options.table_spec
    cue = cue_ball(state)
    contact = contact_of(state.balls, cue, table)
    if not contact.balls:
        raise IllegalAction(
            "not_frozen",
            "Your ball touches no other ball; there is nothing to re-spot.",
            "R-FROZEN-1",
        )
    # R-FROZEN-1a, touching by R-FROZEN-5 (R-BALL-1); R-CLOCK-2: the clock starts again.
    rules: tuple[str, ...] = ("R-FROZEN-1", "R-FROZEN-5", "R-BALL-1", "R-CLOCK-2")
    if state.options.discipline is Discipline.THREE_CUSHION:
        # R-FROZEN-4: only the touching balls, as for jumped balls (R-RESPOT-3C).
        respots = respot_3c(state.positions, table, cue, which=(cue, *contact.balls))
        spot_choice = False
        rules += ("R-RESPOT-3C", "R-RESPOT-GEOM", "R-SPOT-1")
    else:
        respots = dict(zip(BALLS, break_position(table, cue), strict=True))
        spot_choice = True
        rules += BREAK_SETUP
    balls = as_tuple({**state.positions, **respots})
    new = replace(
        state,
        balls=balls,
        spot_choice=spot_choice,
        zone_counts=(),
        deadline_ms=now + clock_ms(state) if not state.options.practice else None,
        paused_ms=None,
    )
    call = Call("respot", "The balls are re-spotted (R-FROZEN-1).", "R-FROZEN-4")
    return new, Verdict(
        respots=respots,
        next_shooter=state.shooter,
        calls=(call, *turn_calls(new)),
        rules=rules,
    )


def _place(state: MatchState, action: Place, now: int) -> tuple[MatchState, Verdict]:
    if not state.options.practice:
        raise IllegalAction("not_practice", "Balls can only be placed in a practice room.")
    need_phase(state, Phase.PLAY)
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
                raise IllegalAction("bad_field", f"The {a} and the {b} would overlap.", "R-BALL-1")
    new = replace(
        state, balls=as_tuple(positions), spot_choice=False, break_shot=False, zone_counts=()
    )
    # R-BALL-1: the balls' size decided that none overlap.
    return new, Verdict(next_shooter=state.shooter, calls=turn_calls(new), rules=("R-BALL-1",))


def _rematch(state: MatchState, action: Rematch, now: int) -> tuple[MatchState, Verdict]:
    need_phase(state, Phase.OVER)
    check_slot(state, action.slot)  # a side asks, by either partner (R-TEAM-1)
    votes = list(state.rematch)
    votes[action.seat] = True
    if not all(votes) and not state.options.practice:
        return replace(state, rematch=(votes[0], votes[1])), Verdict()
    # A fresh match with the other breaker (no lag): the seats swap colours.
    # Practice has one player, always seat 0; a match alternates the breaker.
    solo = state.options.practice or state.white_seat is None
    breaker = 0 if solo else lineup.other(state.sets[0].breaker)
    # A seat that is away when the rematch starts gets a fresh reconnection grace (R-END-5):
    # every state must either wait for a connected seat or have a deadline, never neither.
    grace = tuple(None if up else now + state.options.grace_s * 1000 for up in state.connected)
    fresh = replace(
        new_match(state.options, now),
        white_seat=breaker,
        connected=state.connected,
        grace_deadline=grace,
    )
    new = settle(begin_set(fresh, breaker=breaker, now=now, first=True), now)
    call = Call("rematch", f"Rematch: seat {breaker} breaks with the white.", "R-LAG-7")
    # R-END-5: a seat away gets a fresh grace.
    rules = BREAK_SETUP if all(state.connected) else (*BREAK_SETUP, "R-END-5")
    return new, Verdict(
        next_shooter=breaker, calls=(call, *turn_calls(new, starting=True)), rules=rules
    )


def _matching_start(state: MatchState, result: ShotResult) -> Balls:
    """The result must start from the state's balls (or, from the break position, with the cue
    ball on either starting spot, R-BREAK-1)."""
    options = [state.balls]
    if state.spot_choice:
        options.append(as_tuple(stroke_start(state, "left")))
    _check_final(result)
    for balls in options:
        if _same(result.initial, balls):
            return balls
    raise ValueError("the result was not simulated from the state's ball positions")


def _check_start(result: ShotResult, balls: Balls) -> None:
    if not _same(result.initial, balls):
        raise ValueError("the result was not simulated from the expected ball positions")
    _check_final(result)


def _check_final(result: ShotResult) -> None:
    """A result names every ball at rest (or None: off the table); anything else is a bug."""
    if set(result.final) != set(BALLS):
        raise ValueError(f"the result's final state must name {BALLS}, got {sorted(result.final)}")


def _same(initial: object, balls: Balls) -> bool:
    try:
        return all(
            math.dist(initial[b], p) <= POSITION_TOLERANCE  # type: ignore[index]
            for b, p in zip(BALLS, balls, strict=True)
        )
    except (KeyError, TypeError):
        return False
