"""Judging one played stroke from its event log (RULES.md §3, §5, §6, §8).

Each rule is a small pure function over the events (see ``events.py``); ``judge_stroke`` runs
them in the order a referee would: push (the stroke's start), ball off the table, the break's
first ball, the carom and the discipline's condition, the zones.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from shared.physics.types import MASSE_ELEVATION, ShotResult, Stroke
from shared.rules.events import (
    by_ball,
    by_kind,
    cushions_before,
    filter_events,
    first,
    object_ball_contacts,
    off_table_balls,
)
from shared.rules.options import Discipline
from shared.rules.placement import Balls, Contact, contact_of, cushion_normals
from shared.rules.verdict import Call, Foul
from shared.rules.zones import Zone, left_zone, shared_zones
from shared.table import BALLS, BallName, TableSpec

# R-FROZEN-1c: a massé may hit the touching ball first only after curving away from it. A first
# contact with the touching ball this soon after the strike means the massé moved it at once.
MASSE_PUSH_WINDOW: Final[float] = 0.005  # s

NUMBER_WORDS: Final = ("no cushion", "one cushion", "two cushions")


@dataclass(frozen=True, slots=True)
class StrokeJudgment:
    points: int
    foul: Foul | None
    calls: tuple[Call, ...]
    zone_counts: tuple[tuple[str, int], ...]
    # The RULES.md ids that decided this stroke (see ``Verdict.rules``).
    rules: tuple[str, ...] = ()


def push_foul(
    stroke: Stroke,
    cue: BallName,
    balls: Balls,
    contact: Contact,
    result: ShotResult,
    table: TableSpec,
) -> Foul | None:
    """R-FROZEN-2 / R-FROZEN-3 → R-FOUL-PUSH: a non-massé stroke (elevation < 30°) with any
    component toward a touching ball pushes it; any stroke, massé included, with a component
    into a touching cushion pushes it."""
    d = (math.cos(math.radians(stroke.direction)), math.sin(math.radians(stroke.direction)))
    p = balls[BALLS.index(cue)]
    for other in contact.balls:
        q = balls[BALLS.index(other)]
        dist = math.dist(p, q)
        toward = (d[0] * (q[0] - p[0]) + d[1] * (q[1] - p[1])) / dist
        if toward <= 1e-9:
            continue
        if stroke.elevation < MASSE_ELEVATION:
            return Foul(
                "R-FOUL-PUSH",
                "push",
                f"Push: the cue ball was struck into the {other} it was touching (R-FROZEN-2).",
            )
        hit = first(filter_events(result.events, by_kind("ball_ball"), by_ball(cue)))
        if hit is not None and other in hit[1].balls and hit[1].t <= MASSE_PUSH_WINDOW:
            return Foul(
                "R-FOUL-PUSH",
                "push",
                f"Push: the massé moved the touching {other} at once (R-FROZEN-1).",
            )
    normals = cushion_normals(table, p)
    for cushion in contact.cushions:
        nx, ny, _ = normals[cushion]
        # R-FROZEN-3: no exception for massé (HE d), unlike a touching ball (R-FROZEN-1c).
        if d[0] * nx + d[1] * ny > 1e-9:
            return Foul(
                "R-FOUL-PUSH",
                "push",
                f"Push: the cue ball was struck into the {cushion} "
                "cushion it was touching (R-FROZEN-3).",
            )
    return None


def off_table_foul(result: ShotResult) -> Foul | None:
    """R-OFF-1 → R-FOUL-OFF."""
    gone = jumped_balls(result)
    if not gone:
        return None
    names = " and ".join(gone)
    return Foul("R-FOUL-OFF", "off_table", f"Foul: the {names} left the table (R-OFF-1).")


def jumped_balls(result: ShotResult) -> list[BallName]:
    """R-OFF-1: balls that left the table — logged off_table (even if they came back, HE) or
    missing from the final state."""
    gone = off_table_balls(result.events)
    return gone + [b for b in BALLS if b not in gone and result.final.get(b, (0.0, 0.0)) is None]


# The rule each discipline scores a carom by (RULES.md §5).
SCORING_RULE: Final[Mapping[Discipline, str]] = {
    Discipline.THREE_CUSHION: "R-DISC-3C",
    Discipline.ONE_CUSHION: "R-DISC-1C",
    Discipline.STRAIGHT_RAIL: "R-DISC-FREE",
    Discipline.BALKLINE_47_2: "R-DISC-BALK",
    Discipline.BALKLINE_47_1: "R-DISC-BALK",
    Discipline.BALKLINE_71_2: "R-DISC-BALK",
    Discipline.BALKLINE_71_1: "R-DISC-BALK",
}


def frozen_rules(contact: Contact, stroke: Stroke) -> tuple[str, ...]:
    """The frozen-ball rules a stroke from ``contact`` is judged by: touching is R-FROZEN-5's
    geometry on the balls' size (R-BALL-1); a touching ball is R-FROZEN-2's push test, or
    R-FROZEN-1c's massé; a touching cushion is R-FROZEN-3's."""
    rules: list[str] = []
    if contact.balls:
        rules += ["R-FROZEN-5", "R-BALL-1", "R-FROZEN-2"]
        if stroke.elevation >= MASSE_ELEVATION:
            rules.append("R-FROZEN-1")
    if contact.cushions:
        rules += ["R-FROZEN-5", "R-BALL-1", "R-FROZEN-3"]
    return tuple(dict.fromkeys(rules))


def required_cushions(discipline: Discipline) -> int:
    """R-DISC-3C: three cushions; R-DISC-1C: one; the others: none."""
    if discipline is Discipline.THREE_CUSHION:
        return 3
    if discipline is Discipline.ONE_CUSHION:
        return 1
    return 0


def zone_rule_is_strict(discipline: Discipline) -> bool:
    """R-DISC-BALK "/1": every carom inside must drive a ball out; "/2" and straight rail's
    corner zones (R-DISC-FREE) allow one carom first."""
    return discipline in (Discipline.BALKLINE_47_1, Discipline.BALKLINE_71_1)


def judge_stroke(
    *,
    discipline: Discipline,
    table: TableSpec,
    zones: tuple[Zone, ...],
    cue: BallName,
    balls: Balls,
    stroke: Stroke,
    result: ShotResult,
    break_shot: bool,
    zone_counts: Mapping[str, int],
) -> StrokeJudgment:
    """Points, foul and the stroke's calls (R-CALL-1) for one stroke from ``balls``."""
    contact = contact_of(balls, cue, table)
    rules = frozen_rules(contact, stroke)
    foul = push_foul(stroke, cue, balls, contact, result, table)
    if foul is None and (foul := off_table_foul(result)) is not None:
        rules += ("R-OFF-1",)
    if foul is not None:
        calls = (Call("foul", foul.text, foul.rule_id),)
        return StrokeJudgment(0, foul, calls, (), (*rules, foul.rule_id))

    contacts = object_ball_contacts(result.events, cue)
    # R-BREAK-2 → R-FOUL-BREAK: on the break the red must be the first ball contacted.
    if break_shot and contacts:
        rules += ("R-BREAK-2",)
    if break_shot and contacts and contacts[0][1] != "red":
        foul = Foul(
            "R-FOUL-BREAK",
            "break",
            f"The break must hit the red first; the {cue} hit "
            f"the {contacts[0][1]} first (R-BREAK-2).",
        )
        calls = (Call("foul", foul.text, foul.rule_id),)
        return StrokeJudgment(0, foul, calls, (), (*rules, foul.rule_id))

    if len(contacts) < 2:
        text = (
            "No ball: the cue ball touched neither object ball."
            if not contacts
            else (f"Miss: the cue ball touched only the {contacts[0][1]}.")
        )
        return StrokeJudgment(0, None, (Call("miss", text, "R-PLAY-1"),), (), (*rules, "R-PLAY-1"))

    # Both object balls were hit: the carom (R-PLAY-1) is judged by the discipline's rule.
    rules += ("R-PLAY-1", SCORING_RULE[discipline])
    second_index = contacts[1][0]
    cushions = cushions_before(result.events, cue, second_index)
    need = required_cushions(discipline)
    if cushions < need:
        rule = "R-DISC-3C" if discipline is Discipline.THREE_CUSHION else "R-DISC-1C"
        made = NUMBER_WORDS[cushions] if cushions < len(NUMBER_WORDS) else f"{cushions} cushions"
        text = f"{made[0].upper()}{made[1:]}: not enough cushions before the second ball."
        return StrokeJudgment(0, None, (Call("miss", text, rule),), (), rules)

    # R-DISC-FREE / R-DISC-BALK: the zones both object balls shared at the start.
    objects = [b for b in BALLS if b != cue]
    a, b = (balls[BALLS.index(o)] for o in objects)
    inside = shared_zones(zones, a, b)
    strict = zone_rule_is_strict(discipline)
    new_counts: list[tuple[str, int]] = []
    checkpoints = _checkpoints(result)
    if any(zone.on_line(a) or zone.on_line(b) for zone in inside):
        rules += ("R-ZONE-LINE",)  # a ball on the zone's line counted inside
    for zone in inside:
        drove_out = any(
            left_zone(
                zone, o, balls[BALLS.index(o)], result.trajectory, checkpoints[o], result.duration
            )
            for o in objects
        )
        restricted = strict or zone_counts.get(zone.name, 0) >= 1
        if restricted and not drove_out:
            rule = "R-DISC-FREE" if discipline is Discipline.STRAIGHT_RAIL else "R-DISC-BALK"
            foul = Foul(
                "R-FOUL-ZONE",
                "zone",
                f"Zone foul: the carom in {zone.name} had to drive an object ball out ({rule}).",
            )
            calls = (Call("foul", foul.text, foul.rule_id),)
            return StrokeJudgment(0, foul, calls, (), (*rules, foul.rule_id))
        # A ball that left and came back re-arms the count (PT Art. 14.3, 20.2): no entry
        # means the next carom inside is the first one again.
        if not drove_out:
            new_counts.append((zone.name, zone_counts.get(zone.name, 0) + 1))

    calls = (Call("good", "Good.", "R-PLAY-1"),)
    return StrokeJudgment(1, None, calls, tuple(new_counts), rules)


def _checkpoints(result: ShotResult) -> dict[BallName, list[tuple[float, float] | None]]:
    """Positions of each ball known from the event log, plus its final position."""
    out: dict[BallName, list[tuple[float, float] | None]] = {b: [] for b in BALLS}
    for e in result.events:
        for ball, state in e.after.items():
            out[ball].append(state.pos)
    for ball in BALLS:
        if ball in result.final:
            out[ball].append(result.final[ball])
    return out
