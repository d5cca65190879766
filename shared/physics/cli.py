"""``carom sim``: simulate one stroke (or a batch) from the command line.

Contract (docs/physics.md): ``configure(parser)`` adds the options to an argparse parser and
``run(args) -> int`` executes them. Module-level imports stay light; the engine (and pymunk) load
inside ``run``. Bad input prints a clear message on stderr and returns 2.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from shared.physics.trajectory import event_wire, position_at
from shared.physics.types import PositionError, ShotResult, Stroke, StrokeError
from shared.table import TABLES, BallName, Point, TableSpec, table_by_name

EXIT_BAD_INPUT = 2
_FIELDS = ("direction", "speed", "tip_x", "tip_y", "elevation")


class InputError(ValueError):
    """A command line or batch line the simulator cannot take."""


def _point(text: str) -> Point:
    try:
        xs, ys = text.split(",")
        p = (float(xs), float(ys))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected X,Y in metres, got {text!r}") from None
    if not all(math.isfinite(v) for v in p):
        raise argparse.ArgumentTypeError(f"expected finite X,Y, got {text!r}")
    return p


# The rules name cushions from the table's length (R-SPOT-1); the --png picture, like the game
# window, draws the table landscape with the bottom cushion on the left. Human output names each
# cushion as it is seen there; --json keeps the rules' names.
AS_SEEN: dict[str, str] = {
    "top": "right short cushion",
    "bottom": "left short cushion",
    "left": "far long cushion",
    "right": "near long cushion",
}


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``carom sim`` options to ``parser``."""
    parser.description = (
        "Simulate one carom stroke to rest and print the event log and final positions. "
        "Positions default to the break (white on the left starting spot, yellow on the bottom "
        "spot, red on the top spot)."
    )
    # --direction and --speed are required unless --batch: argparse has no word for "these two,
    # or that one", so the usage line says it by hand (a test checks it names every option).
    tables = ",".join(sorted(TABLES))
    parser.usage = (
        "%(prog)s [-h] (--direction DEG --speed M_S | --batch FILE)\n"
        "       [--white X,Y] [--yellow X,Y] [--red X,Y] [--cue {white,yellow}]\n"
        "       [--tip-x A] [--tip-y B] [--elevation DEG]\n"
        f"       [--table {{{tables}}}]\n"
        "       [--json] [--png FILE] [--samples HZ]"
    )
    stroke = parser.add_argument_group("the stroke (required: --direction and --speed, or --batch)")
    stroke.add_argument(
        "--direction",
        type=float,
        metavar="DEG",
        help="cue heading, 0 = +x (toward the right short cushion), CCW; required unless --batch",
    )
    stroke.add_argument(
        "--speed",
        type=float,
        metavar="M_S",
        help="cue speed at impact, m/s; required unless --batch",
    )
    stroke.add_argument(
        "--batch", metavar="FILE", help="one JSON stroke per line in, one JSON result per line out"
    )
    for name in ("white", "yellow", "red"):
        parser.add_argument(f"--{name}", type=_point, metavar="X,Y", help=f"{name} ball, m")
    parser.add_argument("--cue", choices=("white", "yellow"), default="white")
    parser.add_argument("--tip-x", type=float, default=0.0, metavar="A", help="> 0 right english")
    parser.add_argument("--tip-y", type=float, default=0.0, metavar="B", help="> 0 follow")
    parser.add_argument("--elevation", type=float, default=0.0, metavar="DEG")
    parser.add_argument("--table", default="match", choices=sorted(TABLES))
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--png", metavar="FILE", help="draw the table and the ball paths")
    parser.add_argument("--samples", type=float, metavar="HZ", help="add positions at HZ")


def _request(
    fields: Mapping[str, Any],
) -> tuple[Any, dict[BallName, Point], BallName, Stroke, float | None]:
    """Validate one stroke request (command-line values or a batch line)."""
    try:
        table = table_by_name(str(fields.get("table") or "match"))
    except ValueError as exc:
        raise InputError(str(exc)) from None
    defaults = {
        "white": table.left_start_spot,
        "yellow": table.bottom_spot,
        "red": table.top_spot,
    }
    balls: dict[BallName, Point] = {}
    for name in ("white", "yellow", "red"):
        p = fields.get(name)
        if p is None:
            p = defaults[name]
        if (
            not isinstance(p, list | tuple)
            or len(p) != 2
            or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in p)
        ):
            raise InputError(f"{name} must be [x, y] in metres, got {p!r}")
        balls[name] = (float(p[0]), float(p[1]))
    cue_field = fields.get("cue") or "white"
    if cue_field not in ("white", "yellow"):
        raise InputError(f"cue must be white or yellow, got {cue_field!r}")
    cue: BallName = "white" if cue_field == "white" else "yellow"
    for required in ("direction", "speed"):
        if fields.get(required) is None:
            raise InputError(f"--{required} is required")
    values: dict[str, Any] = {k: fields.get(k) for k in _FIELDS}
    stroke = Stroke(
        direction=values["direction"],
        speed=values["speed"],
        tip_x=values["tip_x"] if values["tip_x"] is not None else 0.0,
        tip_y=values["tip_y"] if values["tip_y"] is not None else 0.0,
        elevation=values["elevation"] if values["elevation"] is not None else 0.0,
    )  # raises StrokeError on NaN, inf, out of range or non-numbers
    samples = fields.get("samples")
    if samples is not None:
        if isinstance(samples, bool) or not isinstance(samples, int | float):
            raise InputError(f"samples must be a rate in Hz, got {samples!r}")
        if not 0 < samples <= 10000:
            raise InputError(f"samples must be in (0, 10000] Hz, got {samples}")
    return table, balls, cue, stroke, samples


