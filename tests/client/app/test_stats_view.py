"""Issue 25: the statistics screen of the desktop client. A real server (``python -m server``)
records a short practice session (tests/client/practice_play.py: a ticky, an umbrella and a
miss); the screen's page, reading it through the window's link, holds the numbers and the
charts the statistics core (and ``carom stats``) computes; the screen drawn offscreen
(drive_stats.py) shows each chart where the layout puts it, and a sentence for a player with
no matches."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from client.app.bridge import Bridge
from client.app.stats_page import StatsPage, chart_boxes
from client.app.words import JARGON
from client.stats import gather
from shared.analysis.charts import BLUE, CHARTS, GREEN, GRID, ORANGE, Line, Rect, Text
from shared.analysis.patterns import Pattern
from shared.analysis.stats import MatchLog, StrokeLog, player_stats
from tests.client.practice_play import play_practice

DRIVER = Path(__file__).with_name("drive_stats.py")
TITLES = {
    "average": "General average over time",
    "runs": "Runs: innings by points scored",
    "patterns": "Points by pattern (and how often it scored)",
    "openings": "Average by how the inning began",
    "time": "Time taken per stroke (seconds)",
}
BACKGROUND = (18, 22, 28)

# Every test here reads one module-wide server and run (the fixtures below): kept on one xdist
# worker so they happen once, not once per worker.
pytestmark = pytest.mark.xdist_group("desktop_stats")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose store holds Ann's finished practice session; its URL."""
    from server.process import ServerProcess

    tmp = tmp_path_factory.mktemp("stats_server")
    with ServerProcess(tmp / "carom.db", workers=0) as server:
        asyncio.run(play_practice(server.url))
        yield server.url


