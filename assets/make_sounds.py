"""Make the client's contact sounds with the standard library (no downloaded assets).

Run ``python assets/make_sounds.py`` to (re)write ``assets/sounds/*.wav``. Each sound is a
short synthesised click: an ivory ball-ball contact is a bright, very short ring of a few
inharmonic partials; a cushion contact is a low, damped thump with a little noise; the cue tip
is a soft tick; the shot-clock warning is a plain beep. Seeded noise keeps the files identical
from run to run.
"""

from __future__ import annotations

import math
import random
import struct
import wave
from pathlib import Path

RATE = 22050
HERE = Path(__file__).resolve().parent / "sounds"


def _write(name: str, samples: list[float]) -> Path:
    peak = max(1e-9, max(abs(s) for s in samples))
    frames = b"".join(struct.pack("<h", int(32767 * 0.9 * s / peak)) for s in samples)
    HERE.mkdir(parents=True, exist_ok=True)
    path = HERE / name
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(frames)
    return path


def _partials(
    duration: float,
    parts: list[tuple[float, float, float]],
    noise: float,
    noise_decay: float,
    seed: int,
) -> list[float]:
    """Sum of decaying sines (frequency Hz, amplitude, decay 1/s) plus a decaying noise burst."""
    rng = random.Random(seed)
    out = []
    for i in range(int(duration * RATE)):
        t = i / RATE
        s = sum(a * math.exp(-d * t) * math.sin(2 * math.pi * f * t) for f, a, d in parts)
        s += noise * math.exp(-noise_decay * t) * (rng.random() * 2 - 1)
        out.append(s)
    return out


def main() -> list[Path]:
    return [
        _write(
            "ball_ball.wav",
            _partials(0.09, [(2780, 1.0, 70), (4410, 0.5, 95), (6150, 0.25, 130)], 0.6, 900, 1),
        ),
        _write("ball_cushion.wav", _partials(0.16, [(150, 1.0, 28), (310, 0.4, 40)], 0.35, 120, 2)),
        _write("cue.wav", _partials(0.06, [(1200, 0.5, 120), (1900, 0.3, 160)], 0.8, 400, 3)),
        _write("clock_warning.wav", _partials(0.18, [(880, 1.0, 6)], 0.0, 1, 4)),
    ]


if __name__ == "__main__":
    for p in main():
        print(p)
