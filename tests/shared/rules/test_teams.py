"""Doubles and Scotch doubles (R-TEAM-1…7): who strikes, refused partners, the figures of sides
and players, time-outs, the break, the equalizing inning and a partner who drops for good, in
every discipline and both forms."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.physics.types import Stroke
from shared.rules import (
    ChooseBreak,
    Concede,
    Discipline,
    Disconnected,
    IllegalAction,
    LagStroke,
    MatchOptions,
    MatchState,
    Phase,
    PlayStroke,
    Reconnected,
    Rematch,
    Respot,
    Resume,
    Start,
    Termination,
    Tick,
    TimeOut,
    Verdict,
    apply,
    cue_ball,
    new_match,
    scoresheet,
    state_from_dict,
    state_to_dict,
    stroke_start,
)
from shared.rules.options import TeamMode
from shared.table import BALLS, BallName, Point
from shared.wireviews import match_view
from tests.shared.rules.builders import STROKE, make_result
from tests.shared.rules.conftest import T0, lag_result

FORMS = (TeamMode.DOUBLES, TeamMode.SCOTCH)
CASES = [(d, f) for d in Discipline for f in FORMS]
IDS = [f"{d.value}-{f.value}" for d, f in CASES]

# Balls where no discipline restricts a carom: the object balls in different balkline areas,
# off the lines and the anchor squares, and outside straight rail's corner triangles.
FREE: tuple[Point, Point, Point] = ((2.6, 0.3), (1.0, 1.2), (1.42, 0.6))


def point_steps(discipline: Discipline, cue: BallName) -> list[str]:
    """The cue ball's events of a point in ``discipline`` (red first, as a break needs)."""
    other = next(b for b in BALLS if b not in (cue, "red"))
    if discipline is Discipline.THREE_CUSHION:
        return ["top", "red", "left", "bottom", other]
    if discipline is Discipline.ONE_CUSHION:
        return ["red", "top", other]
    return ["red", other]


def options(discipline: Discipline, form: TeamMode, **kw: object) -> MatchOptions:
    return MatchOptions(discipline=discipline, team_mode=form, **kw)  # type: ignore[arg-type]


def started(opts: MatchOptions, breaker: int = 0) -> MatchState:
    """Past the lag (side 0's first player won) with ``breaker``'s side to break."""
    s = new_match(opts, T0)
    s, _ = apply(s, Start(), T0)
    s, _ = apply(s, LagStroke(0, Stroke(0.0, 2.0)), T0 + 1000)
    s, _ = apply(s, LagStroke(1, Stroke(0.0, 2.1)), T0 + 2000)
    lag = lag_result(s, ["white>top", "yellow>top"], {"white": (0.05, 0.2), "yellow": (0.10, 1.22)})
    s, _ = apply(s, lag, T0 + 2000)
    # R-TEAM-1: either partner of the winning side chooses (here the second).
    slot = opts.team_mode.size - 1
    s, _ = apply(s, ChooseBreak(0, breaker, slot=slot), s.resting_at_ms)
    return s


def who(s: MatchState) -> tuple[int, int]:
    """(side, slot) of the player to strike."""
    assert s.shooter is not None and s.shooter_slot is not None
    return (s.shooter, s.shooter_slot)


def strike(
    s: MatchState,
    scores: bool,
    *,
    slot: int | None = None,
    free: bool = True,
    steps: list[str] | None = None,
) -> tuple[MatchState, Verdict]:
    """One stroke by the due partner (or ``slot``): a point or a miss. ``free`` first moves
    the balls where no zone restriction applies, the break position included (the order is
    under test here, not the zones; the break's red-first rule still applies)."""
    if free:
        s = replace(s, balls=FREE, zone_counts=(), spot_choice=False)
    cue = cue_ball(s)
    if steps is None:
        steps = point_steps(s.options.discipline, cue) if scores else ["red"]
    result = make_result(stroke_start(s), {cue: STROKE}, steps)
    assert s.shooter is not None
    side_slot = s.shooter_slot if slot is None else slot
    assert side_slot is not None
    return apply(s, PlayStroke(s.shooter, STROKE, result, slot=side_slot), s.resting_at_ms)


