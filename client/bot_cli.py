"""``carom bot``: connect a bot player to a server and play whole matches.

Module-level imports stay light (argparse only): the session, the search and the physics load
in :func:`run`.
"""

from __future__ import annotations

import argparse
from typing import Any

from shared.protocol import DISCIPLINES  # the wire names, one list
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.enums import Phase
from shared.protocol.errors import ErrorCode


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", default="ws://127.0.0.1:8765/", help="server URL (ws://HOST:PORT)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--room", help="join this room")
    where.add_argument(
        "--create", metavar="DISCIPLINE", choices=DISCIPLINES, help="create a room and join it"
    )
    where.add_argument(
        "--queue",
        metavar="DISCIPLINE",
        choices=DISCIPLINES,
        help="wait in quick match (a bot account is offered to players who waited; unrated); "
        "with --matches N it plays N quick matches, queueing again after each",
    )
    where.add_argument(
        "--tournament",
        metavar="ID",
        default=None,
        help="register in this tournament (needs --account) and play each match the server "
        "seats the bot at; exits when the bot is out (client/tournament_bot.py)",
    )
    parser.add_argument(
        "--account",
        metavar="NAME",
        default=None,
        help="log in as this registered bot account (password from $CAROM_BOT_PASSWORD); "
        "registered as a bot account first if the name is free",
    )
    parser.add_argument(
        "--level", type=int, default=3, choices=range(1, 6), help="1 (beginner) to 5"
    )
    parser.add_argument(
        "--name",
        default=None,
        help="player name; a named bot keeps its identity between runs (default: bot-L<level>)",
    )
    parser.add_argument("--distance", type=int, default=None, help="points to play to (--create)")
    parser.add_argument(
        "--shot-clock", type=float, default=None, help="shot clock in seconds (--create)"
    )
    parser.add_argument(
        "--no-equalizing", action="store_true", help="no equalizing inning (--create, R-END-2)"
    )
    parser.add_argument(
        "--team-mode",
        choices=("singles", "doubles", "scotch"),
        default=None,
        help="two players a side (--create): doubles (partners take the side's innings in "
        "turn) or scotch (partners alternate strokes); partners join with --room ID",
    )
    parser.add_argument("--matches", type=int, default=1, help="matches to play (rematches)")
    parser.add_argument("--think", type=float, default=None, help="cap on thinking per stroke (s)")
    parser.add_argument(
        "--tempo",
        type=float,
        default=0.0,
        help="prefer strokes that rest sooner (value lost per second of table time, e.g. 0.02)",
    )
    parser.add_argument(
        "--personality",
        choices=("attacking", "balanced", "safe"),
        default="attacking",
        help="attacking never plays safe; balanced and safe leave the opponent the hardest "
        "position when the attack is unlikely (levels 3-5; docs/bots.md)",
    )
    parser.add_argument(
        "--explain",
        action="store_true",
        help="say each choice in one sentence in the room's chat (carom watch shows it)",
    )
    parser.add_argument("--identity", default=None, help="identity file (default ~/.config/carom)")
    parser.add_argument("--seed", type=int, default=None, help="random seed (reproducible errors)")
    parser.add_argument("--quiet", action="store_true", help="print only the result")


def run(args: argparse.Namespace) -> int:
    import asyncio
    import sys

    from client.bot.pool import stop_resource_tracker
    from client.session import ConnectionLost, ServerError

    try:
        result = asyncio.run(_until_signalled(play(args)))
    except (KeyboardInterrupt, asyncio.CancelledError):
        return 130
    except (OSError, ConnectionError) as exc:
        print(f"carom bot: cannot reach {args.url}: {exc}", file=sys.stderr)
        return 1
    except (BotFailed, ConnectionLost, ServerError) as exc:
        print(f"carom bot: {exc}", file=sys.stderr)
        return 1
    finally:
        stop_resource_tracker()
    print(result, flush=True)
    return 0


class BotFailed(Exception):
    pass


async def _until_signalled(work: Any) -> Any:
    """Run ``work``; SIGTERM (how ``carom play`` stops its bot) cancels it instead of killing
    the process on the spot, so the thinking process is stopped on the way out (``play``'s
    ``finally``) rather than left behind."""
    import asyncio
    import contextlib
    import signal

    task = asyncio.ensure_future(work)
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):  # not on Windows
        loop.add_signal_handler(signal.SIGTERM, task.cancel)
    try:
        return await task
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGTERM)


