"""The one adapter from rules values to wire views: the referee's match, scoresheet, results and
options as the protocol's typed views (``shared.protocol.views``), and back where a client or a
bot needs a real referee state from what it was sent.

The rules and the physics import nothing of the protocol, and the protocol nothing of the rules;
this module is where the two meet (tests/test_import_guard.py keeps it so). The rules' words
(``Phase``, ``Discipline``, ``Termination``) become the protocol's own enums
(``shared.protocol.enums``) through the tables below, built when this module is imported: a
rules value without a wire word fails loudly here (and in tests/shared/test_wireviews.py), not
on a player's screen. The words the rules keep as strings (call and foul codes, lag reasons)
become the open wire enums, so a word the protocol has not declared yet is still sent as it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from shared.physics.types import Event
from shared.protocol import enums as pe
from shared.protocol import views as pv
from shared.rules import lineup
from shared.rules.options import Discipline, MatchOptions, TeamMode
from shared.rules.placement import contact_of
from shared.rules.referee import cue_ball, lag_balls
from shared.rules.scoring import zone_rule_is_strict
from shared.rules.sheet import Line, PlayerLine, Scoresheet, average, scoresheet
from shared.rules.state import MatchState, Phase, SetRecord
from shared.rules.verdict import GameOver, Termination, Verdict
from shared.rules.zones import shared_zones, zones_for
from shared.table import BALLS

# Rules words -> wire words (every rules value has one: known_member raises otherwise).
PHASES: Final[dict[Phase, pe.Phase]] = {p: pe.Phase.known_member(p.value) for p in Phase}
DISCIPLINES: Final[dict[Discipline, pe.Discipline]] = {
    d: pe.Discipline.known_member(d.value) for d in Discipline
}
END_REASONS: Final[dict[Termination, pe.EndReason]] = {
    t: pe.EndReason.known_member(t.value) for t in Termination
}
# And back, for a client that rebuilds a referee state from what it was sent.
RULES_PHASES: Final[dict[pe.Phase, Phase]] = {w: p for p, w in PHASES.items()}
RULES_DISCIPLINES: Final[dict[pe.Discipline, Discipline]] = {w: d for d, w in DISCIPLINES.items()}


def rules_phase(phase: pe.Phase) -> Phase:
    """The referee's phase of a wire phase; ValueError for a word this release does not know."""
    found = RULES_PHASES.get(phase)
    if found is None:
        raise ValueError(f"unknown phase {str(phase)!r}")
    return found


def rules_discipline(discipline: pe.Discipline) -> Discipline:
    """The referee's discipline; ValueError for a word this release does not know."""
    found = RULES_DISCIPLINES.get(discipline)
    if found is None:
        raise ValueError(f"unknown discipline {str(discipline)!r}")
    return found


def sheet_view(sheet: Scoresheet) -> pv.Scoresheet:
    """The protocol's ``scoresheet``; each player's own figures in a team match (R-TEAM-5)
    only, so a singles sheet keeps v1's bytes."""
    return pv.Scoresheet(
        sets=tuple(
            pv.SheetSet(
                number=s.number,
                breaker=s.breaker,
                lines=(_line_view(s.lines[0]), _line_view(s.lines[1])),
                result=result_view(s.result),
                players=_players_view(s.players),
            )
            for s in sheet.sets
        ),
        match=(_line_view(sheet.match[0]), _line_view(sheet.match[1])),
        sets_won=sheet.sets_won,
        result=result_view(sheet.result),
        players=_players_view(sheet.players),
    )


def _players_view(players: tuple[PlayerLine, ...]) -> tuple[pv.SheetPlayer, ...] | None:
    if len(players) <= 2:  # singles: the sides' lines say it all
        return None
    return tuple(
        pv.SheetPlayer(
            seat=p.side,
            slot=p.slot,
            points=p.points,
            innings=p.innings,
            average=round(p.average, 3),
        )
        for p in players
    )


