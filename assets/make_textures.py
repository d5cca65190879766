"""Make the client's table textures with Pillow (no downloaded art).

Run ``python assets/make_textures.py`` to (re)write ``assets/textures/*.png``:

- ``cloth.png``: the playing cloth, tournament blue, with a fine nap (noise drawn out along
  the table's length, the way the cloth is brushed) and a soft light fall-off from the middle
  of the table to its corners (one lamp above the table);
- ``wood.png``: the rails' wood, grain along its length: stretched noise for the fibres and a
  few slow bands for the growth rings.

Pillow's noise generator is seeded by nothing we control, so the noise comes from ``random``
with a fixed seed: the files are the same on every run. Mean colours are the flat colours the
client used before (``client.app.render.CLOTH``/``RAIL``), so the table reads the same at a
glance and the pixel tests' colours still hold.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

from PIL import Image, ImageChops, ImageFilter

HERE = Path(__file__).resolve().parent / "textures"
CLOTH = (31, 95, 168)
RAIL = (92, 52, 30)


def _noise(w: int, h: int, seed: int, spread: float) -> Image.Image:
    """Grey noise around 128 (``spread`` = standard deviation), reproducible."""
    rng = random.Random(seed)
    data = bytes(max(0, min(255, round(rng.gauss(128, spread)))) for _ in range(w * h))
    return Image.frombytes("L", (w, h), data)


def _tint(grey: Image.Image, mean: tuple[int, int, int], depth: float) -> Image.Image:
    """Colour a grey image: 128 maps to ``mean``; each grey step moves all channels by
    ``depth`` (a fraction of the colour), so the hue stays put."""
    bands = []
    for c in mean:
        lut = [max(0, min(255, round(c * (1 + depth * (v - 128) / 128)))) for v in range(256)]
        bands.append(grey.point(lut))
    return Image.merge("RGB", bands)


def cloth(w: int = 640, h: int = 320) -> Image.Image:
    # Nap: fine noise, blurred more along the length than across (the brushing direction).
    nap = _noise(w // 2, h, seed=7, spread=15).resize((w, h), Image.Resampling.BICUBIC)
    nap = nap.filter(ImageFilter.BoxBlur(1))
    # Light fall-off: a little brighter under the lamp, darker toward the corners.
    fall = Image.radial_gradient("L").resize((w, h), Image.Resampling.BICUBIC)  # 0 centre
    fall = fall.point(lambda v: 128 + round(10 - 34 * (v / 255) ** 2))
    grey = ImageChops.add(nap, fall, scale=1.0, offset=-128)
    return _tint(grey, CLOTH, 0.55)


def wood(w: int = 1024, h: int = 96) -> Image.Image:
    # Fibres: noise stretched thirty-fold along the grain.
    fibres = _noise(w // 32, h, seed=11, spread=40).resize((w, h), Image.Resampling.BICUBIC)
    rings = Image.new("L", (w, h))
    px = rings.load()
    assert px is not None
    for y in range(h):
        for x in range(w):
            # Growth rings: slow waves across the board that drift along it.
            v = math.sin(y * 0.23 + 2.2 * math.sin(x * 0.006) + 0.8 * math.sin(x * 0.017))
            px[x, y] = 128 + round(22 * v)
    grey = ImageChops.add(fibres, rings, scale=1.0, offset=-128)
    return _tint(grey, RAIL, 0.5)


def main() -> list[Path]:
    HERE.mkdir(parents=True, exist_ok=True)
    out = []
    for name, img in (("cloth.png", cloth()), ("wood.png", wood())):
        path = HERE / name
        img.save(path, optimize=True)
        out.append(path)
    return out


if __name__ == "__main__":
    for p in main():
        print(p)
