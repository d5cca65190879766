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


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except OSError:
        return "?"


def _processes() -> dict[int, tuple[int, int, str]]:
    """Every process's (parent pid, start time, state), read once."""
    table: dict[int, tuple[int, int, str]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st = _stat(int(entry))
            if st is not None:
                table[int(entry)] = st
    return table


def children(parent: int) -> list[tuple[int, str]]:
    """The processes ``parent`` started that are still running (zombies have ended), with
    their command lines."""
    return [
        (pid, _command(pid))
        for pid, (pp, _, state) in _processes().items()
        if pp == parent and state != "Z"
    ]


def descendants(root: int) -> set[Proc]:
    """Every living process below ``root`` (children, their children, ...)."""
    table = _processes()
    out: set[Proc] = set()
    frontier = {root}
    while frontier:
        kids = {p for p, (pp, _, _) in table.items() if pp in frontier}
        out |= {(k, table[k][1]) for k in kids}
        frontier = kids
    return out


def alive(procs: set[Proc]) -> list[str]:
    """The processes of ``procs`` still there (zombies included), as readable lines."""
    out = []
    for pid, start in sorted(procs):
        st = _stat(pid)
        if st is not None and st[1] == start:
            out.append(f"{pid} [{st[2]}] {_command(pid)}")
    return out


def still_alive_after(procs: set[Proc], timeout: float = 5.0) -> list[str]:
    """Wait until every process of ``procs`` has ended; those still there after ``timeout``
    (an empty list as soon as all are gone: no fixed wait)."""
    deadline = time.monotonic() + timeout
    while (left := alive(procs)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left