@pytest.fixture(scope="module")
def driven(recorded: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    out = tmp_path_factory.mktemp("stats_screen")
    env = {**os.environ, "ARCADE_HEADLESS": "1", "CAROM_IDENTITY": str(out / "identity.json")}
    proc = subprocess.run(
        [sys.executable, str(DRIVER), recorded, str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=110,
    )
    report_file = out / "report.json"
    assert report_file.exists(), proc.stderr[-3000:]
    report: dict[str, Any] = json.loads(report_file.read_text())
    assert report.get("ok"), (report.get("why"), proc.stderr[-3000:])
    return report, out


def _read(page: StatsPage, bridge: Bridge) -> None:
    """Ask through the window's link and poll as the screen does, once a frame."""
    page.request(bridge.player_logs)
    deadline = time.monotonic() + 30
    while not page.poll():
        assert time.monotonic() < deadline, "the matches were not read within 30 s"
        time.sleep(1 / 60)


def test_the_page_holds_what_the_statistics_core_computes(recorded: str) -> None:
    bridge = Bridge(recorded, "viewer", remember_identity=False)
    try:
        bridge.start(timeout=10)
        page = StatsPage("ann")
        _read(page, bridge)
        nobody = StatsPage("Nobody")
        _read(nobody, bridge)
    finally:
        bridge.close()
    assert page.failed is None and page.logs is not None
    assert page.disciplines == ("three_cushion",)
    stats = page.stats()
    # The command's numbers (its own connection, the same requests) and the session's known
    # facts: two laid-out points and a miss, one inning of two (R-PLAY-2).
    assert stats == asyncio.run(gather(recorded, "ann", "three_cushion", 200))
    assert stats is not None
    assert (stats.points, stats.innings, stats.high_run, stats.strokes) == (2, 1, 2, 3)
    by_name = {p.pattern: (p.attempts, p.points) for p in stats.patterns}
    assert by_name[Pattern.TICKY] == (1, 1) and by_name[Pattern.UMBRELLA] == (1, 1)
    assert page.summary().startswith(
        "Three-cushion: 1 match, general average 2.000 (2 points in 1 inning), high run 2"
    )
    # The charts are the core's, each made for its box in the window.
    boxes = chart_boxes(1280, 800)
    charts = page.charts(boxes)
    assert charts == {
        name: CHARTS[name](stats, round(b.width), round(b.height)) for name, b in boxes.items()
    }
    assert page.empty_text() is None
    # Nobody has played under this name: a sentence, no charts.
    assert nobody.logs == () and nobody.stats() is None and nobody.charts(boxes) == {}
    assert nobody.empty_text() == "No finished matches for Nobody yet."


def test_without_a_connection_the_page_says_so() -> None:
    page = StatsPage("Ann")
    page.request(None)
    assert not page.loading and page.stats() is None
    assert page.empty_text() == "Not connected: connect to a server in the lobby first."


def test_a_player_of_several_disciplines_chooses_one_most_played_first() -> None:
    busy = _busy_matches()
    one = MatchLog(99, "one_cushion", 0, 1, 2, (StrokeLog(1, 0, 1, False, 1, 1500, None),))
    page = StatsPage("Ann", logs=(one, *busy[:2]))
    assert page.disciplines == ("three_cushion", "one_cushion")
    assert page.shown_discipline == "three_cushion"
    assert page.stats() == player_stats(busy[:2], "three_cushion")
    page.discipline = "one_cushion"
    stats = page.stats()
    assert stats is not None and (stats.points, stats.innings) == (1, 1)
    assert page.summary() == (
        "One-cushion: 1 match, general average 1.000 (1 point in 1 inning), high run 1, "
        "1.5 s a stroke (median)."
    )


def _drawn(img: Image.Image, box: list[float], height: int) -> Counter[tuple[int, ...]]:
    """The colours inside a chart's plot area (below the title and the axis name, right of the
    tick labels, above the axis; the box's y is up, as drawn), with their pixel counts."""
    left, bottom, w, h = box
    area = (round(left + 70), round(height - (bottom + h - 44)), round(left + w - 20),
            round(height - (bottom + 60)))  # fmt: skip
    return Counter(c[:3] for c in img.crop(area).getdata() if isinstance(c, tuple))


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    h = hex_colour.lstrip("#")
    return (int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16))


def test_the_screen_draws_every_chart_in_its_box(driven: tuple[dict[str, Any], Path]) -> None:
    report, out = driven
    assert "Statistics…" in report["lobby"].values()
    # S in the lobby (no field focused) opens the screen on the player's own name.
    assert report["opened"] == "stats" and report["typed_into_field"] == "ann"
    ann = report["ann"]
    shown = set(ann["texts"].values())
    assert set(TITLES.values()) <= shown
    assert any(t.startswith("Three-cushion: 1 match, general average 2.000") for t in shown)
    assert {"Ticky", "Umbrella"} <= shown
    assert not [t for t in shown if JARGON.search(t)]
    img = Image.open(out / "stats.png").convert("RGB")
    height = ann["size"][1]
    expected = {
        "average": _rgb(BLUE),
        "runs": _rgb(BLUE),
        "patterns": _rgb(GREEN),
        "openings": _rgb(ORANGE),
        "time": _rgb(BLUE),
    }
    for name, box in ann["boxes"].items():
        colours = _drawn(img, box, height)
        # The grid lines, and the chart's own colour: its bars or its dots (6 × 6 px each).
        assert colours[_rgb(GRID)] > 100, name
        assert colours[expected[name]] >= 30, (name, colours.most_common(6))
        # The card is white where the chart is (its top left corner).
        left, bottom, _w, h = box
        assert img.getpixel((round(left) + 3, height - round(bottom + h) + 3)) == (255, 255, 255)
    assert report["back"] == "lobby"


def test_a_player_with_no_matches_gets_a_sentence_and_no_charts(
    driven: tuple[dict[str, Any], Path],
) -> None:
    report, out = driven
    unknown = report["unknown"]
    shown = set(unknown["texts"].values())
    assert "No finished matches for Nobody yet." in shown
    assert not set(TITLES.values()) & shown
    assert unknown["charts"] == []
    img = Image.open(out / "unknown.png").convert("RGB")
    for box in unknown["boxes"].values():
        colours = _drawn(img, box, unknown["size"][1])
        # No card, grid, bar or dot: the window's background (and the sentence's letters).
        chart_colours = {(255, 255, 255), *(_rgb(c) for c in (GRID, BLUE, GREEN, ORANGE))}
        assert not chart_colours & set(colours), colours.most_common(6)
        assert colours.most_common(1)[0][0] == BACKGROUND


@pytest.mark.parametrize("size", [(1280, 800), (960, 640), (1920, 1080)])
def test_the_charts_fit_their_boxes_at_any_window_size(size: tuple[int, int]) -> None:
    """Resized, the charts are laid out again for the new boxes: none overlaps another or
    leaves the window, every shape stays inside its chart, and no word is smaller than 9 px."""
    stats = player_stats(_busy_matches(), "three_cushion")
    assert len(stats.patterns) == 10 and len(stats.openings) == 3 and stats.high_run == 7
    w, h = size
    boxes = chart_boxes(w, h)
    names = list(boxes)
    for i, a in enumerate(names):
        ba = boxes[a]
        assert ba.left >= 0 and ba.right <= w and ba.bottom >= 0 and ba.top <= h
        for b in names[i + 1 :]:
            bb = boxes[b]
            apart = ba.right <= bb.left or bb.right <= ba.left
            apart = apart or ba.top <= bb.bottom or bb.top <= ba.bottom
            assert apart, (a, b)
    for name, box in boxes.items():
        chart = CHARTS[name](stats, round(box.width), round(box.height))
        assert chart.title == TITLES[name]
        for s in chart.shapes:
            if isinstance(s, Rect):
                assert s.x >= 0 and s.x + s.w <= chart.width + 0.5
                assert s.y >= 0 and s.y + s.h <= chart.height + 0.5
            elif isinstance(s, Line):
                assert all(0 <= x <= chart.width and 0 <= y <= chart.height for x, y in s.points)
            else:
                assert isinstance(s, Text) and s.size >= 9
                assert 0 <= s.x <= chart.width and 0 < s.y <= chart.height
        # Words on one line do not run into each other (a letter about 0.6 of the size wide).
        spans: dict[float, list[tuple[float, float]]] = {}
        for t in (s for s in chart.shapes if isinstance(s, Text)):
            w_ = len(t.text) * t.size * 0.6
            left = {"start": t.x, "middle": t.x - w_ / 2, "end": t.x - w_}[t.anchor]
            spans.setdefault(round(t.y), []).append((left, left + w_))
        for y, line in spans.items():
            line.sort()
            for (_, end), (start, _) in pairwise(line):
                assert end <= start + 2, (name, size, y, line)


def _busy_matches() -> list[MatchLog]:
    """Twelve matches with every route, runs up to seven, fouls and long thinking: the most
    crowded charts (the longest labels, the most bars)."""
    routes = list(Pattern)
    logs = []
    for m in range(12):
        strokes = []
        n = 0
        for inning in range(6):
            run = (m + inning) % 8
            for k in range(run + 1):
                n += 1
                scored = 1 if k < run else 0
                route = routes[(m + inning + k) % len(routes)]
                strokes.append(StrokeLog(n, 0, scored, False, 1000 * n, 4000 * k, route))
            n += 1
            strokes.append(StrokeLog(n, 1, 0, inning % 3 == 0, 1000 * n, 2000, None))
        logs.append(MatchLog(m, "three_cushion", 0, 10_000 * m, 10_000 * m + 1, tuple(strokes)))
    return logs
