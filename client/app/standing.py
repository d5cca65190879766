"""What the ranking screen knows: the account this window plays as, the quick-match wait, the
last leaderboard and profile, and the last rating change (docs/accounts.md). Pure: the
controller folds every server message in; the views only read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from client.app.hud import discipline_title
from client.app.words import error_text, reason_text

# Refusals the ranking screen explains itself (others go to the screen the player is on).
ACCOUNT_ERRORS = frozenset(
    {
        "name_taken",
        "bad_name",
        "bad_login",
        "already_registered",
        "rate_limited",
        "queue_full",
        "no_such_player",
        "already_in_room",  # login or quick match from a room (the lobby shows its own too)
    }
)
ACCOUNT_REQUESTS = frozenset({"login", "register", "queue", "unqueue", "leaderboard", "profile"})


@dataclass
class StandingState:
    account: str | None = None  # the registered name this window plays as
    asked_name: str | None = None  # the name of the login/register on its way
    waiting_since: float | None = None  # server ms when queued; None when not waiting
    queued_rating: float | None = None
    board_discipline: str | None = None
    board: list[dict[str, Any]] = field(default_factory=list)
    profile: dict[str, Any] | None = None
    rated: dict[str, Any] | None = None  # the last ``rated`` (our own rating change)
    message: str = ""

    def fold(self, msg: Mapping[str, Any], now_ms: float = 0.0) -> None:
        t = msg.get("t")
        if t == "welcome" and self.asked_name is not None:
            self.account, self.asked_name = self.asked_name, None
            self.message = f"Logged in as {self.account}."
            self.waiting_since = None  # the server forgets a ticket of the old identity
        elif t == "queued":
            self.waiting_since = now_ms
            self.queued_rating = _num(msg.get("rating"))
            self.message = "Looking for an opponent of about your strength…"
        elif t == "unqueued":
            self.waiting_since = None
            self.message = "You left quick match."
        elif t == "joined":
            if self.waiting_since is not None:
                self.message = "Opponent found."
            self.waiting_since = None
        elif t == "leaderboard":
            self.board_discipline = str(msg.get("discipline"))
            rows = msg.get("rows")
            self.board = [dict(r) for r in rows] if isinstance(rows, list) else []
        elif t == "profile":
            self.profile = dict(msg)
        elif t == "rated":
            self.rated = dict(msg)
        elif t == "error" and (
            msg.get("code") in ACCOUNT_ERRORS or msg.get("request") in ACCOUNT_REQUESTS
        ):
            self.asked_name = None
            self.message = error_text(str(msg.get("code")), str(msg.get("message") or ""))

    @property
    def waiting(self) -> bool:
        return self.waiting_since is not None


def _num(v: object) -> float | None:
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def waiting_text(waited_s: float) -> str:
    s = max(0, int(waited_s))
    return f"Looking for an opponent… {s // 60}:{s % 60:02d}"


def rating_text(rating: object, deviation: object) -> str:
    r, d = _num(rating), _num(deviation)
    if r is None:
        return "–"
    return f"{r:.0f}" if d is None else f"{r:.0f} ± {2 * d:.0f}"  # ±2 deviations: 95 %


def board_cells(row: Mapping[str, Any]) -> tuple[str, ...]:
    """One leaderboard line: rank, name, rating (± its 95 % range), games, record, general
    average, best high run. A provisional rating says so in words."""
    name = str(row.get("name", "?"))
    if row.get("provisional"):
        name += " (new)"
    return (
        str(row.get("rank", "")),
        name,
        rating_text(row.get("rating"), row.get("deviation")),
        str(row.get("games", 0)),
        f"{row.get('wins', 0)}–{row.get('draws', 0)}–{row.get('losses', 0)}",
        f"{_num(row.get('average')) or 0.0:.3f}",
        str(row.get("high_run", 0)),
    )


BOARD_COLUMNS = (
    ("#", 0),
    ("Player", 50),
    ("Rating", 330),
    ("Games", 480),
    ("Won–drawn–lost", 570),
    ("Average", 740),
    ("High run", 850),
)


def profile_lines(profile: Mapping[str, Any]) -> list[str]:
    """The profile as sentences: who, their standing per discipline, their last matches."""
    name = str(profile.get("name", "?"))
    kind = (
        "a bot"
        if profile.get("bot")
        else ("registered" if profile.get("registered") else "a guest")
    )
    lines = [f"{name} ({kind})"]
    standings = profile.get("standings")
    for s in standings if isinstance(standings, list) else []:
        title = discipline_title(str(s.get("discipline")))
        lines.append(
            f"{title[:1].upper() + title[1:]}: rating "
            f"{rating_text(s.get('rating'), s.get('deviation'))}, {s.get('games', 0)} games "
            f"({s.get('wins', 0)} won, {s.get('draws', 0)} drawn, {s.get('losses', 0)} lost), "
            f"average {_num(s.get('average')) or 0.0:.3f}, high run {s.get('high_run', 0)}"
        )
    if len(lines) == 1:
        lines.append("No rated matches yet.")
    matches = profile.get("matches")
    if isinstance(matches, list) and matches:
        lines.append("Last matches:")
    for m in matches if isinstance(matches, list) else []:
        opp = m.get("opponent") or {}
        score = m.get("score") or [0, 0]
        outcome = {"win": "won", "loss": "lost", "draw": "drew"}.get(str(m.get("result")), "?")
        line = (
            f"{outcome} {score[0]}–{score[1]} against {opp.get('name', '?')}, "
            f"{discipline_title(str(m.get('discipline')))} ({reason_text(m.get('reason'))}), "
            f"average {_num(m.get('average')) or 0.0:.3f}"
        )
        if "rating_after" in m:
            line += f", rating {rating_change(m.get('rating_before'), m.get('rating_after'))}"
        lines.append(line)
    return lines


def rating_change(before: object, after: object) -> str:
    b, a = _num(before), _num(after)
    if b is None or a is None:
        return "–"
    return f"{b:.0f} → {a:.0f} ({a - b:+.0f})"


def rated_text(rated: Mapping[str, Any] | None, match_id: object) -> str:
    """The line the results screen shows under the scoresheet after a rated match."""
    if not rated or rated.get("match_id") != match_id:
        return ""
    return f"Your rating: {rating_change(rated.get('before'), rated.get('after'))}"