# R-TEAM-1 / R-TEAM-2 / R-TEAM-3: the shooting order ----------------------------------------------


@pytest.mark.parametrize(("discipline", "form"), CASES, ids=IDS)
def test_R_TEAM_1_break_by_the_breaking_sides_first_player_then_the_order_through_misses(
    discipline: Discipline, form: TeamMode
) -> None:
    s = started(options(discipline, form), breaker=1)
    assert who(s) == (1, 0) and cue_ball(s) == "white"
    order = []
    for _ in range(8):
        order.append(who(s))
        s, v = strike(s, scores=False)
        assert v.next_shooter == s.shooter and v.next_slot == s.shooter_slot
    # Misses only: both forms give B1, A1, B2, A2, B1… (side 1 broke).
    assert order == [(1, 0), (0, 0), (1, 1), (0, 1)] * 2
    assert s.current.innings == (4, 4)
    assert s.current.player_innings == (2, 2, 2, 2)


@pytest.mark.parametrize(("discipline", "form"), CASES, ids=IDS)
def test_R_TEAM_2_R_TEAM_3_the_order_through_runs(discipline: Discipline, form: TeamMode) -> None:
    s = started(options(discipline, form, distance=50))
    order = []
    # A1 breaks and scores twice, then misses; B1 misses; A's next inning; B's next inning.
    for scores in (True, True, False, False, True, False, False):
        order.append(who(s))
        s, v = strike(s, scores=scores)
        assert v.points == (1 if scores else 0)
    if form is TeamMode.DOUBLES:
        # R-TEAM-2: the partners take the side's innings in turn; a run stays with its player.
        assert order == [(0, 0), (0, 0), (0, 0), (1, 0), (0, 1), (0, 1), (1, 1)]
        assert s.current.player_points == (2, 0, 1, 0)
        assert s.current.player_innings == (1, 1, 1, 1)
    else:
        # R-TEAM-3: the partners alternate the side's strokes, across innings too.
        assert order == [(0, 0), (0, 1), (0, 0), (1, 0), (0, 1), (0, 0), (1, 1)]
        assert s.current.player_points == (1, 0, 2, 0)
        # Both partners of side 0 struck in each of its two innings; each counts its own.
        assert s.current.player_innings == (2, 1, 2, 1)
    # R-PLAY-2: a side's inning counts once however many partners shot in it.
    assert s.current.innings == (2, 2) and s.current.points == (3, 0)
    assert s.current.high_run == (2, 0)
    assert who(s) == ((0, 0) if form is TeamMode.DOUBLES else (0, 1))


def test_R_TEAM_2_the_verdict_names_the_rule_that_chose_the_partner() -> None:
    s = started(options(Discipline.THREE_CUSHION, TeamMode.DOUBLES))
    s, v = strike(s, scores=True)
    assert "R-TEAM-5" in v.rules and "R-TEAM-2" not in v.rules  # the run goes on
    s, v = strike(s, scores=False)
    assert "R-TEAM-2" in v.rules and v.next_slot == 0 and v.next_shooter == 1


def test_R_TEAM_3_the_verdict_names_the_alternation() -> None:
    s = started(options(Discipline.THREE_CUSHION, TeamMode.SCOTCH))
    s, v = strike(s, scores=True)
    assert "R-TEAM-3" in v.rules and v.next_shooter == 0 and v.next_slot == 1


# R-TEAM-4: the wrong partner ---------------------------------------------------------------------


