"""A tournament as a pure state machine: registration, the draw, rounds, results, the winner.

Theory of operation. A :class:`Tournament` is plain data changed only by its methods, each of
which takes the time (``now``, server milliseconds) as an argument and never reads a clock,
opens a socket or touches the store. The runner (``server/tournaments.py``) is the shell: it
calls :meth:`Tournament.due` when the next deadline comes (:meth:`Tournament.next_deadline`),
carries out the :class:`OpenTable` and :class:`CloseTable` steps it returns, and feeds back what
the rooms report (a player seated, a match started, a match finished). After every change the
runner stores the tournament, so a restart resumes from the rows.

Life cycle (``phase``)::

    registration --(starts_ms, >= 2 players: the draw)--> running --(last result)--> finished
         |  \\--(starts_ms, fewer than 2 players)--> cancelled
         \\--(the organizer cancels; also while running)--> cancelled

Rounds. A round's matches open together; the next round is made (knockout, Swiss) or opened
(round robin) when every match of the round has a result. A match whose table is open and whose
match has not started within ``no_show_s`` is decided by who took their seat (R-END-5 applied
by the event, not the room: the room only starts a match once both seats are filled): the one
seated wins with reason ``no_show``; nobody seated, both lose, and in a knockout the next round's
opponent gets a bye. A knockout match drawn (an innings limit) goes to the better seed, as the
seeding is the only order the event has; ``abandoned`` (both players gone) counts as both lost.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from server.core.brackets import (
    Line,
    Pairing,
    Played,
    knockout_first_round,
    knockout_next_round,
    round_robin_rounds,
    snake_groups,
    swiss_pairings,
    table,
)

CAPACITY_MIN: Final = 2
CAPACITY_MAX: Final = 256
NAME_MAX: Final = 60
NO_SHOW_DEFAULT_S: Final = 300
NO_SHOW_MAX_S: Final = 3600
SWISS_ROUNDS_MAX: Final = 20
GROUPS_MAX: Final = 32
DEFAULT_RATING: Final = 1500.0


class Format(StrEnum):
    KNOCKOUT = "knockout"
    ROUND_ROBIN = "round_robin"
    SWISS = "swiss"


class Phase(StrEnum):
    REGISTRATION = "registration"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class MatchState(StrEnum):
    WAITING = "waiting"  # its players are known; the table is not open yet
    OPEN = "open"  # the table is open: players take their seats, then play
    DONE = "done"  # a result (or a bye)


# Reasons the event itself gives a result (the room's own are its Termination words).
NO_SHOW: Final = "no_show"  # R-END-5: a player did not take their seat in time
BYE: Final = "bye"  # a knockout's empty place, a Swiss odd field, a double no-show before
EMPTY: Final = "empty"  # a knockout match with no player left (two double no-shows before it)
CANCELLED: Final = "cancelled"  # the event was cancelled before this match had a result
BOTH_LOST: Final = frozenset({NO_SHOW, "abandoned", CANCELLED})  # winner None: nobody won


class TournamentError(Exception):
    """A request the event refuses; ``code`` is the wire's error code, the message a sentence."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class TournamentOptions:
    """What an organizer chose. Times are server milliseconds; ``rounds`` is for Swiss only,
    ``groups`` for round robin only. The discipline, distance and innings limit are checked by
    the room options' own table where a room is made (``server/tournaments.py``)."""

    name: str
    discipline: str
    distance: int
    format: Format
    capacity: int
    registration_closes_ms: int
    starts_ms: int
    no_show_s: int = NO_SHOW_DEFAULT_S
    innings_limit: int | None = None
    rounds: int | None = None
    groups: int | None = None

    def problem(self, now_ms: int) -> str | None:
        """Why these options cannot make an event (a sentence), or None."""
        if not self.name.strip() or len(self.name) > NAME_MAX:
            return f"A tournament needs a name of 1 to {NAME_MAX} characters."
        if not CAPACITY_MIN <= self.capacity <= CAPACITY_MAX:
            return f"The capacity must be from {CAPACITY_MIN} to {CAPACITY_MAX} players."
        if self.registration_closes_ms > self.starts_ms:
            return "Registration must close before (or when) the tournament starts."
        if self.starts_ms <= now_ms:
            return "The start time must be in the future."
        if not 1 <= self.no_show_s <= NO_SHOW_MAX_S:
            return f"The no-show time must be from 1 to {NO_SHOW_MAX_S} seconds."
        if self.format is Format.SWISS:
            if self.rounds is None or not 1 <= self.rounds <= SWISS_ROUNDS_MAX:
                return f"A Swiss tournament needs from 1 to {SWISS_ROUNDS_MAX} rounds."
        elif self.rounds is not None:
            return "Only a Swiss tournament has a set number of rounds."
        if self.format is Format.ROUND_ROBIN:
            groups = self.groups or 1
            if not 1 <= groups <= GROUPS_MAX or 2 * groups > self.capacity:
                return "Each group needs at least two places: fewer groups or more capacity."
        elif self.groups is not None:
            return "Only a round robin has groups."
        return None


