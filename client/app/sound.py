"""Contact sounds from ``assets/sounds`` (made by ``assets/make_sounds.py``).

Sound is a nicety: with no audio device (a server, CI, a headless screenshot) every call is a
silent no-op instead of an error, and the game plays on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "sounds"
NAMES = ("ball_ball", "ball_cushion", "cue", "clock_warning")


class Sounds:
    def __init__(self, enabled: bool = True) -> None:
        self._sounds: dict[str, Any] = {}
        self.enabled = enabled
        self.played: list[str] = []  # names played, newest last (shown in tests and debugging)
        if not enabled:
            return
        try:
            import arcade

            for name in NAMES:
                path = ASSETS / f"{name}.wav"
                if path.exists():
                    self._sounds[name] = arcade.load_sound(path)
        except Exception:  # no audio backend: stay silent, never crash the game
            self._sounds = {}

    muted = False  # the player's M key

    def play(self, name: str, volume: float = 1.0) -> None:
        self.played.append(name)
        del self.played[:-100]
        if self.muted:
            return
        snd = self._sounds.get(name)
        if snd is None:
            return
        try:
            snd.play(volume=max(0.05, min(1.0, volume)))
        except Exception:
            self._sounds.pop(name, None)
