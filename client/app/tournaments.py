"""What the tournaments screen knows, folded from the session's messages (docs/tournaments.md).

Pure: the screen (client/app/tournament_view.py) draws from it, tests fold messages into it.
The text of an event is the terminal's (``client.tournament_cli.show_text``), so both read the
same.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from client.app.words import discipline_title, error_text
from client.tournament_cli import show_text
from shared.protocol import to_client as tc
from shared.protocol import tournament as tw

TOURNAMENT_ERRORS = frozenset(
    {
        "not_organizer",
        "no_such_tournament",
        "tournament_full",
        "registration_closed",
        "not_registered",
        "tournament_over",
        "account_needed",
        "already_registered",
    }
)


STATE_WORDS = {"registration": "open", "running": "playing", "finished": "over"}


@dataclass
class TournamentsState:
    events: list[tw.TournamentSummary] = field(default_factory=list)
    shown: tw.TournamentInfo | None = None  # the event picked (kept fresh by watching it)
    watching: str | None = None
    table: tw.TournamentTable | None = None  # our table, when the server told us one
    message: str = ""

    def fold(self, msg: object) -> None:
        if isinstance(msg, tw.Tournaments):
            self.events = list(msg.tournaments)
        elif isinstance(msg, tw.TournamentInfo):
            if self.watching in (None, msg.tournament_id):
                self.shown = msg
        elif isinstance(msg, tw.TournamentRegistered):
            self.message = (
                "You are registered. You will be seated at your table when your match is due."
                if msg.registered
                else "You gave up your place."
            )
        elif isinstance(msg, tw.TournamentTable):
            self.table = msg
            self.message = (
                f"Round {msg.round}: your table is open, against {msg.opponent or 'a bye'}."
            )
        elif isinstance(msg, tc.Error) and msg.code in TOURNAMENT_ERRORS:
            self.message = error_text(msg.code, msg.message)

    def lines(self) -> list[str]:
        """The picked event as lines of text (players, rounds, tables, the winner)."""
        if self.shown is None:
            return []
        return show_text(self.shown, discipline_title, ids=False).splitlines()

    def registered(self, player_id: str | None) -> bool:
        return self.shown is not None and any(p.player_id == player_id for p in self.shown.players)


def summary_line(s: tw.TournamentSummary) -> str:
    o = s.options
    state = STATE_WORDS.get(s.state, s.state)
    return f"{o.name}: {o.format.replace('_', ' ')}, {s.players}/{o.capacity} ({state})"
