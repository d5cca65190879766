"""Hypothesis strategies for every typed view, derived from the views' own field types.

Each field's strategy comes from its type (``int``, ``float``, ``tuple[X, ...]``,
``Mapping[K, X]``, a view …) and the bounds declared in it (``Annotated[int, Range(0, 1)]``,
``Length``), so the strategies follow the schema. Words are drawn from their enum or
``Literal``; an open word (``OpenEnum``) is sometimes one this release does not know, as a newer
server would send it. A view whose fields depend on each other (the cue parameters' miscue
limit, a replay entry's ``kind`` and body) has its own strategy.
"""

from __future__ import annotations

import math
import types
from collections.abc import Mapping
from dataclasses import fields
from enum import Enum
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from hypothesis import strategies as st

from shared.protocol import to_client as tc
from shared.protocol import views as pv
from shared.protocol.bounds import Length, Range
from shared.protocol.enums import LagReason, OpenEnum
from shared.protocol.typed import View, hints

BALLS = st.sampled_from(pv.BALL_NAMES)
# Words a newer server might send: lower-case, like every word of v1, and not one we know.
NEW_WORDS = st.from_regex(r"[a-z][a-z_]{0,20}", fullmatch=True)
texts = st.text(min_size=1, max_size=12)
times = st.integers(0, 2**53 - 1)
small = st.integers(0, 10_000)
numbers = st.floats(0, 1e6, allow_nan=False, allow_infinity=False)
points = st.tuples(st.floats(-10, 10), st.floats(-10, 10))
seqs = st.integers(0, 2**40)


def _tip() -> st.SearchStrategy[tuple[float, float]]:
    r = st.floats(0.0, 0.6)
    a = st.floats(0.0, 2 * math.pi)
    return st.tuples(r, a).map(lambda ra: (ra[0] * math.cos(ra[1]), ra[0] * math.sin(ra[1])))


def cue_params(spot: bool = True) -> st.SearchStrategy[pv.CueParams]:
    return st.builds(
        lambda d, s, tip, e, sp: pv.CueParams(
            direction=d, speed=s, tip_x=tip[0], tip_y=tip[1], elevation=e, spot=sp
        ),
        st.floats(0.0, 360.0, exclude_max=True),
        st.floats(0.0, 8.0, exclude_min=True),
        _tip(),
        st.floats(0.0, 89.0),
        (st.none() | st.sampled_from(pv.SPOTS)) if spot else st.none(),
    )


trajectories = st.builds(
    pv.Trajectory,
    paths=st.dictionaries(
        BALLS,
        st.lists(st.integers(0, 1) | st.floats(-10, 10), min_size=16, max_size=16).map(tuple),
        max_size=3,
    ),
)
events = st.builds(
    pv.EventView,
    t=st.floats(0, 30),
    kind=st.sampled_from(["strike", "ball_ball", "ball_cushion", "rest", "new_kind"]),
    balls=st.lists(BALLS, max_size=2).map(tuple),
    cushion=st.none() | st.sampled_from(["top", "left"]),
    speeds=st.none() | st.lists(st.floats(0, 8), min_size=1, max_size=2).map(tuple),
)

SPECIAL: dict[type, st.SearchStrategy[Any]] = {
    pv.CueParams: cue_params(),
    pv.Trajectory: trajectories,
    pv.EventView: events,
}
FIELD: dict[tuple[type, str], st.SearchStrategy[Any]] = {
    (pv.SheetSet, "number"): st.integers(1, 9),
    (pv.PlayedStroke, "cue"): cue_params(),
    (pv.MatchView, "deadline_ms"): st.none() | times,
}


def words(tp: type[Enum]) -> st.SearchStrategy[Any]:
    """A member of ``tp``; for an open word, sometimes one this release does not know (made
    the way the decoder makes it)."""
    known = st.sampled_from(list(tp))
    if issubclass(tp, OpenEnum):
        return known | NEW_WORDS.filter(lambda w: w not in tp._value2member_map_).map(tp)
    return known