@dataclass(slots=True)
class Entrant:
    player_id: str
    name: str
    registered_ms: int
    rating: float = DEFAULT_RATING  # at the draw (seeding)
    seed: int | None = None  # 1 = best; set by the draw


@dataclass(frozen=True, slots=True)
class Score:
    """One player's side of a played match (from the room's scoresheet)."""

    points: int = 0
    innings: int = 0
    high_run: int = 0


@dataclass(slots=True)
class TMatch:
    """One match of the event. ``a``/``b`` are player ids (``b`` None: a bye); ``winner`` a
    player id (None with a result: both lost, or a draw when ``reason`` is a room's word)."""

    round: int  # 0-based
    index: int  # within the round (a knockout's bracket position)
    a: str | None
    b: str | None
    group: int | None = None  # round robin: which group
    state: MatchState = MatchState.WAITING
    room_id: str | None = None
    match_id: int | None = None
    opened_ms: int | None = None
    seated: list[str] = field(default_factory=list)  # who took their seat (no-show check)
    winner: str | None = None
    reason: str | None = None
    score_a: Score | None = None
    score_b: Score | None = None

    @property
    def key(self) -> tuple[int, int]:
        return (self.round, self.index)

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(p for p in (self.a, self.b) if p is not None)

    @property
    def drawn(self) -> bool:
        return (
            self.state is MatchState.DONE
            and self.winner is None
            and self.reason not in (BOTH_LOST | {BYE, EMPTY})
        )

    def no_show_at(self, no_show_s: int) -> int | None:
        """When this open match's players must have started (None: not waiting for them)."""
        if self.state is not MatchState.OPEN or self.match_id is not None:
            return None
        assert self.opened_ms is not None
        return self.opened_ms + no_show_s * 1000


@dataclass(frozen=True, slots=True)
class OpenTable:
    """Open a room for this match and seat its players (the runner's step)."""

    key: tuple[int, int]
    players: tuple[str, str]


@dataclass(frozen=True, slots=True)
class CloseTable:
    """The match is decided without being played (a no-show, a cancel): close its room."""

    key: tuple[int, int]
    room_id: str


Step = OpenTable | CloseTable


