"""``carom sim``: the real CLI, in-process (run) and as a subprocess (__main__)."""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from shared.physics import cli

ARGS = ["--white", "0.7,0.9", "--yellow", "0.7,0.5", "--red", "2.1,0.7"]
STROKE = ["--direction", "20", "--speed", "4", "--tip-x", "0.4", "--tip-y", "0.2"]


def run_cli(argv: list[str]) -> tuple[int, str]:
    parser = argparse.ArgumentParser(prog="carom sim")
    cli.configure(parser)
    out = io.StringIO()
    code = cli.run(parser.parse_args(argv), out)
    return code, out.getvalue()


def test_json_shape() -> None:
    code, text = run_cli([*ARGS, *STROKE, "--elevation", "3", "--json", "--samples", "50"])
    assert code == 0
    data = json.loads(text)
    assert set(data) == {"events", "final", "duration", "cpu_ms", "samples"}
    kinds = [e["kind"] for e in data["events"]]
    assert kinds[0] == "strike" and kinds[-1] == "rest"
    assert "ball_cushion" in kinds
    for e in data["events"]:
        assert isinstance(e["t"], float) and isinstance(e["balls"], list)
        if e["kind"] == "ball_cushion":
            assert e["cushion"] in ("bottom", "top", "right", "left")
        for name, state in e["after"].items():
            assert name in e["balls"]
            assert len(state["pos"]) == 2 and len(state["vel"]) == 2
    assert set(data["final"]) == {"white", "yellow", "red"}
    assert data["duration"] == data["events"][-1]["t"]
    assert data["cpu_ms"] > 0
    white = data["samples"]["white"]
    assert white[0] == [0.0, 0.7, 0.9]
    assert white[1][0] == pytest.approx(0.02)
    assert white[-1][0] == pytest.approx(data["duration"])
    assert white[-1][1:] == pytest.approx(data["final"]["white"])


def test_human_output_lists_events_and_final_positions() -> None:
    code, text = run_cli([*ARGS, *STROKE])
    assert code == 0
    assert "strike" in text and "ball_cushion" in text and "final:" in text
    assert "yellow" in text


def test_bad_input_exits_2_with_a_message(capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = run_cli([*ARGS, "--direction", "20", "--speed", "nan"])
    assert code == 2
    assert "speed must be a finite number" in capsys.readouterr().err
    code, _ = run_cli([*ARGS, "--direction", "20"])
    assert code == 2
    assert "--speed is required" in capsys.readouterr().err
    code, _ = run_cli(
        ["--white", "0.7,0.9", "--yellow", "0.71,0.9", "--direction", "0", "--speed", "1"]
    )
    assert code == 2
    assert "overlap" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        run_cli(["--white", "nowhere", "--direction", "0", "--speed", "1"])
    assert exc.value.code == 2


def test_batch_one_result_per_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [
        {
            "white": [0.7, 0.9],
            "yellow": [0.7, 0.5],
            "red": [2.1, 0.7],
            "cue": "white",
            "direction": 20,
            "speed": 4,
            "tip_x": 0.4,
            "tip_y": 0.2,
            "elevation": 0,
        },
        {"cue": "yellow", "direction": 0, "speed": 99},
        {
            "white": [0.7, 0.9],
            "yellow": [0.7, 0.5],
            "red": [1.8, 0.7],
            "cue": "yellow",
            "direction": 180,
            "speed": 2,
            "samples": 10,
            "table": "club_210",
        },
    ]
    path = tmp_path / "strokes.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    code, text = run_cli(["--batch", str(path)])
    out = [json.loads(line) for line in text.splitlines()]
    assert code == 2  # line 2 is bad; the others are still simulated
    assert len(out) == 3
    assert out[0]["events"][0]["balls"] == ["white"]
    assert "speed must be in" in out[1]["error"] and out[1]["line"] == 2
    assert out[2]["events"][0]["balls"] == ["yellow"]
    assert "samples" in out[2]
    assert "strokes.jsonl:2" in capsys.readouterr().err


def test_png_is_written(tmp_path: Path) -> None:
    png = tmp_path / "shot.png"
    code, _ = run_cli([*ARGS, *STROKE, "--png", str(png)])
    assert code == 0
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    from PIL import Image

    with Image.open(png) as img:
        assert img.width > 1.6 * img.height  # a 2:1 table, drawn lengthwise


def test_subprocess_is_deterministic() -> None:
    cmd = [sys.executable, "-m", "shared.physics.cli", *ARGS, *STROKE, "--json"]
    a = json.loads(subprocess.run(cmd, capture_output=True, check=True, text=True).stdout)
    b = json.loads(subprocess.run(cmd, capture_output=True, check=True, text=True).stdout)
    a.pop("cpu_ms")
    b.pop("cpu_ms")
    assert a == b


def test_json_off_table_ball_is_null() -> None:
    argv = ["--white", "2.6,0.71", "--direction", "0", "--speed", "6", "--elevation", "30"]
    code, text = run_cli([*argv, "--json", "--samples", "100"])
    assert code == 0
    data = json.loads(text)
    off = [e for e in data["events"] if e["kind"] == "off_table"]
    assert off[0]["balls"] == ["white"] and off[0]["cushion"] == "top"
    assert data["final"]["white"] is None
    assert data["samples"]["white"][-1][0] == pytest.approx(off[0]["t"])


def test_human_output_names_cushions_as_the_picture_shows_them() -> None:
    """Issue 13 point 5: the picture (and the game) draw the top cushion on the right."""
    code, text = run_cli(["--direction", "0", "--speed", "2"])
    assert code == 0
    assert "(right short cushion)" in text
    assert "(top)" not in text


def test_help_says_direction_and_speed_are_required() -> None:
    """Issue 21: the usage line shows --direction and --speed (or --batch) as required, not in
    [brackets], and still names every option."""
    proc = subprocess.run(
        [sys.executable, "-m", "client.cli", "sim", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    usage = proc.stdout.split("\n\n")[0]
    assert "(--direction DEG --speed M_S | --batch FILE)" in usage
    optional = _bracketed_options(usage)
    assert not {"--direction", "--speed", "--batch"} & optional
    assert {"--white", "--cue", "--tip-x", "--table", "--json", "--png", "--samples"} <= optional
    parser = argparse.ArgumentParser(prog="carom sim")
    cli.configure(parser)
    for action in parser._actions:
        assert any(opt in usage for opt in action.option_strings), action.option_strings
    # And it is refused as the usage says.
    code = subprocess.run(
        [sys.executable, "-m", "client.cli", "sim", "--speed", "3"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert code.returncode == 2 and "--direction is required" in code.stderr


def _bracketed_options(usage: str) -> set[str]:
    """The options written inside [ ] in a usage line (those the command does without)."""
    out: set[str] = set()
    depth = 0
    word = ""
    for ch in usage + " ":
        if ch.isspace() or ch in "[]()|":
            if word.startswith("--") and depth > 0:
                out.add(word)
            word = ""
        else:
            word += ch
        depth += {"[": 1, "]": -1}.get(ch, 0)
    return out