def result_json(result: ShotResult, cpu_ms: float, samples: float | None) -> dict[str, Any]:
    """The ``--json`` object (documented in docs/physics.md)."""
    events = []
    for e in result.events:
        item = event_wire(e)
        item["after"] = {
            name: {"pos": list(s.pos), "vel": list(s.vel)} for name, s in e.after.items()
        }
        events.append(item)
    out: dict[str, Any] = {
        "events": events,
        "final": {k: (list(v) if v is not None else None) for k, v in result.final.items()},
        "duration": result.duration,
        "cpu_ms": cpu_ms,
    }
    if samples is not None:
        out["samples"] = sample(result, samples)
    return out


def sample(result: ShotResult, hz: float) -> dict[str, list[list[float]]]:
    """Per ball, ``[t, x, y]`` at ``hz`` from the strike to rest (or to leaving the table)."""
    out: dict[str, list[list[float]]] = {}
    for name in result.trajectory:
        off = [e.t for e in result.events if e.kind == "off_table" and name in e.balls]
        stop = off[0] if off else result.duration
        n = int(stop * hz + 1e-9)
        times = [k / hz for k in range(n + 1)]
        if times[-1] < stop:
            times.append(stop)
        out[name] = [[t, *position_at(result, name, t)] for t in times]
    return out


def _simulate(fields: Mapping[str, Any]) -> tuple[ShotResult, float, TableSpec, float | None]:
    from shared.physics.engine import simulate

    table, balls, cue, stroke, samples = _request(fields)
    start = time.process_time()
    result = simulate(table, balls, cue, stroke)
    cpu_ms = (time.process_time() - start) * 1000.0
    return result, cpu_ms, table, samples


def _human(result: ShotResult, cpu_ms: float, out: TextIO) -> None:
    for e in result.events:
        who = " ".join(e.balls)
        where = f" ({AS_SEEN.get(e.cushion, e.cushion)})" if e.cushion else ""
        after = "  ".join(
            f"{n} at ({s.pos[0]:.3f}, {s.pos[1]:.3f}) {math.hypot(*s.vel):.3f} m/s"
            for n, s in e.after.items()
        )
        print(f"{e.t:8.4f} s  {e.kind:<13} {who + where:<34} {after}", file=out)
    print("final:", file=out)
    for name, p in result.final.items():
        where = f"({p[0]:.4f}, {p[1]:.4f})" if p is not None else "off the table"
        print(f"  {name:<6} {where}", file=out)
    print(f"duration {result.duration:.3f} s, cpu {cpu_ms:.2f} ms", file=out)


def _fail(message: str) -> int:
    print(f"carom sim: error: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _batch(path: str, out: TextIO) -> int:
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.readlines()
    except OSError as exc:
        return _fail(f"cannot read {path}: {exc.strerror}")
    status = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            fields = json.loads(line)
            if not isinstance(fields, dict):
                raise InputError("each line must be a JSON object")
            result, cpu_ms, _, samples = _simulate(fields)
            print(json.dumps(result_json(result, cpu_ms, samples)), file=out)
        except (InputError, StrokeError, PositionError, json.JSONDecodeError, TypeError) as exc:
            # Keep one output line per input line, so results stay aligned with strokes.
            print(json.dumps({"error": str(exc), "line": number}), file=out)
            print(f"carom sim: error: {path}:{number}: {exc}", file=sys.stderr)
            status = EXIT_BAD_INPUT
    return status


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Execute ``carom sim``; returns the exit code."""
    stream = out if out is not None else sys.stdout
    if args.batch:
        return _batch(args.batch, stream)
    fields = {k: getattr(args, k, None) for k in ("white", "yellow", "red", "cue", "table")}
    fields.update({k: getattr(args, k, None) for k in (*_FIELDS, "samples")})
    try:
        result, cpu_ms, table, samples = _simulate(fields)
    except (InputError, StrokeError, PositionError) as exc:
        return _fail(str(exc))
    if args.png:
        from shared.physics.picture import stroke_png

        try:
            with open(args.png, "wb") as fh:
                fh.write(stroke_png(result, table))
        except OSError as exc:
            return _fail(f"cannot write {args.png}: {exc.strerror}")
    if args.json:
        print(json.dumps(result_json(result, cpu_ms, samples)), file=stream)
    else:
        _human(result, cpu_ms, stream)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="carom sim")
    configure(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