@pytest.mark.parametrize(("discipline", "form"), CASES, ids=IDS)
def test_R_TEAM_4_the_wrong_partners_stroke_is_refused(
    discipline: Discipline, form: TeamMode
) -> None:
    s = started(options(discipline, form))
    s, _ = strike(s, scores=True)
    side, slot = who(s)
    for action in (
        lambda: strike(s, scores=True, slot=1 - slot),
        lambda: apply(s, TimeOut(side, slot=1 - slot), s.resting_at_ms),
        lambda: apply(s, Respot(side, slot=1 - slot), s.resting_at_ms),
    ):
        with pytest.raises(IllegalAction) as err:
            action()
        assert err.value.code == "not_your_turn" and err.value.rule_id == "R-TEAM-4"
    # And the other side's players not at all (it isn't their turn).
    with pytest.raises(IllegalAction) as err:
        apply(s, TimeOut(1 - side, slot=0), s.resting_at_ms)
    assert err.value.code == "not_your_turn"


def test_R_TEAM_4_a_lag_stroke_is_the_first_players() -> None:
    s = new_match(options(Discipline.THREE_CUSHION, TeamMode.DOUBLES), T0)
    s, _ = apply(s, Start(), T0)
    with pytest.raises(IllegalAction) as err:
        apply(s, LagStroke(1, Stroke(0.0, 2.0), slot=1), T0 + 10)
    assert err.value.rule_id == "R-TEAM-4"
    s, v = apply(s, LagStroke(1, Stroke(0.0, 2.0)), T0 + 10)
    assert "R-TEAM-1" in v.rules


def test_a_singles_match_has_no_second_player() -> None:
    s = started(MatchOptions())
    with pytest.raises(IllegalAction) as err:
        apply(s, TimeOut(0, slot=1), s.resting_at_ms)
    assert err.value.code == "bad_field"
    with pytest.raises(IllegalAction) as err:
        apply(s, Disconnected(0, slot=1), s.resting_at_ms)
    assert err.value.code == "bad_field"
    assert s.connected == (True, True) and s.current.player_points == (0, 0)


# Fouls and the clock -----------------------------------------------------------------------------


@pytest.mark.parametrize(("discipline", "form"), CASES, ids=IDS)
def test_R_TEAM_2_R_TEAM_3_a_foul_ends_the_inning_and_the_order_goes_on(
    discipline: Discipline, form: TeamMode
) -> None:
    s = started(options(discipline, form, distance=50))
    s, _ = strike(s, scores=True)  # A1 scores
    # The next stroke jumps the red off the table: a foul, the inning ends (R-FOUL-OFF).
    scorer = who(s)
    s, v = strike(s, scores=False, steps=["red", "off:red"])
    assert v.foul is not None and v.foul.code == "off_table"
    assert who(s) == (1, 0)
    s, v = strike(s, scores=False)  # B1 misses
    if form is TeamMode.DOUBLES:
        assert scorer == (0, 0) and who(s) == (0, 1)
    else:
        # A1 scored, A2 fouled: A1 strikes A's next stroke.
        assert scorer == (0, 1) and who(s) == (0, 0)


@pytest.mark.parametrize(("discipline", "form"), CASES, ids=IDS)
def test_R_TEAM_5_a_clock_foul_is_the_due_partners_stroke(
    discipline: Discipline, form: TeamMode
) -> None:
    s = started(options(discipline, form, distance=50))
    s, _ = strike(s, scores=True)  # A1 scores
    due = who(s)
    assert s.deadline_ms is not None
    s, v = apply(s, Tick(), s.deadline_ms)
    assert v.foul is not None and v.foul.rule_id == "R-FOUL-CLOCK"
    # Doubles: A1 already struck in this inning; Scotch: A2's first stroke of it (its clock).
    assert due == ((0, 0) if form is TeamMode.DOUBLES else (0, 1))
    assert ("R-TEAM-5" in v.rules) is (form is TeamMode.SCOTCH)
    assert who(s) == (1, 0) and v.next_slot == 0
    # The partner whose clock ran out played in the inning: an inning of their own.
    assert s.current.player_innings[due[0] + 2 * due[1]] == 1
    assert s.current.innings == (1, 0)
    s, _ = strike(s, scores=False)  # B1
    expected = (0, 1) if form is TeamMode.DOUBLES else (0, 0)
    assert who(s) == expected
    if form is TeamMode.SCOTCH:
        assert "R-TEAM-3" in v.rules


