"""The study screens drawn offscreen (``python -m client.app.study_shots``, ARCADE_HEADLESS=1):
the replay analysis marks each cushion contact of the cue ball where the physics put it and
names the point; the drill screen rings the target on the third rail and scores the stroke, for
the corner five and for the plus system."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from client.app.layout import TableLayout
from client.app.replay_analysis import CONTACT_COLOUR
from client.app.study_shots import point_layout, point_replay
from client.app.widgets import PRIMARY
from client.app.words import JARGON
from shared.analysis.drills import corner_five_drills, plus_drills
from shared.analysis.reading import read_played
from shared.protocol import to_client as tc
from shared.table import MATCH

W, H = 1280, 800


# Every test here reads one module-wide run (the fixture below): kept on one xdist worker so
# that run happens once, not once per worker.
pytestmark = pytest.mark.xdist_group("desktop_study_screens")


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("study")
    proc = subprocess.run(
        [sys.executable, "-m", "client.app.study_shots", str(out)],
        capture_output=True,
        text=True,
        env={**os.environ, "ARCADE_HEADLESS": "1"},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return out


def _texts(folder: Path, name: str) -> dict[str, Any]:
    return {k: v[0] for k, v in json.loads((folder / f"{name}.json").read_text()).items()}


def _ring_pixels(img: Image.Image, x: float, y: float, r: float, rgb: tuple[int, ...]) -> int:
    """Pixels of colour ``rgb`` (within 40 per channel) on a ring of radius ``r`` around a
    screen point (y up, as the layout gives it)."""
    hits = 0
    for k in range(72):
        a = math.tau * k / 72
        px, py = round(x + r * math.cos(a)), round(H - (y + r * math.sin(a)))
        if 0 <= px < W and 0 <= py < H:
            got = img.getpixel((px, py))
            assert isinstance(got, tuple)
            if all(abs(int(g) - int(c)) <= 40 for g, c in zip(got, rgb, strict=False)):
                hits += 1
    return hits


def test_replay_analysis_marks_the_cue_balls_cushions_and_names_the_point(
    rendered: Path,
) -> None:
    img = Image.open(rendered / "replay_analysis.png").convert("RGB")
    texts = _texts(rendered, "replay_analysis")
    body = point_replay().strokes[0].body
    assert isinstance(body, tc.StrokePlayed)
    reading = read_played(body, MATCH)
    assert reading.name == "Around the table"
    assert texts["ptext0"] == "Replay · stroke 1 of 1 · Around the table · paused"
    assert texts["ptext1"].startswith("Speed: firm, 4.0 m/s")
    # Stopped on the third cushion: the panel says so in the player's words.
    assert texts["ptext3"].endswith("the white meets the far long cushion at 2.7")
    layout = TableLayout.fit(MATCH, W, H)
    cushions = [s for s in reading.steps if s.is_cushion]
    for i, step in enumerate(cushions[:3]):
        sx, sy = layout.to_screen(*step.pos)
        ring = _ring_pixels(img, sx, sy, layout.ball_radius_px * 1.25, CONTACT_COLOUR[:3])
        assert ring > 20, f"contact {i} at {step.pos} is not ringed"
        assert texts[f"dia{i}"] == f"{step.diamonds:.1f}"
    for text in texts.values():
        assert not JARGON.search(str(text)), text


def test_the_drill_screen_rings_the_target_and_scores_the_stroke(rendered: Path) -> None:
    img = Image.open(rendered / "drill.png").convert("RGB")
    texts = _texts(rendered, "drill")
    drill = corner_five_drills()[0]
    layout = TableLayout.fit(MATCH, W, H)
    tx, ty = layout.to_screen(MATCH.length - drill.target * MATCH.length / 8, MATCH.width)
    assert _ring_pixels(img, tx, ty, layout.ball_radius_px * 1.6, (80, 220, 120)) > 20
    assert texts["target"] == "target 3"
    assert texts["drill0"] == "Drill 1 of 6 · Corner five from 5 to 3"
    assert "near long cushion, the right short cushion and the far long cushion" in texts["drill1"]
    assert texts["drill3"].startswith("On the number: the cue ball reached 3.2")
    assert texts["drill4"].startswith("3 attempts")
    assert texts["dia2"] == "3.2"  # only the third cushion is numbered, in the system's count
    for text in texts.values():
        assert not JARGON.search(str(text)), text


def test_the_plus_drill_rings_its_target_counted_from_the_near_end(rendered: Path) -> None:
    img = Image.open(rendered / "drill_plus_two.png").convert("RGB")
    texts = _texts(rendered, "drill_plus_two")
    drill = plus_drills()[0]
    layout = TableLayout.fit(MATCH, W, H)
    # Target 6 of the plus count is 2 diamonds from the far (top) cushion of the physics.
    tx, ty = layout.to_screen(MATCH.length - 2 * MATCH.length / 8, MATCH.width)
    assert drill.target == 6.0
    assert _ring_pixels(img, tx, ty, layout.ball_radius_px * 1.6, (80, 220, 120)) > 20
    assert texts["target"] == "target 6"
    assert texts["drill0"] == "Drill 1 of 6 · Plus system from 3 to 6"
    assert texts["drill3"].startswith("On the number: the cue ball reached 6.1")
    assert texts["drill4"].startswith("2 attempts")  # its own session, not the corner five's
    assert texts["dia2"] == "6.1"
    # The plus system's button is lit (the primary colour), the corner five's is not.
    for key, lit in (("btn:system:plus", True), ("btn:system:corner_five", False)):
        _, bx, by = json.loads((rendered / "drill_plus_two.json").read_text())[key]
        px = img.getpixel((round(bx) - 62, H - round(by)))
        assert isinstance(px, tuple)
        assert (px[:3] == PRIMARY[:3]) is lit, (key, px)
    for text in texts.values():
        assert not JARGON.search(str(text)), text


def test_hints_are_drawn_on_the_practice_table_with_their_chances(rendered: Path) -> None:
    img = Image.open(rendered / "hints.png").convert("RGB")
    texts = _texts(rendered, "hints")
    lines = [texts[k] for k in sorted(texts) if k.startswith("hintline")]
    assert 1 <= len(lines) <= 3
    assert lines[0].startswith("1: ") and lines[0].endswith("· press a number to play it")
    for i, line in enumerate(lines):
        assert line.startswith(f"{i + 1}: ") and "% of the time with a good player's error" in line
        assert texts[f"hint{i}"] == str(i + 1)  # each path numbered where it scores
    # The first hint's path is drawn in its colour on the cloth (away from the yellow ball,
    # which is of a like colour).
    layout = TableLayout.fit(MATCH, W, H)
    yx, yy = layout.to_screen(*point_layout().balls["yellow"])
    far = 3 * layout.ball_radius_px
    gold = 0
    for x in range(200, 1080):
        for y in range(200, 640):
            if math.hypot(x - yx, (H - y) - yy) < far:
                continue
            px = img.getpixel((x, y))
            assert isinstance(px, tuple)
            if abs(px[0] - 255) < 30 and abs(px[1] - 210) < 30 and px[2] < 130:
                gold += 1
    assert gold > 200
    for text in texts.values():
        assert not JARGON.search(str(text)), text
