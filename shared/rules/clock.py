"""Time and connections: the deadlines ``Tick`` applies (shot clock R-CLOCK-1, lag clock
R-LAG-6, break choice, time-out end R-TIMEOUT-1, reconnection grace R-END-5), time-outs, and the
pause of a clock while the seat it waits for is disconnected.
"""

from __future__ import annotations

from dataclasses import replace

from shared.rules import lineup
from shared.rules.actions import Disconnected, Reconnected, Resume, TimeOut
from shared.rules.game import (
    after_stroke,
    break_chosen,
    bump,
    check_slot,
    check_stroke,
    clock_ms,
    count_player,
    end_inning,
    finish,
    need_phase,
    put,
    respot_frozen_free_game,
    team_rules,
    turn_calls,
)
from shared.rules.state import MatchState, Phase
from shared.rules.verdict import (
    Call,
    Foul,
    GameOver,
    IllegalAction,
    Termination,
    Verdict,
    merge_rules,
    with_rules,
)
from shared.table import BallName, Point


def timeout(state: MatchState, action: TimeOut, now: int) -> tuple[MatchState, Verdict]:
    # R-TEAM-6: the side's time-out, taken by the partner whose stroke it is.
    check_stroke(state, action.seat, now, action.slot)
    if state.options.practice:
        raise IllegalAction("wrong_phase", "There are no time-outs in practice.")
    if state.visit_strokes > 0:
        raise IllegalAction(
            "not_start_of_inning",
            "A time-out can only be taken at the start of an inning.",
            "R-TIMEOUT-1",
        )
    if state.equalizing:
        # R-TIMEOUT-1: never in the equalizing inning (HE: "not in an extension").
        raise IllegalAction(
            "no_timeouts_left", "There are no time-outs in the equalizing inning.", "R-TIMEOUT-1"
        )
    rec = state.current
    if rec.timeouts_left[action.seat] <= 0:
        raise IllegalAction(
            "no_timeouts_left", "You have no time-outs left in this match.", "R-TIMEOUT-1"
        )
    remaining = state.paused_ms if state.deadline_ms is None else state.deadline_ms - now
    new = replace(
        state,
        phase=Phase.TIMEOUT,
        sets=(
            *state.sets[:-1],
            replace(
                rec,
                timeouts_left=put(
                    rec.timeouts_left, action.seat, rec.timeouts_left[action.seat] - 1
                ),
            ),
        ),
        paused_ms=max(0, remaining if remaining is not None else clock_ms(state)),
        deadline_ms=now + state.options.timeout_s * 1000,
    )
    call = Call("time_out", f"Time-out for seat {action.seat}.", "R-TIMEOUT-1")
    return new, Verdict(
        next_shooter=state.shooter, calls=(call,), rules=team_rules(state.options, "R-TEAM-6")
    )


def resume(state: MatchState, action: Resume, now: int) -> tuple[MatchState, Verdict]:
    need_phase(state, Phase.TIMEOUT)
    check_slot(state, action.slot)
    if action.seat != state.shooter:
        raise IllegalAction(
            "not_your_turn", "Only the player who took the time-out can resume.", "R-TIMEOUT-1"
        )
    # R-TEAM-6: the time-out is the side's; either partner may end it.
    new, verdict = end_timeout(state, now)
    return new, with_rules(verdict, *team_rules(state.options, "R-TEAM-6"))


def end_timeout(state: MatchState, now: int) -> tuple[MatchState, Verdict]:
    paused = state.paused_ms if state.paused_ms is not None else clock_ms(state)
    new = replace(state, phase=Phase.PLAY, deadline_ms=now + paused, paused_ms=None)
    call = Call("resume", "Play resumes.", "R-TIMEOUT-1")
    return new, Verdict(next_shooter=state.shooter, calls=(call, *turn_calls(new)))


def connection(
    state: MatchState, action: Disconnected | Reconnected, now: int
) -> tuple[MatchState, Verdict]:
    check_slot(state, action.slot)
    who = lineup.player(action.seat, action.slot)  # R-TEAM-1: connections are per player
    up = isinstance(action, Reconnected)
    connected = list(state.connected)
    connected[who] = up
    grace = list(state.grace_deadline)
    if state.phase is Phase.OVER or up or who in state.retired:
        # A retired partner (R-TEAM-7) is out for good: no grace runs for them.
        grace[who] = None
    elif grace[who] is None:
        wait = state.options.no_show_s if state.phase is Phase.WAITING else state.options.grace_s
        grace[who] = now + wait * 1000
    new = replace(state, connected=tuple(connected), grace_deadline=tuple(grace))
    # R-END-5: a reconnection (or no-show) grace started or was called off.
    rules = ("R-END-5",) if new.grace_deadline != state.grace_deadline else ()
    return settle(new, now), Verdict(rules=rules)