# R-TEAM-6: time-outs per side, the shot clock per stroke -----------------------------------------


@pytest.mark.parametrize(("discipline", "form"), CASES, ids=IDS)
def test_R_TEAM_6_time_outs_belong_to_the_side(discipline: Discipline, form: TeamMode) -> None:
    s = started(options(discipline, form))
    s, _ = strike(s, scores=False)  # A1 breaks and misses; B1 is due
    assert who(s) == (1, 0)
    t = s.resting_at_ms + 5_000
    s, v = apply(s, TimeOut(1, slot=0), t)
    assert s.phase is Phase.TIMEOUT and "R-TEAM-6" in v.rules
    assert s.current.timeouts_left == (1, 0)
    # Either partner of the side may end it.
    s, v = apply(s, Resume(1, slot=1), t + 10_000)
    assert s.phase is Phase.PLAY and "R-TEAM-6" in v.rules and who(s) == (1, 0)
    # The shot clock is per stroke: the time left before the time-out, from the resume.
    assert s.deadline_ms == t + 10_000 + 25_000
    s, _ = strike(s, scores=False)  # B1 misses
    s, _ = strike(s, scores=False)  # A2 misses; B2 is due
    assert who(s) == (1, 1)
    with pytest.raises(IllegalAction) as err:
        apply(s, TimeOut(1, slot=1), s.resting_at_ms)
    assert err.value.code == "no_timeouts_left"  # the side's one time-out is used


# The break, sets and the equalizing inning -------------------------------------------------------


@pytest.mark.parametrize(("discipline", "form"), CASES, ids=IDS)
def test_R_TEAM_1_each_set_starts_with_the_line_ups_in_order(
    discipline: Discipline, form: TeamMode
) -> None:
    s = started(options(discipline, form, distance=2, sets=3))
    s, _ = strike(s, scores=False)  # A1
    s, _ = strike(s, scores=True)  # B1 scores
    s, _ = strike(s, scores=True)  # B1 (doubles) / B2 (Scotch): set 1 to side 1
    assert len(s.sets) == 2 and s.sets[0].result is not None and s.sets[0].result.winner == 1
    # R-END-4: side 1 breaks set 2, by its first player, whoever struck last.
    assert who(s) == (1, 0) and s.slot_up == (0, 0)
    assert s.current.player_points == (0, 0, 0, 0)
    sheet = scoresheet(s)
    first = {(p.side, p.slot): p.points for p in sheet.sets[0].players}
    if form is TeamMode.DOUBLES:
        assert first == {(0, 0): 0, (1, 0): 2, (0, 1): 0, (1, 1): 0}
    else:
        assert first == {(0, 0): 0, (1, 0): 1, (0, 1): 0, (1, 1): 1}


