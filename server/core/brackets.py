"""Draws and pairings of the three tournament formats, and the tables they are ranked by.

Pure functions over player ids (strings, in seed order: the first is seed 1). Nothing here
knows of rooms, clocks or storage; :mod:`server.core.tournament` calls them when a round is due.

- Knockout: the bracket of the next power of two, seeds placed so that 1 and 2 can meet only in
  the final (1 v 16, 8 v 9, …); the missing places are byes, which go to the best seeds.
- Round robin: groups filled in snake order by seed (1, 2, 3, 4 | 8, 7, 6, 5 …), each group's
  rounds by the circle method (with an odd group, one player sits each round out).
- Swiss: players by score (then by seed) paired top down with no rematch, found by a search that
  backs up when the last players could only meet again; an odd field gives the lowest player who
  has not had one a bye.

A group's or a Swiss table is ordered as carom federations order theirs: match points (2 a win,
1 a draw, 0 a loss), then the general average (points over innings), then the best high run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

WIN_POINTS = 2
DRAW_POINTS = 1
SEARCH_LIMIT = 200_000  # pairing attempts before a Swiss round is declared unpairable


@dataclass(frozen=True, slots=True)
class Pairing:
    """Two players to meet; ``b`` None is a bye for ``a`` (a win without a match)."""

    a: str
    b: str | None


def bracket_size(n: int) -> int:
    """The smallest power of two that holds ``n`` players (at least 2)."""
    size = 2
    while size < n:
        size *= 2
    return size


def seed_positions(size: int) -> list[int]:
    """Seed numbers (1-based) in bracket order for a power-of-two ``size``: adjacent pairs meet
    in the first round, and seeds 1 and 2 sit in opposite halves (1, 4, 3, 2 for four)."""
    if size < 2 or size & (size - 1):
        raise ValueError(f"a bracket holds a power of two players, not {size}")
    order = [1, 2]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [s for seed in order for s in (seed, total - seed)]
    return order


def knockout_first_round(seeded: Sequence[str]) -> list[Pairing]:
    """The first round of a knockout of ``seeded`` players (best first); byes to the best seeds."""
    if len(seeded) < 2:
        raise ValueError("a knockout needs at least two players")
    order = seed_positions(bracket_size(len(seeded)))
    slots = [seeded[s - 1] if s <= len(seeded) else None for s in order]
    pairings = []
    for i in range(0, len(slots), 2):
        a, b = slots[i], slots[i + 1]
        # A seed never meets an empty place on the right: the better seed is always placed
        # first, and byes fill the worst places, so ``a`` is never None.
        assert a is not None
        pairings.append(Pairing(a, b))
    return pairings


def knockout_next_round(winners: Sequence[str | None]) -> list[Pairing | None]:
    """The next round from the previous round's winners in bracket order (None: both players of
    that match lost, a double no-show). A match with one player is a bye; with none, nothing
    (None keeps its place so the bracket stays aligned)."""
    out: list[Pairing | None] = []
    for i in range(0, len(winners), 2):
        a, b = winners[i], winners[i + 1] if i + 1 < len(winners) else None
        if a is None and b is None:
            out.append(None)
        elif a is None:
            assert b is not None
            out.append(Pairing(b, None))
        else:
            out.append(Pairing(a, b))
    return out


def snake_groups(seeded: Sequence[str], groups: int) -> list[list[str]]:
    """``groups`` groups filled in snake order, so each group gets a fair share of the seeds."""
    if groups < 1:
        raise ValueError("at least one group")
    if len(seeded) < 2 * groups:
        raise ValueError(f"{len(seeded)} players cannot fill {groups} groups of at least two")
    out: list[list[str]] = [[] for _ in range(groups)]
    for i, player in enumerate(seeded):
        lap, pos = divmod(i, groups)
        out[pos if lap % 2 == 0 else groups - 1 - pos].append(player)
    return out


def round_robin_rounds(group: Sequence[str]) -> list[list[Pairing]]:
    """Every pairing of ``group`` once, in rounds (circle method). With an odd group each round
    has one player out; that player has no match (a round robin gives no points for a bye)."""
    players: list[str | None] = list(group)
    if len(players) % 2:
        players.append(None)
    n = len(players)
    rounds = []
    for _ in range(n - 1):
        pairs = []
        for i in range(n // 2):
            a, b = players[i], players[n - 1 - i]
            if a is not None and b is not None:
                pairs.append(Pairing(a, b))
        rounds.append(pairs)
        players = [players[0], players[-1], *players[1:-1]]
    return rounds


def swiss_pairings(
    ranked: Sequence[str],
    met: Iterable[frozenset[str]],
    had_bye: Iterable[str] = (),
) -> list[Pairing] | None:
    """One Swiss round: ``ranked`` best first (by score, then seed); no two players who ``met``
    meet again. The bye (odd field) goes to the lowest-ranked player without one. None when no
    such pairing exists (the event has run out of new opponents)."""
    met_set = set(met)
    byes = set(had_bye)
    players = list(ranked)
    if len(players) % 2:
        candidates = [p for p in reversed(players) if p not in byes] or list(reversed(players))
        # Try the candidates in order: the first whose removal leaves a pairable field.
        for candidate in candidates:
            rest = [p for p in players if p != candidate]
            pairs = _pair_search(rest, met_set)
            if pairs is not None:
                return [*pairs, Pairing(candidate, None)]
        return None
    return _pair_search(players, met_set)


def _pair_search(players: list[str], met: set[frozenset[str]]) -> list[Pairing] | None:
    """The top player with the highest-ranked opponent not met yet, recursively, backing up
    when the rest cannot be paired (depth-first, bounded by SEARCH_LIMIT steps)."""
    steps = [0]

    def search(rest: list[str]) -> list[Pairing] | None:
        if not rest:
            return []
        top, others = rest[0], rest[1:]
        for i, opponent in enumerate(others):
            steps[0] += 1
            if steps[0] > SEARCH_LIMIT:
                return None
            if frozenset((top, opponent)) in met:
                continue
            tail = search(others[:i] + others[i + 1 :])
            if tail is not None:
                return [Pairing(top, opponent), *tail]
        return None

    return search(players)


@dataclass(frozen=True, slots=True)
class Line:
    """One player's line in a table: what their finished matches add up to."""

    player_id: str
    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    match_points: int = 0
    points: int = 0  # caroms over the matches
    innings: int = 0
    high_run: int = 0

    @property
    def average(self) -> float:
        """The general average: points over innings (0 before any inning)."""
        return self.points / self.innings if self.innings else 0.0


