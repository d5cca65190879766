"""Which processes a command started: the process tree read from /proc (Linux), no extra
package. A process is (pid, start time), so a recycled pid is not mistaken for a survivor."""

from __future__ import annotations

import os
import time
from pathlib import Path

Proc = tuple[int, int]  # pid, start time in clock ticks since boot


def _stat(pid: int) -> tuple[int, int, str] | None:
    """(parent pid, start time, state) of ``pid``, None when it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name is in brackets and may contain spaces: split after the last ')'.
    fields = raw[raw.rindex(")") + 2 :].split()
    return int(fields[1]), int(fields[19]), fields[0]


def descendants(root: int) -> set[Proc]:
    """Every living process below ``root`` (children, their children, ...)."""
    parent: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st = _stat(int(entry))
            if st is not None:
                parent[int(entry)] = st[0]
    out: set[Proc] = set()
    frontier = {root}
    while frontier:
        kids = {p for p, pp in parent.items() if pp in frontier}
        for k in kids:
            st = _stat(k)
            if st is not None:
                out.add((k, st[1]))
        frontier = kids
    return out


def alive(procs: set[Proc]) -> list[str]:
    """The processes of ``procs`` still there (zombies included), as readable lines."""
    out = []
    for pid, start in sorted(procs):
        st = _stat(pid)
        if st is not None and st[1] == start:
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                cmd = "?"
            out.append(f"{pid} [{st[2]}] {cmd.strip()}")
    return out


def still_alive_after(procs: set[Proc], timeout: float = 5.0) -> list[str]:
    """Wait until every process of ``procs`` has ended; those still there after ``timeout``
    (an empty list as soon as all are gone: no fixed wait)."""
    deadline = time.monotonic() + timeout
    while (left := alive(procs)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left
