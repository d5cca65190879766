"""Every referee state the golden match logs (tests/shared/rules/golden/*.txt) pass through:
real ``MatchState`` values in every phase, for checking views built from them."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import tests.shared.rules.golden as golden
from shared.protocol.views import RoomView
from shared.rules import MatchState
from shared.rules import apply as referee_apply

GOLDEN = Path(__file__).parents[1] / "rules" / "golden"


@cache
def golden_states() -> tuple[tuple[str, MatchState], ...]:
    """(``file:step``, state) after every accepted action of every golden log; replayed once
    per process (three test modules parametrize over it at collection)."""
    seen: list[tuple[str, MatchState]] = []
    for path in sorted(GOLDEN.glob("*.txt")):
        name = path.name
        steps = 0

        def recording(state: MatchState, action: Any, now: int, name: str = name) -> Any:
            nonlocal steps
            out = referee_apply(state, action, now)
            steps += 1
            seen.append((f"{name}:{steps}", out[0]))
            return out

        golden.apply = recording  # type: ignore[assignment]
        try:
            golden.replay(path)
        finally:
            golden.apply = referee_apply
    return tuple(seen)


def room_view() -> RoomView:
    """A plain three-cushion room in play, for snapshots built around a golden state."""
    from shared import wireviews
    from shared.protocol.enums import Discipline, Phase
    from shared.rules import MatchOptions

    return RoomView(
        room_id="r1",
        discipline=Discipline.THREE_CUSHION,
        distance=15,
        players=("ana", "bob"),
        spectators=0,
        phase=Phase.PLAY,
        private=False,
        practice=False,
        options=wireviews.room_options(MatchOptions()),
        seats=(None, None),
        match_id=None,
    )
