"""``carom daily``: today's problem — a position from a server's recorded matches that a player
faced and missed — and, with ``--answer``, the bot's best strokes from it (docs/analysis.md
"Daily problem"). Try it first: open a practice room, place the balls where it says, play; then
ask for the answer."""

from __future__ import annotations

import argparse
import datetime
import sys
from typing import TYPE_CHECKING, TextIO

from shared.protocol.enums import Discipline

if TYPE_CHECKING:
    from client.bot.hints import Hint
    from shared.analysis.daily import Position


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", default="ws://127.0.0.1:8765/", help="server URL (ws://HOST:PORT)")
    parser.add_argument("--date", default=None, help="the day (YYYY-MM-DD; default today, UTC)")
    parser.add_argument("--answer", action="store_true", help="also show the bot's best strokes")
    parser.add_argument(
        "--matches", type=int, default=200, help="read at most this many recent matches"
    )


async def positions(url: str, most: int) -> list[Position]:
    """The missed three-cushion positions of the server's latest finished matches."""
    from client.session import Session
    from client.stats import replay_pages
    from shared.analysis.daily import missed_positions
    from shared.protocol import to_client as tc
    from shared.protocol import to_server as ts

    out: list[Position] = []
    async with Session(url, "daily problem", remember_identity=False, reconnect=False) as s:
        before: int | None = None
        seen = 0
        while seen < most:
            page = await s.ask(ts.ListMatches(limit=100, before=before), tc.Matches)
            if not page.matches:
                break
            for row in page.matches[: most - seen]:
                seen += 1
                if row.discipline == Discipline.THREE_CUSHION:
                    for replay in await replay_pages(s, row.match_id):
                        out += missed_positions(replay)
            before = page.matches[-1].match_id
    return out


def _at(p: tuple[float, float], dia: float) -> str:
    return f"{p[0] / dia:.1f} diamonds up the table, {p[1] / dia:.1f} across"


def describe(position: Position, day: datetime.date, out: TextIO) -> None:
    from shared.table import BALLS, table_by_name

    dia = table_by_name(position.table).length / 8
    out.write(f"Problem of {day:%d %B %Y}: the {position.cue} to play, three cushions.\n")
    for name, p in zip(BALLS, position.balls, strict=True):
        out.write(f"  {name}: {_at(p, dia)} (x {p[0]:.4f} m, y {p[1]:.4f} m)\n")


def describe_answer(found: list[Hint], out: TextIO) -> None:
    from shared.analysis.reading import speed_words, tip_words
    from shared.table import MATCH

    if not found:
        out.write("The bot finds no scoring stroke here either: play safe.\n")
        return
    out.write("The bot's best strokes:\n")
    for i, h in enumerate(found, 1):
        s = h.stroke
        out.write(
            f"  {i}. {h.sentence}: aim {s.direction:.1f}°, {speed_words(s.speed)}, "
            f"{tip_words(s.tip_x, s.tip_y, MATCH.ball_radius)}\n"
        )


def run(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    import asyncio

    from client.session import ServerError
    from shared.analysis.daily import pick

    day = (
        datetime.date.fromisoformat(args.date)
        if args.date
        else datetime.datetime.now(datetime.UTC).date()
    )
    try:
        found = asyncio.run(positions(args.url, args.matches))
    except KeyboardInterrupt:
        return 130
    except ServerError as exc:
        print(f"carom daily: the server refused: {exc.message}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"carom daily: cannot reach {args.url}: {exc}", file=sys.stderr)
        return 1
    position = pick(found, day)
    if position is None:
        out.write("No recorded three-cushion position to make a problem of yet.\n")
        return 0
    describe(position, day, out)
    if args.answer:
        from client.bot.daily import answer

        describe_answer(answer(position), out)
    return 0