@dataclass(frozen=True, slots=True)
class Played:
    """One player's side of a finished match, as the table needs it. ``outcome`` is
    ``win``, ``draw`` or ``loss``; a bye is a win with no innings."""

    player_id: str
    outcome: str
    points: int = 0
    innings: int = 0
    high_run: int = 0


def table(
    players: Sequence[str], results: Iterable[Played], seeds: Mapping[str, int] | None = None
) -> list[Line]:
    """The table of ``players`` over ``results``: match points, then general average, then best
    high run (all best first); still level, the better seed first (then the id, so the order is
    always the same)."""
    lines = {p: Line(p) for p in players}
    for r in results:
        line = lines.get(r.player_id)
        if line is None:
            continue
        won, drawn, lost = r.outcome == "win", r.outcome == "draw", r.outcome == "loss"
        lines[r.player_id] = Line(
            line.player_id,
            line.played + 1,
            line.won + won,
            line.drawn + drawn,
            line.lost + lost,
            line.match_points + (WIN_POINTS if won else DRAW_POINTS if drawn else 0),
            line.points + r.points,
            line.innings + r.innings,
            max(line.high_run, r.high_run),
        )
    seed_of = seeds or {}
    return sorted(
        lines.values(),
        key=lambda ln: (
            -ln.match_points,
            -ln.average,
            -ln.high_run,
            seed_of.get(ln.player_id, 1 << 30),
            ln.player_id,
        ),
    )
