"""Bot skill levels 1 (beginner) to 5 (strongest).

A level sets how hard the bot looks (how many candidate strokes it simulates, whether it refines
and checks robustness) and how well its arm obeys (Gaussian error on aim, speed and tip, added
to the chosen stroke before it is sent, the way a human's stroke deviates from intent).
Search effort is counted in simulations, not seconds, so a level plays the same on a fast or a
slow machine; ``think_s`` only caps it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Level:
    number: int
    name: str
    sims: int  # simulations allowed for one stroke (search + refinement)
    sweep_step: float  # degrees between directions in the coarse sweep
    styles: int  # how many (speed, spin) styles the sweep tries
    refine: bool  # refine around scoring strokes and prefer robust ones
    position_play: bool  # judge the position left for the next stroke
    aim_sigma: float  # degrees, error on direction
    speed_sigma: float  # fraction of speed
    tip_sigma: float  # ball radii, error on tip_x and tip_y
    think_s: float  # wall-clock cap for one stroke
    # Simulations (out of ``sims``) for massé strokes when no flat stroke scores: curving
    # round a ball in the way. 0 = never plays massé.
    masse_sims: int = 0
    # Simulations (out of ``sims``) for jump strokes when a ball blocks the straight line to
    # an object ball (client/bot/blocked.py). 0 = never jumps.
    jump_sims: int = 0


LEVELS: dict[int, Level] = {
    1: Level(1, "beginner", 40, 3.0, 1, False, False, 1.5, 0.15, 0.10, 2.0),
    2: Level(2, "club", 120, 2.0, 2, False, False, 0.8, 0.10, 0.06, 3.0),
    3: Level(3, "good", 300, 1.0, 3, True, False, 0.35, 0.06, 0.04, 5.0),
    4: Level(
        4, "strong", 700, 0.75, 4, True, True, 0.15, 0.04, 0.02, 8.0, masse_sims=100, jump_sims=80
    ),
    5: Level(
        5, "master", 700, 0.5, 6, True, True, 0.05, 0.02, 0.01, 10.0, masse_sims=160, jump_sims=120
    ),
}


def level(number: int) -> Level:
    try:
        return LEVELS[number]
    except KeyError:
        raise ValueError(f"level must be 1 to 5, got {number}") from None