@pytest.mark.parametrize(("discipline", "form"), CASES, ids=IDS)
def test_R_TEAM_1_the_equalizing_inning_is_the_other_sides_by_its_partner_due(
    discipline: Discipline, form: TeamMode
) -> None:
    s = started(options(discipline, form, distance=2))
    s, _ = strike(s, scores=False)  # A1 breaks, misses
    s, _ = strike(s, scores=False)  # B1 misses
    s, _ = strike(s, scores=True)  # A2 scores
    s, v = strike(s, scores=True)  # A2 (doubles) or A1 (Scotch) reaches the distance
    assert s.equalizing and "R-END-2" in v.rules
    # Side 1 plays the equalizing inning from the break position: its partner due is B2.
    assert who(s) == (1, 1) and s.spot_choice
    with pytest.raises(IllegalAction) as err:
        apply(s, TimeOut(1, slot=1), s.resting_at_ms)
    assert err.value.code == "no_timeouts_left"  # R-TIMEOUT-1: none in the equalizing inning
    s, v = strike(s, scores=True)
    assert who(s) == ((1, 1) if form is TeamMode.DOUBLES else (1, 0))
    s, v = strike(s, scores=True)
    assert v.game_over is not None and v.game_over.reason is Termination.EQUALIZED
    sheet = scoresheet(s)
    assert [line.points for line in sheet.match] == [2, 2]
    assert [line.innings for line in sheet.match] == [2, 2]
    by = {(p.side, p.slot): (p.points, p.innings) for p in sheet.players}
    if form is TeamMode.DOUBLES:
        assert by == {(0, 0): (0, 1), (0, 1): (2, 1), (1, 0): (0, 1), (1, 1): (2, 1)}
    else:
        # A1 struck in both of side 0's innings, B1 in both of side 1's.
        assert by == {(0, 0): (1, 2), (0, 1): (1, 1), (1, 0): (1, 2), (1, 1): (1, 1)}


# R-TEAM-5: figures per side and per player -------------------------------------------------------


def test_R_TEAM_5_averages_per_side_and_per_player() -> None:
    s = started(options(Discipline.ONE_CUSHION, TeamMode.DOUBLES, distance=50))
    for scores in (True, True, True, False, False, True, False, False):
        s, _ = strike(s, scores=scores)
    sheet = scoresheet(s)
    assert sheet.match[0].points == 4 and sheet.match[0].innings == 2
    assert sheet.match[0].average == 2.0 and sheet.match[0].high_run == 3
    a1, b1, a2, b2 = sheet.players
    assert (a1.side, a1.slot, a1.points, a1.innings, a1.average) == (0, 0, 3, 1, 3.0)
    assert (a2.side, a2.slot, a2.points, a2.innings, a2.average) == (0, 1, 1, 1, 1.0)
    assert (b1.points, b1.innings, b2.points, b2.innings) == (0, 1, 0, 1)


# R-TEAM-7: a partner who drops for good ----------------------------------------------------------


@pytest.mark.parametrize("form", FORMS, ids=[f.value for f in FORMS])
def test_R_TEAM_7_a_partner_gone_past_the_grace_leaves_the_other_playing(form: TeamMode) -> None:
    s = started(options(Discipline.THREE_CUSHION, form, grace_s=60))
    s, _ = strike(s, scores=False)  # A1 misses; B1 due
    t = s.resting_at_ms + 1000
    # A2 drops: its grace runs; nobody waits for it yet (B1 is to play).
    s, v = apply(s, Disconnected(0, slot=1), t)
    assert "R-END-5" in v.rules and s.grace_deadline == (None, None, t + 60_000, None)
    assert match_view(s).connected == (True, True)  # side 0 still has a player
    s, _ = strike(s, scores=False)  # B1 misses; A2 is due and away: the clock waits
    assert who(s) == (0, 1) and s.deadline_ms is None and s.paused_ms == 30_000
    s, v = apply(s, Tick(), t + 60_000)
    assert s.phase is Phase.PLAY and s.retired == (2,)
    assert [c.code for c in v.calls] == ["partner_out"] and "R-TEAM-7" in v.rules
    # A1 plays all of side 0's strokes from now on, with the clock that was left.
    assert who(s) == (0, 0) and s.deadline_ms == t + 60_000 + 30_000
    assert v.next_shooter == 0 and v.next_slot == 0
    for _ in range(3):
        s, _ = strike(s, scores=False)
        s, _ = strike(s, scores=False)
        assert who(s) == (0, 0)
    s, _ = strike(s, scores=True)
    assert who(s) == (0, 0)
    # Coming back changes nothing: out for good.
    s, _ = apply(s, Reconnected(0, slot=1), s.resting_at_ms)
    assert who(s) == (0, 0) and s.retired == (2,)


