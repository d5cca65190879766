"""Replay human-readable match logs (``golden/*.txt``) through the referee, perft-style.

One action per line, ``action args => expected verdict``; blank lines and ``#`` comments are
ignored. The file ends with the expected scoresheet after ``expect``. Set ``CAROM_REGOLD=1`` to
rewrite the expectations from the current referee (then read the diff before committing).

Actions (time: players act once the balls are at rest; ``+MS`` moves the clock on first):

    options k=v ...                    MatchOptions (distance=3 sets=3 discipline=one_cushion …)
    start
    lag SEAT DIRECTION SPEED
    lagresult STEPS… final white=x,y yellow=x,y
    choose SEAT BREAKER
    stroke [by=SIDE.SLOT] [spot=left|right] [cue=DIR,SPEED,TIPX,TIPY,ELEV] STEPS…
           [final ball=x,y …] [dur=SECONDS]
    place ball=x,y …                   practice rooms only
    tick|timeout|resume|respot|concede|disconnect|reconnect|rematch [SEAT[.SLOT]] [+MS]

STEPS are the event language of ``builders.py`` (``top``, ``red``, ``red>left``, ``off:red``),
each optionally at a time in seconds (``red@0.0042``). In a team match (``team_mode=doubles``
or ``scotch``, R-TEAM-1) a player is ``SIDE.SLOT``: ``by=`` names the partner who strikes (the
partner due when left out) and ``next=`` shows the side and the partner to play.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from shared.physics.types import Stroke
from shared.rules import (
    ChooseBreak,
    Concede,
    Disconnected,
    IllegalAction,
    LagResult,
    LagStroke,
    MatchOptions,
    MatchState,
    Place,
    PlayStroke,
    Reconnected,
    Rematch,
    Respot,
    Resume,
    Start,
    Tick,
    TimeOut,
    Verdict,
    apply,
    cue_ball,
    new_match,
    scoresheet,
    stroke_start,
)
from shared.rules.actions import Action
from shared.rules.placement import lag_position
from shared.table import BALLS, BallName, Point
from tests.shared.rules.builders import STROKE, make_result

T0 = 1_700_000_000_000
SIMPLE: dict[str, Callable[[int, int], Action]] = {
    "tick": lambda seat, slot: Tick(),
    "timeout": TimeOut,
    "resume": Resume,
    "respot": Respot,
    "concede": Concede,
    "disconnect": Disconnected,
    "reconnect": Reconnected,
    "rematch": Rematch,
}


@dataclass
class Replay:
    lines: list[str]  # the file rewritten with the referee's actual verdicts
    mismatches: list[str]
    state: MatchState


def render(v: Verdict, s: MatchState) -> str:
    parts = [f"points={v.points}"]
    if v.foul is not None:
        parts.append(f"foul={v.foul.code}")
    if v.lag_winner is not None or v.lag_repeat:
        parts.append(f"lag={'repeat' if v.lag_repeat else v.lag_winner}:{v.lag_reason}")
    nxt = "-" if v.next_shooter is None else str(v.next_shooter)
    if s.options.teams and v.next_shooter is not None:
        nxt += f".{v.next_slot}"
    parts.append(f"next={nxt}")
    if v.respots:
        parts.append(
            "respots=" + ",".join(f"{b}@{p[0]:.4f},{p[1]:.4f}" for b, p in v.respots.items())
        )
    if v.set_over is not None:
        parts.append(f"set_over={v.set_over.winner}:{v.set_over.reason.value}")
    if v.game_over is not None:
        parts.append(f"game_over={v.game_over.winner}:{v.game_over.reason.value}")
    parts.append("calls=" + (",".join(c.code for c in v.calls) or "-"))
    parts.append(f"phase={s.phase.value}")
    return " ".join(parts)


def render_sheet(s: MatchState) -> list[str]:
    sheet = scoresheet(s)
    out = []

    def line(x) -> str:  # type: ignore[no-untyped-def]
        return f"{x.points} pts {x.innings} inn {x.average:.3f} avg {x.high_run} hr"

    def players(lines) -> str:  # type: ignore[no-untyped-def]
        return " | ".join(
            f"{p.side}.{p.slot} {p.points} pts {p.innings} inn {p.average:.3f} avg" for p in lines
        )

    teams = s.options.teams
    for st in sheet.sets:
        res = "-" if st.result is None else f"{st.result.winner}:{st.result.reason.value}"
        a, b = line(st.lines[0]), line(st.lines[1])
        out.append(f"  set {st.number} breaker {st.breaker} | {a} | {b} | {res}")
        if teams:
            out.append(f"    players | {players(st.players)}")
    res = "-" if sheet.result is None else f"{sheet.result.winner}:{sheet.result.reason.value}"
    a, b = line(sheet.match[0]), line(sheet.match[1])
    won = f"sets {sheet.sets_won[0]}-{sheet.sets_won[1]}"
    out.append(f"  match | {a} | {b} | {won} | {res}")
    if teams:
        out.append(f"    players | {players(sheet.players)}")
    return out


def _player(text: str) -> tuple[int, int]:
    """``SIDE`` or ``SIDE.SLOT``."""
    side, _, slot = text.partition(".")
    return int(side), int(slot or 0)


def _point(text: str) -> Point:
    x, y = text.split(",")
    return (float(x), float(y))


def _parse_final(words: list[str]) -> tuple[list[str], dict[BallName, Point | None], float]:
    steps: list[str] = []
    final: dict[BallName, Point | None] = {}
    duration = 4.0
    in_final = False
    for w in words:
        if w == "final":
            in_final = True
        elif w.startswith("dur="):
            duration = float(w[4:])
        elif in_final:
            ball, pos = w.split("=")
            final[ball] = _point(pos)  # type: ignore[index]
        else:
            steps.append(w)
    return steps, final, duration


def replay(path: Path) -> Replay:
    out: list[str] = []
    bad: list[str] = []
    state: MatchState | None = None
    now = T0
    lines = path.read_text(encoding="utf-8").splitlines()
    expect_at = next((i for i, ln in enumerate(lines) if ln.strip() == "expect"), len(lines))
    for number, raw in enumerate(lines[:expect_at], start=1):
        text, _, expected = raw.partition("=>")
        words = text.split()
        if not words or words[0].startswith("#"):
            out.append(raw)
            continue
        cmd, args = words[0], words[1:]
        if cmd == "options":
            kv = dict(a.split("=") for a in args)
            opts = MatchOptions(**{k: _value(v) for k, v in kv.items()})  # type: ignore[arg-type]
            state = new_match(opts, now)
            out.append(raw)
            continue
        assert state is not None, f"{path.name}:{number}: options first"
        if args and args[-1].startswith("+"):
            now += int(args.pop()[1:])
        action: Action
        if cmd == "start":
            action = Start()
        elif cmd == "lag":
            action = LagStroke(int(args[0]), Stroke(float(args[1]), float(args[2])))
        elif cmd == "lagresult":
            steps, final, duration = _parse_final(args)
            start = dict(zip(BALLS, lag_position(state.options.table_spec), strict=True))
            a, b = state.lag_strokes
            assert a is not None and b is not None
            result = make_result(start, {"white": a, "yellow": b}, steps, final, duration)
            action = LagResult(result)
        elif cmd == "choose":
            now = max(now, state.resting_at_ms)
            action = ChooseBreak(int(args[0]), int(args[1]))
        elif cmd == "stroke":
            now = max(now, state.resting_at_ms)
            assert state.shooter is not None
            side, slot = state.shooter, state.shooter_slot or 0
            if args and args[0].startswith("by="):
                side, slot = _player(args.pop(0)[3:])
            spot = None
            if args and args[0].startswith("spot="):
                spot = args.pop(0)[5:]
            stroke = STROKE
            if args and args[0].startswith("cue="):
                stroke = Stroke(*(float(x) for x in args.pop(0)[4:].split(",")))
            steps, final, duration = _parse_final(args)
            start = stroke_start(state, spot)  # type: ignore[arg-type]
            result = make_result(start, {cue_ball(state): stroke}, steps, final, duration)
            action = PlayStroke(side, stroke, result, slot=slot)
        elif cmd == "place":
            now = max(now, state.resting_at_ms)
            action = Place({b: _point(p) for b, p in (a.split("=") for a in args)})  # type: ignore[misc]
        elif cmd in SIMPLE:
            if cmd in ("respot", "timeout"):
                now = max(now, state.resting_at_ms)
            side, slot = _player(args[0]) if args else (0, 0)
            action = SIMPLE[cmd](side, slot) if cmd != "tick" else Tick()
        else:
            raise ValueError(f"{path.name}:{number}: unknown action {cmd!r}")
        try:
            state, verdict = apply(state, action, now)
            got = render(verdict, state)
        except IllegalAction as exc:  # a refusal is part of the record too; nothing changes
            got = f"illegal={exc.code}"
        if got != expected.strip():
            where = f"{path.name}:{number}: {text.strip()}"
            bad.append(f"{where}\n  expected {expected.strip()}\n  got      {got}")
        out.append(f"{text.rstrip()}  => {got}")
    assert state is not None
    sheet = render_sheet(state)
    want = [ln for ln in lines[expect_at + 1 :] if ln.strip()]
    if want != sheet:
        bad.append(f"{path.name}: scoresheet\n" + "\n".join(["  expected", *want, "  got", *sheet]))
    out += ["expect", *sheet]
    return Replay(out, bad, state)


def _value(v: str) -> object:
    if v in ("true", "false"):
        return v == "true"
    try:
        return int(v)
    except ValueError:
        try:
            return float(v)
        except ValueError:
            return v
