"""``carom stats --player NAME``: a player's statistics from the matches a server recorded.

A thin shell: it asks the server for finished matches (``list_matches``) and their replays
(``get_replay``, every page), hands them to the pure core (``shared/analysis``), prints the
numbers and, with ``--out DIR``, writes each chart as SVG and PNG. docs/analysis.md says what
each number means.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from client.session import Session
    from shared.analysis.charts import Chart
    from shared.analysis.stats import MatchLog, PlayerStats
    from shared.protocol import to_client as tc

DEFAULT_MATCHES = 200


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--player", required=True, help="the player's name (or player id)")
    parser.add_argument("--url", default="ws://127.0.0.1:8765/", help="server URL (ws://HOST:PORT)")
    parser.add_argument(
        "--discipline", default="three_cushion", help="which discipline (default three_cushion)"
    )
    parser.add_argument(
        "--matches",
        type=int,
        default=DEFAULT_MATCHES,
        help=f"read at most this many of the player's latest matches (default {DEFAULT_MATCHES})",
    )
    parser.add_argument("--out", metavar="DIR", help="also save the charts here (SVG and PNG)")


async def fetch_logs(session: Session, player: str, most: int) -> list[MatchLog]:
    """The player's finished matches, newest first, as match logs."""
    from shared.analysis.records import match_log
    from shared.protocol import to_client as tc
    from shared.protocol import to_server as ts

    logs: list[MatchLog] = []
    before: int | None = None
    while len(logs) < most:
        page = await session.ask(ts.ListMatches(limit=100, before=before), tc.Matches)
        if not page.matches:
            break
        for row in page.matches:
            if any(player in (p.name, p.player_id) for p in row.players):
                log = match_log(await replay_pages(session, row.match_id), player)
                if log is not None:
                    logs.append(log)
                if len(logs) >= most:
                    break
        before = page.matches[-1].match_id
    return logs


async def replay_pages(session: Session, match_id: int) -> list[tc.Replay]:
    """Every page of one match's replay."""
    from shared.protocol import to_client as tc
    from shared.protocol import to_server as ts

    pages: list[tc.Replay] = []
    after: int | None = None
    while True:
        page = await session.ask(ts.GetReplay(match_id=match_id, after=after), tc.Replay)
        pages.append(page)
        if page.next_after is None:
            return pages
        after = page.next_after


async def player_logs(url: str, player: str, most: int = DEFAULT_MATCHES) -> list[MatchLog]:
    """The player's finished matches (every discipline), read over a connection of their own
    that closes when they are read. The desktop client's statistics screen reads them this way
    too, so its numbers are the command's."""
    from client.session import Session

    async with Session(url, "statistics", remember_identity=False, reconnect=False) as session:
        return await fetch_logs(session, player, most)


async def gather(url: str, player: str, discipline: str, most: int) -> PlayerStats:
    from shared.analysis.stats import player_stats

    return player_stats(await player_logs(url, player, most), discipline)


def report(player: str, stats: PlayerStats, out: TextIO) -> None:
    """The statistics as sentences and small tables a person reads."""
    name = stats.discipline.replace("_", " ")
    n = len(stats.matches)
    out.write(f"{player} — {name}: {n} match{'es' if n != 1 else ''}, {stats.strokes} strokes\n")
    if not stats.innings:
        out.write("No innings recorded yet.\n")
        return
    out.write(
        f"General average {stats.average:.3f} ({stats.points} points in {stats.innings} "
        f"innings), high run {stats.high_run}\n"
    )
    if stats.mean_think_s is not None and stats.median_think_s is not None:
        out.write(
            f"Time per stroke: {stats.median_think_s:.1f} s median, "
            f"{stats.mean_think_s:.1f} s mean\n"
        )
    out.write("\nAverage over time (match by match):\n")
    first = max(0, n - 10)
    for number, m in enumerate(stats.matches[first:], first + 1):
        when = time.strftime("%d %b %Y %H:%M", time.gmtime(m.when_ms / 1000))
        out.write(
            f"  match {number} ({when} UTC): {m.points} in {m.innings} innings = "
            f"{m.average:.3f}, all so far {m.cumulative_average:.3f}\n"
        )
    out.write("\nRuns (points in one inning: innings):\n")
    out.write("  " + ", ".join(f"{k}: {v}" for k, v in stats.runs.items()) + "\n")
    out.write("\nBy pattern (strokes whose cue ball followed it, points, success):\n")
    for p in stats.patterns:
        out.write(f"  {p.pattern.label:<26} {p.attempts:>4} {p.points:>4}  {p.success:6.1%}\n")
    out.write("\nBy how the inning began (innings, points, average):\n")
    for o in stats.openings:
        out.write(f"  {o.opening.label:<30} {o.innings:>4} {o.points:>4}  {o.average:.3f}\n")


def write_charts(stats: PlayerStats, folder: Path) -> list[Path]:
    """Each chart as ``NAME.svg`` and ``NAME.png`` in ``folder``; the paths written."""
    from shared.analysis.charts import all_charts, to_svg

    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for chart in all_charts(stats):
        svg = folder / f"{chart.name}.svg"
        svg.write_text(to_svg(chart), encoding="utf-8")
        png = folder / f"{chart.name}.png"
        draw_png(chart, png)
        written += [svg, png]
    return written


def draw_png(chart: Chart, path: Path) -> None:
    """The same shapes drawn with Pillow."""
    from PIL import Image, ImageDraw, ImageFont

    from shared.analysis.charts import Line, Rect

    image = Image.new("RGB", (chart.width, chart.height), "#ffffff")
    pen = ImageDraw.Draw(image)
    fonts: dict[int, ImageFont.FreeTypeFont | ImageFont.ImageFont] = {}
    for s in chart.shapes:
        if isinstance(s, Rect):
            pen.rectangle((s.x, s.y, s.x + s.w, s.y + s.h), fill=s.fill)
        elif isinstance(s, Line):
            pen.line(list(s.points), fill=s.color, width=max(1, round(s.width)))
        else:
            font = fonts.setdefault(s.size, ImageFont.load_default(s.size))
            anchor = {"start": "ls", "middle": "ms", "end": "rs"}[s.anchor]
            pen.text((s.x, s.y), s.text, fill=s.color, font=font, anchor=anchor)
    image.save(path)


def run(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    import asyncio

    from client.session import ServerError

    try:
        stats = asyncio.run(gather(args.url, args.player, args.discipline, args.matches))
    except KeyboardInterrupt:
        return 130
    except ServerError as exc:
        print(f"carom stats: the server refused: {exc.message}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"carom stats: cannot reach {args.url}: {exc}", file=sys.stderr)
        return 1
    report(args.player, stats, out)
    if args.out:
        paths = write_charts(stats, Path(args.out))
        out.write(f"\nCharts saved: {', '.join(str(p) for p in paths)}\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="carom stats")
    configure(parser)
    return run(parser.parse_args(argv))