def test_R_TEAM_7_a_partner_back_within_the_grace_plays_on() -> None:
    s = started(options(Discipline.THREE_CUSHION, TeamMode.DOUBLES))
    s, _ = strike(s, scores=False)
    s, _ = apply(s, Disconnected(0, slot=1), s.resting_at_ms)
    s, _ = strike(s, scores=False)
    assert s.deadline_ms is None  # A2's clock waits
    s, _ = apply(s, Reconnected(0, slot=1), s.resting_at_ms + 5000)
    assert s.deadline_ms == s.resting_at_ms + 5000 + 30_000 and s.grace_deadline[2] is None
    assert who(s) == (0, 1)


def test_R_END_5_a_side_with_no_player_left_forfeits() -> None:
    s = started(options(Discipline.THREE_CUSHION, TeamMode.SCOTCH, grace_s=30))
    t = s.resting_at_ms
    s, _ = apply(s, Disconnected(1, slot=0), t)
    s, _ = apply(s, Disconnected(1, slot=1), t + 5000)
    s, v = apply(s, Tick(), t + 30_000)
    assert s.phase is Phase.PLAY and s.retired == (1,)
    s, v = apply(s, Tick(), t + 35_000)
    assert v.game_over is not None and v.game_over.winner == 0
    assert v.game_over.reason is Termination.FORFEIT


def test_R_END_5_both_sides_emptied_at_once_abandon_the_match() -> None:
    s = started(options(Discipline.THREE_CUSHION, TeamMode.DOUBLES, grace_s=30))
    t = s.resting_at_ms
    for side in (0, 1):
        for slot in (0, 1):
            s, _ = apply(s, Disconnected(side, slot=slot), t)
    s, v = apply(s, Tick(), t + 30_000)
    assert v.game_over is not None and v.game_over.reason is Termination.ABANDONED


def test_R_TEAM_1_either_partner_concedes_for_the_side_and_asks_for_the_rematch() -> None:
    s = started(options(Discipline.THREE_CUSHION, TeamMode.DOUBLES))
    s, v = apply(s, Concede(1, slot=1), s.resting_at_ms)
    assert v.game_over is not None and v.game_over.winner == 0
    s, _ = apply(s, Rematch(0, slot=1), s.resting_at_ms)
    s, v = apply(s, Rematch(1, slot=0), s.resting_at_ms)
    # The other side breaks the rematch, by its first player.
    assert s.phase is Phase.PLAY and who(s) == (1, 0) and v.next_slot == 0


# The state keeps every player --------------------------------------------------------------------


@pytest.mark.parametrize("form", FORMS, ids=[f.value for f in FORMS])
def test_a_team_state_round_trips_through_the_database_form(form: TeamMode) -> None:
    s = started(options(Discipline.BALKLINE_47_2, form, grace_s=30))
    s, _ = strike(s, scores=True)
    s, _ = apply(s, Disconnected(1, slot=1), s.resting_at_ms)
    s, _ = apply(s, Tick(), s.resting_at_ms + 30_000)
    assert s.retired == (3,)
    assert state_from_dict(state_to_dict(s)) == s
    broken = state_to_dict(s)
    broken["connected"] = [True, True]
    with pytest.raises(ValueError, match="connected"):
        state_from_dict(broken)


def test_a_singles_state_saved_before_line_ups_still_loads() -> None:
    s = started(MatchOptions())
    s, _ = strike(s, scores=True)
    old = state_to_dict(s)
    for key in ("slot_up", "retired", "struck"):
        del old[key]
    del old["options"]["team_mode"]
    for rec in old["sets"]:
        del rec["player_points"], rec["player_innings"]
    back = state_from_dict(old)
    assert back.current.player_points == s.current.points
    assert back.options.team_mode is TeamMode.SINGLES
    assert replace(back, struck=s.struck) == s


