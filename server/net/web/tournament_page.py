"""``/tournament/<id>``: an event's bracket or table as a plain page (docs/tournaments.md).

Rendered on the server from the same ``tournament`` message the wire sends, with no script: it
reloads itself every few seconds while the event is not over (a ``Refresh`` header, allowed by
the pages' content security policy, which forbids inline code). Every table that is open links
to the browser client's ``/room/<id>`` page, where it can be watched.
"""

from __future__ import annotations

import html
from typing import Final

from shared.protocol import tournament as tw

REFRESH_S: Final = 5
FORMAT_NAMES: Final = {"knockout": "knockout", "round_robin": "round robin", "swiss": "Swiss"}
STATE_NAMES: Final = {
    "registration": "registration open",
    "running": "under way",
    "finished": "finished",
    "cancelled": "cancelled",
}
REASONS: Final = {
    "bye": "bye",
    "no_show": "no-show",
    "concede": "conceded",
    "forfeit": "forfeit",
    "distance": "",
    "innings_limit": "innings limit",
    "equalized": "draw",
    "abandoned": "abandoned",
    "cancelled": "cancelled",
}


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def render(t: tw.TournamentInfo, stylesheet: str = "") -> str:
    """The whole page for ``t``."""
    names = {p.player_id: p.name for p in t.players}
    o = t.options
    parts = [
        "<!doctype html>\n",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Carom: {_e(o.name)}</title>",
        '<meta name="color-scheme" content="dark">',
        '<link rel="icon" href="data:,">',
        f'<link rel="stylesheet" href="{_e(stylesheet)}">' if stylesheet else "",
        '</head><body class="tournament">',
        f"<h1>{_e(o.name)}</h1>",
        f"<p>{_e(FORMAT_NAMES.get(o.format, o.format))}, {_e(o.discipline.replace('_', ' '))} "
        f"to {o.distance}, organized by {_e(t.organizer)}: "
        f"<strong>{_e(STATE_NAMES.get(t.state, t.state))}</strong>. "
        f"{len(t.players)} of {o.capacity} players.</p>",
    ]
    if t.winner:
        parts.append(f'<p class="winner">Winner: {_e(names.get(t.winner, t.winner))}</p>')
    if t.players:
        parts.append("<h2>Players</h2><ol>")
        for p in t.players:
            parts.append(f"<li>{_e(p.name)}</li>")
        parts.append("</ol>")
    for r in t.rounds:
        parts.append(f"<h2>Round {r.round}</h2><ul>")
        for m in r.matches:
            line = _match_line(m, names)
            if line:
                parts.append(f"<li>{line}</li>")
        parts.append("</ul>")
    for table in t.standings:
        title = "Table" if table.group is None else f"Group {table.group + 1}"
        parts.append(
            f"<h2>{title}</h2><table><tr><th>#</th><th>Player</th><th>Played</th>"
            "<th>Match points</th><th>Average</th><th>High run</th></tr>"
        )
        for i, ln in enumerate(table.lines, 1):
            parts.append(
                f"<tr><td>{i}</td><td>{_e(ln.name)}</td><td>{ln.played}</td>"
                f"<td>{ln.match_points}</td><td>{ln.average:.3f}</td><td>{ln.high_run}</td></tr>"
            )
        parts.append("</table>")
    parts.append("</body></html>\n")
    return "".join(parts)


def _match_line(m: tw.TournamentMatch, names: dict[str, str]) -> str:
    who = [_e(names.get(p, p)) for p in m.players]
    if not who:
        return ""
    if len(who) == 1:
        return f"{who[0]}: bye"
    score = ""
    if m.score:
        score = " " + "–".join(str(s.points) if s else "0" for s in m.score)
    if m.state == "done":
        reason = REASONS.get(m.reason or "", m.reason or "")
        why = f" ({_e(reason)})" if reason else ""
        points = [s.points if s else 0 for s in m.score or ()]
        if m.reason in ("equalized", "innings_limit") and len(set(points)) == 1:
            through = _e(names.get(m.winner, "")) if m.winner else ""
            # a knockout gives a drawn match to the better seed
            result = f"drawn, {through} goes through as the better seed" if through else "drawn"
            return f"{who[0]} v {who[1]}{score}: {result}"
        if m.winner:
            return f"{who[0]} v {who[1]}{score}: {_e(names.get(m.winner, ''))} wins{why}"
        return f"{who[0]} v {who[1]}{score}: no winner{why}"
    if m.room_id:
        return (
            f'{who[0]} v {who[1]}: <a href="/room/{_e(m.room_id)}">'
            f"{'playing' if m.match_id else 'at the table'}, watch</a>"
        )
    return f"{who[0]} v {who[1]}: waiting"
