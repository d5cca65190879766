"""What importing modules loads, read from a fresh interpreter's ``sys.modules``.

A parametrized import check used to start one interpreter per module: 31 of them, each
importing the referee or the protocol again, about 12 s of CPU in a full run on two busy cores
(docs/benchmarks.md, round 11). ``loaded_by_each`` imports a whole list in one interpreter: if
that loads nothing forbidden, no module of the list does (each one's imports are part of what
the whole list loads). Only when something forbidden shows up does each module get an
interpreter of its own, so that the failing test names the module that pulls it in.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys


def fresh_python_prints(code: str) -> str:
    """What ``code`` prints in a new interpreter, where nothing is imported yet."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()


def loaded_by(modules: tuple[str, ...], prefixes: tuple[str, ...]) -> list[str]:
    """The modules named by one of ``prefixes`` (the name itself or a submodule of it) that
    importing all of ``modules`` loads, in one fresh interpreter (a None entry in sys.modules
    blocks an import: nothing is loaded)."""
    code = (
        f"import json, sys\nfor name in {list(modules)!r}:\n    __import__(name)\n"
        f"print(json.dumps(sorted(m for m, mod in sys.modules.items() if mod is not None "
        f"and any(m == p or m.startswith(p + '.') for p in {prefixes!r}))))"
    )
    return list(json.loads(fresh_python_prints(code)))


@functools.cache
def loaded_by_each(modules: tuple[str, ...], prefixes: tuple[str, ...]) -> dict[str, list[str]]:
    """For each of ``modules``, what importing it alone loads of ``prefixes``, as
    :func:`loaded_by` of that module would say."""
    if not loaded_by(modules, prefixes):
        return {m: [] for m in modules}
    return {m: loaded_by((m,), prefixes) for m in modules}
