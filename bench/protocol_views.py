"""The cost of typed views on the wire (issue 11): one real ``stroke_played`` built the way the
room builds it (``match_view``, the verdict's ``StrokeResult``, the trajectory and events from the
physics worker), encoded; and decoded the way a client decodes it (docs/benchmarks.md
"Typed views").

Baselines in the same run: msgpack alone on the same wire map (packing a map already built, as
the untyped server did after assembling its dicts) and msgpack alone on the bytes (what an
untyped client did before reading keys). Then what the server decodes most: a ``stroke`` and a
``create_room`` (every bound of both checked by the schema-driven decoder).
"""

from __future__ import annotations

import time
import timeit
from collections.abc import Iterator

import msgpack

from shared import rules, wireviews
from shared.physics import encode_trajectory, simulate
from shared.physics.types import Event, Stroke
from shared.protocol import decode, decode_server, encode
from shared.protocol import to_client as tc
from shared.protocol import views as pv

REPEAT = 200


def _played() -> tuple[rules.MatchState, object, dict[str, object], tuple[Event, ...]]:
    state, _ = rules.apply(rules.new_match(rules.MatchOptions(), 0), rules.Start(), 0)
    table = state.options.table_spec
    stroke = Stroke(35.0, 3.0, 0.2, 0.1)
    result = simulate(table, dict(state.positions), "white", stroke)
    traj = encode_trajectory(result.trajectory)
    return state, result, traj, result.events  # type: ignore[return-value]


def run() -> Iterator[str]:
    state, _result, traj, events = _played()
    verdict = rules.Verdict(points=1, calls=(rules.Call("good", "Good.", "R-PLAY-1"),))

    def typed() -> bytes:
        msg = tc.StrokePlayed(
            seq=5,
            shooter=0,
            stroke=pv.PlayedStroke(cue=pv.CueParams(direction=35.0, speed=3.0), ball="white"),
            start_ms=1_000,
            rest_ms=9_000,
            trajectory=pv.Trajectory(paths=traj),  # type: ignore[arg-type]
            events=wireviews.event_views(events),
            result=wireviews.stroke_result_view(verdict),
            match=wireviews.match_view(state),
        )
        return encode(msg)

    data = typed()
    wire = msgpack.unpackb(data, raw=False)

    def baseline_encode() -> bytes:
        out: bytes = msgpack.packb(wire, use_bin_type=True)
        return out

    def baseline_decode() -> object:
        return msgpack.unpackb(data, raw=False)

    def typed_decode() -> object:
        return decode_server(data)

    yield (
        f"stroke_played: {len(data)} bytes, {sum(len(v) for v in traj.values()) // 16} "
        f"segments, {len(events)} events"
    )
    for name, base, new in (
        ("build + encode on the server", baseline_encode, typed),
        ("decode on a client", baseline_decode, typed_decode),
    ):
        b = min(timeit.repeat(base, number=REPEAT, repeat=5)) / REPEAT
        t = min(timeit.repeat(new, number=REPEAT, repeat=5)) / REPEAT
        yield f"{name}: typed {t * 1e6:.0f} us, msgpack alone {b * 1e6:.0f} us ({t / b:.1f}x)"
    started = time.perf_counter()
    for _ in range(REPEAT):
        wireviews.match_view(state).to_wire()
    per = (time.perf_counter() - started) / REPEAT
    yield f"match_view(state).to_wire(): {per * 1e6:.0f} us"
    frames = {
        "stroke": msgpack.packb(
            {"t": "stroke", "direction": 35.0, "speed": 3.0, "tip_x": 0.1, "tip_y": 0.2, "id": 7}
        ),
        "create_room": msgpack.packb(
            {
                "t": "create_room",
                "discipline": "three_cushion",
                "distance": 15,
                "shot_clock_s": 40,
                "sets": 3,
                "private": True,
                "password": "pw",
                "id": 3,
            }
        ),
    }
    for name, frame in frames.items():
        n = REPEAT * 10
        per = min(timeit.repeat(lambda f=frame: decode(f), number=n, repeat=5)) / n
        yield f"decode {name} on the server: {per * 1e6:.1f} us"
