"""Invariants under random play (Hypothesis): scores never drop, innings and averages agree,
exactly one shooter, re-spotted balls never overlap, the state survives a database round trip."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st

from shared.rules import (
    Disconnected,
    IllegalAction,
    MatchOptions,
    MatchState,
    Phase,
    PlayStroke,
    Reconnected,
    Rematch,
    Respot,
    Resume,
    Start,
    Tick,
    TimeOut,
    apply,
    cue_ball,
    new_match,
    next_deadline,
    scoresheet,
    state_from_dict,
    state_to_dict,
    stroke_start,
)
from shared.rules.actions import Action
from shared.rules.options import Discipline
from shared.rules.placement import respot_3c
from shared.rules.sheet import average
from shared.table import BALLS, MATCH, TOUCH_TOLERANCE
from tests.shared.rules.builders import STROKE, make_result
from tests.shared.rules.conftest import to_play

R = MATCH.ball_radius
# Event templates: A and B are the shooter's two object balls.
TEMPLATES = [
    ["top", "A", "left", "bottom", "B"],
    ["A", "top", "left", "right", "B"],
    ["A"],
    [],
    ["A", "B"],
    ["A", "top", "B"],
    ["top", "off:A"],
    ["A", "off:B"],
    ["off:cue"],
    ["B", "top", "left", "bottom", "A"],
]

coord = st.tuples(
    st.floats(R + 0.001, MATCH.length - R - 0.001), st.floats(R + 0.001, MATCH.width - R - 0.001)
)
stroke_move = st.tuples(
    st.just("stroke"),
    st.integers(0, len(TEMPLATES) - 1),
    st.lists(coord, min_size=3, max_size=3),
    st.booleans(),
)
# Strokes are most of a match; the other moves are sprinkled in (one_of has no weights).
move = st.one_of(
    stroke_move,
    stroke_move,
    stroke_move,
    stroke_move,
    stroke_move,
    st.tuples(st.just("tick"), st.integers(0, 120_000)),
    st.tuples(st.sampled_from(["timeout", "resume", "respot", "respot"])),
    st.tuples(st.sampled_from(["disc", "recon"]), st.integers(0, 1)),
)
discipline = st.sampled_from(list(Discipline))


def stroke_action(
    state: MatchState, template: int, coords: list[tuple[float, float]], freeze: bool
) -> PlayStroke | None:
    cue = cue_ball(state)
    a, b = (x for x in BALLS if x != cue)
    names = {"A": a, "B": b, "cue": cue}
    steps = [
        (f"off:{names[s[4:]]}" if s.startswith("off:") else names.get(s, s))
        for s in TEMPLATES[template]
    ]
    final = dict(zip(BALLS, coords, strict=True))
    if freeze:  # put the cue ball against an object ball so frozen play and re-spots happen
        ax, ay = final[a]
        final[cue] = (ax - 2 * R, ay) if ax - 2 * R > R else (ax + 2 * R, ay)
    pts = list(final.values())
    if any(math.dist(p, q) < 2 * R for i, p in enumerate(pts) for q in pts[i + 1 :]):
        return None
    if not all(MATCH.contains(p) for p in pts):
        return None
    start = stroke_start(state)
    result = make_result(start, {cue: STROKE}, steps, final)
    assert state.shooter is not None
    return PlayStroke(state.shooter, STROKE, result)


def action_for(state: MatchState, m: tuple[Any, ...], now: int) -> tuple[Action | None, int]:
    """The referee action a drawn move stands for, and the server time it is applied at."""
    seat = state.shooter if state.shooter is not None else 0
    kind = m[0]
    if kind == "stroke":
        if state.phase is not Phase.PLAY:
            return None, now
        now = max(now, state.resting_at_ms)
        return stroke_action(state, m[1], m[2], m[3]), now
    if kind == "tick":
        return Tick(), now + m[1]
    if kind == "respot":
        return Respot(seat), max(now, state.resting_at_ms)
    simple: dict[str, Action] = {
        "timeout": TimeOut(seat),
        "resume": Resume(seat),
        "rematch": Rematch(0),
    }
    if kind in simple:
        return simple[kind], now
    by_seat = {"vote": Rematch, "disc": Disconnected, "recon": Reconnected}
    return by_seat[kind](m[1]), now


def check_invariants(state: MatchState) -> None:
    opts = state.options
    for rec in state.sets:
        for seat in (0, 1):
            assert 0 <= rec.high_run[seat] <= rec.points[seat] <= opts.target
        # The breaker opens every round of innings: it is never behind, never two ahead.
        assert rec.innings[rec.breaker] - rec.innings[1 - rec.breaker] in (0, 1)
    sheet = scoresheet(state)
    for line in (*sheet.match, *(x for s in sheet.sets for x in s.lines)):
        assert line.average == average(line.points, line.innings)
        assert line.points <= line.innings * opts.target
    if state.phase in (Phase.PLAY, Phase.TIMEOUT):
        assert state.shooter in (0, 1)  # exactly one shooter
        assert state.current_run <= state.current.high_run[state.shooter]
    for i, p in enumerate(state.balls):  # nothing overlaps, everything is on the table
        assert MATCH.contains(p)
        for q in state.balls[i + 1 :]:
            assert math.dist(p, q) >= 2 * R - 1e-9


@settings(max_examples=60, deadline=None)
@given(discipline, st.lists(move, min_size=5, max_size=40), st.integers(1, 5), st.booleans())
def test_random_play_keeps_every_invariant(disc, moves, distance, equalizing) -> None:  # type: ignore[no-untyped-def]
    state = replace(
        to_play(MatchOptions(discipline=disc, distance=distance, equalizing=equalizing)),
        break_shot=False,
    )
    now = state.resting_at_ms
    totals = (0, 0)
    for m in moves:
        if state.phase is Phase.OVER:
            break
        action, now = action_for(state, m, now)
        if action is None:
            continue
        before = state
        try:
            state, verdict = apply(state, action, now)
        except IllegalAction:
            assert state is before
            continue
        sheet = scoresheet(state)
        new_totals = (sheet.match[0].points, sheet.match[1].points)
        assert new_totals[0] >= totals[0] and new_totals[1] >= totals[1]  # scores never drop
        assert sum(new_totals) - sum(totals) <= 1
        totals = new_totals
        event(f"{type(action).__name__}: {verdict.foul.code if verdict.foul else verdict.points}")
        if state.phase is Phase.OVER:
            event(f"over: {state.result.reason.value if state.result else None}")
        if state.phase is Phase.PLAY:
            assert verdict.next_shooter in (None, state.shooter)
        for b, p in verdict.respots.items():
            assert state.positions[b] == p
        deadline = next_deadline(state)
        assert deadline is None or state.phase is not Phase.OVER
        check_invariants(state)
        assert state_from_dict(state_to_dict(state)) == state


@settings(max_examples=60, deadline=None)
@given(
    st.lists(coord, min_size=3, max_size=3),
    st.sets(st.sampled_from(BALLS), min_size=1),
    st.sampled_from(["white", "yellow"]),
)
def test_R_RESPOT_GEOM_after_any_respot_no_two_balls_overlap(coords, jumped, next_ball) -> None:  # type: ignore[no-untyped-def]
    balls = {b: (None if b in jumped else p) for b, p in zip(BALLS, coords, strict=True)}
    left = [p for p in balls.values() if p is not None]
    if any(math.dist(p, q) < 2 * R for i, p in enumerate(left) for q in left[i + 1 :]):
        return
    moved = respot_3c(balls, MATCH, next_ball)
    assert set(moved) == set(jumped)
    final = [moved.get(b) or balls[b] for b in BALLS]
    for i, p in enumerate(final):
        assert p is not None and MATCH.contains(p)
        for q in final[i + 1 :]:
            assert q is not None
            # A re-spotted ball never touches another (R-RESPOT-GEOM); the others were given.
            assert math.dist(p, q) >= 2 * R - 1e-12
    for b, p in moved.items():
        others = [q for c, q in zip(BALLS, final, strict=True) if c != b]
        assert all(math.dist(p, q) > 2 * R + TOUCH_TOLERANCE for q in others if q is not None)


def awaited_seats(state: MatchState) -> list[int]:
    """The seats the referee waits for (an action only they can send)."""
    if state.phase is Phase.LAG:
        return [s for s in (0, 1) if state.lag_strokes[s] is None]
    if state.phase is Phase.BREAK_CHOICE:
        return [state.lag_winner] if state.lag_winner is not None else []
    if state.phase in (Phase.PLAY, Phase.TIMEOUT) and state.shooter is not None:
        return [state.shooter]
    return []


def is_live(state: MatchState) -> bool:
    """Every reachable state either waits for an action from a connected seat or has a
    deadline; otherwise nobody can act and nothing expires (a stalled room)."""
    if state.phase is Phase.OVER:
        return True  # final, unless both players ask for a rematch
    if state.phase is Phase.LAG and None not in state.lag_strokes:
        return True  # both lag strokes are in: the server simulates them now
    if next_deadline(state) is not None:
        return True
    return any(state.connected[s] for s in awaited_seats(state))


live_move = st.one_of(
    stroke_move,
    stroke_move,
    stroke_move,
    st.tuples(st.just("tick"), st.integers(0, 200_000)),
    st.tuples(st.sampled_from(["timeout", "resume", "respot", "rematch"])),
    st.tuples(st.sampled_from(["disc", "recon", "vote"]), st.integers(0, 1)),
)


@settings(max_examples=80, deadline=None)
@given(
    discipline,
    st.lists(live_move, min_size=5, max_size=60),
    st.integers(1, 3),
    st.booleans(),
    st.integers(1, 3),
)
def test_every_reachable_state_waits_for_a_connected_seat_or_has_a_deadline(  # type: ignore[no-untyped-def]
    disc, moves, distance, practice, sets
) -> None:
    # R-END-5 and Rematch: a room must never stall, through rematches and disconnections.
    opts = MatchOptions(discipline=disc, distance=distance, practice=practice, sets=sets)
    if practice:
        state, _ = apply(new_match(opts, 1_000_000), Start(), 1_000_000)
    else:
        state = replace(to_play(opts), break_shot=False)
    now = state.resting_at_ms
    totals = (0, 0)
    for m in moves:
        action, now = action_for(state, m, now)
        if action is None:
            continue
        before = state
        try:
            state, _verdict = apply(state, action, now)
        except IllegalAction:
            assert state is before
            continue
        if isinstance(action, Rematch) and state.phase is not Phase.OVER:
            totals = (0, 0)  # a fresh match
        sheet = scoresheet(state)
        new_totals = (sheet.match[0].points, sheet.match[1].points)
        assert new_totals[0] >= totals[0] and new_totals[1] >= totals[1]  # scores never drop
        totals = new_totals
        assert is_live(state), f"stalled after {action!r}: {state!r}"