def tick(state: MatchState, now: int) -> tuple[MatchState, Verdict]:
    calls: list[Call] = []
    last = Verdict()
    fouls: list[Foul] = []
    respots: dict[BallName, Point] = {}
    rules: tuple[str, ...] = ()
    for _ in range(64):  # each round moves a deadline forward; 64 is far beyond any real tick
        due = earliest_due(state, now)
        if due is None:
            break
        at, kind = due
        state, verdict = expire(state, kind, at)
        state = settle(state, at)
        calls.extend(verdict.calls)
        if verdict.foul is not None:
            fouls.append(verdict.foul)
        respots.update(verdict.respots)
        # R-CLOCK-3: the server's deadline, applied at its own time whenever the tick comes.
        rules = merge_rules(rules, ("R-CLOCK-3",), verdict.rules)
        last = verdict
    merged = replace(
        last,
        calls=tuple(calls),
        foul=fouls[-1] if fouls else None,
        respots=respots,
        rules=rules,
    )
    return state, merged


def earliest_due(state: MatchState, now: int) -> tuple[int, str] | None:
    if state.phase is Phase.OVER:
        return None
    due: list[tuple[int, str]] = []
    graces = [g for g in state.grace_deadline if g is not None and g <= now]
    if graces:
        # Every grace that ends at the same moment is applied together (``expire_graces``).
        due.append((min(graces), "grace"))
    if (
        state.deadline_ms is not None
        and state.deadline_ms <= now
        and state.phase is not Phase.WAITING
    ):
        due.append((state.deadline_ms, "clock"))
    if not due:
        return None
    order = {"grace": 0, "clock": 1}
    return min(due, key=lambda d: (d[0], order[d[1]]))


def expire_graces(state: MatchState, at: int) -> tuple[MatchState, Verdict]:
    """R-END-5: the players whose reconnection grace ends at ``at`` are out. A side with no
    player left forfeits (no-show before the start); both sides empty at once abandon the
    match. R-TEAM-7: a partner out while the other partner is still in retires, and the other
    partner plays all of the side's strokes from then on."""
    out = [p for p, g in enumerate(state.grace_deadline) if g == at]
    retired = tuple(sorted({*state.retired, *out}))
    grace = tuple(None if p in out else g for p, g in enumerate(state.grace_deadline))
    gone = [s for s in lineup.SIDES if not lineup.active(s, state.size, retired)]
    if len(gone) == 2:
        return finish(state, GameOver(None, Termination.ABANDONED), at)
    if gone:
        reason = Termination.NO_SHOW if state.phase is Phase.WAITING else Termination.FORFEIT
        winner = None if state.options.practice else lineup.other(gone[0])
        return finish(state, GameOver(winner, reason), at)
    new = replace(state, retired=retired, grace_deadline=grace)
    calls = []
    for p in out:
        side, slot = lineup.side_of(p), lineup.slot_of(p)
        out_one, left = ("first", "second") if slot == 0 else ("second", "first")
        text = (
            f"Seat {side}'s {out_one} player did not come back in time; the {left} player "
            "plays all of the side's strokes from now on."
        )
        calls.append(Call("partner_out", text, "R-TEAM-7"))
    next_shooter = new.shooter if new.phase in (Phase.PLAY, Phase.TIMEOUT) else None
    return new, Verdict(calls=tuple(calls), next_shooter=next_shooter, rules=("R-END-5",))