def match_players(state: MatchState) -> tuple[pv.MatchPlayer, ...] | None:
    """``match.players`` of a team match (R-TEAM-1); None in singles."""
    if not state.options.teams:
        return None
    rec = state.current
    return tuple(
        pv.MatchPlayer(
            seat=lineup.side_of(p),
            slot=lineup.slot_of(p),
            connected=state.connected[p],
            grace_until_ms=state.grace_deadline[p],
            out=p in state.retired,
            points=rec.player_points[p],
            innings=rec.player_innings[p],
            average=round(average(rec.player_points[p], rec.player_innings[p]), 3),
        )
        for p in range(state.options.players)
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
    return pv.GameResult(winner=result.winner, reason=END_REASONS[result.reason])


def stroke_result_view(verdict: Verdict, teams: bool = False) -> pv.StrokeResult:
    """A verdict as the protocol's ``stroke_played.result`` (in a team room with the partner
    to strike next, R-TEAM-2/3)."""
    foul = verdict.foul
    return pv.StrokeResult(
        points=verdict.points,
        foul=None
        if foul is None
        else pv.FoulView(rule_id=foul.rule_id, code=pe.FoulCode(foul.code), text=foul.text),
        calls=tuple(
            pv.CallView(code=pe.CallCode(c.code), text=c.text, rule_id=c.rule_id)
            for c in verdict.calls
        ),
        respots={b: (p[0], p[1]) for b, p in verdict.respots.items()},
        next_shooter=verdict.next_shooter,
        game_over=result_view(verdict.game_over),
        next_slot=verdict.next_slot if teams else None,
    )


# Physics event kind -> wire word (a dict: this runs for every event of every stroke).
EVENT_KINDS: Final[dict[str, pe.EventKind]] = {k.value: k for k in pe.EventKind}


def event_views(events: Iterable[Event]) -> tuple[pv.EventView, ...]:
    """The physics' events as the protocol's ``events`` (built in the physics worker)."""
    return tuple(
        pv.EventView(
            t=e.t,
            kind=EVENT_KINDS.get(e.kind) or pe.EventKind(e.kind),
            balls=e.balls,
            cushion=e.cushion,
            speeds=e.speeds or None,
        )
        for e in events
    )


def room_options(opts: MatchOptions) -> pv.RoomOptions:
    """The protocol's ``room.options``: every option in force, the referee's defaults filled in
    (the corner zones' legs scaled with the table, R-DISC-FREE; whether the equalizing inning
    is played, R-END-2)."""
    return pv.RoomOptions(
        discipline=DISCIPLINES[opts.discipline],
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
        team_mode=opts.team_mode.value,
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
            balls={("0" if s == 0 else "1"): b for s, b in lag_balls(state).items()},
            # R-LAG-3: strokes stay hidden; only whether each seat has played is shown.
            played=(a is not None, b is not None),
            winner=state.lag_winner,
            reason=None if state.lag_reason is None else pe.LagReason(state.lag_reason),
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
        phase=PHASES[state.phase],
        discipline=DISCIPLINES[opts.discipline],
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
        connected=state.side_connected(),
        grace_until_ms=state.side_grace(),
        result=result_view(state.result),
        frozen=frozen,
        lag=lag,
        zones=zone_views,
        shooter_slot=state.shooter_slot if state.options.teams else None,
        players=match_players(state),
    )


def options_from_view(options: pv.RoomOptions) -> MatchOptions:
    """The referee's options from ``room.options`` (every option in force, as the room sent
    them): a client's copy of the rules' inputs, the corner-zone leg included (R-DISC-FREE)."""
    return MatchOptions(
        discipline=rules_discipline(options.discipline),
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
        team_mode=TeamMode(options.team_mode),
    )


def state_from_view(view: pv.MatchView, options: MatchOptions) -> MatchState:
    """A real referee state from the ``match`` a client holds: the phase, the balls, who
    shoots with which ball (R-LAG-7), the break, the current game's lines and the zone counts
    of the zones both object balls share (R-DISC-FREE, R-DISC-BALK), so a bot can hand its
    candidate strokes to :func:`shared.rules.judge` exactly as the server will. Earlier games
    of a set match are not in the view; only the current one is rebuilt."""
    balls = tuple((float(view.balls[b][0]), float(view.balls[b][1])) for b in BALLS)
    breaker = view.white_seat if view.white_seat is not None else 0
    # Per player (R-TEAM-1): a team match's players from ``match.players``, in player-index
    # order; in singles the sides are the players.
    n = options.players
    players = sorted(view.players or (), key=lambda p: lineup.player(p.seat, p.slot))
    if len(players) == n:
        connected = tuple(p.connected for p in players)
        grace = tuple(p.grace_until_ms for p in players)
        player_points = tuple(p.points for p in players)
        player_innings = tuple(p.innings for p in players)
        retired = tuple(lineup.player(p.seat, p.slot) for p in players if p.out)
    else:
        connected = tuple(view.connected[lineup.side_of(p)] for p in range(n))
        grace = tuple(view.grace_until_ms[lineup.side_of(p)] for p in range(n))
        player_points = tuple(view.score[lineup.side_of(p)] if p < 2 else 0 for p in range(n))
        player_innings = tuple(view.innings[lineup.side_of(p)] if p < 2 else 0 for p in range(n))
        retired = ()
    current = SetRecord(
        breaker=breaker,
        points=view.score,
        innings=view.innings,
        high_run=view.high_run,
        timeouts_left=view.timeouts_left,
        player_points=player_points,
        player_innings=player_innings,
    )
    slot_up = [0, 0]
    if view.shooter is not None and view.shooter_slot is not None:
        slot_up[view.shooter] = view.shooter_slot
    return MatchState(
        options=options,
        phase=rules_phase(view.phase),
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
        connected=connected,
        grace_deadline=grace,
        slot_up=(slot_up[0], slot_up[1]),
        retired=retired,
    )
