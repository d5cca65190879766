"""Replays: built off the event loop, once per finished match and page, cached by bytes.

A 400-stroke replay is ~700 KiB of msgpack. Encoding it again for every request (on the loop)
let ten clients stall every room; now a page is encoded once in a worker thread (with its own
read connection, so it sees a committed snapshot), finished matches' pages are kept in an LRU
bounded by bytes and shared by every request (the ``re`` of each answer is spliced into the
cached bytes, not re-encoded), and one ``replay`` carries at most ``PAGE_BYTES`` of strokes.
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from typing import Any, Final

import msgpack

from server.store import rows as wire_rows
from server.store.api import GameStore
from shared.protocol import encode
from shared.protocol import to_client as tc
from shared.protocol.views import ReplayStroke

PAGE_BYTES: Final = 1 << 20  # strokes in one replay message, at most (about)
STROKE_OVERHEAD: Final = 48  # n, kind, seat, played_ms around each stored record


def build(
    store: GameStore, match: dict[str, Any], after: int, limit: int | None
) -> tuple[bytes, int]:
    """One ``replay`` page without ``re``, encoded; and how many strokes it holds. Runs in a
    worker thread."""
    db = store.reader()
    try:
        rows = store.strokes(match["match_id"], after, limit, db=db)
    finally:
        db.close()
    strokes: list[ReplayStroke] = []
    size = 0
    next_after: int | None = None
    for n, kind, seat, played_ms, record in rows:
        if strokes and size + len(record) + STROKE_OVERHEAD > PAGE_BYTES:
            next_after = strokes[-1].n
            break
        body = msgpack.unpackb(record, raw=False)
        row = {**body, "n": n, "kind": kind, "seat": seat, "played_ms": played_ms}
        strokes.append(wire_rows.replay_stroke(row))
        size += len(record) + STROKE_OVERHEAD
    if next_after is None and limit is not None and len(rows) == limit and rows:
        next_after = strokes[-1].n  # a full page: there may be more
    reply = tc.Replay(
        match_id=match["match_id"],
        room=wire_rows.replay_room(match),
        strokes=tuple(strokes),
        finished=match["finished_ms"] is not None,
        scoresheet=wire_rows.scoresheet(match["scoresheet"]),
        next_after=next_after,
    )
    return encode(reply), len(strokes)


def with_re(data: bytes, re: int | None) -> bytes:
    """``data`` (an encoded map without ``re``) with ``"re": re`` added, without re-encoding
    the rest: the map header's count goes up by one and the pair is appended."""
    if re is None:
        return data
    head = data[0]
    extra = msgpack.packb("re") + msgpack.packb(re)
    if 0x80 <= head < 0x8F:  # fixmap with up to 14 entries
        return bytes([head + 1]) + data[1:] + extra
    if head == 0xDE:  # map16
        count = int.from_bytes(data[1:3], "big") + 1
        return b"\xde" + count.to_bytes(2, "big") + data[3:] + extra
    obj = msgpack.unpackb(data, raw=False)  # not reached for our messages; kept correct
    obj["re"] = re
    out: bytes = msgpack.packb(obj, use_bin_type=True)
    return out


class ReplayCache:
    """Encoded pages of finished matches, least recently used dropped beyond ``max_bytes``."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self._pages: OrderedDict[tuple[int, int, int | None], bytes] = OrderedDict()

    def get(self, key: tuple[int, int, int | None]) -> bytes | None:
        data = self._pages.get(key)
        if data is not None:
            self._pages.move_to_end(key)
        return data

    def put(self, key: tuple[int, int, int | None], data: bytes) -> None:
        if len(data) > self.max_bytes:
            return
        with contextlib.suppress(KeyError):
            self.bytes -= len(self._pages.pop(key))
        self._pages[key] = data
        self.bytes += len(data)
        while self.bytes > self.max_bytes:
            _, old = self._pages.popitem(last=False)
            self.bytes -= len(old)