def test_a_practice_room_is_singles_only() -> None:
    with pytest.raises(ValueError, match="team_mode"):
        MatchOptions(practice=True, team_mode="doubles")  # type: ignore[arg-type]


# Random team play (Hypothesis) -------------------------------------------------------------------

team_move = st.one_of(
    st.tuples(st.just("stroke"), st.booleans()),
    st.tuples(st.just("stroke"), st.booleans()),
    st.tuples(st.just("stroke"), st.booleans()),
    st.tuples(st.just("wrong"), st.booleans()),
    st.tuples(st.just("tick"), st.integers(0, 90_000)),
    st.tuples(st.sampled_from(["timeout", "resume"]), st.integers(0, 1)),
    st.tuples(st.sampled_from(["disc", "recon"]), st.integers(0, 3)),
)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(list(Discipline)),
    st.sampled_from(FORMS),
    st.lists(team_move, min_size=5, max_size=50),
    st.integers(1, 4),
    st.integers(1, 3),
)
def test_random_team_play_keeps_every_invariant(  # type: ignore[no-untyped-def]
    discipline, form, moves, distance, sets
) -> None:
    """Whatever happens (points, misses, clock fouls, time-outs, partners dropping and coming
    back, wrong partners), the players' own points add up to their side's, a side's partners
    struck at least as many innings as the side played, the partner to strike is one still in
    the line-up, a wrong partner changes nothing, a room never stalls, and the state survives
    the database."""
    s = started(options(discipline, form, distance=distance, sets=sets, grace_s=30))
    now = s.resting_at_ms
    for m in moves:
        if s.phase is Phase.OVER:
            break
        kind = m[0]
        before = s
        try:
            if kind in ("stroke", "wrong"):
                if s.phase is not Phase.PLAY:
                    continue
                now = max(now, s.resting_at_ms)
                side, slot = who(s)
                if kind == "wrong":
                    with pytest.raises(IllegalAction) as err:
                        strike(s, scores=m[1], slot=1 - slot)
                    assert err.value.rule_id == "R-TEAM-4"
                    continue
                s, _ = strike(s, scores=m[1])
                now = max(now, s.resting_at_ms)
            elif kind == "tick":
                now += m[1]
                s, _ = apply(s, Tick(), now)
            elif kind in ("timeout", "resume"):
                side = s.shooter if s.shooter is not None else 0
                action = TimeOut(side, slot=m[1]) if kind == "timeout" else Resume(side, slot=m[1])
                s, _ = apply(s, action, max(now, s.resting_at_ms))
            else:
                p = m[1]
                act = Disconnected if kind == "disc" else Reconnected
                s, _ = apply(s, act(p % 2, slot=p // 2), now)
        except IllegalAction:
            assert s is before  # a refusal changes nothing
            continue
        for rec in s.sets:
            for side in (0, 1):
                mine = [side, side + 2]
                assert sum(rec.player_points[p] for p in mine) == rec.points[side]
                assert sum(rec.player_innings[p] for p in mine) >= rec.innings[side]
        if s.phase in (Phase.PLAY, Phase.TIMEOUT):
            assert s.shooter is not None and s.shooter_slot is not None
            assert s.shooter + 2 * s.shooter_slot not in s.retired
        if s.phase is not Phase.OVER:
            waiting = (
                [s.shooter + 2 * (s.shooter_slot or 0)]
                if s.phase in (Phase.PLAY, Phase.TIMEOUT) and s.shooter is not None
                else []
            )
            assert (
                s.deadline_ms is not None
                or any(s.connected[p] for p in waiting)
                or (any(g is not None for g in s.grace_deadline))
            ), f"stalled: {s!r}"
        assert state_from_dict(state_to_dict(s)) == s
