"""The client reads typed attributes, not wire maps: a ratchet on ``.get(`` in ``client/``.

Issue 11 asks that ``.get(`` on wire data leave the client. Every server message is decoded
once, in ``client/wire.py``, into ``shared.protocol`` objects with typed views all the way
down (``MatchView``, ``RoomView``, ``Scoresheet`` …); the session's tracked state, the bots,
``carom watch``, the commentary and the desktop app (its model, HUD, lobby, results, replay and
ranking screens) read attributes. This test keeps it so: each file may hold at most its budget
of ``x.get(key, …)`` calls (a queue's argument-less ``get()`` is not counted), a file not listed
must hold none, and a budget lowered by a change must be lowered here too (so the next change
cannot quietly spend it again).

What is left is not wire data: the frame decoder's look at a raw map's ``t`` before it picks
the message type (``wire.py``, and ``watch.py`` reading a recorded file the same way),
``identity.py`` (the JSON identity file on disk), ``os.environ.get`` (``cli.py``, ``app.py``,
``bot_cli.py``), name tables (``DISCIPLINE_NAMES``, ``words.py``, the lobby's phases, the
results' reasons, the HUD's clock words, the profile's outcomes, the tournaments' state words and
player names), caches and lookup tables of
the app (``motion.py``, ``sound.py``, ``widgets.py``, the model's ball orientations, the bot's
plan cache and the physics' results in ``bot/plan.py``), the held seat tokens
(``session.py``), the create-room form's options (``app.py``, ``lobby_view.py``) and the
resting balls by name (``table_view.py``).
"""

from __future__ import annotations

import ast
from pathlib import Path

CLIENT = Path(__file__).parents[2] / "client"

# File (relative to client/) -> most ``.get(...)`` calls allowed. Lower these as code moves to
# typed views; never raise them.
BUDGET = {
    "app/app.py": 2,
    "app/cli.py": 4,
    "app/hud.py": 1,
    "app/lobby_view.py": 2,
    "app/model.py": 1,
    "app/motion.py": 1,
    "app/results_view.py": 1,
    "app/sound.py": 1,
    "app/standing.py": 1,
    "app/table_view.py": 1,
    "app/tournaments.py": 1,  # the events' state words (a name table)
    "app/widgets.py": 2,
    "app/words.py": 2,
    "bot/blocked.py": 1,  # the simulator's trajectory by ball, not a wire map
    "bot/plan.py": 5,
    "bot_cli.py": 1,
    "commentary.py": 1,
    "identity.py": 9,
    "session.py": 1,
    "tournament_cli.py": 3,  # name tables: players by id, the words for states and reasons
    "watch.py": 2,
    "wire.py": 2,
}


def get_calls(path: Path) -> int:
    """``x.get(arg, …)`` calls: dict look-ups (a queue's ``get()`` takes no argument)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return sum(
        1
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and (node.args or node.keywords)
    )


def counts() -> dict[str, int]:
    found = {str(p.relative_to(CLIENT)): get_calls(p) for p in sorted(CLIENT.rglob("*.py"))}
    return {k: v for k, v in found.items() if v}


def test_no_file_reads_more_wire_maps_than_its_budget() -> None:
    over = {f: (n, BUDGET.get(f, 0)) for f, n in counts().items() if n > BUDGET.get(f, 0)}
    assert not over, f"read typed attributes instead of .get on wire maps: {over}"


def test_budgets_follow_the_code_down() -> None:
    now = counts()
    slack = {f: (now.get(f, 0), b) for f, b in BUDGET.items() if now.get(f, 0) < b}
    assert not slack, f"lower these budgets to the new counts: {slack}"


def test_the_bot_reads_only_typed_views() -> None:
    """The bot's problem, the stroke's cue parameters and the wire codec's records read no
    wire map: they hold ``MatchView``, ``RoomView`` and ``CueParams``."""
    assert get_calls(CLIENT / "bot" / "problem.py") == 0
    assert get_calls(CLIENT / "app" / "aim.py") == 0


def test_the_client_holds_no_wire_maps() -> None:
    """What the client keeps of the server (the library's ``TableState``, the window's
    ``GameModel`` and its ranking ``StandingState``) is typed: no field is a map of ``Any``."""
    import typing

    from client.app.model import GameModel
    from client.app.standing import StandingState
    from client.state import TableState

    for cls in (TableState, GameModel, StandingState):
        hints = typing.get_type_hints(cls)
        loose = {name: hint for name, hint in hints.items() if "Any" in repr(hint)}
        assert not loose, f"{cls.__name__} keeps untyped data: {loose}"
