"""The client reads typed attributes, not wire maps: a ratchet on ``.get(`` in ``client/``.

Issue 11 asks that ``.get(`` on wire data leave the client. The server's messages now decode into
typed views (``shared.protocol.views``), and the stroke, the bot and the referee's inputs use
them; the desktop model, its views and the session's tracked state still read wire maps. This
test keeps the count from growing while they move over: each file may hold at most its budget
of ``x.get(key, …)`` calls (a queue's argument-less ``get()`` is not counted), a file not listed
must hold none, and a budget lowered by a change must be lowered here too (so the next change
cannot quietly spend it again).

Budgets include a few ``.get`` calls on dicts that are not wire data; they stay when the rest
go: ``identity.py`` (the JSON identity file on disk), ``os.environ.get`` (``cli.py``,
``bot_cli.py``, ``app.py``), name tables (``DISCIPLINE_NAMES``, ``words.py``), caches and
lookup tables of the app (``motion.py``, ``sound.py``, ``widgets.py``), the held seat tokens
(``session.py``) and the create-room form's options (``app.py``).
"""

from __future__ import annotations

import ast
from pathlib import Path

CLIENT = Path(__file__).parents[2] / "client"

# File (relative to client/) -> most ``.get(...)`` calls allowed. Lower these as code moves to
# typed views; never raise them.
BUDGET = {
    "app/app.py": 3,
    "app/cli.py": 5,
    "app/hud.py": 19,
    "app/lobby_view.py": 27,
    "app/model.py": 77,
    "app/motion.py": 1,
    "app/replay_view.py": 17,
    "app/results_view.py": 15,
    "app/sound.py": 1,
    "app/standing.py": 46,
    "app/standing_view.py": 4,
    "app/table_view.py": 6,
    "app/widgets.py": 2,
    "app/words.py": 2,
    "bot/plan.py": 5,
    "bot/player.py": 24,
    "bot_cli.py": 11,
    "commentary.py": 53,
    "identity.py": 9,
    "session.py": 19,
    "state.py": 26,
    "watch.py": 6,
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
    """The bot's problem, the stroke's cue parameters and the wire codec's callers read no
    wire map: they hold ``MatchView``, ``RoomView`` and ``CueParams``."""
    assert get_calls(CLIENT / "bot" / "problem.py") == 0
    assert get_calls(CLIENT / "app" / "aim.py") == 0
