"""``carom tournament create|list|show|cancel``: tournaments from a terminal (docs/tournaments.md).

``create`` and ``cancel`` log in as an organizer (``--account NAME``, the password from
``$CAROM_PASSWORD``); ``list`` and ``show`` need no account. Times are given as minutes from
now and sent in the server's time (the session measures the offset).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from shared.protocol.enums import EndReason

FORMATS = ("knockout", "round_robin", "swiss")
# What the desktop's text (``ids=False``) says for an event's state and a match's reason: words,
# not the wire's values (the terminal keeps those).
STATES = {"running": "under way", "finished": "finished", "cancelled": "cancelled"}
REASONS = {
    EndReason.NO_SHOW: "no-show",
    EndReason.CONCEDE: "conceded",
    EndReason.FORFEIT: "forfeit",
    EndReason.INNINGS_LIMIT: "innings limit",
    EndReason.EQUALIZED: "draw",
    EndReason.ABANDONED: "abandoned",
}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", default="ws://127.0.0.1:8765/", help="server URL (ws://HOST:PORT)")
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    create = sub.add_parser("create", help="create a tournament (organizers)")
    create.add_argument("name", help="the tournament's name")
    create.add_argument("--account", required=True, help="your organizer account")
    create.add_argument("--discipline", default="three_cushion")
    create.add_argument("--distance", type=int, default=15, help="points to win (default 15)")
    create.add_argument("--innings-limit", type=int, default=None)
    create.add_argument("--format", choices=FORMATS, default="knockout")
    create.add_argument("--capacity", type=int, default=16, help="places, 2-256 (default 16)")
    create.add_argument(
        "--starts-in", type=float, default=30.0, help="minutes from now (default 30)"
    )
    create.add_argument(
        "--closes-in",
        type=float,
        default=None,
        help="registration closes this many minutes from now (default: at the start)",
    )
    create.add_argument("--no-show", type=int, default=None, help="no-show time, s (default 300)")
    create.add_argument("--rounds", type=int, default=None, help="Swiss: rounds to play")
    create.add_argument("--groups", type=int, default=None, help="round robin: groups")
    sub.add_parser("list", help="the tournaments on the server")
    show = sub.add_parser("show", help="one tournament: players, rounds, tables")
    show.add_argument("tournament_id")
    cancel = sub.add_parser("cancel", help="cancel a tournament (its organizer)")
    cancel.add_argument("tournament_id")
    cancel.add_argument("--account", required=True, help="your organizer account")


def run(args: argparse.Namespace) -> int:
    import asyncio

    from client.session import ConnectionLost, ServerError
    from shared.protocol.errors import BadField

    try:
        print(asyncio.run(_run(args)))
    except ServerError as exc:
        print(f"carom tournament: {exc.message}", file=sys.stderr)
        return 1
    except (OSError, ConnectionError, ConnectionLost) as exc:
        print(f"carom tournament: cannot reach {args.url}: {exc}", file=sys.stderr)
        return 1
    except (LoginNeeded, BadField) as exc:  # BadField: an option out of its range
        print(f"carom tournament: {exc}", file=sys.stderr)
        return 2
    return 0


class LoginNeeded(Exception):
    pass


async def _run(args: argparse.Namespace) -> str:
    import os

    from client.session import Session
    from shared.protocol import tournament as tw

    session = Session(args.url, "organizer", remember_identity=False)
    await session.connect()
    try:
        if getattr(args, "account", None):
            password = os.getenv("CAROM_PASSWORD", "")
            if not password:
                raise LoginNeeded("--account needs the password in the CAROM_PASSWORD variable")
            await session.login(args.account, password)
        if args.action == "list":
            found = await session.request(tw.ListTournaments())
            assert isinstance(found, tw.Tournaments)
            return list_text(found, session.server_now_ms())
        if args.action == "show":
            t = await session.request(tw.GetTournament(tournament_id=args.tournament_id))
            assert isinstance(t, tw.TournamentInfo)
            return show_text(t)
        if args.action == "cancel":
            t = await session.request(tw.TournamentCancel(tournament_id=args.tournament_id))
            assert isinstance(t, tw.TournamentInfo)
            return f"cancelled {t.options.name} ({t.tournament_id})"
        now = session.server_now_ms()
        starts = now + int(args.starts_in * 60_000)
        closes = starts if args.closes_in is None else now + int(args.closes_in * 60_000)
        created = await session.request(
            tw.TournamentCreate(
                name=args.name,
                discipline=args.discipline,
                distance=args.distance,
                format=args.format,
                capacity=args.capacity,
                registration_closes_ms=closes,
                starts_ms=starts,
                no_show_s=args.no_show,
                innings_limit=args.innings_limit,
                rounds=args.rounds,
                groups=args.groups,
            )
        )
        assert isinstance(created, tw.TournamentCreated)
        return f"created {args.name}: {created.tournament_id}"
    finally:
        await session.close()


def _minutes(ms: int) -> str:
    m = round(ms / 60_000)
    return f"in {m} min" if m >= 0 else f"{-m} min ago"


def list_text(found: Any, now_ms: int) -> str:
    if not found.tournaments:
        return "no tournaments"
    lines = []
    for s in found.tournaments:
        o = s.options
        when = f"starts {_minutes(o.starts_ms - now_ms)}"
        won = f", won by {s.winner}" if s.winner else ""
        lines.append(
            f"{s.tournament_id}  {o.name}: {o.format.replace('_', ' ')}, {o.discipline} to "
            f"{o.distance}, {s.players}/{o.capacity} players, {s.state} ({when}){won}"
        )
    return "\n".join(lines)


def show_text(t: Any, discipline: Callable[[str], str] = str, ids: bool = True) -> str:
    """The event as plain text: its players by seed, each round's matches, the tables. The
    desktop passes its discipline titles and no ids (words for people on screen)."""
    names = {p.player_id: p.name for p in t.players}

    def name(player_id: str) -> str:
        return names.get(player_id, player_id)

    o = t.options
    tid = f" ({t.tournament_id})" if ids else ""
    state = t.state if ids else STATES.get(t.state, t.state)
    out = [
        f"{o.name}{tid}: {o.format.replace('_', ' ')}, {discipline(o.discipline)} to "
        f"{o.distance}, organized by {t.organizer}: {state}"
    ]
    out.append(
        "players: " + ", ".join(f"{p.seed}. {p.name}" if p.seed else p.name for p in t.players)
        if t.players
        else "players: none yet"
    )
    for r in t.rounds:
        out.append(f"round {r.round}:")
        for m in r.matches:
            who = [name(p) for p in m.players]
            if not who:
                continue
            if len(who) == 1:
                out.append(f"  {who[0]}: bye" if m.reason == EndReason.BYE else f"  {who[0]}")
                continue
            score = ""
            if m.score:
                score = " " + "-".join(str(s.points) if s else "0" for s in m.score)
            if m.state == "done":
                why = m.reason if ids else REASONS.get(m.reason, "") if m.reason else ""
                if not ids and _drawn(m):  # a knockout gives a drawn match to the better seed
                    why = ""
                    result = (
                        f"drawn, {name(m.winner)} goes through as the better seed"
                        if m.winner
                        else "drawn"
                    )
                else:
                    result = f"{name(m.winner)} wins" if m.winner else "no winner"
                out.append(f"  {who[0]} v {who[1]}{score}: {result}" + (f" ({why})" if why else ""))
            elif m.room_id:
                where = f"at table {m.room_id}" if ids else "at their table"
                out.append(f"  {who[0]} v {who[1]}: {where}")
            else:
                out.append(f"  {who[0]} v {who[1]}: waiting")
    for table in t.standings:
        out.append("table" if table.group is None else f"group {table.group + 1}:")
        for i, ln in enumerate(table.lines, 1):
            out.append(
                f"  {i}. {ln.name}: {ln.match_points} pts, average {ln.average:.3f}, "
                f"high run {ln.high_run}"
            )
    if t.winner:
        out.append(f"winner: {name(t.winner)}")
    return "\n".join(out)


def _drawn(m: Any) -> bool:
    """A match that ended level (equal innings, or the innings limit on equal points)."""
    points = [x.points if x else 0 for x in m.score or ()]
    drawn_reasons = (EndReason.EQUALIZED, EndReason.INNINGS_LIMIT)
    return m.reason in drawn_reasons and len(points) == 2 and points[0] == points[1]
