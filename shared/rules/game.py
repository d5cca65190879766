"""The course of a game: sets, innings, the end of a game, and what the referee announces at
the start of a turn (RULES.md §3, §4, §10). Shared by ``referee.py`` and ``clock.py``.
"""

from __future__ import annotations

import math
from dataclasses import replace

from shared.physics.types import ShotResult
from shared.rules import lineup
from shared.rules.options import Discipline, MatchOptions, TeamMode
from shared.rules.placement import break_position, contact_of
from shared.rules.scoring import zone_rule_is_strict
from shared.rules.state import MatchState, Phase, SetRecord
from shared.rules.verdict import (
    Call,
    GameOver,
    IllegalAction,
    Seat,
    Termination,
    Verdict,
    merge_rules,
)
from shared.rules.zones import shared_zones, zones_for
from shared.table import BALLS, BallName

# The rules a game's start from the break position applies: the break position (R-BREAK-1) is
# built from the spots (R-SPOT-1) of the table played (R-TABLE-1).
BREAK_SETUP: tuple[str, ...] = ("R-BREAK-1", "R-SPOT-1", "R-TABLE-1")

# R-END-1…5: the rule that ends a match each way. Abandoned (both seats gone) is R-END-5's
# forfeit for both; an abandoned lag adds R-LAG-6 where it is decided (``clock.expire``).
TERMINATION_RULE: dict[Termination, str] = {
    Termination.DISTANCE: "R-END-1",
    Termination.EQUALIZED: "R-END-2",
    Termination.INNINGS_LIMIT: "R-END-3",
    Termination.CONCEDE: "R-END-5",
    Termination.FORFEIT: "R-END-5",
    Termination.NO_SHOW: "R-END-5",
    Termination.ABANDONED: "R-END-5",
}


def cue_ball(state: MatchState) -> BallName:
    """R-PLAY-3: the ball the shooter strikes (the breaker's is white)."""
    return state.ball_of(state.shooter if state.shooter is not None else 0)


def break_chosen(state: MatchState, breaker: Seat, now: int) -> tuple[MatchState, Verdict]:
    # R-LAG-7: the breaker plays the white for the whole match.
    new = begin_set(replace(state, white_seat=breaker), breaker=breaker, now=now, first=True)
    call = Call("break", f"Seat {breaker} breaks with the white.", "R-LAG-7")
    # R-CLOCK-1: the breaker's shot clock starts; R-TEAM-1: the breaking side's first player
    # breaks.
    return new, Verdict(
        next_shooter=breaker,
        calls=(call, *turn_calls(new, starting=True)),
        rules=(*BREAK_SETUP, "R-CLOCK-1", *team_rules(state.options, "R-TEAM-1")),
    )


def team_rules(options: MatchOptions, *ids: str) -> tuple[str, ...]:
    """``ids`` in a team match (doubles or Scotch doubles), nothing in singles: the R-TEAM
    rules apply only where a side has two players."""
    return ids if options.teams else ()


def fresh_record(options: MatchOptions, breaker: Seat, timeouts: tuple[int, int]) -> SetRecord:
    """A game not yet played: every side's and every player's figures at zero."""
    zeros = (0,) * options.players
    return SetRecord(
        breaker=breaker, timeouts_left=timeouts, player_points=zeros, player_innings=zeros
    )


def begin_set(state: MatchState, breaker: Seat, now: int, first: bool) -> MatchState:
    """R-BREAK-1 / R-END-4: a game starts from the break position with ``breaker`` to shoot."""
    record = fresh_record(state.options, breaker, timeouts_for_set(state, first))
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
        # R-TEAM-1: each game starts with both line-ups in order: the breaking side's first
        # player breaks, the other side's first player plays its first inning.
        slot_up=(0, 0),
        struck=(),
        break_shot=not state.options.practice,
        spot_choice=True,
        equalizing=False,
        zone_counts=(),
        resting_at_ms=max(now, state.resting_at_ms),
        deadline_ms=None
        if state.options.practice
        else max(now, state.resting_at_ms) + clock_ms(state),
        paused_ms=None,
    )


