"""What the ranking screen knows: the account this window plays as, the quick-match wait, the
last leaderboard and profile, and the last rating change (docs/accounts.md). Pure: the
controller folds every server message in; the views only read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from client.app.model import RequestFailed
from client.app.words import discipline_title, error_text, reason_text
from shared.protocol import to_client as tc
from shared.protocol.enums import MatchOutcome
from shared.protocol.views import LeaderRow

# Requests of the ranking screen: when one fails on its way, the screen says so itself.
ACCOUNT_REQUESTS = frozenset({"login", "register", "queue", "unqueue", "leaderboard", "profile"})
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


@dataclass
class StandingState:
    account: str | None = None  # the registered name this window plays as
    asked_name: str | None = None  # the name of the login/register on its way
    waiting_since: float | None = None  # server ms when queued; None when not waiting
    queued_rating: float | None = None
    board_discipline: str | None = None
    board: list[LeaderRow] = field(default_factory=list)
    profile: tc.Profile | None = None
    rated: tc.Rated | None = None  # the last ``rated`` (our own rating change)
    message: str = ""

    def fold(self, msg: object, now_ms: float = 0.0) -> None:
        """Fold one event of the session (a protocol message; anything else is not ours)."""
        if isinstance(msg, tc.Welcome) and self.asked_name is not None:
            self.account, self.asked_name = self.asked_name, None
            self.message = f"Logged in as {self.account}."
            self.waiting_since = None  # the server forgets a ticket of the old identity
        elif isinstance(msg, tc.Queued):
            self.waiting_since = now_ms
            self.queued_rating = msg.rating
            self.message = "Looking for an opponent of about your strength…"
        elif isinstance(msg, tc.Unqueued):
            self.waiting_since = None
            self.message = "You left quick match."
        elif isinstance(msg, tc.Joined):
            if self.waiting_since is not None:
                self.message = "Opponent found."
            self.waiting_since = None
        elif isinstance(msg, tc.Leaderboard):
            self.board_discipline = msg.discipline
            self.board = list(msg.rows)
        elif isinstance(msg, tc.Profile):
            self.profile = msg
        elif isinstance(msg, tc.Rated):
            self.rated = msg
        elif isinstance(msg, tc.Error) and msg.code in ACCOUNT_ERRORS:
            self.asked_name = None
            self.message = error_text(msg.code, msg.message)
        elif isinstance(msg, RequestFailed) and msg.request in ACCOUNT_REQUESTS:
            self.asked_name = None
            self.message = error_text(msg.error.code, msg.error.message)

    @property
    def waiting(self) -> bool:
        return self.waiting_since is not None


def waiting_text(waited_s: float) -> str:
    s = max(0, int(waited_s))
    return f"Looking for an opponent… {s // 60}:{s % 60:02d}"


def rating_text(rating: float, deviation: float | None) -> str:
    if deviation is None:
        return f"{rating:.0f}"
    return f"{rating:.0f} ± {2 * deviation:.0f}"  # ±2 deviations: 95 %


def board_cells(row: LeaderRow) -> tuple[str, ...]:
    """One leaderboard line: rank, name, rating (± its 95 % range), games, record, general
    average, best high run. A provisional rating says so in words."""
    st = row.standing
    name = row.name + (" (new)" if st.provisional else "")
    return (
        str(row.rank),
        name,
        rating_text(st.rating, st.deviation),
        str(st.games),
        f"{st.wins}–{st.draws}–{st.losses}",
        f"{st.average:.3f}",
        str(st.high_run),
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


def profile_lines(profile: tc.Profile) -> list[str]:
    """The profile as sentences: who, their standing per discipline, their last matches."""
    kind = "a bot" if profile.bot else ("registered" if profile.registered else "a guest")
    lines = [f"{profile.name} ({kind})"]
    for row in profile.standings:
        title = discipline_title(row.discipline)
        s = row.standing
        lines.append(
            f"{title[:1].upper() + title[1:]}: rating "
            f"{rating_text(s.rating, s.deviation)}, {s.games} games "
            f"({s.wins} won, {s.draws} drawn, {s.losses} lost), "
            f"average {s.average:.3f}, high run {s.high_run}"
        )
    if len(lines) == 1:
        lines.append("No rated matches yet.")
    if profile.matches:
        lines.append("Last matches:")
    for m in profile.matches:
        opp = "?" if m.opponent is None else m.opponent.name
        outcome = OUTCOMES.get(m.result, "?")
        line = (
            f"{outcome} {m.score[0]}–{m.score[1]} against {opp}, "
            f"{discipline_title(m.discipline)} ({reason_text(m.reason)}), "
            f"average {m.average:.3f}"
        )
        if m.rating_after is not None:
            line += f", rating {rating_change(m.rating_before, m.rating_after)}"
        lines.append(line)
    return lines


OUTCOMES = {MatchOutcome.WIN: "won", MatchOutcome.LOSS: "lost", MatchOutcome.DRAW: "drew"}


def rating_change(before: float | None, after: float | None) -> str:
    if before is None or after is None:
        return "–"
    return f"{before:.0f} → {after:.0f} ({after - before:+.0f})"


def rated_text(rated: tc.Rated | None, match_id: int | None) -> str:
    """The line the results screen shows under the scoresheet after a rated match."""
    if rated is None or rated.match_id != match_id:
        return ""
    return f"Your rating: {rating_change(rated.before, rated.after)}"
