"""Sides and line-ups (R-TEAM-1): who is at the table, and which partner strikes next.

A match is played between two *sides* (0 and 1, the wire's ``seat``). A side's *line-up* is one
player (singles) or two (doubles, Scotch doubles) in the order they shoot; a player's place in
it is their *slot* (0 first). Everything per side (points, innings, the ball, time-outs, the
turn) is indexed by side; everything per person (connection, reconnection grace, own figures)
by *player index*: ``side + 2 * slot``. So in singles a player's index is the side's number and
every per-player tuple has the two entries it always had; doubles adds two more (2 and 3: the
second players of sides 0 and 1).

Which partner strikes (``MatchState.slot_up``, resolved by :func:`due_slot`):

- doubles (R-TEAM-2): the partners take the side's innings in turn, A1, B1, A2, B2, A1…; the
  side's partner changes when its inning ends;
- Scotch doubles (R-TEAM-3): the partners alternate the side's strokes, inside an inning and
  across innings (the partner who did not play the side's last stroke plays its next one);
- a partner who dropped for good (R-TEAM-7, ``MatchState.retired``) is skipped: the other
  partner plays all of the side's strokes.

Pure functions of values; imports nothing but the verdict's ``Seat``.
"""

from __future__ import annotations

from typing import Final

from shared.rules.verdict import Seat

SIDES: Final[tuple[Seat, Seat]] = (0, 1)


def other(side: Seat) -> Seat:
    """The opposing side."""
    return 1 - side


def player(side: Seat, slot: int) -> int:
    """The player index of ``slot`` in ``side``'s line-up."""
    return side + 2 * slot


def side_of(index: int) -> Seat:
    return index % 2


def slot_of(index: int) -> int:
    return index // 2


def players_of(side: Seat, size: int) -> tuple[int, ...]:
    """The player indices of ``side``'s line-up of ``size`` players, in shooting order."""
    return tuple(player(side, slot) for slot in range(size))


def active(side: Seat, size: int, retired: tuple[int, ...]) -> tuple[int, ...]:
    """The players of ``side`` still playing (R-TEAM-7: a retired partner is out)."""
    return tuple(p for p in players_of(side, size) if p not in retired)


def due_slot(slot_up: int, side: Seat, size: int, retired: tuple[int, ...]) -> int:
    """The slot that strikes ``side``'s next stroke: ``slot_up`` unless that partner retired
    (R-TEAM-7), then the other partner."""
    if size == 1:
        return 0
    if player(side, slot_up) in retired and player(side, 1 - slot_up) not in retired:
        return 1 - slot_up
    return slot_up


def put(values: tuple[int, ...], index: int, value: int) -> tuple[int, ...]:
    """``values`` with ``values[index]`` replaced."""
    return (*values[:index], value, *values[index + 1 :])


def bump(values: tuple[int, ...], index: int) -> tuple[int, ...]:
    return put(values, index, values[index] + 1)


def flip(slot_up: tuple[int, int], side: Seat, size: int) -> tuple[int, int]:
    """``slot_up`` with ``side``'s partner changed (R-TEAM-2, R-TEAM-3); singles: unchanged."""
    if size == 1:
        return slot_up
    flipped = 1 - slot_up[side]
    return (flipped, slot_up[1]) if side == 0 else (slot_up[0], flipped)