def timeouts_for_set(state: MatchState, first: bool) -> tuple[int, int]:
    """R-TIMEOUT-1: time-outs are per match, not per set. A later set carries over what is
    left; the deciding set of a best of 3 or 5 (the last one that can be played) gives each
    player one more, whether or not they used theirs (RU App. 1 §12)."""
    n = state.options.timeouts_per_game
    if first:
        return (n, n)
    left = state.current.timeouts_left
    number = len(state.sets) + 1  # the set about to start
    sets = state.options.sets
    if sets > 1 and number == sets:
        return (left[0] + 1, left[1] + 1)
    return left


# What a step in the course of a game returns: the new state, the calls, the set that ended
# (set play) and the rules applied.
Step = tuple[MatchState, list[Call], GameOver | None, tuple[str, ...]]


def after_point(state: MatchState, shooter: Seat, now: int) -> Step:
    """R-END-1 / R-END-2: did this point end the game?"""
    opts = state.options
    rec = state.current
    if opts.practice or rec.points[shooter] < opts.target:
        return state, [], None, ()
    if state.equalizing:
        return end_set(state, GameOver(None, Termination.EQUALIZED), now)
    if shooter == rec.breaker and opts.equalizing_applies:
        # R-END-2: the other player gets one more inning from the break position.
        other = lineup.other(shooter)
        new = replace(
            state,
            shooter=other,
            balls=break_position(opts.table_spec, state.ball_of(other)),
            current_run=0,
            visit_strokes=0,
            struck=(),
            # R-TEAM-2: the breaking side's inning is over (its partner would be next); the
            # equalizing inning is played by the other side's partner whose turn it is.
            slot_up=next_partner(state, shooter),
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
        return new, [call], None, ("R-END-1", "R-END-2", *BREAK_SETUP, *order_rules(state))
    return end_set(state, GameOver(shooter, Termination.DISTANCE), now)


def end_inning(state: MatchState, shooter: Seat, now: int) -> Step:
    """R-PLAY-2: the inning is over; then R-END-2's equalizing inning and R-END-3's limit."""
    opts = state.options
    rec = state.current
    new = replace(
        state,
        shooter=shooter if opts.practice else lineup.other(shooter),
        current_run=0,
        visit_strokes=0,
        zone_counts=(),
        struck=(),
        slot_up=next_partner(state, shooter),
    )
    if opts.practice:
        return new, [], None, ()
    order = order_rules(state)
    if state.equalizing:  # the equalizing inning fell short: the breaker wins
        new, calls, over, rules = end_set(new, GameOver(rec.breaker, Termination.DISTANCE), now)
        return new, calls, over, ("R-END-2", *rules, *order)
    limit = opts.innings_limit
    if limit is not None and min(rec.innings) >= limit:
        a, b = rec.points
        winner = None if a == b else (0 if a > b else 1)
        new, calls, over, rules = end_set(new, GameOver(winner, Termination.INNINGS_LIMIT), now)
        return new, calls, over, (*rules, *order)
    return new, [], None, order


def next_partner(state: MatchState, side: Seat) -> tuple[int, int]:
    """R-TEAM-2: in doubles the side's partner changes when its inning ends (Scotch doubles
    changes partners at every stroke instead, ``after_stroke``)."""
    if state.options.team_mode is TeamMode.DOUBLES:
        return lineup.flip(state.slot_up, side, state.size)
    return state.slot_up


def order_rules(state: MatchState) -> tuple[str, ...]:
    """The rule that chose the partner for the side's next inning (doubles only)."""
    return ("R-TEAM-2",) if state.options.team_mode is TeamMode.DOUBLES else ()


def after_stroke(state: MatchState, side: Seat) -> tuple[MatchState, tuple[str, ...]]:
    """R-TEAM-3: in Scotch doubles the partners alternate the side's strokes, whether the
    stroke scored or not (a shot clock foul is the partner's stroke too)."""
    if state.options.team_mode is not TeamMode.SCOTCH:
        return state, ()
    return replace(state, slot_up=lineup.flip(state.slot_up, side, state.size)), ("R-TEAM-3",)


def count_player(state: MatchState, side: Seat) -> tuple[MatchState, tuple[str, ...]]:
    """R-TEAM-5: the striking player's own inning, counted once per inning of the side in
    which the player struck (or let the clock run out). In singles it equals the side's."""
    rec = state.current
    who = lineup.player(side, state.due_slot(side))
    if who in state.struck:
        return state, ()
    record = replace(rec, player_innings=lineup.bump(rec.player_innings, who))
    new = replace(
        state, sets=(*state.sets[:-1], record), struck=tuple(sorted((*state.struck, who)))
    )
    return new, team_rules(state.options, "R-TEAM-5")


def end_set(state: MatchState, result: GameOver, now: int) -> Step:
    """A game ended; in set play the match goes on until a player has won enough sets."""
    opts = state.options
    sets = (*state.sets[:-1], replace(state.current, result=result))
    state = replace(state, sets=sets)
    won = sets_won(state)
    if opts.sets == 1 or max(won) >= opts.sets_to_win or len(sets) >= opts.sets:
        if opts.sets == 1:
            final = result
        else:
            winner = None if won[0] == won[1] else (0 if won[0] > won[1] else 1)
            final = GameOver(winner, result.reason if winner is None else Termination.DISTANCE)
        new, verdict = finish(state, final, now)
        # The set's own ending rule, and in set play R-END-4's count of sets.
        rules = merge_rules(
            (TERMINATION_RULE[result.reason],),
            ("R-END-4",) if opts.sets > 1 else (),
            verdict.rules,
        )
        return new, list(verdict.calls), None, rules
    # R-END-4: sets alternate the break; R-TIMEOUT-1: the time-outs left carry over (one more
    # in the deciding set).
    new = begin_set(state, breaker=lineup.other(state.current.breaker), now=now, first=False)
    text = result_text(result) + f" Set {len(sets) + 1}: seat {new.shooter} breaks."
    rules = (TERMINATION_RULE[result.reason], "R-END-4", "R-TIMEOUT-1", *BREAK_SETUP)
    return new, [Call("set_over", text, "R-END-4")], result, rules


def sets_won(state: MatchState) -> tuple[int, int]:
    won = [0, 0]
    for rec in state.sets:
        if rec.result is not None and rec.result.winner is not None:
            won[rec.result.winner] += 1
    return (won[0], won[1])


def finish(state: MatchState, result: GameOver, now: int) -> tuple[MatchState, Verdict]:
    rec = state.current
    if rec.result is None and state.phase is not Phase.WAITING:
        state = replace(state, sets=(*state.sets[:-1], replace(rec, result=result)))
    new = replace(
        state,
        phase=Phase.OVER,
        result=result,
        deadline_ms=None,
        paused_ms=None,
        grace_deadline=(None,) * len(state.grace_deadline),
        rematch=(False, False),
    )
    # The call keeps R-END-1 on the wire for every ending; the verdict names the deciding rule.
    call = Call("game_over", result_text(result), "R-END-1")
    return new, Verdict(game_over=result, calls=(call,), rules=(TERMINATION_RULE[result.reason],))


def result_text(result: GameOver) -> str:
    if result.winner is None:
        return f"Draw ({result.reason.value})."
    return f"Seat {result.winner} wins ({result.reason.value})."


def turn_calls(state: MatchState, starting: bool = False) -> tuple[Call, ...]:
    """What the referee says before a stroke: R-CALL-2 "N to go" when a turn starts (``starting``
    and no stroke of the inning played yet), R-CALL-3 frozen, R-CALL-4 zone states."""
    if state.phase is not Phase.PLAY or state.shooter is None:
        return ()
    opts = state.options
    table = opts.table_spec
    cue = cue_ball(state)
    calls: list[Call] = []
    if starting and state.visit_strokes == 0 and not opts.practice:
        # R-CALL-2: the referee warns the player *when he plays* needing that many (PT referee
        # Art. 11), not only after a point of a run.
        to_go = opts.target - state.current.points[state.shooter]
        if 0 < to_go <= opts.discipline.countdown_from:
            calls.append(Call("to_go", f"{to_go} to go.", "R-CALL-2"))
    contact = contact_of(state.balls, cue, table)
    if contact:
        touched = [*contact.balls, *(f"{c} cushion" for c in contact.cushions)]
        calls.append(
            Call(
                "frozen", f"Frozen: the {cue} touches the {' and the '.join(touched)}.", "R-CALL-3"
            )
        )
    zones = zones_for(opts.discipline, table, opts.zone_leg)
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


def respot_frozen_free_game(
    state: MatchState,
) -> tuple[MatchState, tuple[Call, ...], tuple[str, ...]]:
    """R-FROZEN-1 (PT Art. 15.1): in the free game, a cue ball touching a ball at the start of a
    stroke means all three balls go to the break position, done by the referee before the
    stroke (no choice), with the shooter's ball on a starting spot (R-FROZEN-4)."""
    opts = state.options
    if (
        opts.discipline is not Discipline.STRAIGHT_RAIL
        or state.phase is not Phase.PLAY
        or state.shooter is None
    ):
        return state, (), ()
    cue = cue_ball(state)
    contact = contact_of(state.balls, cue, opts.table_spec)
    if not contact.balls:
        return state, (), ()
    touched = " and the ".join(contact.balls)
    new = replace(
        state,
        balls=break_position(opts.table_spec, cue),
        spot_choice=True,
        zone_counts=(),
    )
    text = f"Frozen: the {cue} touches the {touched}. The balls go to the break position."
    # Touching by R-FROZEN-5 (ball size R-BALL-1); the break position is R-FROZEN-4's re-spot.
    rules = ("R-FROZEN-1", "R-FROZEN-5", "R-BALL-1", "R-FROZEN-4", *BREAK_SETUP)
    return new, (Call("respot", text, "R-FROZEN-1"),), rules


def need_phase(state: MatchState, phase: Phase) -> None:
    if state.phase is not phase:
        raise IllegalAction(
            "wrong_phase", f"Not now: the match is in phase {state.phase.value}, not {phase.value}."
        )


def check_stroke(state: MatchState, seat: Seat, now: int, slot: int = 0) -> None:
    """Whether the player in ``slot`` of side ``seat`` may strike at ``now``: the phase, the
    turn, the partner whose stroke it is (R-TEAM-4), the balls at rest (R-PLAY-4) and the shot
    clock (R-CLOCK-1). Raises :class:`IllegalAction`; the server asks this before it simulates
    anything, and the referee asks it again when the result comes back."""
    if state.phase is Phase.TIMEOUT:
        raise IllegalAction("wrong_phase", "A time-out is running; resume first.")
    need_phase(state, Phase.PLAY)
    if seat != state.shooter:
        raise IllegalAction("not_your_turn", "It isn't your turn.")
    check_partner(state, seat, slot, "stroke")
    if now < state.resting_at_ms:
        # R-PLAY-4: a stroke only starts with all balls at rest.
        raise IllegalAction("balls_moving", "The balls are still moving.", "R-PLAY-4")
    if state.deadline_ms is not None and now >= state.deadline_ms:
        raise IllegalAction("clock_expired", "Your shot clock has run out.", "R-CLOCK-1")


def check_partner(state: MatchState, seat: Seat, slot: int, what: str) -> None:
    """R-TEAM-4: only the partner whose turn it is in ``seat``'s line-up may act; the other
    partner's action is refused, never played."""
    check_slot(state, slot)
    due = state.due_slot(seat)
    if slot != due:
        raise IllegalAction("not_your_turn", f"It is your partner's {what}, not yours.", "R-TEAM-4")


def check_slot(state: MatchState, slot: int) -> None:
    """A slot that exists in this match's line-ups (only 0 in singles)."""
    if not 0 <= slot < state.size:
        raise IllegalAction(
            "bad_field", f"slot must be below {state.size} in a {state.options.team_mode} match"
        )


def clock_ms(state: MatchState) -> int:
    return state.options.shot_clock_s * 1000


def duration_ms(result: ShotResult) -> int:
    return math.ceil(result.duration * 1000)


def bump(pair: tuple[int, int], seat: Seat) -> tuple[int, int]:
    return put(pair, seat, pair[seat] + 1)


def put(pair: tuple[int, int], seat: Seat, value: int) -> tuple[int, int]:
    return (value, pair[1]) if seat == 0 else (pair[0], value)