@dataclass(slots=True)
class Tournament:
    tournament_id: str
    organizer: str  # player id
    options: TournamentOptions
    created_ms: int
    phase: Phase = Phase.REGISTRATION
    entrants: list[Entrant] = field(default_factory=list)
    rounds: list[list[TMatch]] = field(default_factory=list)
    groups: list[list[str]] = field(default_factory=list)  # round robin, by seed order
    winner: str | None = None
    version: int = 0  # bumped by every change (watchers are told; the store keeps it)
    # What changed since the store last wrote it (the store clears them): only those rows are
    # written again, so a result costs a few rows, not the whole bracket.
    changed: set[tuple[int, int]] = field(default_factory=set, compare=False)
    entrants_changed: bool = field(default=False, compare=False)

    # Registration --------------------------------------------------------------------------
    def register(self, player_id: str, name: str, now: int) -> Entrant:
        self._registration_open(now)
        if any(e.player_id == player_id for e in self.entrants):
            raise TournamentError("already_registered", "You are registered already.")
        if len(self.entrants) >= self.options.capacity:
            raise TournamentError("tournament_full", "The tournament is full.")
        entrant = Entrant(player_id, name, now)
        self.entrants.append(entrant)
        self.entrants_changed = True
        self.version += 1
        return entrant

    def unregister(self, player_id: str, now: int) -> None:
        self._registration_open(now)
        kept = [e for e in self.entrants if e.player_id != player_id]
        if len(kept) == len(self.entrants):
            raise TournamentError("not_registered", "You are not registered in this tournament.")
        self.entrants = kept
        self.entrants_changed = True
        self.version += 1

    def _registration_open(self, now: int) -> None:
        if self.phase is not Phase.REGISTRATION or now >= self.options.registration_closes_ms:
            raise TournamentError(
                "registration_closed", "Registration for this tournament is closed."
            )

    def cancel(self, now: int) -> list[Step]:
        """The organizer cancels: open tables close, matches without a result get none."""
        if self.phase in (Phase.FINISHED, Phase.CANCELLED):
            raise TournamentError("tournament_over", "The tournament is over already.")
        steps: list[Step] = []
        for m in self.matches():
            if m.state is not MatchState.DONE:
                if m.room_id is not None and m.match_id is None:
                    steps.append(CloseTable(m.key, m.room_id))
                m.state, m.reason = MatchState.DONE, CANCELLED
                self._changed(m)
        self.phase = Phase.CANCELLED
        self.version += 1
        return steps

    # Running -------------------------------------------------------------------------------
    def next_deadline(self) -> int | None:
        """When :meth:`due` has something to do next (None: only the rooms can move it on)."""
        if self.phase is Phase.REGISTRATION:
            return self.options.starts_ms
        if self.phase is not Phase.RUNNING:
            return None
        times = [t for m in self.matches() if (t := m.no_show_at(self.options.no_show_s))]
        if any(m.state is MatchState.WAITING for m in self.current()):
            return 0  # tables to open now
        return min(times) if times else None

    def due(self, now: int, ratings: Mapping[str, float] | None = None) -> list[Step]:
        """Everything that is due at ``now``: the draw (with the entrants' ``ratings`` for the
        seeding), no-shows, the next round, tables to open. One call does all that is due; the
        tables it asks for stay ``waiting`` until :meth:`table_opened` (asked again next time
        if opening failed)."""
        steps: list[Step] = []
        if self.phase is Phase.REGISTRATION and now >= self.options.starts_ms:
            if len(self.entrants) < 2:
                self.phase = Phase.CANCELLED
                self.version += 1
                return steps
            self._draw(ratings or {})
        if self.phase is not Phase.RUNNING:
            return steps
        for m in list(self.matches()):
            at = m.no_show_at(self.options.no_show_s)
            if at is not None and now >= at:
                steps.extend(self._no_show(m))
        self._advance()
        for m in self.current():
            if m.state is MatchState.WAITING and m.a is not None and m.b is not None:
                steps.append(OpenTable(m.key, (m.a, m.b)))
        return steps

    def table_opened(self, key: tuple[int, int], room_id: str, now: int) -> None:
        m = self.match(key)
        m.state, m.room_id, m.opened_ms = MatchState.OPEN, room_id, now
        self._changed(m)

    def seated(self, key: tuple[int, int], player_id: str) -> None:
        m = self.match(key)
        if player_id in m.players and player_id not in m.seated:
            m.seated.append(player_id)
            self._changed(m)

    def started(self, key: tuple[int, int], match_id: int) -> None:
        m = self.match(key)
        if m.state is MatchState.OPEN and m.match_id is None:
            m.match_id = match_id
            m.seated = list(m.players)
            self._changed(m)

    def finished(
        self,
        key: tuple[int, int],
        winner: str | None,
        reason: str,
        scores: Mapping[str, Score],
    ) -> None:
        """A played match's result (``winner`` a player id; None a draw or ``abandoned``)."""
        m = self.match(key)
        if m.state is MatchState.DONE:
            return  # told twice (a restart replays the event): counted once
        self._decide(m, winner, reason)
        m.score_a = scores.get(m.a or "")
        m.score_b = scores.get(m.b or "")
        self._changed(m)
        self._advance()

    # Views ---------------------------------------------------------------------------------
    def matches(self) -> list[TMatch]:
        return [m for r in self.rounds for m in r]

    def match(self, key: tuple[int, int]) -> TMatch:
        return self.rounds[key[0]][key[1]]

    def match_of_room(self, room_id: str) -> TMatch | None:
        for m in self.matches():
            if m.room_id == room_id:
                return m
        return None

    def current(self) -> list[TMatch]:
        """The round being played: the first with a match lacking a result."""
        for r in self.rounds:
            if any(m.state is not MatchState.DONE for m in r):
                return r
        return []

    def entrant(self, player_id: str) -> Entrant | None:
        return next((e for e in self.entrants if e.player_id == player_id), None)

    def seeds(self) -> dict[str, int]:
        return {e.player_id: e.seed for e in self.entrants if e.seed is not None}

    def standings(self) -> list[list[Line]]:
        """Round robin: one table per group; Swiss: one table; knockout: none."""
        results = [p for m in self.matches() for p in played(m)]
        if self.options.format is Format.ROUND_ROBIN:
            return [table(g, results, self.seeds()) for g in self.groups]
        if self.options.format is Format.SWISS:
            return [table([e.player_id for e in self.entrants], results, self.seeds())]
        return []

    def still_in(self, player_id: str) -> bool:
        """Has the player a match to come (or one under way)?"""
        if self.phase is Phase.REGISTRATION:
            return self.entrant(player_id) is not None
        if self.phase is not Phase.RUNNING:
            return False
        if self.options.format is Format.KNOCKOUT:
            # The last round always has a match to play while running (_advance makes the next
            # one as soon as a round completes): in it, or through it on a bye.
            return any(
                player_id in m.players and (m.state is not MatchState.DONE or m.winner == player_id)
                for m in self.rounds[-1]
            )
        return self.entrant(player_id) is not None

    # Inside --------------------------------------------------------------------------------
    def _draw(self, ratings: Mapping[str, float]) -> None:
        for e in self.entrants:
            e.rating = ratings.get(e.player_id, DEFAULT_RATING)
        # Seeds by rating, best first; equal ratings by who registered first.
        ordered = sorted(self.entrants, key=lambda e: (-e.rating, e.registered_ms, e.player_id))
        for i, e in enumerate(ordered):
            e.seed = i + 1
        self.entrants = ordered
        self.entrants_changed = True
        seeded = [e.player_id for e in ordered]
        fmt = self.options.format
        if fmt is Format.KNOCKOUT:
            self.rounds = [self._round(0, knockout_first_round(seeded))]
        elif fmt is Format.ROUND_ROBIN:
            groups = min(self.options.groups or 1, len(seeded) // 2)
            self.groups = snake_groups(seeded, groups)
            per_group = [round_robin_rounds(g) for g in self.groups]
            for r in range(max(len(g) for g in per_group)):
                pairs = [(gi, p) for gi, g in enumerate(per_group) if r < len(g) for p in g[r]]
                self.rounds.append(
                    [TMatch(r, i, p.a, p.b, group=gi) for i, (gi, p) in enumerate(pairs)]
                )
                self.changed.update(m.key for m in self.rounds[-1])
        else:
            self._swiss_round()
        self.phase = Phase.RUNNING
        self.version += 1

    def _round(self, r: int, pairings: Sequence[Pairing | None]) -> list[TMatch]:
        out = []
        for i, p in enumerate(pairings):
            if p is None:
                out.append(TMatch(r, i, None, None, state=MatchState.DONE, reason=EMPTY))
            elif p.b is None:
                out.append(TMatch(r, i, p.a, None, state=MatchState.DONE, winner=p.a, reason=BYE))
            else:
                out.append(TMatch(r, i, p.a, p.b))
        self.changed.update(m.key for m in out)
        return out

    def _swiss_round(self) -> bool:
        """Pair the next Swiss round; False when every pairing would be a rematch."""
        wanted = min(self.options.rounds or 1, len(self.entrants) - 1)
        if len(self.rounds) >= wanted:
            return False
        seeds = self.seeds()
        ranked = (
            [ln.player_id for ln in self.standings()[0]]
            if self.rounds
            else sorted(seeds, key=lambda p: seeds[p])
        )
        met = [frozenset(m.players) for m in self.matches() if len(m.players) == 2]
        byes = [m.a for m in self.matches() if m.reason == BYE and m.a is not None]
        pairings = swiss_pairings(ranked, met, byes)
        if pairings is None:
            return False
        self.rounds.append(self._round(len(self.rounds), pairings))
        return True

    def _no_show(self, m: TMatch) -> list[Step]:
        """R-END-5 for the event: the seated player wins; nobody seated, both lose."""
        present = [p for p in m.players if p in m.seated]
        m.state, m.reason = MatchState.DONE, NO_SHOW
        m.winner = present[0] if len(present) == 1 else None
        self._changed(m)
        return [CloseTable(m.key, m.room_id)] if m.room_id is not None else []

    def _decide(self, m: TMatch, winner: str | None, reason: str) -> None:
        m.state, m.reason = MatchState.DONE, reason
        if winner is None and reason not in BOTH_LOST and self.options.format is Format.KNOCKOUT:
            # A knockout needs someone to go on: a draw goes to the better seed.
            seeds = self.seeds()
            winner = min(m.players, key=lambda p: seeds.get(p, 1 << 30))
        m.winner = winner

    def _advance(self) -> None:
        """While the last round is complete: make the next, or finish the event."""
        while self.phase is Phase.RUNNING and not self.current():
            fmt = self.options.format
            if fmt is Format.KNOCKOUT:
                last = self.rounds[-1]
                if len(last) == 1:
                    self._finish(last[0].winner)
                    return
                winners = [m.winner for m in last]
                self.rounds.append(self._round(len(self.rounds), knockout_next_round(winners)))
            elif fmt is Format.SWISS:
                if not self._swiss_round():
                    self._finish(self.standings()[0][0].player_id)
                    return
            else:
                tops = [t[0] for t in self.standings() if t]
                best = table(
                    [ln.player_id for ln in tops],
                    [p for m in self.matches() for p in played(m)],
                    self.seeds(),
                )
                self._finish(best[0].player_id if best else None)
                return
            self.version += 1

    def _changed(self, m: TMatch) -> None:
        self.changed.add(m.key)
        self.version += 1

    def _finish(self, winner: str | None) -> None:
        self.phase, self.winner = Phase.FINISHED, winner
        self.version += 1


def played(m: TMatch) -> list[Played]:
    """The table lines a finished match adds: a bye is a win without innings; both lost, two
    losses; a draw, two draws."""
    if m.state is not MatchState.DONE or m.reason in (EMPTY, CANCELLED):
        return []
    out = []
    for player, score in ((m.a, m.score_a), (m.b, m.score_b)):
        if player is None:
            continue
        if m.winner == player:
            outcome = "win"
        elif m.drawn:
            outcome = "draw"
        else:
            outcome = "loss"
        s = score or Score()
        out.append(Played(player, outcome, s.points, s.innings, s.high_run))
    return out
