"""Issue 13 point 9: the table's textures are the project's own, made by
``assets/make_textures.py``; the committed files are exactly what it makes."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from PIL import Image, ImageChops, ImageStat

from client.app import render

ASSETS = Path(__file__).resolve().parents[3] / "assets"


def _maker():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("make_textures", ASSETS / "make_textures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_textures_are_what_the_generator_makes() -> None:
    maker = _maker()
    for name, img in (("cloth", maker.cloth()), ("wood", maker.wood())):
        committed = Image.open(ASSETS / "textures" / f"{name}.png").convert("RGB")
        assert ImageChops.difference(committed, img).getbbox() is None, name


def test_textures_keep_the_table_colours_with_a_visible_grain() -> None:
    for name, flat in (("cloth", render.CLOTH), ("wood", render.RAIL)):
        img = Image.open(ASSETS / "textures" / f"{name}.png").convert("RGB")
        stat = ImageStat.Stat(img)
        assert all(abs(m - c) <= 4 for m, c in zip(stat.mean, flat[:3], strict=False)), name
        assert max(stat.stddev) > 3, name  # not a flat colour: nap, grain