async def play(args: argparse.Namespace) -> str:
    from client.bot.player import BotPlayer
    from client.bot.pool import stop_pool, thinking_pool
    from client.identity import IdentityStore
    from client.session import ServerError, Session

    name = args.name or args.account or f"bot-L{args.level}"
    quiet = bool(args.quiet)

    def say(line: str) -> None:
        if not quiet:
            print(f"[{name}] {line}", flush=True)

    identity = IdentityStore(args.identity) if args.identity else None
    # A bot keeps its identity (ratings, history) when it has a name of its own; unnamed bots
    # are strangers each run, so two of them can sit at one table.
    remember = args.name is not None or args.identity is not None
    session = Session(args.url, name, identity=identity, remember_identity=remember)
    await session.connect()
    try:
        if args.account:
            await _log_in(session, args.account)
            say(f"logged in as the bot account {args.account}")
        if args.tournament:
            if not args.account:
                raise BotFailed("--tournament needs --account NAME (a tournament seats accounts)")
            return await _tournament(session, args, say)
        room_id = args.room
        try:
            if args.queue:
                say(f"waiting in quick match ({args.queue})")
                seat = await session.quick_match(args.queue, args.distance, args.level)
                room_id = session.state.room_id
            elif args.create:
                options: dict[str, Any] = {}
                if args.distance is not None:
                    options["distance"] = args.distance
                if args.shot_clock is not None:
                    options["shot_clock_s"] = args.shot_clock
                if args.no_equalizing:
                    options["equalizing"] = False
                if args.team_mode is not None:
                    options["team_mode"] = args.team_mode
                room_id = await session.create_room(args.create, **options)
                say(f"created room {room_id} ({args.create})")
            elif room_id is None:
                room_id = await _find_room(session)
                say(f"joining room {room_id}")
            if not args.queue:
                seat = await session.join(room_id)
        except ServerError as exc:
            raise BotFailed(f"could not join a room: {exc}") from None
        slot = session.state.slot
        partner = "" if slot is None else f", player {slot + 1} of its side"
        say(f"seated in room {room_id} at seat {seat}{partner}, level {args.level}")
        # Thinking runs in its own process: the search holds the GIL for seconds, and the
        # connection must keep answering pings meanwhile.
        pool = thinking_pool()
        try:
            bot = BotPlayer(
                session,
                args.level,
                executor=pool,
                seed=args.seed,
                think_s=args.think,
                tempo=args.tempo,
                say=say,
                personality=args.personality,
                explain=args.explain,
            )
            if not args.queue:
                over = await bot.play_match(rematches=max(0, args.matches - 1))
            else:  # quick match: a new opponent for each match (a bot pool for the server)
                over = await bot.play_match()
                for _ in range(args.matches - 1):
                    say(describe_result(over, seat))
                    # Wait for ``left``: a queue request that overtook the leave would be
                    # refused (still in the room).
                    await session.request(ts.Leave())
                    session.state.leave_room()
                    say(f"waiting in quick match again ({args.queue})")
                    seat = await session.quick_match(args.queue, args.distance, args.level)
                    over = await bot.play_match()
        finally:
            stop_pool(pool)
        return describe_result(over, seat)
    finally:
        await session.close()


async def _tournament(session: Any, args: argparse.Namespace, say: Any) -> str:
    from client.bot.player import BotPlayer
    from client.bot.pool import stop_pool, thinking_pool
    from client.session import ServerError
    from client.tournament_bot import play_tournament

    pool = thinking_pool()
    try:
        bot = BotPlayer(
            session,
            args.level,
            executor=pool,
            seed=args.seed,
            think_s=args.think,
            tempo=args.tempo,
            say=say,
        )
        try:
            return await play_tournament(session, args.tournament, bot.play_match, say)
        except ServerError as exc:
            raise BotFailed(f"could not play in tournament {args.tournament}: {exc}") from None
    finally:
        stop_pool(pool)


async def _log_in(session: Any, name: str) -> None:
    """Log in as a bot account; register it (marked as a bot) when the name is free."""
    import os

    from client.session import ServerError

    password = os.environ.get("CAROM_BOT_PASSWORD", "")
    if not password:
        raise BotFailed("--account needs the password in the CAROM_BOT_PASSWORD variable")
    try:
        await session.login(name, password)
        return
    except ServerError as exc:
        if exc.code != ErrorCode.BAD_LOGIN:
            raise BotFailed(f"could not log in as {name}: {exc}") from None
    try:
        await session.register(name, password, bot=True)
    except ServerError as exc:
        # Taken: the name exists and the password was wrong (one answer for both, on purpose).
        raise BotFailed(f"could not log in or register as {name}: {exc}") from None


async def _find_room(session: Any) -> str:
    """The first public room waiting for a player, or a new three-cushion room."""
    for room in await session.list_rooms():
        if room.phase == Phase.WAITING and not room.private and None in room.players:
            return str(room.room_id)
    room_id: str = await session.create_room("three_cushion")
    return room_id


def describe_result(over: tc.GameOver, seat: int) -> str:
    lines = over.scoresheet.match
    score = f" {lines[seat].points}-{lines[1 - seat].points}"
    if over.winner is None:
        return f"draw{score} ({over.reason})"
    return f"{'won' if over.winner == seat else 'lost'}{score} ({over.reason})"
