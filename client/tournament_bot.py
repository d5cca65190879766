"""``carom bot --account NAME --tournament ID``: a bot that plays its way through an event.

It registers in the event (already registered is fine: a restarted bot carries on), watches it,
and plays each match the server seats it at (``joined`` arrives unasked). A match it wins
because the opponent never came ends with ``left`` instead (the server takes it out of the
table). It returns once it is out: knocked out, or the event finished or was cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from shared.protocol import ErrorCode
from shared.protocol import to_client as tc
from shared.protocol import tournament as tw


def still_in(info: tw.TournamentInfo, player_id: str) -> bool:
    """Whether ``player_id`` has more to play in the event as ``info`` shows it."""
    if info.state in ("finished", "cancelled"):
        return False
    if not any(p.player_id == player_id for p in info.players):
        return False
    if info.options.format != "knockout":
        return True
    for r in info.rounds:
        for m in r.matches:
            if m.state == "done" and player_id in m.players and m.winner != player_id:
                return False  # lost a knockout match (or both lost): out
    return True


def describe(info: tw.TournamentInfo, player_id: str) -> str:
    """One line for the end: where the bot finished."""
    if info.state == "cancelled":
        return f"the tournament {info.options.name} was cancelled"
    if info.winner == player_id:
        return f"won the tournament {info.options.name}"
    for table in info.standings:
        for place, line in enumerate(table.lines, 1):
            if line.player_id == player_id:
                return (
                    f"placed {place} of {len(table.lines)} in {info.options.name} "
                    f"({line.match_points} match points)"
                )
    won = sum(1 for r in info.rounds for m in r.matches if m.winner == player_id)
    return f"out of {info.options.name} after {won} match{'es' if won != 1 else ''} won"


async def play_tournament(
    session: Any,
    tournament_id: str,
    play_match: Callable[[], Awaitable[tc.GameOver]],
    say: Callable[[str], None],
) -> str:
    """Register, then play every match the event gives us (``play_match`` plays the one we are
    seated at); the closing line once we are out."""
    from client.session import ServerError

    inbox: asyncio.Queue[Any] = asyncio.Queue()

    def listen(msg: Any) -> None:
        if isinstance(msg, tw.TournamentInfo | tw.TournamentTable) or (
            isinstance(msg, tc.Joined | tc.Left) and msg.re is None
        ):
            inbox.put_nowait(msg)

    session.listeners.append(listen)
    me = session.state.player_id
    try:
        try:
            await session.request(tw.TournamentRegister(tournament_id=tournament_id))
            say(f"registered in tournament {tournament_id}")
        except ServerError as exc:
            if exc.code != ErrorCode.ALREADY_REGISTERED:
                raise
            say(f"registered in tournament {tournament_id} already")
        info = await session.request(tw.WatchTournament(tournament_id=tournament_id))
        assert isinstance(info, tw.TournamentInfo)
        while still_in(info, me):
            msg = await inbox.get()
            if isinstance(msg, tw.TournamentInfo):
                info = msg
            elif isinstance(msg, tw.TournamentTable):
                say(f"round {msg.round}: table {msg.room_id} against {msg.opponent}")
            elif isinstance(msg, tc.Joined):
                await _play_one(session, play_match, inbox, say)
        return describe(info, me)
    finally:
        session.listeners.remove(listen)


async def _play_one(
    session: Any,
    play_match: Callable[[], Awaitable[tc.GameOver]],
    inbox: asyncio.Queue[Any],
    say: Callable[[str], None],
) -> None:
    """Play the match at the table we were just seated at, or stop when the server takes us
    out of it (the opponent did not come)."""
    while not session.events.empty():  # what came before this table (an old game_over)
        session.events.get_nowait()
    taken_out = asyncio.ensure_future(
        session.wait_for(lambda m: isinstance(m, tc.Left) and m.re is None)
    )
    playing = asyncio.ensure_future(play_match())
    try:
        await asyncio.wait({playing, taken_out}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (playing, taken_out):
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
    if playing.done() and not playing.cancelled() and playing.exception() is None:
        over = playing.result()
        # The bot stays at the finished table: the server takes it out when its next table
        # opens. Leaving by itself would race that move, and a ``leave`` that reaches the
        # server after it lands in the new room and gives that match away.
        say(f"match over: {over.reason}")
    elif playing.done() and not playing.cancelled() and playing.exception() is not None:
        raise playing.exception()  # type: ignore[misc]
    else:
        say("the opponent did not come: won by no-show")
