"""Every physical constant of the simulator, in one frozen object (PHYSICS.md "Starting numbers").

Calibration changes this one place. Table geometry (size, cushion nose height, ball radius and
mass) lives in :class:`shared.table.TableSpec`; everything about cloth, cue and contacts lives
here. Each field names its source.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class PhysicsSpec:
    """Cloth, contact and cue constants. Frozen so a bot can share it across searches."""

    # Standard gravity.
    g: float = 9.81  # m/s²
    # Sliding friction ball–cloth. PHYSICS.md start value; Alciatore gives 0.15–0.4, one fit to
    # real three-cushion shots gave 0.126. Also acts under the ball during a cushion impact
    # (Mathavan 2010 measured 0.21 there).
    mu_slide: float = 0.2
    # Rolling resistance ball–cloth. PHYSICS.md: tracked roll-outs on a heated match table give
    # about 0.0042; Alciatore 0.005–0.015 for pool cloth.
    mu_roll: float = 0.004
    # The slow end of the roll (issue 26): below ``roll_slow_speed`` a ball rolls against
    # ``mu_roll_slow`` instead. A ball that has nearly stopped sinks into the nap and meets more
    # resistance; the constant-μr roll ran on too long (an outside comparison with tracked
    # three-cushion shots: the simulated cue ball stopped a median 0.75 s after the real one).
    # 0.01 is the middle of Alciatore's 0.005–0.015 for pool cloth (PHYSICS.md); with 0.05 m/s
    # it takes 0.76 s and 1.9 cm off every roll-out, the comparison's median (docs/physics.md
    # "End of the roll"). Above 0.05 m/s the tracked 0.004 still holds.
    roll_slow_speed: float = 0.05  # m/s
    mu_roll_slow: float = 0.01
    # Deceleration of z-spin (spin about the vertical axis) on the cloth. PHYSICS.md start range
    # 5–11 rad/s², Alciatore 5–15 rad/s².
    spin_decel: float = 8.0  # rad/s²
    # Ball–ball restitution. PHYSICS.md 0.93–0.95, Alciatore 0.92–0.98.
    e_ball: float = 0.94
    # Ball–ball contact friction mu(v) = a + b·exp(-c·v), v the slip speed at the contact
    # (Alciatore TP A.14 fit to measured throw).
    ball_friction_a: float = 0.00995
    ball_friction_b: float = 0.108
    ball_friction_c: float = 1.088  # s/m
    # Cushion restitution, energetic (Stronge): restitution work = e²·compression work, so a
    # ball on the slate keeps e of its speed square to the rail, friction aside. PHYSICS.md
    # range 0.85–0.9 (Han 2005; carom fits 0.86). The upper end, with mu_cushion 0.16, puts
    # the corner-5 system on its numbers with 0.2 running english under the integrated
    # cushion law (docs/physics.md "Diamond systems"); Mathavan 2010 fit 0.98 on snooker.
    e_cushion: float = 0.9
    # Ball–cushion friction (fits to carom shots 0.15–0.17; PHYSICS.md 0.15–0.2).
    mu_cushion: float = 0.16
    # Ball–slate restitution for jumps and landings (Alciatore).
    e_slate: float = 0.5
    # The squeeze between cue tip and slate (issue 26: steep jumps). An elevated cue drives the
    # ball into the slate while the tip is still on it; both contacts are integrated together
    # as spring–dashpots (strike.squeeze), each set by its contact time and restitution. The
    # tip stays on the ball 1–2 ms (the Jacksonville high-speed films, Billiards Digest April
    # 1999; Alciatore's high-speed videos near 1 ms): 1 ms for a centre hit. The ball's contact
    # with the slate through the cloth has no published duration; 1.25 ms, a quarter longer
    # than the tip's (woollen cloth over slate against a leather tip on phenolic), was chosen
    # from a scan of 0.5–2 ms against the published jump advice (a full cue jumps a ball a foot
    # away at 45°, closer balls at steeper cues; docs/physics.md "Steep jumps" has the scan).
    tip_contact_time: float = 1.0e-3  # s
    slate_contact_time: float = 1.25e-3  # s
    # Cue mass: carom cues weigh 0.48–0.52 kg (RU App. 3).
    cue_mass: float = 0.50  # kg
    # Cue-tip restitution ("efficiency" of the cue–ball collision, Alciatore TP A.30 uses values
    # around 0.7–0.8 for leather tips). Assumed; calibrate against measured ball speeds.
    cue_tip_restitution: float = 0.75
    # Effective end mass of the cue shaft, which sets squirt (Alciatore TP A.31). Typical pool
    # shafts 5–15 g; assumed 10 g for a carom shaft.
    cue_end_mass: float = 0.010  # kg
    # A bounce off the slate slower than this ends the flight (the ball stays on the slate).
    # 0.05 m/s is a 0.13 mm hop: invisible, and it bounds the number of bounces.
    min_bounce_speed: float = 0.05  # m/s
    # Below these a motion is considered finished (numerical zero, not physics).
    eps_speed: float = 1e-9  # m/s
    eps_spin: float = 1e-7  # rad/s
    # Hard stop: no stroke may last longer on the table (a guard against bugs), and the event
    # loop gives up after this many events.
    max_time: float = 60.0  # s
    max_events: int = 1000


DEFAULT_SPEC: Final = PhysicsSpec()
