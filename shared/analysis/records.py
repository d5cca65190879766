"""A match's replay (the ``replay`` pages a server sends, or the store's rows in that form) as
the ``MatchLog`` the statistics count."""

from __future__ import annotations

from collections.abc import Sequence

from shared.analysis.patterns import attempted, route
from shared.analysis.stats import MatchLog, StrokeLog
from shared.analysis.wire import events_from_views
from shared.protocol.to_client import LagResult, Replay, StrokePlayed
from shared.protocol.views import Placed, ReplayStroke
from shared.table import TableSpec, table_by_name


def seat_of(replay: Replay, player: str) -> int | None:
    """The seat ``player`` (a name, or a player id) sat in, or None."""
    for seat, ref in enumerate(replay.room.players):
        if player in (ref.name, ref.player_id):
            return seat
    return None


def table_of(replay: Replay) -> TableSpec:
    name = replay.room.options.table
    return table_by_name(name) if name else table_by_name("match")


def stroke_log(
    entry: ReplayStroke, body: StrokePlayed, ready_ms: int | None, table: TableSpec
) -> StrokeLog:
    """One stored stroke: what it scored and the route its cue ball followed."""
    cue = body.stroke.ball
    steps = route(events_from_views(body.events), body.trajectory.segments(), cue, table)
    return StrokeLog(
        n=entry.n,
        seat=body.shooter,
        points=body.result.points,
        foul=body.result.foul is not None,
        played_ms=body.start_ms,
        think_ms=None if ready_ms is None else max(0, body.start_ms - ready_ms),
        route=attempted(steps),
    )


def match_log(pages: Sequence[Replay], player: str) -> MatchLog | None:
    """The match of ``pages`` (one replay, every page in order) from ``player``'s seat, or None
    if they did not play in it."""
    if not pages:
        return None
    head = pages[0]
    seat = seat_of(head, player)
    if seat is None:
        return None
    table = table_of(head)
    ready: int | None = None  # when the table was last ready for a stroke
    strokes: list[StrokeLog] = []
    for page in pages:
        for entry in page.strokes:
            body = entry.body
            if isinstance(body, StrokePlayed):
                strokes.append(stroke_log(entry, body, ready, table))
                ready = body.rest_ms
            elif isinstance(body, LagResult):
                ready = body.rest_ms
            elif isinstance(body, Placed):
                ready = entry.played_ms
            else:  # a clock foul: the next player's turn starts now
                ready = entry.played_ms
    return MatchLog(
        match_id=head.match_id,
        discipline=head.room.discipline,
        seat=seat,
        started_ms=head.room.started_ms,
        finished_ms=head.room.finished_ms,
        strokes=tuple(strokes),
    )