def expire(state: MatchState, kind: str, at: int) -> tuple[MatchState, Verdict]:
    if kind == "grace":
        return expire_graces(state, at)
    if state.phase is Phase.LAG:
        missing = [s for s in lineup.SIDES if state.lag_strokes[s] is None]
        if len(missing) == 2:
            new, verdict = finish(state, GameOver(None, Termination.ABANDONED), at)
            return new, with_rules(verdict, "R-LAG-6", "R-CLOCK-2")
        loser = missing[0]
        # R-LAG-6: no lag stroke before the clock runs out loses the lag.
        new = replace(
            state,
            phase=Phase.BREAK_CHOICE,
            lag_winner=lineup.other(loser),
            lag_reason="no_lag_stroke",
            lag_strokes=(None, None),
            deadline_ms=at + clock_ms(state),
        )
        text = f"Seat {loser} sent no lag stroke in time and loses the lag (R-LAG-6)."
        return new, Verdict(
            lag_winner=lineup.other(loser),
            lag_reason="no_lag_stroke",
            calls=(Call("lag_winner", text, "R-LAG-6"),),
            rules=("R-CLOCK-2",),
        )
    if state.phase is Phase.BREAK_CHOICE:
        # Decision (docs/rules.md): a lag winner who does not choose in time breaks
        # (R-CLOCK-2: the break choice is on the shot clock).
        assert state.lag_winner is not None
        new, verdict = break_chosen(state, state.lag_winner, at)
        return new, with_rules(verdict, "R-CLOCK-2")
    if state.phase is Phase.TIMEOUT:
        return end_timeout(state, at)
    # R-CLOCK-1 → R-FOUL-CLOCK: the inning ends; the opponent plays the balls as they lie.
    assert state.shooter is not None
    shooter = state.shooter
    # R-TEAM-5: the partner whose clock ran out played in this inning.
    counted, team = count_player(state, shooter)
    rec = counted.current
    innings = bump(rec.innings, shooter) if state.visit_strokes == 0 else rec.innings
    new = replace(
        counted,
        sets=(*state.sets[:-1], replace(rec, innings=innings)),
        break_shot=False,
        # R-FOUL-CLOCK: the opponent plays the balls as they lie. The starting-spot choice
        # belongs to the break stroke (R-BREAK-1); it must not rebuild the table around the
        # incoming player's ball.
        spot_choice=False,
        deadline_ms=at + clock_ms(state),
        paused_ms=None,
    )
    # R-TEAM-3: in Scotch doubles the clock foul was the partner's stroke; the other plays next.
    new, order = after_stroke(new, shooter)
    new, calls, over, inning_rules = end_inning(new, shooter, at)
    lying = new.positions
    new, frozen_calls, frozen_rules = respot_frozen_free_game(new)
    calls.extend(frozen_calls)
    respots = {b: p for b, p in new.positions.items() if p != lying[b]}
    foul = Foul("R-FOUL-CLOCK", "clock", f"Foul: seat {shooter}'s shot clock ran out (R-CLOCK-1).")
    all_calls = [Call("foul", foul.text, foul.rule_id), *calls]
    if new.phase is Phase.PLAY:
        all_calls.extend(turn_calls(new, starting=True))
    return new, Verdict(
        foul=foul,
        calls=tuple(all_calls),
        respots=respots,
        set_over=over,
        next_shooter=new.shooter if new.phase is not Phase.OVER else None,
        game_over=new.result if new.phase is Phase.OVER else None,
        # R-CLOCK-1 ran out; the inning counts (R-PLAY-2); the next shooter's clock starts.
        rules=merge_rules(("R-CLOCK-1", "R-PLAY-2"), team, order, inning_rules, frozen_rules),
    )


def settle(state: MatchState, now: int) -> MatchState:
    """Pause the running clock while the seat it waits for is disconnected; restart it (with
    the time that was left) when that seat is back."""
    if state.options.practice or state.phase not in (Phase.LAG, Phase.BREAK_CHOICE, Phase.PLAY):
        return state
    # Each group is the players of whom one must act; the clock waits while a group has none
    # connected (R-TEAM-1: a lag stroke and a stroke are one player's, the break choice is the
    # winning side's, by either partner).
    groups: list[tuple[int, ...]]
    if state.phase is Phase.LAG:
        groups = [
            (lineup.player(s, state.due_slot(s)),)
            for s in lineup.SIDES
            if state.lag_strokes[s] is None
        ]
    elif state.phase is Phase.BREAK_CHOICE:
        groups = (
            [lineup.active(state.lag_winner, state.size, state.retired)]
            if state.lag_winner is not None
            else []
        )
    else:
        groups = (
            [(lineup.player(state.shooter, state.due_slot(state.shooter)),)]
            if state.shooter is not None
            else []
        )
    away = any(not any(state.connected[p] for p in group) for group in groups)
    # The clock counts only from the moment the balls are at rest (R-CLOCK-1).
    start = max(now, state.resting_at_ms)
    if away and state.deadline_ms is not None:
        return replace(state, paused_ms=max(0, state.deadline_ms - start), deadline_ms=None)
    if not away and state.deadline_ms is None and state.paused_ms is not None:
        return replace(state, deadline_ms=start + state.paused_ms, paused_ms=None)
    return state