def bounded(base: Any, meta: tuple[Any, ...], owner: type, name: str) -> st.SearchStrategy[Any]:
    """The strategy of ``Annotated[base, *meta]``: the base type's, within the bounds."""
    for m in meta:
        if isinstance(m, Range) and base is int:
            lo = 0 if m.lo is None else int(m.lo)
            hi = 10_000 if m.hi is None else int(m.hi)
            return st.integers(lo, hi)
        if isinstance(m, Range) and base is float:
            return st.floats(
                0.0 if m.lo is None else m.lo,
                1e6 if m.hi is None else m.hi,
                exclude_min=m.lo_open,
                exclude_max=m.hi_open,
            )
        if isinstance(m, Length) and base is str:
            return st.text(min_size=m.lo, max_size=min(m.hi, 12))
        if isinstance(m, Length) and get_origin(base) is tuple:
            (item, _) = get_args(base)
            return st.lists(for_type(item, owner, name), min_size=m.lo, max_size=m.hi).map(tuple)
    return for_type(base, owner, name)


def for_type(tp: Any, owner: type, name: str) -> st.SearchStrategy[Any]:
    if (owner, name) in FIELD:
        return FIELD[(owner, name)]
    origin = get_origin(tp)
    if origin is Annotated:
        base, *meta = get_args(tp)
        return bounded(base, tuple(meta), owner, name)
    if origin is Literal:
        return st.sampled_from(get_args(tp))
    if isinstance(tp, type) and issubclass(tp, Enum):
        return words(tp)
    if origin is Union or origin is types.UnionType:
        rest = [a for a in get_args(tp) if a is not type(None)]
        inner = st.one_of(*(for_type(a, owner, name) for a in rest))
        return (st.none() | inner) if type(None) in get_args(tp) else inner
    if tp is int:
        return small
    if tp is float:
        return numbers
    if tp is str:
        return texts
    if tp is bool:
        return st.booleans()
    if origin is tuple:
        args = get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return st.lists(for_type(args[0], owner, name), max_size=2).map(tuple)
        return st.tuples(*(for_type(a, owner, name) for a in args))
    if origin in (Mapping, dict):
        kt, vt = get_args(tp)
        keys = texts if kt is str else for_type(kt, owner, name)
        return st.dictionaries(keys, for_type(vt, owner, name), max_size=3)
    if isinstance(tp, type) and issubclass(tp, View):
        return view(tp)
    if tp in (tc.StrokePlayed, tc.LagResult):
        return SERVER_MOTION[tp]
    raise TypeError(f"no strategy for {tp!r} ({owner.__name__}.{name})")


def view(cls: type) -> st.SearchStrategy[Any]:
    if cls in SPECIAL:
        return SPECIAL[cls]
    kinds = hints(cls)
    return st.builds(cls, **{f.name: for_type(kinds[f.name], cls, f.name) for f in fields(cls)})


def _motion() -> dict[type, st.SearchStrategy[Any]]:
    played = st.builds(
        tc.StrokePlayed,
        seq=seqs,
        shooter=st.integers(0, 1),
        stroke=view(pv.PlayedStroke),
        start_ms=times,
        rest_ms=times,
        trajectory=trajectories,
        events=st.lists(events, max_size=3).map(tuple),
        result=view(pv.StrokeResult),
        match=view(pv.MatchView),
    )
    lag = st.builds(
        tc.LagResult,
        seq=seqs,
        winner=st.none() | st.integers(0, 1),
        reason=words(LagReason),
        trajectory=trajectories,
        start_ms=st.none() | times,
        rest_ms=st.none() | times,
        strokes=st.none() | st.dictionaries(st.sampled_from(["0", "1"]), cue_params(False)),
        events=st.none() | st.lists(events, max_size=2).map(tuple),
        match=st.none() | view(pv.MatchView),
    )
    return {tc.StrokePlayed: played, tc.LagResult: lag}


SERVER_MOTION = _motion()


def _replay_stroke(kind: str, body: st.SearchStrategy[Any]) -> st.SearchStrategy[pv.ReplayStroke]:
    return st.builds(
        pv.ReplayStroke,
        n=st.integers(1, 10_000),
        kind=st.just(kind),
        seat=st.none() | st.integers(0, 1),
        played_ms=times,
        body=body,
    )


replay_strokes = st.one_of(
    _replay_stroke("lag", SERVER_MOTION[tc.LagResult]),
    _replay_stroke("stroke", SERVER_MOTION[tc.StrokePlayed]),
    _replay_stroke("clock", view(pv.ClockFoul)),
    _replay_stroke(
        "place",
        st.builds(pv.Placed, balls=st.dictionaries(BALLS, points), match=view(pv.MatchView)),
    ),
)
SPECIAL[pv.ReplayStroke] = replay_strokes


def views_of(cls: type, max_size: int = 3) -> st.SearchStrategy[tuple[Any, ...]]:
    return st.lists(view(cls), max_size=max_size).map(tuple)
