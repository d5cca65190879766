"""Which ball a seat plays (R-LAG-7 / R-PLAY-3), written once for the referee, the wire views and
every client: the match's breaker (``white_seat``) plays white, the other player yellow; before the
break choice seat 0 counts as white (R-LAG-1: the lag balls, and practice)."""

from __future__ import annotations

from shared.table import BallName


def ball_of(white_seat: int | None, seat: int) -> BallName:
    white = 0 if white_seat is None else white_seat
    return "white" if seat == white else "yellow"
