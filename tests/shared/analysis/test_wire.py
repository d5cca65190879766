"""The name read from the wire form (a live ``stroke_played`` or a replay) is the name read
from the server's own result."""

from __future__ import annotations

import pytest

from shared.analysis.patterns import classify
from shared.analysis.wire import events_from_views
from shared.physics.trajectory import encode_trajectory, event_wire
from shared.protocol.views import EventView, Trajectory
from shared.table import MATCH
from tests.shared.analysis.layouts import CASES, Case


@pytest.mark.parametrize("case", CASES, ids=[c.pattern.value for c in CASES])
def test_the_wire_form_names_the_same_pattern(case: Case) -> None:
    result = case.build().result
    own = classify(result.events, result.trajectory, "white", MATCH)
    views = tuple(EventView.from_wire(event_wire(e)) for e in result.events)
    traj = Trajectory.from_wire(encode_trajectory(result.trajectory)).segments()
    wired = classify(events_from_views(views), traj, "white", MATCH)
    assert own is not None and wired is not None
    assert wired.pattern is own.pattern is case.pattern
    assert wired.cushions == own.cushions
    for a, b in zip(wired.route, own.route, strict=True):
        assert a.pos == pytest.approx(b.pos, abs=1e-6)
        assert a.diamonds == pytest.approx(b.diamonds, abs=1e-5)
